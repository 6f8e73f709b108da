package dev.oxmcp;

import java.util.concurrent.CompletableFuture;

/**
 * Answers a request the server sends to the client: {@code sampling/createMessage},
 * {@code elicitation/create} or {@code roots/list} (see {@link McpClient.Options}).
 */
@FunctionalInterface
public interface ClientRequestHandler {
    /**
     * Answers it.
     *
     * @param paramsJson the request's params
     * @param ctx cancellation of the request ({@link RequestContext#isCancelled()},
     *     {@link RequestContext#onCancel(Runnable)}); progress and logging do nothing here
     * @return the result as JSON ({@code CreateMessageResult}, {@code ElicitResult} or
     *     {@code ListRootsResult})
     * @throws Exception a failure (the server receives a JSON-RPC error)
     */
    CompletableFuture<String> handle(String paramsJson, RequestContext ctx) throws Exception;
}
