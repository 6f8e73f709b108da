package dev.oxmcp.kotlin

import dev.oxmcp.kotlin.interop.interopServer
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import java.io.File
import java.net.ServerSocket
import java.net.Socket
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * Interop with the official TypeScript SDK, both ways, over stdio and Streamable HTTP: its
 * client against the Kotlin server, and the Kotlin client against its everything server
 * (`@modelcontextprotocol/server-everything`, from npm: run-tests.sh installs it).
 */
class InteropTest {
    private val node = "node"
    private val tsClient = File("src/test/node/ts-client.mjs").absolutePath
    private val everything = File("node_modules/@modelcontextprotocol/server-everything/dist/index.js").absolutePath
    private val loopback = File("../tests/interop/loopback.mjs").toURI().toString()

    /** Runs the TS client against [target]; the JSON line it printed. */
    internal suspend fun tsClient(mode: String, target: String): JsonObject = withContext(Dispatchers.IO) {
        val process = ProcessBuilder(node, tsClient, mode, target).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        val out = process.inputStream.bufferedReader().readText()
        assertEquals(0, process.waitFor(), "ts-client.mjs failed: $out")
        Json.parseToJsonElement(out.trim().lines().last()).jsonObject
    }

    internal fun checkSeen(seen: JsonObject) {
        assertEquals("kotlin-interop", seen["server"]!!.jsonObject["name"]!!.jsonPrimitive.content)
        assertEquals(listOf("add", "echo", "fail_rpc", "slow", "was_cancelled"), seen["tools"]!!.jsonArray.map { it.jsonPrimitive.content })
        assertEquals("from TS", seen["echo"]!!.jsonPrimitive.content)
        assertEquals("42", seen["add"]!!.jsonPrimitive.content)
        assertEquals(listOf(1.0, 2.0), seen["progress"]!!.jsonArray.map { it.jsonPrimitive.content.toDouble() })
        assertEquals(-32042, seen["failRpc"]!!.jsonPrimitive.content.toInt())
        assertEquals("hello from Kotlin", seen["resource"]!!.jsonPrimitive.content)
        assertEquals("Hello, TS!", seen["prompt"]!!.jsonPrimitive.content)
        assertEquals("aborted", seen["slow"]!!.jsonPrimitive.content)
        // The TS client's abort cancelled the Kotlin handler's coroutine.
        assertEquals("true", seen["cancelled"]!!.jsonPrimitive.content)
    }

    @Test
    fun `the TypeScript SDK client against a Kotlin server over HTTP`(): Unit = runBlocking {
        interopServer().use { server -> checkSeen(tsClient("http", server.startHttp(port = 0))) }
    }

    @Test
    fun `the TypeScript SDK client against a Kotlin server over stdio`(): Unit = runBlocking {
        val (java, args) = javaCommand("dev.oxmcp.kotlin.interop.InteropServerKt")
        checkSeen(tsClient("stdio", JsonArray((listOf(java) + args).map(::JsonPrimitive)).toString()))
    }

    private suspend fun useEverything(client: Client) {
        val tools = client.listTools().map { it["name"]!!.jsonPrimitive.content }
        assertTrue("echo" in tools, "tools: $tools")
        assertEquals("Echo: from Kotlin", client.callTool("echo", buildJsonObject { put("message", "from Kotlin") }).text())
        val progress = mutableListOf<Double>()
        client.callTool("trigger-long-running-operation", buildJsonObject { put("duration", 1); put("steps", 2) }) { progress += it.progress }
        assertEquals(listOf(1.0, 2.0), progress)
        assertTrue(client.listResources().isNotEmpty())
    }

    @Test
    fun `the Kotlin client against the official everything server over stdio`(): Unit = runBlocking {
        Client.stdio(node, listOf(everything, "stdio")).use { client ->
            assertEquals("session", client.era)
            useEverything(client)
        }
    }

    @Test
    fun `the Kotlin client against the official everything server over HTTP`(): Unit = runBlocking {
        val port = ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()).use { it.localPort }
        val process = ProcessBuilder(node, "--import", loopback, everything, "streamableHttp")
            .apply { environment()["PORT"] = port.toString() }
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
        try {
            // Up once it accepts connections.
            var up = false
            for (i in 0 until 200) {
                up = runCatching { Socket("127.0.0.1", port).close() }.isSuccess
                if (up || !process.isAlive) break
                delay(100)
            }
            assertTrue(up, "the everything server did not listen on $port")
            Client.http("http://127.0.0.1:$port/mcp").use { client -> useEverything(client) }
        } finally {
            process.destroy()
            process.waitFor()
        }
    }
}
