'use strict'
// oxmcp for Node.js: the JavaScript face of the oxmcp Rust engine. This layer turns
// JavaScript values into JSON text and back, keeps handler functions in slots, and maps
// Promises and AbortSignals onto the engine's calls; the engine (native.cjs) does the
// protocol, validation, correlation, cancellation, timeouts and transports.
//
// lib/: errors.cjs (the error classes and how errors cross), schema.cjs (JSON Schema or
// a Standard Schema validator), results.cjs (values as MCP results), server.cjs (Server, Context), http.cjs (the endpoint in a web framework), client.cjs.
const native = require('./native.cjs')
const {
  McpError, RequestTimeoutError, RequestCancelledError, ConnectionClosedError, TransportError, ProtocolError,
  InvalidInputError, CapabilityMissingError, HandlerError, UnauthorizedError, AbortError, ERROR_KINDS,
} = require('./lib/errors.cjs')
const { toolResult } = require('./lib/results.cjs')
const { Server, Context } = require('./lib/server.cjs')
const { Client, validate } = require('./lib/client.cjs')

module.exports = {
  Server,
  Client,
  Context,
  McpError,
  RequestTimeoutError,
  RequestCancelledError,
  ConnectionClosedError,
  TransportError,
  ProtocolError,
  InvalidInputError,
  CapabilityMissingError,
  HandlerError,
  UnauthorizedError,
  AbortError,
  validate,
  toolResult,
  version: native.nativeVersion(),
}
// For test/errors.test.mjs: not enumerable, so not part of the API.
Object.defineProperty(module.exports, '_errorKinds', { value: ERROR_KINDS })
