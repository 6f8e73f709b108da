package dev.oxmcp.kotlin

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.boolean
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.long
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import kotlinx.serialization.json.putJsonObject
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertTrue
import kotlin.test.fail
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/**
 * The shared behaviour scenarios (tests/scenarios/scenarios.json) through the Kotlin client
 * against the Kotlin scenario server (a child JVM over stdio), one test per scenario and
 * era, named `<scenario> [<era>]`.
 */
class ScenariosTest {
    private companion object {
        /** The matchers of the suite's README, each checked here. */
        val MATCHERS = setOf("text", "contains", "isError", "error", "at", "count", "present", "absent", "handler_cancelled")
    }

    private val suite = Json.parseToJsonElement(File("../tests/scenarios/scenarios.json").readText()).jsonObject

    @TestFactory
    fun scenarios(): List<DynamicTest> = suite["scenarios"]!!.jsonArray.map { it.jsonObject }.flatMap { scenario ->
        val eras = scenario["eras"]?.jsonArray?.map { it.jsonPrimitive.content } ?: listOf("session", "stateless")
        eras.map { era ->
            DynamicTest.dynamicTest("${scenario["name"]!!.jsonPrimitive.content} [$era]") { runBlocking { run(scenario, era) } }
        }
    }

    private suspend fun run(scenario: JsonObject, era: String) {
        val held = CompletableDeferred<Unit>()
        val handlerCancelled = CompletableDeferred<Boolean>()
        val options = ClientOptions(
            era = era,
            sampling = { params ->
                val prompt = params["messages"]!!.jsonArray[0].jsonObject["content"]!!.jsonObject["text"]!!.jsonPrimitive.content
                if (prompt == "hold") {
                    held.complete(Unit)
                    try {
                        awaitCancellation()
                    } catch (e: CancellationException) {
                        handlerCancelled.complete(true)
                        throw e
                    }
                }
                buildJsonObject {
                    put("role", "assistant")
                    put("model", "scenario")
                    putJsonObject("content") { put("type", "text"); put("text", "maxTokens=${params["maxTokens"]!!.jsonPrimitive.int}") }
                }
            },
            elicitation = { buildJsonObject { put("action", "accept"); putJsonObject("content") { put("name", "ada") } } },
            roots = { listOf(buildJsonObject { put("uri", "file:///scenario/root") }) },
        )
        if (scenario["special"]?.jsonPrimitive?.content == "connect_refused") {
            val url = scenario["params"]!!.jsonObject["url"]!!.jsonPrimitive.content
            val error = scenario["expect"]!!.jsonObject["error"]!!.jsonObject
            try {
                Client.http(url, options = options).close()
            } catch (e: McpException) {
                checkError(error, e)
                return
            }
            fail("connecting to $url succeeded")
        }
        val (java, args) = javaCommand("dev.oxmcp.kotlin.scenarios.ScenarioServerKt")
        Client.stdio(java, args, options).use { client ->
            val method = scenario["method"]!!.jsonPrimitive.content
            val params = scenario["params"]?.jsonObject ?: JsonObject(emptyMap())
            val expect = scenario["expect"]!!.jsonObject
            expect.keys.forEach { assertTrue(it in MATCHERS, "unknown matcher $it") }
            if (scenario["special"]?.jsonPrimitive?.content == "cancel_during_sampling") {
                coroutineScopeCancel(client, method, params, held)
                assertTrue(withTimeout(10.seconds) { handlerCancelled.await() }, "the sampling handler never saw its cancellation")
                return
            }
            val special = scenario["special"]?.jsonPrimitive?.content
            assertTrue(special == null || special == "call_as_task" || special == "set_level", "unknown special $special")
            val error = expect["error"]?.jsonObject
            val result = try {
                when (special) {
                    // The host's own way to run a call as a task and wait for its end.
                    "call_as_task" -> {
                        val arguments = params["arguments"]?.jsonObject ?: JsonObject(emptyMap())
                        withTimeout(30.seconds) { client.callToolAsTask(params["name"]!!.jsonPrimitive.content, arguments) }
                    }
                    // The host's own call, with its own per-call timeout.
                    "set_level" -> {
                        val ms = scenario["timeout_ms"]!!.jsonPrimitive.long
                        client.setLogLevel(params["level"]!!.jsonPrimitive.content, timeout = ms.milliseconds)
                        JsonObject(emptyMap())
                    }
                    else -> client.request(method, params, timeout = 30.seconds)
                }
            } catch (e: McpException) {
                if (error == null) throw e
                checkError(error, e)
                return
            }
            if (error != null) fail("expected an error, got $result")
            check(method, result.jsonObject, expect)
        }
    }

