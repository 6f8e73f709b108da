package dev.oxmcp.kotlin

import kotlinx.serialization.KSerializer
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.SerializationException
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import java.util.Base64

// What a client's typed calls return (Client.tools(), Client.call(), ...): the MCP results as
// @Serializable data classes, read from the engine's JSON. JSON objects inside them (schemas,
// structured content, annotations) stay JsonObjects; `structured<T>()` reads structured
// content into a type of the caller's.

/** A tool the server offers. */
@Serializable
data class Tool(
    val name: String,
    val title: String? = null,
    val description: String? = null,
    val inputSchema: JsonObject,
    val outputSchema: JsonObject? = null,
    val annotations: JsonObject? = null,
)

/** A resource the server offers. */
@Serializable
data class Resource(val uri: String, val name: String, val title: String? = null, val description: String? = null, val mimeType: String? = null)

/** A resource template (RFC 6570) the server offers. */
@Serializable
data class ResourceTemplate(
    val uriTemplate: String,
    val name: String,
    val title: String? = null,
    val description: String? = null,
    val mimeType: String? = null,
)

/** A prompt the server offers. */
@Serializable
data class Prompt(val name: String, val title: String? = null, val description: String? = null, val arguments: List<PromptArgument> = emptyList())

/** One block of a tool's or a prompt message's content, by its `type`. */
@Serializable
sealed class Content {
    /** Text. */
    @Serializable @SerialName("text")
    data class Text(val text: String) : Content()

    /** An image, base64 in [data]. */
    @Serializable @SerialName("image")
    data class Image(val data: String, val mimeType: String) : Content() {
        /** The image's bytes. */
        fun bytes(): ByteArray = Base64.getDecoder().decode(data)
    }

    /** Audio, base64 in [data]. */
    @Serializable @SerialName("audio")
    data class Audio(val data: String, val mimeType: String) : Content() {
        /** The audio's bytes. */
        fun bytes(): ByteArray = Base64.getDecoder().decode(data)
    }

    /** A link to a resource. */
    @Serializable @SerialName("resource_link")
    data class ResourceLink(val uri: String, val name: String, val description: String? = null, val mimeType: String? = null) : Content()

    /** A resource's contents, inline. */
    @Serializable @SerialName("resource")
    data class EmbeddedResource(val resource: ResourceContents) : Content()
}

/** A resource's contents: [text] or [blob] (base64). */
@Serializable
data class ResourceContents(val uri: String, val mimeType: String? = null, val text: String? = null, val blob: String? = null)

/** What a tool call answered; a tool's failure is [isError]. */
@Serializable
data class CallToolResult(val content: List<Content> = emptyList(), val structuredContent: JsonObject? = null, val isError: Boolean = false) {
    /** The text blocks, joined. */
    val text: String get() = content.filterIsInstance<Content.Text>().joinToString("") { it.text }

    /** The structured content read as a [T] (null when there is none). */
    inline fun <reified T> structured(): T? = structuredContent?.let { decode(kotlinx.serialization.serializer<T>(), it, "structured content") }
}

/** What `resources/read` answered. */
@Serializable
data class ReadResourceResult(val contents: List<ResourceContents>) {
    /** The first contents' text. */
    val text: String? get() = contents.firstOrNull()?.text
}

/** One message of a prompt. */
@Serializable
data class PromptMessage(val role: String, val content: Content)

/** What `prompts/get` answered. */
@Serializable
data class GetPromptResult(val description: String? = null, val messages: List<PromptMessage>)

/** Lenient about what the results may add later (new fields), strict about their types. */
@PublishedApi
internal val RESULTS = Json { ignoreUnknownKeys = true; explicitNulls = false }

/** [value] read as a [serializer]'s type; what does not fit is the server's protocol error. */
@PublishedApi
internal fun <T> decode(serializer: KSerializer<T>, value: JsonElement, what: String): T = try {
    RESULTS.decodeFromJsonElement(serializer, value)
} catch (e: SerializationException) {
    throw McpException.Protocol("the $what does not fit: ${e.message}")
} catch (e: IllegalArgumentException) {
    throw McpException.Protocol("the $what does not fit: ${e.message}")
}
