package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A Java client against the reference server, `oxmcp everything-server`, over stdio and HTTP. */
class ClientEverythingTest {
    static Process httpServer;
    static String httpUrl;

    @BeforeAll
    static void startHttpServer() throws Exception {
        int port = Support.freePort();
        httpServer = new ProcessBuilder(Support.oxmcpBin(), "everything-server", "--http", "127.0.0.1:" + port)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        Support.awaitPort(port, httpServer);
        httpUrl = "http://127.0.0.1:" + port + "/mcp";
    }

    @AfterAll
    static void stopHttpServer() throws Exception {
        Support.stop(httpServer);
    }

    /** Log messages (their data) the server sent. */
    final List<String> logs = new CopyOnWriteArrayList<>();

    McpClient.Options stdio() {
        // The session era's mechanics against the reference server (JavaServerTest runs both eras).
        return McpClient.Options.stdio(Support.oxmcpBin(), "everything-server", "--stdio").era("session").onNotification(this::record);
    }

    McpClient.Options http() {
        return McpClient.Options.http(httpUrl).era("session").onNotification(this::record);
    }

    void record(String method, String params) {
        if (method.equals("notifications/message")) {
            JsonNode data = Support.json(params).get("data");
            logs.add(data.isTextual() ? data.asText() : data.toString());
        }
    }

    static String text(String callToolResult) {
        return Support.json(callToolResult).get("content").get(0).get("text").asText();
    }

    static McpException failure(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        return assertInstanceOf(McpException.class, e.getCause());
    }

    void coreMethods(McpClient c) {
        JsonNode init = Support.json(c.initializeResult());
        assertEquals("oxmcp-everything", init.get("serverInfo").get("name").asText());

        Set<String> tools = new TreeSet<>();
        Support.json(c.listTools().join()).forEach(t -> tools.add(t.get("name").asText()));
        assertTrue(tools.containsAll(List.of("echo", "slow", "test_tool_with_progress")), tools.toString());

        assertEquals("héllo \"world\"", text(c.callTool("echo", "{\"text\":" + Json.quote("héllo \"world\"") + "}").join()));

        JsonNode resource = Support.json(c.readResource("test://static-text").join());
        assertEquals("This is the content of the static text resource.", resource.get("contents").get(0).get("text").asText());
        JsonNode templated = Support.json(c.readResource("test://template/42/data").join());
        assertTrue(templated.get("contents").get(0).get("text").asText().contains("Data for ID: 42"));

        Set<String> resources = new TreeSet<>();
        Support.json(c.listResources().join()).forEach(r -> resources.add(r.get("uri").asText()));
        assertTrue(resources.contains("test://static-text"), resources.toString());
        assertEquals("test://template/{id}/data", Support.json(c.listResourceTemplates().join()).get(0).get("uriTemplate").asText());

        Set<String> prompts = new TreeSet<>();
        Support.json(c.listPrompts().join()).forEach(p -> prompts.add(p.get("name").asText()));
        assertTrue(prompts.contains("test_prompt_with_arguments"), prompts.toString());
        JsonNode prompt = Support.json(c.getPrompt("test_prompt_with_arguments", "{\"arg1\":\"x\",\"arg2\":\"y\"}").join());
        assertEquals("Prompt with arguments: arg1='x', arg2='y'", prompt.get("messages").get(0).get("content").get("text").asText());

        JsonNode completion = Support.json(c.complete(
                "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"test_prompt_with_arguments\"},\"argument\":{\"name\":\"arg1\",\"value\":\"al\"}}").join());
        assertEquals("[\"alpha\",\"alpine\"]", completion.get("completion").get("values").toString());

        c.ping().join();
        c.setLogLevel("debug").join();
        JsonNode raw = Support.json(c.request("tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"raw\"}}", null).join());
        assertEquals("raw", raw.get("content").get(0).get("text").asText());
    }

    void errors(McpClient c) {
        McpException unknown = failure(c.callTool("no_such_tool", "{}"));
        assertEquals(McpException.Kind.RPC, unknown.kind());
        assertEquals(-32602L, unknown.code());
        assertTrue(unknown.getMessage().contains("no_such_tool"), unknown.getMessage());

        // Arguments are validated by the engine against the tool's schema (a tool error
        // the model can read, not a protocol error).
        JsonNode invalid = Support.json(c.callTool("echo", "{\"text\": 5}").join());
        assertTrue(invalid.get("isError").asBoolean());
        assertTrue(text(invalid.toString()).contains("invalid arguments for tool echo"), invalid.toString());

        McpException missing = failure(c.readResource("test://nothing-here"));
        assertEquals(McpException.Kind.RPC, missing.kind());
        assertEquals(-32002L, missing.code());

        assertEquals(McpException.Kind.INVALID_INPUT, failure(c.callTool("echo", "not json")).kind());

        // A tool failing is a result, not an exception.
        assertTrue(Support.json(c.callTool("test_error_handling", null).join()).get("isError").asBoolean());
    }

