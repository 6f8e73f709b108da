package dev.oxmcp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An MCP client over stdio (a child process it starts) or Streamable HTTP. Every call
 * returns a {@link CompletableFuture} of JSON text; {@code future.cancel(true)} (or
 * {@code orTimeout}) cancels the request in the engine, which sends
 * {@code notifications/cancelled} to the server. Failures are {@link McpException}s.
 *
 * <pre>{@code
 * try (McpClient client = McpClient.connect(McpClient.Options.stdio("oxmcp", "everything-server", "--stdio")).join()) {
 *     String tools = client.listTools().join();               // a JSON array
 *     String result = client.callTool("echo", "{\"text\":\"hi\"}").join();
 * }
 * }</pre>
 */
public final class McpClient implements AutoCloseable {

    /** Receives the server's notifications (logs, progress, list changes, ...). */
    @FunctionalInterface
    public interface NotificationListener {
        /**
         * One notification, delivered in order on an oxmcp event thread (keep it short).
         *
         * @param method e.g. {@code notifications/message}
         * @param paramsJson its params as a JSON object
         */
        void onNotification(String method, String paramsJson);
    }

    /** How to reach the server, and client settings. */
    public static final class Options {
        private String command;
        private List<String> args = List.of();
        private final Map<String, String> env = new LinkedHashMap<>();
        private String cwd;
        private String url;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private String name = "oxmcp-java";
        private String version = Native.VERSION;
        private Duration requestTimeout;
        private String era;
        private NotificationListener listener;
        private ClientRequestHandler sampling;
        private ClientRequestHandler elicitation;
        private ClientRequestHandler roots;
        private OAuth oauth;

        private Options() {}

        /**
         * A server started as a child process, spoken to over its stdin/stdout.
         *
         * @param command the program
         * @param args its arguments
         * @return options
         */
        public static Options stdio(String command, String... args) {
            Options o = new Options();
            o.command = command;
            o.args = Arrays.asList(args);
            return o;
        }

        /**
         * A server started as a child process.
         *
         * @param commandLine the program and its arguments
         * @return options
         */
        public static Options stdio(List<String> commandLine) {
            return stdio(commandLine.get(0), commandLine.subList(1, commandLine.size()).toArray(new String[0]));
        }

        /**
         * A Streamable HTTP server (legacy HTTP+SSE servers are detected too).
         *
         * @param url the endpoint, e.g. {@code http://127.0.0.1:3000/mcp}
         * @return options
         */
        public static Options http(String url) {
            Options o = new Options();
            o.url = url;
            return o;
        }

        /**
         * @param key an environment variable for the child process
         * @param value its value
         * @return these options
         */
        public Options env(String key, String value) {
            env.put(key, value);
            return this;
        }

        /**
         * @param dir the child process's working directory
         * @return these options
         */
        public Options workingDirectory(String dir) {
            cwd = dir;
            return this;
        }

        /**
         * @param header an HTTP header sent with every request (e.g. Authorization)
         * @param value its value
         * @return these options
         */
        public Options header(String header, String value) {
            headers.put(header, value);
            return this;
        }

        /**
         * @param name the client's name ({@code clientInfo})
         * @param version the client's version
         * @return these options
         */
        public Options clientInfo(String name, String version) {
            this.name = name;
            this.version = version;
            return this;
        }

        /**
         * @param timeout the default inactivity timeout of every request (engine default: 60 s)
         * @return these options
         */
        public Options requestTimeout(Duration timeout) {
            this.requestTimeout = timeout;
            return this;
        }

        /**
         * @param listener receives the server's notifications
         * @return these options
         */
        public Options onNotification(NotificationListener listener) {
            this.listener = listener;
            return this;
        }

        /**
         * Which protocol era to speak: {@code "auto"} (the default: probe with
         * {@code server/discover}, fall back to {@code initialize} for older servers),
         * {@code "session"} or {@code "stateless"} (2026-07-28).
         *
         * @param era auto, session or stateless
         * @return these options
         */
        public Options era(String era) {
            this.era = era;
            return this;
        }

