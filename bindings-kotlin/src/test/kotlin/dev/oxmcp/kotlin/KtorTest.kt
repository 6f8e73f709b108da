package dev.oxmcp.kotlin

import dev.oxmcp.kotlin.interop.interopServer
import dev.oxmcp.kotlin.ktor.Mcp
import dev.oxmcp.kotlin.ktor.mcp
import io.ktor.server.application.install
import io.ktor.server.engine.EmbeddedServer
import io.ktor.server.engine.embeddedServer
import io.ktor.server.netty.Netty
import io.ktor.server.routing.routing
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import java.net.Socket
import kotlin.test.Test
import kotlin.test.assertEquals

/**
 * The Ktor route ([mcp]) and plugin ([Mcp]) in a real Ktor application on Netty: the official TypeScript SDK
 * client's whole interop run through it, the Kotlin client of both eras, and the `Host`
 * check with and without `allowedHosts`.
 */
class KtorTest {
    private fun start(server: Server, path: String = "/mcp", allowedHosts: List<String>? = null) =
        embeddedServer(Netty, port = 0, host = "127.0.0.1") { routing { mcp(path, server, allowedHosts = allowedHosts) } }.start(wait = false)

    /** The same endpoint, installed as the plugin. */
    private fun startPlugin(server: Server) =
        embeddedServer(Netty, port = 0, host = "127.0.0.1") { install(Mcp) { this.server = server } }.start(wait = false)

    private fun EmbeddedServer<*, *>.port(): Int = runBlocking { engine.resolvedConnectors().first().port }

    private fun <T> EmbeddedServer<*, *>.use(block: (EmbeddedServer<*, *>) -> T): T = try {
        block(this)
    } finally {
        stop(100, 5_000)
    }

    @Test
    fun `the TypeScript SDK client through a Ktor route`(): Unit = runBlocking {
        interopServer().use { server ->
            start(server, "/api/mcp").use { ktor ->
                val interop = InteropTest()
                runBlocking { interop.checkSeen(interop.tsClient("http", "http://127.0.0.1:${ktor.port()}/api/mcp")) }
            }
        }
    }

    @Test
    fun `the Kotlin client of each era through the Ktor plugin`(): Unit = runBlocking {
        interopServer().use { server ->
            startPlugin(server).use { ktor ->
                for (era in listOf("session", "stateless")) {
                    runBlocking {
                        Client.http("http://127.0.0.1:${ktor.port()}/mcp", options = ClientOptions(era = era)).use { client ->
                            assertEquals(era, client.era)
                            assertEquals("kotlin-interop", client.serverInfo["name"]!!.jsonPrimitive.content)
                            assertEquals("from Kotlin", client.callTool("echo", buildJsonObject { put("text", "from Kotlin") }).text())
                        }
                    }
                }
            }
        }
    }

    @Test
    fun `only the hosts allowed are answered`() {
        interopServer().use { server ->
            start(server).use { ktor ->
                assertEquals(403, initializeStatus(ktor.port(), "mcp.example.com"))
                assertEquals(200, initializeStatus(ktor.port(), "127.0.0.1:${ktor.port()}"))
            }
            start(server, allowedHosts = listOf("mcp.example.com")).use { ktor ->
                assertEquals(200, initializeStatus(ktor.port(), "mcp.example.com"))
                assertEquals(403, initializeStatus(ktor.port(), "other.example.com"))
            }
        }
    }

    @Test
    fun `a body over the engine's limit is refused, and the route goes on`() {
        interopServer().use { server ->
            start(server).use { ktor ->
                val body = ByteArray(16 * 1024 * 1024 + 2) { ' '.code.toByte() }
                val request = java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:${ktor.port()}/mcp"))
                    .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(body)).build()
                val answer = java.net.http.HttpClient.newHttpClient().send(request, java.net.http.HttpResponse.BodyHandlers.ofString())
                assertEquals(413, answer.statusCode(), answer.body())
                assertEquals(200, initializeStatus(ktor.port(), "127.0.0.1:${ktor.port()}"))
            }
        }
    }

    /** The status of an initialize request sent under [host] (raw, so the Host header is ours). */
    private fun initializeStatus(port: Int, host: String): Int {
        val body = """{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"""
            .toByteArray()
        Socket("127.0.0.1", port).use { s ->
            s.soTimeout = 30_000
            val head = "POST /mcp HTTP/1.1\r\nHost: $host\r\nContent-Type: application/json\r\n" +
                "Accept: application/json, text/event-stream\r\nContent-Length: ${body.size}\r\nConnection: close\r\n\r\n"
            s.getOutputStream().apply {
                write(head.toByteArray())
                write(body)
                flush()
            }
            val status = s.getInputStream().bufferedReader().readLine()
            return status.split(" ")[1].toInt()
        }
    }
}
