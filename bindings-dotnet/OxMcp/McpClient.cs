using System;
using System.Collections.Generic;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace OxMcp
{
    /// <summary>A server notification (log message, progress, list change): method and params JSON.</summary>
    public sealed class McpNotification : EventArgs
    {
        /// <summary>The method, e.g. <c>notifications/message</c>.</summary>
        public string Method { get; internal set; }
        /// <summary>The params as JSON text (<c>{}</c> when none).</summary>
        public string ParamsJson { get; internal set; }
    }

    /// <summary>A loaded skill (<see cref="McpClient.LoadSkillAsync"/>): its entry and its <c>SKILL.md</c>, checked against each other.</summary>
    public sealed class McpLoadedSkill
    {
        internal McpLoadedSkill(string skillJson, string markdown)
        {
            SkillJson = skillJson;
            Markdown = markdown;
        }

        /// <summary>The skill's entry (JSON: <c>uri</c>, <c>frontmatter</c>, <c>resources</c>), for <see cref="McpClient.ReadSkillFileAsync"/>.</summary>
        public string SkillJson { get; private set; }

        /// <summary>The text of its <c>SKILL.md</c>, frontmatter included.</summary>
        public string Markdown { get; private set; }
    }

    /// <summary>
    /// How a client answers the server's requests. Each handler receives the request's params
    /// as JSON and a CancellationToken that fires when the server cancels the request (or
    /// disconnects), and returns the result as JSON: a <c>CreateMessageResult</c>
    /// (<c>sampling/createMessage</c>), an <c>ElicitResult</c> (<c>elicitation/create</c>) or a
    /// <c>ListRootsResult</c> (<c>roots/list</c>). A handler left null is not offered (its
    /// capability is not declared). Throw <see cref="McpException"/> for a JSON-RPC error.
    /// <code>
    /// var handlers = new McpClientHandlers
    /// {
    ///     Roots = (p, ct) => Task.FromResult("{\"roots\":[{\"uri\":\"file:///work\"}]}"),
    /// };
    /// var client = await McpClient.ConnectHttpAsync(url, handlers: handlers);
    /// </code>
    /// </summary>
    public sealed class McpClientHandlers
    {
        /// <summary>Answers <c>sampling/createMessage</c>.</summary>
        public Func<string, CancellationToken, Task<string>> Sampling { get; set; }
        /// <summary>Answers <c>elicitation/create</c>.</summary>
        public Func<string, CancellationToken, Task<string>> Elicitation { get; set; }
        /// <summary>Answers <c>roots/list</c>.</summary>
        public Func<string, CancellationToken, Task<string>> Roots { get; set; }

        internal string Answers()
        {
            var names = new System.Collections.Generic.List<string>();
            if (Sampling != null) names.Add("sampling");
            if (Elicitation != null) names.Add("elicitation");
            if (Roots != null) names.Add("roots");
            return string.Join(",", names);
        }

        internal Func<string, CancellationToken, Task<string>> For(string method)
        {
            switch (method)
            {
                case "sampling/createMessage": return Sampling;
                case "elicitation/create": return Elicitation;
                case "roots/list": return Roots;
                default: return null;
            }
        }
    }

    /// <summary>
    /// An MCP client over stdio (a child process) or Streamable HTTP. Every call returns a
    /// Task of its typed result (<see cref="CallToolResult"/>, <see cref="Tool"/>...; a few, such
    /// as <see cref="RequestAsync"/>, the result JSON) and takes a CancellationToken that cancels
    /// the request on the wire. Failures throw <see cref="McpException"/> (JSON-RPC errors keep their code).
    /// The <c>era</c> argument of the Connect methods chooses the protocol era:
    /// <c>"auto"</c> (the default: probe with <c>server/discover</c>, fall back to
    /// <c>initialize</c> for older servers), <c>"session"</c> or <c>"stateless"</c>
    /// (2026-07-28); <see cref="Era"/> tells which one the connection settled on.
    /// <code>
    /// using (var client = await McpClient.ConnectStdioAsync("oxmcp", new[] { "everything-server", "--stdio" }))
    ///     Console.WriteLine((await client.CallToolAsync("echo", new { text = "hi" })).Text);
    /// </code>
    /// </summary>
    public sealed class McpClient : IDisposable
    {
        private static readonly Native.NotificationFn OnNotificationFn = OnNotification;
        private static readonly Native.ClientRequestFn OnServerRequestFn = OnServerRequest;

        private static readonly Registry<McpClient> Live = new Registry<McpClient>();

        private readonly ClientHandle _handle;

        internal ClientHandle Handle { get { return _handle; } }
        private readonly long _id;
        private readonly McpClientHandlers _handlers;
        private readonly McpOAuth _oauth;

        /// <summary>
        /// The server's <c>initialize</c> result (JSON). In the stateless era, which has no
        /// <c>initialize</c>, the <c>server/discover</c> answer in the same shape
        /// (<c>protocolVersion</c> <c>"2026-07-28"</c>, capabilities, serverInfo, instructions).
        /// </summary>
        public string InitializeResultJson { get; private set; }

        /// <summary>The era the connection settled on: <c>"session"</c> or <c>"stateless"</c>.</summary>
        public string Era { get; private set; }

        /// <summary>Raised for each server notification, on a native thread, in order.</summary>
        public event EventHandler<McpNotification> Notification;

        private McpClient(McpRuntime runtime, string name, string version, string era, McpClientHandlers handlers, McpOAuth oauth = null)
        {
            _handlers = handlers;
            _oauth = oauth;
            runtime = runtime ?? McpRuntime.Default;
            ClientHandle h;
            McpException.Check(Native.oxmcp_client_new(runtime.Handle, Native.Z(name), Native.Z(version), out h));
            _handle = h;
            _id = Live.Add(this);
            try
            {
                McpException.Check(Native.oxmcp_client_on_notification(_handle, OnNotificationFn, new IntPtr(_id)));
                // One options object (the engine's client options); null keeps the native
                // default era (auto); an unknown era throws InvalidInput here.
                var options = new StringBuilder("{");
                if (era != null) options.Append("\"era\":").Append(McpJson.Quote(era));
                string answers = handlers == null ? "" : handlers.Answers();
                if (oauth != null)
                {
                    options.Append(options.Length > 1 ? "," : "").Append("\"oauth\":").Append(oauth.ToJson());
                    if (oauth.TokenFile != null) options.Append(",\"tokenFile\":").Append(McpJson.Quote(oauth.TokenFile));
                    if (oauth.Authorize != null) answers = answers.Length == 0 ? "authorize" : answers + ",authorize";
                }
                Configure(options.Append('}').ToString());
                if (answers.Length > 0)
                    McpException.Check(Native.oxmcp_client_on_request(_handle, Native.Z(answers), OnServerRequestFn, new IntPtr(_id)));
            }
            catch
            {
                Dispose();
                throw;
            }
        }

        /// <summary>
        /// Starts <paramref name="command"/> with <paramref name="args"/> and connects over stdio, in the
        /// protocol era <paramref name="era"/>: <c>"auto"</c> (default; null too), <c>"session"</c> or
        /// <c>"stateless"</c>. Any other era throws an <see cref="McpException"/> with
        /// <see cref="McpStatus.InvalidInput"/> before anything starts. <paramref name="handlers"/>
        /// answer the server's sampling, elicitation and roots requests.
        /// </summary>
        public static Task<McpClient> ConnectStdioAsync(string command, string[] args, CancellationToken cancellationToken = default(CancellationToken),
            EventHandler<McpNotification> onNotification = null, McpRuntime runtime = null, string name = "oxmcp-dotnet", string version = "0.1.0",
            string era = "auto", McpClientHandlers handlers = null)
        {
            var client = new McpClient(runtime, name, version, era, handlers);
            if (onNotification != null) client.Notification += onNotification;
            args = args ?? new string[0];
            var transport = new StringBuilder("{\"command\":").Append(McpJson.Quote(command)).Append(",\"args\":[");
            for (int i = 0; i < args.Length; i++) transport.Append(i > 0 ? "," : "").Append(McpJson.Quote(args[i]));
            return client.Connect(cancellationToken, transport.Append("]}").ToString());
        }

        /// <summary>
        /// Connects to a Streamable HTTP server at <paramref name="url"/>, in the protocol era
        /// <paramref name="era"/> (as in <see cref="ConnectStdioAsync"/>). <paramref name="oauth"/>
        /// authorizes at a protected server (see <see cref="McpOAuth"/>); without it a protected
        /// server refuses the client with <see cref="McpStatus.Unauthorized"/>. <paramref name="headers"/>
        /// are sent with every request (e.g. <c>Authorization: Bearer</c> with a token got elsewhere).
        /// <code>
        /// var machine = new McpOAuth { Grant = "client_credentials", ClientId = "machine", ClientSecret = secret };
        /// using (var client = await McpClient.ConnectHttpAsync(url, oauth: machine)) { ... }
        /// </code>
        /// </summary>
        public static Task<McpClient> ConnectHttpAsync(string url, CancellationToken cancellationToken = default(CancellationToken),
            EventHandler<McpNotification> onNotification = null, McpRuntime runtime = null, string name = "oxmcp-dotnet", string version = "0.1.0",
            string era = "auto", McpClientHandlers handlers = null, McpOAuth oauth = null, IDictionary<string, string> headers = null)
        {
            var client = new McpClient(runtime, name, version, era, handlers, oauth);
            if (headers != null)
            {
                var b = new StringBuilder("{");
                foreach (KeyValuePair<string, string> h in headers)
                    b.Append(b.Length > 1 ? "," : "").Append(McpJson.Quote(h.Key)).Append(':').Append(McpJson.Quote(h.Value));
                try
                {
                    client.Configure("{\"headers\":" + b.Append('}').ToString() + "}");
                }
                catch
                {
                    client.Dispose();
                    throw;
                }
            }
            if (onNotification != null) client.Notification += onNotification;
            return client.Connect(cancellationToken, "{\"url\":" + McpJson.Quote(url) + "}");
        }

        /// <summary>Merges connection options (the engine's client options, JSON) into the native client's.</summary>
        private void Configure(string optionsJson)
        {
            byte[] json = Native.Bytes(optionsJson);
            McpException.Check(Native.oxmcp_client_configure(_handle, json, Native.Len(json)));
        }

        private async Task<McpClient> Connect(CancellationToken token, string transportJson)
        {
            byte[] transport = Native.Bytes(transportJson);
            StartCall start = (IntPtr ud, out RequestHandle req) =>
                Native.oxmcp_client_connect(_handle, transport, Native.Len(transport), Pending.OnComplete, ud, out req);
            try
            {
                InitializeResultJson = await Pending.Run(start, token).ConfigureAwait(false);
                // Read once now: after CloseAsync the native side reports the requested era again.
                IntPtr era;
                McpException.Check(Native.oxmcp_client_era(_handle, out era));
                Era = Native.Utf8Z(era);
                return this;
            }
            catch
            {
                Dispose();
                throw;
            }
        }

        /// <summary>
        /// Calls a tool; resolves to its <see cref="CallToolResult"/> (a tool that failed answers
        /// a result with <see cref="CallToolResult.IsError"/>).
        /// <code>
        /// CallToolResult r = await client.CallToolAsync("search_notes", new { search = new { query = "milk" } });
        /// Console.WriteLine(r.Text);
        /// </code>
        /// </summary>
        /// <param name="name">The tool.</param>
        /// <param name="arguments">The arguments: an object whose public properties (camelCase) or
        /// entries (a dictionary) they are, an anonymous object, JSON object text, or null.</param>
        /// <param name="cancellationToken">Cancels the call on the wire.</param>
        /// <param name="progress">Gets each progress notification, in order, before the Task completes
        /// (<c>Report</c> is called on a native thread; a <see cref="Progress{T}"/> passes each on to
        /// its synchronization context or the thread pool).</param>
        /// <param name="timeout">Inactivity timeout (reset by progress); null = 60 s.</param>
        public async Task<CallToolResult> CallToolAsync(string name, object arguments = null, CancellationToken cancellationToken = default(CancellationToken),
            IProgress<McpProgress> progress = null, TimeSpan? timeout = null)
        {
            return McpObject.From<CallToolResult>(JsonCodec.Parse(
                await Call("tools/call", name, ArgumentsJson(arguments), cancellationToken, Report(progress), timeout).ConfigureAwait(false)));
        }

        /// <summary>
        /// Calls a tool as <see cref="CallToolAsync(string, object, CancellationToken, IProgress{McpProgress}, TimeSpan?)"/>
        /// does and resolves to its structured content read as <typeparamref name="T"/> (a value the
        /// server wrapped as <c>{"result": value}</c> unwrapped for a <typeparamref name="T"/> that is no
        /// object; without structured content, the text read as JSON, or as is for a string). A
        /// result with <see cref="CallToolResult.IsError"/> throws <see cref="McpException"/> with
        /// <see cref="McpStatus.Handler"/>, its text the message and the result its
        /// <see cref="McpException.DataJson"/>.
        /// <code>
        /// Hits hits = await client.CallToolAsync&lt;Hits&gt;("search_notes", new { search = new { query = "milk" } });
        /// </code>
        /// </summary>
        public async Task<T> CallToolAsync<T>(string name, object arguments = null, CancellationToken cancellationToken = default(CancellationToken),
            IProgress<McpProgress> progress = null, TimeSpan? timeout = null)
        {
            return Structured<T>(name, await CallToolAsync(name, arguments, cancellationToken, progress, timeout).ConfigureAwait(false));
        }

        private static T Structured<T>(string name, CallToolResult result)
        {
            if (result.IsError) throw new McpException(McpStatus.Handler, name + " failed: " + result.Text, null, result.Json);
            if (result.StructuredContentJson != null) return result.StructuredContent<T>();
            if (typeof(T) == typeof(string)) return (T)(object)result.Text;
            try
            {
                return (T)JsonCodec.Read(result.Text, typeof(T));
            }
            catch (Exception e) when (e is FormatException || e is ArgumentException)
            {
                throw new McpException(McpStatus.Protocol, name + " gave no structured content, and its text is no " + JsonCodec.TypeName(typeof(T)) + ": " + e.Message, null, result.Json);
            }
        }

        /// <summary>Arguments as JSON text: text as it is, any other value written as JSON.</summary>
        private static string ArgumentsJson(object arguments)
        {
            return arguments == null ? null : arguments as string ?? JsonCodec.Write(arguments);
        }

        private static Action<McpProgress> Report(IProgress<McpProgress> progress)
        {
            return progress == null ? null : (Action<McpProgress>)progress.Report;
        }

        /// <summary>
        /// Calls a tool as <see cref="CallToolAsync(string, object, CancellationToken, IProgress{McpProgress}, TimeSpan?)"/>
        /// does, but lets the server run the call as a task (the tasks extension,
        /// <c>io.modelcontextprotocol/tasks</c>); resolves to the final <see cref="CallToolResult"/>
        /// (a tool failure is a result with <see cref="CallToolResult.IsError"/>). The
        /// engine follows the task at the server's pace and answers what it asks (elicitation,
        /// sampling, roots) with the client's <see cref="McpClientHandlers"/>. A tool that never
        /// runs as a task answers as with <see cref="CallToolAsync"/>; one that only runs as a
        /// task needs this method (<see cref="CallToolAsync"/> gets the JSON-RPC error -32021).
        /// No timeout applies.
        /// <code>
        /// CallToolResult result = await client.CallToolAsTaskAsync("slow_compute", new { seconds = 5 }, ct,
        ///     new Progress&lt;McpProgress&gt;(p => Console.WriteLine(p.Message))); // working, ..., completed
        /// </code>
        /// </summary>
        /// <param name="name">The tool.</param>
        /// <param name="arguments">The arguments, as for <see cref="CallToolAsync(string, object, CancellationToken, IProgress{McpProgress}, TimeSpan?)"/>.</param>
        /// <param name="cancellationToken">Cancels the task (<c>tasks/cancel</c>); the Task then ends as Canceled.</param>
        /// <param name="progress">Gets each task status (on a native thread), before the Task
        /// completes: <see cref="McpProgress.Progress"/> 1, 2, 3...; <see cref="McpProgress.Message"/>
        /// <c>working</c>, <c>input_required</c>, <c>completed</c>... or <c>status: statusMessage</c>.</param>
        public async Task<CallToolResult> CallToolAsTaskAsync(string name, object arguments = null, CancellationToken cancellationToken = default(CancellationToken),
            IProgress<McpProgress> progress = null)
        {
            return McpObject.From<CallToolResult>(JsonCodec.Parse(
                await Call("tools/call as task", name, ArgumentsJson(arguments), cancellationToken, Report(progress)).ConfigureAwait(false)));
        }

        /// <summary>
        /// <see cref="CallToolAsTaskAsync(string, object, CancellationToken, IProgress{McpProgress})"/>, its
        /// structured content read as <typeparamref name="T"/> as <see cref="CallToolAsync{T}"/> reads it.
        /// </summary>
        public async Task<T> CallToolAsTaskAsync<T>(string name, object arguments = null, CancellationToken cancellationToken = default(CancellationToken),
            IProgress<McpProgress> progress = null)
        {
            return Structured<T>(name, await CallToolAsTaskAsync(name, arguments, cancellationToken, progress).ConfigureAwait(false));
        }

        /// <summary>
        /// Starts a call of a tool as a task and resolves at once (the task steps, taken by the
        /// caller): <c>{"task": Task}</c> JSON when the server runs it as a task, or
        /// <c>{"result": CallToolResult}</c> when it answered at once. Nothing polls or answers
        /// for the client: follow it with <see cref="GetTaskAsync"/>, answer its input requests
        /// with <see cref="UpdateTaskAsync"/>, cancel it with <see cref="CancelTaskAsync"/>.
        /// </summary>
        /// <param name="name">The tool.</param>
        /// <param name="arguments">The arguments, as for <see cref="CallToolAsync(string, object, CancellationToken, IProgress{McpProgress}, TimeSpan?)"/>.</param>
        /// <param name="cancellationToken">Cancels the start request (not the task).</param>
        public Task<string> StartToolTaskAsync(string name, object arguments = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call("tools/call start task", name, ArgumentsJson(arguments), cancellationToken);
        }

        /// <summary>
        /// The task <paramref name="taskId"/> (<c>tasks/get</c>) as JSON: <c>taskId</c>,
        /// <c>status</c> (<c>working</c>, <c>input_required</c>, <c>completed</c>, <c>failed</c>,
        /// <c>cancelled</c>), <c>statusMessage</c>, <c>createdAt</c>, <c>lastUpdatedAt</c>,
        /// <c>ttlMs</c>, <c>pollIntervalMs</c>, and <c>result</c> / <c>error</c> /
        /// <c>inputRequests</c> (by key) as its status brings. An unknown task throws
        /// <see cref="McpException"/> with the code -32602.
        /// </summary>
        public Task<string> GetTaskAsync(string taskId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call("tasks/get", taskId, null, cancellationToken);
        }

        /// <summary>
        /// Answers input requests of the task <paramref name="taskId"/> (<c>tasks/update</c>):
        /// <paramref name="responsesJson"/> is a JSON object of answers by the keys of its
        /// <c>inputRequests</c>, e.g. <c>{"elicitation-1": {"action": "accept", "content": {...}}}</c>.
        /// </summary>
        public Task UpdateTaskAsync(string taskId, string responsesJson, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call("tasks/update", taskId, responsesJson, cancellationToken);
        }

        /// <summary>Cancels the task <paramref name="taskId"/> (<c>tasks/cancel</c>); <see cref="GetTaskAsync"/> then shows it <c>cancelled</c>.</summary>
        public Task CancelTaskAsync(string taskId, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call("tasks/cancel", taskId, null, cancellationToken);
        }

        /// <summary>Sends any request (its params: JSON text, an object written as JSON, or null); resolves to its result JSON.</summary>
        public Task<string> RequestAsync(string method, object parameters = null, CancellationToken cancellationToken = default(CancellationToken),
            IProgress<McpProgress> progress = null, TimeSpan? timeout = null)
        {
            return Call("request", method, ArgumentsJson(parameters), cancellationToken, Report(progress), timeout);
        }

        /// <summary>
        /// Every client call goes through the engine's door by name (<c>oxmcp_client_call</c>):
        /// <paramref name="a"/> is its text argument, <paramref name="bJson"/> its JSON one. The
        /// engine checks both and shapes the result; nothing protocol-shaped is decided here.
        /// </summary>
        private Task<string> Call(string op, string a, string bJson, CancellationToken token, Action<McpProgress> onProgress = null, TimeSpan? timeout = null)
        {
            // Inside an activity, the call continues its trace.
            byte[] opZ = Native.Z(Telemetry.TracedOp(op)), aZ = Native.Z(a), b = Native.Bytes(bJson);
            uint ms = TimeoutMs(timeout);
            return Pending.Run((IntPtr ud, out RequestHandle req) =>
                Native.oxmcp_client_call(_handle, opZ, aZ, b, Native.Len(b), ms, onProgress == null ? null : Pending.OnProgress, Pending.OnComplete, ud, out req),
                token, onProgress);
        }

        /// <summary>Every tool the server offers (all pages).</summary>
        public Task<IList<Tool>> ListToolsAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return List("tools/list", McpObject.From<Tool>, cancellationToken);
        }

        /// <summary>Every resource the server lists (all pages).</summary>
        public Task<IList<Resource>> ListResourcesAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return List("resources/list", McpObject.From<Resource>, cancellationToken);
        }

        /// <summary>Every resource template the server lists (all pages).</summary>
        public Task<IList<ResourceTemplate>> ListResourceTemplatesAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return List("resources/templates/list", McpObject.From<ResourceTemplate>, cancellationToken);
        }

        /// <summary>Every prompt the server offers (all pages).</summary>
        public Task<IList<Prompt>> ListPromptsAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return List("prompts/list", McpObject.From<Prompt>, cancellationToken);
        }

        /// <summary>A list the engine gathers (every page's items in one JSON array), read item by item.</summary>
        private async Task<IList<T>> List<T>(string op, Func<object, T> read, CancellationToken cancellationToken)
        {
            return McpObject.Items(JsonCodec.Parse(await Call(op, null, null, cancellationToken).ConfigureAwait(false)), read);
        }

        /// <summary>
        /// Every skill the server lists (the <c>io.modelcontextprotocol/skills</c> extension, all
        /// pages): one JSON array, each entry with its <c>uri</c> (of its <c>SKILL.md</c>),
        /// <c>frontmatter</c> and <c>resources</c>. No file is fetched.
        /// </summary>
        public Task<string> ListSkillsAsync(CancellationToken cancellationToken = default(CancellationToken)) { return Call("skills/list", null, null, cancellationToken); }

        /// <summary>Reads a resource.</summary>
        /// <code>
        /// ReadResourceResult note = await client.ReadResourceAsync("notes://ideas");
        /// Console.WriteLine(note.Text);
        /// </code>
        public async Task<ReadResourceResult> ReadResourceAsync(string uri, CancellationToken cancellationToken = default(CancellationToken))
        {
            return McpObject.From<ReadResourceResult>(JsonCodec.Parse(await Call("resources/read", uri, null, cancellationToken).ConfigureAwait(false)));
        }

        /// <summary>
        /// Gets a prompt. <paramref name="arguments"/> as for a tool call (JSON object text, a
        /// dictionary, an object); prompt arguments are strings, so any other value is sent as
        /// its JSON text (<c>3</c> as <c>"3"</c>).
        /// </summary>
        public async Task<GetPromptResult> GetPromptAsync(string name, object arguments = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            string json = ArgumentsJson(arguments);
            var args = json == null ? null : JsonCodec.Parse(json) as Dictionary<string, object>;
            if (args != null)
            {
                foreach (string key in new List<string>(args.Keys))
                    if (args[key] != null && !(args[key] is string)) args[key] = JsonCodec.Write(args[key]);
                json = JsonCodec.Write(args);
            }
            return McpObject.From<GetPromptResult>(JsonCodec.Parse(await Call("prompts/get", name, json, cancellationToken).ConfigureAwait(false)));
        }

        /// <summary>
        /// The entry of the skill whose <c>SKILL.md</c> is at <paramref name="uri"/>
        /// (<c>skills/get</c>) as JSON; a server serving none there throws
        /// <see cref="McpException"/> with the code -32602.
        /// </summary>
        public Task<string> GetSkillAsync(string uri, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call("skills/get", uri, null, cancellationToken);
        }

        /// <summary>
        /// The direct children of the directory resource at <paramref name="uri"/>
        /// (<c>resources/directory/read</c>, all pages), e.g. a skill's root
        /// <c>skill://git-workflow</c>: one JSON array; a subdirectory has the
        /// <c>mimeType</c> <c>inode/directory</c>.
        /// </summary>
        public Task<string> ReadDirectoryAsync(string uri, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call("resources/directory/read", uri, null, cancellationToken);
        }

        /// <summary>
        /// Loads a skill: fetches its <c>SKILL.md</c> and checks it against the entry
        /// <paramref name="skillJson"/> (as <see cref="ListSkillsAsync"/> or <see cref="GetSkillAsync"/>
        /// gave it; null gets it with <c>skills/get</c>): size, digest and frontmatter. A
        /// <c>SKILL.md</c> unlike its entry throws <see cref="McpException"/> with
        /// <see cref="McpStatus.Protocol"/> (refresh the entry with <see cref="GetSkillAsync"/>).
        /// <code>
        /// McpLoadedSkill skill = await client.LoadSkillAsync("skill://git-workflow/SKILL.md");
        /// Console.WriteLine(skill.Markdown);
        /// </code>
        /// </summary>
        public async Task<McpLoadedSkill> LoadSkillAsync(string uri, string skillJson = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            string json = await Call("skills/load", uri, skillJson, cancellationToken).ConfigureAwait(false);
            Dictionary<string, object> loaded = JsonCodec.Object(json);
            return new McpLoadedSkill(JsonCodec.Write(loaded["skill"]), loaded["markdown"] as string);
        }

        /// <summary>
        /// Reads a file of the skill <paramref name="skillJson"/> (its entry, required):
        /// <paramref name="path"/> is its path in the skill (<c>references/naming.md</c>) or its
        /// URI. Resolves to the file's bytes, checked against the entry's size and digest; a
        /// file the entry does not list (refused without a request) or one unlike its entry
        /// throws <see cref="McpException"/> with <see cref="McpStatus.Protocol"/>.
        /// </summary>
        public async Task<byte[]> ReadSkillFileAsync(string path, string skillJson, CancellationToken cancellationToken = default(CancellationToken))
        {
            string base64 = await Call("skills/read", path, skillJson, cancellationToken).ConfigureAwait(false);
            return Convert.FromBase64String((string)JsonCodec.Parse(base64));
        }

        /// <summary>Completes an argument: <paramref name="paramsJson"/> are <c>completion/complete</c>'s (<c>ref</c>, <c>argument</c>, <c>context</c>); resolves to the result JSON (<c>{"completion": {"values", "total", "hasMore"}}</c>).</summary>
        public Task<string> CompleteAsync(string paramsJson, CancellationToken cancellationToken = default(CancellationToken))
        {
            return RequestAsync("completion/complete", paramsJson, cancellationToken);
        }

        /// <summary>Asks for <c>notifications/resources/updated</c> about <paramref name="uri"/> (the <see cref="Notification"/> event gets them).</summary>
        public Task SubscribeAsync(string uri, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call("resources/subscribe", uri, null, cancellationToken);
        }

        /// <summary>Stops the updates <see cref="SubscribeAsync"/> asked for.</summary>
        public Task UnsubscribeAsync(string uri, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call("resources/unsubscribe", uri, null, cancellationToken);
        }

        /// <summary>Tells the server that the client's roots changed (<c>notifications/roots/list_changed</c>).</summary>
        public void NotifyRootsChanged()
        {
            McpException.Check(Native.oxmcp_client_notify_roots_changed(_handle));
        }

        /// <summary>Sends <c>ping</c> (a <c>server/discover</c> round trip in the stateless era, which has no ping).</summary>
        public Task PingAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call("ping", null, null, cancellationToken);
        }

        /// <summary>Sets the server's log level (<c>debug</c>, <c>info</c>, ...); in the stateless era every later request asks for it.</summary>
        /// <param name="level">The minimum level of the log messages the server sends.</param>
        /// <param name="cancellationToken">Cancels the request on the wire.</param>
        /// <param name="timeout">Inactivity timeout; null = 60 s.</param>
        public Task SetLogLevelAsync(string level, CancellationToken cancellationToken = default(CancellationToken), TimeSpan? timeout = null)
        {
            return Call("logging/setLevel", level, null, cancellationToken, null, timeout);
        }

        /// <summary>Closes the connection (a child process is stopped); pending calls fail.</summary>
        public Task CloseAsync()
        {
            return Pending.Run((IntPtr ud, out RequestHandle req) =>
            {
                req = null;
                return Native.oxmcp_client_close(_handle, Pending.OnComplete, ud);
            }, CancellationToken.None);
        }

        /// <summary>Releases the client; an open connection closes in the background. No notification is raised afterwards.</summary>
        public void Dispose()
        {
            _handle.Dispose();
            Live.Remove(_id);
        }

        private static uint TimeoutMs(TimeSpan? t)
        {
            if (t == null) return 0;
            return (uint)Math.Max(1, Math.Min(uint.MaxValue, t.Value.TotalMilliseconds));
        }

        // Runs on a native thread: the handler runs on the thread pool.
        private static void OnServerRequest(IntPtr userData, IntPtr request, IntPtr method, IntPtr json, UIntPtr len)
        {
            var client = Live.Get(userData.ToInt64());
            string name = Native.Utf8Z(method);
            var handler = client == null || client._handlers == null ? null : client._handlers.For(name);
            string paramsJson = Native.Utf8(json, len);
            if (name == "authorize")
            {
                // The engine's OAuth client asks for the user's browser: {"url", "redirectUri"} in,
                // the URL the browser came back to (a JSON string) out.
                var authorize = client == null || client._oauth == null ? null : client._oauth.Authorize;
                Incoming.Answer(request, async (req, token) =>
                {
                    if (authorize == null) throw new McpException(-32603, "no authorize handler (client disposed)");
                    string landed = await authorize((string)JsonCodec.Object(paramsJson)["url"], token).ConfigureAwait(false);
                    return McpJson.Quote(landed);
                });
                return;
            }
            Incoming.Answer(request, async (req, token) =>
            {
                if (handler == null) throw new McpException(-32603, "no handler for " + name + " (client disposed)");
                // The handler runs in the span the server's request names in its _meta.
                using (Telemetry.EnterMeta(paramsJson))
                {
                    return await handler(paramsJson, token).ConfigureAwait(false);
                }
            });
        }

        private static void OnNotification(IntPtr userData, IntPtr method, IntPtr json, UIntPtr len)
        {
            try
            {
                var client = Live.Get(userData.ToInt64());
                var handler = client == null ? null : client.Notification;
                if (handler != null) handler(client, new McpNotification { Method = Native.Utf8Z(method), ParamsJson = Native.Utf8(json, len) });
            }
            catch (Exception e)
            {
                Console.Error.WriteLine("OxMcp: notification handler failed: " + e);
            }
        }
    }
}
