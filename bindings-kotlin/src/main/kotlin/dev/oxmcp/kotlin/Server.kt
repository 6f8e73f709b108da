package dev.oxmcp.kotlin

import dev.oxmcp.kotlin.ffi.CancelListener
import dev.oxmcp.kotlin.ffi.Handler
import dev.oxmcp.kotlin.ffi.NativeServer
import dev.oxmcp.kotlin.ffi.RequestContext
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.isActive
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.serializer
import kotlin.reflect.typeOf
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import kotlin.time.Duration
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds

/**
 * How [Server.startHttp] checks OAuth access tokens: JWTs of [issuer] (checked against
 * its published keys) for [audience] (default: the endpoint's URL), with [scopes] on every
 * request and, for a call of a tool named in [toolScopes], those scopes too.
 */
data class HttpAuth(
    val issuer: String,
    val audience: String? = null,
    val scopes: List<String> = emptyList(),
    val toolScopes: Map<String, List<String>> = emptyMap(),
) {
    internal fun toJson(): JsonObject = buildJsonObject {
        put("issuer", issuer)
        audience?.let { put("audience", it) }
        put("scopes", JsonArray(scopes.map(::JsonPrimitive)))
        put("toolScopes", JsonObject(toolScopes.mapValues { (_, v) -> JsonArray(v.map(::JsonPrimitive)) }))
    }
}

/** Who an access token speaks for, as a [Server.verifyTokens] check answers (handlers see it in [Context.auth]). */
data class TokenInfo(
    val subject: String? = null,
    val clientId: String? = null,
    val scopes: List<String> = emptyList(),
    /** When the token expires, in Unix seconds. */
    val expiresAt: Long? = null,
    val claims: JsonObject = JsonObject(emptyMap()),
) {
    init {
        // The engine reads Unix seconds as unsigned: a negative time would refuse the token
        // far from here, with nothing said.
        if (expiresAt != null && expiresAt < 0) throw McpException.InvalidInput("expiresAt is Unix seconds, not $expiresAt")
    }

    internal fun toJson(): JsonObject = buildJsonObject {
        subject?.let { put("subject", it) }
        clientId?.let { put("clientId", it) }
        put("scopes", JsonArray(scopes.map(::JsonPrimitive)))
        expiresAt?.let { put("expiresAt", it) }
        put("claims", claims)
    }
}

/** A completion's answer: [values], and, when there are more, how many in all ([total]) and whether more exist ([hasMore]). */
data class Completion(val values: List<String>, val total: Long? = null, val hasMore: Boolean? = null)

/** Whether a tool runs as a task (the tasks extension) for clients that declared it. */
enum class TaskSupport(internal val wire: String) {
    /** Never (the default). */
    FORBIDDEN("forbidden"),
    /** When the client asks. */
    OPTIONAL("optional"),
    /** Only as a task: a plain call is refused. */
    REQUIRED("required"),
}

/**
 * How a server keeps tasks: each for [ttl] after its creation (null: no limit), clients
 * asked to poll every [pollInterval], at most [maxTasks] kept and [maxRunning] running at
 * once (past either, a call that would start one is refused).
 */
data class TaskOptions(
    val ttl: Duration? = 1.hours,
    val pollInterval: Duration = 500.milliseconds,
    val maxTasks: Int = 10_000,
    val maxRunning: Int = 1000,
) {
    internal fun toJson(): JsonObject = buildJsonObject {
        put("ttlMs", ttl?.inWholeMilliseconds)
        put("pollIntervalMs", pollInterval.inWholeMilliseconds)
        put("maxTasks", maxTasks)
        put("maxRunning", maxRunning)
    }
}

/** A prompt's argument. */
@kotlinx.serialization.Serializable
data class PromptArgument(val name: String, val description: String? = null, val required: Boolean = false)

/**
 * An MCP server: tools, resources, resource templates, prompts and completion, each a
 * `suspend` lambda, served over stdio or Streamable HTTP (both protocol eras: the engine
 * answers whichever the client speaks). A client's cancel cancels the handler's coroutine.
 *
 * ```
 * val server = mcpServer("demo", "1.0.0") {
 *     tool("add", "Add two numbers", schema) { args, ctx ->
 *         ctx.reportProgress(50.0, 100.0)
 *         (args.int("a") + args.int("b")).toString()
 *     }
 * }
 * val url = server.startHttp(port = 0)
 * ```
 */
