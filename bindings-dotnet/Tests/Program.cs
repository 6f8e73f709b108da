// The OxMcp test runner (a plain program: xunit does not run on Debian's mono).
//
//   OxMcp.Tests.exe server --stdio|--http          the C# test server the official TS SDK client drives
//   OxMcp.Tests.exe scenario-server                the scenario server (ScenarioServer.cs) on stdio
//   OxMcp.Tests.exe scenarios                      the shared scenarios alone (they also run in `client`)
//   OxMcp.Tests.exe oauth ISSUER PROTECTED_URL NODE BROWSER_MJS TOKEN_FILE
//                                                  OAuth (OAuthTests.cs) against a real authorization
//                                                  server and a protected server
//   OxMcp.Tests.exe client OXMCP_BIN EVERYTHING_URL [C_SERVER_URL]
//                                                  C# client tests against `oxmcp everything-server`
//                                                  (stdio and HTTP), an in-process C# server, and
//                                                  optionally the C test server (cross-language);
//                                                  a child server that crashes with calls pending,
//                                                  skills and task options (SkillsTests.cs: a C# server
//                                                  and client in one process), the shared
//                                                  scenarios (Scenarios.cs, tests/scenarios/), and
//                                                  tools, resources and prompts from attributed
//                                                  methods with the typed client (TypedTests.cs)
//
// Every server runs against a client of each protocol era (auto, session, stateless).
//
// Ends with "N passed, M failed"; the process must then exit by itself.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Text.RegularExpressions;
using System.Threading;
using System.Threading.Tasks;
using OxMcp;

internal static class Program
{
    private static int _passed, _failed;

    private static void Check(bool ok, string what)
    {
        if (ok) _passed++;
        else
        {
            _failed++;
            Console.Error.WriteLine("FAIL: " + what);
        }
    }

    private static async Task Expect<TException>(Func<Task> body, Func<TException, bool> ok, string what) where TException : Exception
    {
        try
        {
            await body();
            Check(false, what + " (no exception)");
        }
        catch (TException e)
        {
            Check(ok(e), what + " (" + e.GetType().Name + ": " + e.Message + ")");
        }
        catch (Exception e)
        {
            Check(false, what + " (wrong exception " + e.GetType().Name + ": " + e.Message + ")");
        }
    }

    /// <summary>Waits (bounded: a hang is a failure, not a timing assertion) until cond holds.</summary>
    private static async Task<bool> WaitFor(Func<bool> cond, int ms = 20000)
    {
        var sw = Stopwatch.StartNew();
        while (!cond())
        {
            if (sw.ElapsedMilliseconds > ms) return false;
            await Task.Delay(20);
        }
        return true;
    }

    private static int Main(string[] args)
    {
        try
        {
            if (args.Length >= 2 && args[0] == "server") return TestServer.Run(args[1] == "--http");
            if (args.Length >= 1 && args[0] == "scenario-server") return ScenarioServer.Run();
            if (args.Length >= 1 && args[0] == "scenarios")
            {
                Scenarios.Run(Check).GetAwaiter().GetResult();
                Console.WriteLine(_passed + " passed, " + _failed + " failed");
                return _failed == 0 ? 0 : 1;
            }
            if (args.Length >= 6 && args[0] == "oauth") return OAuthTests.Run(args);
            if (args.Length >= 1 && args[0] == "activity")
            {
                ActivityTests.Run(Check);
                Console.WriteLine(_passed + " passed, " + _failed + " failed");
                return _failed == 0 ? 0 : 1;
            }
            if (args.Length >= 3 && args[0] == "client")
            {
                ClientTests(args[1], args[2], args.Length > 3 ? args[3] : null).GetAwaiter().GetResult();
                Console.WriteLine(_passed + " passed, " + _failed + " failed");
                return _failed == 0 ? 0 : 1;
            }
            Console.Error.WriteLine("usage: server --stdio|--http | scenario-server | scenarios | client OXMCP_BIN EVERYTHING_URL [C_SERVER_URL] | oauth ISSUER PROTECTED_URL NODE BROWSER_MJS TOKEN_FILE | activity");
            return 2;
        }
        catch (Exception e)
        {
            Console.Error.WriteLine("runner crashed: " + e);
            Console.WriteLine(_passed + " passed, " + (_failed + 1) + " failed");
            return 1;
        }
    }

    private static readonly string[] Eras = { "auto", "session", "stateless" };

    /// <summary>Progress reported on the reporting thread, at once (a Progress&lt;T&gt; posts each to the thread pool).</summary>
    internal static IProgress<McpProgress> Reports(Action<McpProgress> report)
    {
        return new Reporter(report);
    }

