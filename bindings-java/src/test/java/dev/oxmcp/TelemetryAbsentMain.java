package dev.oxmcp;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A JVM without the OpenTelemetry API on its class path ({@link TelemetryTest} starts it
 * so): a Java server, a handler and an annotated method, and a Java client calling them. It
 * names no OpenTelemetry class itself, and prints {@code results worked worked}.
 */
public final class TelemetryAbsentMain {
    private TelemetryAbsentMain() {}

    /** An annotated tool (run on the server's executor). */
    public static final class Blocking {
        /** @return a text */
        @McpTool(name = "blocking_work")
        public String blockingWork() {
            return "worked";
        }
    }

    /**
     * @param args none
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        boolean api;
        try {
            Class.forName("io.opentelemetry.api.trace.Span");
            api = true;
        } catch (ClassNotFoundException e) {
            api = false;
        }
        System.out.println("api " + api);
        try (McpServer server = new McpServer("untraced", "1.0.0")
                .tool("work", null, "{\"type\":\"object\"}", (a, ctx) -> CompletableFuture.completedFuture(Json.textResult("worked")))
                .register(new Blocking())) {
            String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
            try (McpClient client = McpClient.connectHttp(url).get(30, TimeUnit.SECONDS)) {
                String work = Json.members(client.callTool("work", "{}").get(30, TimeUnit.SECONDS)).get("content");
                String blocking = Json.members(client.callTool("blocking_work", "{}").get(30, TimeUnit.SECONDS)).get("content");
                System.out.println("results " + (work.contains("worked") ? "worked" : work) + " " + (blocking.contains("worked") ? "worked" : blocking));
            }
        }
        Oxmcp.shutdown();
    }
}
