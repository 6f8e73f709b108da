// Tools, resources and prompts from attributed methods (WithTools, WithResources,
// WithPrompts) and the typed client: a C# server and client in one process over HTTP, each
// era. The derived schemas keep the specification's Tool shape (checked here, and by ajv
// against schema.json in run-tests.sh from the file OXMCP_TYPED_TOOLS names); each call
// reaches its method with the values the client sent, read into the parameters' types.
using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using OxMcp;

public enum Level { Low, Medium, High }

public sealed class Address
{
    public Address(string city, [Description("postal code")] string zip = null)
    {
        City = city;
        Zip = zip;
    }
    public string City { get; }
    public string Zip { get; }
}

public sealed class Person
{
    public Person(string name, int age, Address address, List<string> tags = null, Level level = Level.Medium)
    {
        Name = name; Age = age; Address = address; Tags = tags; Level = level;
    }
    [Description("full name")] public string Name { get; }
    public int Age { get; }
    public Address Address { get; }
    public List<string> Tags { get; }
    public Level Level { get; }
}

/// <summary>A settable class: nothing required but what [Required]-style attributes say.</summary>
public sealed class Options
{
    public bool Verbose { get; set; }
    public double Ratio { get; set; } = 0.5;
    public string[] Names { get; set; }
}

public sealed class Summary
{
    public string Text { get; set; }
    public int Count { get; set; }
    public double? Score { get; set; }
    public Level Level { get; set; }
}

public sealed class Ask
{
    [Description("your name")] public string Name { get; set; }
    public bool Sure { get; set; }
    public Level? Level { get; set; }
}

internal sealed class SelfRef { public SelfRef Next { get; set; } }

internal sealed class RecursiveTools
{
    [McpTool] public static int Walk(SelfRef start) { return 0; }
}

internal sealed class NoTools { public static int Nothing() { return 0; } }

public static class StaticTools
{
    internal static readonly List<string> Seen = new List<string>();

    [McpTool("add_numbers", Title = "Add", ReadOnly = true), Description("Adds two numbers")]
    public static long Add([Description("the first")] long a, long b = 2) { return a + b; }

    [McpTool(UseStructuredContent = true), Description("Squares")]
    public static double Square(double x) { return x * x; }

    [McpTool, Description("Everything a parameter can be")]
    public static Summary Describe(string text, bool flag, int count, float ratio, decimal price, Level level, Person person,
        int[] numbers, List<Address> places, Dictionary<string, int> scores, int? maybe = null, Level? optionalLevel = null,
        string note = "none", Options options = null)
    {
        lock (Seen)
            Seen.Add(string.Join("|", text, flag, count, ratio.ToString(System.Globalization.CultureInfo.InvariantCulture),
                price.ToString(System.Globalization.CultureInfo.InvariantCulture), level, person.Name, person.Age, person.Address.City,
                person.Address.Zip ?? "-", string.Join(",", person.Tags ?? new List<string>()), person.Level, string.Join(",", numbers),
                string.Join(",", places.Select(p => p.City)), string.Join(",", scores.OrderBy(k => k.Key).Select(k => k.Key + "=" + k.Value)),
                maybe.HasValue ? maybe.Value.ToString() : "null", optionalLevel.HasValue ? optionalLevel.Value.ToString() : "null", note,
                options == null ? "null" : options.Verbose + "/" + options.Ratio.ToString(System.Globalization.CultureInfo.InvariantCulture) + "/" + string.Join(",", options.Names ?? new string[0])));
        return new Summary { Text = text.ToUpperInvariant(), Count = count, Score = maybe, Level = level };
    }

    [McpTool, Description("Waits, reporting progress, until done or cancelled")]
    public static async Task Work(int steps, IProgress<McpProgress> progress, IProgress<int> plain, McpRequestContext ctx, CancellationToken ct)
    {
        if (steps < 0)
        {
            try { await Task.Delay(Timeout.Infinite, ct); }
            catch (OperationCanceledException) { lock (Seen) Seen.Add("work cancelled, ctx says " + ctx.IsCancelled); throw; }
        }
        for (int i = 1; i <= steps; i++)
        {
            if (i % 2 == 1) progress.Report(new McpProgress(i, steps, "step " + i));
            else plain.Report(i);
            await Task.Delay(20, ct);
        }
    }

