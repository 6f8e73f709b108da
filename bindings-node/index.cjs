'use strict'
// oxmcp for Node.js: the JavaScript face of the oxmcp Rust engine. This layer turns
// JavaScript values into JSON text and back, keeps handler functions in slots, and maps
// Promises and AbortSignals onto the engine's calls; the engine (native.cjs) does the
// protocol, validation, correlation, cancellation, timeouts and transports.

const { EventEmitter } = require('node:events')
const native = require('./native.cjs')

// ---------------------------------------------------------------------------------------
// Errors: one class per engine error kind, all rooted at McpError.

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

// ---------------------------------------------------------------------------------------
// Schemas: a JSON Schema object, a zod 4 schema, or a zod "raw shape" ({a: z.number()}).

function isZod(value) {
  return value != null && typeof value === 'object' && value._zod !== undefined && typeof value.safeParse === 'function'
}

function isZodShape(value) {
  if (value == null || typeof value !== 'object' || Array.isArray(value) || isZod(value)) return false
  const vals = Object.values(value)
  return vals.length > 0 && vals.every(isZod)
}

let zodModule
function zod() {
  if (zodModule === undefined) {
    try {
      zodModule = require('zod')
    } catch {
      zodModule = null
    }
  }
  if (!zodModule) throw new InvalidInputError(null, 'a zod schema was given but the zod package cannot be loaded')
  return zodModule
}

/** `{ json, zod }`: the JSON Schema to send and validate with, and the zod schema (if any)
 *  that parses the validated arguments for the handler. */
function schemaOf(schema, what) {
  if (schema === undefined || schema === null) return { json: { type: 'object', properties: {} }, zod: null }
  let z = null
  if (isZod(schema)) z = schema
  else if (isZodShape(schema)) z = zod().object(schema)
  if (z) {
    const json = typeof z.toJSONSchema === 'function'
      ? z.toJSONSchema({ io: 'input' })
      : zod().toJSONSchema(z, { io: 'input' })
    return { json, zod: z }
  }
  if (typeof schema !== 'object' || Array.isArray(schema)) {
    throw new InvalidInputError(null, `${what} must be a JSON Schema object or a zod schema`)
  }
  return { json: schema, zod: null }
}

function zodParse(z, value) {
  const r = z.safeParse(value)
  if (r.success) return r.data
  const issues = (r.error.issues || []).map(i => `${(i.path || []).join('.') || '(root)'}: ${i.message}`)
  throw new Error(`Invalid arguments: ${issues.join('; ') || r.error.message}`)
}

// ---------------------------------------------------------------------------------------
// Results: what handlers return, as MCP results.

function isContentBlock(v) {
  return v != null && typeof v === 'object' && typeof v.type === 'string'
}

function toContentBlock(v) {
  if (typeof v === 'string') return { type: 'text', text: v }
  if (isContentBlock(v)) return v
  return { type: 'text', text: JSON.stringify(v) }
}

/** A tool's return value as a CallToolResult: a string is one text block; an object with
 *  `content` (or `structuredContent`) is a result as-is; any other plain object is
 *  structured content (with its JSON as text); content blocks and arrays of them are the
 *  content; numbers and booleans become text. */
function toolResult(value) {
  if (value === undefined || value === null) return { content: [] }
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] }
  if (Array.isArray(value)) return { content: value.map(toContentBlock) }
  if (typeof value === 'object') {
    if (Array.isArray(value.content) || value.structuredContent !== undefined || value.isError !== undefined) {
      return value.content === undefined ? { ...value, content: [] } : value
    }
    if (isContentBlock(value)) return { content: [value] }
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value }
  }
  return { content: [{ type: 'text', text: JSON.stringify(value) }] }
}

function isBytes(v) {
  return v instanceof Uint8Array || v instanceof ArrayBuffer
}

function resourceContent(uri, item, mimeType) {
  if (typeof item === 'string') return mimeType ? { uri, mimeType, text: item } : { uri, text: item }
  if (isBytes(item)) {
    const blob = Buffer.from(item instanceof ArrayBuffer ? new Uint8Array(item) : item).toString('base64')
    return { uri, mimeType: mimeType || 'application/octet-stream', blob }
  }
  if (item && typeof item === 'object' && (typeof item.text === 'string' || typeof item.blob === 'string')) {
    const out = { uri, ...item }
    if (!out.mimeType && mimeType) out.mimeType = mimeType
    return out
  }
  return { uri, mimeType: mimeType || 'application/json', text: JSON.stringify(item) }
}