    private sealed class Reporter : IProgress<McpProgress>
    {
        private readonly Action<McpProgress> _report;
        internal Reporter(Action<McpProgress> report) { _report = report; }
        public void Report(McpProgress value) { _report(value); }
    }

    [System.Runtime.InteropServices.DllImport("oxmcp")] private static extern IntPtr oxmcp_status_name(int status);

    /// <summary>McpStatus holds the engine's error kinds by their stable numbers: each
    /// number's name in the native library (the engine's kind names) is the enum's own.</summary>
    private static void StatusesAreTheEnginesErrorKinds()
    {
        foreach (McpStatus status in Enum.GetValues(typeof(McpStatus)))
        {
            string native = System.Runtime.InteropServices.Marshal.PtrToStringAnsi(oxmcp_status_name((int)status));
            string mine = System.Text.RegularExpressions.Regex.Replace(status.ToString(), "(?<=[a-z])([A-Z])", "_$1").ToUpperInvariant();
            Check(native == mine, "McpStatus." + status + " is the native " + native);
        }
        // Every status the native side names (numbers are never reused, so they run
        // without a gap up to the first unknown one) is one McpStatus has.
        for (int code = 1; ; code++)
        {
            string native = System.Runtime.InteropServices.Marshal.PtrToStringAnsi(oxmcp_status_name(code));
            if (native == "UNKNOWN") break;
            Check(Enum.IsDefined(typeof(McpStatus), code), "the native status " + code + " (" + native + ") is one McpStatus has");
        }
    }

    private static async Task ClientTests(string oxmcp, string everythingUrl, string cServerUrl)
    {
        StatusesAreTheEnginesErrorKinds();
        foreach (string era in Eras)
        {
            await EverythingTests("stdio", era, () => McpClient.ConnectStdioAsync(oxmcp, new[] { "everything-server", "--stdio" }, onNotification: OnLog, era: era));
            await EverythingTests("http", era, () => McpClient.ConnectHttpAsync(everythingUrl, onNotification: OnLog, era: era));
            await TaskTests("stdio", era, () => McpClient.ConnectStdioAsync(oxmcp, new[] { "everything-server", "--stdio" }, era: era));
            await TaskTests("http", era, () => McpClient.ConnectHttpAsync(everythingUrl, era: era));
            await TaskStepTests("stdio", era, h => McpClient.ConnectStdioAsync(oxmcp, new[] { "everything-server", "--stdio" }, era: era, handlers: h));
            await TaskStepTests("http", era, h => McpClient.ConnectHttpAsync(everythingUrl, era: era, handlers: h));
        }
        foreach (string era in Eras)
            await ClientHandlerTests(era, handlers => McpClient.ConnectStdioAsync(oxmcp, new[] { "everything-server", "--stdio" }, era: era, handlers: handlers));
        await InProcessTests();
        await CSharpServerEraTests();
        foreach (string era in Eras)
            await SkillsTests.Run(Check, era);
        await Scenarios.Run(Check);
        await TypedTests.Run(Check);
        if (cServerUrl != null)
        {
            foreach (string era in Eras)
                await EraTests("C server/http", "c-test-server", era, log => McpClient.ConnectHttpAsync(cServerUrl, onNotification: log, era: era));
        }
        await ErrorTests(oxmcp);
        await EveryPendingCallFailsWithTheExitStatusAndStderrWhenTheServerCrashes(oxmcp);
    }

    /// <summary>
    /// The client's handlers answer the server's sampling and elicitation requests (the
    /// everything-server's test_sampling and test_elicitation tools ask them), and in the
    /// session era the server's cancel of its sampling request reaches the handler's token.
    /// </summary>
    private static async Task ClientHandlerTests(string era, Func<McpClientHandlers, Task<McpClient>> connect)
    {
        string t = "[client handlers/" + era + "] ";
        var held = new TaskCompletionSource<bool>();
        var sawCancel = new TaskCompletionSource<bool>();
        bool hold = false;
        var handlers = new McpClientHandlers
        {
            Sampling = async (p, ct) =>
            {
                if (!hold) return "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"csharp-model says hi\"},\"model\":\"cs\"}";
                held.TrySetResult(true);
                try { await Task.Delay(Timeout.Infinite, ct); }
                catch (OperationCanceledException) { sawCancel.TrySetResult(true); throw; }
                return null;
            },
            Elicitation = (p, ct) => Task.FromResult(p.Contains("who?")
                ? "{\"action\":\"accept\",\"content\":{\"username\":\"ada\",\"email\":\"ada@example.com\"}}"
                : "{\"action\":\"decline\"}"),
        };
        using (McpClient client = await connect(handlers))
        {
            string sampled = (await client.CallToolAsync("test_sampling", new { prompt = "hello" })).Text;
            Check(sampled.Contains("LLM response: csharp-model says hi"), t + "sampling answered by C#: " + sampled);
            string elicited = (await client.CallToolAsync("test_elicitation", new { message = "who?" })).Text;
            Check(elicited.Contains("ada@example.com"), t + "elicitation answered by C#: " + elicited);
            if (client.Era != "session") return;
            hold = true;
            var cts = new CancellationTokenSource();
            Task<CallToolResult> call = client.CallToolAsync("test_sampling", "{\"prompt\":\"wait\"}", cts.Token);
            Check(await Task.WhenAny(held.Task, Task.Delay(20000)) == held.Task, t + "the held sampling request reached the handler");
            cts.Cancel();
            await Expect<OperationCanceledException>(() => call, e => true, t + "the tool call ends cancelled");
            Check(await Task.WhenAny(sawCancel.Task, Task.Delay(20000)) == sawCancel.Task, t + "the server's cancel reached the handler's token");
        }
    }

