package dev.oxmcp.kotlin.examples

import dev.oxmcp.kotlin.Client
import dev.oxmcp.kotlin.mcpServer
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.Serializable

@Serializable data class Add(val a: Int, val b: Int)

@Serializable data class Sum(val sum: Int)

// A server with one tool on Streamable HTTP, its input and output schemas derived from the
// classes, and a client that calls it with a progress listener and reads the result typed.
fun main() = runBlocking {
    mcpServer("quickstart") {
        tool<Add, Sum>("add", "Add two integers") { args, ctx ->
            ctx.reportProgress(1.0, 2.0, "adding")
            Sum(args.a + args.b)
        }
    }.use { server ->
        Client.http(server.startHttp(port = 0)).use { client ->
            println("tools: ${client.tools().map { it.name }}")
            val result = client.call<Add, Sum>("add", Add(2, 40)) { p ->
                println("progress: ${p.progress}/${p.total} ${p.message}")
            }
            println("add: $result")
        }
    }
}
