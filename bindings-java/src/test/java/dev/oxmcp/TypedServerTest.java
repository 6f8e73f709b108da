package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Tools, resources and prompts from annotated methods ({@link McpServer#register(Object)}):
 * the schemas derived from the parameter and return types, the values reaching the methods
 * read into those types, the context handed over, a blocking method interrupted by the
 * client's cancel, typed elicitation, and what the engine refuses. A Java server and client
 * in one process over HTTP.
 */
class TypedServerTest {
    enum Sort { newest, oldest, relevance }

    record Search(@McpParam(description = "text to look for") String query, Sort sort, @McpParam(required = false) Integer limit) {}

    record Hits(List<String> names) {}

    record Confirm(boolean confirm, Optional<String> reason) {}

    record Nested(Search search) {}

    record Loop(String name, List<Loop> children) {}

    static final class Notes {
        final Map<String, String> notes = new HashMap<>(Map.of("todo", "buy milk", "ideas", "write a parser"));
        final CountDownLatch reindexing = new CountDownLatch(1);
        final CompletableFuture<Boolean> interrupted = new CompletableFuture<>();

        @McpTool(description = "Search the notes", readOnly = true)
        Hits searchNotes(Search search) {
            return new Hits(notes.entrySet().stream().filter(e -> e.getValue().contains(search.query()))
                    .map(Map.Entry::getKey).sorted().limit(search.limit() == null ? Long.MAX_VALUE : search.limit()).toList());
        }

        @McpTool(description = "Rebuild the index, reporting progress")
        String reindex(RequestContext ctx, int steps) {
            for (int i = 0; i < steps; i++) {
                ctx.progress(i + 1, (double) steps, "step " + (i + 1));
                reindexing.countDown();
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    interrupted.complete(true);
                    return "cancelled";
                }
            }
            interrupted.complete(false);
            return "reindexed";
        }

        final CountDownLatch waiting = new CountDownLatch(1);
        final CompletableFuture<String> never = new CompletableFuture<>();

        @McpTool(description = "Answers a future that only a cancel ends")
        CompletableFuture<String> waitForever() {
            waiting.countDown();
            return never;
        }

        @McpTool(description = "Delete a note after asking the user")
        CompletableFuture<String> deleteNote(String name, RequestContext ctx) {
            return ctx.elicit("Delete " + name + "?", Confirm.class).thenApply(a -> {
                if (!a.accepted() || !a.content().confirm()) {
                    return "kept";
                }
                notes.remove(name);
                return "deleted (" + a.content().reason().orElse("") + ")";
            });
        }

        @McpTool(description = "Asks for a form no client can render")
        CompletableFuture<String> askNested(RequestContext ctx) {
            return ctx.elicit("?", Nested.class).handle((a, e) -> e == null ? "asked" : e.getCause().getMessage());
        }

        @McpTool(name = "scale", description = "Numbers, lists, maps and enums in, a plain value out")
        static double scale(double factor, List<Long> values, Map<String, Sort> sorts, Optional<Sort> fallback) {
            return factor * values.stream().mapToLong(Long::longValue).sum() + sorts.size() + (fallback.isPresent() ? 1000 : 0);
        }

        @McpResource(uri = "notes://{name}", name = "note", mimeType = "text/plain", description = "A note by name")
        String note(String name, String uri) {
            return notes.get(name) + " @ " + uri;
        }

        @McpPrompt(description = "Ask for a review of a note")
        String reviewNote(String name, @McpParam(required = false) Integer times) {
            return "Please review this note" + (times == null ? "" : " " + times + " times") + ":\n" + notes.getOrDefault(name, "");
        }
    }

    static final class Recursive {
        @McpTool
        String walk(Loop loop) {
            return loop.name();
        }
    }

    static final class Unnamed {
        @McpTool
        String nothing() {
            return "x";
        }
    }

    private static JsonNode tool(String listJson, String name) {
        for (JsonNode t : Support.json(listJson)) {
            if (t.get("name").asText().equals(name)) {
                return t;
            }
        }
        throw new AssertionError("no tool " + name + " in " + listJson);
    }

    @Test
    void annotatedMethodsServeWithDerivedSchemasInBothEras() throws Exception {
        Notes notes = new Notes();
        try (McpServer server = new McpServer("notes", "1.0.0").register(notes)) {
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            for (String era : List.of("session", "stateless")) {
                McpClient.Options options = McpClient.Options.http(url).era(era).onElicitation((params, ctx) -> {
                    JsonNode schema = Support.json(params).get("requestedSchema");
                    // The form derived from Confirm: a boolean required, an optional string.
                    assertEquals("boolean", schema.at("/properties/confirm/type").asText());
                    assertEquals("[\"confirm\"]", schema.get("required").toString());
                    return CompletableFuture.completedFuture("{\"action\":\"accept\",\"content\":{\"confirm\":true,\"reason\":\"obsolete\"}}");
                });
                try (McpClient client = McpClient.connect(options).get(30, TimeUnit.SECONDS)) {
                    check(client, notes, era);
                }
            }
        }
    }

    private static void check(McpClient client, Notes notes, String era) throws Exception {
        String tools = client.listTools().get(30, TimeUnit.SECONDS);
        JsonNode search = tool(tools, "search_notes");
        assertEquals("Search the notes", search.get("description").asText());
        assertEquals(true, search.at("/annotations/readOnlyHint").asBoolean(), era);
        JsonNode arg = search.at("/inputSchema/properties/search");
        assertEquals("[\"search\"]", search.at("/inputSchema/required").toString());
        assertEquals("object", arg.get("type").asText());
        assertEquals("text to look for", arg.at("/properties/query/description").asText());
        assertEquals("[\"newest\",\"oldest\",\"relevance\"]", arg.at("/properties/sort/enum").toString());
        assertEquals("integer", arg.at("/properties/limit/type").asText());
        assertEquals("[\"query\",\"sort\"]", arg.get("required").toString(), "limit is optional");
        assertEquals("{\"type\":\"object\",\"properties\":{\"names\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},\"required\":[\"names\"]}",
                search.get("outputSchema").toString());
        JsonNode reindex = tool(tools, "reindex");
        assertEquals("{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\"}},\"required\":[\"steps\"]}",
                reindex.get("inputSchema").toString(), "the context is no argument");
        JsonNode scale = tool(tools, "scale").get("inputSchema");
        assertEquals("number", scale.at("/properties/factor/type").asText());
        assertEquals("integer", scale.at("/properties/values/items/type").asText());
        assertEquals("string", scale.at("/properties/sorts/additionalProperties/type").asText());
        assertEquals("[\"factor\",\"values\",\"sorts\"]", scale.get("required").toString(), "an Optional is not required");

        // Values reach the methods as their types; a record is structured content.
        JsonNode hits = Support.json(client.callTool("search_notes", "{\"search\":{\"query\":\"i\",\"sort\":\"newest\"}}").get(30, TimeUnit.SECONDS));
        assertEquals("{\"names\":[\"ideas\",\"todo\"]}", hits.get("structuredContent").toString(), era);
        hits = Support.json(client.callTool("search_notes", "{\"search\":{\"query\":\"i\",\"sort\":\"newest\",\"limit\":1}}").get(30, TimeUnit.SECONDS));
        assertEquals("{\"names\":[\"ideas\"]}", hits.get("structuredContent").toString());
        JsonNode scaled = Support.json(client.callTool("scale", "{\"factor\":0.5,\"values\":[2,4],\"sorts\":{\"a\":\"oldest\"},\"fallback\":\"newest\"}")
                .get(30, TimeUnit.SECONDS));
        assertEquals("1004.0", scaled.at("/content/0/text").asText());
        // The engine checks the arguments against the derived schema before the method runs.
        JsonNode refused = Support.json(client.callTool("search_notes", "{\"search\":{\"query\":\"a\",\"sort\":\"sideways\"}}")
                .handle((r, e) -> r != null ? r : "{\"error\":" + Json.quote(Native.unwrap(e).getMessage()) + "}").get(30, TimeUnit.SECONDS));
        assertTrue(refused.toString().contains("sideways") || refused.path("isError").asBoolean(), refused.toString());

        // Typed elicitation, through a method returning a future.
        notes.notes.put("old", "x");
        JsonNode deleted = Support.json(client.callTool("delete_note", "{\"name\":\"old\"}").get(30, TimeUnit.SECONDS));
        assertEquals("deleted (obsolete)", deleted.at("/content/0/text").asText(), era);
        assertFalse(notes.notes.containsKey("old"));
        JsonNode nested = Support.json(client.callTool("ask_nested", "{}").get(30, TimeUnit.SECONDS));
        assertTrue(nested.at("/content/0/text").asText().contains("requestedSchema.properties.search"), nested.toString());

        // The template's variable and the URI, and a prompt's argument read from its text.
        JsonNode read = Support.json(client.readResource("notes://todo").get(30, TimeUnit.SECONDS));
        assertEquals("buy milk @ notes://todo", read.at("/contents/0/text").asText());
        assertEquals("text/plain", read.at("/contents/0/mimeType").asText());
        JsonNode prompt = Support.json(client.getPrompt("review_note", "{\"name\":\"ideas\",\"times\":\"2\"}").get(30, TimeUnit.SECONDS));
        assertEquals("Please review this note 2 times:\nwrite a parser", prompt.at("/messages/0/content/text").asText());
        JsonNode prompts = Support.json(client.listPrompts().get(30, TimeUnit.SECONDS));
        assertEquals("[{\"name\":\"name\",\"required\":true},{\"name\":\"times\",\"required\":false}]",
                prompts.get(0).get("arguments").toString());
    }

    @Test
    void theDerivedToolsAreToolsOfTheNewestSpecification() throws Exception {
        try (McpServer server = new McpServer("notes", "1.0.0").register(new Notes())) {
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            try (McpClient client = McpClient.connect(McpClient.Options.http(url)).get(30, TimeUnit.SECONDS)) {
                java.nio.file.Path tools = java.nio.file.Files.createTempFile("oxmcp-java-tools", ".json");
                java.nio.file.Files.writeString(tools, client.listTools().get(30, TimeUnit.SECONDS));
                // ajv (from the TypeScript SDK's dependencies) against the specification's schema.json.
                Process p = new ProcessBuilder("node", Support.REPO.resolve("tests/spec-tools.mjs").toString(), tools.toString(),
                        Support.PROJECT.resolve("node_modules").toString()).redirectErrorStream(true).start();
                String out = JavaServerTest.read(p.getInputStream());
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
                assertEquals(0, p.exitValue(), out);
                assertTrue(out.matches("(?s).*\\b[1-9][0-9]* passed, 0 failed.*"), out);
            }
        }
    }

    @Test
    void theTypedClientReadsResultsAsRecords() throws Exception {
        try (McpServer server = new McpServer("notes", "1.0.0").register(new Notes())) {
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            try (McpClient client = McpClient.connect(McpClient.Options.http(url)).get(30, TimeUnit.SECONDS)) {
                List<Types.Tool> tools = client.tools().get(30, TimeUnit.SECONDS);
                Types.Tool search = tools.stream().filter(t -> t.name().equals("search_notes")).findFirst().orElseThrow();
                assertEquals("object", search.inputSchema().get("type"));
                assertEquals("object", search.outputSchema().get("type"));
                // Records in, records out.
                Hits hits = client.call("search_notes", Map.of("search", new Search("milk", Sort.newest, null)), Hits.class).get(30, TimeUnit.SECONDS);
                assertEquals(new Hits(List.of("todo")), hits);
                Types.CallToolResult r = client.call("search_notes", "{\"search\":{\"query\":\"zzz\",\"sort\":\"newest\"}}").get(30, TimeUnit.SECONDS);
                assertEquals(Map.of("names", List.of()), r.structuredContent());
                assertEquals("{\"names\":[]}", r.text());
                assertEquals("3.0", client.call("scale", Map.of("factor", 1.5, "values", List.of(2), "sorts", Map.of()), String.class).get(30, TimeUnit.SECONDS));
                // A tool's failure, and structured content that is no such record.
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> client.call("no_such_tool", null, Hits.class).get(30, TimeUnit.SECONDS));
                assertInstanceOf(McpException.class, failed.getCause());
                failed = assertThrows(ExecutionException.class,
                        () -> client.call("search_notes", Map.of("search", new Search("a", Sort.oldest, 1)), Confirm.class).get(30, TimeUnit.SECONDS));
                assertEquals(McpException.Kind.PROTOCOL, ((McpException) failed.getCause()).kind(), failed.getCause().getMessage());
                assertEquals(List.of("note"), client.resourceTemplates().get(30, TimeUnit.SECONDS).stream().map(Types.ResourceTemplate::name).toList());
                assertEquals("buy milk @ notes://todo", client.read("notes://todo").get(30, TimeUnit.SECONDS).text());
                Types.GetPromptResult prompt = client.prompt("review_note", Map.of("name", "todo")).get(30, TimeUnit.SECONDS);
                assertEquals("user", prompt.messages().get(0).role());
                assertEquals(new Types.Text("Please review this note:\nbuy milk"), prompt.messages().get(0).content());
                assertEquals(List.of(new Types.PromptArgument("name", null, true), new Types.PromptArgument("times", null, false)),
                        client.prompts().get(30, TimeUnit.SECONDS).get(0).arguments());
            }
        }
    }

    @Test
    void aClientsCancelInterruptsABlockingMethod() throws Exception {
        Notes notes = new Notes();
        try (McpServer server = new McpServer("notes", "1.0.0").register(notes)) {
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            try (McpClient client = McpClient.connect(McpClient.Options.http(url).era("session")).get(30, TimeUnit.SECONDS)) {
                List<String> progress = new CopyOnWriteArrayList<>();
                CompletableFuture<String> call = client.callTool("reindex", "{\"steps\":20}",
                        RequestOptions.timeout(Duration.ofSeconds(30)).onProgress((p, total, message) -> progress.add(message)));
                assertTrue(notes.reindexing.await(30, TimeUnit.SECONDS), "the method started");
                call.cancel(true);
                assertEquals(true, notes.interrupted.get(30, TimeUnit.SECONDS), "the cancel interrupted the sleeping method");
                assertTrue(progress.size() < 20, progress.toString());
                // A method's own future is cancelled with the call.
                CompletableFuture<String> pending = client.callTool("wait_forever", "{}");
                assertTrue(notes.waiting.await(30, TimeUnit.SECONDS), "the method was called");
                pending.cancel(true);
                assertThrows(java.util.concurrent.CancellationException.class, () -> notes.never.get(30, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void whatNoSchemaDescribesIsRefusedAtRegistrationByName() {
        try (McpServer server = new McpServer("bad", "1.0.0")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> server.register(new Recursive()));
            assertTrue(e.getMessage().contains("Recursive.walk") && e.getMessage().contains("Loop contains itself"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> server.register(new Object()));
            assertTrue(e.getMessage().contains("no @McpTool"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> server.register(Notes.class));
            assertTrue(e.getMessage().contains("instance method"), e.getMessage());
            assertInstanceOf(McpServer.class, server.register(new Unnamed()));
        }
    }

    @Test
    void valuesRoundTripThroughTheCodec() {
        Search s = (Search) JsonCodec.convert(JsonCodec.parse("{\"query\":\"q\\u00e9\",\"sort\":\"oldest\"}"), Search.class, "s");
        assertEquals(new Search("qé", Sort.oldest, null), s);
        assertEquals("{\"query\":\"qé\",\"sort\":\"oldest\"}", JsonCodec.write(s));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JsonCodec.convert(JsonCodec.parse("{\"query\":\"q\",\"sort\":\"up\"}"), Search.class, "search"));
        assertTrue(e.getMessage().startsWith("search.sort must be one of"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> JsonCodec.convert(JsonCodec.parse("3000000000"), int.class, "n"));
        assertTrue(e.getMessage().contains("in range"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> JsonCodec.parse("{\"a\":1,}"));
        assertThrows(IllegalArgumentException.class, () -> JsonCodec.parse("[".repeat(10_000)));
    }
}
