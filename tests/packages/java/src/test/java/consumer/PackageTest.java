package consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.oxmcp.Json;
import dev.oxmcp.McpClient;
import dev.oxmcp.McpServer;
import dev.oxmcp.Oxmcp;
import dev.oxmcp.RequestOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The published jar as a user gets it: the Java quickstart (bindings-java/examples/Quickstart.java)
 * and a client of the packaged CLI's everything server, with no library path set, so the JNI
 * library has to come out of the jar.
 *
 * <p>No build of the workspace can stand in for it: run.sh runs Maven in a scratch folder outside
 * the workspace and the jar sits in the local Maven repository, so the Cargo build outputs the
 * loader would otherwise look for (target/ in a parent of the working directory or of the jar)
 * are not there; {@link #libraryComesOutOfTheJar} checks where the loaded library lives.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PackageTest {
    static final String VERSION = System.getProperty("oxmcp.expected.version");

    @AfterAll
    static void shutdown() {
        Oxmcp.shutdown();
    }

    @Test
    void versionIsThePackagedOne() {
        assertNotNull(VERSION, "the system property oxmcp.expected.version");
        assertEquals(VERSION, Oxmcp.version());
    }

    @Test
    void classesComeFromTheInstalledJar() throws Exception {
        Path jar = Path.of(Oxmcp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertEquals("oxmcp-" + VERSION + ".jar", jar.getFileName().toString(), jar.toString());
    }

    @Test
    void libraryComesOutOfTheJar() throws Exception {
        Oxmcp.version(); // loads it
        // The file the JVM mapped: the copy the loader extracted into a fresh temporary folder.
        String mapped = Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(line -> line.endsWith("/liboxmcp_java.so"))
                .map(line -> line.substring(line.indexOf('/')))
                .findFirst()
                .orElseThrow(() -> new AssertionError("liboxmcp_java.so is not mapped"));
        Path dir = Path.of(mapped).getParent();
        assertTrue(dir.getFileName().toString().startsWith("oxmcp-"), mapped);
        assertEquals(Path.of(System.getProperty("java.io.tmpdir")).toRealPath(), dir.getParent(), mapped);
    }

    /** The quickstart, asserted instead of printed. */
    @Test
    void quickstart() throws Exception {
        List<String> progress = new CopyOnWriteArrayList<>();
        try (McpServer server = new McpServer("quickstart", "1.0.0")) {
            server.tool("greet", "Greets someone.",
                    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}",
                    (argumentsJson, ctx) -> CompletableFuture.supplyAsync(() -> {
                        ctx.progress(1, 1.0, "greeting");
                        String name = argumentsJson.replaceAll(".*\"name\"\\s*:\\s*\"([^\"]*)\".*", "$1");
                        return Json.textResult("Hello, " + name + "!");
                    }));
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);

            try (McpClient client = McpClient.connectHttp(url).get(30, TimeUnit.SECONDS)) {
                String tools = client.listTools().get(30, TimeUnit.SECONDS);
                assertTrue(tools.contains("\"name\":\"greet\""), tools);
                String result = client.callTool("greet", "{\"name\":\"Java\"}",
                        RequestOptions.defaults().onProgress((p, total, message) -> progress.add(message)))
                        .get(30, TimeUnit.SECONDS);
                assertTrue(result.contains("\"text\":\"Hello, Java!\""), result);
                assertEquals(List.of("greeting"), progress);
            }
        }
    }

    /** A client of the packaged CLI's reference server over stdio. */
    @Test
    void everythingServer() throws Exception {
        String oxmcp = System.getenv("OXMCP");
        assertNotNull(oxmcp, "the environment variable OXMCP (the packaged oxmcp CLI)");
        try (McpClient client = McpClient.connectStdio(oxmcp, "everything-server", "--stdio").get(30, TimeUnit.SECONDS)) {
            assertTrue(client.initializeResult().contains("\"name\":\"oxmcp-everything\""), client.initializeResult());
            String result = client.callTool("echo", "{\"text\":\"out of the jar\"}").get(30, TimeUnit.SECONDS);
            assertTrue(result.contains("\"text\":\"out of the jar\""), result);
        }
    }
}