        /**
         * Answers {@code sampling/createMessage} (declares the sampling capability).
         *
         * @param handler returns a {@code CreateMessageResult}
         * @return these options
         */
        public Options onSampling(ClientRequestHandler handler) {
            this.sampling = handler;
            return this;
        }

        /**
         * Answers {@code elicitation/create} (declares the elicitation capability).
         *
         * @param handler returns an {@code ElicitResult}
         * @return these options
         */
        public Options onElicitation(ClientRequestHandler handler) {
            this.elicitation = handler;
            return this;
        }

        /**
         * Answers {@code roots/list} (declares the roots capability).
         *
         * @param handler returns a {@code ListRootsResult}
         * @return these options
         */
        public Options onRoots(ClientRequestHandler handler) {
            this.roots = handler;
            return this;
        }

        /**
         * Authorizes at a protected HTTP server with OAuth: client credentials, a client
         * registered beforehand or dynamically, and the authorization code grant through
         * {@link OAuth#onAuthorize}. Without it a protected server refuses the client with
         * {@link McpException.Kind#UNAUTHORIZED}.
         *
         * <pre>{@code
         * McpClient.connect(McpClient.Options.http(url).oauth(OAuth.clientCredentials("machine", secret))).join();
         * }</pre>
         *
         * @param oauth the client's OAuth options
         * @return these options
         */
        public Options oauth(OAuth oauth) {
            this.oauth = oauth;
            return this;
        }

        /** The engine's connect options (JSON): the server requests answered are {@code answers}. */
        String toJson() {
            StringBuilder b = new StringBuilder("{");
            b.append("\"name\":").append(Json.quote(name)).append(",\"version\":").append(Json.quote(version));
            List<String> answers = new ArrayList<>();
            if (sampling != null) {
                answers.add(Json.quote("sampling"));
            }
            if (elicitation != null) {
                answers.add(Json.quote("elicitation"));
            }
            if (roots != null) {
                answers.add(Json.quote("roots"));
            }
            if (oauth != null && oauth.authorizeHandler() != null) {
                answers.add(Json.quote("authorize"));
            }
            b.append(",\"answers\":[").append(String.join(",", answers)).append(']');
            if (era != null) {
                b.append(",\"era\":").append(Json.quote(era));
            }
            if (requestTimeout != null) {
                b.append(",\"requestTimeoutMs\":").append(Math.max(1, requestTimeout.toMillis()));
            }
            if (command != null) {
                b.append(",\"command\":").append(Json.quote(command)).append(",\"args\":[");
                for (int i = 0; i < args.size(); i++) {
                    b.append(i > 0 ? "," : "").append(Json.quote(args.get(i)));
                }
                b.append("],\"env\":").append(Json.objectOfStrings(env));
                if (cwd != null) {
                    b.append(",\"cwd\":").append(Json.quote(cwd));
                }
            }
            if (url != null) {
                b.append(",\"url\":").append(Json.quote(url)).append(",\"headers\":").append(Json.objectOfStrings(headers));
                if (oauth != null) {
                    b.append(',').append(oauth.toJsonMembers());
                }
            }
            return b.append('}').toString();
        }
    }

    private long handle;
    private final long listenerId;
    private final long handlerId;
    private final String initializeResult;

    private McpClient(long handle, long listenerId, long handlerId, String initializeResult) {
        this.handle = handle;
        this.listenerId = listenerId;
        this.handlerId = handlerId;
        this.initializeResult = initializeResult;
    }

