package dev.oxmcp.kotlin.telemetry

import dev.oxmcp.kotlin.Client
import dev.oxmcp.kotlin.mcpServer
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive

/**
 * A JVM without the OpenTelemetry API on its class path (TelemetryTest starts it so): a
 * Kotlin server and a Kotlin client of it. It names no OpenTelemetry class itself, and prints
 * `api false` and `result worked`.
 */
fun main() = runBlocking {
    val api = runCatching { Class.forName("io.opentelemetry.api.trace.Span") }.isSuccess
    println("api $api")
    mcpServer("untraced") {
        tool("work") { _, _ ->
            delay(1)
            "worked"
        }
    }.use { server ->
        Client.http(server.startHttp(port = 0)).use { client ->
            val result = client.callTool("work")
            println("result " + result["content"]!!.jsonArray[0].jsonObject["text"]!!.jsonPrimitive.content)
        }
    }
}