/** A resource's return value as a ReadResourceResult: a string is text, bytes a blob,
 *  `{contents}` as-is, an array one content per item, other values JSON text. */
function resourceResult(uri, value, mimeType) {
  if (value && typeof value === 'object' && !isBytes(value) && Array.isArray(value.contents)) return value
  const items = Array.isArray(value) ? value : [value]
  return { contents: items.map(item => resourceContent(uri, item, mimeType)) }
}

function promptMessage(item) {
  if (item && typeof item === 'object' && typeof item.role === 'string') {
    return { role: item.role, content: toContentBlock(item.content) }
  }
  return { role: 'user', content: toContentBlock(item) }
}

/** A prompt's return value as a GetPromptResult: a string is one user message; a message
 *  `{role, content}` or an array of messages and strings; `{messages}` as-is. */
function promptResult(value, description) {
  if (value && typeof value === 'object' && Array.isArray(value.messages)) return value
  const items = Array.isArray(value) ? value : [value]
  const out = { messages: items.map(promptMessage) }
  if (description) out.description = description
  return out
}

/** A completion's return value: candidate strings (all of them: the engine sends at most
 *  100 and says there are more), or a Completion as-is. */
function completionResult(value) {
  if (Array.isArray(value)) {
    const values = value.map(String)
    return { values, total: values.length, hasMore: false }
  }
  if (value && typeof value === 'object' && Array.isArray(value.values)) return value
  return { values: [] }
}

// ---------------------------------------------------------------------------------------
// Server

// Server events (TOOL = 1, RESOURCE = 2, PROMPT = 3, COMPLETE = 4 are calls, told by slot).
const CANCEL = 5, STDIO_CLOSED = 6
const HTTP_OPTIONS = ['host', 'port', 'path', 'stateless', 'jsonResponse', 'allowedHosts', 'allowedOrigins', 'maxSessions']

/** One request's context, handed to every handler as its last argument. */
class Context {
  constructor(native, id) {
    this._native = native
    this._id = id
    this._info = null
    this._controller = null
  }

  _details() {
    if (this._info === null) this._info = JSON.parse(wrapSync(() => this._native.ctxInfo(this._id)))
    return this._info
  }

  /** Fires when the client cancels the request. */
  get signal() {
    if (this._controller === null) {
      this._controller = new AbortController()
      let cancelled = false
      try {
        cancelled = this._details().cancelled
      } catch {
        cancelled = false
      }
      if (cancelled) this._abort()
    }
    return this._controller.signal
  }

  _abort() {
    if (this._controller === null) this._controller = new AbortController()
    if (!this._controller.signal.aborted) this._controller.abort(new RequestCancelledError(null, 'cancelled by the client'))
  }

  /** The client's id of this request. */
  get requestId() { return this._details().requestId }
  /** The progress token the client attached, if any. */
  get progressToken() { return this._details().progressToken ?? undefined }
  /** The client's name and version. */
  get clientInfo() { return this._details().clientInfo ?? undefined }
  /** What the client declared it can do. */
  get clientCapabilities() { return this._details().clientCapabilities ?? undefined }
  /** The negotiated protocol version. */
  get protocolVersion() { return this._details().protocolVersion ?? undefined }

  /** Sends a progress notification (nothing if the client asked for none). */
  progress(progress, total, message) {
    wrapSync(() => this._native.ctxProgress(this._id, Number(progress), total == null ? null : Number(total),
      message == null ? null : String(message)))
    return Promise.resolve()
  }

  /** Sends a log message (if the client's level lets it through). */
  log(level, data, logger) {
    wrapSync(() => this._native.ctxLog(this._id, String(level), JSON.stringify(data === undefined ? null : data),
      logger == null ? null : String(logger)))
    return Promise.resolve()
  }

  /** Asks the user for input (`elicitation/create`). `schema` is a JSON Schema object or a
   *  zod object schema; with zod, an accepted answer's `content` is zod-parsed. */
  async elicit(message, schema, options = {}) {
    const { json, zod: z } = schemaOf(schema, 'the elicitation schema')
    const requested = { ...json }
    delete requested.$schema
    const params = { ...options, message: String(message), requestedSchema: requested }
    const result = JSON.parse(await this._ask('elicitation/create', params))
    if (z && result.action === 'accept') result.content = zodParse(z, result.content ?? {})
    return result
  }