    /** One handler for the server's requests, by method (0 when the client answers none). */
    private static long register(Options options) {
        // The handlers set now: later changes to the options do not reach this client.
        ClientRequestHandler sampling = options.sampling;
        ClientRequestHandler elicitation = options.elicitation;
        ClientRequestHandler roots = options.roots;
        Function<String, CompletableFuture<String>> authorize = options.oauth != null ? options.oauth.authorizeHandler() : null;
        if (sampling == null && elicitation == null && roots == null && authorize == null) {
            return 0;
        }
        return Native.addHandler((params, method, ctx) -> {
            // The handler's spans are children of the span the server's request names in its
            // _meta (when the application traces with OpenTelemetry).
            try (Telemetry.Exit traced = Telemetry.enterMeta(params)) {
                return switch (method) {
                    case "sampling/createMessage" -> sampling.handle(params, ctx);
                    case "elicitation/create" -> elicitation.handle(params, ctx);
                    case "roots/list" -> roots.handle(params, ctx);
                    // The engine's OAuth client asks for the user's browser: {"url",
                    // "redirectUri"} in, the URL the browser came back to (a JSON string) out.
                    case "authorize" -> {
                        CompletableFuture<String> landed = authorize.apply(Json.unquote(Json.members(params).get("url")));
                        if (landed == null) {
                            throw new IllegalStateException("the authorize handler returned a null future");
                        }
                        yield landed.thenApply(Json::quote);
                    }
                    default -> throw new IllegalStateException("no handler for the server's " + method + " request");
                };
            }
        });
    }

    private static void forget(long listener, long handler) {
        if (listener != 0) {
            Native.removeListener(listener);
        }
        if (handler != 0) {
            Native.removeHandler(handler);
        }
    }

    /**
     * Connects and initializes the session.
     *
     * @param options where the server is
     * @return the connected client
     */
    public static CompletableFuture<McpClient> connect(Options options) {
        long listener = options.listener != null ? Native.addListener(options.listener) : 0;
        long handler = register(options);
        String json = options.toJson();
        CompletableFuture<McpClient> f = Native.call(d -> new McpClient(d.handle(), listener, handler, d.json()), null,
                id -> Native.clientConnect(json, handler, listener, id));
        f.whenComplete((c, e) -> {
            if (e != null) {
                forget(listener, handler);
            }
        });
        return f;
    }

    /**
     * Starts {@code command} and connects over stdio.
     *
     * @param command the program
     * @param args its arguments
     * @return the connected client
     */
    public static CompletableFuture<McpClient> connectStdio(String command, String... args) {
        return connect(Options.stdio(command, args));
    }

    /**
     * Connects over Streamable HTTP.
     *
     * @param url the endpoint
     * @return the connected client
     */
    public static CompletableFuture<McpClient> connectHttp(String url) {
        return connect(Options.http(url));
    }

    /** The engine's handle (for a server mounting this client). */
    long nativeHandle() {
        return live();
    }

    private synchronized long live() {
        if (handle == 0) {
            throw new McpException(McpException.Kind.CLOSED, null, "the client is closed", null);
        }
        return handle;
    }

    /** {@code op}: the MCP method (or {@code request}); the engine reads {@code a} and {@code b} per method. */
    private CompletableFuture<String> call(String op, String a, String b, RequestOptions options) {
        return call(op, a, b, options, Native.Done::json);
    }

    /** {@link #call(String, String, String, RequestOptions)}, its JSON read by {@code convert} (the future stays cancellable). */
    private <T> CompletableFuture<T> call(String op, String a, String b, RequestOptions options, Function<Native.Done, T> convert) {
        long client;
        try {
            client = live();
        } catch (McpException e) {
            return CompletableFuture.failedFuture(e);
        }
        RequestOptions o = options == null ? RequestOptions.defaults() : options;
        // The caller's current OpenTelemetry span, if any, is the parent of the call's requests.
        String[] trace = Telemetry.current();
        String traceparent = trace == null ? null : trace[0];
        String tracestate = trace == null ? null : trace[1];
        return Native.call(convert, o.progress,
                id -> Native.clientCall(client, op, a, b, o.timeoutMillis(), o.progress != null, traceparent, tracestate, id));
    }

    private CompletableFuture<Void> callVoid(String op, String a) {
        return call(op, a, null, null).thenApply(x -> null);
    }

