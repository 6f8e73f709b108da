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

// JSON crosses the engine boundary as text; the Kotlin API speaks kotlinx.serialization's
// JsonElement. These turn one into the other, and a handler's plain Kotlin value into the
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
 * A tool's return value as a `CallToolResult`: a `String` is one text block; a [JsonObject]
 * with `content` is a result already; any other JSON is its text plus, for an object, its
 * `structuredContent`; `null` or `Unit` is an empty result.
 */
fun toolResult(value: Any?): JsonObject = when (value) {
    null, Unit -> buildJsonObject { put("content", JsonArray(emptyList())) }
    is JsonObject -> if ("content" in value) value else buildJsonObject {
        put("content", JsonArray(listOf(textContent(value.toString()))))
        put("structuredContent", value)
    }
    is JsonElement -> buildJsonObject { put("content", JsonArray(listOf(textContent(value.toString())))) }
    else -> buildJsonObject { put("content", JsonArray(listOf(textContent(value.toString())))) }
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
