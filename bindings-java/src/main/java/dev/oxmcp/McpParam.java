package dev.oxmcp;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Describes an argument of an {@link McpTool}, {@link McpResource} or {@link McpPrompt}
 * method, or a component of a record used as one: its description in the schema, whether it
 * is required (a reference type is, unless it is an {@code Optional} or says
 * {@code required = false}; a primitive always is), and its name where the class was compiled
 * without {@code -parameters}.
 *
 * <pre>{@code
 * record Search(@McpParam(description = "text to look for") String query,
 *               @McpParam(required = false) Integer limit) {}
 * }</pre>
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.PARAMETER, ElementType.RECORD_COMPONENT})
public @interface McpParam {
    /** @return the argument's name (default: the parameter's or component's own) */
    String name() default "";

    /** @return what it is, for the schema's {@code description} */
    String description() default "";

    /** @return whether a call must give it */
    boolean required() default true;
}