    private static readonly List<string> Logs = new List<string>();

    private static void OnLog(object sender, McpNotification n)
    {
        if (n.Method == "notifications/message") lock (Logs) Logs.Add(n.ParamsJson);
    }

    private static bool Logged(string needle)
    {
        lock (Logs) return Logs.Any(l => l.Contains(needle));
    }

    /// <summary>What a client of <paramref name="era"/> settles on with an oxmcp server, which speaks both eras.</summary>
    private static string Settled(string era)
    {
        return era == "session" ? "session" : "stateless";
    }

    private static async Task EverythingTests(string transport, string era, Func<Task<McpClient>> connect)
    {
        string t = "[" + transport + "/" + era + "] ";
        lock (Logs) Logs.Clear(); // the log checks below look at this client's logs only
        using (McpClient client = await connect())
        {
            Check(client.InitializeResultJson.Contains("\"serverInfo\""), t + "initialize result");
            Check(client.Era == Settled(era), t + "settles on the " + Settled(era) + " era (" + client.Era + ")");

            IList<Tool> tools = await client.ListToolsAsync();
            Tool echoTool = tools.FirstOrDefault(x => x.Name == "echo");
            Check(echoTool != null && tools.Any(x => x.Name == "slow") && echoTool.InputSchemaJson.Contains("\"text\"") && echoTool.Description != null,
                t + "tools/list: typed tools, with their schemas: " + string.Join(", ", tools.Select(x => x.Name)));

            CallToolResult echo = await client.CallToolAsync("echo", new { text = "h\u00e9llo from C#" });
            Check(echo.Content.Count > 0 && echo.Content[0] is TextContentBlock && echo.Text.Contains("h\u00e9llo from C#") && !echo.IsError,
                t + "echo: a typed result with a text block: " + echo.Json);
            CallToolResult echoJson = await client.CallToolAsync("echo", "{\"text\":\"as JSON text\"}");
            Check(echoJson.Text.Contains("as JSON text"), t + "arguments given as JSON text: " + echoJson.Json);

            CallToolResult err = await client.CallToolAsync("test_error_handling");
            Check(err.IsError && err.Json.Contains("\"isError\":true"), t + "a failing tool is an isError result");
            await Expect<McpException>(() => client.CallToolAsync<string>("test_error_handling"),
                e => e.Status == McpStatus.Handler && e.DataJson.Contains("\"isError\":true"), t + "CallToolAsync<T> of a failing tool throws Handler");

            await Expect<McpException>(() => client.CallToolAsync("no_such_tool", "{}"),
                e => e.Status == McpStatus.Rpc && e.Code == -32602 && e.Message.Contains("no_such_tool"), t + "unknown tool: McpException with code -32602");

            var progress = new List<McpProgress>();
            await client.CallToolAsync("test_tool_with_progress", null, progress: Reports(x => { lock (progress) progress.Add(x); }));
            Check(progress.Count == 3 && progress[2].Progress == 100 && progress[2].Total == 100, t + "three progress callbacks before completion (" + progress.Count + ")");

            await client.SetLogLevelAsync("debug");
            await client.CallToolAsync("test_tool_with_logging");
            Check(await WaitFor(() => Logged("\"level\":\"info\"")), t + "log notifications raise the Notification event");

            ReadResourceResult res = await client.ReadResourceAsync("test://template/7/data");
            Check(res.Contents.Count == 1 && res.Contents[0].Uri == "test://template/7/data" && res.Text.Contains("Data for ID: 7"), t + "templated resource: " + res.Json);
            GetPromptResult prompt = await client.GetPromptAsync("test_prompt_with_arguments", new Dictionary<string, object> { { "arg1", "x" }, { "arg2", "y" } });
            Check(prompt.Messages.Count > 0 && prompt.Messages[0].Role == "user" && prompt.Messages[0].Text.Contains("arg1='x', arg2='y'"), t + "prompt: " + prompt.Json);
            Check((await client.ListPromptsAsync()).Any(x => x.Name == "test_prompt_with_arguments" && x.Arguments.Any(a => a.Name == "arg1" && a.Required)),
                t + "prompts/list: typed prompts with their arguments");
            Check((await client.ListResourcesAsync()).Any(x => x.Uri == "test://static-text"), t + "resources/list: typed resources");
            Check((await client.ListResourceTemplatesAsync()).Any(x => x.UriTemplate.StartsWith("test://template/")), t + "resources/templates/list: typed templates");
            string completed = await client.CompleteAsync("{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"test_prompt_with_arguments\"},\"argument\":{\"name\":\"arg1\",\"value\":\"al\"}}");
            Check(completed.Contains("\"alpha\"") && completed.Contains("\"alpine\"") && !completed.Contains("\"beta\""), t + "completion: " + completed);
            await client.PingAsync();
            Check(true, t + "ping");
            string raw = await client.RequestAsync("resources/list", "{}");
            Check(raw.Contains("test://static-text"), t + "raw request");

            // Cancellation: the token cancels natively; the server's handler logs that it saw it.
            int tag = transport == "stdio" ? 8101 : 8201;
            using (var cts = new CancellationTokenSource())
            {
                Task<CallToolResult> slow = client.CallToolAsync("slow", "{\"tag\":" + tag + ",\"ms\":30000}", cts.Token);
                await Task.Delay(300); // let it reach the handler (not an assertion)
                cts.Cancel();
                await Expect<OperationCanceledException>(() => slow, e => true, t + "a cancelled call ends as cancelled");
                Check(slow.IsCanceled, t + "the Task is Canceled");
                // In the stateless era over HTTP the cancel closes the request's response stream,
                // the very stream the handler's "cancelled" log would come back on; EraTests
                // checks that era's cancel through the server's cancelled_tags tool instead.
                if (transport == "stdio" || client.Era == "session")
                    Check(await WaitFor(() => Logged("slow tag=" + tag + " cancelled")), t + "notifications/cancelled reached the server's handler");
            }
            using (var cancelled = new CancellationTokenSource())
            {
                cancelled.Cancel();
                await Expect<OperationCanceledException>(() => client.CallToolAsync("echo", "{\"text\":\"x\"}", cancelled.Token), e => true, t + "an already-cancelled token never sends");
            }
            string done = (await client.CallToolAsync("slow", "{\"tag\":" + (tag + 1) + ",\"ms\":10}", new CancellationTokenSource().Token)).Text;
            Check(done.Contains("slow " + (tag + 1) + " done"), t + "an uncancelled slow call completes");

            await Expect<McpException>(() => client.CallToolAsync("slow", "{\"tag\":" + (tag + 2) + ",\"ms\":30000}", timeout: TimeSpan.FromMilliseconds(200)),
                e => e.Status == McpStatus.Timeout, t + "timeout: McpException with Status Timeout");

            await client.CloseAsync();
            await Expect<McpException>(() => client.PingAsync(), e => e.Status == McpStatus.InvalidInput || e.Status == McpStatus.Closed, t + "calls after close fail");
        }
    }

