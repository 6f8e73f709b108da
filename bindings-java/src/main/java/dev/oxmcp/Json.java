package dev.oxmcp;

import java.util.Map;

/**
 * Small helpers for writing JSON text by hand. oxmcp passes JSON as text: arguments and
 * results are parsed and validated by the engine, so any JSON library (or these helpers)
 * can produce and read them.
 */
public final class Json {
    private Json() {}

    /**
     * A JSON string literal for {@code s}, quoted and escaped ({@code null} gives {@code null}).
     *
     * @param s the text
     * @return the JSON literal
     */
    public static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /**
     * A JSON object of string values, in the map's iteration order.
     *
     * @param entries the members
     * @return the JSON object
     */
    public static String objectOfStrings(Map<String, String> entries) {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, String> e : entries.entrySet()) {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append(quote(e.getKey())).append(':').append(quote(e.getValue()));
        }
        return b.append('}').toString();
    }

    /**
     * A {@code CallToolResult} with one text block.
     *
     * @param text the text
     * @return the result JSON
     */
    public static String textResult(String text) {
        return "{\"content\":[{\"type\":\"text\",\"text\":" + quote(text) + "}]}";
    }

    /**
     * A {@code CallToolResult} with one text block and {@code isError: true}.
     *
     * @param text the error text
     * @return the result JSON
     */
    public static String errorResult(String text) {
        return "{\"content\":[{\"type\":\"text\",\"text\":" + quote(text) + "}],\"isError\":true}";
    }

    /**
     * A {@code ReadResourceResult} with one text content.
     *
     * @param uri the resource URI
     * @param mimeType the MIME type, or null
     * @param text the text
     * @return the result JSON
     */
    public static String textResource(String uri, String mimeType, String text) {
        return "{\"contents\":[{\"uri\":" + quote(uri) + (mimeType != null ? ",\"mimeType\":" + quote(mimeType) : "")
                + ",\"text\":" + quote(text) + "}]}";
    }

    /**
     * A {@code GetPromptResult} with one user text message.
     *
     * @param text the message text
     * @return the result JSON
     */
    public static String userPrompt(String text) {
        return "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":" + quote(text) + "}}]}";
    }
}
