package dev.oxmcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shared scenario server ({@code tests/scenarios/}: its {@code server} section), written
 * with the public Java API, never by reading the JSON. {@link ScenariosTest} spawns it as a
 * child JVM ({@code java -cp ... dev.oxmcp.ScenarioServer}) and speaks to it over stdio.
 *
 * <p>It uses no JSON library (a child JVM has only this project's classes on its class
 * path): the engine validated the inputs, so small extractions read them.
 */
public final class ScenarioServer {
    private ScenarioServer() {}

    private static final String OBJECT = "{\"type\":\"object\"}";

    /** Every value of the string member {@code name} in {@code json}, in order. */
    static List<String> strings(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*(\"(?:[^\"\\\\]|\\\\.)*\")").matcher(json);
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(Json.unquote(m.group(1)));
        }
        return out;
    }

    /** The first value of the string member {@code name} in {@code json}, or null. */
    static String string(String json, String name) {
        List<String> all = strings(json, name);
        return all.isEmpty() ? null : all.get(0);
    }

    static CompletableFuture<String> done(String json) {
        return CompletableFuture.completedFuture(json);
    }

    /** The scenario server, registered and staged (not serving yet). */
    static McpServer build() {
        McpServer server = new McpServer("scenario-server", "1.0.0");

        server.tool("echo", "Answers its text.",
                "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
                (args, ctx) -> done(Json.textResult(string(args, "text"))));

        server.tool("gone", "Registered, then removed before serving.", OBJECT,
                (args, ctx) -> done(Json.textResult("gone should not be callable")));
        server.prompt("{\"name\":\"gone\"}", (args, ctx) -> done(Json.userPrompt("removed before serving")));
        server.resource("fixed://gone", "gone", "text/plain", (uri, vars, ctx) -> done(Json.textResource(uri, "text/plain", "removed")));
        // Removed before serving; staged_removal answers what the three removals said.
        String removed = server.removeTool("gone") + "," + server.removePrompt("gone") + "," + server.removeResource("fixed://gone");
        server.tool("staged_removal", "What the three removals answered before serving, joined with commas.", OBJECT,
                (args, ctx) -> done(Json.textResult(removed)));
        server.tool("read_own", "Reads the server's own resource fixed://note through its request's context; answers its text.", OBJECT,
                (args, ctx) -> ctx.readResource("fixed://note").thenApply(read -> Json.textResult(string(read, "text"))));
        server.tool("protocol_version", "Answers the protocol version its request's context names.", OBJECT,
                (args, ctx) -> {
                    String version = string(ctx.infoJson(), "protocolVersion");
                    return done(Json.textResult(version == null ? "none" : version));
                });
        server.tool("session_count", "How many clients the server has connected, as the host's session count says.", OBJECT,
                (args, ctx) -> done(Json.textResult(String.valueOf(server.sessionCount()))));

        // No maxTokens: the engine fills in the protocol default.
        server.tool("ask_sampling", "Asks the client's model (no maxTokens given); answers \"sampled: \" + the model's text.",
                "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\"}},\"required\":[\"prompt\"]}",
                (args, ctx) -> ctx.sample("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
                                + Json.quote(string(args, "prompt")) + "}}]}")
                        .thenApply(result -> Json.textResult("sampled: " + string(result, "text"))));

        server.tool("ask_elicitation", "Asks the user for a name; answers \"elicited: \" + action + \" \" + content.name.", OBJECT,
                (args, ctx) -> ctx.elicit("{\"message\":\"Your name?\",\"requestedSchema\":{\"type\":\"object\","
                                + "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}")
                        .thenApply(result -> Json.textResult("elicited: " + string(result, "action") + " " + string(result, "name"))));

        server.tool("{\"name\":\"escalate\",\"description\":\"Escalating: asks a name inline, goes on as a task if it may, then asks the model.\","
                        + "\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"taskSupport\":\"optional\"},\"escalating\":true}",
                (args, ctx) -> ctx.elicit("{\"message\":\"Your name?\",\"requestedSchema\":{\"type\":\"object\","
                                + "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}")
                        .thenCompose(answer -> ctx.escalateToTask()
                                .thenCompose(became -> ctx.sample("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"after\"}}]}")
                                        .thenApply(reply -> Json.textResult(
                                                "escalated: " + string(answer, "name") + " " + became + " " + string(reply, "text"))))));

        server.tool("ask_roots", "Lists the client's roots; answers \"roots: \" + the URIs joined by \",\".", OBJECT,
                (args, ctx) -> ctx.listRoots().thenApply(result -> Json.textResult("roots: " + String.join(",", strings(result, "uri")))));

        server.tool("fail_rpc", "Fails with JSON-RPC error -32042 \"custom failure\" and data {\"why\": \"scenario\"}.", OBJECT, (args, ctx) -> {
            throw McpException.rpc(-32042, "custom failure", "{\"why\":\"scenario\"}");
        });

        // The engine refuses an escalating tool no client may run as a task: what the host's
        // API raised for it is kept and answered.
        String refused;
        try {
            server.tool("{\"name\":\"never\",\"inputSchema\":{\"type\":\"object\"},\"escalating\":true}",
                    (args, ctx) -> done(Json.textResult("never should not be callable")));
            refused = "accepted";
        } catch (McpException e) {
            refused = e.kind().wireName();
        }
        String refusal = refused;
        server.tool("refused_escalation", "Before serving, the host registered the escalating tool \"never\" with no taskSupport "
                        + "(its own options for it) and kept what happened: answers the engine's error kind name its error reported "
                        + "(\"invalid_input\"), or \"accepted\".", OBJECT,
                (args, ctx) -> done(Json.textResult(refusal)));

        server.tool("fail_plain", "Fails with a plain host error \"plain failure\" (an isError result).", OBJECT, (args, ctx) -> {
            throw new IllegalStateException("plain failure");
        });

        // The JSON text of each value: what it becomes is the engine's one rule, not the binding's.
        server.tool("shape_text", "Returns the host's string \"plain\" (the engine makes it one text block).", OBJECT,
                (args, ctx) -> done(Json.quote("plain")));
        server.tool("shape_object", "Returns the host's map, object or record {\"city\": \"Paris\"} (structured content, and its JSON as text).",
                OBJECT, (args, ctx) -> done(Json.objectOfStrings(Map.of("city", "Paris"))));
        server.tool("shape_whole", "Returns a whole result, in the host's own result type where it has one: one text block \"whole\" and "
                        + "isError true (taken as it is).", OBJECT,
                (args, ctx) -> done(Json.errorResult("whole")));
        server.tool("shape_list", "Returns the host's list of strings [\"one\", \"two\"] (one text block each).", OBJECT,
                (args, ctx) -> done("[\"one\",\"two\"]"));
        server.tool("shape_number", "Returns the host's number 42 (its JSON text).", OBJECT, (args, ctx) -> done("42"));
        server.tool("shape_nothing", "Returns nothing: the host's null, None, undefined, void or Unit (no content).", OBJECT,
                (args, ctx) -> done("null"));

        server.resource("fixed://note", "note", "text/plain", (uri, vars, ctx) -> done(Json.textResource(uri, "text/plain", "a note")));

        // The handler uses both the URI and the variable.
        server.resourceTemplate("greet://{name}", "greeting", "text/plain",
                (uri, vars, ctx) -> done(Json.textResource(uri, "text/plain", "hello " + string(vars, "name") + " from " + uri)));

        server.prompt("{\"name\":\"greet\",\"arguments\":[{\"name\":\"name\",\"required\":true}]}",
                (args, ctx) -> done(Json.userPrompt("Hello, " + string(args, "name") + "!")));

        // All 150 values that match: the engine caps what it sends.
        server.completion((params, ctx) -> {
            String prefix = string(params.substring(params.indexOf("\"argument\"")), "value");
            List<String> values = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                String v = String.format("n%03d", i);
                if (v.startsWith(prefix == null ? "" : prefix)) {
                    values.add(Json.quote(v));
                }
            }
            return done("{\"values\":[" + String.join(",", values) + "]}");
        });

        // Changes one request's params on their way, answers another itself, holds a setLevel, lets
        // the rest go on.
        // (This process has no JSON library: the request's first "name" is its params' name.)
        server.use((request, ctx, next) -> {
            boolean call = "tools/call".equals(string(request, "method"));
            String name = string(request, "name");
            if (call && "echo".equals(name) && "through middleware".equals(string(request, "text"))) {
                return next.proceed("{\"name\":\"echo\",\"arguments\":{\"text\":\"changed by the middleware\"}}");
            }
            if (call && "answered_by_middleware".equals(name)) {
                return done(Json.textResult("answered by the middleware"));
            }
            if ("logging/setLevel".equals(string(request, "method"))) {
                // Held 2 s, so a setLevel with a shorter timeout times out.
                return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(2, TimeUnit.SECONDS))
                        .thenCompose(x -> next.proceed(null));
            }
            return next.proceed(null);
        });
        McpServer sub = new McpServer("sub-server", "1.0.0");
        sub.tool("hello", "Answers \"hello from the mounted server\".", OBJECT,
                (args, ctx) -> done(Json.textResult("hello from the mounted server")));
        server.mount("sub", sub);
        return server;
    }

    /**
     * Serves one client on stdin/stdout until stdin closes.
     *
     * @param args unused
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        try (McpServer server = build()) {
            server.serveStdio().get();
        }
        Oxmcp.shutdown();
    }
}
