// The C# runner of the shared behaviour suite (tests/scenarios/README.md): reads
// scenarios.json, spawns the C# scenario server (`OxMcp.Tests.exe scenario-server`, over
// stdio) once per era, sends each scenario's raw request with McpClient.RequestAsync and
// checks `expect`: one check per scenario and era, named "<scenario name> [<era>]".
//
// The client's McpClientHandlers answer the server: sampling with "maxTokens=<the request's
// maxTokens>", elicitation with accept {"name": "ada"}, roots with file:///scenario/root; a
// sampling prompt "hold" waits for its CancellationToken and records that it fired. Error
// kinds are McpException.Status as the engine's kind name (McpStatus.CapabilityMissing is
// "capability_missing"); a Task cancelled by our own token is "cancelled".
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using System.Threading;
using System.Threading.Tasks;
using OxMcp;

internal static class Scenarios
{
    private static readonly string[] DefaultEras = { "session", "stateless" };

    /// <summary>scenarios.json: $OXMCP_SCENARIOS, else tests/scenarios/ above this assembly.</summary>
    internal static string Locate()
    {
        string env = Environment.GetEnvironmentVariable("OXMCP_SCENARIOS");
        if (!string.IsNullOrEmpty(env)) return env;
        for (var dir = new DirectoryInfo(Path.GetDirectoryName(typeof(Scenarios).Assembly.Location)); dir != null; dir = dir.Parent)
        {
            string candidate = Path.Combine(dir.FullName, "tests", "scenarios", "scenarios.json");
            if (File.Exists(candidate)) return candidate;
        }
        throw new FileNotFoundException("tests/scenarios/scenarios.json not found above " + typeof(Scenarios).Assembly.Location);
    }

    /// <summary>The engine's kind name of a status: CapabilityMissing is capability_missing.</summary>
    internal static string KindName(McpStatus status)
    {
        return Regex.Replace(status.ToString(), "(?<=[a-z])([A-Z])", "_$1").ToLowerInvariant();
    }

    /// <summary>What the client's handlers saw of the "hold" sampling request.</summary>
    private sealed class Hold
    {
        internal readonly TaskCompletionSource<bool> Held = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        internal readonly TaskCompletionSource<bool> Cancelled = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
    }

    private static Hold _hold = new Hold();