    /**
     * Cancels, times out and orTimeouts `slow` calls. With {@code serverLogs}, also waits for
     * the handler's "cancelled" log, proving notifications/cancelled reached it. Over HTTP
     * that log is routed to the cancelled request's own SSE stream, which the client drops
     * on cancel, so it is not always delivered: there the server side is proven by the
     * Java server tests (JavaServerTest), which observe the handler in-process.
     */
    void cancellation(McpClient c, boolean serverLogs) throws Exception {
        CompletableFuture<String> slow = c.callTool("slow", "{\"tag\":7,\"ms\":60000}");
        Support.eventually("the request is sent", () -> c.pendingRequests() == 1);
        assertTrue(slow.cancel(true));
        assertThrows(CancellationException.class, slow::join);
        // The server's handler saw the cancel: the engine sent notifications/cancelled.
        if (serverLogs) {
            Support.eventually("the server reports the cancel", () -> logs.contains("slow tag=7 cancelled"));
        }
        Support.eventually("nothing pending", () -> c.pendingRequests() == 0);

        // A local timeout fails with TIMEOUT and cancels the request on the server too.
        CompletableFuture<String> timed = c.callTool("slow", "{\"tag\":8,\"ms\":60000}", RequestOptions.timeout(Duration.ofMillis(300)));
        assertEquals(McpException.Kind.TIMEOUT, failure(timed).kind());
        if (serverLogs) {
            Support.eventually("the server reports the timeout's cancel", () -> logs.contains("slow tag=8 cancelled"));
        }

        // orTimeout on the future cancels natively as well.
        CompletableFuture<String> java = c.callTool("slow", "{\"tag\":9,\"ms\":60000}");
        java.orTimeout(300, TimeUnit.MILLISECONDS);
        CompletionException e = assertThrows(CompletionException.class, java::join);
        assertInstanceOf(java.util.concurrent.TimeoutException.class, e.getCause());
        if (serverLogs) {
            Support.eventually("the server reports orTimeout's cancel", () -> logs.contains("slow tag=9 cancelled"));
        }

        // The session goes on.
        assertEquals("still here", text(c.callTool("echo", "{\"text\":\"still here\"}").join()));
        Support.eventually("nothing pending", () -> c.pendingRequests() == 0);
    }

    void progress(McpClient c) {
        List<double[]> reports = new CopyOnWriteArrayList<>();
        List<String> messages = new ArrayList<>();
        String result = c.callTool("test_tool_with_progress", "{}", RequestOptions.defaults().onProgress((p, total, message) -> {
            reports.add(new double[] {p, total == null ? -1 : total});
            synchronized (messages) {
                messages.add(message);
            }
        })).join();
        assertTrue(text(result).startsWith("Progress test completed (token"), result);
        // Progress notifications come before the response on the same stream.
        assertEquals(3, reports.size());
        assertEquals(100.0, reports.get(2)[0]);
        assertEquals(100.0, reports.get(2)[1]);
        assertEquals("Completed step 2 of 2", messages.get(2));
    }

    @Test
    void stdioCoreMethods() throws Exception {
        try (McpClient c = McpClient.connect(stdio()).get(30, TimeUnit.SECONDS)) {
            coreMethods(c);
            errors(c);
            progress(c);
        }
    }

    @Test
    void stdioCancellationAndTimeouts() throws Exception {
        try (McpClient c = McpClient.connect(stdio()).get(30, TimeUnit.SECONDS)) {
            cancellation(c, true);
        }
    }

    @Test
    void serverToClientRequestsReachJavaHandlers() throws Exception {
        List<String> sampled = new CopyOnWriteArrayList<>();
        McpClient.Options options = stdio()
                .onSampling((params, ctx) -> {
                    sampled.add(Support.json(params).get("messages").get(0).get("content").get("text").asText());
                    return CompletableFuture.completedFuture(
                            "{\"role\":\"assistant\",\"model\":\"java-fake\",\"content\":{\"type\":\"text\",\"text\":\"java model says hi\"}}");
                })
                .onElicitation((params, ctx) -> CompletableFuture.supplyAsync(
                        () -> "{\"action\":\"accept\",\"content\":{\"username\":\"ada\",\"email\":\"ada@example.com\"}}"));
        try (McpClient c = McpClient.connect(options).get(30, TimeUnit.SECONDS)) {
            assertEquals("LLM response: java model says hi", text(c.callTool("test_sampling", "{\"prompt\":\"hello model\"}").join()));
            assertEquals(List.of("hello model"), sampled);
            String elicited = text(c.callTool("test_elicitation", "{\"message\":\"who are you?\"}").join());
            assertTrue(elicited.startsWith("User response: action=accept"), elicited);
            assertTrue(elicited.contains("ada@example.com"), elicited);
        }
        // Without a handler the capability is not declared: the server's request fails.
        try (McpClient c = McpClient.connect(stdio()).get(30, TimeUnit.SECONDS)) {
            JsonNode r = Support.json(c.callTool("test_sampling", "{\"prompt\":\"x\"}").handle((ok, e) -> ok != null ? ok : "{\"isError\":true}").join());
            assertTrue(r.path("isError").asBoolean(), r.toString());
        }
    }

