package dev.oxmcp;

import java.util.concurrent.CompletableFuture;

/**
 * Code around every request a server routes (tool calls, resource reads, prompts, completion
 * and their lists), in both eras; see {@link McpServer#use(Middleware)}.
 */
@FunctionalInterface
public interface Middleware {
    /** The rest of the chain: the next middleware, then the request's handler. */
    @FunctionalInterface
    interface Next {
        /**
         * Runs the rest, once per call.
         *
         * @param paramsJson the params to go on with, or null for those the middleware got
         * @return the rest's result JSON; fails with the rest's {@link McpException}
         */
        CompletableFuture<String> proceed(String paramsJson);
    }

    /**
     * Handles one request.
     *
     * @param requestJson the request: {@code {"method": ..., "params": {...}}}
     * @param ctx the request's context
     * @param next runs the rest of the chain
     * @return the result JSON: next's, changed, or the middleware's own; an
     *     {@link McpException} with a code answers that JSON-RPC error
     * @throws Exception a failure, as if the future failed
     */
    CompletableFuture<String> handle(String requestJson, RequestContext ctx, Next next) throws Exception;
}
