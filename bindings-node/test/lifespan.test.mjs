// A server's lifespan: set up once when it starts serving, its value in every handler's
// ctx.lifespan, its close run by server.close() (or a stdio server's stdin closing).
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { runNode } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { Client, Server, InvalidInputError } = require('../index.cjs')

function lifespanServer(events) {
  const server = new Server({ name: 'life', version: '1' }, {
    lifespan: async s => {
      events.push(`start ${s === server}`)
      const db = { rows: ['a', 'b'], open: true }
      return {
        value: { db },
        close: async () => {
          await new Promise(r => setImmediate(r))
          db.open = false
          events.push('close')
        },
      }
    },
  })
  server.tool('rows', (_args, ctx) => ({ rows: ctx.lifespan.db.rows, open: ctx.lifespan.db.open }))
  return server
}

it('runs once for the first client, is ctx.lifespan in handlers, and close() ends it', async () => {
  const events = []
  const server = lifespanServer(events)
  assert.deepEqual(events, [], 'not run before serving')
  const [a, b] = await Promise.all([Client.inMemory(server), Client.inMemory(server)])
  const url = await server.listenHttp({ port: 0 })
  const http = await Client.http(url)
  try {
    assert.deepEqual(events, ['start true'], 'once for both in-memory clients and the listener')
    assert.deepEqual((await a.callTool('rows', {})).structuredContent, { rows: ['a', 'b'], open: true })
    assert.deepEqual((await b.callTool('rows', {})).structuredContent, { rows: ['a', 'b'], open: true })
    assert.deepEqual((await http.callTool('rows', {})).structuredContent, { rows: ['a', 'b'], open: true })
  } finally {
    await Promise.all([a.close(), b.close(), http.close()])
  }
  await server.close()
  assert.deepEqual(events, ['start true', 'close'], 'close() waits for the cleanup')
  await server.close()
  assert.deepEqual(events, ['start true', 'close'], 'a second close() has nothing to end')
  // Serving again starts a new lifespan (a closed server takes no in-memory clients).
  const again = await Client.http(await server.listenHttp({ port: 0 }))
  assert.equal((await again.callTool('rows', {})).structuredContent.open, true)
  await again.close()
  await server.close()
  assert.deepEqual(events, ['start true', 'close', 'start true', 'close'])
})

it('a failed start rejects the listener and is tried again; a wrong shape is refused', async () => {
  let attempts = 0
  const server = new Server({ name: 'flaky' }, {
    lifespan: async () => {
      if (++attempts === 1) throw new Error('db down')
      return { value: attempts }
    },
  })
  server.tool('attempts', (_args, ctx) => String(ctx.lifespan))
  await assert.rejects(Client.inMemory(server), { message: 'db down' })
  const client = await Client.inMemory(server)
  assert.equal((await client.callTool('attempts', {})).content[0].text, '2')
  await client.close()
  await server.close()

  // The state itself instead of { value, close }: refused rather than silently lost.
  const wrong = new Server({ name: 'wrong' }, { lifespan: async () => ({ db: 'handle' }) })
  await assert.rejects(wrong.listenHttp({ port: 0 }), InvalidInputError)
  assert.throws(() => new Server({ name: 'x' }, { lifespan: { value: 1 } }), /lifespan must be a function/)
  // Without a lifespan, ctx.lifespan is undefined.
  const plain = new Server({ name: 'plain' })
  plain.tool('state', (_args, ctx) => String(ctx.lifespan))
  const c = await Client.inMemory(plain)
  assert.equal((await c.callTool('state', {})).content[0].text, 'undefined')
  await c.close()
})

it('a stdio server ends its lifespan when stdin closes', async () => {
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })
  const r = await runNode(['--input-type=module', '-e', `import { Server } from 'oxmcp'
    const server = new Server({ name: 'stdio-life', version: '1' }, {
      lifespan: async () => {
        console.error('setup')
        return { close: async () => { await new Promise(r => setTimeout(r, 50)); console.error('cleanup') } }
      },
    })
    await server.listenStdio()`], { input: init + '\n' })
  assert.equal(r.code, 0, r.stderr)
  assert.deepEqual(r.stderr.trim().split('\n'), ['setup', 'cleanup'], 'the cleanup ran before the process exited')
  assert.equal(JSON.parse(r.stdout.trim().split('\n')[0]).result.serverInfo.name, 'stdio-life')
})
