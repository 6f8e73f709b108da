package dev.oxmcp.kotlin.scenarios

import dev.oxmcp.kotlin.Client
import dev.oxmcp.kotlin.ClientOptions
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive

/**
 * The Kotlin host client of tests/telemetry/hosts.test.mjs: `HostClientKt ERA CMD...` calls the
 * tool `echo` of the server CMD starts, in protocol era ERA, with the engine's telemetry set by
 * the standard OTEL_* variables.
 */
fun main(args: Array<String>): Unit = runBlocking {
    val era = args[0]
    Client.stdio(args[1], args.drop(2), ClientOptions(era = era)).use { client ->
        val result = client.callTool("echo", JsonObject(mapOf("text" to JsonPrimitive("kotlin $era"))))
        val text = result["content"]!!.jsonArray[0].jsonObject["text"]!!.jsonPrimitive.content
        check(text == "kotlin $era") { "echo answered $result" }
    }
}
