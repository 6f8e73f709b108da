package dev.oxmcp;

import java.util.concurrent.CompletableFuture;

/** Renders a prompt. */
@FunctionalInterface
public interface PromptHandler {
    /**
     * Gets the prompt.
     *
     * @param argumentsJson the arguments, a JSON object of strings
     * @param ctx the request's context
     * @return a {@code GetPromptResult} as JSON (e.g. {@link Json#userPrompt(String)})
     * @throws Exception a failure (the client receives -32603, or the {@link McpException}'s code)
     */
    CompletableFuture<String> get(String argumentsJson, RequestContext ctx) throws Exception;
}
