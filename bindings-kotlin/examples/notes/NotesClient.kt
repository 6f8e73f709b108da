package dev.oxmcp.kotlin.examples.notes

import dev.oxmcp.kotlin.Client
import dev.oxmcp.kotlin.ClientOptions
import dev.oxmcp.kotlin.Content
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonObject

// The notes client (the hostdx client): starts the notes server over stdio and calls each
// tool, the template and the prompt, with @Serializable classes in and out.
fun main(): Unit = runBlocking {
    val options = ClientOptions(elicitation = { buildJsonObject { put("action", "accept"); putJsonObject("content") { put("confirm", true); put("reason", "obsolete") } } })
    val java = System.getProperty("java.home") + "/bin/java"
    val server = listOf("-Djna.library.path=${System.getProperty("jna.library.path")}", "-cp", System.getProperty("java.class.path"), "dev.oxmcp.kotlin.examples.notes.NotesServerKt")
    Client.stdio(java, server, options).use { client ->
        println(client.tools().map { it.name })
        println(client.call<SearchArgs, Hits>("search_notes", SearchArgs(Search("milk", Sort.newest))))
        withTimeoutOrNull(1200) {
            client.call("reindex", buildJsonObject { put("steps", 10) }) { p -> println("progress ${p.progress.toInt()}/${p.total?.toInt()}") }
        } ?: println("cancelled")
        println(client.call("delete_note", buildJsonObject { put("name", "todo") }).text)
        println(client.read("notes://ideas").text)
        println((client.prompt("review_note", mapOf("name" to "ideas")).messages[0].content as Content.Text).text)
    }
}