    /// <summary>
    /// Tasks (the tasks extension) with the everything-server's fixtures: CallToolAsTaskAsync
    /// resolves to a task's final result with its statuses on the progress callback; a
    /// task-only tool's failure is an isError result, while a plain call of it is refused
    /// (-32601 at 2025-11-25, -32021 stateless); cancelling the token ends a long task's wait as cancelled, promptly.
    /// </summary>
    private static async Task TaskTests(string transport, string era, Func<Task<McpClient>> connect)
    {
        string t = "[tasks/" + transport + "/" + era + "] ";
        using (McpClient client = await connect())
        {
            var statuses = new List<McpProgress>();
            string result = (await client.CallToolAsTaskAsync("slow_compute", new { seconds = 1, label = "cs-task" },
                progress: Reports(x => { lock (statuses) statuses.Add(x); }))).Json;
            Check(result.Contains("cs-task: computed in 1 s") && !result.Contains("\"isError\":true"), t + "slow_compute as a task: " + result);
            string seen;
            lock (statuses) seen = string.Join(", ", statuses.Select(x => x.Progress + " " + x.Message));
            lock (statuses)
                Check(statuses.Count >= 2 && statuses[0].Message == "working" && statuses[statuses.Count - 1].Message == "completed",
                    t + "the statuses reached the progress callback, working first, completed last (" + seen + ")");

            string failed = (await client.CallToolAsTaskAsync("failing_job", "{}")).Json;
            Check(failed.Contains("\"isError\":true"), t + "failing_job as a task: an isError result: " + failed);
            // -32601 at 2025-11-25 (that version's task form), -32021 (no extension) stateless.
            long refusal = era == "session" ? -32601 : -32021;
            await Expect<McpException>(() => client.CallToolAsync("failing_job", "{}"),
                e => e.Status == McpStatus.Rpc && e.Code == refusal, t + "failing_job without a task: McpException with code " + refusal);

            string greet = (await client.CallToolAsTaskAsync("greet", new { name = "C#" })).Text;
            Check(greet.Contains("Hello, C#!"), t + "a tool that is never a task answers directly: " + greet);

            using (var cts = new CancellationTokenSource())
            {
                Task<CallToolResult> waiting = client.CallToolAsTaskAsync("slow_compute", "{\"seconds\":60}", cts.Token);
                await Task.Delay(300); // let the task start (not an assertion)
                var sw = Stopwatch.StartNew();
                cts.Cancel();
                await Expect<OperationCanceledException>(() => waiting, e => true, t + "a cancelled task's wait ends as cancelled");
                Check(waiting.IsCanceled, t + "the Task is Canceled");
                Check(sw.ElapsedMilliseconds < 5000, t + "promptly (" + sw.ElapsedMilliseconds + " ms)");
            }
            string after = (await client.CallToolAsync("greet", "{\"name\":\"again\"}")).Text;
            Check(after.Contains("Hello, again!"), t + "the client still works after the cancel: " + after);
            await client.CloseAsync();
        }
    }

