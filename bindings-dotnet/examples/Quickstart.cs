// Quickstart: a C# client calling `oxmcp everything-server`, and a C# server it calls in the
// same process over Streamable HTTP. See README.md for the commands.
using System;
using System.Threading;
using System.Threading.Tasks;
using OxMcp;

internal static class Quickstart
{
    [McpTool, System.ComponentModel.Description("Waits until cancelled")]
    public static async Task<string> Wait(CancellationToken ct)
    {
        await Task.Delay(Timeout.Infinite, ct); // the token fires when the client cancels
        return "never";
    }

    private static async Task Run(string oxmcp)
    {
        // A client over stdio: starts the server as a child process.
        using (McpClient client = await McpClient.ConnectStdioAsync(oxmcp, new[] { "everything-server", "--stdio" }))
        {
            CallToolResult echo = await client.CallToolAsync("echo", new { text = "hello from C#" });
            Console.WriteLine(echo.Text);
        }

        // A server whose tool is a C# function, and a client that cancels a call to it.
        using (var server = new McpServer("quickstart", "1.0.0"))
        {
            server.WithTools(typeof(Quickstart));
            int port = server.StartHttp();
            using (McpClient client = await McpClient.ConnectHttpAsync("http://127.0.0.1:" + port + "/mcp"))
            using (var cts = new CancellationTokenSource(300))
            {
                try { await client.CallToolAsync("wait", null, cts.Token); }
                catch (OperationCanceledException) { Console.WriteLine("cancelled"); }
            }
        }
    }

    private static int Main(string[] args)
    {
        try
        {
            Run(args.Length > 0 ? args[0] : "oxmcp").GetAwaiter().GetResult();
            return 0;
        }
        catch (McpException e)
        {
            Console.Error.WriteLine(e.Status + " " + e.Code + ": " + e.Message);
            return 1;
        }
    }
}
