package dev.oxmcp;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a prompt, for {@link McpServer#register(Object)}. Its parameters are the
 * prompt's arguments (strings, or values read from their text: numbers, booleans, enums;
 * required unless {@code Optional} or {@link McpParam#required()} false), the
 * {@link RequestContext} handed over. A returned string is one user message; a list of
 * strings one user message each; any other value is the {@code GetPromptResult} itself, as
 * JSON.
 *
 * <pre>{@code
 * @McpPrompt(description = "Ask for a review of a note")
 * String reviewNote(String name) { return "Please review this note:\n" + notes.get(name); }
 * }</pre>
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface McpPrompt {
    /** @return the prompt's name (default: the method's in snake_case) */
    String name() default "";

    /** @return a title for people */
    String title() default "";

    /** @return what it asks */
    String description() default "";
}
