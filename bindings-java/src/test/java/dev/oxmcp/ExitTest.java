package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A JVM that used a client and a server exits by itself, and leaves no child process behind. */
class ExitTest {
    @ParameterizedTest
    @ValueSource(strings = {"implicit", "explicit"})
    void jvmExitsByItself(String mode) throws Exception {
        List<String> cmd = Support.javaCommand("dev.oxmcp.ExitMain", mode, Support.oxmcpBin());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> JavaServerTest.read(p.getInputStream()));
            // A generous bound: a JVM held by attached runtime threads never exits at all.
            boolean exited = p.waitFor(60, TimeUnit.SECONDS);
            assertTrue(exited, () -> "the JVM did not exit; output so far:\n" + out.getNow(""));
            String output = out.get(10, TimeUnit.SECONDS);
            assertEquals(0, p.exitValue(), output);
            assertTrue(output.contains("results true true"), output);
            assertTrue(output.contains("done"), output);
            long childPid = Long.parseLong(output.lines().filter(l -> l.startsWith("child ")).findFirst().orElseThrow().substring(6).trim());
            Support.eventually("the everything-server child (pid " + childPid + ") is gone",
                    () -> ProcessHandle.of(childPid).map(h -> !h.isAlive()).orElse(true));
        } finally {
            Support.stop(p);
        }
    }
}