  /** Asks the client's model (`sampling/createMessage`). A string is one user message. */
  async sample(messages, options = {}) {
    const list = typeof messages === 'string'
      ? [{ role: 'user', content: { type: 'text', text: messages } }]
      : messages.map(m => (typeof m === 'string' ? { role: 'user', content: { type: 'text', text: m } } : m))
    // The engine fills in maxTokens when options name none.
    return JSON.parse(await this._ask('sampling/createMessage', { ...options, messages: list }))
  }

  /** The client's roots. */
  async listRoots() {
    return JSON.parse(await this._ask('roots/list', {})).roots
  }

  _ask(method, params) {
    return nativeCall(wrapSync(() => this._native.ctxAsk(this._id, method, JSON.stringify(params))))
  }

  /** Over Streamable HTTP, closes this request's SSE stream; the client resumes it. */
  endResponseStream() {
    wrapSync(() => this._native.ctxEndResponseStream(this._id))
  }
}

function definitionFields(out, config, keys) {
  for (const k of keys) if (config[k] !== undefined) out[k] = config[k]
  return out
}

/**
 * An MCP server whose tools, resources and prompts are JavaScript functions.
 *
 * ```js
 * const server = new Server({ name: 'demo', version: '1.0.0' })
 * server.tool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b))
 * await server.listenStdio()
 * ```
 */
class Server {
  constructor(info = {}, options = {}) {
    if (typeof info === 'string') info = { name: info }
    const instructions = options.instructions ?? info.instructions ?? null
    this._slots = []
    this._live = new Map()
    this._listening = { stdio: false, http: false }
    this._native = new native.NativeServer(String(info.name || 'oxmcp-node-server'), String(info.version || '0.1.0'),
      instructions, (kind, id, slot, a, b) => this._dispatch(kind, id, slot, a, b))
  }

  /** Files a handler: `run(input, ctx)` calls the user's function with the engine's input
   *  (parsed JSON), `finish(value, input)` makes its return value the result the kind owes. */
  _slot(run, finish) {
    this._slots.push({ run, finish })
    return this._slots.length - 1
  }

  /** Registers a tool: `tool(name, handler)` or `tool(name, config, handler)`; config has
   *  `description`, `title`, `inputSchema` (JSON Schema or zod), `outputSchema`,
   *  `annotations`, `_meta`. The handler gets `(args, ctx)`. */
  tool(name, config, handler) {
    if (typeof config === 'function') [config, handler] = [{}, config]
    if (typeof handler !== 'function') throw new InvalidInputError(null, `tool ${name}: the handler must be a function`)
    config = config || {}
    const input = schemaOf(config.inputSchema, 'inputSchema')
    const tool = definitionFields({ name: String(name) }, config, ['title', 'description', 'annotations', '_meta', 'icons'])
    tool.inputSchema = input.json
    if (config.outputSchema !== undefined) tool.outputSchema = schemaOf(config.outputSchema, 'outputSchema').json
    const z = input.zod
    const slot = this._slot((args, ctx) => handler(z ? zodParse(z, args) : args, ctx), toolResult)
    wrapSync(() => this._native.register('tool', JSON.stringify(tool), slot))
    return this
  }

  /** Registers a resource: `resource(uri, handler)` or `resource(uri, config, handler)`. A
   *  URI with `{variables}` is a template. The handler gets `(uri, variables, ctx)` and
   *  returns a string (text), bytes (a blob), `{contents}`, or JSON data. */
  resource(uri, config, handler) {
    if (typeof config === 'function') [config, handler] = [{}, config]
    if (typeof handler !== 'function') throw new InvalidInputError(null, `resource ${uri}: the handler must be a function`)
    config = config || {}
    uri = String(uri)
    const template = uri.includes('{')
    const def = definitionFields({ name: config.name || uri }, config, ['title', 'description', 'mimeType', 'annotations', '_meta', 'icons', 'size'])
    const mimeType = config.mimeType
    // The engine hands every resource handler `{uri, variables}` (no variables: `{}`).
    const slot = this._slot(
      (input, ctx) => handler(input.uri, input.variables || {}, ctx),
      (value, input) => resourceResult(input.uri, value, mimeType),
    )
    if (template) {
      delete def.size
      wrapSync(() => this._native.register('resource template', JSON.stringify({ uriTemplate: uri, ...def }), slot))
    } else {
      wrapSync(() => this._native.register('resource', JSON.stringify({ uri, ...def }), slot))
    }
    return this
  }

