/**
 * The MCP endpoint inside a Ktor application (Ktor 3: Netty, CIO, Jetty): the engine answers
 * every request exactly as [Server.startHttp]'s own listener would ([Server.httpApp]); the
 * route only moves bytes, streaming each answer as it comes.
 */
package dev.oxmcp.kotlin.ktor

import dev.oxmcp.kotlin.HttpApp
import dev.oxmcp.kotlin.HttpAuth
import dev.oxmcp.kotlin.Server
import io.ktor.http.ContentType
import io.ktor.http.Headers
import io.ktor.http.HttpStatusCode
import io.ktor.http.content.OutgoingContent
import io.ktor.server.application.ApplicationCall
import io.ktor.server.application.ApplicationStopping
import io.ktor.server.application.createApplicationPlugin
import io.ktor.server.request.httpMethod
import io.ktor.server.request.queryString
import io.ktor.server.request.receiveChannel
import io.ktor.server.response.respond
import io.ktor.server.routing.Route
import io.ktor.server.routing.application
import io.ktor.server.routing.route
import io.ktor.server.routing.routing
import io.ktor.utils.io.ByteWriteChannel
import io.ktor.utils.io.readRemaining
import io.ktor.utils.io.writeFully
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.sync.Mutex
import kotlinx.coroutines.sync.withLock
import kotlinx.io.readByteArray

/** Headers the engine's answer carries that Ktor sets itself (from the content) or per connection. */
private val OWN_HEADERS = setOf("content-type", "content-length", "transfer-encoding", "connection", "keep-alive")

/**
 * Serves [server]'s Streamable HTTP endpoint at [path] of this route, with [Server.startHttp]'s
 * options (only local `Host` and `Origin` values are accepted unless [allowedHosts] and
 * [allowedOrigins] name others). The endpoint is made on the first request (tools registered
 * until then are in) and its sessions and streams end when the application stops.
 *
 * ```
 * embeddedServer(Netty, port = 8080) {
 *     routing {
 *         mcp("/mcp", server, allowedHosts = listOf("mcp.example.com"))
 *     }
 * }.start(wait = true)
 * ```
 */
fun Route.mcp(
    path: String,
    server: Server,
    stateless: Boolean = false,
    jsonResponse: Boolean = false,
    allowedHosts: List<String>? = null,
    allowedOrigins: List<String>? = null,
    maxSessions: Int? = null,
    auth: HttpAuth? = null,
): Route {
    val endpoint = Endpoint { server.httpApp("/mcp", stateless, jsonResponse, allowedHosts, allowedOrigins, maxSessions, auth) }
    application.monitor.subscribe(ApplicationStopping) { endpoint.close() }
    return route(path) { handle { endpoint.serve(call) } }
}

/** What [Mcp] serves and how: the server, and [Route.mcp]'s path and options. */
class McpConfig {
    /** The server to serve (required). */
    var server: Server? = null
    var path: String = "/mcp"
    var stateless: Boolean = false
    var jsonResponse: Boolean = false
    var allowedHosts: List<String>? = null
    var allowedOrigins: List<String>? = null
    var maxSessions: Int? = null
    var auth: HttpAuth? = null
}

/**
 * The endpoint as a Ktor application plugin: installing it mounts [Route.mcp] on the
 * application's routing.
 *
 * ```
 * embeddedServer(Netty, port = 8080) {
 *     install(Mcp) {
 *         server = notes
 *         allowedHosts = listOf("mcp.example.com")
 *     }
 * }.start(wait = true)
 * ```
 */
val Mcp = createApplicationPlugin("OxMcp", ::McpConfig) {
    val c = pluginConfig
    val server = requireNotNull(c.server) { "install(Mcp) needs the server: install(Mcp) { server = ... }" }
    application.routing { mcp(c.path, server, c.stateless, c.jsonResponse, c.allowedHosts, c.allowedOrigins, c.maxSessions, c.auth) }
}

/** The engine's endpoint of one route, and the exchanges of its requests. */
private class Endpoint(private val make: suspend () -> HttpApp) {
    private val lock = Mutex()
    @Volatile private var made: HttpApp? = null
    @Volatile private var stopped = false

    private suspend fun app(): HttpApp? = lock.withLock {
        if (stopped) null else made ?: make().also { made = it }
    }

    /** Ends the endpoint (after a request that is making it, which then finds it stopped). */
    fun close() = runBlocking {
        lock.withLock {
            stopped = true
            made?.close()
            made = null
        }
    }

    suspend fun serve(call: ApplicationCall) {
        val app = app() ?: return call.respond(HttpStatusCode.ServiceUnavailable, "the MCP endpoint is shutting down")
        // One byte more than the engine takes is enough for it to answer 413.
        val body = call.receiveChannel().readRemaining(app.maxBodyBytes + 1).readByteArray()
        val headers = call.request.headers.entries().flatMap { (name, values) -> values.map { name.lowercase() to it } }
        val query = call.request.queryString()
        val target = if (query.isEmpty()) app.path else app.path + "?" + query
        // Cancelled (the client went away), the coroutine ends the exchange.
        val answer = app.handle(call.request.httpMethod.value, target, headers, body) ?: return
        val content = Answer(answer)
        try {
            call.respond(content)
        } finally {
            // Ktor never wrote it (the client left, another plugin answered): end it here.
            if (!content.started) answer.stop()
        }
    }
}

/** The engine's answer as Ktor content: its body written chunk by chunk as the engine gives it. */
private class Answer(private val answer: HttpApp.Exchange) : OutgoingContent.WriteChannelContent() {
    override val status = HttpStatusCode.fromValue(answer.status)
    override val contentType = answer.headers.firstOrNull { it.first.equals("content-type", ignoreCase = true) }?.let { ContentType.parse(it.second) }
    override val headers = Headers.build {
        for ((name, value) in answer.headers) if (name.lowercase() !in OWN_HEADERS) append(name, value)
    }

    /** Whether Ktor began writing it (from then on, [writeTo] ends the exchange). */
    @Volatile var started = false

    override suspend fun writeTo(channel: ByteWriteChannel) {
        started = true
        var ended = false
        try {
            channel.flush() // the head goes out at once: an SSE stream may stay quiet
            while (true) {
                val chunk = answer.next() ?: break
                channel.writeFully(chunk)
                channel.flush()
            }
            ended = true
        } finally {
            if (!ended) answer.stop() // the client went away
        }
    }
}