    [McpTool, Description("Throws")]
    public static string Fail(string why) { throw new InvalidOperationException("failed: " + why); }

    [McpTool, Description("Throws a JSON-RPC error")]
    public static string Refuse() { throw new McpException(-32042, "refused", "{\"why\":1}"); }

    [McpTool, Description("Returns content blocks")]
    public static List<ContentBlock> Blocks()
    {
        return new List<ContentBlock> { new TextContentBlock("one"), new ImageContentBlock(new byte[] { 1, 2, 3 }, "image/png") };
    }

    [McpTool, Description("Asks the user")]
    public static async Task<string> Confirm(string question, McpRequestContext ctx, CancellationToken ct)
    {
        McpElicitResult<Ask> answer = await ctx.ElicitAsync<Ask>(question, ct);
        return answer.IsAccepted ? answer.Content.Name + " " + answer.Content.Sure + " " + answer.Content.Level : answer.Action;
    }

    [McpResource("typed://static", MimeType = "text/plain"), Description("A fixed resource")]
    public static string Fixed() { return "fixed text"; }

    [McpResource("typed://items/{id}/{part}"), Description("An item's part")]
    public static object Item(int id, string part, string uri) { return new { id = id, part = part, uri = uri }; }

    [McpResource("typed://bytes/{n}", MimeType = "application/octet-stream")]
    public static byte[] Bytes(int n) { return Enumerable.Range(0, n).Select(i => (byte)i).ToArray(); }

    [McpPrompt(Title = "Greeting"), Description("Greets someone")]
    public static string Greet([Description("who")] string name, int times = 1, Level level = Level.Low)
    {
        return string.Join(" ", Enumerable.Repeat("hello " + name, times)) + " (" + level + ")";
    }

    [McpPrompt]
    public static IEnumerable<PromptMessage> Dialogue(string topic)
    {
        return new[] { PromptMessage.User("tell me about " + topic), PromptMessage.Assistant("here is " + topic) };
    }
}

/// <summary>Instance methods: on one instance (WithTools(instance)) or a new one per call (WithTools&lt;T&gt;()).</summary>
public sealed class Counter : IDisposable
{
    internal static int Disposed;
    private int _count;

    [McpTool, Description("Counts the calls on this instance")]
    public int Count() { return ++_count; }

    public void Dispose() { Interlocked.Increment(ref Disposed); }
}

internal static class TypedTests
{
    private static readonly string[] Eras = { "auto", "session", "stateless" };

    internal static async Task Run(Action<bool, string> check)
    {
        Refusals(check);
        foreach (string era in Eras) await Era(check, era);
    }

    /// <summary>What no schema describes is refused at registration, by name.</summary>
    private static void Refusals(Action<bool, string> check)
    {
        using (var server = new McpServer("refusals", "1.0.0"))
        {
            try
            {
                server.WithTools<RecursiveTools>();
                check(false, "[typed] a recursive type is refused");
            }
            catch (ArgumentException e)
            {
                check(e.Message.Contains("Walk") && e.Message.Contains("SelfRef") && e.Message.Contains("itself"), "[typed] a recursive type is refused by name: " + e.Message);
            }
            try
            {
                server.WithTools<NoTools>();
                check(false, "[typed] a type without [McpTool] is refused");
            }
            catch (ArgumentException e)
            {
                check(e.Message.Contains("NoTools"), "[typed] a type without [McpTool] is refused: " + e.Message);
            }
        }
    }

