package dev.oxmcp;

import java.util.concurrent.CompletableFuture;

/**
 * Runs a tool. It answers any JSON value, as text; the engine makes it the tool's result by
 * one rule for every host ({@code core/src/host/result.rs}):
 *
 * <ul>
 *   <li>{@code null}: no content;
 *   <li>a string ({@code "\"plain\""}, {@link Json#quote(String)}): one text block;
 *   <li>a content block ({@code {"type": "text" | "image" | ...}}): that block;
 *   <li>a whole {@code CallToolResult} (an object of {@code content} and only
 *       {@code structuredContent}, {@code isError}, {@code _meta} besides, such as
 *       {@link Json#textResult(String)} or {@link Json#errorResult(String)}): as it is;
 *   <li>a list: one block per item (a string a text block, a content block itself, any
 *       other value its JSON text);
 *   <li>any other object: structured content, and its JSON as one text block;
 *   <li>any other value (a number, a boolean): its JSON as one text block.
 * </ul>
 *
 * <p>For a tool with an output schema, a value that is not an object ({@code null}
 * included) is also structured content {@code {"result": value}}.
 */
@FunctionalInterface
public interface ToolHandler {
    /**
     * Calls the tool.
     *
     * @param argumentsJson the arguments (a JSON object, already validated against the
     *     tool's input schema)
     * @param ctx the request's context
     * @return any JSON value, as text (see {@link ToolHandler} for what it becomes); text
     *     that is not JSON is the handler's failure. An exception (other than an
     *     {@link McpException} with a code) becomes an {@code isError} result
     * @throws Exception a failure, as if the future failed
     */
    CompletableFuture<String> call(String argumentsJson, RequestContext ctx) throws Exception;
}