  /** Registers a prompt: `prompt(name, handler)` or `prompt(name, config, handler)`;
   *  config has `description`, `title`, and `arguments` (`[{name, description, required}]`)
   *  or `argsSchema` (a zod shape or object). The handler gets `(args, ctx)` and returns
   *  a string, a message `{role, content}`, an array of them, or `{messages}`. */
  prompt(name, config, handler) {
    if (typeof config === 'function') [config, handler] = [{}, config]
    if (typeof handler !== 'function') throw new InvalidInputError(null, `prompt ${name}: the handler must be a function`)
    config = config || {}
    const def = definitionFields({ name: String(name) }, config, ['title', 'description', '_meta', 'icons'])
    let z = null
    if (config.arguments) def.arguments = config.arguments
    else if (config.argsSchema) {
      const s = schemaOf(config.argsSchema, 'argsSchema')
      z = s.zod
      const required = new Set(s.json.required || [])
      def.arguments = Object.entries(s.json.properties || {}).map(([arg, prop]) => {
        const entry = { name: arg, required: required.has(arg) }
        if (prop && prop.description) entry.description = prop.description
        return entry
      })
    }
    const slot = this._slot((args, ctx) => handler(z ? zodParse(z, args) : args, ctx), value => promptResult(value))
    wrapSync(() => this._native.register('prompt', JSON.stringify(def), slot))
    return this
  }

  /** Sets the completion function `(ref, argument, context, ctx)`: `ref` is the prompt or
   *  template reference, `argument` has `name` and `value`. Returns candidate strings. */
  completion(handler) {
    const slot = this._slot((p, ctx) => handler(p.ref, p.argument, p.context, ctx), completionResult)
    wrapSync(() => this._native.register('completion', '{}', slot))
    return this
  }

  /** Removes a tool (clients are told the list changed). */
  removeTool(name) {
    return this._native.removeTool(String(name))
  }

  /** Tells clients subscribed to `uri` that it changed. */
  notifyResourceUpdated(uri) {
    this._native.notifyResourceUpdated(String(uri))
  }

  /** Live sessions. */
  get sessionCount() {
    return this._native.sessionCount()
  }

  /** Serves one client on stdin/stdout (write nothing else to stdout); resolves once
   *  serving. The process stays alive until stdin closes or `close()`. */
  async listenStdio() {
    // Listening before the engine starts: stdin may close (an event) before this resumes.
    this._listening.stdio = true
    this._updateRef()
    try {
      wrapSync(() => this._native.listenStdio())
    } catch (err) {
      this._listening.stdio = false
      this._updateRef()
      throw err
    }
  }

  /** Serves Streamable HTTP on `path` (default `/mcp`; legacy SSE on `/sse`); resolves to
   *  the URL. Options: `host` (default 127.0.0.1), `port` (0 picks one), `path`,
   *  `stateless`, `jsonResponse`, `allowedHosts`, `allowedOrigins`, `maxSessions`. */
  async listenHttp(options = {}) {
    // The engine rejects keys it does not know; this API has always ignored them.
    const o = {}
    for (const k of HTTP_OPTIONS) if (options[k] != null) o[k] = options[k]
    const url = await nativeCall(wrapSync(() => this._native.listenHttp(JSON.stringify(o))))
    this._listening.http = true
    this._updateRef()
    return url
  }

  /** Stops serving; the process may exit once nothing else keeps it alive. */
  async close() {
    try {
      await nativeCall(this._native.close())
    } finally {
      this._listening.stdio = false
      this._listening.http = false
      this._updateRef()
    }
  }

  _updateRef() {
    this._native.setRef(this._listening.stdio || this._listening.http)
  }

  _dispatch(kind, id, slot, a, b) {
    try {
      if (kind === CANCEL) {
        const ctx = this._live.get(id)
        if (ctx) ctx._abort()
        return
      }
      if (kind === STDIO_CLOSED) {
        this._listening.stdio = false
        this._updateRef()
        return
      }
      this._run(id, this._slots[slot], a)
    } catch (err) {
      try {
        this._native.fail(id, thrownToJson(err))
      } catch {
        // The call is gone already.
      }
    }
  }

