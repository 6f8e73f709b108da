package dev.oxmcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A server's Streamable HTTP endpoint inside a web framework that owns the sockets, made by
 * {@link McpServer#httpApp(HttpOptions)}: the framework hands in each request as plain
 * values and streams the answer's body back, and the engine answers exactly as its own
 * listener would (sessions, both protocol eras, SSE streams, {@code Host} and
 * {@code Origin} checks, OAuth). {@link McpServlet} is that framework side for any servlet
 * container; this class is for the others.
 *
 * <pre>{@code
 * HttpApp app = server.httpApp(HttpOptions.mounted()).join();
 * HttpApp.Exchange answer = app.handle("POST", "/mcp", headers, body).join();
 * // write answer.status() and answer.headers(), then each answer.next() until it completes with null
 * }</pre>
 */
public final class HttpApp implements AutoCloseable {
    private final AtomicLong nextExchange = new AtomicLong(1);
    private final String path;
    private final long maxBodyBytes;
    private volatile long handle;

    HttpApp(long handle, String path, long maxBodyBytes) {
        this.handle = handle;
        this.path = path;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** @return the endpoint's path, where {@link #handle} expects requests */
    public String path() {
        return path;
    }

    /**
     * @return the largest request body the engine takes: a framework reads at most one byte
     *     more, and the engine answers 413 to that
     */
    public long maxBodyBytes() {
        return maxBodyBytes;
    }

    /**
     * Answers one request.
     *
     * @param method the HTTP method
     * @param target the endpoint's path (not the prefix a framework mounted it under) with the
     *     request's query
     * @param headers the request's headers, in order (a name may repeat)
     * @param body the whole request body
     * @return the answer's head, whose body {@link Exchange#next()} reads; {@code null} when
     *     the exchange was closed first. Close the exchange when the client goes away (or
     *     cancel this future while the head has not come).
     */
    public CompletableFuture<Exchange> handle(String method, String target, List<Map.Entry<String, String>> headers, byte[] body) {
        long app = live();
        long id = nextExchange.getAndIncrement();
        StringBuilder json = new StringBuilder("[");
        for (Map.Entry<String, String> h : headers) {
            if (json.length() > 1) json.append(',');
            json.append('[').append(Json.quote(h.getKey())).append(',').append(Json.quote(h.getValue())).append(']');
        }
        String headersJson = json.append(']').toString();
        CompletableFuture<Exchange> answer = Native.call(d -> d.json() == null ? null : new Exchange(app, id, d.json()), null,
                call -> Native.httpAppHandle(app, id, method, target, headersJson, body, call));
        // Cancelled (the client went away first), the exchange ends, also when the answer
        // was made just as the cancel came and so is dropped unread.
        answer.whenComplete((exchange, error) -> {
            if (answer.isCancelled()) Native.httpAppNext(app, id, true, 0);
        });
        return answer;
    }

    private long live() {
        long h = handle;
        if (h == 0) {
            throw new McpException(McpException.Kind.CLOSED, null, "the HTTP endpoint is closed", null);
        }
        return h;
    }

    /** Ends the endpoint: its sessions and streams close. Idempotent. */
    @Override
    public void close() {
        long h;
        synchronized (this) {
            h = handle;
            handle = 0;
        }
        if (h != 0) {
            Native.httpAppFree(h);
        }
    }

    /** An answer: status and headers, and a body that may stay open (an SSE stream). */
    public static final class Exchange implements AutoCloseable {
        private final long app;
        private final long id;
        private final int status;
        private final List<Map.Entry<String, String>> headers = new ArrayList<>();

        Exchange(long app, long id, String head) {
            this.app = app;
            this.id = id;
            Map<String, String> members = Json.members(head);
            this.status = Integer.parseInt(members.get("status"));
            for (String pair : Json.elements(members.get("headers"))) {
                List<String> nameValue = Json.strings(pair);
                headers.add(Map.entry(nameValue.get(0), nameValue.get(1)));
            }
        }

        /** @return the HTTP status */
        public int status() {
            return status;
        }

        /** @return header names and values, in order (a name may repeat) */
        public List<Map.Entry<String, String>> headers() {
            return headers;
        }

        /**
         * @return the body's next chunk; {@code null} once it has ended (or the exchange was
         *     closed). Ask for the next only once the previous one completed.
         */
        public CompletableFuture<byte[]> next() {
            return Native.call(Native.Done::bytes, null, call -> Native.httpAppNext(app, id, false, call));
        }

        /**
         * Ends the exchange now (the client went away): the engine sees the connection
         * closed, and a pending {@link #next()} completes with {@code null}. Idempotent.
         */
        @Override
        public void close() {
            Native.httpAppNext(app, id, true, 0);
        }
    }
}
