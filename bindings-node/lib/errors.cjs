'use strict'
// Errors: one class per engine error kind, all rooted at McpError, and the crossing of errors both ways.

/** A JSON-RPC error (code, message, data), and the base of every oxmcp error. */
class McpError extends Error {
  constructor(code, message, data) {
    super(message)
    this.name = new.target.name
    this.code = code === undefined ? null : code
    this.data = data === undefined ? null : data
  }
}
/** The request got no response (nor progress) in time. A local timeout, not a peer error. */
class RequestTimeoutError extends McpError {}
/** The request was cancelled. */
class RequestCancelledError extends McpError {}
/** The connection is gone; for a child process the message holds its exit status and stderr tail. */
class ConnectionClosedError extends McpError {}
/** Reading or writing the transport failed, or a server could not be started. */
class TransportError extends McpError {}
/** The peer broke the protocol. */
class ProtocolError extends McpError {}
/** An argument was unusable (bad JSON, unknown name, invalid schema). */
class InvalidInputError extends McpError {}
/** The peer did not declare the capability the call needs. */
class CapabilityMissingError extends McpError {}
/** A handler failed. */
class HandlerError extends McpError {}
/** Authorization failed: the server refused the credentials and no new ones could be obtained. */
class UnauthorizedError extends McpError {}
/** The caller's AbortSignal aborted the request (`err.name === 'AbortError'`). */
class AbortError extends RequestCancelledError {
  constructor(message, reason) {
    super(null, message || 'The operation was aborted')
    this.name = 'AbortError'
    if (reason !== undefined) this.cause = reason
  }
}

// The engine's error kinds by their stable numbers and names (oxmcp::ErrorKind::code and
// ::name), each with its class. test/errors.test.mjs checks this against the addon's list.
const ERROR_KINDS = [
  [1, 'rpc', McpError],
  [2, 'timeout', RequestTimeoutError],
  [3, 'cancelled', RequestCancelledError],
  [4, 'closed', ConnectionClosedError],
  [5, 'transport', TransportError],
  [6, 'protocol', ProtocolError],
  [7, 'invalid_input', InvalidInputError],
  [8, 'capability_missing', CapabilityMissingError],
  [9, 'handler', HandlerError],
  [11, 'unauthorized', UnauthorizedError],
]
const CLASS_OF_KIND = new Map(ERROR_KINDS.map(([, name, C]) => [name, C]))

/** An engine error as its class. The addon throws (or sends in an event as JSON) `{code:
 *  kind name, kindCode, rpcCode, message, data}`; the class's `code` is the JSON-RPC one. */
function engineError(e) {
  const C = CLASS_OF_KIND.get(e.code) || McpError
  return new C(e.rpcCode ?? null, e.message, e.data ?? null)
}

/** A native error as an McpError when it is an engine error (it has a `kindCode`). */
function nativeError(err) {
  return err && typeof err.kindCode === 'number' ? engineError(err) : err
}

// A Promise made by the addon does not keep Node alive by itself: while any is pending,
// one idle timer does (none on the hot path: calls and handlers use the event dispatchers).
let waiting = 0
let keeper = null

async function nativeCall(promise) {
  if (waiting++ === 0) keeper = setInterval(() => {}, 1 << 30)
  try {
    return await promise
  } catch (err) {
    throw nativeError(err)
  } finally {
    if (--waiting === 0) clearInterval(keeper)
  }
}

function wrapSync(fn) {
  try {
    return fn()
  } catch (err) {
    throw nativeError(err)
  }
}

/** What a handler threw, as the engine reads it: an McpError with a code is sent as that
 *  JSON-RPC error; anything else is a handler failure with its message. */
function thrownToJson(err) {
  if (err instanceof McpError && typeof err.code === 'number') {
    return JSON.stringify({ code: err.code, message: String(err.message), data: err.data ?? undefined })
  }
  let message
  if (err instanceof Error) message = err.message || err.name
  else {
    try {
      message = typeof err === 'string' ? err : JSON.stringify(err)
    } catch {
      message = String(err)
    }
  }
  return JSON.stringify({ message: message || 'the handler failed' })
}

module.exports = { McpError, RequestTimeoutError, RequestCancelledError, ConnectionClosedError, TransportError, ProtocolError, InvalidInputError, CapabilityMissingError, HandlerError, UnauthorizedError, AbortError, ERROR_KINDS, engineError, nativeError, nativeCall, wrapSync, thrownToJson }