    private static McpClientHandlers Handlers()
    {
        return new McpClientHandlers
        {
            Sampling = async (p, ct) =>
            {
                object request = MiniJson.Parse(p);
                object first = (MiniJson.Get(request, "messages") as List<object> ?? new List<object>()).FirstOrDefault();
                object content = MiniJson.Get(first, "content");
                var blocks = content as List<object>;
                if (blocks != null) content = blocks.FirstOrDefault();
                if (MiniJson.Str(content, "text") == "hold")
                {
                    Hold hold = _hold;
                    hold.Held.TrySetResult(true);
                    try
                    {
                        await Task.Delay(Timeout.Infinite, ct);
                    }
                    catch (OperationCanceledException)
                    {
                        hold.Cancelled.TrySetResult(true);
                        throw;
                    }
                }
                string text = "maxTokens=" + MiniJson.Write(MiniJson.Get(request, "maxTokens"));
                return "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":" + McpJson.Quote(text) + "},\"model\":\"scenario\"}";
            },
            Elicitation = (p, ct) => Task.FromResult("{\"action\":\"accept\",\"content\":{\"name\":\"ada\"}}"),
            Roots = (p, ct) => Task.FromResult("{\"roots\":[{\"uri\":\"file:///scenario/root\",\"name\":\"root\"}]}"),
        };
    }

    /// <summary>Runs every scenario in each of its eras; <paramref name="check"/> counts one test per scenario and era.</summary>
    internal static async Task Run(Action<bool, string> check)
    {
        string path = Locate();
        var doc = MiniJson.Parse(File.ReadAllText(path));
        var scenarios = MiniJson.Get(doc, "scenarios") as List<object>;
        check(scenarios != null && scenarios.Count > 0, "[scenarios] " + path + " lists scenarios");
        if (scenarios == null) return;
        string self = typeof(Scenarios).Assembly.Location;
        foreach (string era in DefaultEras)
        {
            var mine = scenarios.Where(s => InEra(s, era)).ToList();
            McpClient client;
            try
            {
                client = await McpClient.ConnectStdioAsync("mono", new[] { self, "scenario-server" }, era: era, handlers: Handlers());
            }
            catch (Exception e)
            {
                foreach (object s in mine) check(false, MiniJson.Str(s, "name") + " [" + era + "]: connect failed: " + e.Message);
                continue;
            }
            using (client)
            {
                if (client.Era != era)
                {
                    foreach (object s in mine) check(false, MiniJson.Str(s, "name") + " [" + era + "]: the connection settled on " + client.Era);
                    continue;
                }
                foreach (object scenario in mine)
                {
                    string why;
                    try
                    {
                        why = await RunOne(client, scenario);
                    }
                    catch (Exception e)
                    {
                        why = "the runner failed: " + e;
                    }
                    check(why == null, MiniJson.Str(scenario, "name") + " [" + era + "]" + (why == null ? "" : ": " + why));
                }
                await client.CloseAsync();
            }
        }
    }

    private static bool InEra(object scenario, string era)
    {
        var eras = MiniJson.Get(scenario, "eras") as List<object>;
        return eras == null || eras.Contains(era);
    }

    /// <summary>Runs one scenario; a failure description, or null.</summary>
    private static async Task<string> RunOne(McpClient client, object scenario)
    {
        string method = MiniJson.Str(scenario, "method");
        var expect = MiniJson.Get(scenario, "expect") as Dictionary<string, object>;
        if (method == null || expect == null) return "malformed scenario (method and expect are required)";
        string paramsJson = MiniJson.Write(MiniJson.Get(scenario, "params") ?? new Dictionary<string, object>());
        string special = MiniJson.Str(scenario, "special");
        if (special == "cancel_during_sampling") return await CancelDuringSampling(client, method, paramsJson, expect);
        if (special != null && special != "call_as_task" && special != "set_level" && special != "connect_refused") return "unknown special " + special;

        string result = null;
        Exception error = null;
        try
        {
            if (special == "call_as_task")
            {
                // The host's own way to run a call as a task and wait for its end.
                object p = MiniJson.Get(scenario, "params");
                object args = MiniJson.Get(p, "arguments");
                result = (await client.CallToolAsTaskAsync(MiniJson.Str(p, "name"), args == null ? null : MiniJson.Write(args))).Json;
            }
            else if (special == "set_level")
            {
                // The host's own call, with its own per-call timeout.
                double ms = (double)MiniJson.Get(scenario, "timeout_ms");
                await client.SetLogLevelAsync(MiniJson.Str(MiniJson.Get(scenario, "params"), "level"), timeout: TimeSpan.FromMilliseconds(ms));
                result = "{}";
            }
            else if (special == "connect_refused")
            {
                string url = MiniJson.Str(MiniJson.Get(scenario, "params"), "url");
                using (await McpClient.ConnectHttpAsync(url, era: client.Era)) result = "{}";
            }
            else
            {
                result = await client.RequestAsync(method, paramsJson, timeout: TimeSpan.FromSeconds(30));
            }
        }
        catch (Exception e)
        {
            error = e;
        }
        return Judge(method, expect, result, error);
    }

    private static string Judge(string method, Dictionary<string, object> expect, string resultJson, Exception error)
    {
        object wantError;
        if (expect.TryGetValue("error", out wantError))
        {
            if (error == null) return "expected an error, got the result " + resultJson;
            var mcp = error as McpException;
            string kind = mcp != null ? KindName(mcp.Status) : error is OperationCanceledException ? "cancelled" : error.GetType().Name;
            long? code = mcp != null ? mcp.Code : null;
            foreach (var kv in (Dictionary<string, object>)wantError)
            {
                if (kv.Key == "kind")
                {
                    if (kind != (string)kv.Value) return "error kind " + kind + ", expected " + kv.Value + " (" + error.Message + ")";
                }
                else if (kv.Key == "code")
                {
                    if (code == null || code.Value != (double)kv.Value)
                        return "error code " + (code == null ? "none" : code.Value.ToString()) + ", expected " + MiniJson.Write(kv.Value) + " (" + error.Message + ")";
                }
                else if (kv.Key == "data")
                {
                    string data = mcp != null ? mcp.DataJson : null;
                    if (data == null || !MiniJson.Equal(MiniJson.Parse(data), kv.Value))
                        return "error data " + (data ?? "none") + ", expected " + MiniJson.Write(kv.Value) + " (" + error.Message + ")";
                }
                else if (kv.Key == "message_contains")
                {
                    if (!error.Message.Contains((string)kv.Value)) return "error message \"" + error.Message + "\" does not contain " + MiniJson.Write(kv.Value);
                }
                else return "unknown error matcher " + kv.Key;
            }
            return null;
        }
        if (error != null) return "failed: " + error.GetType().Name + (error is McpException ? " " + ((McpException)error).Status : "") + ": " + error.Message;

        object result = MiniJson.Parse(resultJson);
        string text = TextOf(method, result);
        foreach (var kv in expect)
        {
            switch (kv.Key)
            {
                case "text":
                    if (text != (string)kv.Value) return "text " + (text == null ? "(none)" : McpJson.Quote(text)) + ", expected " + McpJson.Quote((string)kv.Value);
                    break;
                case "contains":
                    if (text == null || !text.Contains((string)kv.Value)) return "text " + (text == null ? "(none)" : McpJson.Quote(text)) + " does not contain " + McpJson.Quote((string)kv.Value);
                    break;
                case "isError":
                    bool isError = MiniJson.Get(result, "isError") as bool? ?? false;
                    if (isError != (bool)kv.Value) return "isError is " + (isError ? "true" : "false");
                    break;
                case "at":
                    foreach (var at in (Dictionary<string, object>)kv.Value)
                    {
                        object found;
                        bool there = MiniJson.TryPath(result, at.Key, out found);
                        if (!there || !MiniJson.Equal(found, at.Value))
                            return "at " + at.Key + ": " + (there ? MiniJson.Write(found) : "(nothing)") + ", expected " + MiniJson.Write(at.Value);
                    }
                    break;
                case "count":
                {
                    var pair = (List<object>)kv.Value;
                    object found;
                    MiniJson.TryPath(result, (string)pair[0], out found);
                    var arr = found as List<object>;
                    if (arr == null || arr.Count != (double)pair[1])
                        return "count of " + pair[0] + ": " + (arr == null ? "no array" : arr.Count.ToString()) + ", expected " + MiniJson.Write(pair[1]);
                    break;
                }
                case "present":
                case "absent":
                {
                    var pair = (List<object>)kv.Value;
                    object found;
                    MiniJson.TryPath(result, (string)pair[0], out found);
                    var arr = found as List<object>;
                    if (arr == null) return kv.Key + ": no array at " + pair[0];
                    bool has = arr.Any(item => MiniJson.Str(item, "name") == (string)pair[1]);
                    if (has != (kv.Key == "present")) return pair[0] + " " + pair[1] + " is " + (has ? "present" : "absent");
                    break;
                }
                default:
                    return "unknown matcher " + kv.Key;
            }
        }
        return null;
    }

    /// <summary>
    /// The result's text: tools join the text blocks of <c>content</c>, resources take
    /// <c>contents[0].text</c>, prompts <c>messages[0].content.text</c>.
    /// </summary>
    private static string TextOf(string method, object result)
    {
        switch (method)
        {
            case "tools/call":
                var content = MiniJson.Get(result, "content") as List<object>;
                return content == null ? null : string.Concat(content.Where(b => MiniJson.Str(b, "type") == "text").Select(b => MiniJson.Str(b, "text")));
            case "resources/read":
                return MiniJson.Str((MiniJson.Get(result, "contents") as List<object> ?? new List<object>()).FirstOrDefault(), "text");
            case "prompts/get":
                return MiniJson.Str(MiniJson.Get((MiniJson.Get(result, "messages") as List<object> ?? new List<object>()).FirstOrDefault(), "content"), "text");
            default:
                return null;
        }
    }

    /// <summary>
    /// special "cancel_during_sampling": starts the call, waits until the client's sampling
    /// handler holds the "hold" request, cancels the call, and expects the handler's token to
    /// fire within 10 s (<c>handler_cancelled</c>).
    /// </summary>
    private static async Task<string> CancelDuringSampling(McpClient client, string method, string paramsJson, Dictionary<string, object> expect)
    {
        var hold = new Hold();
        _hold = hold;
        bool seen = false;
        using (var cts = new CancellationTokenSource())
        {
            Task<string> call = client.RequestAsync(method, paramsJson, cts.Token);
            bool held = await Task.WhenAny(hold.Held.Task, Task.Delay(30000)) == hold.Held.Task;
            cts.Cancel();
            if (!held) return "the sampling request never reached the client's handler";
            seen = await Task.WhenAny(hold.Cancelled.Task, Task.Delay(10000)) == hold.Cancelled.Task;
            try { await call; } catch (Exception) { } // cancelled: only the handler's side is checked
        }
        foreach (var kv in expect)
        {
            if (kv.Key != "handler_cancelled") return "unknown matcher " + kv.Key;
            if (seen != (bool)kv.Value) return "handler_cancelled is " + (seen ? "true" : "false (no cancel within 10 s)");
        }
        return null;
    }
}
