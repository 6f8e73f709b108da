package dev.oxmcp;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The OpenTelemetry scenario of {@link TelemetryTest}: a Java server whose tools start a span
 * "handler work" of their own (one a plain handler, one an annotated method on the server's
 * executor), called by a Java client inside an application span "app call" or outside any.
 * Run as a program (by the test, with the engine's own telemetry on) it prints what it saw:
 * {@code app TRACE SPAN}, then for each tool {@code TOOL INFO-TRACEPARENT HANDLER-TRACE
 * HANDLER-PARENT}.
 */
public final class TelemetryMain {
    private TelemetryMain() {}

    /** The tools, by name: the traceparent their request's info gave (or "null"). */
    static final Map<String, String> INFO = new ConcurrentHashMap<>();

    /** The spans of this JVM, as the application's SDK exported them. */
    static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
    private static OpenTelemetrySdk sdk;

    /** Installs the application's OpenTelemetry SDK (the global one), exporting to {@link #SPANS}. */
    static synchronized void install() {
        if (sdk == null) {
            sdk = OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(SPANS)).build())
                    .build();
            GlobalOpenTelemetry.resetForTest();
            GlobalOpenTelemetry.set(sdk);
        }
    }

    /** Removes the global SDK again (other tests run without one). */
    static synchronized void uninstall() {
        if (sdk != null) {
            GlobalOpenTelemetry.resetForTest();
            sdk.close();
            sdk = null;
        }
    }

    static Tracer tracer() {
        return GlobalOpenTelemetry.getTracer("oxmcp-test");
    }

    /** What a tool's handler does: reads its request's trace context, and starts a span. */
    static String handlerWork(String tool, RequestContext ctx) {
        INFO.put(tool, String.valueOf(Json.unquote(Json.members(ctx.infoJson()).get("traceparent"))));
        tracer().spanBuilder("handler work").setAttribute("tool", tool).startSpan().end();
        return "worked";
    }

    /** An annotated tool: it runs on the server's executor, not on the thread of its request. */
    public static final class Blocking {
        /**
         * @param ctx the request
         * @return a text
         */
        @McpTool(name = "blocking_work", description = "starts a span on the server's executor")
        public String blockingWork(RequestContext ctx) {
            return handlerWork("blocking_work", ctx);
        }
    }

    /** The span {@code ask_traced} names in the _meta of the sampling request it sends. */
    static final String SAMPLED = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    static McpServer server() {
        return new McpServer("traced", "1.0.0")
                .tool("work", "starts a span", "{\"type\":\"object\"}",
                        (args, ctx) -> CompletableFuture.completedFuture(Json.textResult(handlerWork("work", ctx))))
                .tool("ask_traced", "asks the client to sample, naming SAMPLED in _meta", "{\"type\":\"object\"}",
                        (args, ctx) -> ctx.sample("{\"maxTokens\": 5, \"messages\": [{\"role\": \"user\", "
                                + "\"content\": {\"type\": \"text\", \"text\": \"hi\"}}], \"_meta\": {\"traceparent\": \"" + SAMPLED + "\"}}")
                                .thenApply(answer -> Json.textResult(Json.unquote(Json.members(answer).get("model")))))
                .register(new Blocking());
    }

    /** Calls both tools, inside a span "app call" when {@code inSpan}; that span, or null. */
    static SpanData callTools(McpClient client, boolean inSpan) throws Exception {
        if (!inSpan) {
            call(client);
            return null;
        }
        Span app = tracer().spanBuilder("app call").startSpan();
        try (Scope scope = app.makeCurrent()) {
            call(client);
        } finally {
            app.end();
        }
        return SPANS.getFinishedSpanItems().stream().filter(s -> s.getName().equals("app call")).findFirst().orElseThrow();
    }

    private static void call(McpClient client) throws Exception {
        for (String tool : new String[] {"work", "blocking_work"}) {
            String result = client.callTool(tool, "{}").get(30, TimeUnit.SECONDS);
            if (!result.contains("worked")) {
                throw new AssertionError(tool + " answered " + result);
            }
        }
    }

    /** The "handler work" span of {@code tool}. */
    static SpanData handlerSpan(String tool) {
        return SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("handler work") && tool.equals(s.getAttributes().asMap().entrySet().stream()
                        .filter(e -> e.getKey().getKey().equals("tool")).map(e -> String.valueOf(e.getValue())).findFirst().orElse(null)))
                .findFirst().orElseThrow(() -> new AssertionError("no span of " + tool + ": " + SPANS.getFinishedSpanItems()));
    }

    /**
     * Runs the scenario inside "app call" and prints what it saw (see the class comment).
     *
     * @param args none
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        install();
        try (McpServer server = server()) {
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            try (McpClient client = McpClient.connectHttp(url).get(30, TimeUnit.SECONDS)) {
                SpanData app = callTools(client, true);
                System.out.println("app " + app.getTraceId() + " " + app.getSpanId());
                for (String tool : new String[] {"work", "blocking_work"}) {
                    SpanData h = handlerSpan(tool);
                    System.out.println(tool + " " + INFO.get(tool) + " " + h.getTraceId() + " " + h.getParentSpanId());
                }
            }
        }
        // Flushes the engine's spans to its exporter.
        Oxmcp.shutdown();
        System.out.println("done");
        System.out.flush();
    }
}
