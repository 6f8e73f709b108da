package dev.oxmcp.servlet;

import dev.oxmcp.HttpApp;
import dev.oxmcp.HttpOptions;
import dev.oxmcp.McpServer;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A server's Streamable HTTP endpoint as a Jakarta servlet (Servlet 6: Tomcat 10.1, Jetty 12,
 * Undertow, and Spring Boot 3, whose auto-configuration mounts it): the engine answers every
 * request exactly as its own listener would ({@link McpServer#httpApp(HttpOptions)}); the
 * servlet only moves bytes, asynchronously, so an SSE stream holds no container thread and a
 * slow reader holds no engine thread. Map it on the endpoint's path with async support on.
 *
 * <pre>{@code
 * ServletRegistration.Dynamic mcp = context.addServlet("mcp",
 *         new McpServlet(server, HttpOptions.mounted().allowedHosts("mcp.example.com")));
 * mcp.addMapping("/mcp");
 * mcp.setAsyncSupported(true);
 * }</pre>
 */
public class McpServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    /** Connection-level headers a container writes itself. */
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "transfer-encoding", "content-length");

    private final transient McpServer server;
    private final transient HttpOptions options;
    private transient CompletableFuture<HttpApp> app;
    private transient boolean stopped;

    /**
     * @param server the server to serve
     * @param options how to serve ({@link HttpOptions#mounted()}: allowed hosts and origins,
     *     stateless, OAuth ...)
     */
    public McpServlet(McpServer server, HttpOptions options) {
        this.server = server;
        this.options = options;
    }

    /** @param server the server to serve, with the default options (local hosts only) */
    public McpServlet(McpServer server) {
        this(server, HttpOptions.mounted());
    }

    /** The engine's endpoint, made on the first request (so tools registered until then are in). */
    private synchronized CompletableFuture<HttpApp> app() {
        if (stopped) {
            return CompletableFuture.failedFuture(new IllegalStateException("the MCP endpoint is shutting down"));
        }
        if (app == null || app.isCompletedExceptionally()) {
            app = server.httpApp(options);
        }
        return app;
    }

    /**
     * Ends the endpoint's sessions and SSE streams (calls in flight get the engine's grace
     * period); later requests get 503. The server itself stays open. Idempotent.
     */
    public void shutdown() {
        CompletableFuture<HttpApp> made;
        synchronized (this) {
            stopped = true;
            made = app;
            app = null;
        }
        if (made != null) {
            made.thenAccept(HttpApp::close);
        }
    }

    @Override
    public void destroy() {
        shutdown();
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!req.isAsyncSupported()) {
            // Checked before the engine sees the request: an exchange it opened could not be answered.
            resp.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR, "McpServlet needs async support: setAsyncSupported(true) on its registration");
            return;
        }
        HttpApp endpoint;
        try {
            endpoint = app().join();
        } catch (CompletionException e) {
            int status = e.getCause() instanceof IllegalStateException ? HttpServletResponse.SC_SERVICE_UNAVAILABLE : HttpServletResponse.SC_INTERNAL_SERVER_ERROR;
            resp.sendError(status, String.valueOf(e.getCause().getMessage()));
            return;
        }
        byte[] body = readAtMost(req.getInputStream(), endpoint.maxBodyBytes() + 1);
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (String name : Collections.list(req.getHeaderNames())) {
            for (String value : Collections.list(req.getHeaders(name))) {
                headers.add(Map.entry(name.toLowerCase(Locale.ROOT), value));
            }
        }
        String query = req.getQueryString();
        String target = query == null ? endpoint.path() : endpoint.path() + "?" + query;
        CompletableFuture<HttpApp.Exchange> head;
        try {
            head = endpoint.handle(req.getMethod(), target, headers, body);
        } catch (RuntimeException closed) {
            resp.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, String.valueOf(closed.getMessage()));
            return;
        }
        AsyncContext async = req.startAsync();
        async.setTimeout(0); // an SSE stream stays open as long as the engine keeps it
        Relay relay = new Relay(async, resp);
        async.addListener(relay);
        relay.start(head);
    }

    /** At most {@code limit} bytes of the body: the engine answers 413 to one byte too many. */
    private static byte[] readAtMost(InputStream in, long limit) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[16 * 1024];
        long left = limit;
        int n;
        while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) >= 0) {
            out.write(buffer, 0, n);
            left -= n;
        }
        return out.toByteArray();
    }

    /**
     * One exchange: the engine's answer written as the container can take it (a
     * {@link WriteListener}), the next chunk asked for only once the last one is written; the
     * exchange ends when the client goes away.
     *
     * <p>One thread at a time writes (the one that set {@code pumping}); the others leave a
     * note ({@code again}) and return. The lock guards the fields only: no container method
     * is called while it is held, since the container may hold its own socket lock while it
     * calls {@code onWritePossible} or {@code onError} here.
     */
    private static final class Relay implements AsyncListener, WriteListener {
        private final AsyncContext async;
        private final HttpServletResponse resp;
        private CompletableFuture<HttpApp.Exchange> head;
        private HttpApp.Exchange exchange;
        private ServletOutputStream out;
        private boolean waiting;
        private byte[] chunk;
        private boolean flush = true; // the head goes out at once (an SSE stream may stay quiet)
        private boolean ended;
        private boolean done;
        private boolean pumping;
        private boolean again;

        Relay(AsyncContext async, HttpServletResponse resp) {
            this.async = async;
            this.resp = resp;
        }

        void start(CompletableFuture<HttpApp.Exchange> answer) {
            boolean gone;
            synchronized (this) {
                head = answer;
                gone = done;
            }
            if (gone) {
                answer.cancel(true); // the client left before the request was handed over
            } else {
                answer.whenComplete(this::answered);
            }
        }

        private void answered(HttpApp.Exchange answer, Throwable error) {
            synchronized (this) {
                if (done) {
                    if (answer != null) answer.close();
                    return;
                }
                exchange = answer;
            }
            try {
                if (error != null) {
                    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                    resp.setStatus(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
                    resp.setContentType("text/plain;charset=utf-8");
                    resp.getOutputStream().write(String.valueOf(cause.getMessage()).getBytes(StandardCharsets.UTF_8));
                    finish();
                    return;
                }
                if (answer == null) {
                    finish();
                    return;
                }
                resp.setStatus(answer.status());
                for (Map.Entry<String, String> h : answer.headers()) {
                    if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                        resp.addHeader(h.getKey(), h.getValue());
                    }
                }
                ServletOutputStream stream = resp.getOutputStream();
                synchronized (this) {
                    out = stream;
                }
                stream.setWriteListener(this); // the container calls onWritePossible
            } catch (IOException | RuntimeException e) {
                gone();
            }
        }

        @Override
        public void onWritePossible() {
            pump();
        }

        /** Writes what there is while the container takes it; asks for the next chunk. */
        private void pump() {
            synchronized (this) {
                if (pumping) {
                    again = true;
                    return;
                }
                pumping = true;
            }
            try {
                for (;;) {
                    byte[] write;
                    boolean doFlush;
                    boolean end;
                    boolean ask = false;
                    synchronized (this) {
                        again = false;
                        if (done || out == null) {
                            pumping = false;
                            return;
                        }
                        write = chunk;
                        doFlush = flush;
                        end = ended;
                        if (write == null && !doFlush && !end && !waiting) {
                            waiting = ask = true;
                        }
                    }
                    if (ask) {
                        exchange.next().whenComplete(this::arrived);
                    } else if ((write != null || doFlush || end) && out.isReady()) {
                        if (write != null) {
                            synchronized (this) {
                                chunk = null;
                                flush = true;
                            }
                            out.write(write);
                        } else if (doFlush) {
                            synchronized (this) {
                                flush = false;
                            }
                            out.flush();
                        } else {
                            finish();
                        }
                        continue;
                    }
                    // Waiting for the engine's next chunk, or for the container's onWritePossible.
                    synchronized (this) {
                        if (!again) {
                            pumping = false;
                            return;
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                synchronized (this) {
                    pumping = false;
                }
                gone();
            }
        }

        private void arrived(byte[] next, Throwable error) {
            synchronized (this) {
                waiting = false;
                if (done) return;
                if (next == null || error != null) {
                    ended = true;
                } else {
                    chunk = next;
                }
            }
            pump();
        }

        /** The answer was written whole. */
        private void finish() {
            synchronized (this) {
                if (done) return;
                done = true;
            }
            async.complete();
        }

        /** The client went away (or writing failed): the engine sees the connection closed. */
        private void gone() {
            HttpApp.Exchange open;
            CompletableFuture<HttpApp.Exchange> pending;
            boolean complete;
            synchronized (this) {
                open = exchange != null && !ended ? exchange : null;
                pending = exchange == null ? head : null;
                ended = true;
                complete = !done;
                done = true;
            }
            if (open != null) open.close();
            if (pending != null) pending.cancel(true);
            if (complete) {
                try {
                    async.complete();
                } catch (IllegalStateException alreadyOver) {
                    // The container ended the request itself.
                }
            }
        }

        @Override
        public void onError(Throwable t) {
            gone();
        }

        @Override
        public void onComplete(AsyncEvent event) {
            gone();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            gone();
        }

        @Override
        public void onError(AsyncEvent event) {
            gone();
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // Nothing to do: the exchange was set up with the first start.
        }
    }
}
