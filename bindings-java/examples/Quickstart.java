// A Java MCP server and a client of it, in one file. Run it (after building, see README):
//
//   java -cp target/classes examples/Quickstart.java
//
import dev.oxmcp.McpClient;
import dev.oxmcp.McpParam;
import dev.oxmcp.McpServer;
import dev.oxmcp.McpTool;
import dev.oxmcp.Oxmcp;
import dev.oxmcp.RequestContext;
import dev.oxmcp.RequestOptions;
import dev.oxmcp.Types;
import java.util.Map;

public class Quickstart {
    /** The tool's result: a record, so the tool has an output schema and structured content. */
    public record Sum(int sum) {}

    public static class Calculator {
        // The input schema comes from the parameters. (Compiled with javac -parameters, as a
        // Maven build of this library's users sets, @McpParam's names can go: the source
        // launcher that runs this file keeps no parameter names.)
        @McpTool(description = "Add two integers")
        public Sum add(@McpParam(name = "a") int a, @McpParam(name = "b") int b, RequestContext ctx) {
            ctx.progress(1, 2.0, "adding");
            return new Sum(a + b);
        }
    }

    public static void main(String[] args) throws Exception {
        try (McpServer server = new McpServer("quickstart", "1.0.0").register(new Calculator())) {
            String url = server.startHttp("127.0.0.1", 0).join();

            try (McpClient client = McpClient.connectHttp(url).join()) {
                System.out.println("tools: " + client.tools().join().stream().map(Types.Tool::name).toList());
                Types.CallToolResult result = client.call("add", Map.of("a", 2, "b", 40),
                        RequestOptions.defaults().onProgress((p, total, message) -> System.out.println("progress: " + message))).join();
                System.out.println("add: " + result.structured(Sum.class));
            }
        }
        Oxmcp.shutdown(); // optional: the JVM also exits without it
    }
}