  _run(id, entry, inputJson) {
    const ctx = new Context(this._native, id)
    let input, value
    try {
      input = JSON.parse(inputJson)
      value = entry.run(input, ctx)
    } catch (err) {
      this._native.fail(id, thrownToJson(err))
      return
    }
    if (value === null || typeof value !== 'object' || typeof value.then !== 'function') {
      this._finish(id, entry, value, input)
      return
    }
    this._live.set(id, ctx)
    value.then(
      v => {
        this._live.delete(id)
        this._finish(id, entry, v, input)
      },
      err => {
        this._live.delete(id)
        this._native.fail(id, thrownToJson(err))
      },
    )
  }

  _finish(id, entry, value, input) {
    let text
    try {
      text = JSON.stringify(entry.finish(value, input))
    } catch (err) {
      this._native.fail(id, thrownToJson(err))
      return
    }
    this._native.complete(id, text)
  }
}

// ---------------------------------------------------------------------------------------
// Client

const RESULT = 1, ERROR = 2, PROGRESS = 3, NOTIFICATION = 4, REQUEST = 5, REQUEST_CANCEL = 6

function abortError(signal) {
  return new AbortError('The operation was aborted', signal.reason)
}

/**
 * A connected MCP client. Every call returns a Promise and takes `{ signal, timeout,
 * onProgress }`; aborting the signal cancels the request at the server.
 *
 * ```js
 * const client = await Client.stdio('node', ['server.js'])
 * const result = await client.callTool('add', { a: 1, b: 2 })
 * await client.close()
 * ```
 *
 * Events: `'notification'` `({ method, params })` for every server notification, and
 * each notification by its method (`'notifications/message'`, ...) with its params.
 */
class Client extends EventEmitter {
  constructor(token) {
    super()
    if (token !== CONNECTING) throw new TypeError('use Client.stdio(...) or Client.http(...)')
    this._native = null
    this._pending = new Map()
    this._serverRequests = new Map()
    this._next = 1
    this._options = {}
    this._init = null
    this._closed = false
  }

  /** Connects with the engine's connect options (`oxmcp::host::ConnectOptions`) made of
   *  `transport` (command or URL) and the user's `options`. */
  static async _connect(transport, options) {
    const client = new Client(CONNECTING)
    client._options = options
    if (typeof options.onNotification === 'function') client.on('notification', n => options.onNotification(n))
    const o = { ...transport, answers: ['sampling', 'elicitation', 'roots'].filter(kind => options[kind]) }
    // Non-strings as before: a name or version is text; an era other than a string is
    // refused by the engine with the names it knows.
    for (const k of ['name', 'version', 'era']) if (options[k] != null) o[k] = String(options[k])
    const n = await nativeCall(wrapSync(() => native.connect(JSON.stringify(o),
      (kind, id, slot, a, b) => client._dispatch(kind, id, slot, a, b))))
    client._native = n
    client._init = JSON.parse(n.initializeResult())
    return client
  }

  /** Starts `command` with `args` and connects over stdio. Options: `env`, `cwd`, `name`,
   *  `version`, `sampling`, `elicitation`, `roots`, `onNotification`, `era` (`'auto'`,
   *  the default, `'session'` or `'stateless'`). */
  static async stdio(command, args = [], options = {}) {
    if (!Array.isArray(args)) [args, options] = [[], args || {}]
    const o = { command: String(command), args: args.map(String), env: textValues(options.env) }
    if (options.cwd != null) o.cwd = String(options.cwd)
    return Client._connect(o, options)
  }

  /** Connects to a Streamable HTTP server (or a legacy HTTP+SSE one). Options: `headers`,
   *  `name`, `version`, `sampling`, `elicitation`, `roots`, `onNotification`, `era`. */
  static async http(url, options = {}) {
    return Client._connect({ url: String(url), headers: textValues(options.headers) }, options)
  }

  /** The server's name and version. */
  get serverInfo() { return this._init.serverInfo }
  /** The server's capabilities. */
  get serverCapabilities() { return this._init.capabilities }
  /** The negotiated protocol version (`'2026-07-28'` in the stateless era). */
  get protocolVersion() { return this._init.protocolVersion }
  /** The era the connection settled on: `'session'` or `'stateless'`. */
  get era() { return this._native.era() }
  /** The server's instructions, if any. */
  get instructions() { return this._init.instructions }

  _id() {
    const id = this._next
    this._next = this._next >= 0xfffffff0 ? 1 : this._next + 1
    return id
  }

