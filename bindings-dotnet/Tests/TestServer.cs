// The C# MCP server the official TypeScript SDK client drives (bindings-c/tests/ts), with the
// same tools as the C test server.
using System;
using System.Collections.Generic;
using System.Text.RegularExpressions;
using System.Threading;
using System.Threading.Tasks;
using OxMcp;

internal static class TestServer
{
    private static readonly List<long> ByToken = new List<long>();
    private static readonly List<long> ByPoll = new List<long>();
    private static readonly List<long> Started = new List<long>();

    internal static bool CancelledByToken(long tag) { lock (ByToken) return ByToken.Contains(tag); }
    internal static bool CancelledByPoll(long tag) { lock (ByPoll) return ByPoll.Contains(tag); }

    private static long Int(string json, string key)
    {
        Match m = Regex.Match(json, "\"" + key + "\":(-?\\d+)");
        return m.Success ? long.Parse(m.Groups[1].Value) : 0;
    }

    internal static McpServer Build()
    {
        var s = new McpServer("csharp-test-server", "1.2.3", "A test server written in C#.");
        s.AddTool("echo", "Echoes its arguments", "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
            (args, ct) => Task.FromResult(McpJson.StructuredResult("echo", args)));
        s.AddTool("slow", "Waits unless cancelled",
            "{\"type\":\"object\",\"properties\":{\"tag\":{\"type\":\"integer\"},\"ms\":{\"type\":\"integer\"}},\"required\":[\"tag\",\"ms\"]}",
            async (args, ctx, ct) =>
            {
                long tag = Int(args, "tag"), ms = Int(args, "ms");
                lock (Started) Started.Add(tag);
                using (ct.Register(() => { lock (ByToken) ByToken.Add(tag); }))
                {
                    for (long waited = 0; waited < ms; waited += 10)
                    {
                        if (ctx.IsCancelled)
                        {
                            lock (ByPoll) ByPoll.Add(tag);
                            // Wait (bounded) for the token too, so both paths are observed.
                            for (int i = 0; i < 200 && !ct.IsCancellationRequested; i++) await Task.Delay(10);
                            ct.ThrowIfCancellationRequested();
                        }
                        await Task.Delay(10);
                    }
                }
                return McpJson.TextResult("slow " + tag + " done");
            });
        s.AddTool("cancelled_tags", "Tags whose cancel the handler saw", "{\"type\":\"object\"}", (args, ct) =>
        {
            string cb, poll, started;
            lock (ByToken) cb = string.Join(",", ByToken);
            lock (ByPoll) poll = string.Join(",", ByPoll);
            lock (Started) started = string.Join(",", Started);
            return Task.FromResult(McpJson.StructuredResult("tags",
                "{\"callback\":[" + cb + "],\"poll\":[" + poll + "],\"started\":[" + started + "]}"));
        });
        s.AddTool("progress", "Reports progress", "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\"}}}", async (args, ctx, ct) =>
        {
            long steps = Int(args, "steps");
            for (long i = 1; i <= steps; i++)
            {
                await Task.Yield();
                ctx.ReportProgress(i, steps, "step " + i);
            }
            return McpJson.TextResult("progress done");
        });
        s.AddTool("log", "Logs twice", "{\"type\":\"object\"}", (args, ctx, ct) =>
        {
            ctx.Log("info", "\"first log\"", "host-server");
            ctx.Log("warning", "{\"n\":2}", "host-server");
            return Task.FromResult(McpJson.TextResult("logged"));
        });
        s.AddTool("fail", "Throws", "{\"type\":\"object\"}", (args, ct) => { throw new InvalidOperationException("it broke"); });
        s.AddTool("rpc_fail", "Throws a JSON-RPC error", "{\"type\":\"object\"}",
            (args, ct) => { throw new McpException(-32042, "custom failure", "{\"detail\":1}"); });
        // Not a CallToolResult: the binding's completion is refused and the call fails.
        s.AddTool("bad_result", "Returns what is not JSON", "{\"type\":\"object\"}", (args, ct) => Task.FromResult("{\"content\":5"));
        s.AddResource("{\"uri\":\"c://hello\",\"name\":\"hello\",\"mimeType\":\"text/plain\"}",
            (args, ctx, ct) => Task.FromResult(McpJson.TextResource("c://hello", "hello from C#")));
        s.AddPrompt("{\"name\":\"greet\",\"arguments\":[{\"name\":\"name\",\"required\":true}]}", (args, ctx, ct) =>
        {
            Match m = Regex.Match(args, "\"name\":\"([^\"]*)\"");
            return Task.FromResult(McpJson.UserPrompt("Hello, " + m.Groups[1].Value + "!"));
        });
        return s;
    }

    /// <summary>Serves over stdio until stdin closes, or over HTTP until stdin closes; exit code 0.</summary>
    internal static int Run(bool http)
    {
        using (McpServer server = Build())
        {
            if (http)
            {
                int port = server.StartHttp();
                Console.WriteLine("LISTENING " + port);
                Console.Out.Flush();
                var stdin = Console.OpenStandardInput();
                var buf = new byte[256];
                while (stdin.Read(buf, 0, buf.Length) > 0) { }
                server.StopHttp();
            }
            else
            {
                server.ServeStdioAsync().GetAwaiter().GetResult();
            }
        }
        Console.Error.WriteLine("csharp test server: clean exit");
        return 0;
    }
}
