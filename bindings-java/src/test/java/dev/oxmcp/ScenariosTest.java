package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The shared behaviour suite ({@code tests/scenarios/scenarios.json}, specified in its
 * README): each scenario, in each of its eras, as one request through a Java client to the
 * Java {@link ScenarioServer} spawned over stdio. One test per scenario and era, named
 * {@code <scenario name> [<era>]}.
 */
class ScenariosTest {
    private static final List<String> DEFAULT_ERAS = List.of("session", "stateless");
    private static final Set<String> MATCHERS = Set.of("text", "contains", "isError", "error", "at", "count", "present", "absent",
            "handler_cancelled");
    private static final long CALL_SECONDS = 60;

    /** The list: found from the working directory (Maven runs in bindings-java/) upwards. */
    static JsonNode scenarios() throws Exception {
        for (Path dir = Support.PROJECT; dir != null; dir = dir.getParent()) {
            Path file = dir.resolve("tests/scenarios/scenarios.json");
            if (Files.isRegularFile(file)) {
                return Support.json(Files.readString(file));
            }
        }
        throw new AssertionError("no tests/scenarios/scenarios.json above " + Support.PROJECT);
    }

    /** What the client's sampling handler saw of the {@code hold} request. */
    static final class Hold {
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch cancelled = new CountDownLatch(1);
    }

    /** One client (and its server child process) per era, shared by that era's scenarios. */
    static final class Era {
        final McpClient client;
        final AtomicReference<Hold> hold;

        Era(McpClient client, AtomicReference<Hold> hold) {
            this.client = client;
            this.hold = hold;
        }
    }

    private static final Map<String, CompletableFuture<Era>> ERAS = new ConcurrentHashMap<>();

    static Era era(String era, JsonNode clientSpec) throws Exception {
        CompletableFuture<Era> f = ERAS.computeIfAbsent(era, e -> CompletableFuture.supplyAsync(() -> connect(e, clientSpec)));
        try {
            return f.get(120, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("connecting the " + era + " client to the Java scenario server failed", e.getCause());
        }
    }

    private static Era connect(String era, JsonNode clientSpec) {
        AtomicReference<Hold> hold = new AtomicReference<>();
        String elicitation = clientSpec.get("elicitation").toString();
        String roots = clientSpec.get("roots").toString();
        McpClient.Options options = McpClient.Options.stdio(Support.javaCommand("dev.oxmcp.ScenarioServer"))
                .era(era)
                .requestTimeout(Duration.ofSeconds(CALL_SECONDS))
                .onSampling((params, ctx) -> {
                    JsonNode p = Support.json(params);
                    if (p.at("/messages/0/content/text").asText().equals("hold")) {
                        // Never answers: waits for the request's cancellation and records it.
                        Hold h = hold.get();
                        CompletableFuture<String> never = new CompletableFuture<>();
                        if (h != null) {
                            ctx.onCancel(h.cancelled::countDown);
                            h.held.countDown();
                        }
                        return never;
                    }
                    JsonNode maxTokens = p.get("maxTokens");
                    return CompletableFuture.completedFuture("{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":"
                            + Json.quote("maxTokens=" + (maxTokens == null ? "null" : maxTokens.toString())) + "},\"model\":\"scenario\"}");
                })
                .onElicitation((params, ctx) -> CompletableFuture.completedFuture(elicitation))
                .onRoots((params, ctx) -> CompletableFuture.completedFuture(roots));
        McpClient client = McpClient.connect(options).join();
        return new Era(client, hold);
    }

    @AfterAll
    static void closeClients() {
        for (CompletableFuture<Era> f : ERAS.values()) {
            Era e = f.getNow(null);
            if (e != null) {
                e.client.close();
            }
        }
        ERAS.clear();
    }

    @TestFactory
    Stream<DynamicTest> scenario() throws Exception {
        JsonNode all = scenarios();
        JsonNode clientSpec = all.get("client");
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode scenario : all.get("scenarios")) {
            List<String> eras = new ArrayList<>();
            if (scenario.has("eras")) {
                scenario.get("eras").forEach(e -> eras.add(e.asText()));
            } else {
                eras.addAll(DEFAULT_ERAS);
            }
            for (String era : eras) {
                String name = scenario.get("name").asText() + " [" + era + "]";
                tests.add(DynamicTest.dynamicTest(name, () -> {
                    try {
                        run(scenario, era(era, clientSpec), era);
                    } catch (AssertionError e) {
                        // Surefire's console summary names dynamic tests by their factory: say which.
                        throw new AssertionError(name + ": " + e.getMessage(), e);
                    }
                }));
            }
        }
        return tests.stream();
    }

