package dev.oxmcp;

import java.util.concurrent.CompletableFuture;

/** Reads a resource, or an instance of a resource template. */
@FunctionalInterface
public interface ResourceHandler {
    /**
     * Reads it.
     *
     * @param uri the URI asked for
     * @param variablesJson the template's variables as a JSON object ({@code {}} for a plain resource)
     * @param ctx the request's context
     * @return a {@code ReadResourceResult} as JSON (e.g. {@link Json#textResource})
     * @throws Exception a failure (the client receives -32603, or the {@link McpException}'s code)
     */
    CompletableFuture<String> read(String uri, String variablesJson, RequestContext ctx) throws Exception;
}
