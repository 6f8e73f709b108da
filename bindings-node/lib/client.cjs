'use strict'
// The Client.

const { EventEmitter } = require('node:events')
const native = require('../native.cjs')
const { AbortError, ConnectionClosedError, InvalidInputError, RequestCancelledError, engineError, nativeCall, nativeError, thrownToJson, wrapSync } = require('./errors.cjs')
const { schemaOf } = require('./schema.cjs')
const { callerSpan, inMetaContext } = require('./telemetry.cjs')

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
  static async _connect(transport, options, server) {
    const client = new Client(CONNECTING)
    client._options = options
    if (typeof options.onNotification === 'function') client.on('notification', n => options.onNotification(n))
    const o = { ...transport, answers: ['sampling', 'elicitation', 'roots'].filter(kind => options[kind]) }
    // Non-strings as before: a name or version is text; an era other than a string is
    // refused by the engine with the names it knows.
    for (const k of ['name', 'version', 'era']) if (options[k] != null) o[k] = String(options[k])
    if (options.auth != null) Object.assign(o, oauthOptions(options.auth))
    if (o.oauth && (options.auth.redirectHandler || options.auth.callbackHandler)) {
      if (typeof options.auth.redirectHandler !== 'function' || typeof options.auth.callbackHandler !== 'function') {
        throw new InvalidInputError(null, 'auth needs both redirectHandler and callbackHandler for a user\'s browser')
      }
      o.answers.push('authorize')
    }
    client._answers = wrapSync(() => native.connector((kind, id, slot, a, b) => client._dispatch(kind, id, slot, a, b)))
    let n
    try {
      n = await nativeCall(wrapSync(() => client._answers.connect(JSON.stringify(o), server)))
    } catch (err) {
      client._answers.release()
      throw err
    }
    client._native = n
    client._init = JSON.parse(n.initializeResult())
    return client
  }

  /** Connects to `server`, a `Server` of this process, through memory: no child process
   *  and no socket, for tests. Options as for `stdio` (but `env` and `cwd`). The first
   *  one starts the server's lifespan, as a listener would. */
  static async inMemory(server, options = {}) {
    if (!(server?._native instanceof native.NativeServer)) throw new InvalidInputError(null, 'inMemory needs an oxmcp Server')
    await server._start()
    const client = await Client._connect({}, options, server._native)
    // The server's JS side answers this client's calls; it lives as long as the client.
    client._server = server
    return client
  }

  /** Starts `command` with `args` and connects over stdio. Options: `env`, `cwd`, `name`,
   *  `version`, `sampling`, `elicitation`, `roots`, `onNotification`, `era` (`'auto'`,
   *  the default, `'session'` or `'stateless'`), `stderr` (`'forward'`, the default: what
   *  the server writes on its stderr goes to this process's stderr as it comes; or
   *  `'discard'`). */
  static async stdio(command, args = [], options = {}) {
    if (!Array.isArray(args)) [args, options] = [[], args || {}]
    const o = { command: String(command), args: args.map(String), env: textValues(options.env) }
    if (options.cwd != null) o.cwd = String(options.cwd)
    if (options.stderr != null) o.stderr = String(options.stderr)
    return Client._connect(o, options)
  }

  /** Connects to a Streamable HTTP server (or a legacy HTTP+SSE one). Options: `headers`,
   *  `name`, `version`, `sampling`, `elicitation`, `roots`, `onNotification`, `era`, and
   *  `auth` for a protected server: `{ clientId, clientSecret, grant: 'client_credentials' }`
   *  for a machine, or `{ redirectUri, redirectHandler: async url => …, callbackHandler:
   *  async () => the URL the browser came back to }` for a user; `tokenFile` keeps the
   *  tokens (readable by their owner only), `scope`, `clientName`, `clientMetadataUrl`. */
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
          // The cancel is written first; it is a no-op for a call that has already ended.
          this._native.cancel(id)
          if (this._take(id)) reject(abortError(signal))
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
      if (method === 'authorize') {
        // The user's browser: shown the authorization URL, then back with the code.
        await o.auth.redirectHandler(params.url, extra)
        const landed = await o.auth.callbackHandler(extra)
        if (typeof landed !== 'string') throw new InvalidInputError('callbackHandler must return the URL the browser came back to')
        return landed
      }
      if (method === 'sampling/createMessage') return o.sampling(params, extra)
      if (method === 'elicitation/create') return o.elicitation(params, extra)
      const roots = typeof o.roots === 'function' ? await o.roots(extra) : o.roots
      return { roots: roots.map(r => (typeof r === 'string' ? { uri: r } : r)) }
    }
    // The handler's spans nest under the span the server's request names in its _meta.
    inMetaContext(params, run).then(
      result => {
        this._serverRequests.delete(id)
        this._answers.answer(id, JSON.stringify(result))
      },
      err => {
        this._serverRequests.delete(id)
        this._answers.answerError(id, thrownToJson(err))
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
    // The application's current span (if it traces) is the request's parent.
    const trace = callerSpan()
    return this._start(options, (id, cancellable) =>
      this._native.call(id, op, a, b, { timeoutMs, progress: onProgress, cancellable, ...trace }))
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
  callTool(name, args, options = {}) {
    if (options?.task) {
      // The server may run the call as a task: the engine follows it to the result,
      // answering its questions with this client's handlers; statuses reach onProgress.
      return this._call('tools/call as task', String(name), JSON.stringify(args ?? {}), { ...options, timeout: undefined })
    }
    return this.request('tools/call', { name: String(name), arguments: args ?? {} }, options)
  }

  /** Starts a tool call the server may run as a task and resolves at once: `{ task }` to
   *  follow with `getTask` (keep `task.taskId`: it outlives this connection), or
   *  `{ result }` when the server answered at once. The steps `callTool(..., { task: true })`
   *  takes for you. */
  startToolTask(name, args, options) {
    return this._call('tools/call start task', String(name), JSON.stringify(args ?? {}), options, false)
  }
  /** `tasks/get`: where the task stands, with its `result`, `error` or `inputRequests`. */
  getTask(taskId, options) { return this._call('tasks/get', String(taskId), null, options, false) }
  /** `tasks/update`: answers the task's `inputRequests` by key. */
  async updateTask(taskId, responses, options) {
    await this._call('tasks/update', String(taskId), JSON.stringify(responses ?? {}), options, false)
  }
  /** `tasks/cancel`: asks the task to stop (its handler's signal aborts). */
  async cancelTask(taskId, options) { await this._call('tasks/cancel', String(taskId), null, options, false) }

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
  /** Every skill the server lists (the skills extension; following cursors). Nothing is
   *  fetched: a skill's files are read when it is loaded. A CapabilityMissingError when
   *  the server does not declare the extension. */
  listSkills(options) { return this._listAll('skills/list', options) }
  /** The entry of the skill whose `SKILL.md` is at `uri` (-32602 when none is served). */
  getSkill(uri, options) { return this._call('skills/get', String(uri), null, options, false) }
  /** Fetches a skill's `SKILL.md` and checks it against the entry (`skill`, or the one
   *  `skills/get` gives for a URI): size, digest, frontmatter. Resolves to
   *  `{ skill, markdown }`; content failing a check rejects with a ProtocolError. */
  loadSkill(skill, options) {
    const [uri, entry] = typeof skill === 'string' ? [skill, null] : [String(skill.uri), JSON.stringify(skill)]
    return this._call('skills/load', uri, entry, options, false)
  }
  /** Reads a file of `skill` (a path in it such as `references/FORMS.md`, or its URI),
   *  checked against the entry: resolves to a Buffer. A file the entry does not list
   *  rejects with a ProtocolError without a request. */
  async readSkillFile(skill, path, options) {
    const base64 = await this._call('skills/read', String(path), JSON.stringify(skill), options, false)
    return Buffer.from(base64, 'base64')
  }
  /** The direct children of a directory resource (`resources/directory/read`, following
   *  cursors): subdirectories have mimeType `inode/directory`. */
  readDirectory(uri, options) { return this._call('resources/directory/read', String(uri), null, options, false) }
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
      // Nothing is delivered after this: the engine's events would otherwise hold this
      // client in memory for good (see `Events::release`). The server's requests still
      // being answered are over with the connection: their handlers' signals abort here,
      // as the server's cancel (an event that may now never come) would abort them.
      this._answers.release()
      for (const controller of this._serverRequests.values()) {
        controller.abort(new ConnectionClosedError(null, 'the client was closed'))
      }
      this._serverRequests.clear()
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

/** The engine's OAuth options (`oauth`, `tokenFile`) from the `auth` option, handlers left
 *  out (they stay in JS). */
function oauthOptions(auth) {
  if (typeof auth !== 'object') throw new InvalidInputError('auth must be an object of OAuth options')
  const { redirectHandler, callbackHandler, tokenFile, ...oauth } = auth
  return { oauth, ...(tokenFile != null && { tokenFile: String(tokenFile) }) }
}

/** Validates `value` against a JSON Schema with the engine's validator: `null` when valid,
 *  else a description of the problems. */
function validate(schema, value) {
  return wrapSync(() => native.validateJson(JSON.stringify(schemaOf(schema, 'schema').json), JSON.stringify(value)))
}

module.exports = { Client, validate }
