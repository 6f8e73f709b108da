package dev.oxmcp.kotlin.examples.everything

import dev.oxmcp.kotlin.Context
import dev.oxmcp.kotlin.PromptArgument
import dev.oxmcp.kotlin.Server
import dev.oxmcp.kotlin.mcpServer
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import kotlinx.serialization.json.put
import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.util.Base64
import java.util.concurrent.CountDownLatch
import java.util.zip.CRC32
import java.util.zip.Deflater
import kotlin.concurrent.fixedRateTimer
import kotlin.math.PI
import kotlin.math.sin

// The everything server in Kotlin on oxmcp: the fixtures of `oxmcp everything-server`
// (cli/src/everything.rs) with the same names, schemas, texts and behaviour, so the
// official MCP conformance suite can run against a Kotlin server.
//
//   java -cp ... dev.oxmcp.kotlin.examples.everything.EverythingServerKt                         # stdio
//   java -cp ... dev.oxmcp.kotlin.examples.everything.EverythingServerKt --http 127.0.0.1:8000   # Streamable HTTP on /mcp
//
// Over HTTP it prints `listening on URL` to stderr once it accepts connections (port 0
// picks a free port) and stops on SIGINT or SIGTERM; `--stateless` serves without
// sessions. Like `oxmcp everything-server`, it tells subscribers of test://watched-resource
// about an update every 3 seconds.

// -- media made at run time -------------------------------------------------------------

private fun base64(bytes: ByteArray): String = Base64.getEncoder().encodeToString(bytes)

private fun pngChunk(out: ByteArrayOutputStream, kind: String, data: ByteArray) {
    val body = kind.toByteArray(Charsets.US_ASCII) + data
    val crc = CRC32().apply { update(body) }.value.toInt()
    out.write(ByteBuffer.allocate(4).putInt(data.size).array())
    out.write(body)
    out.write(ByteBuffer.allocate(4).putInt(crc).array())
}

/** A [size] x [size] 8-bit RGB PNG of one colour (stored deflate, like the Rust one). */
private fun png(size: Int, r: Int, g: Int, b: Int): ByteArray {
    // Each scanline: filter byte 0 (none), then the pixels.
    val rgb = byteArrayOf(r.toByte(), g.toByte(), b.toByte())
    val row = ByteArray(1 + 3 * size) { i -> if (i == 0) 0 else rgb[(i - 1) % 3] }
    val raw = ByteArray(row.size * size) { i -> row[i % row.size] }
    val deflater = Deflater(Deflater.NO_COMPRESSION).apply { setInput(raw); finish() }
    val zlib = ByteArrayOutputStream()
    val buffer = ByteArray(4096)
    while (!deflater.finished()) zlib.write(buffer, 0, deflater.deflate(buffer))
    deflater.end()
    val ihdr = ByteBuffer.allocate(13).putInt(size).putInt(size).put(byteArrayOf(8, 2, 0, 0, 0)).array()
    val out = ByteArrayOutputStream()
    out.write(byteArrayOf(0x89.toByte(), 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))
    pngChunk(out, "IHDR", ihdr)
    pngChunk(out, "IDAT", zlib.toByteArray())
    pngChunk(out, "IEND", ByteArray(0))
    return out.toByteArray()
}

/** A short 8 kHz mono 16-bit PCM WAV tone (samples computed in float32, like the Rust one), base64. */
private fun wav(millis: Int, hz: Float): String {
    val rate = 8000
    val tau = (2 * PI).toFloat()
    val samples = rate * millis / 1000
    val out = ByteBuffer.allocate(44 + samples * 2).order(ByteOrder.LITTLE_ENDIAN)
    out.put("RIFF".toByteArray(Charsets.US_ASCII)).putInt(36 + samples * 2)
    out.put("WAVEfmt ".toByteArray(Charsets.US_ASCII)).putInt(16)
    out.putShort(1) // PCM
    out.putShort(1) // mono
    out.putInt(rate).putInt(rate * 2).putShort(2).putShort(16)
    out.put("data".toByteArray(Charsets.US_ASCII)).putInt(samples * 2)
    for (i in 0 until samples) out.putShort((sin(i.toFloat() / rate * hz * tau) * 8000f).toInt().toShort())
    return base64(out.array())
}

// -- JSON helpers -----------------------------------------------------------------------

/** JSON text (schemas read best as JSON) as an object. */
private fun json(text: String): JsonObject = Json.parseToJsonElement(text).jsonObject

private val NO_ARGS = json("""{"type": "object", "properties": {}}""")

private fun text(t: String) = buildJsonObject { put("type", "text"); put("text", t) }

private fun image(data: String, mimeType: String) = buildJsonObject { put("type", "image"); put("data", data); put("mimeType", mimeType) }

private fun embedded(uri: String, mimeType: String, text: String) = buildJsonObject {
    put("type", "resource")
    put("resource", buildJsonObject { put("uri", uri); put("mimeType", mimeType); put("text", text) })
}

