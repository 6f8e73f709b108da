package dev.oxmcp;

/**
 * An MCP failure: the engine's error kind, and for {@link Kind#RPC} the JSON-RPC error's
 * code, message and data.
 *
 * <p>Client futures fail with this exception (wrapped in {@link java.util.concurrent.CompletionException}
 * when joined). Handlers throw it, or fail their future with it, to answer with an exact
 * JSON-RPC error: {@code throw McpException.rpc(-32602, "bad id", null)}. Any other
 * exception from a handler is a handler failure: a tool then answers with an
 * {@code isError} result, other handlers with -32603.
 */
public class McpException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, coarsely: the engine's {@code ErrorKind}, by its stable number. */
    public enum Kind {
        /** The peer answered with a JSON-RPC error ({@link #code()}, {@link #data()}). */
        RPC(1, "rpc"),
        /** The request's local timeout elapsed. Not a peer error. */
        TIMEOUT(2, "timeout"),
        /** The request was cancelled locally. */
        CANCELLED(3, "cancelled"),
        /** The connection is closed. */
        CLOSED(4, "closed"),
        /** Reading or writing the transport failed, or a process could not be started. */
        TRANSPORT(5, "transport"),
        /** The peer broke the protocol. */
        PROTOCOL(6, "protocol"),
        /** The caller passed something unusable (bad arguments, unknown name, bad schema). */
        INVALID_INPUT(7, "invalid_input"),
        /** The peer did not declare the capability this call needs. */
        CAPABILITY_MISSING(8, "capability_missing"),
        /** A handler failed. */
        HANDLER(9, "handler"),
        /** Authorization failed: the server refused the credentials and no new ones could be obtained. */
        UNAUTHORIZED(11, "unauthorized");

        private final int code;
        private final String wireName;

        Kind(int code, String wireName) {
            this.code = code;
            this.wireName = wireName;
        }

        /** The engine's stable number for this kind. */
        public int code() {
            return code;
        }

        /** The engine's stable name for this kind. */
        public String wireName() {
            return wireName;
        }

        /** The kind with the engine's number {@code code}; HANDLER for a number it does not know. */
        public static Kind fromCode(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return HANDLER;
        }
    }

    private final Kind kind;
    private final Long code;
    private final String data;

    /**
     * An exception of a kind.
     *
     * @param kind the kind
     * @param code the JSON-RPC code, or null
     * @param message the message
     * @param data the JSON-RPC error data as JSON text, or null
     */
    public McpException(Kind kind, Long code, String message, String data) {
        super(message);
        this.kind = kind;
        this.code = code;
        this.data = data;
    }

    /**
     * A JSON-RPC error for a handler to throw: the client receives exactly this code,
     * message and data.
     *
     * @param code the JSON-RPC code, e.g. -32602
     * @param message the message
     * @param dataJson the error data as JSON text, or null
     * @return the exception
     */
    public static McpException rpc(long code, String message, String dataJson) {
        return new McpException(Kind.RPC, code, message, dataJson);
    }

    /** @return the kind */
    public Kind kind() {
        return kind;
    }

    /** @return the JSON-RPC code, or null when the failure was not a JSON-RPC error */
    public Long code() {
        return code;
    }

    /** @return the JSON-RPC error data as JSON text, or null */
    public String data() {
        return data;
    }

    @Override
    public String toString() {
        return "McpException[" + kind + (code != null ? " " + code : "") + "]: " + getMessage();
    }

    /**
     * A synchronous native error ("kindCode\nmessage"): the constructor the native library
     * throws with ({@code ThrowNew} takes a class and one string).
     */
    McpException(String nativeError) {
        this(fromNative(nativeError));
    }

    private McpException(McpException decoded) {
        this(decoded.kind, decoded.code, decoded.getMessage(), decoded.data);
    }

    /** Decodes a synchronous native error ("kindCode\nmessage"). */
    static McpException fromNative(String encoded) {
        int nl = encoded.indexOf('\n');
        Kind kind = Kind.HANDLER;
        String message = encoded;
        if (nl > 0) {
            try {
                kind = Kind.fromCode(Integer.parseInt(encoded.substring(0, nl)));
                message = encoded.substring(nl + 1);
            } catch (RuntimeException ignored) {
                // keep the whole text as the message
            }
        }
        return new McpException(kind, null, message, null);
    }

    /** Throws the decoded error if the native call returned one. */
    static void check(String encoded) {
        if (encoded != null) {
            throw fromNative(encoded);
        }
    }
}
