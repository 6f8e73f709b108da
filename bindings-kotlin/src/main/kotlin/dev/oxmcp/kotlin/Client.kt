package dev.oxmcp.kotlin

import dev.oxmcp.kotlin.ffi.ClientHandler
import dev.oxmcp.kotlin.ffi.NativeClient
import dev.oxmcp.kotlin.ffi.ProgressListener
import dev.oxmcp.kotlin.ffi.connect
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.withContext
import kotlinx.serialization.builtins.ListSerializer
import kotlinx.serialization.serializer
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonObjectBuilder
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import java.util.Base64
import kotlin.time.Duration

/** One progress notification of a call. */
data class Progress(val progress: Double, val total: Double?, val message: String?)

/**
 * How a [Client] connects and what it answers. [era]: `"auto"` (default: the newest the
 * server speaks), `"session"` or `"stateless"`. [sampling], [elicitation] and [roots]
 * answer the server's requests (each declares its capability); a server's cancel cancels
 * their coroutine. [onNotification] hears the server's notifications. [oauth] answers a
 * protected HTTP server's challenges (see [OAuth]).
 */
class ClientOptions(
    val name: String? = null,
    val version: String? = null,
    val era: String? = null,
    val timeout: Duration? = null,
    val sampling: (suspend (params: JsonObject) -> JsonObject)? = null,
    val elicitation: (suspend (params: JsonObject) -> JsonObject)? = null,
    val roots: (suspend () -> List<JsonObject>)? = null,
    val onNotification: ((method: String, params: JsonObject) -> Unit)? = null,
    val oauth: OAuth? = null,
)

/**
 * An MCP client: a child process over stdio, or a server over Streamable HTTP. Every call
 * is a `suspend fun`; cancelling the coroutine that waits for one sends
 * `notifications/cancelled` to the server.
 *
 * ```
 * Client.stdio("oxmcp", listOf("everything-server", "--stdio")).use { client ->
 *     println(client.listTools().map { it["name"] })
 *     println(client.callTool("echo", buildJsonObject { put("text", "hi") }))
 * }
 * ```
 */
class Client private constructor(private val handle: NativeClient) {
    private val closed = java.util.concurrent.atomic.AtomicBoolean(false)

    /** The engine's client; once closed, [McpException.Closed] (as in the other hosts). */
    internal val native: NativeClient
        get() = if (closed.get()) throw McpException.Closed("the client is closed") else handle

    companion object {
        /** Starts [command] with [args] and connects to it over stdio. */
        suspend fun stdio(command: String, args: List<String> = emptyList(), options: ClientOptions = ClientOptions()): Client =
            open(options) {
                put("command", command)
                put("args", JsonArray(args.map(::JsonPrimitive)))
            }

        /** Connects to the Streamable HTTP endpoint [url], sending [headers] with every request. */
        suspend fun http(url: String, headers: Map<String, String> = emptyMap(), options: ClientOptions = ClientOptions()): Client =
            open(options) {
                put("url", url)
                put("headers", JsonObject(headers.mapValues { JsonPrimitive(it.value) }))
            }

        private suspend fun open(options: ClientOptions, transport: JsonObjectBuilder.() -> Unit): Client {
            NativeThreads.install()
            val answers = listOfNotNull(
                "sampling".takeIf { options.sampling != null },
                "elicitation".takeIf { options.elicitation != null },
                "roots".takeIf { options.roots != null },
                "authorize".takeIf { options.oauth?.authorize != null },
            )
            val json = buildJsonObject {
                transport()
                options.name?.let { put("name", it) }
                options.version?.let { put("version", it) }
                options.era?.let { put("era", it) }
                options.timeout?.let { put("requestTimeoutMs", it.inWholeMilliseconds) }
                put("answers", JsonArray(answers.map(::JsonPrimitive)))
                options.oauth?.let { oauth ->
                    put("oauth", oauth.json())
                    oauth.tokenFile?.let { put("tokenFile", it) }
                }
            }
            val handler = if (answers.isEmpty() && options.onNotification == null) null else Answering(options)
            return Client(mcp { connect(json.toString(), handler) })
        }
    }

