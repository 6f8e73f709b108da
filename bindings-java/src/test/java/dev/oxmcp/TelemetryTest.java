package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's traces joined to the application's OpenTelemetry: a handler runs in the
 * engine's span for its request, and a client call carries the caller's span (see
 * {@link TelemetryMain} for the scenario).
 */
class TelemetryTest {
    static McpServer server;
    static McpClient client;
    static String url;

    @BeforeAll
    static void start() throws Exception {
        TelemetryMain.install();
        server = TelemetryMain.server();
        url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
        client = McpClient.connectHttp(url).get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        TelemetryMain.uninstall();
    }

    @BeforeEach
    void clear() {
        TelemetryMain.SPANS.reset();
        TelemetryMain.INFO.clear();
    }

    /** Whether this JVM's engine exports spans of its own (the standard variables). */
    static boolean engineTelemetry() {
        return !"true".equalsIgnoreCase(System.getenv("OTEL_SDK_DISABLED"))
                && System.getenv().keySet().stream().anyMatch(k -> k.startsWith("OTEL_EXPORTER_OTLP_") && k.endsWith("ENDPOINT"));
    }

    static String spanIdOf(String traceparent) {
        return traceparent.split("-")[2];
    }

    static String traceIdOf(String traceparent) {
        return traceparent.split("-")[1];
    }

    @Test
    void aHandlersSpanIsAChildOfTheCallersSpan() throws Exception {
        SpanData app = TelemetryMain.callTools(client, true);
        for (String tool : List.of("work", "blocking_work")) {
            String info = TelemetryMain.INFO.get(tool);
            SpanData handler = TelemetryMain.handlerSpan(tool);
            assertNotEquals("null", info, tool + ": the handler's info has a traceparent");
            assertEquals(app.getTraceId(), traceIdOf(info), tool);
            assertEquals(app.getTraceId(), handler.getTraceId(), tool + ": the handler's span is in the caller's trace");
            assertTrue(handler.getParentSpanContext().isValid(), tool + ": the handler's span is no root");
            assertTrue(handler.getParentSpanContext().isRemote(), tool);
            assertEquals(spanIdOf(info), handler.getParentSpanId(), tool + ": its parent is the span of the handler's info");
            if (!engineTelemetry()) {
                // The engine's own telemetry off, the client's span travels in _meta: it is the parent itself.
                assertEquals(app.getSpanId(), handler.getParentSpanId(), tool);
            }
        }
    }

    @Test
    void aClientsSamplingHandlerRunsInTheSpanTheServersRequestNames() throws Exception {
        McpClient.Options options = McpClient.Options.http(url).onSampling((params, ctx) -> {
                    TelemetryMain.tracer().spanBuilder("sampling work").startSpan().end();
                    return CompletableFuture.completedFuture(
                            "{\"role\": \"assistant\", \"content\": {\"type\": \"text\", \"text\": \"ok\"}, \"model\": \"m1\"}");
                });
        try (McpClient sampler = McpClient.connect(options).get(30, TimeUnit.SECONDS)) {
            assertTrue(sampler.callTool("ask_traced", "{}").get(30, TimeUnit.SECONDS).contains("m1"));
        }
        SpanData work = TelemetryMain.SPANS.getFinishedSpanItems().stream().filter(s -> s.getName().equals("sampling work"))
                .findFirst().orElseThrow(() -> new AssertionError("no sampling span: " + TelemetryMain.SPANS.getFinishedSpanItems()));
        assertTrue(work.getParentSpanContext().isValid(), "the sampling handler's span is no root");
        if (!engineTelemetry()) {
            // Nothing of the engine's between: the span the request named is the parent.
            assertEquals(traceIdOf(TelemetryMain.SAMPLED), work.getTraceId());
            assertEquals(spanIdOf(TelemetryMain.SAMPLED), work.getParentSpanId());
        }
    }

