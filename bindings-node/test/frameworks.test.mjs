// The endpoint inside the user's web framework: server.httpHandler() mounted on a path of
// a real Express, Fastify and Hono (@hono/node-server) app beside a route of the app's
// own, listening on 127.0.0.1 port 0, driven by the official TypeScript SDK's client: an
// answer streamed over SSE (progress before the result), and a client that goes away while
// its answer streams (the handler's signal fires).
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import express from 'express'
import Fastify from 'fastify'
import { Hono } from 'hono'
import { serve } from '@hono/node-server'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Server } from 'oxmcp'
import { within } from './helpers.mjs'

const listening = server => new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)))
const closing = server => new Promise(resolve => { server.closeAllConnections?.(); server.close(() => resolve()) })

const FRAMEWORKS = {
  async express(mcp, stateless) {
    const app = express()
    app.use(express.json())
    app.get('/health', (_req, res) => res.send('ok'))
    app.all('/api/mcp', mcp)
    app.all('/api/stateless', stateless)
    const server = app.listen(0, '127.0.0.1')
    await new Promise(resolve => server.once('listening', resolve))
    return { url: `http://127.0.0.1:${server.address().port}`, close: () => closing(server) }
  },
  async fastify(mcp, stateless) {
    const app = Fastify()
    app.get('/health', async () => 'ok')
    app.all('/api/mcp', mcp)
    app.all('/api/stateless', stateless)
    const url = await app.listen({ host: '127.0.0.1', port: 0 })
    return { url, close: () => app.close() }
  },
  async hono(mcp, stateless) {
    const app = new Hono()
    app.get('/health', c => c.text('ok'))
    app.all('/api/mcp', c => mcp.fetch(c.req.raw))
    app.all('/api/stateless', c => stateless.fetch(c.req.raw))
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 })
    return { url: await listening.call(null, { listen: (p, h, cb) => server.once('listening', cb), address: () => server.address() }), close: () => closing(server) }
  },
}

function tools(server, started, aborted) {
  server.tool('steps', async (_args, ctx) => {
    for (let i = 1; i <= 2; i++) await ctx.progress(i, 2, `step ${i}`)
    return 'stepped'
  })
  server.tool('wait', async (_args, ctx) => {
    started.resolve()
    await new Promise(resolve => ctx.signal.aborted ? resolve() : ctx.signal.addEventListener('abort', resolve))
    aborted.resolve()
    return 'never seen'
  })
}

for (const [name, mount] of Object.entries(FRAMEWORKS)) {
  describe(`the endpoint mounted in ${name}`, () => {
    let server, app
    const started = Promise.withResolvers?.() ?? deferred()
    const aborted = Promise.withResolvers?.() ?? deferred()
    before(async () => {
      server = new Server({ name: `in-${name}`, version: '1.0.0' })
      tools(server, started, aborted)
      app = await mount(server.httpHandler(), server.httpHandler({ stateless: true }))
    })
    after(async () => {
      await server?.close()
      await app?.close()
    })

    const connect = async (path = '/api/mcp') => {
      const client = new SdkClient({ name: 'sdk', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}${path}`)))
      return client
    }

    it('serves the official client beside the app’s own route, streaming an answer over SSE', async () => {
      assert.equal(await (await fetch(`${app.url}/health`)).text(), 'ok')
      const client = await connect()
      try {
        assert.equal(client.getServerVersion().name, `in-${name}`)
        assert.deepEqual((await client.listTools()).tools.map(t => t.name).sort(), ['steps', 'wait'])
        const seen = []
        const r = await client.callTool({ name: 'steps', arguments: {} }, undefined, { onprogress: p => seen.push(p.progress) })
        assert.equal(r.content[0].text, 'stepped')
        assert.deepEqual(seen, [1, 2])
        assert.equal(server.sessionCount, 1)
      } finally {
        await client.close()
      }
    })

    it('cancels the handler of a client that goes away mid-stream (stateless: nothing to resume)', async () => {
      const client = await connect('/api/stateless')
      const call = client.callTool({ name: 'wait', arguments: {} }).catch(err => err)
      await within(5000, 'the handler to start', started.promise)
      await client.close() // aborts its fetches: the SSE stream of the call ends mid-way
      await within(5000, "the handler's signal", aborted.promise)
      assert.ok((await call) instanceof Error)
      // The app serves on.
      const again = await connect()
      assert.equal((await again.callTool({ name: 'steps', arguments: {} })).content[0].text, 'stepped')
      await again.close()
    })
  })
}

function deferred() {
  let resolve
  const promise = new Promise(r => { resolve = r })
  return { promise, resolve }
}
