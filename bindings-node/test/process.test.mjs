// Process lifetime: a listening server keeps Node alive, close() lets it exit, a stdio
// server exits when stdin closes, a throwing handler or listener never kills the process,
// and a busy handler never blocks the event loop.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { oxmcpBin, runNode } from './helpers.mjs'

const prelude = "import { Server, Client } from 'oxmcp';"

describe('process lifetime', () => {
  it('exits by itself after server.close() and client.close()', async () => {
    const r = await runNode(['--input-type=module', '-e', `${prelude}
      const server = new Server({ name: 'x' })
      server.tool('hi', {}, () => 'hi')
      const url = await server.listenHttp({ port: 0 })
      const client = await Client.http(url)
      const r = await client.callTool('hi', {})
      await client.close()
      await server.close()
      console.log('done', r.content[0].text)`])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout.trim(), 'done hi')
  })

  it('stays alive while listening (until close() is called later)', async () => {
    const r = await runNode(['--input-type=module', '-e', `${prelude}
      const server = new Server({ name: 'x' })
      await server.listenHttp({ port: 0 })
      const started = Date.now()
      setTimeout(async () => { await server.close(); console.log('closed after', Date.now() - started >= 500) }, 500).unref()`])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout.trim(), 'closed after true')
  })

  it('a stdio server exits when its stdin closes', async () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })
    const r = await runNode(['--input-type=module', '-e', `${prelude}
      const server = new Server({ name: 'stdio-exit', version: '1' })
      await server.listenStdio()`], { input: init + '\n' })
    assert.equal(r.code, 0, r.stderr)
    const answer = JSON.parse(r.stdout.trim().split('\n')[0])
    assert.equal(answer.id, 1)
    assert.equal(answer.result.serverInfo.name, 'stdio-exit')
  })

  it('survives handlers that throw synchronously, reject, or return unserializable values', async () => {
    const r = await runNode(['--input-type=module', '-e', `${prelude}
      process.on('uncaughtException', e => { console.log('UNCAUGHT', e.message); process.exit(3) })
      const server = new Server({ name: 'x' })
      server.tool('sync', {}, () => { throw new Error('sync') })
      server.tool('async', {}, async () => { throw 'a string' })
      server.tool('cyclic', {}, () => { const o = {}; o.o = o; return o })
      server.prompt('bad', {}, () => { throw new Error('prompt failed') })
      const url = await server.listenHttp({ port: 0 })
      const client = await Client.http(url)
      const out = []
      for (const name of ['sync', 'async', 'cyclic']) {
        const res = await client.callTool(name, {})
        out.push(res.isError + ':' + res.content[0].text.slice(0, 30))
      }
      try { await client.getPrompt('bad') } catch (e) { out.push(e.code + ':' + e.message) }
      await client.close(); await server.close()
      console.log(JSON.stringify(out))`])
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const out = JSON.parse(r.stdout.trim())
    assert.equal(out[0], 'true:sync')
    assert.equal(out[1], 'true:a string')
    assert.match(out[2], /^true:.*circular/i)
    assert.equal(out[3], '-32603:prompt failed')
  })

  it('a client listener that throws is reported, not fatal to the engine', async () => {
    // Session era: the server's logs arrive without setLogLevel.
    const r = await runNode(['--input-type=module', '-e', `${prelude}
      let reported = 0
      process.on('uncaughtException', e => { if (e.message === 'listener') reported++ })
      const server = new Server({ name: 'x' })
      server.tool('log', {}, async (_a, ctx) => { await ctx.log('info', 'hello'); return 'ok' })
      const url = await server.listenHttp({ port: 0 })
      const client = await Client.http(url, { era: 'session' })
      client.on('notifications/message', () => { throw new Error('listener') })
      const res = await client.callTool('log', {})
      await new Promise(r => setTimeout(r, 100))
      const again = await client.callTool('log', {})
      await client.close(); await server.close()
      console.log(res.content[0].text, again.content[0].text, reported)`])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout.trim(), 'ok ok 2')
  })

  it('keeps the event loop free while calls are in flight', async () => {
    const r = await runNode(['--input-type=module', '-e', `${prelude}
      const server = new Server({ name: 'x' })
      server.tool('wait', {}, () => new Promise(r => setTimeout(() => r('late'), 300)))
      const url = await server.listenHttp({ port: 0 })
      const client = await Client.http(url)
      let ticks = 0
      const timer = setInterval(() => ticks++, 10)
      const res = await client.callTool('wait', {})
      clearInterval(timer)
      await client.close(); await server.close()
      console.log(res.content[0].text, ticks > 5)`])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout.trim(), 'late true')
  })

  it('a running handler keeps Node alive until it settles, after its in-memory client gave up', async () => {
    // Once a call is aborted nothing else holds the loop: only the handler's cancel, sent
    // by the engine, settles `seen`. Lost once in 30 rounds, the process would end early.
    const r = await runNode(['--input-type=module', '-e', `${prelude}
      const server = new Server({ name: 'x' })
      let started, saw
      server.tool('wait', {}, (_args, ctx) => new Promise(resolve => {
        ctx.signal.addEventListener('abort', () => { saw(); resolve('stopped') })
        started()
      }))
      const client = await Client.inMemory(server)
      for (let i = 0; i < 30; i++) {
        const running = new Promise(resolve => (started = resolve))
        const seen = new Promise(resolve => (saw = resolve))
        const ac = new AbortController()
        const call = client.callTool('wait', {}, { signal: ac.signal }).catch(e => e.name)
        await running
        ac.abort()
        if (await call !== 'AbortError') throw new Error('the call was not aborted')
        await seen
      }
      console.log('every cancel reached its handler')`])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout.trim(), 'every cancel reached its handler')
  })
  // The engine holds each client's and server's event dispatcher strongly, from Rust: a
  // dispatcher holding its JS object would keep it (and all it holds) for good.
  it('closed clients and servers are garbage collected', async () => {
    const r = await runNode(['--expose-gc', '--input-type=module', '-e', `${prelude}
      const counts = {}
      const gone = new FinalizationRegistry(kind => { counts[kind] = (counts[kind] || 0) + 1 })
      const shared = new Server({ name: 'x' })
      shared.tool('echo', {}, () => 'x')
      const url = await shared.listenHttp({ port: 0 })
      async function client(kind) {
        const c = kind === 'memory' ? await Client.inMemory(shared)
          : kind === 'http' ? await Client.http(url)
          : await Client.stdio(${JSON.stringify(oxmcpBin())}, ['everything-server', '--stdio'])
        await c.callTool('echo', kind === 'stdio' ? { message: 'm' } : {})
        await c.close()
        gone.register(c, kind)
      }
      async function server(kind) {
        const s = new Server({ name: 'y' })
        s.tool('echo', {}, () => 'x')
        const c = kind === 'served' ? await Client.http(await s.listenHttp({ port: 0 })) : await Client.inMemory(s)
        await c.callTool('echo', {})
        await c.close()
        await s.close()
        gone.register(s, kind + ' server')
      }
      for (const kind of ['memory', 'http', 'stdio']) for (let i = 0; i < 5; i++) await client(kind)
      for (const kind of ['served', 'in-memory']) for (let i = 0; i < 5; i++) await server(kind)
      for (let i = 0; i < 20; i++) { globalThis.gc(); await new Promise(r => setTimeout(r, 10)) }
      await shared.close()
      console.log(JSON.stringify(counts))`], { timeoutMs: 60_000 })
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(JSON.parse(r.stdout), { memory: 5, http: 5, stdio: 5, 'served server': 5, 'in-memory server': 5 })
  })

  it('a server nobody references keeps serving while it listens or has an in-memory client', async () => {
    const r = await runNode(['--expose-gc', '--input-type=module', '-e', `${prelude}
      function make() {
        const s = new Server({ name: 'x' })
        s.tool('echo', {}, () => 'still here')
        return s
      }
      const url = await make().listenHttp({ port: 0 })
      const inMemory = await Client.inMemory(make())
      for (let i = 0; i < 10; i++) { globalThis.gc(); await new Promise(r => setTimeout(r, 10)) }
      const http = await Client.http(url)
      const a = await http.callTool('echo', {})
      const b = await inMemory.callTool('echo', {})
      console.log(a.content[0].text, '/', b.content[0].text)
      await http.close()
      await inMemory.close()
      process.exit(0)`])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout.trim(), 'still here / still here')
  })
})
