// Skills (the io.modelcontextprotocol/skills extension) and task options from C#: a C# server
// (a skill added with AddSkill, one read with AddSkillsDirectory from a temporary directory,
// tasks kept one second: not Python's 300 ms, which a busy machine's mono can miss) and a
// C# client in one process over Streamable HTTP, in one era.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using OxMcp;

internal static class SkillsTests
{
    private const string GitMd = "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n";
    private const string Naming = "feature/<ticket>-<slug>\n";
    private const string RefundsMd = "---\nname: refunds\ndescription: Refund requests\n---\nCheck the order first.\n";
    // Not UTF-8: served as a blob, read back byte for byte.
    private static readonly byte[] Blob = { 0x00, 0xff, 0x10, 0x80, (byte)'o', (byte)'k', 0x0a };
    private const string TasksMeta = "\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}";

    private static async Task<McpException> Failure(Func<Task> body)
    {
        try
        {
            await body();
            return null;
        }
        catch (McpException e)
        {
            return e;
        }
    }

    private static McpException Thrown(Action body)
    {
        try
        {
            body();
            return null;
        }
        catch (McpException e)
        {
            return e;
        }
    }

    private static string Describe(McpException e)
    {
        return e == null ? "no exception" : e.Status + " " + e.Code + ": " + e.Message;
    }

    /// <summary>The entry in a skills/list result whose uri is <paramref name="uri"/>, or null.</summary>
    private static object Entry(string listJson, string uri)
    {
        var skills = MiniJson.Parse(listJson) as List<object>; // every page's entries, one array
        return skills == null ? null : skills.FirstOrDefault(s => MiniJson.Str(s, "uri") == uri);
    }

    private static string Frontmatter(object entry, string key)
    {
        return MiniJson.Str(MiniJson.Get(entry, "frontmatter"), key);
    }