    @Test
    void defaultRequestTimeoutOfTheClient() throws Exception {
        try (McpClient c = McpClient.connect(stdio().requestTimeout(Duration.ofMillis(300))).get(30, TimeUnit.SECONDS)) {
            assertEquals(McpException.Kind.TIMEOUT, failure(c.callTool("slow", "{\"tag\":10,\"ms\":60000}")).kind());
            Support.eventually("the server reports the timeout's cancel", () -> logs.contains("slow tag=10 cancelled"));
            // A per-request timeout overrides the default.
            String done = c.callTool("slow", "{\"tag\":11,\"ms\":500}", RequestOptions.timeout(Duration.ofSeconds(30))).join();
            assertEquals("slow 11 done", text(done));
        }
    }

    @Test
    void httpCoreMethods() throws Exception {
        try (McpClient c = McpClient.connect(http()).get(30, TimeUnit.SECONDS)) {
            coreMethods(c);
            errors(c);
            progress(c);
        }
    }

    /**
     * Tasks: slow_compute runs as a task and the call completes with its result, the
     * statuses reaching the progress listener; failing_job (only as a task) completes with
     * an isError result, and refuses a plain call (-32601 at 2025-11-25, -32021 stateless); cancelling the future
     * cancels a long task. Both eras.
     */
    @Test
    void toolCallsTheServerRunsAsTasks() throws Exception {
        for (String era : List.of("session", "stateless")) {
            try (McpClient c = McpClient.connect(McpClient.Options.http(httpUrl).era(era)).get(30, TimeUnit.SECONDS)) {
                List<String> statuses = new CopyOnWriteArrayList<>();
                RequestOptions listen = RequestOptions.defaults().onProgress((n, total, status) -> statuses.add(status));
                String result = c.callToolAsTask("slow_compute", "{\"seconds\":1,\"label\":\"java-task\"}", listen).get(30, TimeUnit.SECONDS);
                assertEquals("java-task: computed in 1 s", text(result), era);
                Support.eventually("the statuses arrive", () -> statuses.contains("completed"));
                assertEquals("working", statuses.get(0), era + ": " + statuses);

                assertTrue(Support.json(c.callToolAsTask("failing_job", "{}", null).get(30, TimeUnit.SECONDS)).get("isError").asBoolean());
                // -32601 at 2025-11-25 (that version's task form), -32021 (no extension) stateless.
                long refusal = era.equals("session") ? -32601L : -32021L;
                assertEquals(refusal, failure(c.callTool("failing_job", "{}")).code(), era);

                CompletableFuture<String> long_ = c.callToolAsTask("slow_compute", "{\"seconds\":60}", null);
                Thread.sleep(300);
                assertTrue(long_.cancel(true));
                assertThrows(CancellationException.class, long_::join);
            }
        }
    }

    /**
     * The task steps, taken by the caller: startToolTask then getTask until completed; a
     * question becomes the task's input request, answered by key with updateTask (the
     * elicitation handler only declares the capability); cancelTask cancels a long one; an
     * unknown task is -32602. Both eras.
     */
    @Test
    void theTaskSteps() throws Exception {
        for (String era : List.of("session", "stateless")) {
            List<String> asked = new CopyOnWriteArrayList<>();
            McpClient.Options options = McpClient.Options.http(httpUrl).era(era).onElicitation((params, ctx) -> {
                asked.add(params);
                return CompletableFuture.completedFuture("{\"action\":\"decline\"}");
            });
            try (McpClient c = McpClient.connect(options).get(30, TimeUnit.SECONDS)) {
                JsonNode started = Support.json(c.startToolTask("slow_compute", "{\"seconds\":1,\"label\":\"java-steps\"}").get(30, TimeUnit.SECONDS));
                assertEquals("working", started.path("task").path("status").asText(), era + ": " + started);
                String id = started.path("task").path("taskId").asText();
                JsonNode task = pollTask(c, id, "completed");
                assertEquals("java-steps: computed in 1 s", task.path("result").path("content").path(0).path("text").asText(), era + ": " + task);

                String asking = Support.json(c.startToolTask("confirm_delete", "{\"filename\":\"java.txt\"}").get(30, TimeUnit.SECONDS))
                        .path("task").path("taskId").asText();
                task = pollTask(c, asking, "input_required");
                assertTrue(task.path("inputRequests").size() > 0, era + ": " + task);
                String key = task.path("inputRequests").fieldNames().next();
                c.updateTask(asking, "{" + Json.quote(key) + ":{\"action\":\"accept\",\"content\":{\"confirm\":true}}}").get(30, TimeUnit.SECONDS);
                task = pollTask(c, asking, "completed");
                assertEquals("deleted java.txt", task.path("result").path("content").path(0).path("text").asText(), era + ": " + task);
                assertEquals(List.of(), asked, era);

                String long_ = Support.json(c.startToolTask("slow_compute", "{\"seconds\":60}").get(30, TimeUnit.SECONDS))
                        .path("task").path("taskId").asText();
                c.cancelTask(long_).get(30, TimeUnit.SECONDS);
                assertEquals("cancelled", Support.json(c.getTask(long_).get(30, TimeUnit.SECONDS)).path("status").asText(), era);

                assertEquals(-32602L, failure(c.getTask("no-such-task")).code(), era);
            }
        }
    }

