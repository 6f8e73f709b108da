'use strict'
// The Server and the Context its handlers get.

const native = require('../native.cjs')
const {
  ConnectionClosedError, HandlerError, InvalidInputError, McpError, ProtocolError, RequestCancelledError,
  RequestTimeoutError, TransportError, UnauthorizedError, nativeCall, thrownToJson, wrapSync,
} = require('./errors.cjs')
const { schemaOf, parseWith } = require('./schema.cjs')
const { httpHandler } = require('./http.cjs')
const { inHandlerContext } = require('./telemetry.cjs')

// What oxmcp's own calls throw (a client a handler uses...): a handler letting one through
// failed, unlike one throwing an McpError to answer with it. Not CapabilityMissingError:
// from ctx.sample and the like it names what this request's client lacks, and passed on
// it answers the request with -32021 (in the stateless era).
const RAISED_BY_CALLS = [ConnectionClosedError, HandlerError, ProtocolError, RequestCancelledError, RequestTimeoutError,
  TransportError, UnauthorizedError]
const { completionResult, promptResult, resourceResult, toolResult } = require('./results.cjs')

// Server

// Server events (TOOL = 1, RESOURCE = 2, PROMPT = 3, COMPLETE = 4 are calls, told by slot).
const CANCEL = 5, STDIO_CLOSED = 6

// The servers serving or running a handler. The engine's events reach a server through a
// weak reference (see the constructor); this set is what holds a server that nothing else
// does while it has work, as its referenced event channel keeps Node alive.
const BUSY = new Set()

/** The event dispatcher of `server`. The engine holds it strongly, and the native server is
 *  held by `server`: a dispatcher holding `server` would be a cycle through Rust that the
 *  garbage collector cannot see, and no server would ever be collected. (Made out here: a
 *  closure made in the constructor shares its context, where `this` lives.) */
function weakDispatcher(server) {
  const ref = new WeakRef(server)
  return (kind, id, slot, a, b) => ref.deref()?._dispatch(kind, id, slot, a, b)
}
const HTTP_OPTIONS = ['host', 'port', 'path', 'stateless', 'jsonResponse', 'allowedHosts', 'allowedOrigins', 'maxSessions', 'auth', 'redis']

/** One request's context, handed to every handler as its last argument. */
class Context {
  constructor(native, id, lifespan) {
    this._native = native
    this._id = id
    this._lifespan = lifespan
    this._info = null
    this._controller = null
  }

