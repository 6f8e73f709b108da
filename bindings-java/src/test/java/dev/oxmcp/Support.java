package dev.oxmcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Shared helpers of the tests: paths, JSON, free ports, waiting for conditions. */
final class Support {
    private Support() {}

    static final ObjectMapper JSON = new ObjectMapper();
    static final Path PROJECT = Paths.get("").toAbsolutePath();
    static final Path REPO = PROJECT.getParent();

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    /** The `oxmcp` CLI: $OXMCP_BIN, or the workspace's debug build. */
    static String oxmcpBin() {
        String env = System.getenv("OXMCP_BIN");
        if (env != null && !env.isBlank()) {
            return env;
        }
        Path p = REPO.resolve("target/debug/oxmcp");
        if (!Files.isExecutable(p)) {
            throw new AssertionError("no oxmcp CLI: set OXMCP_BIN or build it with cargo build -p oxmcp-cli");
        }
        return p.toString();
    }

    /** The JNI library the tests were given (or null: the library finds itself). */
    static String libraryPath() {
        String p = System.getProperty("oxmcp.library.path");
        return p == null || p.isBlank() ? null : p;
    }

    /** A java command line running {@code mainClass} from this project's classes. */
    static List<String> javaCommand(String mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        String lib = libraryPath();
        if (lib != null) {
            cmd.add("-Doxmcp.library.path=" + lib);
        }
        cmd.add("-cp");
        cmd.add(PROJECT.resolve("target/classes") + java.io.File.pathSeparator + PROJECT.resolve("target/test-classes"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        return cmd;
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Waits until something listens on 127.0.0.1:port (or the process died). */
    static void awaitPort(int port, Process p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new AssertionError("the server exited with " + p.exitValue());
            }
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new AssertionError("nothing listens on port " + port);
    }

    /** Waits (up to 20 s) for a condition; fails with {@code what} otherwise. */
    static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Stops a process we started (by its handle: its pid), waiting for it. */
    static void stop(Process p) throws InterruptedException {
        if (p == null) {
            return;
        }
        p.destroy();
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
