package dev.oxmcp;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The Java host client of tests/telemetry/hosts.test.mjs: {@code HostClientMain ERA CMD...}
 * calls the tool {@code echo} of the server CMD starts, in protocol era ERA, with the engine's
 * telemetry set by the standard OTEL_* variables.
 */
public final class HostClientMain {
    private HostClientMain() {}

    /**
     * Calls {@code echo} and checks its answer.
     *
     * @param args the era, then the server's command
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        String era = args[0];
        McpClient.Options options = McpClient.Options.stdio(Arrays.asList(args).subList(1, args.length)).era(era);
        try (McpClient client = McpClient.connect(options).get(60, TimeUnit.SECONDS)) {
            String result = client.callTool("echo", "{\"text\": \"java " + era + "\"}").get(60, TimeUnit.SECONDS);
            if (!result.contains("java " + era)) {
                throw new AssertionError("echo answered " + result);
            }
        }
        // Stops the engine, which sends what its exporter batched.
        Oxmcp.shutdown();
    }
}
