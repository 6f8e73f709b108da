package dev.oxmcp;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * What a client's typed calls return ({@link McpClient#tools()}, {@link McpClient#call(String,
 * Object)}...): the MCP results as records. JSON objects inside them (schemas, structured
 * content, annotations) are {@code Map<String, Object>} trees; {@link CallToolResult#structured(Class)}
 * reads structured content into a type of the caller's.
 */
public final class Types {
    private Types() {}

    /** A tool the server offers. */
    public record Tool(String name, String title, String description, Map<String, Object> inputSchema,
            Map<String, Object> outputSchema, Map<String, Object> annotations) {}

    /** A resource the server offers. */
    public record Resource(String uri, String name, String title, String description, String mimeType) {}

    /** A resource template (RFC 6570) the server offers. */
    public record ResourceTemplate(String uriTemplate, String name, String title, String description, String mimeType) {}

    /** A prompt the server offers. */
    public record Prompt(String name, String title, String description, List<PromptArgument> arguments) {}

    /** One argument of a {@link Prompt}. */
    public record PromptArgument(String name, String description, Boolean required) {}

    /** One block of a tool's or a prompt message's content. */
    public sealed interface Content permits Text, Image, Audio, ResourceLink, EmbeddedResource {}

    /** Text. */
    public record Text(String text) implements Content {}

    /** An image, base64 in {@code data}. */
    public record Image(String data, String mimeType) implements Content {
        /** @return the image's bytes */
        public byte[] bytes() {
            return Base64.getDecoder().decode(data);
        }
    }

    /** Audio, base64 in {@code data}. */
    public record Audio(String data, String mimeType) implements Content {
        /** @return the audio's bytes */
        public byte[] bytes() {
            return Base64.getDecoder().decode(data);
        }
    }

    /** A link to a resource. */
    public record ResourceLink(String uri, String name, String description, String mimeType) implements Content {}

    /** A resource's contents, inline. */
    public record EmbeddedResource(ResourceContents resource) implements Content {}

    /** A resource's contents: {@code text} or {@code blob} (base64). */
    public record ResourceContents(String uri, String mimeType, String text, String blob) {
        /** @return the contents' bytes: the blob decoded, or the text's UTF-8 */
        public byte[] bytes() {
            return blob != null ? Base64.getDecoder().decode(blob) : text == null ? new byte[0] : text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /**
     * What a tool call answered.
     *
     * @param content its blocks
     * @param structuredContent its structured content (a JSON object as a map), or null
     * @param isError whether the tool failed
     */
    public record CallToolResult(List<Content> content, Map<String, Object> structuredContent, boolean isError) {
        /** @return the text blocks, joined */
        public String text() {
            StringBuilder b = new StringBuilder();
            for (Content c : content) {
                if (c instanceof Text t) {
                    b.append(t.text());
                }
            }
            return b.toString();
        }

        /**
         * The structured content as a {@code type} (a record, a map...).
         *
         * @param type what to read it as
         * @param <T> the type
         * @return the value, or null when there is none
         * @throws IllegalArgumentException when it does not fit the type
         */
        public <T> T structured(Class<T> type) {
            return structuredContent == null ? null : type.cast(JsonCodec.convert(structuredContent, type, "structuredContent"));
        }
    }

    /** What {@code resources/read} answered. */
    public record ReadResourceResult(List<ResourceContents> contents) {
        /** @return the first contents' text, or null */
        public String text() {
            return contents.isEmpty() ? null : contents.get(0).text();
        }
    }

    /** One message of a prompt. */
    public record PromptMessage(String role, Content content) {}

    /** What {@code prompts/get} answered. */
    public record GetPromptResult(String description, List<PromptMessage> messages) {}

    // ---- from the engine's JSON ------------------------------------------------------------

    /** A list of {@code type} records from a JSON array. */
    static <T> List<T> list(String json, Class<T> type) {
        List<T> out = new ArrayList<>();
        for (Object item : (List<?>) JsonCodec.parse(json)) {
            out.add(type.cast(JsonCodec.convert(item, type, type.getSimpleName())));
        }
        return out;
    }

    static CallToolResult callToolResult(String json) {
        Map<?, ?> r = (Map<?, ?>) JsonCodec.parse(json);
        return new CallToolResult(contents(r.get("content")), objectOrNull(r.get("structuredContent")), Boolean.TRUE.equals(r.get("isError")));
    }

    static ReadResourceResult readResourceResult(String json) {
        Map<?, ?> r = (Map<?, ?>) JsonCodec.parse(json);
        return new ReadResourceResult(list(r.get("contents"), ResourceContents.class));
    }

    static GetPromptResult getPromptResult(String json) {
        Map<?, ?> r = (Map<?, ?>) JsonCodec.parse(json);
        List<PromptMessage> messages = new ArrayList<>();
        for (Object m : r.get("messages") instanceof List<?> l ? l : List.of()) {
            Map<?, ?> message = (Map<?, ?>) m;
            messages.add(new PromptMessage((String) message.get("role"), content((Map<?, ?>) message.get("content"))));
        }
        return new GetPromptResult((String) r.get("description"), messages);
    }

    private static <T> List<T> list(Object array, Class<T> type) {
        List<T> out = new ArrayList<>();
        for (Object item : array instanceof List<?> l ? l : List.of()) {
            out.add(type.cast(JsonCodec.convert(item, (Type) type, type.getSimpleName())));
        }
        return out;
    }

    private static List<Content> contents(Object array) {
        List<Content> out = new ArrayList<>();
        for (Object item : array instanceof List<?> l ? l : List.of()) {
            out.add(content((Map<?, ?>) item));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> objectOrNull(Object v) {
        return v instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
    }

    private static Content content(Map<?, ?> block) {
        Object type = block.get("type");
        return switch (String.valueOf(type)) {
            case "text" -> new Text((String) block.get("text"));
            case "image" -> new Image((String) block.get("data"), (String) block.get("mimeType"));
            case "audio" -> new Audio((String) block.get("data"), (String) block.get("mimeType"));
            case "resource_link" -> new ResourceLink((String) block.get("uri"), (String) block.get("name"),
                    (String) block.get("description"), (String) block.get("mimeType"));
            case "resource" -> new EmbeddedResource((ResourceContents) JsonCodec.convert(block.get("resource"), ResourceContents.class, "resource"));
            default -> throw new IllegalArgumentException("a content block of an unknown type: " + type);
        };
    }
}
