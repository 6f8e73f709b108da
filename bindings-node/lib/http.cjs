'use strict'
// The MCP endpoint inside the user's web framework: the engine's HTTP server answers the
// requests Express, Fastify or Hono hand in, exactly as its own listener would; this module
// only moves bytes between the framework and it (core/src/host/http_app.rs).

const native = require('../native.cjs')
const { InvalidInputError, nativeCall, wrapSync } = require('./errors.cjs')

const OPTIONS = ['stateless', 'jsonResponse', 'allowedHosts', 'allowedOrigins', 'maxSessions', 'auth']
// Statuses a fetch Response may not carry a body with.
const NO_BODY = new Set([101, 204, 205, 304])

let lastId = 0
const nextId = () => (lastId = (lastId + 1) % 0xffffffff)

/** The engine's endpoint for `server` (a `Server`), made when the first request comes. */
class Endpoint {
  constructor(server, options) {
    this._server = server
    this._options = {}
    for (const k of OPTIONS) if (options[k] != null) this._options[k] = options[k]
    this._path = '/mcp'
    this._native = null
    this._starting = null
    // The engine's body limit, learnt from its first answer: one byte more is enough for it
    // to answer 413, so a huge body is never held here.
    this._maxBody = 16 * 1024 * 1024
  }

  _app() {
    if (this._starting === null) {
      this._starting = this._server._start().then(() => {
        this._native = wrapSync(() => new native.NativeHttpApp(this._server._native, JSON.stringify(this._options)))
        return this._native
      })
      this._starting.catch(() => { this._starting = null })
    }
    return this._starting
  }

  /** The request's target for the engine: the endpoint's path (wherever the framework
   *  mounted it) with the request's query. */
  _target(url) {
    const q = url.indexOf('?')
    return q < 0 ? this._path : this._path + url.slice(q)
  }

  /** Answers one exchange: resolves to `{ status, headers, id }` or null when `gone` ended
   *  it first. */
  async _answer(method, url, rawHeaders, body, exchange) {
    const app = await this._app()
    const head = await nativeCall(wrapSync(() => app.handle(exchange.id, method, this._target(url), rawHeaders, body)))
    if (head == null) return null
    const { status, headers, maxBodyBytes } = JSON.parse(head)
    this._maxBody = maxBodyBytes
    return { status, headers }
  }

  _next(exchange) {
    return nativeCall(this._native.next(exchange.id))
  }

  _stop(exchange) {
    if (exchange.done) return
    exchange.done = true
    this._native?.next(exchange.id, true).catch(() => undefined)
  }

  /** Node's `(req, res)`, with the body a framework parsed already (or undefined). */
  async node(req, res, parsed) {
    const body = parsed !== undefined ? bodyOf(parsed) : await readBody(req, this._maxBody + 1)
    if (body === null) return // the client went away while sending
    const exchange = { id: nextId(), done: false }
    const gone = () => {
      if (!res.writableFinished) this._stop(exchange)
    }
    res.on('close', gone)
    try {
      const head = await this._answer(req.method, req.url ?? '/', req.rawHeaders, body, exchange)
      if (head === null) return
      if (res.destroyed || exchange.done) {
        // The client left before the exchange was open (its stop found nothing): end it now.
        this._native.next(exchange.id, true).catch(() => undefined)
        return
      }
      res.writeHead(head.status, head.headers.flat())
      res.flushHeaders()
      for (;;) {
        const chunk = await this._next(exchange)
        if (chunk == null) break
        if (!res.write(chunk)) await drained(res)
      }
      exchange.done = true
      res.end()
    } catch (err) {
      this._stop(exchange)
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain' })
        res.end(String(err?.message ?? err))
      } else {
        res.destroy(err)
      }
    } finally {
      res.off('close', gone)
    }
  }

  /** A fetch `Request` in, a `Response` out (its body streams; cancelling it, or the
   *  request's signal, ends the exchange). */
  async fetch(request) {
    const body = Buffer.from(await request.arrayBuffer())
    const exchange = { id: nextId(), done: false }
    const gone = () => this._stop(exchange)
    request.signal?.addEventListener('abort', gone, { once: true })
    const headers = []
    for (const [name, value] of request.headers) headers.push(name, value)
    const url = new URL(request.url)
    let head
    try {
      head = await this._answer(request.method, url.pathname + url.search, headers, body, exchange)
    } catch (err) {
      request.signal?.removeEventListener('abort', gone)
      throw err
    }
    if (head === null) return new Response(null, { status: 499 })
    if (exchange.done) {
      // Aborted before the exchange was open (its stop found nothing): end it now.
      this._native.next(exchange.id, true).catch(() => undefined)
      return new Response(null, { status: 499 })
    }
    const done = () => {
      exchange.done = true
      request.signal?.removeEventListener('abort', gone)
    }
    if (NO_BODY.has(head.status)) {
      while ((await this._next(exchange)) != null);
      done()
      return new Response(null, { status: head.status, headers: head.headers })
    }
    const stream = new ReadableStream({
      pull: async controller => {
        const chunk = await this._next(exchange)
        if (chunk == null) {
          done()
          controller.close()
        } else {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        }
      },
      cancel: () => {
        this._stop(exchange)
        done()
      },
    }, { highWaterMark: 0 })
    return new Response(stream, { status: head.status, headers: head.headers })
  }
}

/** A body a framework parsed (Express's `express.json()`, Fastify's JSON parser) as bytes. */
function bodyOf(parsed) {
  if (Buffer.isBuffer(parsed)) return parsed
  if (typeof parsed === 'string') return Buffer.from(parsed)
  return Buffer.from(JSON.stringify(parsed))
}

/** The request's body, at most `limit` bytes of it; null if the client went away. */
function readBody(req, limit) {
  // Read by someone else already (a framework that keeps no body): nothing more comes.
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0))
  return new Promise(resolve => {
    const chunks = []
    let size = 0
    const finish = value => {
      req.off('data', data)
      req.off('end', end)
      req.off('close', close)
      resolve(value)
    }
    const data = chunk => {
      if (size < limit) chunks.push(chunk.subarray(0, limit - size))
      size += chunk.length
    }
    const end = () => finish(Buffer.concat(chunks))
    const close = () => finish(req.readableEnded ? Buffer.concat(chunks) : null)
    req.on('data', data)
    req.on('end', end)
    req.on('close', close)
  })
}

function drained(res) {
  return new Promise(resolve => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

/** `server.httpHandler(options)`: one function that is an Express handler `(req, res,
 *  next)`, a Fastify handler `(request, reply)` and a plain Node one `(req, res)`, with
 *  `fetch(request)` for fetch-style frameworks (Hono). */
function httpHandler(server, options = {}) {
  if (options == null || typeof options !== 'object') throw new InvalidInputError(null, 'httpHandler takes an options object')
  const endpoint = new Endpoint(server, options)
  const handler = (req, res, third) => {
    // Fastify: (request, reply); the raw stream is read already, its body parsed.
    if (res && typeof res.hijack === 'function' && req && req.raw) {
      res.hijack()
      return endpoint.node(req.raw, res.raw, req.body ?? undefined)
    }
    // Express: (req, res, next), a body parser may have read the stream already.
    const parsed = third !== undefined && typeof third !== 'function' ? third
      : req.body !== undefined && req.readableEnded ? req.body : undefined
    return endpoint.node(req, res, parsed)
  }
  handler.fetch = request => endpoint.fetch(request)
  return handler
}

module.exports = { httpHandler }