    /// <summary>
    /// The task steps, taken by the caller: StartToolTaskAsync then GetTaskAsync until
    /// completed; a question becomes the task's input request, answered by key with
    /// UpdateTaskAsync; CancelTaskAsync cancels a long one; an unknown task is -32602. The
    /// elicitation handler only declares the capability: the steps answer, not it.
    /// </summary>
    private static async Task TaskStepTests(string transport, string era, Func<McpClientHandlers, Task<McpClient>> connect)
    {
        string t = "[task steps/" + transport + "/" + era + "] ";
        int asked = 0;
        var handlers = new McpClientHandlers
        {
            Elicitation = (p, ct) => { Interlocked.Increment(ref asked); return Task.FromResult("{\"action\":\"decline\"}"); },
        };
        using (McpClient client = await connect(handlers))
        {
            var started = (Dictionary<string, object>)MiniJson.Parse(await client.StartToolTaskAsync("slow_compute", "{\"seconds\":1,\"label\":\"cs-steps\"}"));
            var task = started.ContainsKey("task") ? (Dictionary<string, object>)started["task"] : null;
            Check(task != null && (string)task["status"] == "working", t + "StartToolTaskAsync: a task, working");
            string id = task == null ? "none" : (string)task["taskId"];
            task = await PollTask(client, id, "completed");
            Check((string)task["status"] == "completed" && MiniJson.Write(task["result"]).Contains("cs-steps: computed in 1 s"),
                t + "GetTaskAsync until completed, with the result: " + MiniJson.Write(task));

            started = (Dictionary<string, object>)MiniJson.Parse(await client.StartToolTaskAsync("confirm_delete", "{\"filename\":\"cs.txt\"}"));
            id = started.ContainsKey("task") ? (string)((Dictionary<string, object>)started["task"])["taskId"] : "none";
            task = await PollTask(client, id, "input_required");
            var requests = task.ContainsKey("inputRequests") ? (Dictionary<string, object>)task["inputRequests"] : new Dictionary<string, object>();
            Check((string)task["status"] == "input_required" && requests.Count > 0, t + "input_required with an input request: " + MiniJson.Write(task));
            string key = requests.Keys.FirstOrDefault() ?? "none";
            await client.UpdateTaskAsync(id, "{" + MiniJson.Write(key) + ":{\"action\":\"accept\",\"content\":{\"confirm\":true}}}");
            task = await PollTask(client, id, "completed");
            Check(task.ContainsKey("result") && MiniJson.Write(task["result"]).Contains("deleted cs.txt"),
                t + "UpdateTaskAsync's answer reached the tool: " + MiniJson.Write(task));
            Check(Volatile.Read(ref asked) == 0, t + "the elicitation handler was not asked");

            started = (Dictionary<string, object>)MiniJson.Parse(await client.StartToolTaskAsync("slow_compute", "{\"seconds\":60}"));
            id = started.ContainsKey("task") ? (string)((Dictionary<string, object>)started["task"])["taskId"] : "none";
            await client.CancelTaskAsync(id);
            task = (Dictionary<string, object>)MiniJson.Parse(await client.GetTaskAsync(id));
            Check((string)task["status"] == "cancelled", t + "GetTaskAsync after CancelTaskAsync: cancelled");

            await Expect<McpException>(() => client.GetTaskAsync("no-such-task"),
                e => e.Status == McpStatus.Rpc && e.Code == -32602, t + "an unknown task: McpException with code -32602");
            await client.CloseAsync();
        }
    }

