// A Java MCP server and a client of it, in one file. Run it (after building, see README):
//
//   java -cp target/classes examples/Quickstart.java
//
import dev.oxmcp.Json;
import dev.oxmcp.McpClient;
import dev.oxmcp.McpServer;
import dev.oxmcp.Oxmcp;
import dev.oxmcp.RequestOptions;
import java.util.concurrent.CompletableFuture;

public class Quickstart {
    public static void main(String[] args) throws Exception {
        try (McpServer server = new McpServer("quickstart", "1.0.0")) {
            // A tool: the engine validates arguments against the schema before the handler runs.
            server.tool("greet", "Greets someone.",
                    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}",
                    (argumentsJson, ctx) -> CompletableFuture.supplyAsync(() -> {
                        ctx.progress(1, 1.0, "greeting");
                        String name = argumentsJson.replaceAll(".*\"name\"\\s*:\\s*\"([^\"]*)\".*", "$1");
                        return Json.textResult("Hello, " + name + "!");
                    }));
            String url = server.startHttp("127.0.0.1", 0).join();

            try (McpClient client = McpClient.connectHttp(url).join()) {
                System.out.println("tools: " + client.listTools().join());
                String result = client.callTool("greet", "{\"name\":\"Java\"}",
                        RequestOptions.defaults().onProgress((p, total, message) -> System.out.println("progress: " + message))).join();
                System.out.println("result: " + result);
            }
        }
        Oxmcp.shutdown(); // optional: the JVM also exits without it
    }
}
