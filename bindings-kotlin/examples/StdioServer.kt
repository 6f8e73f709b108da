package dev.oxmcp.kotlin.examples.stdio

import dev.oxmcp.kotlin.mcpServer
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonObject

// A server on stdin/stdout (the tests start it as a child process): one tool that greets.
fun main() = runBlocking {
    val schema = buildJsonObject {
        put("type", "object")
        putJsonObject("properties") { putJsonObject("name") { put("type", "string") } }
    }
    mcpServer("kotlin-stdio", "2.0.0") {
        tool("greet", "Greets someone", schema) { args, _ -> "Hello, ${args["name"]?.jsonPrimitive?.content ?: "stranger"}!" }
    }.use { it.serveStdio() }
}
