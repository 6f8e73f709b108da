package dev.oxmcp.kotlin

import kotlinx.coroutines.runBlocking
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

/**
 * The typed client (tools(), call(), read(), prompt(): data classes out, @Serializable values
 * in), typed elicitation (ctx.elicit<T>()), and the notes example (examples/notes: the hostdx
 * server and client) run as a user runs it.
 */
class TypedClientTest {
    @Serializable data class Pair2(val a: Int, val b: Int = 0)
    @Serializable data class Sum(val sum: Int)
    @Serializable data class Wrong(val other: String)
    @Serializable data class Confirm(val confirm: Boolean, val reason: String? = null)
    @Serializable data class Nested(val inner: Pair2)

    @Test
    fun `typed calls read the engine's results into data classes`(): Unit = runBlocking {
        mcpServer("typed") {
            tool<Pair2, Sum>("add", "Adds") { args, _ -> Sum(args.a + args.b) }
            tool("boom") { _, _ -> throw IllegalStateException("it broke") }
            tool("ask") { _, ctx ->
                val answer = ctx.elicit<Confirm>("sure?")
                "${answer.action} ${answer.accepted} ${answer.content}"
            }
            tool("ask_nested") { _, ctx ->
                try {
                    ctx.elicit<Nested>("?")
                    "asked"
                } catch (e: McpException.InvalidInput) {
                    e.message ?: ""
                }
            }
            resource("memo://a", "a", mimeType = "text/plain") { _, _ -> "alpha" }
            prompt("greet", "Greets", listOf(PromptArgument("name", required = true))) { args, _ -> "Hello, ${args["name"]}!" }
        }.use { server ->
            val url = server.startHttp(port = 0)
            val options = ClientOptions(elicitation = { params ->
                // The form derived from Confirm: confirm required, reason not.
                val schema = params["requestedSchema"].toString()
                assertTrue("\"required\":[\"confirm\"]" in schema, schema)
                buildJsonObject { put("action", "accept"); put("content", buildJsonObject { put("confirm", true) }) }
            })
            Client.http(url, options = options).use { client ->
                val tools = client.tools()
                val add = tools.single { it.name == "add" }
                assertEquals("Adds", add.description)
                assertEquals("object", add.outputSchema!!["type"]!!.jsonPrimitive.content)
                assertEquals(Sum(5), client.call<Pair2, Sum>("add", Pair2(2, 3)))
                val result = client.call("add", buildJsonObject { put("a", 1) })
                assertEquals("{\"sum\":1}", result.text)
                assertEquals(Sum(1), result.structured<Sum>())
                assertFalse(result.isError)
                // A tool's failure, and structured content that is not the type asked for.
                val failed = assertThrows<McpException.Handler> { runBlocking { client.call<Pair2, Sum>("boom", Pair2(1)) } }
                assertTrue("it broke" in failed.message!!, failed.message)
                assertTrue(client.call("boom").isError)
                assertThrows<McpException.Protocol> { runBlocking { client.call<Pair2, Wrong>("add", Pair2(1)) } }
                assertEquals("accept true Confirm(confirm=true, reason=null)", client.call("ask").text)
                assertTrue("requestedSchema.properties.inner" in client.call("ask_nested").text, client.call("ask_nested").text)
                assertEquals("alpha", client.read("memo://a").text)
                assertEquals(listOf("memo://a"), client.resources().map { it.uri })
                val prompt = client.prompt("greet", mapOf("name" to "Ada"))
                assertEquals(Content.Text("Hello, Ada!"), prompt.messages.single().content)
                assertEquals(listOf(PromptArgument("name", required = true)), client.prompts().single().arguments)
                assertNull(client.call("ask_nested").structuredContent)
                // The derived tools against the specification's schema.json (ajv, from the TypeScript SDK's dependencies).
                val file = File.createTempFile("oxmcp-kotlin-tools", ".json")
                file.writeText(kotlinx.serialization.json.JsonArray(client.listTools()).toString())
                val node = ProcessBuilder("node", File("../tests/spec-tools.mjs").path, file.path, File("node_modules").path)
                    .redirectErrorStream(true).start()
                val out = node.inputStream.bufferedReader().readText()
                assertTrue(node.waitFor(60, TimeUnit.SECONDS), out)
                assertEquals(0, node.exitValue(), out)
                assertTrue(Regex("\\b[1-9][0-9]* passed, 0 failed").containsMatchIn(out), out)
            }
        }
    }

    @Test
    fun `the notes example runs and stays short`() {
        val (java, args) = javaCommand("dev.oxmcp.kotlin.examples.notes.NotesClientKt")
        val process = ProcessBuilder(listOf(java) + args).redirectErrorStream(true).start()
        try {
            val output = process.inputStream.bufferedReader().readText()
            assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the client finished")
            assertEquals(0, process.exitValue(), output)
            val lines = output.lines()
            for (want in listOf("[search_notes, reindex, delete_note]", "Hits(names=[todo])", "progress 1/10", "cancelled",
                "deleted (obsolete)", "write a parser", "Please review this note:")) {
                assertTrue(want in lines, "\"$want\" in:\n$output")
            }
            assertFalse("progress 10/10" in lines, output)
        } finally {
            process.destroyForcibly()
        }
        // No longer than the official Kotlin SDK's server (78 lines, not blank, not comments) plus 10%.
        val loc = File("examples/notes/NotesServer.kt").readLines().count { it.isNotBlank() && !it.trim().startsWith("//") }
        assertTrue(loc <= 85, "NotesServer.kt has $loc lines")
    }
}
