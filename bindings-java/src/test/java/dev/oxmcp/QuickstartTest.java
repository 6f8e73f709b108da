package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The README's quickstart runs as written (`java -cp target/classes examples/Quickstart.java`),
 * finding the native library in the Cargo build output by itself (no system property).
 */
class QuickstartTest {
    @Test
    void quickstartRunsAndExits() throws Exception {
        List<String> cmd = List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", "target/classes", "examples/Quickstart.java");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(Support.PROJECT.toFile()).redirectErrorStream(true);
        pb.environment().remove("OXMCP_JAVA_LIBRARY");
        Process p = pb.start();
        try {
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> JavaServerTest.read(p.getInputStream()));
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the quickstart finished");
            String output = out.get(10, TimeUnit.SECONDS);
            assertEquals(0, p.exitValue(), output);
            assertTrue(output.contains("tools: [add]"), output);
            assertTrue(output.contains("progress: adding"), output);
            assertTrue(output.contains("add: Sum[sum=42]"), output);
        } finally {
            Support.stop(p);
        }
    }
}
