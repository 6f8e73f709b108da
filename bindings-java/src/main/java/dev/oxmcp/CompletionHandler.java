package dev.oxmcp;

import java.util.concurrent.CompletableFuture;

/** Completes prompt arguments and resource template variables ({@code completion/complete}). */
@FunctionalInterface
public interface CompletionHandler {
    /**
     * Completes.
     *
     * @param paramsJson the request's params ({@code ref}, {@code argument}, {@code context})
     * @param ctx the request's context
     * @return a {@code Completion} as JSON: {@code {"values": [...], "total": n, "hasMore": false}}
     * @throws Exception a failure
     */
    CompletableFuture<String> complete(String paramsJson, RequestContext ctx) throws Exception;
}