    private static async Task Era(Action<bool, string> check, string era)
    {
        string t = "[typed/" + era + "] ";
        var counter = new Counter();
        using (var server = new McpServer("typed", "1.0.0")
            .WithTools(typeof(StaticTools)).WithResources(typeof(StaticTools)).WithPrompts(typeof(StaticTools)))
        using (var perInstance = new McpServer("counters", "1.0.0").WithTools(counter))
        using (var perCall = new McpServer("counters", "1.0.0").WithTools<Counter>())
        {
            server.Mount("one", perInstance);
            server.Mount("fresh", perCall);
            int port = await server.StartHttpAsync();
            var handlers = new McpClientHandlers
            {
                Elicitation = (p, ct) => Task.FromResult(p.Contains("\"sure\"") && p.Contains("\"your name\"")
                    ? "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\",\"sure\":true,\"level\":\"High\"}}"
                    : "{\"action\":\"decline\"}"),
            };
            using (McpClient client = await McpClient.ConnectHttpAsync("http://127.0.0.1:" + port + "/mcp", era: era, handlers: handlers))
            {
                IList<Tool> tools = await client.ListToolsAsync();
                if (era == "auto") WriteTools(tools);
                foreach (Tool tool in tools)
                {
                    string why = ToolShape(tool);
                    check(why == null, t + tool.Name + " has the specification's Tool shape" + (why == null ? "" : ": " + why + " in " + tool.Json));
                }
                Tool add = tools.First(x => x.Name == "add_numbers");
                check(add.Title == "Add" && add.Description == "Adds two numbers" && add.Json.Contains("\"readOnlyHint\":true"), t + "name, title, description and annotations from [McpTool]: " + add.Json);
                object addIn = MiniJson.Parse(add.InputSchemaJson);
                check(MiniJson.Write(MiniJson.Get(addIn, "required")) == "[\"a\"]" && MiniJson.Str(MiniJson.Get(MiniJson.Get(addIn, "properties"), "a"), "description") == "the first"
                    && MiniJson.Write(MiniJson.Get(MiniJson.Get(MiniJson.Get(addIn, "properties"), "b"), "default")) == "2" && add.OutputSchemaJson == null,
                    t + "parameters: required unless defaulted, described, defaults given; a number gives no output schema: " + add.InputSchemaJson);
                Tool square = tools.First(x => x.Name == "square");
                check(square.OutputSchemaJson != null && square.OutputSchemaJson.Contains("\"result\":{\"type\":\"number\"}"), t + "UseStructuredContent wraps a number as {result}: " + square.OutputSchemaJson);

                Tool describe = tools.First(x => x.Name == "describe");
                object input = MiniJson.Parse(describe.InputSchemaJson);
                object props = MiniJson.Get(input, "properties");
                string required = MiniJson.Write(MiniJson.Get(input, "required"));
                check(required == "[\"text\",\"flag\",\"count\",\"ratio\",\"price\",\"level\",\"person\",\"numbers\",\"places\",\"scores\"]",
                    t + "the parameters without a default and not nullable are required: " + required);
                check(Type(props, "text") == "\"string\"" && Type(props, "flag") == "\"boolean\"" && Type(props, "count") == "\"integer\""
                      && Type(props, "ratio") == "\"number\"" && Type(props, "price") == "\"number\"" && Type(props, "maybe") == "[\"integer\",\"null\"]"
                      && Type(props, "optionalLevel") == "[\"string\",\"null\"]",
                    t + "primitives, and nullables that also take null: " + describe.InputSchemaJson);
                check(MiniJson.Write(MiniJson.Get(MiniJson.Get(props, "level"), "enum")) == "[\"Low\",\"Medium\",\"High\"]", t + "an enum is a string enum");
                object person = MiniJson.Get(props, "person");
                object personProps = MiniJson.Get(person, "properties");
                check(Type(props, "person") == "\"object\"" && MiniJson.Write(MiniJson.Get(person, "required")) == "[\"name\",\"age\",\"address\"]"
                      && MiniJson.Str(MiniJson.Get(personProps, "name"), "description") == "full name"
                      && MiniJson.Write(MiniJson.Get(MiniJson.Get(personProps, "level"), "default")) == "\"Medium\""
                      && Type(MiniJson.Get(personProps, "address"), "city") == null && Type(MiniJson.Get(MiniJson.Get(personProps, "address"), "properties"), "city") == "\"string\""
                      && MiniJson.Str(MiniJson.Get(MiniJson.Get(MiniJson.Get(personProps, "address"), "properties"), "zip"), "description") == "postal code",
                    t + "a class read by its constructor: a nested object, its parameters without default required, described, defaulted: " + MiniJson.Write(person));
                check(Type(props, "numbers") == "\"array\"" && MiniJson.Write(MiniJson.Get(MiniJson.Get(props, "numbers"), "items")) == "{\"type\":\"integer\"}"
                      && Type(MiniJson.Get(MiniJson.Get(props, "places"), "items"), "city") == null && MiniJson.Str(MiniJson.Get(MiniJson.Get(props, "places"), "items"), "type") == "object"
                      && MiniJson.Write(MiniJson.Get(MiniJson.Get(props, "scores"), "additionalProperties")) == "{\"type\":\"integer\"}",
                    t + "arrays, lists of objects and dictionaries");
                object options = MiniJson.Get(props, "options");
                check(MiniJson.Get(options, "required") == null && Type(MiniJson.Get(options, "properties"), "names") == "\"array\"", t + "a settable class: nothing required: " + MiniJson.Write(options));
                object output = MiniJson.Parse(describe.OutputSchemaJson ?? "null");
                check(output != null && MiniJson.Write(MiniJson.Get(output, "required")) == "[\"count\",\"level\"]" && Type(MiniJson.Get(output, "properties"), "score") == "\"number\"",
                    t + "a returned class is the output schema, its never-null members required: " + describe.OutputSchemaJson);
                Tool work = tools.First(x => x.Name == "work");
                check(MiniJson.Write(MiniJson.Get(MiniJson.Parse(work.InputSchemaJson), "properties")) == "{\"steps\":{\"type\":\"integer\"}}",
                    t + "CancellationToken, the context and IProgress are not in the schema: " + work.InputSchemaJson);

                // Calls reach the methods with the values sent.
                check(await client.CallToolAsync<long>("add_numbers", new { a = 40 }) == 42, t + "a default fills a missing argument");
                check(await client.CallToolAsync<double>("square", new { x = 1.5 }) == 2.25, t + "a wrapped result is unwrapped by CallToolAsync<T>");
                var args = new Dictionary<string, object>
                {
                    { "text", "h\u00e9llo" }, { "flag", true }, { "count", 3 }, { "ratio", 0.25 }, { "price", 9.99 }, { "level", "High" },
                    { "person", new { name = "Ada", age = 36, address = new { city = "London" }, tags = new[] { "math", "code" } } },
                    { "numbers", new[] { 1, 2, 3 } }, { "places", new[] { new { city = "Paris", zip = "75001" }, new { city = "Rome", zip = (string)null } } },
                    { "scores", new Dictionary<string, int> { { "b", 2 }, { "a", 1 } } }, { "maybe", 7 },
                    { "options", new { verbose = true, names = new[] { "x" } } },
                };
                lock (StaticTools.Seen) StaticTools.Seen.Clear();
                CallToolResult described = await client.CallToolAsync("describe", args);
                string seen;
                lock (StaticTools.Seen) seen = StaticTools.Seen.FirstOrDefault();
                check(seen == "h\u00e9llo|True|3|0.25|9.99|High|Ada|36|London|-|math,code|Medium|1,2,3|Paris,Rome|a=1,b=2|7|null|none|True/0.5/x",
                    t + "the method got every argument in its type: " + seen + " " + described.Json);
                Summary summary = described.StructuredContent<Summary>();
                check(!described.IsError && summary != null && summary.Text == "H\u00c9LLO" && summary.Count == 3 && summary.Score == 7 && summary.Level == Level.High
                      && described.Text.Contains("\"count\":3"), t + "the returned object is the structured content and its JSON text: " + described.Json);
                Summary typed = await client.CallToolAsync<Summary>("describe", args);
                check(typed.Text == "H\u00c9LLO" && typed.Level == Level.High, t + "CallToolAsync<T> reads the structured content");
                CallToolResult bad = await client.CallToolAsync("describe", new { text = 1 });
                check(bad.IsError && bad.Text.Contains("text"), t + "arguments against the derived schema: refused by the engine naming the argument: " + bad.Text);

                var reports = new List<McpProgress>();
                CallToolResult worked = await client.CallToolAsync("work", new { steps = 4 }, progress: Program.Reports(p => { lock (reports) reports.Add(p); }));
                string progress;
                lock (reports) progress = string.Join(",", reports.Select(p => p.Progress + "/" + p.Total + ":" + p.Message));
                check(!worked.IsError && worked.Content.Count == 0 && progress == "1/4:step 1,2/:,3/4:step 3,4/:", t + "IProgress<McpProgress> and IProgress<int> report through the context; a Task gives no content: " + progress);
                using (var cts = new CancellationTokenSource())
                {
                    lock (StaticTools.Seen) StaticTools.Seen.Clear();
                    Task<CallToolResult> waiting = client.CallToolAsync("work", new { steps = -1 }, cts.Token);
                    await Task.Delay(300); // let it reach the method (not an assertion)
                    cts.Cancel();
                    try
                    {
                        await waiting;
                        check(false, t + "a cancelled call ends as cancelled");
                    }
                    catch (OperationCanceledException)
                    {
                        check(true, t + "a cancelled call ends as cancelled");
                    }
                    bool reached = false;
                    for (int i = 0; i < 200 && !reached; i++)
                    {
                        lock (StaticTools.Seen) reached = StaticTools.Seen.Contains("work cancelled, ctx says True");
                        if (!reached) await Task.Delay(50);
                    }
                    check(reached, t + "the cancel reached the method's CancellationToken, and its context");
                }

                CallToolResult failed = await client.CallToolAsync("fail", new { why = "because" });
                check(failed.IsError && failed.Text == "failed: because", t + "an exception is an isError result with its message: " + failed.Json);
                try
                {
                    await client.CallToolAsync("refuse");
                    check(false, t + "an McpException is a JSON-RPC error");
                }
                catch (McpException e)
                {
                    check(e.Code == -32042 && e.Message == "refused" && e.DataJson == "{\"why\":1}", t + "an McpException is that JSON-RPC error: " + e.Message);
                }
                CallToolResult blocks = await client.CallToolAsync("blocks");
                var image = blocks.Content.Count == 2 ? blocks.Content[1] as ImageContentBlock : null;
                check(blocks.Content[0] is TextContentBlock && image != null && image.MimeType == "image/png" && image.Bytes.SequenceEqual(new byte[] { 1, 2, 3 }),
                    t + "returned content blocks are the content: " + blocks.Json);
                string confirmed = (await client.CallToolAsync("confirm", new { question = "Go?" })).Text;
                check(confirmed == "Ada True High", t + "ElicitAsync<T>: a form from the type, the answer read into it: " + confirmed);

                check(await client.CallToolAsync<int>("one_count") == 1 && await client.CallToolAsync<int>("one_count") == 2, t + "WithTools(instance): one instance's state");
                int disposed = Counter.Disposed;
                check(await client.CallToolAsync<int>("fresh_count") == 1 && await client.CallToolAsync<int>("fresh_count") == 1 && Counter.Disposed == disposed + 2,
                    t + "WithTools<T>(): a new instance per call, disposed after it");

                // Resources and prompts.
                ReadResourceResult fixedText = await client.ReadResourceAsync("typed://static");
                check(fixedText.Text == "fixed text" && fixedText.Contents[0].MimeType == "text/plain", t + "a fixed resource: " + fixedText.Json);
                ReadResourceResult item = await client.ReadResourceAsync("typed://items/42/body");
                check(item.Contents[0].MimeType == "application/json" && item.Text == "{\"id\":42,\"part\":\"body\",\"uri\":\"typed://items/42/body\"}",
                    t + "template variables into typed parameters, the uri too, an object as JSON: " + item.Json);
                var blob = (await client.ReadResourceAsync("typed://bytes/4")).Contents[0] as BlobResourceContents;
                check(blob != null && blob.Bytes.SequenceEqual(new byte[] { 0, 1, 2, 3 }), t + "bytes are a blob");
                check((await client.ListResourcesAsync()).Any(r => r.Uri == "typed://static" && r.Name == "fixed" && r.Description == "A fixed resource")
                      && (await client.ListResourceTemplatesAsync()).Any(r => r.UriTemplate == "typed://items/{id}/{part}" && r.Name == "item"),
                    t + "resources and templates listed by name and description");
                Prompt greet = (await client.ListPromptsAsync()).First(p => p.Name == "greet");
                check(greet.Title == "Greeting" && greet.Arguments.Count == 3 && greet.Arguments[0].Required && greet.Arguments[0].Description == "who" && !greet.Arguments[1].Required,
                    t + "a prompt's arguments from its parameters: " + greet.Json);
                GetPromptResult greeted = await client.GetPromptAsync("greet", new { name = "Ada", times = 2, level = "High" });
                check(greeted.Messages.Count == 1 && greeted.Messages[0].Role == "user" && greeted.Messages[0].Text == "hello Ada hello Ada (High)",
                    t + "prompt arguments (strings) read into the parameters' types: " + greeted.Json);
                GetPromptResult dialogue = await client.GetPromptAsync("dialogue", new { topic = "MCP" });
                check(dialogue.Messages.Count == 2 && dialogue.Messages[1].Role == "assistant" && dialogue.Messages[1].Text == "here is MCP", t + "messages returned as they are");
            }
        }
    }