    /** @return the server's {@code initialize} result (JSON) */
    public String initializeResult() {
        return initializeResult;
    }

    /** @return completes when the server answered {@code ping} */
    public CompletableFuture<String> ping() {
        return call("ping", null, null, null);
    }

    /** @return every tool (following cursors), as a JSON array */
    public CompletableFuture<String> listTools() {
        return call("tools/list", null, null, null);
    }

    /** @return every resource, as a JSON array */
    public CompletableFuture<String> listResources() {
        return call("resources/list", null, null, null);
    }

    /** @return every resource template, as a JSON array */
    public CompletableFuture<String> listResourceTemplates() {
        return call("resources/templates/list", null, null, null);
    }

    /** @return every prompt, as a JSON array */
    public CompletableFuture<String> listPrompts() {
        return call("prompts/list", null, null, null);
    }

    /**
     * Every skill the server lists (the {@code io.modelcontextprotocol/skills} extension, all
     * pages). No file is fetched.
     *
     * @return the entries, as a JSON array: each with its {@code uri} (of its {@code SKILL.md}),
     *     {@code frontmatter} and {@code resources}
     */
    public CompletableFuture<String> listSkills() {
        return call("skills/list", null, null, null);
    }

    /**
     * The entry of one skill ({@code skills/get}); a server serving none there fails with
     * the JSON-RPC error -32602.
     *
     * @param uri the URI of its {@code SKILL.md}, e.g. {@code skill://git-workflow/SKILL.md}
     * @return the entry JSON
     */
    public CompletableFuture<String> getSkill(String uri) {
        return call("skills/get", uri, null, null);
    }

    /**
     * The direct children of a directory resource ({@code resources/directory/read}, all
     * pages), such as a skill's root {@code skill://git-workflow}.
     *
     * @param uri the directory's URI
     * @return the children, as a JSON array of resources (a subdirectory has the
     *     {@code mimeType} {@code inode/directory})
     */
    public CompletableFuture<String> readDirectory(String uri) {
        return call("resources/directory/read", uri, null, null);
    }

    /**
     * Loads a skill known by its URI: the engine gets its entry ({@code skills/get}), then as
     * {@link #loadSkill(String, String)}.
     *
     * @param uri the URI of its {@code SKILL.md}
     * @return the entry and the markdown
     */
    public CompletableFuture<LoadedSkill> loadSkill(String uri) {
        return loadSkill(uri, null);
    }

    /**
     * Loads a skill: fetches its {@code SKILL.md} and checks it against the entry (size,
     * digest, frontmatter). A {@code SKILL.md} unlike its entry fails with
     * {@link McpException.Kind#PROTOCOL} (refresh the entry with {@link #getSkill}).
     *
     * <pre>{@code
     * LoadedSkill skill = client.loadSkill("skill://git-workflow/SKILL.md", entryJson).join();
     * System.out.println(skill.markdown());
     * }</pre>
     *
     * @param uri the URI of its {@code SKILL.md}
     * @param skillJson its entry, as {@link #listSkills} or {@link #getSkill} gave it (null: get it)
     * @return the entry and the markdown
     */
    public CompletableFuture<LoadedSkill> loadSkill(String uri, String skillJson) {
        return call("skills/load", uri, skillJson, null, d -> LoadedSkill.parse(d.json()));
    }

    /**
     * Reads one file of a skill, checked against the entry's size and digest. A file the entry
     * does not list is refused without a request, and one unlike its entry too: both fail with
     * {@link McpException.Kind#PROTOCOL}.
     *
     * @param path its path in the skill ({@code references/naming.md}) or its URI
     * @param skillJson the skill's entry (required: without it the call fails with
     *     {@link McpException.Kind#INVALID_INPUT})
     * @return the file's bytes
     */
    public CompletableFuture<byte[]> readSkillFile(String path, String skillJson) {
        return call("skills/read", path, skillJson, null, d -> Base64.getDecoder().decode(Json.unquote(d.json())));
    }

