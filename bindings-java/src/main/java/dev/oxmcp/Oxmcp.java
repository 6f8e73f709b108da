package dev.oxmcp;

import java.time.Duration;

/**
 * The native engine as a whole: its version and the shutdown of its threads.
 *
 * <p>The engine's runtime threads attach to the JVM as daemon threads, so a JVM whose
 * {@code main} returns exits by itself; a shutdown hook also stops the runtime (closing
 * open clients and killing their child processes). Call {@link #shutdown()} to stop it
 * earlier and deterministically, e.g. at the end of {@code main}.
 */
public final class Oxmcp {
    private Oxmcp() {}

    /** @return the version of the native library */
    public static String version() {
        return Native.VERSION;
    }

    /**
     * Stops the engine: open clients close (child processes are stopped), servers stop
     * listening, and the runtime's threads are waited for (up to 3 seconds). Idempotent;
     * afterwards every call fails with {@link McpException.Kind#CLOSED}.
     */
    public static void shutdown() {
        shutdown(Duration.ofSeconds(3));
    }

    /**
     * {@link #shutdown()} with a grace period for the runtime's threads.
     *
     * @param grace how long to wait for running tasks
     */
    public static void shutdown(Duration grace) {
        Native.shutdown(grace.toMillis());
    }

    /** @return whether {@link #shutdown()} ran */
    public static boolean isShutdown() {
        return Native.isShutdown();
    }
}
