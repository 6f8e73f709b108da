package dev.oxmcp.kotlin

import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.KSerializer
import kotlinx.serialization.SerializationException
import kotlinx.serialization.serializerOrNull
import kotlinx.serialization.json.Json
import kotlin.reflect.KType
import kotlinx.serialization.SerialInfo
import kotlinx.serialization.descriptors.PrimitiveKind
import kotlinx.serialization.descriptors.SerialDescriptor
import kotlinx.serialization.descriptors.SerialKind
import kotlinx.serialization.descriptors.StructureKind
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put

/**
 * Describes a property (or a class) in the JSON Schema derived from a `@Serializable` class.
 *
 * ```
 * @Serializable
 * data class Search(@McpDescription("text to look for") val query: String, val limit: Int? = null)
 * ```
 */
@OptIn(ExperimentalSerializationApi::class)
@SerialInfo
@Target(AnnotationTarget.PROPERTY, AnnotationTarget.CLASS)
annotation class McpDescription(val text: String)

/**
 * The JSON Schema of what [descriptor] (a `@Serializable` type's) reads and writes: a class
 * is an object of its properties (by `@SerialName`), required unless it has a default or is
 * nullable (a nullable type also takes `null`); an enum a string enum; a list an array; a map an object of values; primitives
 * their JSON types; [McpDescription]s as descriptions. A type no schema describes
 * (polymorphic, contextual, recursive) throws [IllegalArgumentException] naming it. The
 * engine validates against the result; this only describes.
 *
 * ```
 * val schema = schemaOf(serializer<Search>().descriptor)  // {"type":"object","properties":{...},"required":["query"]}
 * ```
 */
@OptIn(ExperimentalSerializationApi::class)
fun schemaOf(descriptor: SerialDescriptor): JsonObject = describe(descriptor, emptySet(), takesNull = true)

/**
 * An elicitation form's requested schema from [descriptor]: as [schemaOf], but a nullable
 * property is only optional (a form field has one type, and an unanswered one is absent).
 * The engine refuses what no client can render (a nested class, a list), naming it.
 */
@OptIn(ExperimentalSerializationApi::class)
fun formSchemaOf(descriptor: SerialDescriptor): JsonObject = describe(descriptor, emptySet(), takesNull = false)

@OptIn(ExperimentalSerializationApi::class)
private fun describe(d: SerialDescriptor, outer: Set<String>, takesNull: Boolean): JsonObject {
    val name = d.serialName.removeSuffix("?")
    val schema: JsonObject = when (val kind = d.kind) {
        PrimitiveKind.STRING, PrimitiveKind.CHAR -> type("string")
        PrimitiveKind.BOOLEAN -> type("boolean")
        PrimitiveKind.BYTE, PrimitiveKind.SHORT, PrimitiveKind.INT, PrimitiveKind.LONG -> type("integer")
        PrimitiveKind.FLOAT, PrimitiveKind.DOUBLE -> type("number")
        SerialKind.ENUM -> buildJsonObject {
            put("type", "string")
            put("enum", JsonArray((0 until d.elementsCount).map { JsonPrimitive(d.getElementName(it)) }))
        }
        StructureKind.LIST -> buildJsonObject {
            put("type", "array")
            put("items", describe(d.getElementDescriptor(0), outer, takesNull))
        }
        StructureKind.MAP -> buildJsonObject {
            put("type", "object")
            put("additionalProperties", describe(d.getElementDescriptor(1), outer, takesNull))
        }
        StructureKind.CLASS, StructureKind.OBJECT -> {
            require(name !in outer) { "$name refers to itself: a derived schema cannot describe a recursive type" }
            val inner = outer + name
            val required = (0 until d.elementsCount).filter { !d.isElementOptional(it) && !d.getElementDescriptor(it).isNullable }
            buildJsonObject {
                put("type", "object")
                description(d.annotations)?.let { put("description", it) }
                put("properties", buildJsonObject {
                    for (i in 0 until d.elementsCount) {
                        val property = describe(d.getElementDescriptor(i), inner, takesNull)
                        val text = description(d.getElementAnnotations(i))
                        put(d.getElementName(i), if (text == null) property else JsonObject(property + ("description" to JsonPrimitive(text))))
                    }
                })
                if (required.isNotEmpty()) put("required", JsonArray(required.map { JsonPrimitive(d.getElementName(it)) }))
            }
        }
        else -> throw IllegalArgumentException("$name is $kind: a derived schema describes concrete @Serializable types only")
    }
    // A nullable type also takes null (what kotlinx writes for it, and may read).
    val type = schema["type"]
    return if (takesNull && d.isNullable && type is JsonPrimitive) JsonObject(schema + ("type" to JsonArray(listOf(type, JsonPrimitive("null"))))) else schema
}

private fun type(name: String) = buildJsonObject { put("type", name) }

private fun description(annotations: List<Annotation>): String? =
    annotations.filterIsInstance<McpDescription>().firstOrNull()?.text

/** Reads a tool's arguments as [A]: keys [A] does not know are ignored, a missing nullable is null. */
@OptIn(ExperimentalSerializationApi::class)
private val ARGUMENTS = Json { ignoreUnknownKeys = true; explicitNulls = false }

/** A tool's arguments decoded into its `@Serializable` type (the engine has checked them against its schema). */
@PublishedApi
internal fun <A> decodeArguments(serializer: KSerializer<A>, arguments: JsonObject): A = try {
    ARGUMENTS.decodeFromJsonElement(serializer, arguments)
} catch (e: SerializationException) {
    throw IllegalArgumentException("invalid arguments: ${e.message}", e)
}

/** The output schema a return type gives: a `@Serializable` class's, else none. */
@PublishedApi
@OptIn(ExperimentalSerializationApi::class)
internal fun outputSchemaOf(type: KType): JsonObject? {
    if (type.isMarkedNullable || type.classifier == Unit::class) return null
    val descriptor = runCatching { serializerOrNull(type)?.descriptor }.getOrNull() ?: return null
    return if (descriptor.kind == StructureKind.CLASS) schemaOf(descriptor) else null
}
