package dev.oxmcp;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A JVM that runs a Java server (HTTP), a Java client of it, and a stdio client of
 * {@code oxmcp everything-server}, then returns from {@code main}: the test checks that the
 * JVM exits by itself.
 *
 * <p>Arguments: {@code implicit|explicit OXMCP_BIN}. {@code implicit} leaves everything open
 * (the daemon-attached runtime threads must not keep the JVM alive); {@code explicit} closes
 * the handles and calls {@link Oxmcp#shutdown()}.
 */
public final class ExitMain {
    private ExitMain() {}

    /**
     * @param args mode and the oxmcp CLI
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        boolean explicit = args[0].equals("explicit");
        McpServer server = ExampleServer.build();
        String url = server.startHttp("127.0.0.1", 0).get(30, TimeUnit.SECONDS);
        McpClient http = McpClient.connectHttp(url).get(30, TimeUnit.SECONDS);
        McpClient stdio = McpClient.connectStdio(args[1], "everything-server", "--stdio").get(30, TimeUnit.SECONDS);

        String sum = http.callTool("add", "{\"a\":20,\"b\":22}").get(30, TimeUnit.SECONDS);
        String echo = stdio.callTool("echo", "{\"text\":\"bye\"}").get(30, TimeUnit.SECONDS);
        // Leave a request running on each connection, as a careless program would.
        CompletableFuture<String> hanging = stdio.callTool("slow", "{\"tag\":1,\"ms\":600000}");
        CompletableFuture<String> hangingJava = http.callTool("slow", "{\"tag\":2,\"ms\":600000}");

        ProcessHandle child = ProcessHandle.current().children().findFirst().orElseThrow();
        System.out.println("child " + child.pid());
        System.out.println("results " + sum.contains("42") + " " + echo.contains("bye"));
        if (explicit) {
            hanging.cancel(true);
            hangingJava.cancel(true);
            stdio.close();
            http.close();
            server.close();
            Oxmcp.shutdown();
        }
        System.out.println("done");
        System.out.flush();
    }
}