    /// <summary>GetTaskAsync until the task's status is <paramref name="until"/> (or 10 s).</summary>
    private static async Task<Dictionary<string, object>> PollTask(McpClient client, string id, string until)
    {
        Dictionary<string, object> task = null;
        for (int i = 0; i < 200; i++)
        {
            task = (Dictionary<string, object>)MiniJson.Parse(await client.GetTaskAsync(id));
            if ((string)task["status"] == until) break;
            await Task.Delay(50);
        }
        return task;
    }

    /// <summary>The status code of a raw POST (initialize) with these Host and Origin headers.</summary>
    private static int RawStatus(int port, string host, string origin)
    {
        const string body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
        using (var tcp = new System.Net.Sockets.TcpClient("127.0.0.1", port))
        using (var stream = tcp.GetStream())
        {
            string head = "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\n" + (origin != null ? "Origin: " + origin + "\r\n" : "") +
                          "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: " +
                          System.Text.Encoding.UTF8.GetByteCount(body) + "\r\nConnection: close\r\n\r\n" + body;
            byte[] bytes = System.Text.Encoding.UTF8.GetBytes(head);
            stream.Write(bytes, 0, bytes.Length);
            var line = new System.Text.StringBuilder();
            int c;
            while ((c = stream.ReadByte()) != -1 && c != '\n') line.Append((char)c);
            return int.Parse(line.ToString().Split(' ')[1]);
        }
    }

    /// <summary>Which Host and Origin values a listener accepts: local ones by default, the named ones when named.</summary>
    private static async Task AllowedHostsTests()
    {
        using (var local = new McpServer("local", "1"))
        using (var named = new McpServer("named", "1"))
        {
            int localPort = await local.StartHttpAsync();
            Check(RawStatus(localPort, "mcp.example.com", null) == 403, "[hosts] another host name is refused by default");
            int port = await named.StartHttpAsync(allowedHosts: new[] { "mcp.example.com" }, allowedOrigins: new[] { "https://app.example.com" });
            Check(RawStatus(port, "mcp.example.com", null) == 200, "[hosts] a named host is served");
            Check(RawStatus(port, "mcp.example.com", "https://app.example.com") == 200, "[hosts] a named origin is served");
            Check(RawStatus(port, "mcp.example.com", "https://evil.example.com") == 403, "[hosts] another origin is refused");
            Check(RawStatus(port, "other.example.com", null) == 403, "[hosts] another host is refused");
        }
    }

    /// <summary>A C# client and a C# server in one process over Streamable HTTP: cancellation both ways.</summary>
    private static async Task InProcessTests()
    {
        using (var server = TestServer.Build())
        {
            int port = server.StartHttp();
            using (McpClient client = await McpClient.ConnectHttpAsync("http://127.0.0.1:" + port + "/mcp"))
            {
                string echo = (await client.CallToolAsync("echo", "{\"text\":\"in process\"}")).Json;
                Check(echo.Contains("\"structuredContent\":{\"text\":\"in process\"}"), "[in-process] echo: " + echo);

                await Expect<McpException>(() => client.CallToolAsync("rpc_fail", "{}"),
                    e => e.Code == -32042 && e.Message == "custom failure" && e.DataJson == "{\"detail\":1}", "[in-process] McpException thrown by a handler keeps code and data");
                string fail = (await client.CallToolAsync("fail", "{}")).Json;
                Check(fail.Contains("\"isError\":true") && fail.Contains("it broke"), "[in-process] other exceptions: isError result: " + fail);

                var seen = new List<McpProgress>();
                await client.CallToolAsync("progress", "{\"steps\":4}", progress: Reports(x => { lock (seen) seen.Add(x); }));
                Check(seen.Count == 4 && seen[3].Message == "step 4", "[in-process] progress from a C# handler (" + seen.Count + ")");

                using (var cts = new CancellationTokenSource())
                {
                    Task<CallToolResult> slow = client.CallToolAsync("slow", "{\"tag\":77,\"ms\":30000}", cts.Token);
                    await Task.Delay(300);
                    cts.Cancel();
                    await Expect<OperationCanceledException>(() => slow, e => true, "[in-process] client cancel");
                    Check(await WaitFor(() => TestServer.CancelledByToken(77) && TestServer.CancelledByPoll(77)),
                        "[in-process] the C# handler's CancellationToken fired and IsCancelled turned true");
                }
            }
            server.StopHttp();
        }
        await AllowedHostsTests();
    }