/** A `CallToolResult` of these content blocks. */
private fun content(vararg blocks: JsonObject) = buildJsonObject { put("content", JsonArray(blocks.toList())) }

/** A `GetPromptResult` of these user messages' contents. */
private fun userMessages(vararg contents: JsonObject) = buildJsonObject {
    put("messages", JsonArray(contents.map { c -> buildJsonObject { put("role", "user"); put("content", c) } }))
}

private fun JsonObject.string(name: String): String? = (this[name] as? JsonPrimitive)?.takeIf { it.isString }?.content

// -- the server ---------------------------------------------------------------------------

fun everythingServer(): Server = mcpServer(
    "oxmcp-everything-kotlin",
    dev.oxmcp.kotlin.ffi.version(),
    "A test server: every MCP feature with the conformance suite's fixture names.",
) {
    tools()
    resources()
    prompts()
    completion { params, _ ->
        val ref = params["ref"]?.jsonObject?.string("type")
        val argument = params["argument"]?.jsonObject ?: JsonObject(emptyMap())
        val candidates = when {
            ref == "ref/prompt" && argument.string("name") == "arg1" -> listOf("alpha", "alpine", "beta", "gamma")
            ref == "ref/prompt" && argument.string("name") == "arg2" -> listOf("one", "two", "three")
            ref == "ref/resource" && argument.string("name") == "id" -> listOf("1", "2", "3", "10", "42")
            else -> listOf("paris", "park", "python", "rust")
        }
        candidates.filter { it.startsWith(argument.string("value") ?: "") }
    }
}

private suspend fun elicitAndReport(ctx: Context, message: String, schema: JsonObject): String {
    val answer = ctx.elicit(message, schema)
    return "User response: action=${answer.string("action")}, content=${answer["content"] ?: JsonNull}"
}

private fun Server.tools() {
    tool("echo", "Returns its `text` argument as one text block.",
        json("""{"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}"""),
        annotations = json("""{"readOnlyHint": true}"""),
    ) { args, _ -> args.string("text") ?: "" }

    tool("slow", "Sleeps `ms` milliseconds unless cancelled; returns `tag`.", json("""{"type": "object",
        "properties": {"tag": {"type": "integer"}, "ms": {"type": "integer", "minimum": 0}}, "required": ["tag", "ms"]}""")) { args, ctx ->
        val tag = args["tag"]!!.jsonPrimitive.long
        try {
            delay(args["ms"]!!.jsonPrimitive.long)
        } catch (e: CancellationException) {
            // Tells observers (tests, benchmarks) that the cancel reached the handler.
            ctx.log("info", "slow tag=$tag cancelled", "slow")
            throw e
        }
        "slow $tag done"
    }

    tool("test_simple_text", "Returns a simple text response.", NO_ARGS) { _, _ -> "This is a simple text response for testing." }

    tool("test_image_content", "Returns an image.", NO_ARGS) { _, _ -> content(image(base64(png(8, 220, 40, 40)), "image/png")) }

    tool("test_audio_content", "Returns audio.", NO_ARGS) { _, _ ->
        content(buildJsonObject { put("type", "audio"); put("data", wav(100, 440f)); put("mimeType", "audio/wav") })
    }

    tool("test_embedded_resource", "Returns an embedded resource.", NO_ARGS) { _, _ ->
        content(embedded("test://embedded-resource", "text/plain", "This is an embedded resource content."))
    }

    tool("test_multiple_content_types", "Returns text, an image and a resource.", NO_ARGS) { _, _ ->
        content(
            text("Multiple content types test:"),
            image(base64(png(8, 40, 160, 40)), "image/png"),
            embedded("test://mixed-content-resource", "application/json", """{"test":"data","value":123}"""),
        )
    }

    tool("test_tool_with_logging", "Sends three log messages while it runs.", NO_ARGS) { _, ctx ->
        val steps = listOf("Tool execution started", "Tool processing data", "Tool execution completed")
        steps.forEachIndexed { i, step ->
            ctx.log("info", step, "everything")
            if (i < steps.size - 1) delay(50)
        }
        "Tool with logging executed successfully"
    }

    tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100.", NO_ARGS) { _, ctx ->
        listOf(0.0, 50.0, 100.0).forEachIndexed { i, progress ->
            ctx.reportProgress(progress, 100.0, "Completed step $i of 2")
            if (i < 2) delay(50)
        }
        val token = ctx.info["progressToken"]?.takeIf { it != JsonNull }
        "Progress test completed (${if (token == null) "no progress token" else "token $token"})"
    }

    tool("test_error_handling", "Always fails with an isError result.", NO_ARGS) { _, _ ->
        buildJsonObject {
            put("content", buildJsonArray { add(text("This tool intentionally returns an error for testing")) })
            put("isError", true)
        }
    }

    tool("test_sampling", "Asks the client's model (sampling/createMessage).",
        json("""{"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}""")) { args, ctx ->
        val reply = ctx.sample(args.string("prompt") ?: "", maxTokens = 100)
        val blocks: List<JsonElement> = when (val c = reply["content"]) {
            is JsonArray -> c
            null -> emptyList()
            else -> listOf(c)
        }
        val texts = blocks.filterIsInstance<JsonObject>().filter { it.string("type") == "text" }.mapNotNull { it.string("text") }
        "LLM response: ${texts.joinToString(" ")}"
    }

    tool("test_elicitation", "Asks the user (elicitation/create).",
        json("""{"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}""")) { args, ctx ->
        elicitAndReport(ctx, args.string("message") ?: "Please provide your information", json("""{"type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]}"""))
    }

    tool("test_elicitation_sep1034_defaults", "Elicitation whose fields have defaults (SEP-1034).", NO_ARGS) { _, ctx ->
        elicitAndReport(ctx, "Please review and update the form fields with defaults", json("""{"type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true}
            },
            "required": []}"""))
    }

    tool("test_elicitation_sep1330_enums", "Elicitation with every enum form (SEP-1330).", NO_ARGS) { _, ctx ->
        elicitAndReport(ctx, "Please select options from the enum fields", json("""{"type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}]}}
            },
            "required": []}"""))
    }

    // The Rust fixture's schema; the suite checks these keywords reach the listing unchanged:
    // $schema, $defs (with an $anchor), additionalProperties, allOf holding anyOf, if/then/else.
    tool("json_schema_2020_12_tool", "A tool whose input schema uses JSON Schema 2020-12 features.", json($$"""{
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    }""")) { args, _ -> "Received: $args" }

    tool("test_reconnection", "Closes its SSE stream mid-call; the client resumes it to get the answer (2025-11-25 polling).",
        NO_ARGS) { _, ctx ->
        delay(50)
        ctx.endResponseStream()
        delay(100)
        "Reconnection test completed"
    }
}

