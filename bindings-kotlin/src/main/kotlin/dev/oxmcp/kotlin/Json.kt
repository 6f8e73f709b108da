package dev.oxmcp.kotlin

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import kotlinx.serialization.serializerOrNull

// JSON crosses the engine boundary as text; the Kotlin API speaks kotlinx.serialization's
// JsonElement. These turn one into the other, a tool's plain Kotlin value into JSON (what
// that JSON becomes is the engine's rule), and a resource's or prompt's value into the
// result shape its kind owes (the host-shaped part of results; the engine checks the rest).

internal fun parse(text: String?): JsonElement = if (text == null) JsonNull else Json.parseToJsonElement(text)

internal fun parseObject(text: String?): JsonObject = parse(text) as? JsonObject ?: JsonObject(emptyMap())

/** The schema of a tool that takes no arguments. */
val EMPTY_OBJECT_SCHEMA: JsonObject = buildJsonObject { put("type", "object") }

private fun textContent(text: String) = buildJsonObject {
    put("type", "text")
    put("text", text)
}

/**
 * A whole `CallToolResult` of one text block (with `isError` when [isError]), in this
 * binding's form of a whole result (a [JsonObject]), for a middleware that answers a call
 * itself or a tool that answers a failure without throwing.
 */
fun textResult(text: String, isError: Boolean = false): JsonObject = buildJsonObject {
    put("content", JsonArray(listOf(textContent(text))))
    if (isError) put("isError", true)
}

/** Encodes `@Serializable` values, their defaults too (structured content shows every field). */
private val VALUES = Json { encodeDefaults = true }

/**
 * A tool's return value as the JSON it crosses to the engine as. What that JSON becomes (a
 * string one text block, an object structured content, a whole result as it is...) is the
 * engine's one rule for every host (`core/src/host/result.rs`), not this binding's.
 *
 * `null` and `Unit` are JSON null; a `String`, a number and a `Boolean` their JSON; a
 * [JsonElement] as it is; a `Map`, an `Iterable` and an array item by item; a value
 * kotlinx.serialization has a serializer for (a `@Serializable` class) its JSON; anything
 * else its `toString()` text.
 */
internal fun toJsonValue(value: Any?): JsonElement = when (value) {
    null, Unit -> JsonNull
    is JsonElement -> value
    is String -> JsonPrimitive(value)
    is Boolean -> JsonPrimitive(value)
    // JSON has no NaN nor infinity: those are their text.
    is Double -> if (value.isFinite()) JsonPrimitive(value) else JsonPrimitive(value.toString())
    is Float -> if (value.isFinite()) JsonPrimitive(value) else JsonPrimitive(value.toString())
    is Number -> JsonPrimitive(value)
    is Map<*, *> -> JsonObject(value.entries.associate { (k, v) -> k.toString() to toJsonValue(v) })
    is Iterable<*> -> JsonArray(value.map(::toJsonValue))
    else -> when {
        value.javaClass.isArray -> JsonArray(List(java.lang.reflect.Array.getLength(value)) { toJsonValue(java.lang.reflect.Array.get(value, it)) })
        // A lookup that fails (a generic class, say) finds none; an encoding that fails is the handler's failure.
        else -> runCatching { serializerOrNull(value.javaClass) }.getOrNull()?.let { VALUES.encodeToJsonElement(it, value) }
            ?: JsonPrimitive(value.toString())
    }
}

/** A resource's return value as a `ReadResourceResult`: text, bytes, or a result already. */
fun resourceResult(uri: String, mimeType: String?, value: Any?): JsonObject = when {
    value is JsonObject && "contents" in value -> value
    else -> buildJsonObject {
        put("contents", buildJsonArray {
            add(buildJsonObject {
                put("uri", uri)
                mimeType?.let { put("mimeType", it) }
                if (value is ByteArray) {
                    put("blob", java.util.Base64.getEncoder().encodeToString(value))
                } else {
                    put("text", (value as? JsonPrimitive)?.takeIf { it.isString }?.content ?: value?.toString() ?: "")
                }
            })
        })
    }
}

/** A prompt's return value as a `GetPromptResult`: a text is one user message. */
fun promptResult(value: Any?): JsonObject = when {
    value is JsonObject && "messages" in value -> value
    else -> buildJsonObject {
        put("messages", buildJsonArray {
            add(buildJsonObject {
                put("role", "user")
                put("content", textContent(value?.toString() ?: ""))
            })
        })
    }
}

internal fun JsonElement.asText(): String = (this as? JsonPrimitive)?.takeIf { it.isString }?.content ?: toString()
