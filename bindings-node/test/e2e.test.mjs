// End-to-end: the oxmcp Node client against the oxmcp Node test server (JS handlers),
// over stdio (a child process) and over Streamable HTTP (a server process and an
// in-process server), through the public API only; and a stdio child that crashes with
// calls pending (the oxmcp CLI's everything server, --with-crash-tool).
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { Client, Server, McpError, AbortError, RequestTimeoutError, RequestCancelledError, ConnectionClosedError } from 'oxmcp'
import { z } from 'zod'
import { fixture, oxmcpBin, startHttpServer, sleep, within } from './helpers.mjs'

const handlers = {
  sampling: async params => ({ role: 'assistant', content: { type: 'text', text: `echo ${params.messages[0].content.text}` }, model: 'test-model' }),
  elicitation: async params => ({ action: 'accept', content: { name: params.message.startsWith('Your name') ? 'Ada' : '?' } }),
  roots: [{ uri: 'file:///one', name: 'one' }, 'file:///two'],
}

function suite(name, connect) {
  describe(name, () => {
    let client
    before(async () => { client = await connect() })
    after(async () => { await client?.close() })

    it('initializes with the server info and instructions', () => {
      assert.deepEqual(client.serverInfo, { name: 'demo', version: '1.0.0' })
      assert.equal(client.instructions, 'test server')
      assert.ok(client.serverCapabilities.tools)
    })

    it('lists tools with zod-made and JSON schemas', async () => {
      const tools = await client.listTools()
      const add = tools.find(t => t.name === 'add')
      assert.equal(add.description, 'Add')
      assert.deepEqual(add.inputSchema.properties, { a: { type: 'number' }, b: { type: 'number' } })
      assert.deepEqual(add.inputSchema.required, ['a', 'b'])
      assert.deepEqual(tools.find(t => t.name === 'echo').inputSchema.required, ['text'])
    })

    it('calls a zod tool and reports progress', async () => {
      const seen = []
      const r = await client.callTool('add', { a: 2, b: 40 }, { onProgress: p => seen.push(p) })
      assert.deepEqual(r.content, [{ type: 'text', text: '42' }])
      assert.equal(seen.length, 1)
      assert.equal(seen[0].progress, 50)
      assert.equal(seen[0].total, 100)
      assert.equal(seen[0].message, 'half')
    })

    it('hands the handler zod-parsed values and maps an object to structured content', async () => {
      const r = await client.callTool('shout', { word: 'hey' })
      assert.deepEqual(r.structuredContent, { word: 'HEY' })
      assert.deepEqual(JSON.parse(r.content[0].text), { word: 'HEY' })
    })

    it('rejects invalid arguments in the engine (zod and JSON schemas) as tool errors', async () => {
      const bad = await client.callTool('add', { a: 'one', b: 2 })
      assert.equal(bad.isError, true)
      assert.match(bad.content[0].text, /\/a/)
      const missing = await client.callTool('echo', {})
      assert.equal(missing.isError, true)
      assert.match(missing.content[0].text, /text/)
    })

    it('turns a throwing or rejecting handler into an isError result', async () => {
      const thrown = await client.callTool('boom', {})
      assert.equal(thrown.isError, true)
      assert.equal(thrown.content[0].text, 'kaboom')
      const rejected = await client.callTool('reject', {})
      assert.equal(rejected.isError, true)
      assert.equal(rejected.content[0].text, 'async kaboom')
      // The server is still alive.
      assert.equal((await client.callTool('echo', { text: 'still here' })).content[0].text, 'still here')
    })

    it('sends an McpError thrown by a handler as that JSON-RPC error', async () => {
      await assert.rejects(client.callTool('rpc', {}), err => {
        assert.ok(err instanceof McpError)
        assert.equal(err.code, -32001)
        assert.equal(err.message, 'custom failure')
        assert.deepEqual(err.data, { why: 1 })
        return true
      })
      await assert.rejects(client.callTool('no_such_tool', {}), err => err instanceof McpError && err.code === -32602)
    })

    it('gives the handler its context', async () => {
      const r = await client.callTool('whoami', {})
      assert.equal(r.structuredContent.client.name, 'oxmcp-node')
      assert.ok(['number', 'string'].includes(typeof r.structuredContent.requestId))
      assert.match(r.structuredContent.version, /^\d{4}-\d{2}-\d{2}$/)
    })

    it('cancels with an AbortSignal: AbortError here, the handler signal fires there', async () => {
      // Session era: the handler's log arrives without setLogLevel, after the cancellation
      // (a stateless-era server sends no logs to a request without a level, and over HTTP
      // the client cancels by closing the request's stream; eras.test.mjs covers that era).
      const session = await connect({ era: 'session' })
      try {
        await cancelsAndTheHandlerSeesIt(session)
      } finally {
        await session.close()
      }
    })

    async function cancelsAndTheHandlerSeesIt(client) {
      assert.equal(client.era, 'session')
      const logs = []
      const onLog = p => logs.push(p)
      client.on('notifications/message', onLog)
      const ac = new AbortController()
      const call = client.callTool('slow', { ms: 10_000 }, { signal: ac.signal })
      await sleep(100)
      ac.abort()
      await assert.rejects(call, err => err instanceof AbortError && err.name === 'AbortError')
      for (let i = 0; i < 100 && !logs.some(l => l.data === 'slow cancelled'); i++) await sleep(20)
      client.off('notifications/message', onLog)
      assert.ok(logs.some(l => l.logger === 'slow' && l.data === 'slow cancelled'), 'the server handler saw the cancel')
      assert.deepEqual(client.stats(), { pending: 0, inFlight: 0 })
    }

    it('rejects at once with an already-aborted signal', async () => {
      const ac = new AbortController()
      ac.abort()
      await assert.rejects(client.callTool('echo', { text: 'x' }, { signal: ac.signal }), err => err instanceof AbortError)
    })

    it('times out a request without an answer', async () => {
      await assert.rejects(client.callTool('slow', { ms: 5_000 }, { timeout: 200 }), RequestTimeoutError)
    })

    it('answers sampling, elicitation and roots from the server', async () => {
      assert.equal((await client.callTool('sample', { q: 'hi' })).content[0].text, 'model said: echo hi')
      assert.equal((await client.callTool('ask', {})).content[0].text, 'hello Ada')
      assert.equal((await client.callTool('roots', {})).content[0].text, 'file:///one,file:///two')
    })

    it('reads resources and templates', async () => {
      const resources = await client.listResources()
      assert.deepEqual(resources.map(r => r.uri).sort(), ['memo://bytes', 'memo://static'])
      const text = await client.readResource('memo://static')
      assert.deepEqual(text.contents, [{ uri: 'memo://static', mimeType: 'text/plain', text: 'static text' }])
      const bytes = await client.readResource('memo://bytes')
      assert.deepEqual(Buffer.from(bytes.contents[0].blob, 'base64'), Buffer.from([1, 2, 3]))
      const templates = await client.listResourceTemplates()
      assert.equal(templates[0].uriTemplate, 'notes://{name}')
      const note = await client.readResource('notes://todo')
      assert.equal(note.contents[0].text, 'note todo at notes://todo')
    })

    it('gets prompts and completions', async () => {
      const prompts = await client.listPrompts()
      assert.deepEqual(prompts[0].arguments, [{ name: 'code', required: true }])
      const p = await client.getPrompt('review', { code: 'x = 1' })
      assert.deepEqual(p.messages, [
        { role: 'user', content: { type: 'text', text: 'Please review: x = 1' } },
        { role: 'assistant', content: { type: 'text', text: 'Sure.' } },
      ])
      const c = await client.complete({ type: 'ref/prompt', name: 'review' }, { name: 'code', value: 'al' })
      assert.deepEqual(c.values, ['alpha', 'alps'])
    })

    it('runs 64 calls in flight', async () => {
      const results = await Promise.all(Array.from({ length: 64 }, (_, i) => client.callTool('echo', { text: `n${i}` })))
      assert.deepEqual(results.map(r => r.content[0].text), Array.from({ length: 64 }, (_, i) => `n${i}`))
      assert.deepEqual(client.stats(), { pending: 0, inFlight: 0 })
    })
  })
}