    /** The `error` matcher against the host's exception. */
    private fun checkError(error: JsonObject, e: McpException) {
        assertEquals(error["kind"]!!.jsonPrimitive.content, McpException.KINDS[e.kind], "kind of $e")
        error["code"]?.let { assertEquals(it.jsonPrimitive.int.toLong(), e.code) }
        // Compared as JSON, not as text.
        error["data"]?.let { assertEquals(it, e.data?.let(Json::parseToJsonElement), "error data of $e") }
        error["message_contains"]?.let { assertTrue(it.jsonPrimitive.content in e.message.orEmpty(), "message of $e") }
    }

    /** Starts the call, waits for the sampling handler to hold, then cancels the call. */
    private suspend fun coroutineScopeCancel(client: Client, method: String, params: JsonObject, held: CompletableDeferred<Unit>) =
        kotlinx.coroutines.coroutineScope {
            val call = async { client.request(method, params) }
            withTimeout(10.seconds) { held.await() }
            call.cancel()
        }

    private fun check(method: String, result: JsonObject, expect: JsonObject) {
        expect["text"]?.let { assertEquals(it.jsonPrimitive.content, text(method, result)) }
        expect["contains"]?.let { assertTrue(it.jsonPrimitive.content in text(method, result)) }
        expect["isError"]?.let { assertEquals(it.jsonPrimitive.boolean, result["isError"]?.jsonPrimitive?.boolean ?: false) }
        expect["at"]?.jsonObject?.forEach { (path, want) -> assertEquals(want, at(result, path), path) }
        expect["count"]?.jsonArray?.let { assertEquals(it[1].jsonPrimitive.int, (at(result, it[0].jsonPrimitive.content) as JsonArray).size) }
        expect["present"]?.jsonArray?.let { assertTrue(names(result, it).contains(it[1].jsonPrimitive.content)) }
        expect["absent"]?.jsonArray?.let { assertTrue(!names(result, it).contains(it[1].jsonPrimitive.content)) }
    }

    private fun names(result: JsonObject, spec: JsonArray): List<String> =
        (at(result, spec[0].jsonPrimitive.content) as JsonArray).map { it.jsonObject["name"]!!.jsonPrimitive.content }

    private fun text(method: String, result: JsonObject): String = when (method) {
        "tools/call" -> result["content"]!!.jsonArray.map { it.jsonObject }.filter { it["type"]?.jsonPrimitive?.content == "text" }
            .joinToString("") { it["text"]!!.jsonPrimitive.content }
        "resources/read" -> result["contents"]!!.jsonArray[0].jsonObject["text"]!!.jsonPrimitive.content
        "prompts/get" -> result["messages"]!!.jsonArray[0].jsonObject["content"]!!.jsonObject["text"]!!.jsonPrimitive.content
        else -> result.toString()
    }

    private fun at(value: JsonElement, path: String): JsonElement? = path.split('.').fold(value as JsonElement?) { v, key ->
        when (v) {
            is JsonObject -> v[key]
            is JsonArray -> key.toIntOrNull()?.let { v.getOrNull(it) }
            else -> null
        }
    }.also { assertNotNull(it, "nothing at $path") }
}
