package dev.oxmcp.kotlin

import dev.oxmcp.kotlin.ffi.RequestContext
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put

/**
 * What a handler can do with its request: read its facts, report progress, log to the
 * client, and ask the client (elicitation, sampling, roots). Once the request is over,
 * progress and logs are dropped and questions fail with [McpException.Closed].
 *
 * ```
 * server.tool("slow") { _, ctx ->
 *     for (i in 1..3) { ctx.reportProgress(i.toDouble(), 3.0); delay(100) }
 *     "done"
 * }
 * ```
 */
class Context internal constructor(private val native: RequestContext) {
    /** `requestId`, `progressToken`, `clientInfo`, `clientCapabilities`, `protocolVersion`, `auth`, `headers`,
     *  and `traceparent` / `tracestate`: the W3C trace context of the engine's span for this request (the
     *  handler already runs in it when the application traces with OpenTelemetry; see the README). */
    val info: JsonObject get() = parseObject(callNow("info"))

    /** The client's `clientInfo` (name, version), if it sent one. */
    val clientInfo: JsonObject? get() = info["clientInfo"] as? JsonObject

    /** Who the request's OAuth access token speaks for (`subject`, `scopes`, `claims`...) on
     *  a server started with [HttpAuth]; null elsewhere. */
    val auth: JsonObject? get() = info["auth"] as? JsonObject

    /** Whether the client cancelled the request (the handler's coroutine is cancelled too). */
    val isCancelled: Boolean get() = callNow("cancelled") == "true"

    /**
     * In an escalating tool (`tool(..., taskSupport = OPTIONAL, escalating = true)`): goes on
     * as a task from here (the client is handed the task and follows it; what the handler
     * asked so far was asked inline). `true` once the call is a task, `false` when it stays
     * inline because the client did not ask for one.
     */
    suspend fun escalateToTask(): Boolean = call("escalate") == "true"

    /** Sends progress, if the client asked for it. */
    fun reportProgress(progress: Double, total: Double? = null, message: String? = null) {
        callNow("progress", buildJsonObject {
            put("progress", progress)
            total?.let { put("total", it) }
            message?.let { put("message", it) }
        })
    }

    /** Logs [data] at [level] (`debug` ... `emergency`) if the client's level lets it through. */
    fun log(level: String, data: JsonElement, logger: String? = null) {
        callNow("log", buildJsonObject {
            put("level", level)
            logger?.let { put("logger", it) }
            put("data", data)
        })
    }

    /** Logs a text message. */
    fun log(level: String, message: String, logger: String? = null) = log(level, JsonPrimitive(message), logger)

    /**
     * Over Streamable HTTP, closes the SSE stream carrying this request while the handler
     * goes on; the client resumes it and gets the rest (2025-11-25 polling). Elsewhere it
     * does nothing.
     */
    fun endResponseStream() {
        callNow("end response stream")
    }

    /** Reads one of this server's own resources as a client would; the `ReadResourceResult`. */
    suspend fun readResource(uri: String): JsonObject = parseObject(call("resources/read", buildJsonObject { put("uri", uri) }))

    /** In a middleware's call: the rest of the chain, run with [params] JSON (null: unchanged). */
    internal suspend fun next(params: String?): JsonElement = parse(mcp { native.call("next", params ?: "") })

    /** Asks the client [method] with [params]; its result. */
    suspend fun ask(method: String, params: JsonObject): JsonObject = parseObject(call(method, params))

    /** Asks the user, through the client, for values matching [requestedSchema]; the `ElicitResult`. */
    suspend fun elicit(message: String, requestedSchema: JsonObject): JsonObject = ask("elicitation/create", buildJsonObject {
        put("message", message)
        put("requestedSchema", requestedSchema)
    })

    /**
     * Asks the user, through the client, to fill in a form of [T]'s properties (a flat
     * `@Serializable` class of strings, numbers, booleans and enums: the engine refuses, naming
     * the property, what no client can render); an accepted answer read into a [T].
     *
     * ```kotlin
     * @Serializable data class Confirm(val confirm: Boolean, val reason: String? = null)
     * val answer = ctx.elicit<Confirm>("Delete $name?")
     * if (answer.content?.confirm == true) ...
     * ```
     */
    suspend inline fun <reified T> elicit(message: String): Elicited<T> {
        val serializer = kotlinx.serialization.serializer<T>()
        val answer = elicit(message, formSchemaOf(serializer.descriptor))
        val action = (answer["action"] as? kotlinx.serialization.json.JsonPrimitive)?.content ?: ""
        val content = answer["content"] as? JsonObject
        return Elicited(action, if (action == "accept" && content != null) decode(serializer, content, "elicitation answer") else null)
    }

    /** Asks the client's model to answer [prompt]; the `CreateMessageResult`. */
    suspend fun sample(prompt: String, maxTokens: Int? = null, systemPrompt: String? = null): JsonObject =
        ask("sampling/createMessage", buildJsonObject {
            put("messages", buildJsonArray {
                add(buildJsonObject {
                    put("role", "user")
                    put("content", buildJsonObject { put("type", "text"); put("text", prompt) })
                })
            })
            maxTokens?.let { put("maxTokens", it) }
            systemPrompt?.let { put("systemPrompt", it) }
        })

    /** The client's roots (`uri`, `name`). */
    suspend fun listRoots(): List<JsonObject> =
        (ask("roots/list", JsonObject(emptyMap()))["roots"] as? JsonArray)?.filterIsInstance<JsonObject>() ?: emptyList()

    // Every ask goes by name through the engine's context door: the op names are the
    // engine's (`oxmcp::host::context::op`), the params its JSON.

    /** Asks the request [op] with [params], answered at once; the answer's JSON text, if any. */
    private fun callNow(op: String, params: JsonObject? = null): String? = mcp { native.callNow(op, params?.toString() ?: "") }

    /** Asks the request [op] with [params], answered when it is; the answer's JSON text, if any. */
    private suspend fun call(op: String, params: JsonObject? = null): String? = mcp { native.call(op, params?.toString() ?: "") }
}

/** A user's answer to [Context.elicit]: `accept`, `decline` or `cancel`, and the form's [content] when accepted. */
data class Elicited<T>(val action: String, val content: T?) {
    /** Whether the user accepted and gave the form. */
    val accepted: Boolean get() = action == "accept" && content != null
}