    static void run(JsonNode scenario, Era era, String eraName) throws Exception {
        assertEquals(eraName, era.client.era(), "the client settled on the era asked for");
        JsonNode expect = scenario.get("expect");
        expect.fieldNames().forEachRemaining(k -> assertTrue(MATCHERS.contains(k), "unknown matcher " + k));
        String method = scenario.get("method").asText();
        String params = scenario.has("params") ? scenario.get("params").toString() : null;

        if (scenario.has("special")) {
            String special = scenario.get("special").asText();
            assertTrue(Set.of("cancel_during_sampling", "call_as_task", "set_level", "connect_refused").contains(special),
                    "unknown special " + special);
            if (special.equals("cancel_during_sampling")) {
                cancelDuringSampling(era, method, params, expect);
                return;
            }
        }

        JsonNode p = scenario.path("params");
        CompletableFuture<?> call = switch (scenario.path("special").asText()) {
            // The host's own way to run a call as a task and wait for its end.
            case "call_as_task" -> era.client.callToolAsTask(p.get("name").asText(), p.has("arguments") ? p.get("arguments").toString() : null, null);
            // The host's own call, with its own per-call timeout.
            case "set_level" -> era.client.setLogLevel(p.get("level").asText(),
                    RequestOptions.timeout(Duration.ofMillis(scenario.get("timeout_ms").asLong())));
            case "connect_refused" -> McpClient.connect(McpClient.Options.http(p.get("url").asText()).era(eraName));
            default -> era.client.request(method, params, null);
        };
        if (expect.has("error")) {
            JsonNode error = expect.get("error");
            ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(CALL_SECONDS, TimeUnit.SECONDS),
                    "the call fails");
            McpException m = assertInstanceOf(McpException.class, Native.unwrap(e), "the failure is an McpException");
            if (error.has("kind")) {
                assertEquals(error.get("kind").asText(), m.kind().wireName(), () -> "error kind of " + m);
            }
            if (error.has("code")) {
                assertNotNull(m.code(), () -> "a JSON-RPC code in " + m);
                assertEquals(error.get("code").asLong(), m.code().longValue(), () -> "error code of " + m);
            }
            if (error.has("data")) {
                assertNotNull(m.data(), () -> "error data in " + m);
                JsonNode data = Support.json(m.data());
                assertTrue(sameJson(error.get("data"), data), () -> "error data: expected " + error.get("data") + ", found " + data);
            }
            if (error.has("message_contains")) {
                String want = error.get("message_contains").asText();
                assertTrue(String.valueOf(m.getMessage()).contains(want), () -> "\"" + want + "\" in the message of " + m);
            }
            return;
        }
        JsonNode result = Support.json((String) call.get(CALL_SECONDS, TimeUnit.SECONDS));

