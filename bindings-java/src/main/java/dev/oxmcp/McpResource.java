package dev.oxmcp;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a resource (a fixed URI) or a resource template (a URI with
 * {@code {variables}}), for {@link McpServer#register(Object)}. Each variable goes to the
 * parameter of its name (converted to its type: a string, a number, an enum...), a parameter
 * named {@code uri} gets the URI read, and the {@link RequestContext} is handed over. A
 * returned string is the text of the resource (with {@link #mimeType()}), a {@code byte[]}
 * its blob; any other value is the {@code ReadResourceResult} itself, as JSON.
 *
 * <pre>{@code
 * @McpResource(uri = "notes://{name}", name = "note", mimeType = "text/plain")
 * String note(String name) { return notes.get(name); }
 * }</pre>
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface McpResource {
    /** @return the URI, or the URI template (RFC 6570) */
    String uri();

    /** @return its name (default: the method's) */
    String name() default "";

    /** @return what it holds */
    String description() default "";

    /** @return its MIME type */
    String mimeType() default "";
}
