package dev.oxmcp.kotlin

import dev.oxmcp.kotlin.ffi.NativeHttpApp
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong

/**
 * A server's Streamable HTTP endpoint inside a web framework that owns the sockets, made by
 * [Server.httpApp]: the framework hands in each request as plain values and streams the
 * answer's body back, and the engine answers exactly as its own listener would (sessions,
 * both protocol eras, SSE streams, `Host` and `Origin` checks, OAuth). The Ktor route
 * [dev.oxmcp.kotlin.ktor.mcp] is that framework side for Ktor.
 *
 * ```
 * val answer = app.handle("POST", app.path, headers, body) ?: return
 * // write answer.status and answer.headers, then each answer.next() until it is null
 * ```
 */
class HttpApp internal constructor(private val native: NativeHttpApp, val path: String) : AutoCloseable {
    private val ids = AtomicLong(1)
    private val closed = AtomicBoolean(false)

    /** The largest request body the engine takes: read at most one byte more (it answers 413). */
    val maxBodyBytes: Long = native.maxBodyBytes().toLong()

    /**
     * Answers one request: [target] is the endpoint's [path] (not the prefix a framework
     * mounted it under) with the request's query, [headers] in order (a name may repeat),
     * [body] the whole body. The answer's head, whose body [Exchange.next] reads; `null`
     * when [Exchange.stop] came first. Cancelling the coroutine ends the exchange.
     */
    suspend fun handle(method: String, target: String, headers: List<Pair<String, String>>, body: ByteArray): Exchange? {
        val id = ids.getAndIncrement().toULong()
        val flat = headers.flatMap { listOf(it.first, it.second) }
        try {
            val head = mcp { native.handle(id, method, target, flat, body) } ?: return null
            val members = Json.parseToJsonElement(head).jsonObject
            val answerHeaders = members["headers"]!!.jsonArray.map { pair ->
                val (name, value) = pair.jsonArray.map { it.jsonPrimitive.content }
                name to value
            }
            return Exchange(native, id, members["status"]!!.jsonPrimitive.int, answerHeaders)
        } catch (e: Throwable) {
            // Cancelled (also just as the answer came, which is then dropped unread) or
            // failed: the exchange ends here.
            native.stop(id)
            throw e
        }
    }

    /** An answer: status and headers, and a body that may stay open (an SSE stream). */
    class Exchange internal constructor(
        private val native: NativeHttpApp,
        private val id: ULong,
        /** The HTTP status. */
        val status: Int,
        /** Header names and values, in order (a name may repeat). */
        val headers: List<Pair<String, String>>,
    ) {
        /** The body's next chunk; `null` once it has ended (or [stop] ended it). */
        suspend fun next(): ByteArray? = native.next(id)

        /** Ends the exchange now (the client went away): the engine sees the connection closed. */
        fun stop() = native.stop(id)
    }

    /** Ends every session and stream (calls in flight get the engine's grace period). */
    suspend fun shutdown() = native.shutdown()

    /** [shutdown], blocking, then frees the endpoint. Idempotent. */
    override fun close() {
        if (closed.compareAndSet(false, true)) {
            runBlocking { shutdown() }
            native.destroy()
        }
    }
}
