package dev.oxmcp;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a tool, for {@link McpServer#register(Object)}. Its parameters are the
 * tool's arguments, their input schema derived from their types (strings, numbers, booleans,
 * enums, {@code Optional}, arrays and collections, {@code Map<String, T>}, records), except
 * the {@link RequestContext}, which the server hands over. A returned record (or a
 * {@code CompletableFuture} of one) is the output schema and the structured content; any other
 * value becomes the result by the engine's one rule (a string one text block...). A method
 * that does not return a {@code CompletableFuture} runs on the server's executor, where it may
 * block: a client's cancel interrupts its thread.
 *
 * <pre>{@code
 * @McpTool(description = "Adds two numbers")
 * int add(int a, @McpParam(required = false) Integer b) { return a + (b == null ? 0 : b); }
 * }</pre>
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface McpTool {
    /** @return the tool's name (default: the method's in snake_case, {@code searchNotes} as {@code search_notes}) */
    String name() default "";

    /** @return a title for people */
    String title() default "";

    /** @return what the tool does */
    String description() default "";

    /** @return the {@code readOnlyHint} annotation */
    boolean readOnly() default false;

    /** @return the {@code destructiveHint} annotation (said only when {@link #readOnly()} is false) */
    boolean destructive() default true;

    /** @return the {@code idempotentHint} annotation */
    boolean idempotent() default false;

    /** @return the {@code openWorldHint} annotation */
    boolean openWorld() default true;
}
