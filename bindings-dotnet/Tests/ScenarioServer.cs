// The scenario server (tests/scenarios/README.md) with the C# API: the tools, resources,
// prompt and completion that `server` in scenarios.json describes, written with McpServer
// (never read from the JSON). `OxMcp.Tests.exe scenario-server` serves it on stdio until
// stdin closes; Scenarios.cs spawns it.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using OxMcp;

internal static class ScenarioServer
{
    private const string Object = "{\"type\":\"object\"}";

    internal static McpServer Build()
    {
        var s = new McpServer("scenario-server", "1.0.0");
        s.AddTool("echo", "Answers its text.",
            "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
            (args, ct) => Task.FromResult(McpJson.TextResult(MiniJson.Str(MiniJson.Parse(args), "text"))));
        s.AddTool("gone", "Registered, then removed before serving.", Object, (args, ct) => Task.FromResult(McpJson.TextResult("gone was called")));
        s.AddPrompt("{\"name\":\"gone\"}", (args, ctx, ct) => Task.FromResult(McpJson.UserPrompt("removed before serving")));
        s.AddResource("{\"uri\":\"fixed://gone\",\"name\":\"gone\",\"mimeType\":\"text/plain\"}",
            (args, ctx, ct) => Task.FromResult(McpJson.TextResource("fixed://gone", "removed before serving")));
        var removed = new bool[3];
        s.AddTool("staged_removal", "What the three removals answered before serving, joined with commas.", Object,
            (args, ct) => Task.FromResult(McpJson.TextResult(string.Join(",", removed.Select(r => r ? "true" : "false")))));
        s.AddTool("read_own", "Reads the server's own resource fixed://note through its request's context; answers its text.", Object,
            async (args, ctx, ct) =>
            {
                var contents = MiniJson.Get(MiniJson.Parse(await ctx.ReadResourceAsync("fixed://note", ct)), "contents") as List<object>;
                return McpJson.TextResult(MiniJson.Str(contents[0], "text"));
            });
        s.AddTool("protocol_version", "Answers the protocol version its request's context names.", Object,
            (args, ctx, ct) => Task.FromResult(McpJson.TextResult(MiniJson.Str(MiniJson.Parse(ctx.InfoJson), "protocolVersion") ?? "none")));
        s.AddTool("session_count", "How many clients the server has connected, as the host's session count says.", Object,
            (args, ct) => Task.FromResult(McpJson.TextResult(s.SessionCount.ToString())));
        s.AddTool("ask_sampling", "Asks the client's model (no maxTokens given); answers \"sampled: \" + the model's text.",
            "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\"}},\"required\":[\"prompt\"]}",
            async (args, ctx, ct) =>
            {
                string prompt = MiniJson.Str(MiniJson.Parse(args), "prompt");
                // No maxTokens: the engine fills the protocol default.
                string answer = await ctx.SampleAsync("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":" + McpJson.Quote(prompt) + "}}]}", ct);
                object content = MiniJson.Get(MiniJson.Parse(answer), "content");
                var blocks = content as List<object>;
                if (blocks != null) content = blocks.FirstOrDefault();
                return McpJson.TextResult("sampled: " + MiniJson.Str(content, "text"));
            });
        s.AddTool("ask_elicitation", "Asks the user for a name; answers \"elicited: \" + action + \" \" + content.name.", Object,
            async (args, ctx, ct) =>
            {
                object answer = MiniJson.Parse(await ctx.ElicitAsync(
                    "{\"message\":\"What is your name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}", ct));
                return McpJson.TextResult("elicited: " + MiniJson.Str(answer, "action") + " " + MiniJson.Str(MiniJson.Get(answer, "content"), "name"));
            });
        s.AddTool("{\"name\":\"escalate\",\"description\":\"Escalating: asks a name inline, goes on as a task if it may, then asks the model.\","
            + "\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"taskSupport\":\"optional\"},\"escalating\":true}",
            async (args, ctx, ct) =>
            {
                object answer = MiniJson.Parse(await ctx.ElicitAsync(
                    "{\"message\":\"What is your name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}", ct));
                bool became = await ctx.EscalateToTaskAsync(ct);
                string reply = await ctx.SampleAsync("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"after\"}}]}", ct);
                object content = MiniJson.Get(MiniJson.Parse(reply), "content");
                var blocks = content as List<object>;
                if (blocks != null) content = blocks.FirstOrDefault();
                return McpJson.TextResult("escalated: " + MiniJson.Str(MiniJson.Get(answer, "content"), "name") + " "
                    + (became ? "true" : "false") + " " + MiniJson.Str(content, "text"));
            });
        s.AddTool("ask_roots", "Lists the client's roots; answers \"roots: \" + the URIs joined by \",\".", Object,
            async (args, ctx, ct) =>
            {
                var roots = MiniJson.Get(MiniJson.Parse(await ctx.ListRootsAsync(ct)), "roots") as List<object> ?? new List<object>();
                return McpJson.TextResult("roots: " + string.Join(",", roots.Select(r => MiniJson.Str(r, "uri"))));
            });
        s.AddTool("fail_rpc", "Fails with JSON-RPC error -32042 \"custom failure\" and data {\"why\": \"scenario\"}.", Object,
            (args, ct) => { throw new McpException(-32042, "custom failure", "{\"why\":\"scenario\"}"); });
        // The engine refuses an escalating tool no client may run as a task: what the API raised.
        string refused = "accepted";
        try
        {
            s.AddTool("{\"name\":\"never\",\"inputSchema\":{\"type\":\"object\"},\"escalating\":true}",
                (args, ctx, ct) => Task.FromResult(McpJson.TextResult("never")));
        }
        catch (McpException e)
        {
            refused = Scenarios.KindName(e.Status);
        }
        s.AddTool("refused_escalation", "Before serving, the host registered the escalating tool \"never\" with no taskSupport "
            + "(its own options for it) and kept what happened: answers the engine's error kind name its error reported "
            + "(\"invalid_input\"), or \"accepted\".", Object, (args, ct) => Task.FromResult(McpJson.TextResult(refused)));
        // What a handler's return value becomes is the engine's one rule: these return plain values.
        s.AddTool("shape_text", "Returns the host's string \"plain\" (the engine makes it one text block).", Object,
            (args, ct) => Task.FromResult("\"plain\""));
        s.AddTool("shape_object", "Returns the host's map, object or record {\"city\": \"Paris\"} (structured content, and its JSON as text).", Object,
            (args, ct) => Task.FromResult("{\"city\":\"Paris\"}"));
        s.AddTool("shape_whole", "Returns a whole result, in the host's own result type where it has one: one text block \"whole\" and isError true (taken as it is).", Object,
            (args, ct) => Task.FromResult("{\"content\":[{\"type\":\"text\",\"text\":\"whole\"}],\"isError\":true}"));
        s.AddTool("shape_list", "Returns the host's list of strings [\"one\", \"two\"] (one text block each).", Object,
            (args, ct) => Task.FromResult("[\"one\",\"two\"]"));
        s.AddTool("shape_number", "Returns the host's number 42 (its JSON text).", Object, (args, ct) => Task.FromResult("42"));
        s.AddTool("shape_nothing", "Returns nothing: the host's null, None, undefined, void or Unit (no content).", Object,
            (args, ct) => Task.FromResult<string>(null));
        s.AddTool("fail_plain", "Fails with a plain host error \"plain failure\" (an isError result).", Object,
            (args, ct) => { throw new InvalidOperationException("plain failure"); });
        removed[0] = s.RemoveTool("gone");
        removed[1] = s.RemovePrompt("gone");
        removed[2] = s.RemoveResource("fixed://gone");

        // Resource handlers get {"uri": ..., "variables": {...}}.
        s.AddResource("{\"uri\":\"fixed://note\",\"name\":\"note\",\"mimeType\":\"text/plain\"}",
            (args, ctx, ct) => Task.FromResult(McpJson.TextResource(MiniJson.Str(MiniJson.Parse(args), "uri"), "a note")));
        s.AddResourceTemplate("{\"uriTemplate\":\"greet://{name}\",\"name\":\"greeting\",\"mimeType\":\"text/plain\"}", (args, ctx, ct) =>
        {
            object input = MiniJson.Parse(args);
            string uri = MiniJson.Str(input, "uri");
            string name = MiniJson.Str(MiniJson.Get(input, "variables"), "name");
            return Task.FromResult(McpJson.TextResource(uri, "hello " + name + " from " + uri));
        });
        s.AddPrompt("{\"name\":\"greet\",\"arguments\":[{\"name\":\"name\",\"required\":true}]}",
            (args, ctx, ct) => Task.FromResult(McpJson.UserPrompt("Hello, " + MiniJson.Str(MiniJson.Parse(args), "name") + "!")));
        // Every value of n000..n149 that starts with the argument's value: the engine caps it.
        s.SetCompletion((args, ctx, ct) =>
        {
            string prefix = MiniJson.Str(MiniJson.Get(MiniJson.Parse(args), "argument"), "value") ?? "";
            var values = Enumerable.Range(0, 150).Select(i => "n" + i.ToString("000")).Where(v => v.StartsWith(prefix, StringComparison.Ordinal));
            return Task.FromResult("{\"values\":[" + string.Join(",", values.Select(McpJson.Quote)) + "]}");
        });
        // Changes one request's params on their way, answers another itself, holds a setLevel, lets
        // the rest go on.
        s.Use((request, ctx, next, ct) =>
        {
            object r = MiniJson.Parse(request);
            object p = MiniJson.Get(r, "params");
            bool call = MiniJson.Str(r, "method") == "tools/call";
            if (call && MiniJson.Str(p, "name") == "echo" && MiniJson.Str(MiniJson.Get(p, "arguments"), "text") == "through middleware")
                return next("{\"name\":\"echo\",\"arguments\":{\"text\":\"changed by the middleware\"}}");
            if (call && MiniJson.Str(p, "name") == "answered_by_middleware")
                return Task.FromResult(McpJson.TextResult("answered by the middleware"));
            // Held 2 s, so a setLevel with a shorter timeout times out.
            if (MiniJson.Str(r, "method") == "logging/setLevel")
                return Task.Delay(2000).ContinueWith(_ => next(null)).Unwrap();
            return next(null);
        });
        var sub = new McpServer("sub-server", "1.0.0");
        sub.AddTool("hello", "Answers \"hello from the mounted server\".", Object,
            (args, ct) => Task.FromResult(McpJson.TextResult("hello from the mounted server")));
        s.Mount("sub", sub);
        return s;
    }

    /// <summary>Serves on stdio until stdin closes; exit code 0.</summary>
    internal static int Run()
    {
        using (McpServer server = Build())
            server.ServeStdioAsync().GetAwaiter().GetResult();
        return 0;
    }
}
