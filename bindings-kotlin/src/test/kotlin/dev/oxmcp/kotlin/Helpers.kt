package dev.oxmcp.kotlin

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonObject
import java.io.File

/** The oxmcp CLI: $OXMCP_BIN, else the workspace's debug build. */
val OXMCP: String = System.getenv("OXMCP_BIN") ?: File("../target/debug/oxmcp").absolutePath

/** The text of a result's first content block. */
fun JsonObject.text(): String = this["content"]!!.jsonArray[0].jsonObject["text"]!!.jsonPrimitive.content

/** A schema of string properties. */
fun strings(vararg names: String): JsonObject = buildJsonObject {
    put("type", "object")
    putJsonObject("properties") { for (n in names) putJsonObject(n) { put("type", "string") } }
}

/** A java command running [mainClass] from this test's classpath. */
fun javaCommand(mainClass: String): Pair<String, List<String>> {
    val java = File(System.getProperty("java.home"), "bin/java").path
    return java to listOf("-Djna.library.path=${System.getProperty("jna.library.path")}", "-cp", System.getProperty("java.class.path"), mainClass)
}
