package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The notes example (examples/NotesServer.java and NotesClient.java: the hostdx server on the
 * annotation API and the typed client) compiled as a user's build compiles it (with
 * {@code -parameters}) and run: the client starts the server over stdio and calls each tool,
 * the template and the prompt. The server stays no longer than the official Java SDK's
 * (78 lines, not blank, not comments) plus 10%.
 */
class NotesExampleTest {
    @Test
    void theNotesExampleRunsAndStaysShort() throws Exception {
        Path out = Files.createTempDirectory("oxmcp-notes");
        String classes = Support.PROJECT.resolve("target/classes").toString();
        Path examples = Support.PROJECT.resolve("examples");
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-parameters", "-cp", classes, "-d", out.toString(),
                examples.resolve("NotesServer.java").toString(), examples.resolve("NotesClient.java").toString());
        assertEquals(0, rc, "the examples compile");
        List<String> cmd = List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", out + File.pathSeparator + classes, "NotesClient");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            CompletableFuture<String> read = CompletableFuture.supplyAsync(() -> JavaServerTest.read(p.getInputStream()));
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the client finished");
            String output = read.get(10, TimeUnit.SECONDS);
            assertEquals(0, p.exitValue(), output);
            List<String> lines = output.lines().toList();
            for (String want : List.of("search_notes", "reindex", "delete_note", "Hits[names=[todo]]", "progress 1/10", "cancelled",
                    "deleted (obsolete)", "write a parser", "Please review this note:")) {
                assertTrue(lines.contains(want), "\"" + want + "\" in:\n" + output);
            }
            assertFalse(lines.contains("progress 10/10"), "the timeout cancelled the reindex:\n" + output);
        } finally {
            Support.stop(p);
        }
        long loc = Files.readAllLines(examples.resolve("NotesServer.java")).stream()
                .filter(l -> !l.isBlank() && !l.strip().startsWith("//")).count();
        assertTrue(loc <= 85, "NotesServer.java has " + loc + " lines, more than the official SDK's 78 plus 10%");
    }
}
