package dev.oxmcp.kotlin.interop

import dev.oxmcp.kotlin.McpException
import dev.oxmcp.kotlin.PromptArgument
import dev.oxmcp.kotlin.Server
import dev.oxmcp.kotlin.mcpServer
import dev.oxmcp.kotlin.strings
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonObject
import kotlin.time.Duration.Companion.seconds

// The Kotlin server the official TypeScript SDK client talks to (src/test/node/ts-client.mjs),
// in-process over HTTP or as a child JVM over stdio.

fun interopServer(): Server {
    val slowCancelled = CompletableDeferred<Boolean>()
    return mcpServer("kotlin-interop", "3.1.4") {
        tool("echo", "Echoes its text", strings("text")) { args, _ -> args["text"]!!.jsonPrimitive.content }
        tool("add", "Adds a and b, reporting progress", buildJsonObject {
            put("type", "object")
            putJsonObject("properties") {
                putJsonObject("a") { put("type", "integer") }
                putJsonObject("b") { put("type", "integer") }
            }
        }) { args, ctx ->
            ctx.reportProgress(1.0, 2.0)
            ctx.reportProgress(2.0, 2.0)
            (args["a"]!!.jsonPrimitive.int + args["b"]!!.jsonPrimitive.int).toString()
        }
        tool("fail_rpc", "Fails with JSON-RPC error -32042") { _, _ -> throw McpException.Rpc(-32042, "custom failure") }
        tool("slow", "Reports progress, then waits to be cancelled") { _, ctx ->
            ctx.reportProgress(1.0)
            try {
                awaitCancellation()
            } catch (e: CancellationException) {
                slowCancelled.complete(true)
                throw e
            }
        }
        tool("was_cancelled", "Whether slow's coroutine was cancelled (waits up to 10 s)") { _, _ ->
            (withTimeoutOrNull(10.seconds) { slowCancelled.await() } ?: false).toString()
        }
        resource("kotlin://hello", "hello", mimeType = "text/plain") { _, _ -> "hello from Kotlin" }
        prompt("greet", arguments = listOf(PromptArgument("name", required = true))) { args, _ -> "Hello, ${args["name"]}!" }
    }
}

/** Serves one client on stdin/stdout until stdin closes. */
fun main() = runBlocking {
    interopServer().use { it.serveStdio() }
}
