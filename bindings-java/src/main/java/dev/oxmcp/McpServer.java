package dev.oxmcp;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An MCP server whose tools, resources, prompts and completions are Java handlers
 * returning {@link CompletableFuture}s. The engine validates arguments against the
 * schemas, runs requests concurrently, and routes cancellation to the handlers.
 *
 * <pre>{@code
 * try (McpServer server = new McpServer("demo", "1.0.0")) {
 *     server.tool("add", "Adds two numbers.",
 *         "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}",
 *         (args, ctx) -> CompletableFuture.completedFuture(Json.textResult("...")));
 *     server.serveStdio().join();     // or: String url = server.startHttp("127.0.0.1", 0).join();
 * }
 * }</pre>
 *
 * <p>Registrations may happen before or after serving starts, except resource templates
 * and the completion handler (before). One server may serve stdio and HTTP at once.
 */
public final class McpServer implements AutoCloseable {
    /** Where blocking annotated methods run unless {@link #executor(Executor)} says: daemon threads, made as needed. */
    private static final Executor HANDLERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "oxmcp-handler");
        t.setDaemon(true);
        return t;
    });

    private long handle;
    private volatile Executor executor = HANDLERS;
    private final List<Long> handlers = new ArrayList<>();
    private final List<CompletableFuture<?>> serving = new ArrayList<>();

    /**
     * @param name the server's name (its {@code serverInfo})
     * @param version the server's version
     */
    public McpServer(String name, String version) {
        this(name, version, null);
    }

    /**
     * @param name the server's name
     * @param version the server's version
     * @param instructions instructions for the client's model, or null
     */
    public McpServer(String name, String version, String instructions) {
        this.handle = Native.serverNew(name, version, instructions);
    }

    private synchronized long live() {
        if (handle == 0) {
            throw new McpException(McpException.Kind.CLOSED, null, "the server is closed", null);
        }
        return handle;
    }

    /** {@code kind} is the engine's name: tool, resource, resource template, prompt, completion or middleware. */
    private McpServer register(String kind, String definition, Native.Invoker invoker) {
        long server = live();
        long id = Native.addHandler(invoker);
        String error = Native.serverRegister(server, kind, definition, id);
        if (error != null) {
            Native.removeHandler(id);
            throw McpException.fromNative(error);
        }
        synchronized (this) {
            handlers.add(id);
        }
        return this;
    }

    /**
     * Registers every {@link McpTool}, {@link McpResource} and {@link McpPrompt} method of
     * {@code target}'s class, called on {@code target}: the definitions and schemas derived
     * from the methods' parameters and return types (see {@link McpTool}), before or while
     * serving. Parameter names come from the class file: compile with {@code -parameters}
     * (Spring Boot's and Maven's usual setting), or name each with {@link McpParam}.
     *
     * <pre>{@code
     * class Notes {
     *     record Search(@McpParam(description = "text to look for") String query, Optional<Integer> limit) {}
     *     record Hits(List<String> names) {}
     *
     *     @McpTool(description = "Search the notes")
     *     Hits searchNotes(Search search) { ... }
     *
     *     @McpResource(uri = "notes://{name}", mimeType = "text/plain")
     *     String note(String name) { ... }
     * }
     * server.register(new Notes());
     * }</pre>
     *
     * @param target an instance whose class has annotated methods
     * @return this server
     * @throws IllegalArgumentException for a method no schema describes (naming it), or a class
     *     with no annotated method
     * @throws McpException ({@link McpException.Kind#INVALID_INPUT}) for a definition the engine refuses
     */
    public McpServer register(Object target) {
        Annotated.register(this, target.getClass(), target, executor);
        return this;
    }

    /**
     * Registers the annotated methods {@code type} declares, called on {@code target}: for an
     * instance of a subclass made at run time (a framework's proxy, whose own methods carry
     * no annotations), as Spring's auto-configuration does.
     *
     * <pre>{@code
     * server.register(Notes.class, proxiedNotes);
     * }</pre>
     *
     * @param type the class with the annotated methods
     * @param target an instance of it
     * @param <T> the type
     * @return this server
     */
    public <T> McpServer register(Class<T> type, T target) {
        Annotated.register(this, type, target, executor);
        return this;
    }

    /**
     * Registers the static {@link McpTool}, {@link McpResource} and {@link McpPrompt} methods
     * of {@code type}, as {@link #register(Object)} does.
     *
     * @param type a class with annotated static methods
     * @return this server
     */
    public McpServer register(Class<?> type) {
        Annotated.register(this, type, null, executor);
        return this;
    }

    /**
     * Where annotated methods that return no {@code CompletableFuture} run (they may block; a
     * client's cancel interrupts their thread). Default: daemon threads made as needed. For the
     * methods registered after this call.
     *
     * @param executor runs blocking handlers
     * @return this server
     */
    public McpServer executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor);
        return this;
    }

    /**
     * Registers a tool from its full definition ({@code name}, {@code inputSchema}, and
     * optionally {@code title}, {@code description}, {@code outputSchema}, {@code annotations}).
     *
     * @param toolJson the {@code Tool} as JSON
     * @param handler runs the tool
     * @return this server
     * @throws McpException ({@link McpException.Kind#INVALID_INPUT}) for a bad definition or schema
     */
    public McpServer tool(String toolJson, ToolHandler handler) {
        return register("tool", toolJson, (args, unused, ctx) -> handler.call(args, ctx));
    }

    /**
     * Registers a tool.
     *
     * @param name the tool's name
     * @param description what it does, or null
     * @param inputSchemaJson the JSON Schema of its arguments (an object schema)
     * @param handler runs the tool
     * @return this server
     */
    public McpServer tool(String name, String description, String inputSchemaJson, ToolHandler handler) {
        String json = "{\"name\":" + Json.quote(name) + (description != null ? ",\"description\":" + Json.quote(description) : "")
                + ",\"inputSchema\":" + inputSchemaJson + "}";
        return tool(json, handler);
    }

    /**
     * Registers a resource from its full definition ({@code uri}, {@code name}, ...).
     *
     * @param resourceJson the {@code Resource} as JSON
     * @param handler reads it
     * @return this server
     */
    public McpServer resource(String resourceJson, ResourceHandler handler) {
        return register("resource", resourceJson, reader(handler));
    }

    /**
     * Registers a resource.
     *
     * @param uri its URI
     * @param name its name
     * @param mimeType its MIME type, or null
     * @param handler reads it
     * @return this server
     */
    public McpServer resource(String uri, String name, String mimeType, ResourceHandler handler) {
        return resource(definition("uri", uri, name, mimeType), handler);
    }

    /**
     * Registers a resource template (RFC 6570, e.g. {@code file:///{path}}) from its definition.
     *
     * @param templateJson the {@code ResourceTemplate} as JSON
     * @param handler reads an instance; receives the variables
     * @return this server
     */
    public McpServer resourceTemplate(String templateJson, ResourceHandler handler) {
        return register("resource template", templateJson, reader(handler));
    }

    /**
     * Registers a resource template.
     *
     * @param uriTemplate the URI template
     * @param name its name
     * @param mimeType its MIME type, or null
     * @param handler reads an instance
     * @return this server
     */
    public McpServer resourceTemplate(String uriTemplate, String name, String mimeType, ResourceHandler handler) {
        return resourceTemplate(definition("uriTemplate", uriTemplate, name, mimeType), handler);
    }

    /** Every host gets a read as {@code {"uri": ..., "variables": {...}}}; Java handlers take the two apart. */
    private static Native.Invoker reader(ResourceHandler handler) {
        return (input, unused, ctx) -> {
            Map<String, String> read = Json.members(input);
            return handler.read(Json.unquote(read.get("uri")), read.getOrDefault("variables", "{}"), ctx);
        };
    }

    private static String definition(String key, String uri, String name, String mimeType) {
        return "{\"" + key + "\":" + Json.quote(uri) + ",\"name\":" + Json.quote(name)
                + (mimeType != null ? ",\"mimeType\":" + Json.quote(mimeType) : "") + "}";
    }

    /**
     * Registers a prompt from its definition ({@code name}, {@code description},
     * {@code arguments: [{name, description, required}]}).
     *
     * @param promptJson the {@code Prompt} as JSON
     * @param handler renders it
     * @return this server
     */
    public McpServer prompt(String promptJson, PromptHandler handler) {
        return register("prompt", promptJson, (args, unused, ctx) -> handler.get(args, ctx));
    }

    /**
     * Sets the completion handler.
     *
     * @param handler completes arguments
     * @return this server
     */
    public McpServer completion(CompletionHandler handler) {
        return register("completion", null, (params, unused, ctx) -> handler.complete(params, ctx));
    }

    /**
     * Adds a middleware around every request the server routes (tool calls, resource reads,
     * prompts, completion and their lists), in both eras. The first added is the outermost.
     * Before serving.
     *
     * <pre>{@code
     * server.use((request, ctx, next) -> {
     *     long started = System.nanoTime();
     *     return next.proceed(null).whenComplete((r, e) -> log(request, System.nanoTime() - started));
     * });
     * }</pre>
     *
     * @param middleware the middleware
     * @return this server
     */
    public McpServer use(Middleware middleware) {
        Objects.requireNonNull(middleware, "middleware");
        return register("middleware", null, (request, unused, ctx) -> middleware.handle(request, ctx, ctx::next));
    }

    /**
     * Serves {@code other}'s tools, prompts, resources and templates under {@code prefix}
     * (letters, digits, {@code -} and {@code _}): names become {@code prefix_name}, and URIs
     * take the prefix as their first path segment ({@code notes://a} is served as
     * {@code notes://prefix/a}). What {@code other} has when this server starts serving (or
     * now, when it serves) is served; closing {@code other} stops its handlers.
     *
     * <pre>{@code
     * main.mount("weather", weather); // weather's "forecast" is served as "weather_forecast"
     * }</pre>
     *
     * @param prefix the prefix
     * @param other the server mounted
     * @return this server
     * @throws McpException ({@link McpException.Kind#INVALID_INPUT}) for a bad prefix, or a
     *     server that would mount itself, even through others
     */
    public McpServer mount(String prefix, McpServer other) {
        Objects.requireNonNull(other, "other");
        McpException.check(Native.serverMount(live(), prefix, other.live()));
        return this;
    }

    /**
     * Serves what the server at the other end of {@code client} offers under {@code prefix}
     * (as {@link #mount(String, McpServer)} does), each call forwarded through the client.
     * This starts the engine's server: templates, completion and middleware must be
     * registered before. Closing the client stops the forwarding.
     *
     * @param prefix the prefix
     * @param client a connected client
     * @return completes once the other server's lists were fetched
     */
    public CompletableFuture<Void> mountClient(String prefix, McpClient client) {
        Objects.requireNonNull(client, "client");
        long server = live();
        long c = client.nativeHandle();
        return Native.call(d -> null, null, id -> Native.serverMountClient(server, prefix, c, id));
    }

    /**
     * Checks the access tokens of a listener started with {@code auth} (see {@link HttpAuth})
     * with {@code verifier} instead of the built-in JWT check: it receives each bearer token a
     * client presents and completes with who the token speaks for (its scopes are checked
     * against the listener's required scopes), or with null, or exceptionally, to refuse it (the
     * client gets 401, {@link McpException.Kind#UNAUTHORIZED}). Handlers see the identity in
     * {@link RequestContext#auth()}. Set it before {@link #startHttp(String, int, HttpAuth)}.
     *
     * <pre>{@code
     * server.verifyTokens(token -> CompletableFuture.completedFuture(
     *     token.equals("s3cret") ? new AuthInfo("alice", null, List.of("mcp:read"), null, "{}") : null));
     * }</pre>
     *
     * @param verifier checks one token; may run concurrently for several
     * @return this server
     */
    public McpServer verifyTokens(Function<String, CompletableFuture<AuthInfo>> verifier) {
        Objects.requireNonNull(verifier, "verifier");
        long server = live();
        long id = Native.addHandler((input, unused, ctx) -> {
            CompletableFuture<AuthInfo> who = verifier.apply(Json.unquote(Json.members(input).get("token")));
            if (who == null) {
                throw new IllegalStateException("the token verifier returned a null future");
            }
            return who.thenApply(auth -> {
                if (auth == null) {
                    throw new McpException(McpException.Kind.UNAUTHORIZED, null, "the token was refused", null);
                }
                return auth.toJson();
            });
        });
        String error = Native.serverVerifyTokens(server, id);
        if (error != null) {
            Native.removeHandler(id);
            throw McpException.fromNative(error);
        }
        synchronized (this) {
            handlers.add(id);
        }
        return this;
    }

    /**
     * Sets how the server keeps the tasks of its tools that run as tasks (a tool whose
     * definition has {@code "execution": {"taskSupport": "optional"}}); before serving.
     *
     * <pre>{@code
     * server.taskOptions(TaskOptions.defaults().ttl(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)));
     * }</pre>
     *
     * @param options the TTL, poll interval and limits (what is not set keeps its default)
     * @return this server
     * @throws McpException ({@link McpException.Kind#INVALID_INPUT}) for a bad value (a negative
     *     one), or once serving
     */
    public McpServer taskOptions(TaskOptions options) {
        Objects.requireNonNull(options, "options");
        McpException.check(Native.serverSetTaskOptions(live(), options.toJson()));
        return this;
    }

    /**
     * Serves an Agent Skill (the {@code io.modelcontextprotocol/skills} extension): {@code files}
     * maps each file's path in the skill to its text, {@code SKILL.md} (with {@code name} and
     * {@code description} in its YAML frontmatter) among them. Clients find it with
     * {@code skills/list} and read its files at {@code skill://<skillPath>/<file>}; the last
     * segment of {@code skillPath} must be the skill's name. May be called while serving.
     *
     * <pre>{@code
     * server.skill("git-workflow", Map.of(
     *     "SKILL.md", "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n",
     *     "references/naming.md", "feature/<ticket>-<slug>\n"));
     * }</pre>
     *
     * @param skillPath where the skill is served, e.g. {@code git-workflow} or {@code acme/billing/refunds}
     * @param files each file's text by its path in the skill
     * @return this server
     * @throws McpException ({@link McpException.Kind#INVALID_INPUT}) for a skill breaking the extension's rules
     */
    public McpServer skill(String skillPath, Map<String, String> files) {
        Objects.requireNonNull(files, "files");
        McpException.check(Native.serverAddSkill(live(), skillPath, Json.objectOfStrings(files)));
        return this;
    }

    /**
     * Serves every skill under the directory {@code root}: each directory below it holding a
     * {@code SKILL.md}, at its path relative to {@code root} ({@code root/acme/refunds/SKILL.md}
     * is {@code skill://acme/refunds/SKILL.md}), with all its files (binary ones too). The files
     * are read and checked now. May be called while serving.
     *
     * @param root the directory
     * @return this server
     * @throws McpException ({@link McpException.Kind#INVALID_INPUT}) when none is found or one
     *     breaks the extension's rules
     */
    public McpServer skillsDirectory(Path root) {
        Objects.requireNonNull(root, "root");
        McpException.check(Native.serverAddSkillsDir(live(), root.toString()));
        return this;
    }

    /**
     * Removes a tool (clients are told the list changed).
     *
     * @param name the tool's name
     * @return whether the server had it (registered before serving, or live)
     */
    public boolean removeTool(String name) {
        return Native.serverRemove(live(), "tool", name);
    }

    /**
     * Removes a prompt (clients are told the list changed).
     *
     * @param name the prompt's name
     * @return whether the server had it (registered before serving, or live)
     */
    public boolean removePrompt(String name) {
        return Native.serverRemove(live(), "prompt", name);
    }

    /**
     * Removes a resource, not a template (clients are told the list changed).
     *
     * @param uri the resource's URI
     * @return whether the server had it (registered before serving, or live)
     */
    public boolean removeResource(String uri) {
        return Native.serverRemove(live(), "resource", uri);
    }

    /**
     * How many clients are connected (sessions over stdio or HTTP; 0 before serving).
     *
     * @return the number of live sessions
     */
    public long sessionCount() {
        return Native.serverSessionCount(live());
    }

    /**
     * Tells subscribed clients that a resource changed.
     *
     * @param uri the resource's URI
     */
    public void notifyResourceUpdated(String uri) {
        Native.serverNotifyResourceUpdated(live(), uri);
    }

    /**
     * Serves one client on this process's stdin and stdout.
     *
     * @return completes when stdin closes (cancel it to stop serving)
     */
    public CompletableFuture<Void> serveStdio() {
        long server = live();
        CompletableFuture<Void> f = Native.call(d -> null, null, id -> Native.serverServeStdio(server, id));
        synchronized (this) {
            serving.add(f);
        }
        return f;
    }

    /**
     * Starts serving Streamable HTTP (and legacy HTTP+SSE) in the background.
     *
     * @param host the address or host name to bind (use 127.0.0.1 unless you mean otherwise)
     * @param port the port, 0 for any free one
     * @return the endpoint URL, e.g. {@code http://127.0.0.1:40123/mcp}
     */
    public CompletableFuture<String> startHttp(String host, int port) {
        return startHttp(host, port, "/mcp", false, false);
    }

    /**
     * Starts serving Streamable HTTP with every option.
     *
     * @param host the address or host name to bind
     * @param port the port, 0 for any free one
     * @param path the endpoint path, e.g. {@code /mcp}
     * @param stateless no sessions: every request stands alone
     * @param jsonResponse answer with plain JSON bodies instead of SSE streams
     * @return the endpoint URL
     */
    public CompletableFuture<String> startHttp(String host, int port, String path, boolean stateless, boolean jsonResponse) {
        long server = live();
        return Native.call(Native.Done::json, null, id -> Native.serverStartHttp(server, host, port, path, stateless, jsonResponse, id));
    }

    /**
     * Starts serving Streamable HTTP protected by OAuth: every request needs an access token
     * for this server from the authorization server {@code auth} names (see {@link HttpAuth});
     * handlers see who it speaks for in {@link RequestContext#auth()}.
     *
     * <pre>{@code
     * server.tool("whoami", null, "{\"type\":\"object\"}",
     *     (args, ctx) -> CompletableFuture.completedFuture(Json.textResult(ctx.auth().subject())));
     * String url = server.startHttp("127.0.0.1", 0, HttpAuth.issuer("https://auth.example.com").scopes("mcp:read")).join();
     * }</pre>
     *
     * @param host the address or host name to bind
     * @param port the port, 0 for any free one
     * @param auth the authorization server and the scopes required, or null for none
     * @return the endpoint URL
     */
    public CompletableFuture<String> startHttp(String host, int port, HttpAuth auth) {
        return startHttp(host, port, "/mcp", false, false, auth);
    }

    /**
     * Starts serving Streamable HTTP with every option, OAuth included.
     *
     * @param host the address or host name to bind
     * @param port the port, 0 for any free one
     * @param path the endpoint path, e.g. {@code /mcp}
     * @param stateless no sessions: every request stands alone
     * @param jsonResponse answer with plain JSON bodies instead of SSE streams
     * @param auth the authorization server and the scopes required, or null for none
     * @return the endpoint URL
     */
    public CompletableFuture<String> startHttp(String host, int port, String path, boolean stateless, boolean jsonResponse, HttpAuth auth) {
        return startHttp(host, port, path, stateless, jsonResponse, auth, null);
    }

    /**
     * Starts serving Streamable HTTP shared with every server started on the same Redis
     * ({@code redis://HOST:PORT}): sessions, streams, tasks and the requestState key live
     * there, so that any number of servers behind a load balancer act as one. Call it
     * before the server serves anything else.
     *
     * <pre>{@code
     * String url = server.startHttp("127.0.0.1", 0, "/mcp", false, false, null, "redis://127.0.0.1:6379").join();
     * }</pre>
     *
     * @param host the address or host name to bind
     * @param port the port, 0 for any free one
     * @param path the endpoint path, e.g. {@code /mcp}
     * @param stateless no sessions: every request stands alone
     * @param jsonResponse answer with plain JSON bodies instead of SSE streams
     * @param auth the authorization server and the scopes required, or null for none
     * @param redis the shared store's URL, or null for none
     * @return the endpoint URL
     */
    public CompletableFuture<String> startHttp(String host, int port, String path, boolean stateless, boolean jsonResponse, HttpAuth auth, String redis) {
        HttpOptions options = HttpOptions.bind(host, port).path(path).auth(auth).redis(redis);
        if (stateless) options.stateless();
        if (jsonResponse) options.jsonResponse();
        return startHttp(options);
    }

    /**
     * Starts serving Streamable HTTP as {@code options} say (also which {@code Host} and
     * {@code Origin} values are accepted: see {@link HttpOptions}).
     *
     * <pre>{@code
     * String url = server.startHttp(HttpOptions.bind("0.0.0.0", 8080).allowedHosts("mcp.example.com")).join();
     * }</pre>
     *
     * @param options where and how to serve
     * @return the endpoint URL
     */
    public CompletableFuture<String> startHttp(HttpOptions options) {
        long server = live();
        String json = options.toJson();
        return Native.call(Native.Done::json, null, id -> Native.serverStartHttpOptions(server, json, id));
    }

    /**
     * The Streamable HTTP endpoint for a web framework that owns the sockets: it answers the
     * requests the framework hands in exactly as {@link #startHttp(HttpOptions)}'s listener
     * would. {@link McpServlet} mounts it in any servlet container (Spring Boot's included).
     *
     * <pre>{@code
     * HttpApp app = server.httpApp(HttpOptions.mounted().allowedHosts("mcp.example.com")).join();
     * }</pre>
     *
     * @param options how to serve (the address is ignored)
     * @return the endpoint; close it to end its sessions
     */
    public CompletableFuture<HttpApp> httpApp(HttpOptions options) {
        long server = live();
        String json = options.toJson();
        return Native.call(d -> new HttpApp(d.handle(), options.endpointPath(), Long.parseLong(Json.members(d.json()).get("maxBodyBytes"))), null, id -> Native.serverHttpApp(server, json, id));
    }

    /**
     * Stops the HTTP listener gracefully (open sessions end).
     *
     * @return completes when it stopped
     */
    public CompletableFuture<Void> stopHttp() {
        long server = live();
        return Native.call(d -> null, null, id -> Native.serverStopHttp(server, id));
    }

    /** Stops serving (HTTP listener, stdio) and releases the server. Idempotent. */
    @Override
    public void close() {
        long h;
        List<CompletableFuture<?>> serves;
        List<Long> ids;
        synchronized (this) {
            h = handle;
            if (h == 0) {
                return;
            }
            handle = 0;
            serves = new ArrayList<>(serving);
            ids = new ArrayList<>(handlers);
        }
        if (!Native.isShutdown()) {
            try {
                Native.<Void>call(d -> null, null, id -> Native.serverStopHttp(h, id)).get(5, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // stopping is best effort; the listener goes with the runtime anyway
            }
        }
        for (CompletableFuture<?> f : serves) {
            f.cancel(true);
        }
        Native.serverFree(h);
        for (long id : ids) {
            Native.removeHandler(id);
        }
    }
}