    /**
     * Calls a tool.
     *
     * @param name the tool
     * @param argumentsJson its arguments as a JSON object (or null)
     * @return the {@code CallToolResult} JSON (a tool failure is a result with {@code isError: true})
     */
    public CompletableFuture<String> callTool(String name, String argumentsJson) {
        return callTool(name, argumentsJson, null);
    }

    /**
     * Calls a tool with a timeout or progress listener.
     *
     * @param name the tool
     * @param argumentsJson its arguments as a JSON object (or null)
     * @param options timeout and progress
     * @return the {@code CallToolResult} JSON
     */
    public CompletableFuture<String> callTool(String name, String argumentsJson, RequestOptions options) {
        return call("tools/call", name, argumentsJson, options);
    }

    // ---- typed calls: records in, records out (the methods above give JSON text) ----------

    /**
     * Calls a tool with arguments given as a record, a map or JSON text; its result as a record.
     *
     * <pre>{@code
     * record Search(String query, String sort) {}
     * Types.CallToolResult r = client.call("search_notes", Map.of("search", new Search("milk", "newest"))).join();
     * System.out.println(r.text());
     * }</pre>
     *
     * @param name the tool
     * @param arguments a record, a map, JSON object text, or null
     * @return what the tool answered (a tool's failure is {@link Types.CallToolResult#isError()})
     */
    public CompletableFuture<Types.CallToolResult> call(String name, Object arguments) {
        return call(name, arguments, (RequestOptions) null);
    }