suite('stdio', options => Client.stdio(process.execPath, [fixture('demo-server.mjs')], { ...handlers, ...options }))

describe('Streamable HTTP (server process)', () => {
  let server
  before(async () => { server = await startHttpServer(fixture('demo-server.mjs')) })
  after(async () => { await server?.stop() })
  suite('client', options => Client.http(server.url, { ...handlers, ...options }))
})

describe('Streamable HTTP (in-process server)', () => {
  it('serves and cancels in one process, then closes', async () => {
    let sawAbort
    const aborted = new Promise(r => (sawAbort = r))
    const server = new Server({ name: 'inproc', version: '2.0.0' })
    server.tool('wait', {}, (_args, ctx) => new Promise((_, reject) => {
      ctx.signal.addEventListener('abort', () => { sawAbort(ctx.signal.reason); reject(new Error('stopped')) })
    }))
    server.tool('hello', { inputSchema: z.object({ who: z.string() }) }, ({ who }) => `hello ${who}`)
    const url = await server.listenHttp({ host: '127.0.0.1', port: 0 })
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    // Session era: a session to count (the stateless era has none).
    const client = await Client.http(url, { era: 'session' })
    assert.equal((await client.callTool('hello', { who: 'you' })).content[0].text, 'hello you')
    assert.equal(server.sessionCount, 1)
    const ac = new AbortController()
    const call = client.callTool('wait', {}, { signal: ac.signal })
    await sleep(50)
    ac.abort()
    await assert.rejects(call, AbortError)
    const reason = await aborted
    assert.ok(reason instanceof RequestCancelledError)
    assert.equal(reason.message, 'cancelled by the client')
    // Made without a stack (it would show only oxmcp's dispatcher), and the limit restored.
    assert.equal(reason.stack, 'RequestCancelledError: cancelled by the client')
    assert.equal(Error.stackTraceLimit, 10)
    await client.close()
    await assert.rejects(client.callTool('hello', { who: 'x' }), ConnectionClosedError)
    await server.close()
  })

  it('fails to connect to a closed port with a clear error', async () => {
    await assert.rejects(Client.http('http://127.0.0.1:9/mcp'), McpError)
  })
})

describe('a stdio server that crashes', () => {
  // The Rust CLI's everything server as the child: its `crash` tool writes a stderr line and
  // exits with status 3 while three `slow` calls are still waiting for their answers.
  it('fails every pending call with the exit status and stderr, and every later call', { timeout: 30_000 }, async () => {
    const client = await within(10_000, 'connect', Client.stdio(oxmcpBin(), ['everything-server', '--stdio', '--with-crash-tool'], { era: 'session' }))
    try {
      const started = Date.now()
      const calls = [1, 2, 3].map(tag => client.callTool('slow', { tag, ms: 20_000 }))
      calls.push(client.callTool('crash', { ms: 200 }))
      const settled = await within(10_000, 'the pending calls', Promise.allSettled(calls))
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`)
      for (const r of settled) {
        assert.equal(r.status, 'rejected')
        assert.ok(r.reason instanceof ConnectionClosedError, String(r.reason?.stack ?? r.reason))
        assert.match(r.reason.message, /exit status: 3/)
        assert.match(r.reason.message, /fatal: crash requested/)
      }
      await assert.rejects(within(5000, 'a call after the crash', client.callTool('echo', { text: 'x' })), ConnectionClosedError)
    } finally {
      await within(10_000, 'close', client.close())
    }
  })
})
