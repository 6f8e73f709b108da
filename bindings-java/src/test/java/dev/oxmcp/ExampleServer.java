package dev.oxmcp;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A Java MCP server used by the interop tests (in-process over HTTP, and as a separate
 * process over stdio: {@code ExampleServer --stdio} or {@code --http PORT}).
 */
public final class ExampleServer {
    private ExampleServer() {}

    /** Tags of `slow` calls whose handler saw the client's cancel (onCancel ran). */
    static final List<Long> CANCELLED = new CopyOnWriteArrayList<>();
    /** Tags of `slow` calls whose returned future was cancelled by the engine. */
    static final List<Long> FUTURE_CANCELLED = new CopyOnWriteArrayList<>();

    /** Tags of `busy` calls that saw isCancelled() turn true. */
    static final List<Long> POLLED_CANCEL = new CopyOnWriteArrayList<>();

    private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "example-timers");
        t.setDaemon(true);
        return t;
    });

    static long longArg(String json, String name) {
        // The engine validated the schema; a tiny extraction keeps this server free of JSON libraries.
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + name + "\"\\s*:\\s*(-?\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    static String stringArg(String json, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + name + "\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
        return m.find() ? m.group(1).replace("\\\"", "\"").replace("\\\\", "\\") : null;
    }

    static McpServer build() {
        McpServer server = new McpServer("java-example", "1.0.0", "A Java server for tests.");
        server.tool("echo", "Returns its text.",
                "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
                (args, ctx) -> CompletableFuture.completedFuture(Json.textResult(stringArg(args, "text"))));

        server.tool("add", "Adds two integers.",
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}",
                (args, ctx) -> CompletableFuture.supplyAsync(() -> Json.textResult(String.valueOf(longArg(args, "a") + longArg(args, "b")))));

        // Reports progress 0 at once (so a client knows it runs), then waits `ms` unless cancelled.
        server.tool("slow", "Waits `ms` milliseconds unless cancelled.",
                "{\"type\":\"object\",\"properties\":{\"tag\":{\"type\":\"integer\"},\"ms\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"tag\",\"ms\"]}",
                (args, ctx) -> {
                    long tag = longArg(args, "tag");
                    CompletableFuture<String> result = new CompletableFuture<>();
                    result.whenComplete((r, e) -> {
                        if (result.isCancelled()) {
                            FUTURE_CANCELLED.add(tag);
                        }
                    });
                    ctx.onCancel(() -> {
                        CANCELLED.add(tag);
                        ctx.log("info", "slow", Json.quote("java slow tag=" + tag + " cancelled"));
                    });
                    ctx.progress(0, null, "started");
                    TIMERS.schedule(() -> result.complete(Json.textResult("slow " + tag + " done")), longArg(args, "ms"), TimeUnit.MILLISECONDS);
                    return result;
                });

        // Paced like the reference server's progress tool: the TS SDK client drops progress
        // that arrives in the same read as the response.
        // A blocking handler that polls ctx.isCancelled() instead of registering a callback.
        server.tool("busy", "Blocks its thread until cancelled (polling).", "{\"type\":\"object\",\"properties\":{\"tag\":{\"type\":\"integer\"}}}",
                (args, ctx) -> {
                    long tag = longArg(args, "tag");
                    ctx.progress(0, null, "polling");
                    while (!ctx.isCancelled()) {
                        Thread.sleep(10);
                    }
                    POLLED_CANCEL.add(tag);
                    return CompletableFuture.completedFuture(Json.textResult("busy " + tag + " saw the cancel"));
                });

        // Asks the client: a model completion, then its roots.
        server.tool("ask_client", "Samples the client's model and lists its roots.", "{\"type\":\"object\"}",
                (args, ctx) -> ctx.sample("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"2+2?\"}}],\"maxTokens\":10}")
                        .thenCombine(ctx.listRoots(), (sample, roots) -> Json.textResult(
                                "model: " + stringArg(sample, "text") + "; roots: " + stringArg(roots, "uri"))));

        server.tool("progress", "Reports progress 1, 2, 3 of 3.", "{\"type\":\"object\"}", (args, ctx) -> CompletableFuture.supplyAsync(() -> {
            for (int i = 1; i <= 3; i++) {
                ctx.progress(i, 3.0, "step " + i);
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Json.textResult("progress done");
        }));

        server.tool("log", "Logs a message at warning level.", "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}", (args, ctx) -> {
            ctx.log("warning", "java", Json.quote(stringArg(args, "text")));
            return CompletableFuture.completedFuture(Json.textResult("logged"));
        });

        server.tool("fail_rpc", "Fails with JSON-RPC error -32042 and data.", "{\"type\":\"object\"}", (args, ctx) -> {
            throw McpException.rpc(-32042, "custom failure", "{\"why\":\"test\"}");
        });

        server.tool("fail_plain", "Fails with an exception (an isError result).", "{\"type\":\"object\"}",
                (args, ctx) -> CompletableFuture.failedFuture(new IllegalStateException("boom")));

        server.tool("cancellations", "How many slow calls saw a cancel.", "{\"type\":\"object\"}",
                (args, ctx) -> CompletableFuture.completedFuture(Json.textResult(String.valueOf(CANCELLED.size()))));

        server.resource("test://java/hello", "hello", "text/plain",
                (uri, vars, ctx) -> CompletableFuture.completedFuture(Json.textResource(uri, "text/plain", "Hello from Java")));
        server.resourceTemplate("test://java/item/{id}", "item", "text/plain",
                (uri, vars, ctx) -> CompletableFuture.completedFuture(Json.textResource(uri, "text/plain", "item " + stringArg(vars, "id"))));
        server.prompt("{\"name\":\"greet\",\"description\":\"Greets someone\",\"arguments\":[{\"name\":\"name\",\"required\":true}]}",
                (args, ctx) -> CompletableFuture.completedFuture(Json.userPrompt("Hello, " + stringArg(args, "name") + "!")));
        server.completion((params, ctx) -> CompletableFuture.completedFuture("{\"values\":[\"Ada\",\"Alan\"],\"total\":2,\"hasMore\":false}"));
        return server;
    }

    /**
     * Serves over stdio ({@code --stdio}) or HTTP ({@code --http PORT}, printing the URL).
     *
     * @param args the mode
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        try (McpServer server = build()) {
            if (args.length > 0 && args[0].equals("--http")) {
                String url = server.startHttp("127.0.0.1", Integer.parseInt(args[1])).get();
                System.out.println(url);
                System.out.flush();
                Thread.currentThread().join(); // until killed
            } else {
                server.serveStdio().get();
            }
        }
        Oxmcp.shutdown();
    }
}