    /** The server's `initialize` result: `serverInfo`, `capabilities`, `instructions`, `protocolVersion`. */
    val initializeResult: JsonObject by lazy { parseObject(mcp { native.initializeResult() }) }

    /** The server's name and version. */
    val serverInfo: JsonObject get() = initializeResult["serverInfo"] as? JsonObject ?: JsonObject(emptyMap())

    /** `"session"` or `"stateless"`: the protocol era this connection speaks. */
    val era: String get() = native.era()

    /** Every tool (all pages). */
    suspend fun listTools(): List<JsonObject> = list(op("tools/list"))

    /** Calls tool [name]; the `CallToolResult` (a tool's failure is `isError: true` in it). */
    suspend fun callTool(
        name: String,
        arguments: JsonObject = JsonObject(emptyMap()),
        timeout: Duration? = null,
        onProgress: ((Progress) -> Unit)? = null,
    ): JsonObject = op("tools/call", name, arguments.toString(), timeout, onProgress) as JsonObject

    /** Every resource (all pages). */
    suspend fun listResources(): List<JsonObject> = list(op("resources/list"))

    /** Every resource template (all pages). */
    suspend fun listResourceTemplates(): List<JsonObject> = list(op("resources/templates/list"))

    /** Reads resource [uri]; the `ReadResourceResult`. */
    suspend fun readResource(uri: String): JsonObject = op("resources/read", uri) as JsonObject

    /** Every prompt (all pages). */
    suspend fun listPrompts(): List<JsonObject> = list(op("prompts/list"))

    /** Gets prompt [name] with [arguments]; the `GetPromptResult`. */
    suspend fun getPrompt(name: String, arguments: Map<String, String> = emptyMap()): JsonObject =
        op("prompts/get", name, JsonObject(arguments.mapValues { JsonPrimitive(it.value) }).toString()) as JsonObject

    /** Completes an argument: [params] are `completion/complete`'s (`ref`, `argument`, `context`). */
    suspend fun complete(params: JsonObject): JsonObject = op("completion/complete", null, params.toString()) as JsonObject

    /** Sets the server's log level (`debug` ... `emergency`); [timeout] as [callTool]'s. */
    suspend fun setLogLevel(level: String, timeout: Duration? = null) {
        op("logging/setLevel", level, timeout = timeout)
    }

    /** Asks for updates of resource [uri]. */
    suspend fun subscribe(uri: String) {
        op("resources/subscribe", uri)
    }

    /** Tells the server that this client's roots changed (`notifications/roots/list_changed`). */
    fun notifyRootsChanged() = mcp { native.notifyRootsChanged() }

    /** Checks the server is there. */
    suspend fun ping() {
        op("ping")
    }

    /** `resources/unsubscribe`. */
    suspend fun unsubscribe(uri: String) {
        op("resources/unsubscribe", uri)
    }

    /** `skills/list`, every page: the skills' entries (no file is fetched). */
    suspend fun listSkills(): List<JsonObject> = list(op("skills/list"))

    /** `skills/get`: the entry of the skill whose `SKILL.md` is at [uri]. */
    suspend fun getSkill(uri: String): JsonObject = op("skills/get", uri) as JsonObject

    /**
     * Fetches a skill's `SKILL.md` and checks it against its entry (size, digest,
     * frontmatter): `{"skill": entry, "markdown": text}`. [skill] is an entry already held
     * (else `skills/get` fetches it). A mismatch is a [McpException.Protocol].
     */
    suspend fun loadSkill(uri: String, skill: JsonObject? = null): JsonObject =
        op("skills/load", uri, skill?.toString()) as JsonObject

    /** A file the skill's entry lists ([path] inside the skill, or its URI), checked. */
    suspend fun readSkillFile(skill: JsonObject, path: String): ByteArray =
        Base64.getDecoder().decode((op("skills/read", path, skill.toString()) as JsonPrimitive).content)

    /** `resources/directory/read`, every page: the children of the directory at [uri]. */
    suspend fun readDirectory(uri: String): List<JsonObject> = list(op("resources/directory/read", uri))