    internal static async Task Run(Action<bool, string> check, string era)
    {
        string t = "[skills/" + era + "] ";
        string root = Path.Combine(Path.GetTempPath(), "oxmcp-cs-skills-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Path.Combine(root, "acme", "refunds", "assets"));
        File.WriteAllText(Path.Combine(root, "acme", "refunds", "SKILL.md"), RefundsMd);
        File.WriteAllBytes(Path.Combine(root, "acme", "refunds", "assets", "blob.bin"), Blob);
        try
        {
            // Bad task options are refused at construction.
            McpException bad = Thrown(() => new McpServer("bad-tasks", "1", tasks: new McpTaskOptions { MaxTasks = -1 }).Dispose());
            check(bad != null && bad.Status == McpStatus.InvalidInput && bad.Message.Contains("invalid task options"),
                t + "a negative MaxTasks is InvalidInput (" + Describe(bad) + ")");
            bad = Thrown(() => new McpServer("bad-tasks", "1", tasks: new McpTaskOptions { PollInterval = TimeSpan.FromSeconds(-1) }).Dispose());
            check(bad != null && bad.Status == McpStatus.InvalidInput, t + "a negative PollInterval is InvalidInput (" + Describe(bad) + ")");

            var tasks = new McpTaskOptions { Ttl = TimeSpan.FromSeconds(1), PollInterval = TimeSpan.FromMilliseconds(50) };
            using (var server = new McpServer("cs-skills", "1.0.0", tasks: tasks))
            {
                server.AddTool("{\"name\":\"quick\",\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"taskSupport\":\"optional\"}}",
                    (args, ctx, ct) => Task.FromResult(McpJson.TextResult("done")));
                var files = new Dictionary<string, string> { { "SKILL.md", GitMd }, { "references/naming.md", Naming } };
                server.AddSkill("git-workflow", files);
                bad = Thrown(() => server.AddSkill("git-flow", files));
                check(bad != null && bad.Status == McpStatus.InvalidInput && bad.Message.Contains("must be its name"),
                    t + "a path whose last segment is not the skill's name is InvalidInput (" + Describe(bad) + ")");
                string empty = Path.Combine(root, "empty");
                Directory.CreateDirectory(empty);
                bad = Thrown(() => server.AddSkillsDirectory(empty));
                check(bad != null && bad.Status == McpStatus.InvalidInput && bad.Message.Contains("SKILL.md"),
                    t + "a directory without skills is InvalidInput (" + Describe(bad) + ")");
                server.AddSkillsDirectory(root);
                var steps = new System.Collections.Concurrent.ConcurrentQueue<string>();
                AddEscalating(server, steps);

                int port = server.StartHttp();
                var asked = new System.Collections.Concurrent.ConcurrentQueue<string>();
                var handlers = new McpClientHandlers
                {
                    Elicitation = (paramsJson, ct) =>
                    {
                        asked.Enqueue(MiniJson.Str(MiniJson.Parse(paramsJson), "message"));
                        return Task.FromResult("{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}");
                    },
                };
                var updated = new System.Collections.Concurrent.ConcurrentQueue<string>();
                EventHandler<McpNotification> onNotification = (sender, n) =>
                {
                    if (n.Method == "notifications/resources/updated") updated.Enqueue(MiniJson.Str(MiniJson.Parse(n.ParamsJson), "uri"));
                };
                using (McpClient client = await McpClient.ConnectHttpAsync("http://127.0.0.1:" + port + "/mcp", era: era, handlers: handlers,
                    onNotification: onNotification))
                {
                    await SkillCalls(check, t, client, server);
                    await TaskTtl(check, t, client);
                    await Escalation(check, t, client, steps, asked);
                    await FactsAndUpdates(check, t, client, server, updated);
                    await MountedClient(check, t, client, era);
                    bad = Thrown(() => server.AddTool("{\"name\":3}", (a, c, ct) => Task.FromResult("")));
                    check(bad != null && bad.Status == McpStatus.InvalidInput, t + "still a server that refuses bad input");
                }
                server.StopHttp();
            }
        }
        finally
        {
            Directory.Delete(root, true);
        }
    }

    /// <summary>
    /// "report" asks the user's name inline, escalates (recording what EscalateToTaskAsync
    /// answered) and answers "report for NAME"; "own_skill" reads its server's SKILL.md
    /// through its own request.
    /// </summary>
    private static void AddEscalating(McpServer server, System.Collections.Concurrent.ConcurrentQueue<string> steps)
    {
        server.AddTool("{\"name\":\"report\",\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"taskSupport\":\"optional\"},\"escalating\":true}",
            async (args, ctx, ct) =>
            {
                string answer = await ctx.ElicitAsync("{\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}", ct);
                bool escalated = await ctx.EscalateToTaskAsync(ct);
                steps.Enqueue("escalated=" + (escalated ? "true" : "false"));
                return McpJson.TextResult("report for " + MiniJson.Str(MiniJson.Get(MiniJson.Parse(answer), "content"), "name"));
            });
        server.AddTool("{\"name\":\"facts\",\"inputSchema\":{\"type\":\"object\"}}",
            (args, ctx, ct) => Task.FromResult(McpJson.TextResult(ctx.InfoJson)));
        server.AddTool("{\"name\":\"own_skill\",\"inputSchema\":{\"type\":\"object\"}}", async (args, ctx, ct) =>
        {
            string read = await ctx.ReadResourceAsync("skill://git-workflow/SKILL.md", ct);
            var contents = MiniJson.Get(MiniJson.Parse(read), "contents") as List<object>;
            return McpJson.TextResult(MiniJson.Str(contents[0], "text"));
        });
    }

    /// <summary>A handler reads its request's facts; a subscribed client hears of an updated resource; roots changes are told.</summary>
    private static async Task FactsAndUpdates(Action<bool, string> check, string t, McpClient client, McpServer server,
        System.Collections.Concurrent.ConcurrentQueue<string> updated)
    {
        object facts = MiniJson.Parse(Text(await client.CallToolAsync("facts", null)));
        check(MiniJson.Str(MiniJson.Get(facts, "clientInfo"), "name") == "oxmcp-dotnet" && MiniJson.Str(facts, "protocolVersion") != null
            && MiniJson.Str(MiniJson.Get(facts, "headers"), "host") != null, t + "a handler reads its request's facts: " + MiniJson.Write(facts));
        const string uri = "skill://git-workflow/SKILL.md";
        await client.SubscribeAsync(uri);
        for (int i = 0; i < 100 && !updated.Contains(uri); i++)
        {
            server.NotifyResourceUpdated(uri);
            await Task.Delay(50);
        }
        check(updated.Contains(uri), t + "the subscribed client heard that " + uri + " changed");
        await client.UnsubscribeAsync(uri);
        client.NotifyRootsChanged(); // throws if the engine refuses it
    }

    /// <summary>A second server mounts the client's connection; a second client calls the first server through it.</summary>
    private static async Task MountedClient(Action<bool, string> check, string t, McpClient client, string era)
    {
        using (var front = new McpServer("cs-front", "1.0.0"))
        {
            McpException self = Thrown(() => front.Mount("me", front));
            check(self != null && self.Status == McpStatus.InvalidInput, t + "a server cannot mount itself (" + Describe(self) + ")");
            await front.MountClientAsync("remote", client);
            int port = front.StartHttp();
            using (McpClient second = await McpClient.ConnectHttpAsync("http://127.0.0.1:" + port + "/mcp", era: era))
            {
                CallToolResult own = await second.CallToolAsync("remote_own_skill", null);
                check(Text(own) == GitMd, t + "a call through the mounted client reaches the first server: " + own);
            }
            front.StopHttp();
        }
    }

    /// <summary>A call as a task asks inline, escalates and is followed to completed; a plain call stays inline.</summary>
    private static async Task Escalation(Action<bool, string> check, string t, McpClient client,
        System.Collections.Concurrent.ConcurrentQueue<string> steps, System.Collections.Concurrent.ConcurrentQueue<string> asked)
    {
        var statuses = new System.Collections.Concurrent.ConcurrentQueue<string>();
        CallToolResult result = await client.CallToolAsTaskAsync("report", null, default(System.Threading.CancellationToken), Program.Reports(p => statuses.Enqueue(p.Message)));
        check(Text(result) == "report for Ada", t + "an escalated call's result is the task's: " + result);
        check(string.Join(",", asked) == "Name?", t + "the question was asked once, inline: " + string.Join(",", asked));
        check(string.Join(",", steps) == "escalated=true", t + "the call as a task escalated: " + string.Join(",", steps));
        check(statuses.LastOrDefault() == "completed" && !statuses.Contains("input_required"),
            t + "followed to completed with no input_required: " + string.Join(",", statuses));
        CallToolResult plain = await client.CallToolAsync("report", null);
        check(Text(plain) == "report for Ada" && steps.LastOrDefault() == "escalated=false",
            t + "a plain call stays inline: " + plain + " " + string.Join(",", steps));
        CallToolResult own = await client.CallToolAsync("own_skill", null);
        check(Text(own) == GitMd, t + "a handler reads its server's own resource: " + own);
    }

    private static string Text(CallToolResult result)
    {
        var first = result.Content.FirstOrDefault() as TextContentBlock;
        return first == null ? null : first.Text;
    }

    private static async Task SkillCalls(Action<bool, string> check, string t, McpClient client, McpServer server)
    {
        string list = await client.ListSkillsAsync();
        var skills = MiniJson.Parse(list) as List<object>;
        check(skills != null && skills.Count == 2, t + "two skills listed: " + list);
        object git = Entry(list, "skill://git-workflow/SKILL.md");
        check(Frontmatter(git, "name") == "git-workflow" && Frontmatter(git, "description") == "Our Git conventions",
            t + "the skill added with AddSkill, with its frontmatter: " + list);
        object refunds = Entry(list, "skill://acme/refunds/SKILL.md");
        check(Frontmatter(refunds, "name") == "refunds" && Frontmatter(refunds, "description") == "Refund requests",
            t + "the skill read from the directory, at its relative path: " + list);
        string gitEntry = MiniJson.Write(git), refundsEntry = MiniJson.Write(refunds);

        string got = await client.GetSkillAsync("skill://git-workflow/SKILL.md");
        check(MiniJson.Equal(MiniJson.Parse(got), git), t + "GetSkillAsync gives the listed entry: " + got);
        McpException e = await Failure(() => client.GetSkillAsync("skill://nope/SKILL.md"));
        check(e != null && e.Status == McpStatus.Rpc && e.Code == -32602, t + "an unknown skill is -32602 (" + Describe(e) + ")");

        string dir = await client.ReadDirectoryAsync("skill://git-workflow");
        var children = MiniJson.Parse(dir) as List<object>;
        check(children != null && children.Count == 2
              && children.Any(c => MiniJson.Str(c, "uri") == "skill://git-workflow/SKILL.md" && MiniJson.Str(c, "mimeType") == "text/markdown")
              && children.Any(c => MiniJson.Str(c, "uri") == "skill://git-workflow/references" && MiniJson.Str(c, "mimeType") == "inode/directory"),
            t + "the skill's root holds SKILL.md and references/ (a directory): " + dir);

        McpLoadedSkill loaded = await client.LoadSkillAsync("skill://git-workflow/SKILL.md", gitEntry);
        check(loaded.Markdown == GitMd, t + "the loaded markdown is SKILL.md: " + loaded.Markdown);
        check(MiniJson.Equal(MiniJson.Parse(loaded.SkillJson), git), t + "with its entry: " + loaded.SkillJson);
        loaded = await client.LoadSkillAsync("skill://acme/refunds/SKILL.md");
        check(loaded.Markdown == RefundsMd, t + "loaded by URI alone: " + loaded.Markdown);
        string stale = "{\"uri\":\"skill://git-workflow/SKILL.md\",\"frontmatter\":{\"name\":\"git-workflow\",\"description\":\"Old\"},\"resources\":\"dynamic\"}";
        e = await Failure(() => client.LoadSkillAsync("skill://git-workflow/SKILL.md", stale));
        check(e != null && e.Status == McpStatus.Protocol, t + "a SKILL.md unlike its entry is Protocol (" + Describe(e) + ")");

        byte[] naming = await client.ReadSkillFileAsync("references/naming.md", gitEntry);
        check(naming.SequenceEqual(System.Text.Encoding.UTF8.GetBytes(Naming)), t + "references/naming.md read back (" + naming.Length + " bytes)");
        byte[] blob = await client.ReadSkillFileAsync("skill://acme/refunds/assets/blob.bin", refundsEntry);
        check(blob.SequenceEqual(Blob), t + "a binary file from the directory read back (" + blob.Length + " bytes)");
        e = await Failure(() => client.ReadSkillFileAsync("references/missing.md", gitEntry));
        check(e != null && e.Status == McpStatus.Protocol, t + "a file the entry does not list is Protocol (" + Describe(e) + ")");

        server.AddSkill("late", new Dictionary<string, string> { { "SKILL.md", "---\nname: late\ndescription: Added while serving\n---\nHi.\n" } });
        list = await client.ListSkillsAsync();
        check(Entry(list, "skill://late/SKILL.md") != null, t + "a skill added while serving is listed: " + list);
    }

    /// <summary>A task is kept Ttl (1 s) after its creation: then tasks/get answers -32602.</summary>
    private static async Task TaskTtl(Action<bool, string> check, string t, McpClient client)
    {
        string created = await client.RequestAsync("tools/call", "{\"name\":\"quick\",\"arguments\":{}," + TasksMeta + "}");
        object task = MiniJson.Parse(created);
        check(MiniJson.Str(task, "resultType") == "task" && MiniJson.Get(task, "pollIntervalMs") as double? == 50,
            t + "the call made a task polled every 50 ms: " + created);
        string get = "{\"taskId\":" + McpJson.Quote(MiniJson.Str(task, "taskId")) + "," + TasksMeta + "}";
        string status = null, last = null;
        for (int i = 0; i < 100 && status != "completed"; i++)
        {
            last = await client.RequestAsync("tasks/get", get);
            status = MiniJson.Str(MiniJson.Parse(last), "status");
            if (status != "completed") await Task.Delay(20);
        }
        object text;
        check(status == "completed" && MiniJson.TryPath(MiniJson.Parse(last), "result.content.0.text", out text) && (string)text == "done",
            t + "the task completed with the tool's result: " + last);
        await Task.Delay(1200);
        McpException e = await Failure(() => client.RequestAsync("tasks/get", get));
        check(e != null && e.Status == McpStatus.Rpc && e.Code == -32602 && e.Message.Contains("unknown task"),
            t + "past its TTL the task is gone (" + Describe(e) + ")");
    }
}
