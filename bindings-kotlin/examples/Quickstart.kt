package dev.oxmcp.kotlin.examples

import dev.oxmcp.kotlin.Client
import dev.oxmcp.kotlin.mcpServer
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonObject

// A server with one tool on Streamable HTTP, and a client that calls it with a progress
// listener.
fun main() = runBlocking {
    val schema = buildJsonObject {
        put("type", "object")
        putJsonObject("properties") {
            putJsonObject("a") { put("type", "integer") }
            putJsonObject("b") { put("type", "integer") }
        }
    }
    mcpServer("quickstart") {
        tool("add", "Add two integers", schema) { args, ctx ->
            ctx.reportProgress(1.0, 2.0, "adding")
            (args["a"]!!.jsonPrimitive.int + args["b"]!!.jsonPrimitive.int).toString()
        }
    }.use { server ->
        val url = server.startHttp(port = 0)
        Client.http(url).use { client ->
            println("tools: ${client.listTools().map { it["name"]!!.jsonPrimitive.content }}")
            val result = client.callTool("add", buildJsonObject { put("a", 2); put("b", 40) }) { p ->
                println("progress: ${p.progress}/${p.total} ${p.message}")
            }
            println("add: ${result["content"]}")
        }
    }
}
