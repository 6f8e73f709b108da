// The Kotlin servers of the cross-SDK suite (../../../../../../../suite/PROTOCOL.md):
// `--impl oxmcp` is oxmcp's Kotlin binding, `--impl official` the official Kotlin SDK
// (io.modelcontextprotocol:kotlin-sdk). Tools `echo` and `slow`.
//
//   run.sh server --impl oxmcp|official (--stdio | --http PORT) [--cancel-log PATH]
package dev.oxmcp.bench.kotlin

import dev.oxmcp.kotlin.mcpServer
import io.ktor.server.cio.CIO
import io.ktor.server.engine.embeddedServer
import io.modelcontextprotocol.kotlin.sdk.server.Server
import io.modelcontextprotocol.kotlin.sdk.server.ServerOptions
import io.modelcontextprotocol.kotlin.sdk.server.StdioServerTransport
import io.modelcontextprotocol.kotlin.sdk.server.mcpStreamableHttp
import io.modelcontextprotocol.kotlin.sdk.types.CallToolResult
import io.modelcontextprotocol.kotlin.sdk.types.Implementation
import io.modelcontextprotocol.kotlin.sdk.types.ServerCapabilities
import io.modelcontextprotocol.kotlin.sdk.types.TextContent
import io.modelcontextprotocol.kotlin.sdk.types.ToolSchema
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.io.asSink
import kotlinx.io.asSource
import kotlinx.io.buffered
import kotlinx.serialization.json.add
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import kotlinx.serialization.json.putJsonObject
import kotlin.system.exitProcess

/** `slow`: waits until cancelled (or 60 s); a cancellation is logged where the handler sees it. */
suspend fun waitForCancel(log: CancelLog): String {
    try {
        delay(60_000)
    } catch (e: CancellationException) {
        log.record()
        throw e
    }
    return "done"
}

private val textProperties = buildJsonObject { putJsonObject("text") { put("type", "string") } }

fun oxmcpServer(a: Args, log: CancelLog) = runBlocking {
    val server = mcpServer("bench-oxmcp-kotlin", "0.1.0") {
        val schema = buildJsonObject {
            put("type", "object")
            put("properties", textProperties)
            putJsonArray("required") { add("text") }
        }
        tool("echo", "Echo the text back.", schema) { args, _ -> args["text"]!!.jsonPrimitive.content }
        tool("slow", "Wait until cancelled.") { _, _ -> waitForCancel(log) }
    }
    if (a.flags["stdio"] != null) {
        server.serveStdio()
    } else {
        server.startHttp("127.0.0.1", a.flags.getValue("http").toInt())
        awaitCancellation() // until SIGTERM
    }
}

fun officialServerFor(log: CancelLog): Server =
    Server(
        Implementation("bench-kotlin-sdk", "0.1.0"),
        ServerOptions(ServerCapabilities(tools = ServerCapabilities.Tools(listChanged = false))),
    ) {
        addTool("echo", "Echo the text back.", ToolSchema(properties = textProperties, required = listOf("text"))) { request ->
            CallToolResult(listOf(TextContent(request.arguments?.get("text")?.jsonPrimitive?.content ?: "")))
        }
        addTool("slow", "Wait until cancelled.", ToolSchema()) { CallToolResult(listOf(TextContent(waitForCancel(log)))) }
    }

fun officialServer(a: Args, log: CancelLog) {
    if (a.flags["stdio"] != null) {
        runBlocking {
            val transport = StdioServerTransport(System.`in`.asSource().buffered(), System.out.asSink().buffered())
            val session = officialServerFor(log).createSession(transport)
            val closed = CompletableDeferred<Unit>()
            session.onClose { closed.complete(Unit) }
            closed.await()
        }
    } else {
        // Stateful Streamable HTTP, one Server per session (the SDK's own conformance server
        // does the same, on the CIO engine too).
        embeddedServer(CIO, host = "127.0.0.1", port = a.flags.getValue("http").toInt()) {
            mcpStreamableHttp { officialServerFor(log) }
        }.start(wait = true)
    }
}

fun main(argv: Array<String>) {
    try {
        val a = Args(argv)
        require(a.flags["stdio"] != null || a.flags["http"] != null) { "give --stdio or --http PORT" }
        val log = CancelLog(a.flags["cancel-log"])
        when (a.flags["impl"]) {
            "oxmcp" -> oxmcpServer(a, log)
            "official" -> officialServer(a, log)
            else -> throw IllegalArgumentException("--impl oxmcp|official")
        }
    } catch (e: Throwable) {
        System.err.println("server: $e")
        exitProcess(1)
    }
    // Stdin closed. (The engine's runtime threads would keep the JVM alive: exit.)
    exitProcess(0)
}
