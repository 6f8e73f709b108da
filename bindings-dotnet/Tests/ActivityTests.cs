using System;
using System.Reflection;
using System.Threading;
using System.Threading.Tasks;
using OxMcp;

/// <summary>
/// The engine's spans joined to System.Diagnostics.Activity, on a runtime that has it (.NET
/// Core; run-tests.sh runs this mode under the .NET Core runtime of PyPI's dotnetcore2, mono
/// has no Activity). Activity is reached by reflection because the tests compile with mono's
/// mcs, whose framework lacks it. The engine's telemetry stays off, so the trace context the
/// engine hands on is exactly the one the host gave: a client call inside an activity reaches
/// the server's handler with that activity's id, the handler runs in an activity that is its
/// child, the handler's own activities nest under that one, and a client's sampling handler
/// runs under the trace of the server's request.
/// </summary>
internal static class ActivityTests
{
    private static readonly Type ActivityType = Type.GetType("System.Diagnostics.Activity, System.Diagnostics.DiagnosticSource", false);

    private static object Current()
    {
        return ActivityType.GetProperty("Current").GetValue(null, null);
    }

    private static string Get(object activity, string property)
    {
        object v = activity == null ? null : ActivityType.GetProperty(property).GetValue(activity, null);
        return v == null ? null : v.ToString();
    }

    private static object StartActivity(string name)
    {
        object a = Activator.CreateInstance(ActivityType, name);
        ActivityType.GetMethod("Start", Type.EmptyTypes).Invoke(a, null);
        return a;
    }

    private static void StopActivity(object a)
    {
        ActivityType.GetMethod("Stop", Type.EmptyTypes).Invoke(a, null);
    }

    /// <summary>In a handler: the facts of the activity it runs in, and of a child it starts.</summary>
    private static string Facts(McpRequestContext ctx)
    {
        object mine = Current();
        object child = StartActivity("user work");
        string childParent = Get(child, "ParentId");
        StopActivity(child);
        var info = MiniJson.Parse(ctx.InfoJson) as System.Collections.Generic.Dictionary<string, object>;
        object given;
        info.TryGetValue("traceparent", out given);
        return string.Join("|", Get(mine, "Id") ?? "", Get(mine, "ParentId") ?? "", Get(mine, "TraceStateString") ?? "",
            childParent ?? "", given as string ?? "");
    }

    internal static int Run(Action<bool, string> check)
    {
        if (ActivityType == null)
        {
            check(false, "this runtime has System.Diagnostics.Activity (run under .NET Core, not mono)");
            return 1;
        }
        // .NET Core 3.x makes hierarchical ids by default; W3C is what crosses (the default from .NET 5).
        Type format = Type.GetType("System.Diagnostics.ActivityIdFormat, System.Diagnostics.DiagnosticSource");
        ActivityType.GetProperty("DefaultIdFormat").SetValue(null, Enum.Parse(format, "W3C"), null);
        ActivityType.GetProperty("ForceDefaultIdFormat").SetValue(null, true, null);
        RunAsync(check).GetAwaiter().GetResult();
        return 0;
    }

    private static async Task RunAsync(Action<bool, string> check)
    {
        string sampledUnder = null;
        using (var server = new McpServer("activity-server", "1.0"))
        {
            server.AddTool("where", "the handler's activity", "{\"type\":\"object\"}",
                (args, ctx, ct) => Task.FromResult(McpJson.TextResult(Facts(ctx))));
            server.AddTool("ask", "asks the client's model", "{\"type\":\"object\"}", async (args, ctx, ct) =>
            {
                await ctx.SampleAsync("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}],\"maxTokens\":5}", ct);
                return McpJson.TextResult("asked");
            });
            int port = server.StartHttp();
            var handlers = new McpClientHandlers
            {
                Sampling = (p, ct) =>
                {
                    sampledUnder = Get(Current(), "ParentId");
                    return Task.FromResult("{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"ok\"},\"model\":\"m\"}");
                },
            };
            foreach (string era in new[] { "session", "stateless" })
            using (var client = await McpClient.ConnectHttpAsync("http://127.0.0.1:" + port + "/mcp", handlers: handlers, era: era))
            {
                sampledUnder = null;
                // Outside any activity: nothing to continue, and the handler runs in none.
                string[] bare = (await client.CallToolAsync("where")).Text.Split('|');
                check(bare[0] == "" && bare[4] == "", "[activity, " + era + "] a call outside any activity gives the handler no trace and no activity");

                object caller = StartActivity("caller");
                ActivityType.GetProperty("TraceStateString").SetValue(caller, "vendor=1", null);
                string callerId = Get(caller, "Id"), traceId = Get(caller, "TraceId");
                string[] f = (await client.CallToolAsync("where")).Text.Split('|');
                check(f[4] == callerId, "[activity, " + era + "] a client call inside an activity continues its trace (the handler is given " + f[4] + ", the caller is " + callerId + ")");
                check(f[1] == f[4], "[activity, " + era + "] the handler runs in an activity whose parent is the engine's span for the request");
                check(f[0].Contains(traceId) && f[0] != callerId, "[activity, " + era + "] the handler's activity is a new span of the caller's trace");
                check(f[2] == "vendor=1", "[activity, " + era + "] the handler's activity carries the caller's tracestate");
                check(f[3] == f[0], "[activity, " + era + "] an activity the handler starts nests under the handler's");

                await client.CallToolAsync("ask");
                check(sampledUnder == callerId, "[activity, " + era + "] a client's sampling handler runs in the span the server's request names (" + sampledUnder + ")");
                StopActivity(caller);
                check(Current() == null, "[activity, " + era + "] once the caller's activity stops none is current (the calls left none behind)");
            }
        }
    }
}