    @Test
    void withoutACurrentSpanNothingBreaks() throws Exception {
        TelemetryMain.callTools(client, false);
        for (String tool : List.of("work", "blocking_work")) {
            String info = TelemetryMain.INFO.get(tool);
            SpanData handler = TelemetryMain.handlerSpan(tool);
            if (info.equals("null")) {
                // No trace anywhere: the handler's span starts a trace of its own.
                assertFalse(engineTelemetry());
                assertFalse(handler.getParentSpanContext().isValid(), tool + ": a root span");
            } else {
                assertEquals(traceIdOf(info), handler.getTraceId(), tool);
                assertEquals(spanIdOf(info), handler.getParentSpanId(), tool + ": a child of the engine's span");
            }
        }
    }

    @Test
    void withTheEnginesTelemetryOnAHandlersSpanIsAChildOfTheEnginesServerSpan() throws Exception {
        // A collector for the engine's OTLP/HTTP export: it keeps what is posted.
        List<byte[]> posted = new CopyOnWriteArrayList<>();
        HttpServer collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        collector.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            if (exchange.getRequestURI().getPath().equals("/v1/traces")) {
                posted.add(body);
            }
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        collector.start();
        Process p = null;
        try {
            List<String> cmd = new ArrayList<>(Support.javaCommand(TelemetryMain.class.getName()));
            // The test's own class path: the OpenTelemetry SDK too.
            cmd.set(cmd.indexOf("-cp") + 1, System.getProperty("java.class.path"));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            Map<String, String> env = pb.environment();
            env.keySet().removeIf(k -> k.startsWith("OTEL_"));
            env.put("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + collector.getAddress().getPort());
            env.put("OTEL_METRICS_EXPORTER", "none");
            env.put("OTEL_BSP_SCHEDULE_DELAY", "100");
            p = pb.start();
            Process child = p;
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> JavaServerTest.read(child.getInputStream()));
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), () -> "the JVM did not finish: " + out.getNow(""));
            String output = out.get(10, TimeUnit.SECONDS);
            assertEquals(0, p.exitValue(), output);
            assertTrue(output.contains("done"), output);
            Map<String, String[]> lines = output.lines().map(l -> l.split(" ")).filter(l -> l.length >= 3)
                    .collect(Collectors.toMap(l -> l[0], l -> l, (a, b) -> a));
            String appTrace = lines.get("app")[1];
            String appSpan = lines.get("app")[2];
            for (String tool : List.of("work", "blocking_work")) {
                String[] l = lines.get(tool);
                assertTrue(l != null && l.length == 4, output);
                String info = l[1];
                assertEquals(appTrace, traceIdOf(info), output);
                assertNotEquals(appSpan, spanIdOf(info), "the info names the engine's span of the handler's run, not the caller's: " + output);
                assertEquals(appTrace, l[2], output);
                assertEquals(spanIdOf(info), l[3], "the handler's span is a child of the engine's span of its run: " + output);
                // The engine exported that span, and its server span with the caller's as parent
                // (perhaps in another batch: the run ends first).
                byte[] run = HexFormat.of().parseHex(spanIdOf(info));
                byte[] parent = HexFormat.of().parseHex(appSpan);
                assertTrue(posted.stream().anyMatch(b -> contains(b, run)),
                        "the engine exported its span " + spanIdOf(info) + " (" + posted.size() + " exports)");
                assertTrue(posted.stream().anyMatch(b -> contains(b, parent)),
                        "the engine exported a span under the caller's " + appSpan + " (" + posted.size() + " exports)");
            }
        } finally {
            Support.stop(p);
            collector.stop(0);
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Test
    void withoutTheOpenTelemetryApiTheBindingWorks() throws Exception {
        // This project's classes alone: no OpenTelemetry API on the class path.
        List<String> cmd = Support.javaCommand(TelemetryAbsentMain.class.getName());
        assertFalse(cmd.get(cmd.indexOf("-cp") + 1).contains("opentelemetry"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> JavaServerTest.read(p.getInputStream()));
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), () -> "the JVM did not finish: " + out.getNow(""));
            String output = out.get(10, TimeUnit.SECONDS);
            assertEquals(0, p.exitValue(), output);
            assertTrue(output.contains("api false"), output);
            assertTrue(output.contains("results worked worked"), output);
        } finally {
            Support.stop(p);
        }
    }
}
