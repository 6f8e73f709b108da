package dev.oxmcp.kotlin.examples.notes

import dev.oxmcp.kotlin.McpDescription
import dev.oxmcp.kotlin.PromptArgument
import dev.oxmcp.kotlin.mcpServer
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.Serializable

// The notes server (the hostdx server, ../shared/hostdx) on oxmcp for Kotlin: tools whose
// schemas come from @Serializable classes, a resource template and a prompt; over stdio.

@Serializable enum class Sort { newest, oldest, relevance }
@Serializable data class Search(@McpDescription("text to look for") val query: String, val sort: Sort = Sort.relevance, val limit: Int? = null)
@Serializable data class SearchArgs(val search: Search)
@Serializable data class Hits(val names: List<String>)
@Serializable data class Steps(val steps: Int)
@Serializable data class Name(val name: String)
@Serializable data class Confirm(val confirm: Boolean, val reason: String? = null)

val notes = mutableMapOf("todo" to "buy milk", "ideas" to "write a parser")

fun main(): Unit = runBlocking {
    mcpServer("notes", "1.0.0") {
        tool<SearchArgs, Hits>("search_notes", "Search the notes") { (search), _ ->
            Hits(notes.filterValues { search.query in it }.keys.take(search.limit ?: Int.MAX_VALUE))
        }
        tool<Steps, String>("reindex", "Rebuild the index, reporting progress") { (steps), ctx ->
            for (i in 1..steps) {
                ctx.reportProgress(i.toDouble(), steps.toDouble(), "step $i")
                delay(500) // CancellationException here when the client cancels
            }
            "reindexed"
        }
        tool<Name, String>("delete_note", "Delete a note after asking the user") { (name), ctx ->
            val answer = ctx.elicit<Confirm>("Delete $name?").content
            if (answer?.confirm != true) return@tool "kept"
            notes.remove(name)
            "deleted (${answer.reason ?: ""})"
        }
        resourceTemplate("notes://{name}", "note", "A note by name", "text/plain") { _, variables, _ -> notes[variables["name"]] ?: "" }
        prompt("review_note", "Ask for a review of a note", listOf(PromptArgument("name", required = true))) { args, _ ->
            "Please review this note:\n${notes[args["name"]] ?: ""}"
        }
    }.use { it.serveStdio() } // or HTTP: it.startHttp(port = 8000)
}