  _details() {
    if (this._info === null) this._info = JSON.parse(this._now('info'))
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
    if (this._controller.signal.aborted) return
    // The reason is made here, in the engine's event dispatcher, not in the user's code:
    // its stack would show only oxmcp's internals, and capturing one is a third of what a
    // cancel costs in a server that was idle (bench/RESULTS.md, the cancel path).
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    let reason
    try {
      reason = new RequestCancelledError(null, 'cancelled by the client')
    } finally {
      Error.stackTraceLimit = limit
    }
    this._controller.abort(reason)
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
  /** Who the request's verified access token speaks for, on a protected server:
   *  `{ subject, clientId, scopes, expiresAt, claims }`. */
  get auth() { return this._details().auth ?? undefined }
  /** The HTTP request's headers (lower-case names; no `authorization`: see `auth`), or
   *  undefined when the request did not come over HTTP. */
  get headers() { return this._details().headers ?? undefined }
  /** The `value` of the server's `lifespan` (undefined without one). */
  get lifespan() { return this._lifespan }

  /** Sends a progress notification (nothing if the client asked for none). */
  progress(progress, total, message) {
    this._now('progress', { progress: Number(progress), total: total == null ? undefined : Number(total),
      message: message == null ? undefined : String(message) })
    return Promise.resolve()
  }

  /** Sends a log message (if the client's level lets it through). */
  log(level, data, logger) {
    this._now('log', { level: String(level), data: data === undefined ? null : data,
      logger: logger == null ? undefined : String(logger) })
    return Promise.resolve()
  }

  /** Asks the user for input (`elicitation/create`). `schema` is a JSON Schema object or
   *  an object schema of zod or any Standard Schema library; then an accepted answer's
   *  `content` is parsed by it. */
  async elicit(message, schema, options = {}) {
    const { json, parse } = schemaOf(schema, 'the elicitation schema')
    const requested = { ...json }
    delete requested.$schema
    const params = { ...options, message: String(message), requestedSchema: requested }
    const result = JSON.parse(await this._ask('elicitation/create', params))
    if (parse && result.action === 'accept') result.content = await parseWith(parse, result.content ?? {})
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

  /** Reads one of this server's own resources (or templates), as a client would, with
   *  this request's context. */
  async readResource(uri) {
    return JSON.parse(await this._call('resources/read', { uri: String(uri) }))
  }

  /** In an escalating tool (`tool(name, { escalating: true, taskSupport }, ...)`):
   *  continues this call as a task. The client gets a task handle now and the handler goes
   *  on in the background; later `elicit`/`sample` calls become the task's input requests
   *  and `tasks/cancel` aborts `signal`. Resolves to `false` when the call stays inline
   *  (the client did not declare the tasks extension). */
  async escalateToTask() {
    return JSON.parse(await this._call('escalate'))
  }

  _ask(method, params) {
    return this._call(method, params)
  }

  /** The engine's context door, by name: an op answered at once (`info`, `progress`...). */
  _now(op, params) {
    return wrapSync(() => this._native.ctxCallNow(this._id, op, params === undefined ? '' : JSON.stringify(params)))
  }

  /** The engine's context door, by name: an op that waits (asking the client, reading a
   *  resource, escalating, the rest of a middleware chain); resolves to its JSON. */
  _call(op, params) {
    return nativeCall(wrapSync(() => this._native.ctxCall(this._id, op, params === undefined ? '' : JSON.stringify(params))))
  }

  /** Over Streamable HTTP, closes this request's SSE stream; the client resumes it. */
  endResponseStream() {
    this._now('end response stream')
  }
}

/** `handler` called with its arguments as validator `parse` (if any) makes them: the
 *  engine has checked them against the JSON Schema already; the validator adds what that
 *  cannot say (defaults, coercions, refinements) and may answer asynchronously. */
function parsedFor(parse, handler) {
  if (parse === null) return handler
  return (args, ctx) => {
    const parsed = parseWith(parse, args)
    return parsed && typeof parsed.then === 'function' ? parsed.then(a => handler(a, ctx)) : handler(parsed, ctx)
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
  /** `info`: `{ name, version, instructions }` (or the name). `options`: `instructions`;
   *  `onError(err, { kind, name })`, which gets every error a handler throws but an
   *  McpError (default: console.error, with its stack); `maskErrors: true` answers such
   *  an error with a generic message instead of its own; `lifespan: async server =>
   *  ({ value, close })`, run when the server starts serving (`ctx.lifespan` is `value`)
   *  and ended by `close()`; `tasks: { ttlMs, pollIntervalMs, maxTasks, maxRunning }`,
   *  how tasks are kept (an hour, 500 ms, 10000, 1000 by default; `ttlMs: null` keeps
   *  them without limit). */
  constructor(info = {}, options = {}) {
    if (typeof info === 'string') info = { name: info }
    options = options || {}
    const instructions = options.instructions ?? info.instructions ?? null
    for (const k of ['onError', 'lifespan']) {
      if (options[k] != null && typeof options[k] !== 'function') throw new InvalidInputError(null, `${k} must be a function`)
    }
    this._onError = options.onError ?? null
    this._maskErrors = options.maskErrors === true
    this._lifespanFn = options.lifespan ?? null
    // The lifespan while serving: a promise of `{ value, close }` (null when not serving),
    // and the promise of its end (close() and a closed stdin may both end it).
    this._life = null
    this._ended = Promise.resolve()
    this._state = undefined
    // The servers mounted here (their lifespans start and end with this one's).
    this._mounted = []
    this._slots = []
    // Registered tool and prompt names and resource URIs (templates by their template).
    this._names = { tool: new Set(), prompt: new Set(), resource: new Set() }
    this._live = new Map()
    this._listening = { stdio: false, http: false }
    this._native = new native.NativeServer(String(info.name || 'oxmcp-node-server'), String(info.version || '0.1.0'),
      instructions, weakDispatcher(this))
    if (options.tasks != null) wrapSync(() => this._native.setTaskOptions(JSON.stringify(options.tasks)))
  }

  /** Files a handler: `run(input, ctx)` calls the user's function with the engine's input
   *  (parsed JSON), `finish(value, input)` makes its return value the result the kind owes.
   *  `kind` and `name` (a string, or a function of the input) say whose failures they are
   *  when reported; a slot without a kind (verifyTokens) fails quietly. */
  _slot(run, finish, kind = null, name = null) {
    this._slots.push({ run, finish, kind, name })
    return this._slots.length - 1
  }

  /** Refuses a second registration of a name (or URI) unless `{ replace: true }`: the
   *  engine would replace the first one without a word. */
  _checkNew(kind, key, config) {
    if (this._names[kind].has(key) && config.replace !== true) {
      throw new InvalidInputError(null, `${kind} ${key} is already registered (pass { replace: true } to replace it)`)
    }
  }

  /** Checks the access tokens of a protected HTTP listener (`listenHttp({ auth })`) with
   *  `fn(token)` instead of JWTs of the issuer: it returns (or resolves to) who the token
   *  speaks for, `{ subject, clientId, scopes, claims }` (any left out), or `null` (or
   *  throws) to refuse it.
   *
   *  ```js
   *  server.verifyTokens(async token => token === 's3cret' ? { subject: 'alice', scopes: ['mcp:read'] } : null)
   *  ```
   */
  verifyTokens(fn) {
    if (typeof fn !== 'function') throw new InvalidInputError(null, 'verifyTokens takes a function')
    const slot = this._slot(input => fn(input.token), info => {
      if (info == null) throw new UnauthorizedError(null, 'the token was refused')
      return info
    })
    wrapSync(() => this._native.verifyTokens(slot))
  }

  /** Registers a tool: `tool(name, handler)` or `tool(name, config, handler)`; config has
   *  `description`, `title`, `inputSchema` and `outputSchema` (JSON Schema, or a
   *  Standard Schema: zod, Valibot, ArkType...; its JSON Schema is published, the engine
   *  validates with it, then the validator parses the arguments the handler gets),
   *  `annotations`, `_meta`, `taskSupport` (`'optional'`: runs as a task for clients of
   *  the tasks extension; `'required'`: only so), `escalating: true` (the call starts
   *  inline and becomes a task at `ctx.escalateToTask()`), and `replace: true` to replace
   *  a tool of the same name. The handler gets `(args, ctx)`.
   *
   *  ```js
   *  import * as v from 'valibot'
   *  server.tool('repeat', { inputSchema: v.object({ word: v.string(), times: v.optional(v.number(), 2) }) },
   *    ({ word, times }) => word.repeat(times)) // times is 2 when the client gave none
   *  ```
   */
  tool(name, config, handler) {
    if (typeof config === 'function') [config, handler] = [{}, config]
    if (typeof handler !== 'function') throw new InvalidInputError(null, `tool ${name}: the handler must be a function`)
    config = config || {}
    name = String(name)
    this._checkNew('tool', name, config)
    const input = schemaOf(config.inputSchema, 'inputSchema')
    const tool = definitionFields({ name }, config, ['title', 'description', 'annotations', '_meta', 'icons'])
    tool.inputSchema = input.json
    if (config.outputSchema !== undefined) tool.outputSchema = schemaOf(config.outputSchema, 'outputSchema').json
    // The engine checks both (taskSupport's values; an escalating tool needs 'optional' or
    // 'required'), as it does for every host.
    if (config.taskSupport !== undefined) tool.execution = { taskSupport: config.taskSupport }
    if (config.escalating) tool.escalating = true
    const slot = this._slot(parsedFor(input.parse, handler), toolResult, 'tool', name)
    wrapSync(() => this._native.register('tool', JSON.stringify(tool), slot))
    this._names.tool.add(name)
    return this
  }

  /** Registers a resource: `resource(uri, handler)` or `resource(uri, config, handler)`. A
   *  URI with `{variables}` is a template. The handler gets `(uri, variables, ctx)` and
   *  returns a string (text), bytes (a blob), `{contents}`, or JSON data. `replace: true`
   *  in config replaces a resource of the same URI. */
  resource(uri, config, handler) {
    if (typeof config === 'function') [config, handler] = [{}, config]
    if (typeof handler !== 'function') throw new InvalidInputError(null, `resource ${uri}: the handler must be a function`)
    config = config || {}
    uri = String(uri)
    this._checkNew('resource', uri, config)
    const template = uri.includes('{')
    const def = definitionFields({ name: config.name || uri }, config, ['title', 'description', 'mimeType', 'annotations', '_meta', 'icons', 'size'])
    const mimeType = config.mimeType
    // The engine hands every resource handler `{uri, variables}` (no variables: `{}`).
    const slot = this._slot(
      (input, ctx) => handler(input.uri, input.variables || {}, ctx),
      (value, input) => resourceResult(input.uri, value, mimeType),
      'resource', uri,
    )
    if (template) {
      delete def.size
      wrapSync(() => this._native.register('resource template', JSON.stringify({ uriTemplate: uri, ...def }), slot))
    } else {
      wrapSync(() => this._native.register('resource', JSON.stringify({ uri, ...def }), slot))
    }
    this._names.resource.add(uri)
    return this
  }

  /** Registers a prompt: `prompt(name, handler)` or `prompt(name, config, handler)`;
   *  config has `description`, `title`, and `arguments` (`[{name, description, required}]`)
   *  or `argsSchema` (a zod shape, or an object schema of zod or any Standard Schema
   *  library), and `replace: true` to replace a prompt of the
   *  same name. The handler gets `(args, ctx)` and returns a string, a message
   *  `{role, content}`, an array of them, or `{messages}`. */
  prompt(name, config, handler) {
    if (typeof config === 'function') [config, handler] = [{}, config]
    if (typeof handler !== 'function') throw new InvalidInputError(null, `prompt ${name}: the handler must be a function`)
    config = config || {}
    name = String(name)
    this._checkNew('prompt', name, config)
    const def = definitionFields({ name }, config, ['title', 'description', '_meta', 'icons'])
    let parse = null
    if (config.arguments) def.arguments = config.arguments
    else if (config.argsSchema) {
      const s = schemaOf(config.argsSchema, 'argsSchema')
      parse = s.parse
      const required = new Set(s.json.required || [])
      def.arguments = Object.entries(s.json.properties || {}).map(([arg, prop]) => {
        const entry = { name: arg, required: required.has(arg) }
        if (prop && prop.description) entry.description = prop.description
        return entry
      })
    }
    const slot = this._slot(parsedFor(parse, handler), value => promptResult(value), 'prompt', name)
    wrapSync(() => this._native.register('prompt', JSON.stringify(def), slot))
    this._names.prompt.add(name)
    return this
  }

  /** Sets the completion function `(ref, argument, context, ctx)`: `ref` is the prompt or
   *  template reference, `argument` has `name` and `value`. Returns candidate strings. */
  completion(handler) {
    const slot = this._slot((p, ctx) => handler(p.ref, p.argument, p.context, ctx), completionResult,
      'completion', p => String(p?.ref?.name ?? p?.ref?.uri ?? ''))
    wrapSync(() => this._native.register('completion', '{}', slot))
    return this
  }

  /** Serves an Agent Skill (the `io.modelcontextprotocol/skills` extension): `files`
   *  maps each file's path in the skill to its text, `SKILL.md` (with `name` and
   *  `description` frontmatter) among them. Clients find it with `skills/list` and read
   *  its files at `skill://<path>/<file>`; the last segment of `path` is the skill's
   *  name. A skill breaking the extension's rules throws an InvalidInputError now.
   *
   *  ```js
   *  server.skill('git-workflow', {
   *    'SKILL.md': '---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n',
   *  })
   *  ```
   */
  skill(path, files) {
    wrapSync(() => this._native.addSkill(String(path), JSON.stringify(files ?? {})))
    return this
  }

  /** Serves every skill under the directory `root`: each directory holding a `SKILL.md`,
   *  at its path relative to `root`, with all its files (binary ones too). */
  skillsDir(root) {
    wrapSync(() => this._native.addSkillsDir(String(root)))
    return this
  }

  /** Removes a tool (clients are told the list changed). */
  removeTool(name) {
    this._names.tool.delete(String(name))
    return this._native.remove('tool', String(name))
  }

  /** Removes a prompt (clients are told the list changed); whether it existed. */
  removePrompt(name) {
    this._names.prompt.delete(String(name))
    return this._native.remove('prompt', String(name))
  }

  /** Removes a resource (not a template; clients are told the list changed); whether it
   *  existed. */
  removeResource(uri) {
    this._names.resource.delete(String(uri))
    return this._native.remove('resource', String(uri))
  }

  /** Serves another server's tools, prompts, resources and templates under `prefix`:
   *  names become `prefix_name`, URIs `scheme://prefix/rest` (a read reaches the other
   *  server with its own URI). `other` is a `Server` of this process (what it has when
   *  this one starts serving, or now if it serves already), or a connected `Client`,
   *  whose server's offer is listed now and each call forwarded (then this returns a
   *  Promise). */
  mount(prefix, other) {
    if (other instanceof Server) {
      wrapSync(() => this._native.mount(String(prefix), other._native))
      this._mounted.push(other)
      return this
    }
    if (other?._native instanceof native.NativeClient) {
      return nativeCall(wrapSync(() => this._native.mountClient(String(prefix), other._native))).then(() => this)
    }
    throw new InvalidInputError(null, 'mount takes an oxmcp Server or a connected Client')
  }

  /** Adds a middleware, `async ({ method, params, ctx }, next) => result`, around every
   *  request the server routes (tool calls, reads, prompts, completion and their lists) in
   *  both eras: `await next()` (or `next(changedParams)`) runs the rest and resolves to the
   *  result object, which the middleware returns, changes or replaces; throwing an
   *  `McpError` answers with that JSON-RPC error. The first added is the outermost. Add
   *  them before serving.
   *
   *  ```js
   *  server.use(async ({ method }, next) => {
   *    const started = performance.now()
   *    try { return await next() } finally { console.error(method, performance.now() - started, 'ms') }
   *  })
   *  ```
   */
  use(fn) {
    if (typeof fn !== 'function') throw new InvalidInputError(null, 'use takes a function')
    const slot = this._slot((input, ctx) => {
      const next = async params => {
        return JSON.parse(await ctx._call('next', params))
      }
      return fn({ method: input.method, params: input.params ?? undefined, ctx }, next)
    }, value => value, 'middleware', input => String(input?.method ?? ''))
    wrapSync(() => this._native.register('middleware', '{}', slot))
    return this
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
    await this._start()
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
   *  `stateless`, `jsonResponse`, `allowedHosts`, `allowedOrigins`, `maxSessions`, and
   *  `auth: { issuer, audience?, scopes?, toolScopes? }` to require OAuth access tokens
   *  (JWTs of `issuer` for `audience`, default this endpoint's URL); handlers see who a
   *  token speaks for in `ctx.auth`. `redis: 'redis://HOST:PORT'` shares sessions,
   *  streams, tasks and the requestState key with every server listening with the same
   *  Redis, so that any number behind a load balancer act as one server (give it on the
   *  first listen, before the server serves anything else). */
  async listenHttp(options = {}) {
    // The engine rejects keys it does not know; this API has always ignored them.
    const o = {}
    for (const k of HTTP_OPTIONS) if (options[k] != null) o[k] = options[k]
    await this._start()
    const url = await nativeCall(wrapSync(() => this._native.listenHttp(JSON.stringify(o))))
    this._listening.http = true
    this._updateRef()
    return url
  }

  /** The MCP endpoint (Streamable HTTP) as a request handler to mount in your own web app,
   *  beside routes of your own: one function that Express (`(req, res, next)`), Fastify
   *  (`(request, reply)`) and `node:http` (`(req, res)`) call, with `.fetch(request)` for
   *  fetch-style frameworks (Hono). Whatever path the route has, the engine answers it as
   *  its endpoint, exactly as `listenHttp` would (sessions, SSE streams, both eras; a client
   *  that goes away ends its stream, and its stateless call is cancelled). Options are
   *  `listenHttp`'s but `host`, `port` and `redis` (the framework listens): `stateless`,
   *  `jsonResponse`, `allowedHosts`, `allowedOrigins` (give your public host names),
   *  `maxSessions`, `auth`. A body the framework parsed already (`express.json()`,
   *  Fastify's JSON parser) is taken as it is. The lifespan starts with the first request;
   *  `close()` ends the endpoint's sessions.
   *
   *  ```js
   *  const mcp = server.httpHandler({ allowedHosts: ['api.example.com'] })
   *  expressApp.all('/mcp', mcp)                     // Express
   *  fastify.all('/mcp', mcp)                        // Fastify
   *  honoApp.all('/mcp', c => mcp.fetch(c.req.raw))  // Hono (@hono/node-server)
   *  ```
   */
  httpHandler(options = {}) {
    return httpHandler(this, options)
  }

  /** Stops serving, then ends the lifespan (its `close`); the process may exit once nothing
   *  else keeps it alive. */
  async close() {
    try {
      await nativeCall(this._native.close())
    } finally {
      this._listening.stdio = false
      this._listening.http = false
      this._updateRef()
      await this._end()
    }
  }

  /** Starts the lifespan unless it runs already: once per serving, before the first
   *  listener or in-memory client, then those of the servers mounted here. A failed start
   *  is tried again by the next one. */
  _start() {
    if (this._life === null) {
      const fn = this._lifespanFn
      this._life = (async () => {
        await this._ended.catch(() => undefined) // the last close's failure was its caller's
        const got = fn === null ? null : await fn(this)
        if (got != null) {
          const extra = typeof got === 'object' ? Object.keys(got).filter(k => k !== 'value' && k !== 'close') : ['?']
          if (extra.length || (got.close != null && typeof got.close !== 'function')) {
            throw new InvalidInputError(null, 'lifespan must return (or resolve to) { value, close } (both optional)')
          }
          this._state = got.value
        }
        // Then the lifespans of the mounted servers that do not run already on their own.
        const mounted = []
        try {
          for (const other of this._mounted) {
            if (other._life !== null) continue
            mounted.push(other)
            await other._start()
          }
        } catch (err) {
          for (const other of mounted.reverse()) await other._end().catch(() => undefined)
          this._state = undefined
          if (got?.close) await got.close()
          throw err
        }
        return { close: got?.close, mounted }
      })()
      const life = this._life
      life.catch(() => {
        if (this._life === life) this._life = null
      })
    }
    return this._life
  }

  /** Ends the lifespan (its `close`, after serving stopped); the same promise while ending. */
  _end() {
    const life = this._life
    if (life === null) return this._ended
    this._life = null
    this._ended = life.then(
      async got => {
        for (const other of [...got.mounted].reverse()) await other._end()
        this._state = undefined
        if (got.close) await got.close()
      },
      () => undefined, // a failed start has nothing to close
    )
    return this._ended
  }

  _updateRef() {
    // A listening server keeps Node alive, and so does a handler still running: the engine
    // may yet send it a cancel (through events that an exiting loop would lose), e.g. once
    // an in-memory client has given up on the call.
    const busy = this._listening.stdio || this._listening.http || this._live.size > 0
    this._native.setRef(busy)
    if (busy) BUSY.add(this)
    else BUSY.delete(this)
  }

  /** Files a running handler call; the first one references the loop (see `_updateRef`). */
  _started(id, ctx) {
    this._live.set(id, ctx)
    if (this._live.size === 1 && !this._listening.stdio && !this._listening.http) this._updateRef()
  }

  /** Forgets a settled handler call; the last one lets the loop go again. */
  _settled(id) {
    this._live.delete(id)
    if (this._live.size === 0 && !this._listening.stdio && !this._listening.http) this._updateRef()
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
        // Stdin closing ends a stdio server: its lifespan too, unless HTTP still serves.
        if (!this._listening.http) this._end().catch(err => this._report(err, 'lifespan', 'close'))
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
    const ctx = new Context(this._native, id, this._state)
    let input, value
    try {
      input = JSON.parse(inputJson)
      // In the engine's span for the request, when the application traces.
      value = inHandlerContext(() => JSON.parse(ctx._now('info')), () => entry.run(input, ctx))
    } catch (err) {
      this._fail(id, entry, input, err, ctx)
      return
    }
    if (value === null || typeof value !== 'object' || typeof value.then !== 'function') {
      this._finish(id, entry, value, input, ctx)
      return
    }
    this._started(id, ctx)
    value.then(
      v => {
        this._settled(id)
        this._finish(id, entry, v, input, ctx)
      },
      err => {
        this._settled(id)
        this._fail(id, entry, input, err, ctx)
      },
    )
  }

  _finish(id, entry, value, input, ctx) {
    let text
    try {
      text = JSON.stringify(entry.finish(value, input))
    } catch (err) {
      this._fail(id, entry, input, err, ctx)
      return
    }
    this._native.complete(id, text)
  }

  /** Answers call `id` with what its handler threw. An McpError is deliberate and sent as
   *  it is, unless oxmcp's own calls raised it (a client the handler used timed out or
   *  lost its server); anything else is a bug: reported here (before the client hears of
   *  it, so tests see it in order), and with `maskErrors` its text stays on the server. A
   *  handler giving up on a request the client cancelled is no bug: nobody hears it. */
  _fail(id, entry, input, err, ctx) {
    let json
    if (entry.kind === null || (err instanceof McpError && !RAISED_BY_CALLS.some(c => err instanceof c))) {
      json = thrownToJson(err)
    } else {
      const name = typeof entry.name === 'function' ? entry.name(input) : entry.name
      const cancelled = ctx._controller !== null && ctx._controller.signal.aborted
      if (!cancelled) this._report(err, entry.kind, name)
      json = this._maskErrors
        ? JSON.stringify({ message: `internal error in ${entry.kind}${name ? ` ${name}` : ''}` })
        : err instanceof McpError
          ? JSON.stringify({ message: err.message }) // not its code: that was another peer's answer
          : thrownToJson(err)
    }
    this._native.fail(id, json)
  }

  /** Reports an error no caller can see: to `onError`, or with its stack on stderr. A hook
   *  that fails is reported on stderr, never to the client. */
  _report(err, kind, name) {
    const hookFailed = e => console.error('oxmcp: the onError hook failed:', e)
    if (this._onError === null) {
      console.error(`oxmcp: ${kind} ${JSON.stringify(name)} failed:`, err)
      return
    }
    try {
      const r = this._onError(err, { kind, name })
      if (r && typeof r.then === 'function') r.then(null, hookFailed)
    } catch (e) {
      hookFailed(e)
    }
  }
}

module.exports = { Server, Context }