    /** getTask until the task's status is {@code until} (or 10 s). */
    static JsonNode pollTask(McpClient c, String id, String until) throws Exception {
        JsonNode task = null;
        for (int i = 0; i < 200; i++) {
            task = Support.json(c.getTask(id).get(30, TimeUnit.SECONDS));
            if (until.equals(task.path("status").asText())) {
                break;
            }
            Thread.sleep(50);
        }
        return task;
    }

    @Test
    void httpCancellationAndTimeouts() throws Exception {
        try (McpClient c = McpClient.connect(http()).get(30, TimeUnit.SECONDS)) {
            cancellation(c, false);
        }
    }

    @Test
    void closedClientAndFailedConnects() throws Exception {
        McpClient c = McpClient.connect(stdio()).get(30, TimeUnit.SECONDS);
        CompletableFuture<String> inFlight = c.callTool("slow", "{\"tag\":1,\"ms\":60000}");
        Support.eventually("the request is sent", () -> c.pendingRequests() == 1);
        c.close();
        McpException closed = failure(inFlight);
        assertEquals(McpException.Kind.CLOSED, closed.kind(), closed.toString());
        assertEquals(McpException.Kind.CLOSED, failure(c.ping()).kind());
        c.close(); // idempotent

        McpException noProgram = failure(McpClient.connectStdio("/nonexistent/oxmcp-no-such-program"));
        assertEquals(McpException.Kind.TRANSPORT, noProgram.kind(), noProgram.toString());
        McpException noServer = failure(McpClient.connectHttp("http://127.0.0.1:" + Support.freePort() + "/mcp"));
        assertTrue(noServer.getMessage().contains("cannot reach"), noServer.toString());

        long[] stats = Native.nativeStats();
        assertEquals(0, Native.pendingJavaCalls());
        assertEquals(0, stats[0], "no native call left running");
    }

    /**
     * A child server that crashes in the middle of several calls: three {@code slow} calls
     * (20 s) and a {@code crash} call (after 200 ms the server writes "fatal: crash requested"
     * to stderr and exits with status 3) in flight together. Each fails CLOSED with the exit
     * status and that stderr line in its message, within a few seconds; so does a later call.
     */
    @Test
    void everyPendingCallFailsWithTheExitStatusAndStderrWhenTheServerCrashes() throws Exception {
        McpClient.Options crashy = McpClient.Options.stdio(Support.oxmcpBin(), "everything-server", "--stdio", "--with-crash-tool").era("session");
        try (McpClient c = McpClient.connect(crashy).get(30, TimeUnit.SECONDS)) {
            long started = System.nanoTime();
            List<CompletableFuture<String>> calls = new ArrayList<>();
            for (int tag = 1; tag <= 3; tag++) {
                calls.add(c.callTool("slow", "{\"tag\":" + tag + ",\"ms\":20000}"));
            }
            calls.add(c.callTool("crash", "{\"ms\":200}"));
            // Bounded: a hang fails here (TimeoutException) instead of waiting out the slow calls.
            try {
                CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(10, TimeUnit.SECONDS);
            } catch (ExecutionException expected) {
                // allOf fails with one of the failures; each call is checked below.
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "took " + took);
            for (CompletableFuture<String> call : calls) {
                McpException e = failure(call); // already completed: join returns at once
                assertEquals(McpException.Kind.CLOSED, e.kind(), e.toString());
                assertTrue(e.getMessage().contains("exit status: 3"), e.getMessage());
                assertTrue(e.getMessage().contains("fatal: crash requested"), e.getMessage());
            }
            McpException after = failure(c.callTool("echo", "{\"text\":\"x\"}", RequestOptions.timeout(Duration.ofSeconds(5))));
            assertEquals(McpException.Kind.CLOSED, after.kind(), after.toString());
        }
    }
}
