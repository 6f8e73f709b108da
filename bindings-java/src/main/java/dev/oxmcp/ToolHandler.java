package dev.oxmcp;

import java.util.concurrent.CompletableFuture;

/** Runs a tool. */
@FunctionalInterface
public interface ToolHandler {
    /**
     * Calls the tool.
     *
     * @param argumentsJson the arguments (a JSON object, already validated against the
     *     tool's input schema)
     * @param ctx the request's context
     * @return a {@code CallToolResult} as JSON (e.g. {@link Json#textResult(String)}); an
     *     exception (other than an {@link McpException} with a code) becomes an
     *     {@code isError} result
     * @throws Exception a failure, as if the future failed
     */
    CompletableFuture<String> call(String argumentsJson, RequestContext ctx) throws Exception;
}
