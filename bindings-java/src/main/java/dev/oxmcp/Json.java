package dev.oxmcp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Small helpers for writing JSON text by hand. oxmcp passes JSON as text: arguments and
 * results are parsed and validated by the engine, so any JSON library (or these helpers)
 * can produce and read them. A tool may answer any JSON value (a {@link #quote(String)}d
 * string is one text block, an object structured content: see {@link ToolHandler}); a
 * whole result ({@link #textResult(String)}, {@link #errorResult(String)}) is taken as it is.
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
     * A whole {@code CallToolResult} with one text block (the same result as the tool's
     * answering {@code quote(text)}, which the engine makes one text block).
     *
     * @param text the text
     * @return the result JSON
     */
    public static String textResult(String text) {
        return "{\"content\":[{\"type\":\"text\",\"text\":" + quote(text) + "}]}";
    }

    /**
     * A whole {@code CallToolResult} with one text block and {@code isError: true} (a tool
     * answers a failure with it without throwing).
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

    // ---- reading the engine's small inputs (package-private) ---------------------------

    /**
     * The members of a JSON object, each as its raw JSON text, by name. Meant for the small
     * objects the engine writes (such as a resource read's {@code {"uri", "variables"}}):
     * it finds the members of valid JSON and checks no more.
     */
    static Map<String, String> members(String object) {
        Map<String, String> out = new LinkedHashMap<>();
        int i = skipSpace(object, 0);
        if (i >= object.length() || object.charAt(i) != '{') {
            throw new IllegalArgumentException("not a JSON object: " + object);
        }
        i = skipSpace(object, i + 1);
        while (i < object.length() && object.charAt(i) != '}') {
            if (object.charAt(i) != '"') {
                throw new IllegalArgumentException("not a JSON object: " + object);
            }
            int keyEnd = skipValue(object, i);
            String key = unquote(object.substring(i, keyEnd));
            int colon = skipSpace(object, keyEnd);
            if (colon >= object.length() || object.charAt(colon) != ':') {
                throw new IllegalArgumentException("not a JSON object: " + object);
            }
            int start = skipSpace(object, colon + 1);
            int end = skipValue(object, start);
            out.put(key, object.substring(start, end));
            i = skipSpace(object, end);
            if (i < object.length() && object.charAt(i) == ',') {
                i = skipSpace(object, i + 1);
            }
        }
        return out;
    }

    /**
     * The strings of a JSON array of strings (empty for JSON null or a missing member).
     */
    static List<String> strings(String array) {
        List<String> out = new ArrayList<>();
        for (String element : elements(array)) {
            out.add(unquote(element));
        }
        return out;
    }

    /**
     * The elements of a JSON array, each as its raw JSON text (empty for JSON null or a
     * missing member).
     */
    static List<String> elements(String array) {
        List<String> out = new ArrayList<>();
        if (array == null || array.equals("null")) {
            return out;
        }
        int i = skipSpace(array, 0);
        if (i >= array.length() || array.charAt(i) != '[') {
            throw new IllegalArgumentException("not a JSON array: " + array);
        }
        i = skipSpace(array, i + 1);
        while (i < array.length() && array.charAt(i) != ']') {
            int end = skipValue(array, i);
            out.add(array.substring(i, end));
            i = skipSpace(array, end);
            if (i < array.length() && array.charAt(i) == ',') {
                i = skipSpace(array, i + 1);
            }
        }
        return out;
    }

    /**
     * The text of a JSON string literal ({@code null} for JSON null or a missing member).
     */
    static String unquote(String literal) {
        if (literal == null || literal.equals("null")) {
            return null;
        }
        if (literal.length() < 2 || literal.charAt(0) != '"' || literal.charAt(literal.length() - 1) != '"') {
            throw new IllegalArgumentException("not a JSON string: " + literal);
        }
        StringBuilder b = new StringBuilder(literal.length());
        for (int i = 1; i < literal.length() - 1; i++) {
            char c = literal.charAt(i);
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = literal.charAt(++i);
            switch (e) {
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    b.append((char) Integer.parseInt(literal.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> b.append(e); // \" \\ \/
            }
        }
        return b.toString();
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        return i;
    }

    /** The index just past the JSON value that starts at {@code i}. */
    private static int skipValue(String s, int i) {
        int depth = 0;
        boolean inString = false;
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                    if (depth == 0) {
                        return i + 1;
                    }
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (depth == 0) {
                    return i; // the end of the enclosing object: a number or literal ended
                }
                if (--depth == 0) {
                    return i + 1;
                }
            } else if (depth == 0 && (c == ',' || " \t\r\n".indexOf(c) >= 0)) {
                return i;
            }
        }
        return i;
    }
}