    /// <summary>
    /// One C# test server (TestServer.cs) against a C# client of each era: over stdio (this
    /// program started again as `server --stdio`) and over HTTP (one in-process server).
    /// </summary>
    private static async Task CSharpServerEraTests()
    {
        string self = typeof(Program).Assembly.Location;
        foreach (string era in Eras)
            await EraTests("C# server/stdio", "csharp-test-server", era,
                log => McpClient.ConnectStdioAsync("mono", new[] { self, "server", "--stdio" }, onNotification: log, era: era));
        using (var server = TestServer.Build())
        {
            int port = server.StartHttp();
            foreach (string era in Eras)
                await EraTests("C# server/http", "csharp-test-server", era,
                    log => McpClient.ConnectHttpAsync("http://127.0.0.1:" + port + "/mcp", onNotification: log, era: era));
            server.StopHttp();
        }
    }

    private static int _nextTag = 500;

    /// <summary>
    /// A client of <paramref name="era"/> against a server with the host test servers' tools
    /// (C# TestServer.cs or C server_test.c): the settled era, a tool call, progress, logs,
    /// and a cancel the server's handler reports seeing (cancelled_tags).
    /// </summary>
    private static async Task EraTests(string where, string serverName, string era, Func<EventHandler<McpNotification>, Task<McpClient>> connect)
    {
        string t = "[" + where + "/" + era + "] ";
        var logs = new List<string>();
        using (McpClient client = await connect((sender, n) => { if (n.Method == "notifications/message") lock (logs) logs.Add(n.ParamsJson); }))
        {
            string expected = Settled(era);
            Check(client.Era == expected, t + "settles on the " + expected + " era (" + client.Era + ")");
            bool statelessVersion = client.InitializeResultJson.Contains("\"protocolVersion\":\"2026-07-28\"");
            Check(statelessVersion == (expected == "stateless") && client.InitializeResultJson.Contains("\"name\":\"" + serverName + "\""),
                t + "connect result: " + client.InitializeResultJson);

            string echo = (await client.CallToolAsync("echo", "{\"text\":\"hello in the " + era + " era\"}")).Json;
            Check(echo.Contains("\"structuredContent\":{\"text\":\"hello in the " + era + " era\"}"), t + "echo: " + echo);
            await client.PingAsync();

            var progress = new List<McpProgress>();
            await client.CallToolAsync("progress", "{\"steps\":3}", progress: Reports(x => { lock (progress) progress.Add(x); }));
            Check(progress.Count == 3, t + "three progress callbacks (" + progress.Count + ")");

            await client.SetLogLevelAsync("info");
            await client.CallToolAsync("log", "{}");
            Check(await WaitFor(() => { lock (logs) return logs.Any(l => l.Contains("first log")); }), t + "the handler's logs arrive");

            int tag = Interlocked.Increment(ref _nextTag);
            using (var cts = new CancellationTokenSource())
            {
                Task<CallToolResult> slow = client.CallToolAsync("slow", "{\"tag\":" + tag + ",\"ms\":30000}", cts.Token);
                // Cancelled once its handler runs: a call cancelled before it reaches the handler
                // never runs it (a fixed delay was too short on a busy machine).
                Check(await WaitFor(() => Regex.IsMatch(client.CallToolAsync("cancelled_tags", "{}").GetAwaiter().GetResult().Json,
                    "\"started\":\\[([^\\]]*,)?" + tag + "[,\\]]")), t + "the slow call reached its handler");
                cts.Cancel();
                await Expect<OperationCanceledException>(() => slow, e => true, t + "a cancelled call ends as cancelled");
                Check(await WaitFor(() =>
                {
                    string tags = client.CallToolAsync("cancelled_tags", "{}").GetAwaiter().GetResult().Json;
                    return Regex.IsMatch(tags, "\"callback\":\\[([^\\]]*,)?" + tag + "[,\\]]") && Regex.IsMatch(tags, "\"poll\":\\[([^\\]]*,)?" + tag + "[,\\]]");
                }), t + "the server's handler saw the cancel (token and polling)");
            }
            await client.CloseAsync();
            Check(client.Era == expected, t + "Era stays known after CloseAsync");
        }
    }