    /**
     * Calls tool [name] letting the server run it as a task (the tasks extension), and waits
     * for its final `CallToolResult`: the task is polled at the server's pace, what it asks is
     * answered by this client's handlers, each status reaches [onStatus] (`working`,
     * `input_required`, `completed`... or `status: statusMessage`), and cancelling the
     * coroutine cancels the task. A server that answers at once answers as [callTool] does.
     * No timeout applies.
     *
     * ```kotlin
     * val result = client.callToolAsTask("build", buildJsonObject { put("target", "release") }) { println(it) }
     * ```
     */
    suspend fun callToolAsTask(
        name: String,
        arguments: JsonObject = JsonObject(emptyMap()),
        onStatus: ((String) -> Unit)? = null,
    ): JsonObject = op("tools/call as task", name, arguments.toString(), onProgress = onStatus?.let { f -> { p -> f(p.message ?: "") } }) as JsonObject

    /**
     * Calls tool [name] asking the server to run it as a task (the tasks extension):
     * `{"task": Task}` when it does, `{"result": CallToolResult}` when it answered at once.
     * Follow the task with [getTask], [updateTask] and [cancelTask].
     */
    suspend fun startToolTask(name: String, arguments: JsonObject = JsonObject(emptyMap())): JsonObject =
        op("tools/call start task", name, arguments.toString()) as JsonObject

    /** `tasks/get`: the task, with its result, error or input requests inlined. */
    suspend fun getTask(taskId: String): JsonObject = op("tasks/get", taskId) as JsonObject

    /** `tasks/update`: answers to the task's input requests, as results by key. */
    suspend fun updateTask(taskId: String, responses: JsonObject) {
        op("tasks/update", taskId, responses.toString())
    }

    /** `tasks/cancel`. */
    suspend fun cancelTask(taskId: String) {
        op("tasks/cancel", taskId)
    }

    // ---- typed calls: data classes out (the calls above give kotlinx JsonElements) -------

    /** Every tool (all pages). */
    suspend fun tools(): List<Tool> = decode(ListSerializer(Tool.serializer()), op("tools/list"), "tools")

    /** Every resource (all pages). */
    suspend fun resources(): List<Resource> = decode(ListSerializer(Resource.serializer()), op("resources/list"), "resources")

    /** Every resource template (all pages). */
    suspend fun resourceTemplates(): List<ResourceTemplate> =
        decode(ListSerializer(ResourceTemplate.serializer()), op("resources/templates/list"), "resource templates")

    /** Every prompt (all pages). */
    suspend fun prompts(): List<Prompt> = decode(ListSerializer(Prompt.serializer()), op("prompts/list"), "prompts")

    /** Calls tool [name]; what it answered (a tool's failure is [CallToolResult.isError]). */
    suspend fun call(
        name: String,
        arguments: JsonObject = JsonObject(emptyMap()),
        timeout: Duration? = null,
        onProgress: ((Progress) -> Unit)? = null,
    ): CallToolResult = decode(CallToolResult.serializer(), callTool(name, arguments, timeout, onProgress), "tool result")

    /**
     * Calls tool [name] with [arguments] (a `@Serializable` value) and reads its structured
     * content as an [R] (a tool that gave none: its text, for a `String`). A tool's failure
     * throws [McpException.Handler] with its text. [onProgress] gets the tool's progress.
     *
     * ```kotlin
     * @Serializable data class Hits(val names: List<String>)
     * val hits = client.call<SearchArgs, Hits>("search_notes", SearchArgs(Search("milk")))
     * ```
     */
    suspend inline fun <reified A, reified R> call(
        name: String,
        arguments: A,
        timeout: Duration? = null,
        noinline onProgress: ((Progress) -> Unit)? = null,
    ): R {
        val args = RESULTS.encodeToJsonElement(serializer<A>(), arguments) as? JsonObject
            ?: throw McpException.InvalidInput("the arguments of $name must be an object")
        val result = call(name, args, timeout, onProgress)
        if (result.isError) throw McpException.Handler("$name failed: ${result.text}")
        val structured = result.structuredContent
        if (structured == null && R::class == String::class) return result.text as R
        return decode(serializer<R>(), structured ?: JsonNull, "structured content of $name")
    }

