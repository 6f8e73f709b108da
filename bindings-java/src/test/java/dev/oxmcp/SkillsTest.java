package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Skills (the io.modelcontextprotocol/skills extension) and task options from Java: a Java
 * server serving a skill from a map and one from a directory, a Java client of each era
 * listing, getting, loading and reading them; a task gone past its TTL.
 */
class SkillsTest {
    static final String GIT_MD = "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n";
    static final String NAMING = "feature/<ticket>-<slug>\n";
    static final String REFUNDS_MD = "---\nname: refunds\ndescription: Refund requests\n---\nCheck the order first.\n";
    /** Not UTF-8: served as a blob, read back byte for byte. */
    static final byte[] BLOB = {0x00, (byte) 0xff, 0x10, (byte) 0x80, 'o', 'k', 0x0a};
    static final String TASKS_META =
            "\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}";

    static Map<String, String> gitFiles() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("SKILL.md", GIT_MD);
        files.put("references/naming.md", NAMING);
        return files;
    }

    /** ROOT/acme/refunds/{SKILL.md, assets/blob.bin}. */
    static void writeSkillsDir(Path root) throws Exception {
        Path refunds = Files.createDirectories(root.resolve("acme/refunds/assets")).getParent();
        Files.writeString(refunds.resolve("SKILL.md"), REFUNDS_MD);
        Files.write(refunds.resolve("assets/blob.bin"), BLOB);
    }

    static JsonNode entry(JsonNode skills, String uri) {
        for (JsonNode s : skills) {
            if (s.get("uri").asText().equals(uri)) {
                return s;
            }
        }
        return null;
    }

    @ParameterizedTest
    @ValueSource(strings = {"session", "stateless"})
    void aJavaServersSkillsReachAJavaClient(String era, @TempDir Path root) throws Exception {
        writeSkillsDir(root);
        try (McpServer server = new McpServer("java-skills", "1.0.0")) {
            server.skill("git-workflow", gitFiles()).skillsDirectory(root);
            // A handler reads its server's own resource through its request.
            server.tool("{\"name\":\"own_skill\",\"inputSchema\":{\"type\":\"object\"}}",
                    (args, ctx) -> ctx.readResource("skill://git-workflow/SKILL.md")
                            .thenApply(read -> Json.textResult(Support.json(read).get("contents").get(0).get("text").asText())));
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            try (McpClient c = McpClient.connect(McpClient.Options.http(url).era(era)).get(30, TimeUnit.SECONDS)) {
                assertEquals(era, c.era());
                JsonNode own = Support.json(c.callTool("own_skill", "{}").join());
                assertEquals(GIT_MD, own.get("content").get(0).get("text").asText(), own.toString());
                // A second server mounts this client's connection; a call through it reaches this server.
                try (McpServer front = new McpServer("front", "1.0.0")) {
                    assertEquals(McpException.Kind.INVALID_INPUT,
                            org.junit.jupiter.api.Assertions.assertThrows(McpException.class, () -> front.mount("me", front)).kind());
                    front.mountClient("remote", c).get(30, TimeUnit.SECONDS);
                    String frontUrl = front.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
                    try (McpClient second = McpClient.connect(McpClient.Options.http(frontUrl).era(era)).get(30, TimeUnit.SECONDS)) {
                        JsonNode remote = Support.json(second.callTool("remote_own_skill", "{}").join());
                        assertEquals(GIT_MD, remote.get("content").get(0).get("text").asText(), remote.toString());
                    }
                }
                JsonNode skills = Support.json(c.listSkills().join());
                assertEquals(2, skills.size(), skills.toString());
                JsonNode git = entry(skills, "skill://git-workflow/SKILL.md");
                assertNotNull(git, skills.toString());
                assertEquals("git-workflow", git.get("frontmatter").get("name").asText());
                assertEquals("Our Git conventions", git.get("frontmatter").get("description").asText());
                JsonNode refunds = entry(skills, "skill://acme/refunds/SKILL.md");
                assertNotNull(refunds, "the directory's skill, at its relative path: " + skills);
                assertEquals("refunds", refunds.get("frontmatter").get("name").asText());
                assertEquals("Refund requests", refunds.get("frontmatter").get("description").asText());

                // skills/get: the listed entry; an unknown skill is -32602.
                assertEquals(git, Support.json(c.getSkill("skill://git-workflow/SKILL.md").join()));
                McpException unknown = ClientEverythingTest.failure(c.getSkill("skill://nope/SKILL.md"));
                assertEquals(McpException.Kind.RPC, unknown.kind());
                assertEquals(-32602L, unknown.code());

                // The skill's root: SKILL.md and the references/ directory.
                JsonNode children = Support.json(c.readDirectory("skill://git-workflow").join());
                assertEquals(2, children.size(), children.toString());
                JsonNode md = entry(children, "skill://git-workflow/SKILL.md");
                assertEquals("text/markdown", md.get("mimeType").asText(), children.toString());
                JsonNode references = entry(children, "skill://git-workflow/references");
                assertEquals("inode/directory", references.get("mimeType").asText(), children.toString());

                // Loading, with the entry held and by URI alone; a stale entry is refused.
                LoadedSkill loaded = c.loadSkill("skill://git-workflow/SKILL.md", git.toString()).join();
                assertEquals(GIT_MD, loaded.markdown());
                assertEquals(git, Support.json(loaded.skillJson()));
                assertEquals(REFUNDS_MD, c.loadSkill("skill://acme/refunds/SKILL.md").join().markdown());
                String stale = "{\"uri\":\"skill://git-workflow/SKILL.md\",\"frontmatter\":{\"name\":\"git-workflow\","
                        + "\"description\":\"Old\"},\"resources\":\"dynamic\"}";
                assertEquals(McpException.Kind.PROTOCOL,
                        ClientEverythingTest.failure(c.loadSkill("skill://git-workflow/SKILL.md", stale)).kind());

                // Files by relative path and by URI: their bytes; an unlisted file is refused.
                assertArrayEquals(NAMING.getBytes(StandardCharsets.UTF_8), c.readSkillFile("references/naming.md", git.toString()).join());
                assertArrayEquals(BLOB, c.readSkillFile("skill://acme/refunds/assets/blob.bin", refunds.toString()).join());
                McpException unlisted = ClientEverythingTest.failure(c.readSkillFile("references/missing.md", git.toString()));
                assertEquals(McpException.Kind.PROTOCOL, unlisted.kind(), unlisted.getMessage());
                assertEquals(McpException.Kind.INVALID_INPUT,
                        ClientEverythingTest.failure(c.readSkillFile("references/naming.md", null)).kind());

                // A skill added while serving is listed at once.
                server.skill("late", Map.of("SKILL.md", "---\nname: late\ndescription: Added while serving\n---\nHi.\n"));
                assertNotNull(entry(Support.json(c.listSkills().join()), "skill://late/SKILL.md"));
            }
        }
    }

    /**
     * A task is kept its TTL after its creation: then tasks/get answers -32602. (One second,
     * not Python's 300 ms: a cold JVM's first calls alone can take that long.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"session", "stateless"})
    void aTaskPastItsTtlIsGone(String era) throws Exception {
        try (McpServer server = new McpServer("short-lived", "1")
                .taskOptions(TaskOptions.defaults().ttl(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(50)))) {
            server.tool("{\"name\":\"quick\",\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"taskSupport\":\"optional\"}}",
                    (args, ctx) -> CompletableFuture.completedFuture(Json.textResult("done")));
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            try (McpClient c = McpClient.connect(McpClient.Options.http(url).era(era)).get(30, TimeUnit.SECONDS)) {
                JsonNode created = Support.json(c.request("tools/call", "{\"name\":\"quick\",\"arguments\":{}," + TASKS_META + "}", null).join());
                assertEquals("task", created.get("resultType").asText(), created.toString());
                assertEquals(50, created.get("pollIntervalMs").asInt(), created.toString());
                String get = "{\"taskId\":" + Json.quote(created.get("taskId").asText()) + "," + TASKS_META + "}";
                JsonNode task = null;
                for (int i = 0; i < 100; i++) {
                    task = Support.json(c.request("tasks/get", get, null).join());
                    if (task.get("status").asText().equals("completed")) {
                        break;
                    }
                    Thread.sleep(20);
                }
                assertEquals("completed", task.get("status").asText(), task.toString());
                assertEquals("done", task.get("result").get("content").get(0).get("text").asText(), task.toString());
                Thread.sleep(1200);
                McpException gone = ClientEverythingTest.failure(c.request("tasks/get", get, null));
                assertEquals(-32602L, gone.code());
                assertTrue(gone.getMessage().contains("unknown task"), gone.getMessage());
            }
            McpException late = assertThrows(McpException.class, () -> server.taskOptions(TaskOptions.defaults().maxTasks(5)));
            assertEquals(McpException.Kind.INVALID_INPUT, late.kind(), "task options once serving: " + late.getMessage());
        }
    }

    /**
     * An escalating tool asks inline, then goes on as a task: the client calling it as a task
     * answers the question during its tools/call, then follows the task; a plain call runs
     * inline.
     */
    @ParameterizedTest
    @ValueSource(strings = {"session", "stateless"})
    void anEscalatingToolAsksInlineThenGoesOnAsATask(String era) throws Exception {
        java.util.List<String> steps = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (McpServer server = new McpServer("escalating", "1")) {
            server.tool("{\"name\":\"report\",\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"taskSupport\":\"optional\"},\"escalating\":true}",
                    (args, ctx) -> ctx.elicit("{\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}")
                            .thenCompose(answer -> ctx.escalateToTask().thenApplyAsync(escalated -> {
                                steps.add("escalated=" + escalated);
                                return Json.textResult("report for " + Support.json(answer).get("content").get("name").asText());
                            }, CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS))));
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            McpClient.Options options = McpClient.Options.http(url).era(era).onElicitation((params, ctx) -> {
                asked.add(Support.json(params).get("message").asText());
                return CompletableFuture.completedFuture("{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}");
            });
            try (McpClient c = McpClient.connect(options).get(30, TimeUnit.SECONDS)) {
                java.util.List<String> statuses = new java.util.concurrent.CopyOnWriteArrayList<>();
                JsonNode result = Support.json(c.callToolAsTask("report", "{}",
                        RequestOptions.defaults().onProgress((n, total, status) -> statuses.add(status))).get(30, TimeUnit.SECONDS));
                assertEquals("report for Ada", result.get("content").get(0).get("text").asText(), result.toString());
                assertEquals(java.util.List.of("Name?"), asked);
                assertEquals(java.util.List.of("escalated=true"), steps);
                // Followed as a task once escalated (asked inline before: no input_required).
                assertEquals("completed", statuses.get(statuses.size() - 1), statuses.toString());
                assertTrue(!statuses.contains("input_required"), statuses.toString());
                // A plain call runs inline to its end.
                JsonNode plain = Support.json(c.callTool("report", "{}").join());
                assertEquals("report for Ada", plain.get("content").get(0).get("text").asText(), plain.toString());
                assertEquals("escalated=false", steps.get(steps.size() - 1));
            }
        }
    }

    @Test
    void badTaskOptionsAndSkillsAreInvalidInput(@TempDir Path empty) {
        try (McpServer server = new McpServer("bad", "1")) {
            McpException e = assertThrows(McpException.class, () -> server.taskOptions(TaskOptions.defaults().maxTasks(-1)));
            assertEquals(McpException.Kind.INVALID_INPUT, e.kind());
            assertTrue(e.getMessage().contains("invalid task options"), e.getMessage());
            e = assertThrows(McpException.class, () -> server.taskOptions(TaskOptions.defaults().pollInterval(Duration.ofSeconds(-1))));
            assertEquals(McpException.Kind.INVALID_INPUT, e.kind(), e.getMessage());
            server.taskOptions(TaskOptions.defaults().ttl(null).maxRunning(4));

            e = assertThrows(McpException.class, () -> server.skill("git-flow", gitFiles()));
            assertEquals(McpException.Kind.INVALID_INPUT, e.kind());
            assertTrue(e.getMessage().contains("must be its name"), e.getMessage());
            e = assertThrows(McpException.class, () -> server.skill("refunds", Map.of("README.md", "no SKILL.md")));
            assertEquals(McpException.Kind.INVALID_INPUT, e.kind(), e.getMessage());
            e = assertThrows(McpException.class, () -> server.skillsDirectory(empty));
            assertEquals(McpException.Kind.INVALID_INPUT, e.kind());
            assertTrue(e.getMessage().contains("SKILL.md"), e.getMessage());
        }
    }
}
