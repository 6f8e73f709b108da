package dev.oxmcp.kotlin

import dev.oxmcp.kotlin.ffi.NativeException
import kotlinx.coroutines.CancellationException

/**
 * Every oxmcp failure, one subclass per kind of the engine's error taxonomy. [kind] is the
 * kind's stable number (the same in every oxmcp host); [code] and [data] are the JSON-RPC
 * error's, when the peer answered with one (or a handler should answer with one).
 *
 * ```
 * try {
 *     client.callTool("missing")
 * } catch (e: McpException.Rpc) {
 *     println("the server said ${e.code}: ${e.message}")
 * }
 * ```
 *
 * A handler throws one to answer with a JSON-RPC error: `throw McpException.Rpc(-32602, "bad")`.
 * Any other exception from a tool becomes an `isError` result, from other handlers -32603.
 */
sealed class McpException(
    /** The kind's stable number. */
    val kind: Int,
    message: String,
    /** The JSON-RPC error code, if any. */
    val code: Long? = null,
    /** The JSON-RPC error's data (JSON), if any. */
    val data: String? = null,
) : Exception(message) {
    /** The peer answered with a JSON-RPC error. */
    class Rpc(code: Long, message: String, data: String? = null) : McpException(1, message, code, data)

    /** The request's timeout elapsed. */
    class Timeout(message: String) : McpException(2, message)

    /** The request was cancelled (here, or by the peer). */
    class Cancelled(message: String) : McpException(3, message)

    /** The connection is closed. */
    class Closed(message: String) : McpException(4, message)

    /** Reading or writing the transport failed, or a process could not be started. */
    class Transport(message: String) : McpException(5, message)

    /** The peer broke the protocol. */
    class Protocol(message: String) : McpException(6, message)

    /** Something passed in is unusable (arguments, a name, a schema, options). */
    class InvalidInput(message: String) : McpException(7, message)

    /** The peer did not declare the capability this needs. */
    class CapabilityMissing(message: String) : McpException(8, message)

    /** A handler failed. */
    class Handler(message: String, code: Long? = null, data: String? = null) : McpException(9, message, code, data)

    /** Authorization failed. */
    class Unauthorized(message: String) : McpException(11, message)

    internal fun toNative(): NativeException = NativeException.Mcp(kind.toUInt(), code, message ?: "", data)

    companion object {
        /** The kinds by number: what the tests compare with the engine's own table. */
        val KINDS: Map<Int, String> = mapOf(
            1 to "rpc", 2 to "timeout", 3 to "cancelled", 4 to "closed", 5 to "transport", 6 to "protocol",
            7 to "invalid_input", 8 to "capability_missing", 9 to "handler", 11 to "unauthorized",
        )

        internal fun from(e: NativeException): McpException = when (e) {
            is NativeException.Mcp -> {
                val message = e.text
                when (e.kind.toInt()) {
                    1 -> Rpc(e.code ?: 0, message, e.data)
                    2 -> Timeout(message)
                    3 -> Cancelled(message)
                    4 -> Closed(message)
                    5 -> Transport(message)
                    6 -> Protocol(message)
                    7 -> InvalidInput(message)
                    8 -> CapabilityMissing(message)
                    9 -> Handler(message, e.code, e.data)
                    11 -> Unauthorized(message)
                    else -> Protocol("unknown error kind ${e.kind}: $message")
                }
            }
        }
    }
}

/** Runs [block], turning the engine's errors into [McpException]s. */
internal inline fun <T> mcp(block: () -> T): T =
    try {
        block()
    } catch (e: NativeException) {
        throw McpException.from(e)
    }

/**
 * Runs a handler's [block] for the engine: an [McpException] crosses as itself, any other
 * exception as [McpException.Handler] with its message; cancellation passes through.
 */
internal inline fun <T> answering(block: () -> T): T =
    try {
        block()
    } catch (e: CancellationException) {
        throw e
    } catch (e: McpException) {
        throw e.toNative()
    } catch (e: Exception) {
        throw McpException.Handler(e.message ?: e.toString()).toNative()
    }