    private static string Type(object properties, string name)
    {
        object p = MiniJson.Get(properties, name);
        return p == null ? null : MiniJson.Write(MiniJson.Get(p, "type"));
    }

    /// <summary>The tools as listed, for run-tests.sh to validate against the specification's schema.json.</summary>
    private static void WriteTools(IList<Tool> tools)
    {
        string path = Environment.GetEnvironmentVariable("OXMCP_TYPED_TOOLS");
        if (!string.IsNullOrEmpty(path)) System.IO.File.WriteAllText(path, "[" + string.Join(",", tools.Select(x => x.Json)) + "]");
    }

    /// <summary>
    /// The specification's rules for a Tool (schema.json's $defs/Tool) and for what a derived
    /// schema holds: a name; an inputSchema of type object; an outputSchema, if any, an object;
    /// properties an object, required a list of its keys; every property a schema (an object)
    /// with a JSON type; an enum a list of strings; an array's items a schema. Null when it holds.
    /// </summary>
    internal static string ToolShape(Tool tool)
    {
        object t = MiniJson.Parse(tool.Json);
        if (!(MiniJson.Get(t, "name") is string) || ((string)MiniJson.Get(t, "name")).Length == 0) return "no name";
        foreach (string key in ((Dictionary<string, object>)t).Keys)
            if (!new[] { "name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "execution", "_meta" }.Contains(key)) return "unknown member " + key;
        object input = MiniJson.Get(t, "inputSchema");
        if (!(input is Dictionary<string, object>) || MiniJson.Str(input, "type") != "object") return "inputSchema is no object schema";
        string why = SchemaShape(input, "inputSchema");
        if (why != null) return why;
        object output = MiniJson.Get(t, "outputSchema");
        if (output == null) return null;
        if (!(output is Dictionary<string, object>) || MiniJson.Str(output, "type") != "object") return "outputSchema is no object schema";
        return SchemaShape(output, "outputSchema");
    }

    private static readonly string[] JsonTypes = { "string", "number", "integer", "boolean", "object", "array", "null" };

    private static string SchemaShape(object schema, string path)
    {
        var s = schema as Dictionary<string, object>;
        if (s == null) return path + " is not an object";
        if (s.Count == 0) return null; // any value
        object type = MiniJson.Get(s, "type");
        var types = type is string ? new List<object> { type } : type as List<object>;
        if (types == null || types.Count == 0 || types.Any(x => !JsonTypes.Contains(x as string))) return path + ".type is " + MiniJson.Write(type);
        if (s.ContainsKey("enum") && (!(s["enum"] is List<object>) || ((List<object>)s["enum"]).Any(x => !(x is string)))) return path + ".enum is not a list of strings";
        if (s.ContainsKey("description") && !(s["description"] is string)) return path + ".description is not a string";
        if (types.Contains("array"))
        {
            string why = SchemaShape(MiniJson.Get(s, "items"), path + ".items");
            if (why != null) return why;
        }
        if (s.ContainsKey("additionalProperties"))
        {
            string why = SchemaShape(s["additionalProperties"], path + ".additionalProperties");
            if (why != null) return why;
        }
        if (types.Contains("object") && s.ContainsKey("properties"))
        {
            var props = s["properties"] as Dictionary<string, object>;
            if (props == null) return path + ".properties is not an object";
            foreach (var kv in props)
            {
                string why = SchemaShape(kv.Value, path + ".properties." + kv.Key);
                if (why != null) return why;
            }
            object required = MiniJson.Get(s, "required");
            if (required != null && (!(required is List<object>) || ((List<object>)required).Any(x => !(x is string) || !props.ContainsKey((string)x))))
                return path + ".required names what properties do not hold: " + MiniJson.Write(required);
        }
        return null;
    }
}