class Server(
    name: String,
    version: String = "1.0.0",
    instructions: String? = null,
    tasks: TaskOptions = TaskOptions(),
) : AutoCloseable {
    private val handle = NativeThreads.install().let { NativeServer(name, version) }
    private val closed = java.util.concurrent.atomic.AtomicBoolean(false)

    /** The engine's server; once closed, [McpException.Closed] (as in the other hosts). */
    internal val native: NativeServer
        get() = if (closed.get()) throw McpException.Closed("the server is closed") else handle

    init {
        try {
            instructions?.let { mcp { native.setInstructions(it) } }
            mcp { native.setTaskOptions(tasks.toJson().toString()) }
        } catch (e: Throwable) {
            handle.destroy() // a refused option: nothing else will free it
            throw e
        }
    }

    /**
     * A tool. [handler] gets the arguments (checked against [inputSchema] by the engine)
     * and returns any value; the binding gives the engine its JSON (a `@Serializable` class
     * by its serializer, `Map`s and lists item by item, anything without a JSON form as its
     * `toString()` text) and the engine makes it the result by one rule for every host:
     * null or `Unit` no content, a `String` one text block, a content block that block, a
     * whole `CallToolResult` (a [JsonObject] of `content` and the result's other fields only,
     * such as [textResult]) as it is, a list one block per item (a string a text block, a
     * block itself, any other value its JSON text), any other object structured content
     * with its JSON as text, any other value its JSON text (with [outputSchema], a value
     * that is not an object, null included, is also structured content `{"result": value}`).
     * Throwing makes an `isError` result, except [McpException.Rpc], answered as that error.
     * [taskSupport] lets a client run it as a task (the tasks extension); [escalating]: the
     * call starts inline and becomes a task at [Context.escalateToTask] (the engine refuses
     * it, [McpException.InvalidInput], without a [taskSupport] of OPTIONAL or REQUIRED).
     */
    fun tool(
        name: String,
        description: String? = null,
        inputSchema: JsonObject = EMPTY_OBJECT_SCHEMA,
        outputSchema: JsonObject? = null,
        annotations: JsonObject? = null,
        taskSupport: TaskSupport? = null,
        escalating: Boolean = false,
        handler: suspend (arguments: JsonObject, context: Context) -> Any?,
    ) = register("tool", buildJsonObject {
        put("name", name)
        description?.let { put("description", it) }
        put("inputSchema", inputSchema)
        outputSchema?.let { put("outputSchema", it) }
        annotations?.let { put("annotations", it) }
        taskSupport?.let { put("execution", buildJsonObject { put("taskSupport", it.wire) }) }
        if (escalating) put("escalating", true)
    }) { input, ctx -> toJsonValue(handler(parseObject(input), ctx)) }

    /**
     * A tool whose arguments are the `@Serializable` class [A]: its input schema is derived
     * from [A] ([schemaOf]: properties by `@SerialName`, enums as string enums, those with a
     * default or nullable not required, [McpDescription]s), the engine checks the arguments
     * against it, and [handler] gets them decoded into an [A]. A `@Serializable` class [R]
     * gives the output schema, and the value it returns is structured content.
     *
     * ```
     * @Serializable data class Add(val a: Int, val b: Int = 0)
     * @Serializable data class Sum(val sum: Int)
     * server.tool<Add, Sum>("add", "Adds two numbers") { args, _ -> Sum(args.a + args.b) }
     * ```
     */
    inline fun <reified A : Any, reified R> tool(
        name: String,
        description: String? = null,
        annotations: JsonObject? = null,
        taskSupport: TaskSupport? = null,
        escalating: Boolean = false,
        noinline handler: suspend (arguments: A, context: Context) -> R,
    ) {
        val input = serializer<A>()
        tool(name, description, schemaOf(input.descriptor), outputSchemaOf(typeOf<R>()), annotations, taskSupport, escalating) { args, ctx ->
            handler(decodeArguments(input, args), ctx)
        }
    }

    /**
     * Serves a skill (the skills extension) at [path]: [files] maps each file's path in it
     * to its text, `SKILL.md` (whose frontmatter `name` must be the path's last part) first
     * of all. Checked now.
     */
    fun skill(path: String, files: Map<String, String>) =
        mcp { native.addSkill(path, JsonObject(files.mapValues { (_, text) -> JsonPrimitive(text) }).toString()) }

    /** Serves every skill under the directory [root] (each directory holding a `SKILL.md`). */
    fun skillsDir(root: String) = mcp { native.addSkillsDir(root) }

    /** A resource at a fixed [uri]; [handler] returns its text, bytes or a `ReadResourceResult`. */
    fun resource(
        uri: String,
        name: String,
        description: String? = null,
        mimeType: String? = null,
        handler: suspend (uri: String, context: Context) -> Any?,
    ) = register("resource", buildJsonObject {
        put("uri", uri)
        put("name", name)
        description?.let { put("description", it) }
        mimeType?.let { put("mimeType", it) }
    }) { input, ctx -> resourceResult(uri, mimeType, handler(uri, ctx)) }

    /** Resources matching [uriTemplate] (RFC 6570); [handler] gets the URI and its variables. */
    fun resourceTemplate(
        uriTemplate: String,
        name: String,
        description: String? = null,
        mimeType: String? = null,
        handler: suspend (uri: String, variables: Map<String, String>, context: Context) -> Any?,
    ) = register("resource template", buildJsonObject {
        put("uriTemplate", uriTemplate)
        put("name", name)
        description?.let { put("description", it) }
        mimeType?.let { put("mimeType", it) }
    }) { input, ctx ->
        val request = parseObject(input)
        val uri = request["uri"]?.asText() ?: ""
        val variables = (request["variables"] as? JsonObject)?.mapValues { (_, v) -> v.asText() } ?: emptyMap()
        resourceResult(uri, mimeType, handler(uri, variables, ctx))
    }

    /** A prompt; [handler] gets its arguments and returns a text or a `GetPromptResult`. */
    fun prompt(
        name: String,
        description: String? = null,
        arguments: List<PromptArgument> = emptyList(),
        handler: suspend (arguments: Map<String, String>, context: Context) -> Any?,
    ) = register("prompt", buildJsonObject {
        put("name", name)
        description?.let { put("description", it) }
        put("arguments", JsonArray(arguments.map { a ->
            buildJsonObject {
                put("name", a.name)
                a.description?.let { put("description", it) }
                put("required", a.required)
            }
        }))
    }) { input, ctx -> promptResult(handler(parseObject(input).mapValues { (_, v) -> v.asText() }, ctx)) }

    /**
     * Completion of prompt and resource template arguments: [handler] gets the
     * `completion/complete` params and returns candidate values, a `List<String>`, or a
     * [Completion] that also says how many there are in all. The engine sends at most 100
     * values (then with `total` and `hasMore`).
     */
    fun completion(handler: suspend (params: JsonObject, context: Context) -> Any) =
        register("completion", JsonObject(emptyMap())) { input, ctx ->
            val completion = when (val answer = handler(parseObject(input), ctx)) {
                is Completion -> answer
                is List<*> -> Completion(answer.map { it as? String ?: throw McpException.InvalidInput("completion values are strings, not $it") })
                else -> throw McpException.InvalidInput("a completion handler returns a List<String> or a Completion, not ${answer::class.simpleName}")
            }
            buildJsonObject {
                put("values", JsonArray(completion.values.map(::JsonPrimitive)))
                completion.total?.let { put("total", it) }
                completion.hasMore?.let { put("hasMore", it) }
            }
        }

    /**
     * A middleware around every request the server routes (tool calls, reads, prompts,
     * completion and their lists), in both eras: [middleware] gets the request
     * (`{"method", "params"}`), its context and `next`, which runs the rest of the chain
     * with the params it is given (null: unchanged) and returns the result; [middleware]
     * returns that result, a changed one, or its own. Throwing [McpException.Rpc] answers
     * that error. The first added is the outermost; before serving.
     *
     * ```
     * server.use { request, _, next ->
     *     val started = System.nanoTime()
     *     try { next(null) } finally { println("${request["method"]}: ${System.nanoTime() - started} ns") }
     * }
     * ```
     */
    fun use(middleware: suspend (request: JsonObject, context: Context, next: suspend (params: JsonObject?) -> JsonElement) -> JsonElement) =
        register("middleware", JsonObject(emptyMap())) { input, ctx ->
            middleware(parseObject(input), ctx) { params -> ctx.next(params?.toString()) }
        }

    /**
     * Serves [other]'s tools, prompts, resources and templates under [prefix]: names become
     * `prefix_name`, and URIs take the prefix as their first path segment (`notes://a` is
     * served as `notes://prefix/a`). What [other] has when this server starts serving (or
     * now, when it serves) is served; once [other] is closed its tools fail (the engine
     * answers that the host is gone).
     *
     * ```
     * main.mount("weather", weather) // weather's "forecast" is served as "weather_forecast"
     * ```
     */
    fun mount(prefix: String, other: Server) {
        mcp { native.mount(prefix, other.native) }
        mounted += other // kept reachable: a collected server's tools would answer no more
    }

    /** The servers mounted here, alive as long as this one. */
    private val mounted = java.util.concurrent.CopyOnWriteArrayList<Server>()

    /**
     * Serves what the server at the other end of [client] offers under [prefix] (as [mount]
     * does), each call forwarded through the client. This starts the engine's server:
     * templates, completion and middleware must be registered before.
     */
    suspend fun mountClient(prefix: String, client: Client) = mcp { native.mountClient(prefix, client.native) }

    /**
     * Checks the access tokens of a listener started with [HttpAuth] with [check] instead
     * of as JWTs of the issuer: it answers who the token speaks for, or null (or throws) to
     * refuse it (the client gets 401). Call it before [startHttp]: a listener started
     * already keeps the check it started with.
     *
     * ```
     * server.verifyTokens { token -> if (token == "s3cret") TokenInfo(subject = "alice", scopes = listOf("mcp:read")) else null }
     * ```
     */
    fun verifyTokens(check: suspend (token: String) -> TokenInfo?) = native.verifyTokens(object : Handler {
        override suspend fun handle(input: String, context: RequestContext): String = answering {
            val token = parseObject(input)["token"]?.asText() ?: ""
            (check(token) ?: throw McpException.Unauthorized("the token was refused")).toJson().toString()
        }
    })

    /** Removes tool [name] (clients are told while serving); whether it was there. */
    fun removeTool(name: String): Boolean = mcp { native.remove("tool", name) }

    /** Removes prompt [name] (clients are told while serving); whether it was there. */
    fun removePrompt(name: String): Boolean = mcp { native.remove("prompt", name) }

    /** Removes resource [uri], not a template (clients are told while serving); whether it was there. */
    fun removeResource(uri: String): Boolean = mcp { native.remove("resource", uri) }

    /** Tells subscribed clients that resource [uri] changed. */
    fun notifyResourceUpdated(uri: String) = native.notifyResourceUpdated(uri)

    /** Live sessions. */
    val sessionCount: Long get() = native.sessionCount().toLong()

    /** Serves one client on this process's stdin/stdout until stdin closes or [stop]. */
    suspend fun serveStdio() = mcp { native.serveStdio() }

    /**
     * Starts Streamable HTTP (and legacy HTTP+SSE on `/sse`) in the background; returns the
     * endpoint's URL. [port] 0 takes a free one. [stateless]: no sessions. [jsonResponse]:
     * a request is answered with one JSON body, not an event stream.
     *
     * [allowedHosts] and [allowedOrigins] are the `Host` and `Origin` values accepted (by
     * default only local ones: a guard against DNS rebinding; a server behind a proxy or
     * under another name lists its names; an origin is given whole,
     * `"https://app.example.com"`, or as a host name, any scheme and port). [maxSessions]
     * caps the sessions kept at once (at the cap the least recently used idle one is
     * closed). [auth] protects the endpoint with OAuth access tokens; handlers see who a
     * token speaks for in [Context.auth]. [redis] (`redis://HOST:PORT`) shares sessions,
     * streams, tasks and the `requestState` key with every server started with the same
     * Redis, so that any number behind a load balancer act as one (give it on the first
     * start, before the server serves anything else).
     */
    suspend fun startHttp(
        host: String = "127.0.0.1",
        port: Int = 8000,
        path: String = "/mcp",
        stateless: Boolean = false,
        jsonResponse: Boolean = false,
        allowedHosts: List<String>? = null,
        allowedOrigins: List<String>? = null,
        maxSessions: Int? = null,
        auth: HttpAuth? = null,
        redis: String? = null,
    ): String = mcp {
        native.startHttp(buildJsonObject {
            put("host", host)
            put("port", port)
            httpOptions(path, stateless, jsonResponse, allowedHosts, allowedOrigins, maxSessions, auth)
            redis?.let { put("redis", it) }
        }.toString())
    }

    /**
     * The Streamable HTTP endpoint for a web framework that owns the sockets: it answers
     * the requests the framework hands in exactly as [startHttp]'s listener would, with
     * the same options. The Ktor route [dev.oxmcp.kotlin.ktor.mcp] mounts it in a Ktor
     * application; other frameworks drive [HttpApp] themselves.
     *
     * ```
     * val app = server.httpApp(allowedHosts = listOf("mcp.example.com"))
     * ```
     */
    suspend fun httpApp(
        path: String = "/mcp",
        stateless: Boolean = false,
        jsonResponse: Boolean = false,
        allowedHosts: List<String>? = null,
        allowedOrigins: List<String>? = null,
        maxSessions: Int? = null,
        auth: HttpAuth? = null,
    ): HttpApp {
        val options = buildJsonObject { httpOptions(path, stateless, jsonResponse, allowedHosts, allowedOrigins, maxSessions, auth) }
        return HttpApp(mcp { native.httpApp(options.toString()) }, path)
    }

    private fun kotlinx.serialization.json.JsonObjectBuilder.httpOptions(
        path: String,
        stateless: Boolean,
        jsonResponse: Boolean,
        allowedHosts: List<String>?,
        allowedOrigins: List<String>?,
        maxSessions: Int?,
        auth: HttpAuth?,
    ) {
        put("path", path)
        put("stateless", stateless)
        put("jsonResponse", jsonResponse)
        allowedHosts?.let { put("allowedHosts", JsonArray(it.map(::JsonPrimitive))) }
        allowedOrigins?.let { put("allowedOrigins", JsonArray(it.map(::JsonPrimitive))) }
        maxSessions?.let { put("maxSessions", it) }
        auth?.let { put("auth", it.toJson()) }
    }

    /** Stops serving, letting requests in flight finish. */
    suspend fun stop() = mcp { native.stop() }

    /** [stop], blocking; then frees the native server. Calls after it fail with [McpException.Closed]. */
    override fun close() {
        if (closed.get()) return
        runBlocking { stop() }
        if (closed.compareAndSet(false, true)) handle.destroy()
    }

    private fun register(kind: String, definition: JsonObject, body: suspend (String, Context) -> JsonElement) = mcp {
        native.register(kind, definition.toString(), object : Handler {
            // The peer's cancel cancels the handler's own coroutine while the engine keeps
            // the call open (its grace), so that what the handler does on its way out (a
            // log in a catch or finally) still reaches the client.
            override suspend fun handle(input: String, context: RequestContext): String = coroutineScope {
                // Telemetry.element: the handler's spans are children of the engine's span for
                // this request (when the application traces with OpenTelemetry).
                val work = async(Telemetry.element(context)) { answering { body(input, Context(context)).toString() } }
                val byPeer = java.util.concurrent.atomic.AtomicBoolean(false)
                context.onCancel(object : CancelListener {
                    override fun cancelled() {
                        byPeer.set(true)
                        work.cancel()
                    }
                })
                try {
                    work.await()
                } catch (e: CancellationException) {
                    if (!isActive) throw e // the engine dropped the call: this coroutine goes too
                    // The handler's own (a withTimeout of its own, say) is its failure.
                    throw (if (byPeer.get()) McpException.Cancelled("cancelled by the peer") else McpException.Handler(e.message ?: e.toString())).toNative()
                }
            }
        })
    }
}

/** Builds a [Server]: `mcpServer("demo") { tool("hi") { _, _ -> "hello" } }`. */
fun mcpServer(
    name: String,
    version: String = "1.0.0",
    instructions: String? = null,
    tasks: TaskOptions = TaskOptions(),
    block: Server.() -> Unit,
): Server = Server(name, version, instructions, tasks).apply(block)
