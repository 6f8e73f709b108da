using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace OxMcp
{
    /// <summary>
    /// One request a server handler is answering: progress, logs, cancellation, and questions
    /// to the client (sampling, elicitation, roots).
    /// Valid until the handler's Task completes.
    /// </summary>
    public sealed class McpRequestContext
    {
        private readonly IncomingHandle _request;

        internal McpRequestContext(IncomingHandle request)
        {
            _request = request;
        }

        /// <summary>Whether the client cancelled the request (or disconnected), polled from the engine.</summary>
        public bool IsCancelled
        {
            get
            {
                return CallNow("cancelled", null) == "true";
            }
        }

        /// <summary>
        /// Who the request's OAuth access token speaks for, on a listener started with
        /// <c>auth</c> (<see cref="McpHttpAuth"/>): subject, client id, granted scopes, expiry
        /// and the token's claims; null when the request came without a token (stdio, an
        /// unprotected listener).
        /// <code>
        /// var who = ctx.Auth;
        /// if (who == null || Array.IndexOf(who.Scopes, "admin") &lt; 0) throw new McpException(-32001, "admins only");
        /// </code>
        /// </summary>
        public McpAuth Auth
        {
            get
            {
                object auth;
                return JsonCodec.Object(InfoJson).TryGetValue("auth", out auth) ? McpAuth.From(auth as Dictionary<string, object>) : null;
            }
        }

        /// <summary>
        /// The request's facts as JSON: <c>requestId</c>, <c>progressToken</c>, <c>clientInfo</c>,
        /// <c>clientCapabilities</c>, <c>protocolVersion</c>, <c>cancelled</c>, <c>auth</c> and
        /// <c>headers</c> (the HTTP request's, lower-case names, no Authorization; null over
        /// stdio), <c>traceparent</c> and <c>tracestate</c> (the W3C trace context of the
        /// request's span, for a tracer of the host's: see the main README's Observability
        /// section); <c>null</c> once the request is over.
        /// </summary>
        public string InfoJson
        {
            get { return CallNow("info", null); }
        }

        /// <summary>The request span's trace context alone (<c>{"traceparent", "tracestate"}</c> or <c>null</c>).</summary>
        internal string TraceJson
        {
            get { return CallNow("trace", null); }
        }

        /// <summary>Sends a progress notification (nothing if the client asked for none, or once the request is over).</summary>
        public void ReportProgress(double progress, double? total = null, string message = null)
        {
            var c = System.Globalization.CultureInfo.InvariantCulture;
            CallNow("progress", "{\"progress\":" + progress.ToString("R", c) +
                (total.HasValue ? ",\"total\":" + total.Value.ToString("R", c) : "") +
                (message != null ? ",\"message\":" + McpJson.Quote(message) : "") + "}");
        }

        /// <summary>Sends a log message (<paramref name="dataJson"/> is any JSON value) if the client's level lets it through.</summary>
        public void Log(string level, string dataJson, string logger = null)
        {
            CallNow("log", "{\"level\":" + McpJson.Quote(level ?? "") + (logger != null ? ",\"logger\":" + McpJson.Quote(logger) : "") +
                ",\"data\":" + (string.IsNullOrEmpty(dataJson) ? "null" : dataJson) + "}");
        }

        /// <summary>
        /// The one door to the request (<c>oxmcp_incoming_call</c>): <paramref name="op"/> by the
        /// engine's name, its params JSON; resolves to the result JSON. The engine checks the
        /// params and refuses what is wrong before anything is sent.
        /// </summary>
        private Task<string> Call(string op, string paramsJson, CancellationToken token)
        {
            byte[] o = Native.Z(op), p = Native.Bytes(paramsJson);
            return Pending.Run((IntPtr ud, out RequestHandle req) =>
                Native.oxmcp_incoming_call(_request, o, p, Native.Len(p), Pending.OnComplete, ud, out req), token);
        }

        /// <summary>An op the engine answers at once: its callback ran before the door returned.</summary>
        private string CallNow(string op, string paramsJson)
        {
            return Call(op, paramsJson, CancellationToken.None).GetAwaiter().GetResult();
        }

        /// <summary>
        /// Asks the client during this request: <paramref name="method"/> is
        /// <c>sampling/createMessage</c>, <c>elicitation/create</c> or <c>roots/list</c>,
        /// <paramref name="paramsJson"/> its params (null for <c>{}</c>; a sampling request
        /// without <c>maxTokens</c> gets the protocol default). Resolves to the client's
        /// result JSON. Throws <see cref="McpException"/>: <see cref="McpStatus.CapabilityMissing"/>
        /// when the client did not declare the capability, <see cref="McpStatus.Cancelled"/>
        /// when this request is cancelled (the client is told to drop the question) or, in the
        /// stateless era, when the client's answer must come first (the handler then runs again
        /// with it: ask before side effects). <paramref name="cancellationToken"/> cancels the
        /// question alone.
        /// </summary>
        public Task<string> AskClientAsync(string method, string paramsJson = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call(method, paramsJson, cancellationToken);
        }

        /// <summary>Asks the client's model (<c>sampling/createMessage</c>); resolves to the <c>CreateMessageResult</c> JSON.</summary>
        public Task<string> SampleAsync(string paramsJson, CancellationToken cancellationToken = default(CancellationToken))
        {
            return AskClientAsync("sampling/createMessage", paramsJson, cancellationToken);
        }

        /// <summary>Asks the user through the client (<c>elicitation/create</c>); resolves to the <c>ElicitResult</c> JSON.</summary>
        public Task<string> ElicitAsync(string paramsJson, CancellationToken cancellationToken = default(CancellationToken))
        {
            return AskClientAsync("elicitation/create", paramsJson, cancellationToken);
        }

        /// <summary>
        /// Asks the user through the client to fill in a form of <typeparamref name="T"/>'s
        /// members (<c>elicitation/create</c>): its schema is derived from
        /// <typeparamref name="T"/> (a flat class of strings, numbers, booleans and enums;
        /// <c>[Description]</c>s shown; nullable members and ones with a default optional), and
        /// an accepted answer is read into a <typeparamref name="T"/>. A form no client could
        /// render (a nested object...) is refused by the engine, naming the member, before
        /// anything is sent. Throws as <see cref="AskClientAsync"/> does.
        /// <code>
        /// var answer = await ctx.ElicitAsync&lt;Confirm&gt;("Delete " + name + "?", ct);
        /// if (!answer.IsAccepted || !answer.Content.Confirm) return "kept";
        /// </code>
        /// </summary>
        public async Task<McpElicitResult<T>> ElicitAsync<T>(string message, CancellationToken cancellationToken = default(CancellationToken))
        {
            var request = new Dictionary<string, object>
            {
                { "message", message ?? "" },
                { "requestedSchema", JsonSchema.Of(typeof(T), SchemaUse.Form) },
            };
            Dictionary<string, object> reply = JsonCodec.Object(await ElicitAsync(JsonCodec.Write(request), cancellationToken).ConfigureAwait(false));
            object action, content;
            reply.TryGetValue("action", out action);
            bool accepted = action as string == "accept" && reply.TryGetValue("content", out content) && content != null;
            return new McpElicitResult<T>(action as string, accepted ? (T)JsonCodec.To(reply["content"], typeof(T), "content") : default(T));
        }

        /// <summary>
        /// This request's progress (<see cref="ReportProgress"/>), as an <see cref="IProgress{T}"/>:
        /// each report is sent at once, nothing if the client asked for none.
        /// </summary>
        public IProgress<McpProgress> Progress
        {
            get { return new ContextProgress(this); }
        }

        private sealed class ContextProgress : IProgress<McpProgress>
        {
            private readonly McpRequestContext _ctx;

            internal ContextProgress(McpRequestContext ctx)
            {
                _ctx = ctx;
            }

            public void Report(McpProgress value)
            {
                _ctx.ReportProgress(value.Progress, value.Total, value.Message);
            }
        }

        /// <summary>Lists the client's roots (<c>roots/list</c>); resolves to the <c>ListRootsResult</c> JSON.</summary>
        public Task<string> ListRootsAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return AskClientAsync("roots/list", null, cancellationToken);
        }

        /// <summary>
        /// In an escalating tool (its definition says <c>"escalating": true</c>, which clients
        /// do not see): continues the call as a task, so that questions asked from then on
        /// are the task's and the handler's result is the task's. Resolves to true once the
        /// call is a task, false when it stays inline (the client did not call it as a task).
        /// </summary>
        /// <example><code>
        /// server.AddTool(@"{""name"":""report"",""inputSchema"":{""type"":""object""},
        ///                  ""execution"":{""taskSupport"":""optional""},""escalating"":true}",
        ///     async (args, ctx, ct) => {
        ///         string answer = await ctx.ElicitAsync(question, ct); // asked inline
        ///         await ctx.EscalateToTaskAsync(ct);                   // the rest runs as a task
        ///         return McpJson.TextResult(await Build(answer));
        ///     });
        /// </code></example>
        public async Task<bool> EscalateToTaskAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            string json = await Call("escalate", null, cancellationToken).ConfigureAwait(false);
            return json.Trim() == "true";
        }

        /// <summary>Reads one of this server's own resources as a client would, with this request's session; resolves to the <c>ReadResourceResult</c> JSON.</summary>
        public Task<string> ReadResourceAsync(string uri, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Call("resources/read", "{\"uri\":" + McpJson.Quote(uri ?? "") + "}", cancellationToken);
        }

        /// <summary>In a middleware's call: runs the rest of the chain with <paramref name="paramsJson"/> (null: the params the middleware got); resolves to its result JSON.</summary>
        internal Task<string> NextAsync(string paramsJson, CancellationToken cancellationToken)
        {
            return Call("next", paramsJson, cancellationToken);
        }

        /// <summary>Over Streamable HTTP, ends the SSE stream this request answers on; the client reconnects and still gets the result. Nothing over stdio.</summary>
        public void EndResponseStream()
        {
            CallNow("end response stream", null);
        }
    }

    /// <summary>
    /// A handler: receives the arguments as JSON text (tools, prompts; for resources
    /// <c>{"uri", "variables"}</c>), the request context and a CancellationToken that fires
    /// when the client cancels; returns the result as JSON text (<c>CallToolResult</c>,
    /// <c>ReadResourceResult</c>, <c>GetPromptResult</c>; see <see cref="McpJson"/>).
    /// Throw <see cref="McpException"/> for a JSON-RPC error with a code; any other exception
    /// fails the request (a tool then answers an <c>isError</c> result with its message).
    /// </summary>
    public delegate Task<string> McpHandler(string argumentsJson, McpRequestContext context, CancellationToken cancellationToken);

    /// <summary>
    /// A middleware around every request a server routes: receives the request as JSON text
    /// (<c>{"method": ..., "params": {...}}</c>), its context, and <paramref name="next"/>, which
    /// runs the rest of the chain with the params JSON it is given (null: unchanged) and
    /// resolves to the result JSON. Returns the result JSON: next's, changed, or its own
    /// without calling next. Throw <see cref="McpException"/> for a JSON-RPC error.
    /// </summary>
    public delegate Task<string> McpMiddleware(string requestJson, McpRequestContext context, Func<string, Task<string>> next, CancellationToken cancellationToken);

    /// <summary>
    /// How a server keeps the tasks of its tools that run as tasks (the tasks extension: a tool
    /// whose definition has <c>"execution": {"taskSupport": "optional"}</c> or
    /// <c>"required"</c>); pass it to the <see cref="McpServer"/> constructor. Past
    /// <see cref="MaxTasks"/> or <see cref="MaxRunning"/>, a call that would start a task is
    /// refused.
    /// </summary>
    public sealed class McpTaskOptions
    {
        /// <summary>How long a task is kept after its creation (then <c>tasks/get</c> answers
        /// -32602); null: no limit. Default: an hour.</summary>
        public TimeSpan? Ttl { get; set; } = TimeSpan.FromHours(1);

        /// <summary>How often clients are asked to poll a task. Default: 500 ms.</summary>
        public TimeSpan PollInterval { get; set; } = TimeSpan.FromMilliseconds(500);

        /// <summary>How many tasks are kept at most. Default: 10000.</summary>
        public int MaxTasks { get; set; } = 10000;

        /// <summary>How many tasks run at once at most. Default: 1000.</summary>
        public int MaxRunning { get; set; } = 1000;

        /// <summary>The engine's task options (JSON, camelCase).</summary>
        internal string ToJson()
        {
            var c = System.Globalization.CultureInfo.InvariantCulture;
            return "{\"ttlMs\":" + (Ttl.HasValue ? Millis(Ttl.Value).ToString(c) : "null") +
                   ",\"pollIntervalMs\":" + Millis(PollInterval).ToString(c) +
                   ",\"maxTasks\":" + MaxTasks.ToString(c) + ",\"maxRunning\":" + MaxRunning.ToString(c) + "}";
        }

        // Whole milliseconds (a negative span stays negative: the engine refuses it).
        private static long Millis(TimeSpan t)
        {
            return (long)Math.Round(t.TotalMilliseconds);
        }
    }

    /// <summary>
    /// An MCP server whose tools, resources and prompts are C# functions; serves over stdio or
    /// Streamable HTTP on the oxmcp engine (which validates arguments, correlates, cancels).
    /// <code>
    /// using (var server = new McpServer("demo", "1.0.0"))
    /// {
    ///     server.AddTool("echo", "Echoes", "{\"type\":\"object\"}", (args, ct) => Task.FromResult(McpJson.TextResult(args)));
    ///     await server.ServeStdioAsync();
    /// }
    /// </code>
    /// </summary>
    public sealed partial class McpServer : IDisposable
    {
        private static readonly Native.HandlerFn OnRequestFn = OnRequest;
        private static readonly Registry<McpHandler> Handlers = new Registry<McpHandler>();
        private static readonly Native.TokenVerifierFn OnVerifyFn = OnVerify;
        private static readonly Registry<Func<string, CancellationToken, Task<McpAuth>>> Verifiers =
            new Registry<Func<string, CancellationToken, Task<McpAuth>>>();

        private readonly ServerHandle _handle;
        private readonly List<long> _handlerIds = new List<long>();
        private readonly List<long> _verifierIds = new List<long>();
        /// <summary>The servers and clients mounted here: alive as long as this server is.</summary>
        private readonly List<object> _mounted = new List<object>();

        /// <summary>
        /// A server named <paramref name="name"/> on <paramref name="runtime"/> (default:
        /// <see cref="McpRuntime.Default"/>). <paramref name="tasks"/> sets how it keeps the tasks
        /// of tools that run as tasks (see <see cref="McpTaskOptions"/>; null: the defaults); bad
        /// options throw <see cref="McpException"/> with <see cref="McpStatus.InvalidInput"/>.
        /// <code>
        /// var server = new McpServer("jobs", "1.0.0", tasks: new McpTaskOptions { Ttl = TimeSpan.FromMinutes(5), MaxRunning = 8 });
        /// </code>
        /// </summary>
        public McpServer(string name, string version, string instructions = null, McpRuntime runtime = null, McpTaskOptions tasks = null)
        {
            runtime = runtime ?? McpRuntime.Default;
            ServerHandle h;
            McpException.Check(Native.oxmcp_server_new(runtime.Handle, Native.Z(name), Native.Z(version), out h));
            _handle = h;
            try
            {
                if (instructions != null) McpException.Check(Native.oxmcp_server_set_instructions(_handle, Native.Z(instructions)));
                if (tasks != null)
                {
                    byte[] json = Native.Bytes(tasks.ToJson());
                    McpException.Check(Native.oxmcp_server_set_task_options(_handle, json, Native.Len(json)));
                }
            }
            catch
            {
                _handle.Dispose();
                throw;
            }
        }

        /// <summary>Registers a tool from its full definition JSON (<c>{"name", "inputSchema", ...}</c>).</summary>
        public void AddTool(string toolJson, McpHandler handler)
        {
            Register("tool", toolJson, handler);
        }

        /// <summary>Registers a tool with a name, description and input schema (JSON).</summary>
        public void AddTool(string name, string description, string inputSchemaJson, McpHandler handler)
        {
            AddTool("{\"name\":" + McpJson.Quote(name) + ",\"description\":" + McpJson.Quote(description ?? "") +
                    ",\"inputSchema\":" + (inputSchemaJson ?? "{\"type\":\"object\"}") + "}", handler);
        }

        /// <summary>Registers a tool whose handler needs no context.</summary>
        public void AddTool(string name, string description, string inputSchemaJson, Func<string, CancellationToken, Task<string>> handler)
        {
            AddTool(name, description, inputSchemaJson, (args, ctx, ct) => handler(args, ct));
        }

        /// <summary>Tells the clients subscribed to <paramref name="uri"/> that it changed (nothing before serving).</summary>
        public void NotifyResourceUpdated(string uri)
        {
            McpException.Check(Native.oxmcp_server_notify_resource_updated(_handle, Native.Z(uri)));
        }

        /// <summary>How many clients are connected (sessions over stdio or HTTP; 0 before serving).</summary>
        public long SessionCount
        {
            get
            {
                UIntPtr n;
                McpException.Check(Native.oxmcp_server_session_count(_handle, out n));
                return (long)n.ToUInt64();
            }
        }

        /// <summary>
        /// Adds a middleware around every request the server routes (tool calls, reads, prompts,
        /// completion and their lists), in both eras; the first added is the outermost. Before serving.
        /// <code>
        /// server.Use(async (request, ctx, next, ct) => {
        ///     var started = Stopwatch.StartNew();
        ///     try { return await next(null); } finally { Console.Error.WriteLine(request + " " + started.ElapsedMilliseconds + " ms"); }
        /// });
        /// </code>
        /// </summary>
        public void Use(McpMiddleware middleware)
        {
            if (middleware == null) throw new ArgumentNullException("middleware");
            Register("middleware", null, (request, ctx, ct) => middleware(request, ctx, p => ctx.NextAsync(p, ct), ct));
        }

        /// <summary>
        /// Serves <paramref name="other"/>'s tools, prompts, resources and templates under
        /// <paramref name="prefix"/>: names become <c>prefix_name</c>, URIs take the prefix as
        /// their first path segment. What <paramref name="other"/> has when this server starts
        /// serving (or now, when it serves) is served; it is kept alive with this server.
        /// <code>
        /// main.Mount("weather", weather); // weather's "forecast" is served as "weather_forecast"
        /// </code>
        /// </summary>
        public void Mount(string prefix, McpServer other)
        {
            if (other == null) throw new ArgumentNullException("other");
            McpException.Check(Native.oxmcp_server_mount(_handle, Native.Z(prefix), other._handle));
            lock (_mounted) _mounted.Add(other);
        }

        /// <summary>
        /// Serves what the server at the other end of <paramref name="client"/> (connected)
        /// offers under <paramref name="prefix"/>, each call forwarded. This starts the engine's
        /// server: templates, completion and middleware must be registered before. The client is
        /// kept alive with this server.
        /// </summary>
        public async Task MountClientAsync(string prefix, McpClient client, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (client == null) throw new ArgumentNullException("client");
            byte[] p = Native.Z(prefix);
            await Pending.Run((IntPtr ud, out RequestHandle req) =>
                Native.oxmcp_server_mount_client(_handle, p, client.Handle, Pending.OnComplete, ud, out req), cancellationToken).ConfigureAwait(false);
            lock (_mounted) _mounted.Add(client);
        }

        /// <summary>Removes the tool <paramref name="name"/>, staged or live (connected clients are told the list changed); whether the server had it.</summary>
        public bool RemoveTool(string name)
        {
            return Remove("tool", name);
        }

        /// <summary>Removes the prompt <paramref name="name"/> as <see cref="RemoveTool"/> removes a tool.</summary>
        public bool RemovePrompt(string name)
        {
            return Remove("prompt", name);
        }

        /// <summary>Removes the resource at <paramref name="uri"/> as <see cref="RemoveTool"/> removes a tool.</summary>
        public bool RemoveResource(string uri)
        {
            return Remove("resource", uri);
        }

        /// <summary>Removes what <paramref name="key"/> names of <paramref name="kind"/> through the engine's door.</summary>
        private bool Remove(string kind, string key)
        {
            bool removed;
            McpException.Check(Native.oxmcp_server_remove(_handle, Native.Z(kind), Native.Z(key), out removed));
            return removed;
        }

        /// <summary>Registers a resource (<c>{"uri", "name", "mimeType", ...}</c>).</summary>
        public void AddResource(string resourceJson, McpHandler handler)
        {
            Register("resource", resourceJson, handler);
        }

        /// <summary>Registers a resource template (<c>{"uriTemplate", "name", ...}</c>) before serving.</summary>
        public void AddResourceTemplate(string templateJson, McpHandler handler)
        {
            Register("resource template", templateJson, handler);
        }

        /// <summary>Registers a prompt (<c>{"name", "arguments": [...]}</c>).</summary>
        public void AddPrompt(string promptJson, McpHandler handler)
        {
            Register("prompt", promptJson, handler);
        }

        /// <summary>
        /// Serves an Agent Skill (the <c>io.modelcontextprotocol/skills</c> extension):
        /// <paramref name="files"/> maps each file's path in the skill to its text,
        /// <c>SKILL.md</c> (with <c>name</c> and <c>description</c> in its YAML frontmatter)
        /// among them. Clients find it with <c>skills/list</c> and read its files at
        /// <c>skill://&lt;skillPath&gt;/&lt;file&gt;</c>; the last segment of
        /// <paramref name="skillPath"/> must be the skill's <c>name</c>. Checked now (a skill
        /// breaking the extension's rules throws <see cref="McpException"/> with
        /// <see cref="McpStatus.InvalidInput"/>); may be called while serving.
        /// <code>
        /// server.AddSkill("git-workflow", new Dictionary&lt;string, string&gt;
        /// {
        ///     ["SKILL.md"] = "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n",
        ///     ["references/naming.md"] = "feature/&lt;ticket&gt;-&lt;slug&gt;\n",
        /// });
        /// </code>
        /// </summary>
        public void AddSkill(string skillPath, IDictionary<string, string> files)
        {
            if (files == null) throw new ArgumentNullException("files");
            var b = new System.Text.StringBuilder("{");
            foreach (KeyValuePair<string, string> f in files)
                b.Append(b.Length > 1 ? "," : "").Append(McpJson.Quote(f.Key)).Append(':').Append(McpJson.Quote(f.Value));
            byte[] json = Native.Bytes(b.Append('}').ToString());
            McpException.Check(Native.oxmcp_server_add_skill(_handle, Native.Z(skillPath), json, Native.Len(json)));
        }

        /// <summary>
        /// Serves every skill under the directory <paramref name="root"/>: each directory below
        /// it holding a <c>SKILL.md</c>, at its path relative to <paramref name="root"/>
        /// (<c>root/acme/refunds/SKILL.md</c> is <c>skill://acme/refunds/SKILL.md</c>), with all
        /// its files (binary ones too). Read and checked now; throws <see cref="McpException"/>
        /// with <see cref="McpStatus.InvalidInput"/> when none is found or one breaks the rules.
        /// </summary>
        public void AddSkillsDirectory(string root)
        {
            McpException.Check(Native.oxmcp_server_add_skills_dir(_handle, Native.Z(root)));
        }

        /// <summary>
        /// Sets the completion handler (before serving): it receives the <c>completion/complete</c>
        /// params JSON and returns a <c>Completion</c> (<c>{"values": [...]}</c>); the engine caps
        /// the values at 100 (setting <c>total</c> and <c>hasMore</c>).
        /// </summary>
        public void SetCompletion(McpHandler handler)
        {
            Register("completion", null, handler);
        }

        /// <summary>
        /// Checks the access tokens of a listener started with <c>auth</c> (<see cref="McpHttpAuth"/>)
        /// with <paramref name="verifier"/> instead of the built-in JWT check: it receives each
        /// bearer token a client presents and returns who the token speaks for (its scopes are
        /// checked against the listener's <see cref="McpHttpAuth.Scopes"/>), or null — or throws —
        /// to refuse it (the client gets 401 and <see cref="McpStatus.Unauthorized"/>). Handlers
        /// see the identity in <see cref="McpRequestContext.Auth"/>. Set it before
        /// <see cref="StartHttp"/>.
        /// <code>
        /// server.VerifyTokens(async (token, ct) =>
        ///     token == "s3cret" ? new McpAuth("alice", new[] { "mcp:read" }) : null);
        /// </code>
        /// </summary>
        public void VerifyTokens(Func<string, CancellationToken, Task<McpAuth>> verifier)
        {
            if (verifier == null) throw new ArgumentNullException("verifier");
            long id = Verifiers.Add(verifier);
            int status = Native.oxmcp_server_verify_tokens(_handle, OnVerifyFn, new IntPtr(id));
            if (status != 0)
            {
                Verifiers.Remove(id);
                throw McpException.Last(status);
            }
            lock (_handlerIds) _verifierIds.Add(id);
        }

        /// <summary>
        /// Registers a definition of a handler kind (<c>tool</c>, <c>resource</c>,
        /// <c>resource template</c>, <c>prompt</c>, <c>completion</c>, <c>middleware</c>) through
        /// the engine's door, which checks it (an invalid one throws <see cref="McpException"/>
        /// with <see cref="McpStatus.InvalidInput"/> naming what is wrong).
        /// </summary>
        private void Register(string kind, string json, McpHandler handler)
        {
            if (handler == null) throw new ArgumentNullException("handler");
            long id = Handlers.Add(handler);
            byte[] bytes = Native.Bytes(json);
            int status = Native.oxmcp_server_register(_handle, Native.Z(kind), bytes, Native.Len(bytes), OnRequestFn, new IntPtr(id));
            if (status != 0)
            {
                Handlers.Remove(id);
                throw McpException.Last(status);
            }
            lock (_handlerIds) _handlerIds.Add(id);
        }

        /// <summary>Serves one client on stdin/stdout; completes when stdin closes (or when cancelled).</summary>
        public Task ServeStdioAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return Pending.Run((IntPtr ud, out RequestHandle req) => Native.oxmcp_server_serve_stdio(_handle, Pending.OnComplete, ud, out req), cancellationToken);
        }

        /// <summary>
        /// Starts Streamable HTTP on <paramref name="bind"/> (<c>127.0.0.1:0</c> = a free port) at
        /// <paramref name="path"/>; returns the bound port. Stateless and JSON-response modes are flags.
        /// <paramref name="auth"/> requires OAuth access tokens (see <see cref="McpHttpAuth"/>);
        /// handlers see who a token speaks for in <see cref="McpRequestContext.Auth"/>.
        /// <paramref name="redis"/> (<c>redis://HOST:PORT</c>) shares sessions, streams, tasks and the
        /// requestState key with every server started on the same Redis, so that any number of them
        /// behind a load balancer act as one (start it before the server serves anything else).
        /// Only local <c>Host</c> and <c>Origin</c> values are accepted unless <paramref name="allowedHosts"/>
        /// and <paramref name="allowedOrigins"/> name others (a guard against DNS rebinding): a server
        /// reached under a container name or a public host name names it, or every request gets 403.
        /// <code>
        /// int port = server.StartHttp("127.0.0.1:0", auth: new McpHttpAuth("https://auth.example.com") { Scopes = new[] { "mcp:read" } });
        /// </code>
        /// </summary>
        public int StartHttp(string bind = "127.0.0.1:0", string path = "/mcp", bool stateless = false, bool jsonResponse = false, McpHttpAuth auth = null, string redis = null,
                             IEnumerable<string> allowedHosts = null, IEnumerable<string> allowedOrigins = null)
        {
            ushort port;
            int colon = (bind ?? "").LastIndexOf(':');
            int portNumber;
            if (colon < 0 || !int.TryParse(bind.Substring(colon + 1), out portNumber))
                throw new McpException(McpStatus.InvalidInput, bind + " is not host:port", null, null);
            string host = bind.Substring(0, colon).TrimStart('[').TrimEnd(']');
            string json = "{\"host\":" + McpJson.Quote(host) + ",\"port\":" + portNumber.ToString(System.Globalization.CultureInfo.InvariantCulture) +
                          ",\"path\":" + McpJson.Quote(path ?? "/mcp") + ",\"stateless\":" + (stateless ? "true" : "false") +
                          ",\"jsonResponse\":" + (jsonResponse ? "true" : "false") +
                          (auth != null ? ",\"auth\":" + auth.ToJson() : "") +
                          (redis != null ? ",\"redis\":" + McpJson.Quote(redis) : "") +
                          (allowedHosts != null ? ",\"allowedHosts\":" + Strings(allowedHosts) : "") +
                          (allowedOrigins != null ? ",\"allowedOrigins\":" + Strings(allowedOrigins) : "") + "}";
            byte[] options = Native.Bytes(json);
            McpException.Check(Native.oxmcp_server_start_http_options(_handle, options, Native.Len(options), out port));
            return port;
        }

        /// <summary>
        /// <see cref="StartHttp"/> off the calling thread: completes with the bound port once the
        /// listener is up (binding resolves host names, which may take a while).
        /// <code>
        /// int port = await server.StartHttpAsync("0.0.0.0:8080", allowedHosts: new[] { "mcp.example.com" });
        /// </code>
        /// </summary>
        public Task<int> StartHttpAsync(string bind = "127.0.0.1:0", string path = "/mcp", bool stateless = false, bool jsonResponse = false, McpHttpAuth auth = null, string redis = null,
                                        IEnumerable<string> allowedHosts = null, IEnumerable<string> allowedOrigins = null)
        {
            return Task.Run(() => StartHttp(bind, path, stateless, jsonResponse, auth, redis, allowedHosts, allowedOrigins));
        }

        private static string Strings(IEnumerable<string> values)
        {
            return "[" + string.Join(",", values.Select(McpJson.Quote)) + "]";
        }

        /// <summary>Stops the HTTP listener gracefully.</summary>
        public void StopHttp()
        {
            McpException.Check(Native.oxmcp_server_stop_http(_handle));
        }

        /// <summary>Releases the server: no handler starts afterwards; the HTTP listener closes.</summary>
        public void Dispose()
        {
            _handle.Dispose();
            lock (_handlerIds)
            {
                foreach (long id in _handlerIds) Handlers.Remove(id);
                _handlerIds.Clear();
                foreach (long id in _verifierIds) Verifiers.Remove(id);
                _verifierIds.Clear();
            }
        }

        // Runs on a native thread: hands the work to the thread pool and returns at once.
        private static void OnRequest(IntPtr userData, IntPtr request, IntPtr json, UIntPtr len)
        {
            McpHandler handler = Handlers.Get(userData.ToInt64());
            string args = Native.Utf8(json, len);
            Incoming.Answer(request, async (req, token) =>
            {
                if (handler == null) throw new McpException(-32603, "the handler is gone (server disposed)");
                var ctx = new McpRequestContext(req);
                // The host's activities nest under the engine's span for the request.
                using (Telemetry.Available ? Telemetry.Enter(ctx.TraceJson) : null)
                {
                    return await handler(args, ctx, token).ConfigureAwait(false);
                }
            });
        }

        // Runs on a native thread, like OnRequest: the verifier runs on the thread pool.
        private static void OnVerify(IntPtr userData, IntPtr request, IntPtr token)
        {
            Func<string, CancellationToken, Task<McpAuth>> verifier = Verifiers.Get(userData.ToInt64());
            string bearer = Native.Utf8Z(token);
            Incoming.Answer(request, async (req, ct) =>
            {
                if (verifier == null) throw new InvalidOperationException("the token verifier is gone (server disposed)");
                McpAuth who = await verifier(bearer, ct).ConfigureAwait(false);
                if (who == null) throw new UnauthorizedAccessException("the token was refused");
                return who.Json;
            });
        }
    }
}