private fun Server.resources() {
    resource("test://static-text", "static-text", "A static text resource", "text/plain") { _, _ ->
        "This is the content of the static text resource."
    }
    resource("test://static-binary", "static-binary", "A static binary resource (PNG)", "image/png") { _, _ -> png(4, 0, 0, 255) }
    resource("test://watched-resource", "watched-resource", "A resource to subscribe to", "text/plain") { _, _ -> "Watched resource content" }
    resourceTemplate("test://template/{id}/data", "template", "A templated resource") { uri, variables, _ ->
        val id = variables["id"] ?: ""
        val body = buildJsonObject { put("id", id); put("templateTest", true); put("data", "Data for ID: $id") }
        buildJsonObject {
            put("contents", buildJsonArray {
                add(buildJsonObject { put("uri", uri); put("mimeType", "application/json"); put("text", body.toString()) })
            })
        }
    }
}

private fun Server.prompts() {
    prompt("test_simple_prompt", "A prompt without arguments") { _, _ -> "This is a simple prompt for testing." }

    prompt("test_prompt_with_arguments", "A prompt with two arguments", listOf(
        PromptArgument("arg1", "First test argument", required = true),
        PromptArgument("arg2", "Second test argument", required = true),
    )) { args, _ -> "Prompt with arguments: arg1='${args["arg1"]}', arg2='${args["arg2"]}'" }

    prompt("test_prompt_with_embedded_resource", "A prompt that embeds a resource", listOf(
        PromptArgument("resourceUri", "URI of the resource to embed", required = true),
    )) { args, _ ->
        userMessages(
            embedded(args["resourceUri"] ?: "", "text/plain", "Embedded resource content for testing."),
            text("Please process the embedded resource above."),
        )
    }

    prompt("test_prompt_with_image", "A prompt with an image") { _, _ ->
        userMessages(image(base64(png(8, 200, 200, 0)), "image/png"), text("Please analyze the image above."))
    }
}

// -- main -------------------------------------------------------------------------------

fun main(args: Array<String>) = runBlocking {
    val server = everythingServer()
    // The server, not the ticker, keeps the process alive.
    fixedRateTimer("watched-resource", daemon = true, initialDelay = 3000, period = 3000) {
        server.notifyResourceUpdated("test://watched-resource")
    }
    val at = args.indexOf("--http")
    if (at < 0) {
        server.use { it.serveStdio() }
        return@runBlocking
    }
    val spec = args.getOrNull(at + 1) ?: "127.0.0.1:0"
    val colon = spec.lastIndexOf(':')
    val host = spec.substring(0, maxOf(colon, 0)).removePrefix("[").removeSuffix("]").ifEmpty { "127.0.0.1" }
    val port = spec.substring(colon + 1).toInt()
    val redis = args.indexOf("--redis").takeIf { it >= 0 }?.let { args.getOrNull(it + 1) }
    val url = server.startHttp(host, port, stateless = "--stateless" in args, redis = redis)
    System.err.println("listening on $url")
    // SIGINT and SIGTERM run the JVM's shutdown hooks: stop serving, then let main end.
    val stopped = CountDownLatch(1)
    Runtime.getRuntime().addShutdownHook(Thread {
        server.close()
        stopped.countDown()
    })
    stopped.await()
}
