// Middleware around every request a Node server routes, and the server's other run-time
// surface: removing prompts and resources, the HTTP request's headers.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Client, Server, McpError, InvalidInputError } = require('../index.cjs')

function makeServer(log) {
  const server = new Server({ name: 'mw', version: '1' })
  server.use(async ({ method }, next) => {
    log.push(`outer ${method}`)
    try {
      return await next()
    } finally {
      log.push(`outer done ${method}`)
    }
  })
  server.use(async ({ method, params }, next) => {
    log.push(`inner ${method}`)
    if (method !== 'tools/call') return next()
    if (params.name === 'secret') throw new McpError(-32001, 'the middleware says no')
    const result = await next({ ...params, arguments: { text: params.arguments.text.toUpperCase() } })
    return { ...result, _meta: { seenBy: 'inner' } }
  })
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text)
  server.tool('secret', () => 'leaked')
  return server
}

for (const era of ['session', 'stateless']) {
  it(`middleware wraps every routed request (era ${era})`, async () => {
    const log = []
    const client = await Client.inMemory(makeServer(log), { era })
    try {
      log.length = 0
      const r = await client.callTool('echo', { text: 'quiet' })
      assert.equal(r.content[0].text, 'QUIET', 'the inner middleware changed the arguments')
      assert.deepEqual(r._meta, { seenBy: 'inner' }, 'and the result')
      assert.deepEqual(log, ['outer tools/call', 'inner tools/call', 'outer done tools/call'])
      await assert.rejects(client.callTool('secret', {}), err => err instanceof McpError && err.code === -32001)
      log.length = 0
      assert.deepEqual((await client.listTools()).map(t => t.name).sort(), ['echo', 'secret'])
      assert.ok(log.includes('outer tools/list'))
    } finally {
      await client.close()
    }
  })
}

it('use takes a function', () => {
  assert.throws(() => new Server({ name: 'x' }).use(42), InvalidInputError)
})

it('prompts and resources can be removed, and handlers see the HTTP headers', async () => {
  const server = new Server({ name: 'rm', version: '1' })
  server.prompt('hello', () => 'hi')
  server.resource('memo://note', () => 'a note')
  server.tool('headers', (_args, ctx) => ({ headers: ctx.headers ?? null }))
  const client = await Client.inMemory(server)
  try {
    assert.deepEqual((await client.listPrompts()).map(p => p.name), ['hello'])
    assert.ok(server.removePrompt('hello') && server.removeResource('memo://note'))
    assert.equal(server.removePrompt('hello'), false)
    assert.deepEqual(await client.listPrompts(), [])
    assert.deepEqual(await client.listResources(), [])
    assert.deepEqual((await client.callTool('headers', {})).structuredContent, { headers: null }, 'no HTTP, no headers')
  } finally {
    await client.close()
  }
  const url = await server.listenHttp({ port: 0 })
  const http = await Client.http(url, { headers: { 'X-Tenant': 'blue' } })
  try {
    assert.equal((await http.callTool('headers', {})).structuredContent.headers['x-tenant'], 'blue')
  } finally {
    await http.close()
    await server.close()
  }
})

for (const era of ['session', 'stateless']) {
  it(`a middleware answers by itself without next(): a cache (era ${era})`, async () => {
    const server = new Server({ name: 'cache', version: '1' })
    const runs = []
    const cache = new Map()
    server.use(async ({ method, params }, next) => {
      if (method !== 'tools/call') return next()
      const key = JSON.stringify(params.arguments)
      if (!cache.has(key)) cache.set(key, await next())
      return cache.get(key)
    })
    server.tool('square', { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, ({ n }) => {
      runs.push(n)
      return String(n * n)
    })
    const client = await Client.inMemory(server, { era })
    try {
      assert.equal((await client.callTool('square', { n: 3 })).content[0].text, '9')
      assert.equal((await client.callTool('square', { n: 3 })).content[0].text, '9')
      assert.equal((await client.callTool('square', { n: 4 })).content[0].text, '16')
      assert.deepEqual(runs, [3, 4], 'the cached call did not reach the tool')
    } finally {
      await client.close()
    }
  })
}