    /**
     * {@link #call(String, Object)} with a timeout or a progress listener.
     *
     * @param name the tool
     * @param arguments a record, a map, JSON object text, or null
     * @param options timeout and progress, or null
     * @return what the tool answered
     */
    public CompletableFuture<Types.CallToolResult> call(String name, Object arguments, RequestOptions options) {
        String json;
        try {
            json = arguments == null || arguments instanceof String ? (String) arguments : JsonCodec.write(arguments);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new McpException(McpException.Kind.INVALID_INPUT, null, e.getMessage(), null));
        }
        return call("tools/call", name, json, options, d -> typed(d.json(), Types::callToolResult));
    }

    /**
     * Calls a tool and reads its structured content as a {@code type} (a tool that gave none:
     * its text, for a {@code String}). A tool's failure completes exceptionally with
     * {@link McpException.Kind#HANDLER} and its text.
     *
     * <pre>{@code
     * record Hits(List<String> names) {}
     * Hits hits = client.call("search_notes", Map.of("search", Map.of("query", "milk")), Hits.class).join();
     * }</pre>
     *
     * @param name the tool
     * @param arguments a record, a map, JSON object text, or null
     * @param type what to read the structured content as
     * @param <T> the type
     * @return the structured content as a {@code T}
     */
    public <T> CompletableFuture<T> call(String name, Object arguments, Class<T> type) {
        return call(name, arguments).thenApply(r -> {
            if (r.isError()) {
                throw new McpException(McpException.Kind.HANDLER, null, name + " failed: " + r.text(), null);
            }
            if (r.structuredContent() == null && type == String.class) {
                return type.cast(r.text());
            }
            try {
                return r.structured(type);
            } catch (IllegalArgumentException e) {
                throw new McpException(McpException.Kind.PROTOCOL, null, name + "'s structured content is no " + type.getSimpleName() + ": " + e.getMessage(), null);
            }
        });
    }

    /** @return every tool (following cursors) */
    public CompletableFuture<List<Types.Tool>> tools() {
        return call("tools/list", null, null, null, d -> typed(d.json(), j -> Types.list(j, Types.Tool.class)));
    }

    /** @return every resource (following cursors) */
    public CompletableFuture<List<Types.Resource>> resources() {
        return call("resources/list", null, null, null, d -> typed(d.json(), j -> Types.list(j, Types.Resource.class)));
    }

    /** @return every resource template (following cursors) */
    public CompletableFuture<List<Types.ResourceTemplate>> resourceTemplates() {
        return call("resources/templates/list", null, null, null, d -> typed(d.json(), j -> Types.list(j, Types.ResourceTemplate.class)));
    }

    /** @return every prompt (following cursors) */
    public CompletableFuture<List<Types.Prompt>> prompts() {
        return call("prompts/list", null, null, null, d -> typed(d.json(), j -> Types.list(j, Types.Prompt.class)));
    }

    /**
     * @param uri the resource
     * @return its contents
     */
    public CompletableFuture<Types.ReadResourceResult> read(String uri) {
        return call("resources/read", uri, null, null, d -> typed(d.json(), Types::readResourceResult));
    }

    /**
     * @param name the prompt
     * @param arguments its arguments
     * @return its messages
     */
    public CompletableFuture<Types.GetPromptResult> prompt(String name, Map<String, String> arguments) {
        String json = JsonCodec.write(arguments == null ? Map.of() : arguments);
        return call("prompts/get", name, json, null, d -> typed(d.json(), Types::getPromptResult));
    }

    /** The engine's JSON as a typed value; what does not fit is the server's protocol error. */
    private static <T> T typed(String json, Function<String, T> read) {
        try {
            return read.apply(json);
        } catch (RuntimeException e) {
            throw new McpException(McpException.Kind.PROTOCOL, null, "the server's answer does not fit: " + e.getMessage(), null);
        }
    }

    /**
     * Calls a tool that the server may run as a task (the {@code io.modelcontextprotocol/tasks}
     * extension), and completes with its final result all the same: the engine polls the
     * task at the server's pace and answers what it asks with this client's handlers. Each
     * status reaches the options' progress listener (progress 1, 2, ...; the message is
     * {@code working}, {@code input_required}, {@code completed}...); cancelling the future
     * cancels the task. The options' timeout does not apply.
     *
     * <pre>{@code
     * String result = client.callToolAsTask("build", "{\"target\":\"release\"}",
     *     RequestOptions.defaults().onProgress((n, total, status) -> System.out.println(status))).join();
     * }</pre>
     *
     * @param name the tool
     * @param argumentsJson its arguments as a JSON object (or null)
     * @param options a progress listener for the statuses (or null)
     * @return the {@code CallToolResult} JSON
     */
    public CompletableFuture<String> callToolAsTask(String name, String argumentsJson, RequestOptions options) {
        return call("tools/call as task", name, argumentsJson, options);
    }

    /**
     * Starts a call of a tool as a task and completes at once (the task steps, taken by the
     * caller): nothing polls or answers for this client. Follow the task with
     * {@link #getTask}, answer its input requests with {@link #updateTask}, cancel it with
     * {@link #cancelTask}.
     *
     * @param name the tool
     * @param argumentsJson its arguments as a JSON object (or null)
     * @return {@code {"task": Task}} JSON when the server runs it as a task, or
     *     {@code {"result": CallToolResult}} when it answered at once
     */
    public CompletableFuture<String> startToolTask(String name, String argumentsJson) {
        return call("tools/call start task", name, argumentsJson, null);
    }

    /**
     * A task ({@code tasks/get}); an unknown task fails with the JSON-RPC error -32602.
     *
     * @param taskId the task
     * @return the task JSON: {@code taskId}, {@code status} ({@code working},
     *     {@code input_required}, {@code completed}, {@code failed}, {@code cancelled}),
     *     {@code statusMessage}, {@code createdAt}, {@code lastUpdatedAt}, {@code ttlMs},
     *     {@code pollIntervalMs}, and {@code result} / {@code error} / {@code inputRequests}
     *     (by key) as its status brings
     */
    public CompletableFuture<String> getTask(String taskId) {
        return call("tasks/get", taskId, null, null);
    }

    /**
     * Answers input requests of a task ({@code tasks/update}).
     *
     * @param taskId the task
     * @param responsesJson a JSON object of answers by the keys of its {@code inputRequests},
     *     e.g. {@code {"elicitation-1": {"action": "accept", "content": {...}}}}
     * @return completes when the server took the answers
     */
    public CompletableFuture<Void> updateTask(String taskId, String responsesJson) {
        return call("tasks/update", taskId, responsesJson, null).thenApply(x -> null);
    }

    /**
     * Cancels a task ({@code tasks/cancel}); {@link #getTask} then shows it {@code cancelled}.
     *
     * @param taskId the task
     * @return completes when the server took the cancel
     */
    public CompletableFuture<Void> cancelTask(String taskId) {
        return callVoid("tasks/cancel", taskId);
    }

    /**
     * @param uri the resource
     * @return the {@code ReadResourceResult} JSON
     */
    public CompletableFuture<String> readResource(String uri) {
        return call("resources/read", uri, null, null);
    }

    /**
     * @param name the prompt
     * @param argumentsJson its arguments, a JSON object of strings (or null)
     * @return the {@code GetPromptResult} JSON
     */
    public CompletableFuture<String> getPrompt(String name, String argumentsJson) {
        return call("prompts/get", name, argumentsJson, null);
    }

    /**
     * {@code completion/complete}.
     *
     * @param paramsJson {@code {"ref": {...}, "argument": {"name": ..., "value": ...}}}
     * @return the {@code CompleteResult} JSON
     */
    public CompletableFuture<String> complete(String paramsJson) {
        return call("completion/complete", null, paramsJson, null);
    }

    /**
     * @param level the minimum level of log messages the server sends
     * @return completes when the server accepted it
     */
    public CompletableFuture<Void> setLogLevel(String level) {
        return setLogLevel(level, null);
    }

    /**
     * {@link #setLogLevel(String)} with this call's options (its timeout).
     *
     * @param level the minimum level of log messages the server sends
     * @param options the call's options, or null for the defaults
     * @return completes when the server accepted it
     */
    public CompletableFuture<Void> setLogLevel(String level, RequestOptions options) {
        return call("logging/setLevel", level, null, options).thenApply(x -> null);
    }

    /**
     * @param uri a resource to receive {@code notifications/resources/updated} for
     * @return completes when subscribed
     */
    public CompletableFuture<Void> subscribe(String uri) {
        return callVoid("resources/subscribe", uri);
    }

    /**
     * @param uri a subscribed resource
     * @return completes when unsubscribed
     */
    public CompletableFuture<Void> unsubscribe(String uri) {
        return callVoid("resources/unsubscribe", uri);
    }

    /**
     * Any request, by method name.
     *
     * @param method e.g. {@code tools/call}
     * @param paramsJson its params (or null)
     * @param options timeout and progress (or null)
     * @return the result JSON
     */
    public CompletableFuture<String> request(String method, String paramsJson, RequestOptions options) {
        return call("request", method, paramsJson, options);
    }

    /** Tells the server the client's roots changed. */
    public void notifyRootsChanged() {
        McpException.check(Native.clientNotifyRootsChanged(live()));
    }

    /**
     * The era this connection settled on ({@link Options#era} asks for one).
     *
     * @return {@code "stateless"} (2026-07-28) or {@code "session"}
     */
    public String era() {
        return Native.clientStateless(live()) ? "stateless" : "session";
    }

    /**
     * @return requests sent and not yet answered (0 when nothing leaked; the stateless era's
     *         own subscriptions/listen stream is not counted)
     */
    public long pendingRequests() {
        return Native.clientPending(live());
    }

    /**
     * Closes the connection (a child process is stopped: stdin closed, then signals);
     * pending calls fail with {@link McpException.Kind#CLOSED}. Waits up to 10 seconds.
     * Idempotent.
     */
    @Override
    public void close() {
        long h;
        synchronized (this) {
            h = handle;
            handle = 0;
        }
        if (h == 0) {
            return;
        }
        try {
            Native.<Void>call(d -> null, null, id -> Native.clientClose(h, id)).get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // closing is best effort: the handle is gone either way
        } finally {
            forget(listenerId, handlerId);
        }
    }

}
