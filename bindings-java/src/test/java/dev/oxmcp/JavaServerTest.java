package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Java servers, called by the official TypeScript SDK client and by the Java client. */
class JavaServerTest {

    /** Runs the TS SDK client script; returns the JSON line it printed. */
    static JsonNode runTsClient(String mode, String target) throws Exception {
        List<String> cmd = List.of("node", Support.PROJECT.resolve("src/test/node/ts-client.mjs").toString(), mode, target);
        Process p = new ProcessBuilder(cmd).directory(Support.PROJECT.toFile()).start();
        try {
            CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
            CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the TS client finished");
            assertEquals(0, p.exitValue(), () -> "the TS client failed:\n" + stderr.getNow(""));
            String[] lines = stdout.get(10, TimeUnit.SECONDS).trim().split("\n");
            return Support.json(lines[lines.length - 1]);
        } finally {
            Support.stop(p);
        }
    }

    static String read(InputStream in) {
        try {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            in.transferTo(b);
            return b.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void assertTsSaw(JsonNode out) {
        assertEquals("java-example", out.get("server").get("name").asText());
        List<String> tools = new ArrayList<>();
        out.get("tools").forEach(t -> tools.add(t.asText()));
        assertEquals(List.of("add", "ask_client", "busy", "cancellations", "echo", "fail_plain", "fail_rpc", "log", "progress", "slow"), tools);
        assertEquals("hi from TS", out.get("echo").asText());
        assertEquals("42", out.get("add").asText());
        // The engine validated the arguments before the Java handler ran.
        assertTrue(out.get("invalidArgs").get("isError").asBoolean(), out.get("invalidArgs").toString());
        assertEquals("progress done", out.get("progressResult").asText());
        assertEquals("[[1,3,\"step 1\"],[2,3,\"step 2\"],[3,3,\"step 3\"]]", out.get("progress").toString());
        assertEquals(-32042, out.get("failRpc").get("code").asInt(), out.get("failRpc").toString());
        assertEquals("{\"why\":\"test\"}", out.get("failRpc").get("data").toString());
        JsonNode plain = out.get("failPlain");
        assertTrue(plain.get("isError").asBoolean());
        assertTrue(plain.get("content").get(0).get("text").asText().contains("boom"), plain.toString());
        assertEquals("logged", out.get("logResult").asText());
        boolean sawLog = false;
        for (JsonNode l : out.get("logs")) {
            sawLog |= l.get("level").asText().equals("warning") && l.get("data").asText().equals("from java") && l.get("logger").asText().equals("java");
        }
        assertTrue(sawLog, out.get("logs").toString());
        assertEquals("Hello from Java", out.get("resource").asText());
        assertEquals("item 7", out.get("template").asText());
        assertEquals("Hello, TS!", out.get("prompt").asText());
        assertEquals("[\"Ada\",\"Alan\"]", out.get("completion").toString());
        assertEquals("rejected", out.get("slow").asText());
        assertTrue(out.get("cancellations").asInt() >= 1, "the Java handler saw the TS client's cancel");
        assertEquals("still alive", out.get("afterCancel").asText());
    }

    @Test
    void tsClientOverHttpReachesJavaHandlers() throws Exception {
        try (McpServer server = ExampleServer.build()) {
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            assertTrue(url.startsWith("http://127.0.0.1:"), url);
            JsonNode out = runTsClient("http", url);
            assertTsSaw(out);
            // In this JVM: the handler's onCancel ran and its future was cancelled.
            assertTrue(ExampleServer.CANCELLED.contains(77L), ExampleServer.CANCELLED.toString());
            Support.eventually("the handler's future is cancelled", () -> ExampleServer.FUTURE_CANCELLED.contains(77L));
            Support.eventually("no request left in Java handlers", () -> Native.nativeStats()[1] == 0);
        }
    }

    @Test
    void tsClientOverStdioSpawnsJavaServer() throws Exception {
        List<String> java = Support.javaCommand("dev.oxmcp.ExampleServer", "--stdio");
        JsonNode out = runTsClient("stdio", Support.JSON.writeValueAsString(java));
        assertTsSaw(out);
    }

    /** One Java server, a Java client of each era: the handlers don't change with it. */
    @ParameterizedTest
    @ValueSource(strings = {"session", "stateless"})
    void javaClientAgainstJavaServerOverHttp(String era) throws Exception {
        List<String> logs = new CopyOnWriteArrayList<>();
        List<String> listChanges = new CopyOnWriteArrayList<>();
        try (McpServer server = ExampleServer.build()) {
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            McpClient.Options options = McpClient.Options.http(url).era(era).onNotification((method, params) -> {
                if (method.equals("notifications/message")) {
                    logs.add(Support.json(params).get("data").asText());
                } else if (method.equals("notifications/tools/list_changed")) {
                    listChanges.add(method);
                }
            })
                    .onSampling((params, ctx) -> CompletableFuture.completedFuture(
                            "{\"role\":\"assistant\",\"model\":\"m\",\"content\":{\"type\":\"text\",\"text\":\"four\"}}"))
                    .onRoots((params, ctx) -> CompletableFuture.completedFuture("{\"roots\":[{\"uri\":\"file:///work\",\"name\":\"work\"}]}"));
            try (McpClient c = McpClient.connect(options).get(30, TimeUnit.SECONDS)) {
                assertEquals(era, c.era());
                String version = Support.json(c.initializeResult()).get("protocolVersion").asText();
                assertEquals(era.equals("stateless"), version.equals("2026-07-28"), version);
                // The stateless era sends logs only to requests that ask for a level.
                c.setLogLevel("debug").join();
                // Server-to-client requests from a Java handler, answered by Java client handlers
                // (stateless era: input requests in the result, then a retry).
                assertEquals("model: four; roots: file:///work", ClientEverythingTest.text(c.callTool("ask_client", "{}").join()));

                c.callTool("log", "{\"text\":\"hello log\"}").join();
                Support.eventually("the handler's log reached the client", () -> logs.contains("hello log"));
                assertEquals("A Java server for tests.", Support.json(c.initializeResult()).get("instructions").asText());
                assertEquals("5", ClientEverythingTest.text(c.callTool("add", "{\"a\":2,\"b\":3}").join()));

                McpException rpc = assertInstanceOf(McpException.class,
                        assertThrows(CompletionException.class, () -> c.callTool("fail_rpc", "{}").join()).getCause());
                assertEquals(McpException.Kind.RPC, rpc.kind());
                assertEquals(-32042L, rpc.code());
                assertEquals("custom failure", rpc.getMessage());
                assertEquals("{\"why\":\"test\"}", rpc.data());

                // Cancellation Java -> Java: the handler's onCancel runs and its future is cancelled.
                List<Double> progress = new CopyOnWriteArrayList<>();
                CompletableFuture<String> slow = c.callTool("slow", "{\"tag\":55,\"ms\":60000}",
                        RequestOptions.defaults().onProgress((p, total, message) -> progress.add(p)));
                Support.eventually("the handler runs", () -> !progress.isEmpty());
                assertTrue(slow.cancel(true));
                assertThrows(CancellationException.class, slow::join);
                Support.eventually("onCancel ran in the handler", () -> ExampleServer.CANCELLED.contains(55L));
                Support.eventually("the handler's future was cancelled", () -> ExampleServer.FUTURE_CANCELLED.contains(55L));

                // A blocking handler polling isCancelled() sees the cancel too.
                List<Double> busyProgress = new CopyOnWriteArrayList<>();
                CompletableFuture<String> busy = c.callTool("busy", "{\"tag\":56}",
                        RequestOptions.defaults().onProgress((p, total, message) -> busyProgress.add(p)));
                Support.eventually("the busy handler runs", () -> !busyProgress.isEmpty());
                assertTrue(busy.cancel(true));
                Support.eventually("the busy handler saw isCancelled()", () -> ExampleServer.POLLED_CANCEL.contains(56L));

                // Tools registered while serving go live; removed ones go away.
                server.tool("late", null, "{\"type\":\"object\"}", (args, ctx) -> CompletableFuture.completedFuture(Json.textResult("late")));
                assertEquals("late", ClientEverythingTest.text(c.callTool("late", "{}").join()));
                assertTrue(server.removeTool("late"));
                assertEquals(-32602L, assertInstanceOf(McpException.class,
                        assertThrows(CompletionException.class, () -> c.callTool("late", "{}").join()).getCause()).code());
                // Both changes reach the listener: unasked in a session, on the client's
                // subscriptions/listen stream in the stateless era (not counted as pending).
                Support.eventually("two list changes", () -> listChanges.size() == 2);
                Support.eventually("nothing pending", () -> c.pendingRequests() == 0);
            }
        }
        Support.eventually("no request left in Java handlers", () -> Native.nativeStats()[1] == 0);
    }

    @Test
    void removeToolBeforeServingSaysItRemovedTheTool() throws Exception {
        // The same answer in every host: true when a tool went away, serving or not.
        try (McpServer server = new McpServer("staged", "1")) {
            server.tool("doomed", null, "{\"type\":\"object\"}", (args, ctx) -> CompletableFuture.completedFuture(Json.textResult("never")));
            assertTrue(server.removeTool("doomed"));
            assertFalse(server.removeTool("doomed"));
            assertFalse(server.removeTool("never-was"));
        }
    }

    @Test
    void aRequestThatIsOverAnswersThroughTheContextDoor() {
        // A handle no request has (any request once Java answered it): the engine's door
        // answers as for a call that is over, and refuses bad input with its own kind.
        RequestContext over = new RequestContext(Long.MAX_VALUE);
        assertEquals(null, over.infoJson());
        assertEquals(null, over.auth());
        over.progress(1, 2.0, "dropped");
        over.log("info", "\"dropped\"");
        over.endResponseStream();
        McpException level = assertThrows(McpException.class, () -> over.log("loud", "\"x\""));
        assertEquals(McpException.Kind.INVALID_INPUT, level.kind(), level.toString());
        McpException data = assertThrows(McpException.class, () -> over.log("info", "{not json"));
        assertEquals(McpException.Kind.INVALID_INPUT, data.kind(), data.toString());
        CompletionException read = assertThrows(CompletionException.class, () -> over.readResource("fixed://note").join());
        assertEquals(McpException.Kind.CLOSED, assertInstanceOf(McpException.class, read.getCause()).kind());
    }

    @Test
    void badRegistrationsFailAtOnce() {
        try (McpServer server = new McpServer("bad", "0")) {
            McpException badJson = assertThrows(McpException.class, () -> server.tool("{not json", (a, c) -> null));
            assertEquals(McpException.Kind.INVALID_INPUT, badJson.kind());
            McpException badSchema = assertThrows(McpException.class,
                    () -> server.tool("t", null, "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":12}}}", (a, c) -> null));
            assertEquals(McpException.Kind.INVALID_INPUT, badSchema.kind(), badSchema.toString());
            assertThrows(McpException.class, () -> server.resourceTemplate("{\"uriTemplate\":\"x://{bad\",\"name\":\"n\"}", (u, v, c) -> null));
            server.close();
            assertEquals(McpException.Kind.CLOSED, assertThrows(McpException.class, server::serveStdio).kind());
        }
        assertFalse(Oxmcp.isShutdown());
    }
}