    private static async Task ErrorTests(string oxmcp)
    {
        await Expect<McpException>(() => McpClient.ConnectStdioAsync(oxmcp, new[] { "everything-server", "--stdio" }, era: "sesion"),
            e => e.Status == McpStatus.InvalidInput && e.Message.Contains("unknown era \"sesion\""), "[errors] an unknown era: InvalidInput");
        await Expect<McpException>(() => McpClient.ConnectHttpAsync("http://127.0.0.1:9/mcp", era: ""),
            e => e.Status == McpStatus.InvalidInput && e.Message.Contains("era"), "[errors] an empty era: InvalidInput");
        using (McpClient client = await McpClient.ConnectStdioAsync(oxmcp, new[] { "everything-server", "--stdio" }, era: null))
            Check(client.Era == "stateless", "[errors] era null keeps the default, auto (" + client.Era + ")");
        using (McpClient client = await McpClient.ConnectStdioAsync(oxmcp, new[] { "everything-server", "--stdio" }, era: "LEGACY"))
            Check(client.Era == "session", "[errors] era names are case-insensitive, legacy is session (" + client.Era + ")");
        await Expect<McpException>(() => McpClient.ConnectStdioAsync("/nonexistent/oxmcp-nothing", new string[0]),
            e => e.Status == McpStatus.Transport, "[errors] a missing command: Transport error");
        // A port nothing listens on: an unreachable server is a Transport error naming its
        // URL, in every era.
        var probe = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        probe.Start();
        string unreachable = "http://127.0.0.1:" + ((System.Net.IPEndPoint)probe.LocalEndpoint).Port + "/mcp";
        probe.Stop();
        foreach (string era in Eras)
            await Expect<McpException>(() => McpClient.ConnectHttpAsync(unreachable, era: era),
                e => e.Status == McpStatus.Transport && e.Message.Contains(unreachable), "[errors] " + era + ": an unreachable server is a Transport error");
        await Expect<McpException>(() => McpClient.ConnectStdioAsync(oxmcp, new[] { "no-such-subcommand" }),
            e => e.Status == McpStatus.Closed || e.Status == McpStatus.Transport || e.Status == McpStatus.Protocol, "[errors] a child that dies at start");
        var server = new McpServer("bad", "1");
        try
        {
            server.AddTool("{\"name\": 3}", (a, c, t) => Task.FromResult(""));
            Check(false, "[errors] a malformed tool is refused");
        }
        catch (McpException e)
        {
            Check(e.Status == McpStatus.InvalidInput, "[errors] a malformed tool is refused (" + e.Message + ")");
        }
        server.Dispose();
        server.Dispose();
        Check(true, "[errors] Dispose is idempotent");
    }

    /// <summary>
    /// A child server that crashes in the middle of several calls (`everything-server --stdio
    /// --with-crash-tool`, session era): three `slow` calls (20 s) and a `crash` call (after
    /// 200 ms the server writes "fatal: crash requested" to stderr and exits with status 3) in
    /// flight together. Each fails with McpStatus.Closed, its message carrying the exit status
    /// and that stderr line, within a few seconds; a call made afterwards fails Closed too.
    /// </summary>
    private static async Task EveryPendingCallFailsWithTheExitStatusAndStderrWhenTheServerCrashes(string oxmcp)
    {
        const string t = "[crash] ";
        using (McpClient client = await McpClient.ConnectStdioAsync(oxmcp, new[] { "everything-server", "--stdio", "--with-crash-tool" }, era: "session"))
        {
            var sw = Stopwatch.StartNew();
            Task<CallToolResult>[] calls =
            {
                client.CallToolAsync("slow", "{\"tag\": 1, \"ms\": 20000}"),
                client.CallToolAsync("slow", "{\"tag\": 2, \"ms\": 20000}"),
                client.CallToolAsync("slow", "{\"tag\": 3, \"ms\": 20000}"),
                client.CallToolAsync("crash", "{\"ms\": 200}"),
            };
            Task all = Task.WhenAll(calls);
            // Bounded: a hang is a failure, not a wait for the slow calls' 20 s.
            bool ended = await Task.WhenAny(all, Task.Delay(10000)) == all;
            long took = sw.ElapsedMilliseconds;
            Check(ended, t + "every pending call ended (" + took + " ms)");
            Check(took < 5000, t + "within 5 s (" + took + " ms)");
            for (int i = 0; i < calls.Length; i++)
            {
                string which = t + "call " + i + " (" + (i < 3 ? "slow" : "crash") + ")";
                var e = calls[i].IsFaulted ? calls[i].Exception.InnerException as McpException : null;
                Check(e != null && e.Status == McpStatus.Closed,
                    which + " fails with Closed (" + calls[i].Status + ": " + (calls[i].Exception != null ? calls[i].Exception.InnerException.ToString() : "no exception") + ")");
                Check(e != null && e.Message.Contains("exit status: 3") && e.Message.Contains("fatal: crash requested"),
                    which + ": the message carries the exit status and the stderr line (" + (e != null ? e.Message : "none") + ")");
            }
            await Expect<McpException>(() => client.CallToolAsync("echo", "{\"text\":\"x\"}", timeout: TimeSpan.FromSeconds(5)),
                e => e.Status == McpStatus.Closed, t + "a call after the crash fails with Closed");
        }
    }
}