  _start(options, begin) {
    const signal = options && options.signal
    if (signal && signal.aborted) return Promise.reject(abortError(signal))
    if (this._closed) return Promise.reject(new ConnectionClosedError(null, 'the client is closed'))
    const id = this._id()
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, onProgress: options && options.onProgress, signal, onAbort: null }
      if (signal) {
        entry.onAbort = () => {
          if (this._take(id)) {
            this._native.cancel(id)
            reject(abortError(signal))
          }
        }
        signal.addEventListener('abort', entry.onAbort, { once: true })
      }
      this._pending.set(id, entry)
      if (this._pending.size === 1) this._native.setRef(true)
      try {
        begin(id, !!signal)
      } catch (err) {
        this._take(id)
        reject(nativeError(err))
      }
    })
  }

  _take(id) {
    const entry = this._pending.get(id)
    if (!entry) return null
    this._pending.delete(id)
    if (entry.onAbort) entry.signal.removeEventListener('abort', entry.onAbort)
    if (this._pending.size === 0) this._native.setRef(false)
    return entry
  }

  _dispatch(kind, id, slot, a, b) {
    try {
      switch (kind) {
        case RESULT: {
          const entry = this._take(id)
          if (entry) entry.resolve(JSON.parse(a))
          break
        }
        case ERROR: {
          const entry = this._take(id)
          if (entry) entry.reject(engineError(JSON.parse(a)))
          break
        }
        case PROGRESS: {
          const entry = this._pending.get(id)
          if (entry && entry.onProgress) entry.onProgress(JSON.parse(a))
          break
        }
        case NOTIFICATION: {
          const params = JSON.parse(b)
          this.emit('notification', { method: a, params })
          this.emit(a, params)
          break
        }
        case REQUEST:
          this._answer(id, b, JSON.parse(a))
          break
        case REQUEST_CANCEL: {
          const c = this._serverRequests.get(id)
          if (c) c.abort(new RequestCancelledError(null, 'cancelled by the server'))
          break
        }
      }
    } catch (err) {
      // A listener threw: report it without breaking the engine's event stream.
      process.nextTick(() => { throw err })
    }
  }

  _answer(id, method, params) {
    const controller = new AbortController()
    this._serverRequests.set(id, controller)
    const extra = { signal: controller.signal }
    const o = this._options
    const run = async () => {
      if (method === 'sampling/createMessage') return o.sampling(params, extra)
      if (method === 'elicitation/create') return o.elicitation(params, extra)
      const roots = typeof o.roots === 'function' ? await o.roots(extra) : o.roots
      return { roots: roots.map(r => (typeof r === 'string' ? { uri: r } : r)) }
    }
    run().then(
      result => {
        this._serverRequests.delete(id)
        this._native.answer(id, JSON.stringify(result))
      },
      err => {
        this._serverRequests.delete(id)
        this._native.answerError(id, thrownToJson(err))
      },
    )
  }

  /** Sends any request; resolves to its result. In the stateless era it carries the
   *  client's `_meta`, and the server's questions are answered by the client's handlers. */
  request(method, params, options = {}) {
    return this._call('request', String(method), JSON.stringify(params ?? {}), options)
  }

  /** A client call by name (as `oxmcp::host::client::call` takes it) with the caller's
   *  options; `progress: false` asks for no progress notifications. */
  _call(op, a, b, options = {}, progress = true) {
    const timeoutMs = options.timeout == null ? undefined : Number(options.timeout)
    const onProgress = progress && typeof options.onProgress === 'function'
    return this._start(options, (id, cancellable) =>
      this._native.call(id, op, a, b, { timeoutMs, progress: onProgress, cancellable }))
  }

  /** Sends a notification. */
  notify(method, params) {
    wrapSync(() => this._native.notify(String(method), params === undefined ? null : JSON.stringify(params)))
  }

  /** Every item of a list (`tools/list`...), following cursors. */
  _listAll(method, options = {}) {
    return this._call(method, null, null, options, false)
  }

  /** `ping`, `resources/subscribe` and `unsubscribe`: requests the engine gives their
   *  meaning in either era. */
  _eraRequest(method, params, options) {
    return this._call('request', method, JSON.stringify(params), options, false)
  }

  /** `ping` (a `server/discover` round trip in the stateless era, which has no ping). */
  async ping(options) {
    await this._eraRequest('ping', {}, options)
  }

  /** Every tool (following cursors). */
  listTools(options) { return this._listAll('tools/list', options) }
  /** One page of `tools/list`: `{ tools, nextCursor }`. */
  listToolsPage(cursor, options) { return this.request('tools/list', cursor ? { cursor } : {}, options) }
  /** Calls a tool. */
  callTool(name, args, options) {
    return this.request('tools/call', { name: String(name), arguments: args ?? {} }, options)
  }

  /** Every resource (following cursors). */
  listResources(options) { return this._listAll('resources/list', options) }
  /** One page of `resources/list`. */
  listResourcesPage(cursor, options) { return this.request('resources/list', cursor ? { cursor } : {}, options) }
  /** Every resource template (following cursors). */
  listResourceTemplates(options) { return this._listAll('resources/templates/list', options) }
  /** One page of `resources/templates/list`. */
  listResourceTemplatesPage(cursor, options) {
    return this.request('resources/templates/list', cursor ? { cursor } : {}, options)
  }
  /** Reads a resource: `{ contents }`. */
  readResource(uri, options) { return this.request('resources/read', { uri: String(uri) }, options) }
  /** Subscribes to updates of a resource (`'notifications/resources/updated'` events).
   *  Session era only: an InvalidInputError in the stateless era. */
  async subscribe(uri, options) { await this._eraRequest('resources/subscribe', { uri: String(uri) }, options) }
  /** Ends a subscription (session era only). */
  async unsubscribe(uri, options) { await this._eraRequest('resources/unsubscribe', { uri: String(uri) }, options) }

  /** Every prompt (following cursors). */
  listPrompts(options) { return this._listAll('prompts/list', options) }
  /** One page of `prompts/list`. */
  listPromptsPage(cursor, options) { return this.request('prompts/list', cursor ? { cursor } : {}, options) }
  /** Gets a prompt with string arguments. */
  getPrompt(name, args, options) {
    const params = { name: String(name) }
    if (args && Object.keys(args).length) params.arguments = args
    return this.request('prompts/get', params, options)
  }

  /** Completion of a prompt argument (`{ type: 'ref/prompt', name }`) or template
   *  variable (`{ type: 'ref/resource', uri }`); resolves to `{ values, total, hasMore }`. */
  async complete(ref, argument, context, options) {
    const params = { ref, argument }
    if (context) params.context = { arguments: context }
    return (await this.request('completion/complete', params, options)).completion
  }

  /** Sets the minimum level of log messages the server sends: `logging/setLevel` in the
   *  session era; in the stateless era every later request asks for that level (without
   *  one the server sends no logs). An unknown level is an InvalidInputError. */
  async setLogLevel(level, options) {
    // By name: the engine checks the level, then sends it as a request with these options.
    await this._call('logging/setLevel', String(level), null, options, false)
  }

  /** Tells the server the client's roots changed (nothing to tell in the stateless era). */
  notifyRootsChanged() { wrapSync(() => this._native.notifyRootsChanged()) }

  /** `[pending, inFlight]` request counts of the engine (for leak checks). */
  stats() {
    const [pending, inFlight] = this._native.stats()
    return { pending, inFlight }
  }

  /** Closes the connection (a child process is stopped). */
  async close() {
    if (this._closed) return
    this._closed = true
    try {
      await nativeCall(this._native.close())
    } finally {
      for (const id of [...this._pending.keys()]) {
        const entry = this._take(id)
        if (entry) entry.reject(new ConnectionClosedError(null, 'the client was closed'))
      }
      this._native.setRef(false)
    }
  }
}
const CONNECTING = Symbol('connecting')

/** An object's values as strings (environment variables, headers), without null ones. */
function textValues(object) {
  const out = {}
  for (const [k, v] of Object.entries(object || {})) if (v != null) out[k] = String(v)
  return out
}

/** Validates `value` against a JSON Schema with the engine's validator: `null` when valid,
 *  else a description of the problems. */
function validate(schema, value) {
  return wrapSync(() => native.validateJson(JSON.stringify(schemaOf(schema, 'schema').json), JSON.stringify(value)))
}

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
  AbortError,
  validate,
  toolResult,
  version: native.nativeVersion(),
}
// For test/errors.test.mjs: not enumerable, so not part of the API.
Object.defineProperty(module.exports, '_errorKinds', { value: ERROR_KINDS })