    /** Reads resource [uri]. */
    suspend fun read(uri: String): ReadResourceResult = decode(ReadResourceResult.serializer(), readResource(uri), "resource")

    /** Gets prompt [name] with [arguments]. */
    suspend fun prompt(name: String, arguments: Map<String, String> = emptyMap()): GetPromptResult =
        decode(GetPromptResult.serializer(), getPrompt(name, arguments), "prompt")

    /** Any request by [method]; its result. */
    suspend fun request(method: String, params: JsonObject = JsonObject(emptyMap()), timeout: Duration? = null): JsonElement =
        op("request", method, params.toString(), timeout)

    /** Closes the connection (a child server is stopped), leaving the client to [close]. */
    suspend fun shutdown() = mcp { native.stop() }

    /**
     * Closes the connection (a child server is stopped), suspending until it is closed, then
     * frees the native client; calls after it fail with [McpException.Closed]. Not
     * cancellable: a close begun always ends (a child process is never left behind).
     * Idempotent.
     */
    suspend fun close() {
        if (!closed.compareAndSet(false, true)) return
        withContext(NonCancellable) {
            try {
                mcp { handle.stop() }
            } finally {
                handle.destroy()
            }
        }
    }

    /**
     * Runs [block] with this client, then [close]s it, also when [block] fails or its
     * coroutine is cancelled (Kotlin's `use`, for a client whose close suspends).
     *
     * ```
     * Client.stdio("oxmcp", listOf("everything-server")).use { client -> client.listTools() }
     * ```
     */
    suspend inline fun <R> use(block: (Client) -> R): R {
        var failure: Throwable? = null
        try {
            return block(this)
        } catch (e: Throwable) {
            failure = e
            throw e
        } finally {
            // (finally: a return out of the block closes the client too)
            val failed = failure
            if (failed == null) {
                close()
            } else {
                try {
                    close()
                } catch (closing: Throwable) {
                    failed.addSuppressed(closing) // the block's failure is the one to see
                }
            }
        }
    }

    private suspend fun op(
        op: String,
        a: String? = null,
        b: String? = null,
        timeout: Duration? = null,
        onProgress: ((Progress) -> Unit)? = null,
    ): JsonElement {
        val listener = onProgress?.let { f ->
            object : ProgressListener {
                override fun onProgress(progress: Double, total: Double?, message: String?) = f(Progress(progress, total, message))
            }
        }
        val ms = timeout?.inWholeMilliseconds?.coerceAtLeast(1)?.toULong() ?: 0uL
        // The caller's current OpenTelemetry span, if any, is the parent of the call's requests.
        val trace = Telemetry.current()
        return mcp { native.call(op, a, b, ms, listener, trace?.first, trace?.second) }?.let(::parse) ?: JsonNull
    }

    private fun list(value: JsonElement): List<JsonObject> = (value as? JsonArray)?.filterIsInstance<JsonObject>() ?: emptyList()

    /** The options' handlers behind the engine's [ClientHandler]. */
    private class Answering(private val options: ClientOptions) : ClientHandler {
        override suspend fun request(method: String, params: String): String {
            val p = parseObject(params)
            if (method == "authorize") {
                // The URL the browser came back to, as a JSON string.
                val authorize = options.oauth?.authorize ?: throw McpException.Rpc(-32601, "no handler for $method")
                return answering { JsonPrimitive(authorize((p["url"] as JsonPrimitive).content)).toString() }
            }
            // In the span the server's request names (with the application's OpenTelemetry).
            return withContext(Telemetry.element(p)) {
                answering {
                    val result: JsonObject = when (method) {
                        "sampling/createMessage" -> options.sampling?.invoke(p)
                        "elicitation/create" -> options.elicitation?.invoke(p)
                        "roots/list" -> options.roots?.invoke()?.let { buildJsonObject { put("roots", JsonArray(it)) } }
                        else -> null
                    } ?: throw McpException.Rpc(-32601, "no handler for $method")
                    result.toString()
                }
            }
        }

        override fun notification(method: String, params: String) {
            options.onNotification?.invoke(method, parseObject(params))
        }
    }
}