        if (expect.has("text")) {
            assertEquals(expect.get("text").asText(), text(method, result), result::toString);
        }
        if (expect.has("contains")) {
            String text = text(method, result);
            assertTrue(text.contains(expect.get("contains").asText()), () -> "\"" + text + "\" contains " + expect.get("contains"));
        }
        if (expect.has("isError")) {
            assertEquals(expect.get("isError").asBoolean(), result.path("isError").asBoolean(false), result::toString);
        }
        if (expect.has("at")) {
            expect.get("at").fields().forEachRemaining(e -> {
                JsonNode found = at(result, e.getKey());
                assertTrue(sameJson(e.getValue(), found), () -> e.getKey() + ": expected " + e.getValue() + ", found " + found);
            });
        }
        if (expect.has("count")) {
            JsonNode spec = expect.get("count");
            JsonNode array = at(result, spec.get(0).asText());
            assertTrue(array.isArray(), () -> spec.get(0).asText() + " is an array in " + result);
            assertEquals(spec.get(1).asInt(), array.size(), () -> "items at " + spec.get(0).asText());
        }
        if (expect.has("present")) {
            JsonNode spec = expect.get("present");
            assertTrue(names(result, spec.get(0).asText()).contains(spec.get(1).asText()), () -> spec + " in " + result);
        }
        if (expect.has("absent")) {
            JsonNode spec = expect.get("absent");
            assertTrue(!names(result, spec.get(0).asText()).contains(spec.get(1).asText()), () -> spec + " in " + result);
        }
    }

    /**
     * The client's sampling handler holds the {@code hold} request; cancelling the tool call
     * makes the server's engine cancel its sampling request, which the handler must see.
     */
    static void cancelDuringSampling(Era era, String method, String params, JsonNode expect) throws Exception {
        Hold hold = new Hold();
        era.hold.set(hold);
        try {
            CompletableFuture<String> call = era.client.request(method, params, null);
            if (!hold.held.await(30, TimeUnit.SECONDS)) {
                String outcome = call.isDone() ? " (the call ended: " + outcome(call) + ")" : "";
                fail("the client's sampling handler never held the request" + outcome);
            }
            assertTrue(call.cancel(true), "the call was still running when cancelled");
            assertThrows(CancellationException.class, call::join);
            boolean seen = hold.cancelled.await(10, TimeUnit.SECONDS);
            assertEquals(expect.get("handler_cancelled").asBoolean(), seen, "the sampling handler saw its cancellation within 10 s");
        } finally {
            era.hold.set(null);
        }
    }

    private static String outcome(CompletableFuture<String> call) {
        try {
            return call.getNow(null);
        } catch (Exception e) {
            return String.valueOf(Native.unwrap(e));
        }
    }

    /** The result's text: a tool's text blocks joined, a resource's first contents, a prompt's first message. */
    static String text(String method, JsonNode result) {
        switch (method) {
            case "tools/call" -> {
                StringBuilder b = new StringBuilder();
                for (JsonNode block : result.path("content")) {
                    if (block.path("type").asText().equals("text")) {
                        b.append(block.path("text").asText());
                    }
                }
                return b.toString();
            }
            case "resources/read" -> {
                return result.at("/contents/0/text").asText();
            }
            case "prompts/get" -> {
                return result.at("/messages/0/content/text").asText();
            }
            default -> throw new AssertionError("no text for a " + method + " result");
        }
    }

    /** The value at a dotted path (numbers index arrays); a MissingNode when absent. */
    static JsonNode at(JsonNode root, String path) {
        JsonNode node = root;
        for (String part : path.split("\\.")) {
            if (node.isArray() && part.chars().allMatch(Character::isDigit)) {
                node = node.path(Integer.parseInt(part));
            } else {
                node = node.path(part);
            }
            if (node.isMissingNode()) {
                return MissingNode.getInstance();
            }
        }
        return node;
    }

    /** The {@code name}s of the items of the array at {@code path}. */
    static List<String> names(JsonNode result, String path) {
        JsonNode array = at(result, path);
        assertTrue(array.isArray(), () -> path + " is an array in " + result);
        List<String> names = new ArrayList<>();
        array.forEach(item -> names.add(item.path("name").asText()));
        return names;
    }

    /** JSON equality, numbers by value (150 equals 150.0). */
    static boolean sameJson(JsonNode expected, JsonNode found) {
        if (expected.isNumber() && found.isNumber()) {
            return expected.decimalValue().compareTo(found.decimalValue()) == 0;
        }
        return expected.equals(found);
    }
}
