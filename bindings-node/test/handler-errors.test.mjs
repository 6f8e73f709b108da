// Errors a handler throws are seen on the server: with their stack on stderr, or by the
// onError hook; maskErrors keeps their text from the client (and the model). McpErrors are
// deliberate and pass as they are.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { format } from 'node:util'
import { z } from 'zod'

const require = createRequire(import.meta.url)
const { Client, Server, McpError } = require('../index.cjs')

/** A server with one failing handler of each kind (and a few that fail on purpose). */
function failingServer(options) {
  const server = new Server({ name: 'failing', version: '1' }, options)
  server.tool('boom', () => { throw new Error('secret: db password is hunter2') })
  server.tool('reject', async () => { throw 'a rejected string' })
  server.tool('deliberate', () => { throw new McpError(-32001, 'said on purpose') })
  server.tool('even', { inputSchema: z.object({ n: z.number().refine(n => n % 2 === 0, 'n must be even') }) }, ({ n }) => String(n))
  server.resource('memo://{id}', async () => { throw new RangeError('resource broke') })
  server.prompt('p', { arguments: [{ name: 'topic' }] }, () => { throw new TypeError('prompt broke') })
  server.completion(() => { throw new Error('completion broke') })
  return server
}

/** Runs `fn` with console.error collected (each call's arguments). */
async function capturingStderr(fn) {
  const calls = []
  const original = console.error
  console.error = (...args) => calls.push(args)
  try {
    await fn()
  } finally {
    console.error = original
  }
  return calls
}

const text = result => result.content.map(c => c.text).join('')

it('a failing handler is reported on stderr with its kind, name and stack; the client gets its message', async () => {
  const server = failingServer()
  const client = await Client.inMemory(server)
  try {
    let results
    const calls = await capturingStderr(async () => {
      results = {
        boom: await client.callTool('boom', {}),
        reject: await client.callTool('reject', {}),
        deliberate: await client.callTool('deliberate', {}).catch(e => e),
        even: await client.callTool('even', { n: 3 }),
        resource: await client.readResource('memo://7').catch(e => e),
        prompt: await client.getPrompt('p').catch(e => e),
        completion: await client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'topic', value: 'x' }).catch(e => e),
      }
    })
    assert.equal(results.boom.isError, true)
    assert.equal(text(results.boom), 'secret: db password is hunter2')
    assert.equal(text(results.reject), 'a rejected string')
    assert.equal(results.resource.code, -32603)
    assert.equal(results.resource.message, 'resource broke')
    assert.equal(results.prompt.message, 'prompt broke')
    assert.equal(results.completion.message, 'completion broke')
    // One console.error call per failure, in order; McpErrors and invalid arguments are
    // not bugs of the server and go unreported.
    assert.equal(results.deliberate.code, -32001)
    assert.match(text(results.even), /Invalid arguments: n: n must be even/)
    const lines = calls.map(args => format(...args))
    assert.equal(lines.length, 5, lines.join('\n---\n'))
    const expected = [
      ['tool "boom"', 'Error: secret: db password is hunter2'],
      ['tool "reject"', 'a rejected string'],
      ['resource "memo://{id}"', 'RangeError: resource broke'],
      ['prompt "p"', 'TypeError: prompt broke'],
      ['completion "p"', 'Error: completion broke'],
    ]
    for (const [i, [who, what]] of expected.entries()) {
      assert.ok(lines[i].startsWith(`oxmcp: ${who} failed:`), lines[i])
      assert.ok(lines[i].includes(what), lines[i])
    }
    // The stack: the frame of this file's handler.
    assert.match(lines[0], /\n\s+at .*handler-errors\.test\.mjs:\d+/)
  } finally {
    await client.close()
  }
})

it('onError gets the error itself and { kind, name } instead of stderr', async () => {
  const seen = []
  const server = failingServer({ onError: (err, info) => { seen.push([info, err]) } })
  server.use(async ({ method }, next) => {
    if (method === 'prompts/list') throw new Error('middleware broke')
    return next()
  })
  const client = await Client.inMemory(server)
  try {
    const calls = await capturingStderr(async () => {
      await client.callTool('boom', {})
      await client.callTool('deliberate', {}).catch(() => {})
      await client.readResource('memo://7').catch(() => {})
      await client.getPrompt('p').catch(() => {})
      await client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'topic', value: 'x' }).catch(() => {})
      await assert.rejects(client.listPrompts(), { message: 'middleware broke' })
    })
    assert.deepEqual(calls, [], 'nothing on stderr with a hook')
    assert.deepEqual(seen.map(([info]) => info), [
      { kind: 'tool', name: 'boom' },
      { kind: 'resource', name: 'memo://{id}' },
      { kind: 'prompt', name: 'p' },
      { kind: 'completion', name: 'p' },
      { kind: 'middleware', name: 'prompts/list' },
    ])
    assert.ok(seen[0][1] instanceof Error && seen[0][1].message === 'secret: db password is hunter2')
    assert.ok(seen[1][1] instanceof RangeError && typeof seen[1][1].stack === 'string')
  } finally {
    await client.close()
  }
})

it('maskErrors answers with a generic message; the hook still gets the real error', async () => {
  const seen = []
  const server = failingServer({ maskErrors: true, onError: err => { seen.push(String(err?.message ?? err)) } })
  const client = await Client.inMemory(server)
  try {
    const boom = await client.callTool('boom', {})
    assert.equal(boom.isError, true)
    assert.equal(text(boom), 'internal error in tool boom')
    assert.ok(!JSON.stringify(boom).includes('hunter2'))
    assert.equal(text(await client.callTool('reject', {})), 'internal error in tool reject')
    await assert.rejects(client.readResource('memo://7'), { code: -32603, message: 'internal error in resource memo://{id}' })
    await assert.rejects(client.getPrompt('p'), { code: -32603, message: 'internal error in prompt p' })
    await assert.rejects(client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'topic', value: 'x' }),
      { code: -32603, message: 'internal error in completion p' })
    // Deliberate errors and the caller's own mistakes are still told as they are.
    await assert.rejects(client.callTool('deliberate', {}), { code: -32001, message: 'said on purpose' })
    assert.match(text(await client.callTool('even', { n: 3 })), /Invalid arguments: n: n must be even/)
    assert.deepEqual(seen, ['secret: db password is hunter2', 'a rejected string', 'resource broke', 'prompt broke', 'completion broke'])
  } finally {
    await client.close()
  }
})

it('a handler giving up on a cancelled request is not reported', async () => {
  const seen = []
  const server = new Server({ name: 'cancel', version: '1' }, { onError: err => { seen.push(err.message) } })
  let started, settled
  const handlerStarted = new Promise(r => (started = r))
  const handlerSettled = new Promise(r => (settled = r))
  server.tool('wait', (_args, ctx) => new Promise((_resolve, reject) => {
    ctx.signal.addEventListener('abort', () => {
      reject(new Error('stopped'))
      // After the rejection's reactions (microtasks), the server has handled it.
      setImmediate(settled)
    })
    started()
  }))
  server.tool('boom', () => { throw new Error('after') })
  const client = await Client.inMemory(server)
  try {
    const ac = new AbortController()
    const call = client.callTool('wait', {}, { signal: ac.signal })
    await handlerStarted
    ac.abort()
    await assert.rejects(call, { name: 'AbortError' })
    await handlerSettled
    await client.callTool('boom', {})
    assert.deepEqual(seen, ['after'])
  } finally {
    await client.close()
  }
})

it('a hook that throws is reported on stderr and the client is still answered', async () => {
  const server = new Server({ name: 'hooked', version: '1' }, {
    maskErrors: true,
    onError: () => { throw new Error('the hook broke') },
  })
  server.tool('boom', () => { throw new Error('inner') })
  const client = await Client.inMemory(server)
  try {
    let result
    const calls = await capturingStderr(async () => { result = await client.callTool('boom', {}) })
    assert.equal(text(result), 'internal error in tool boom')
    assert.equal(calls.length, 1)
    assert.match(format(...calls[0]), /^oxmcp: the onError hook failed: Error: the hook broke/)
  } finally {
    await client.close()
  }
  assert.throws(() => new Server({ name: 'x' }, { onError: 'loud' }), /onError must be a function/)
})

it("what oxmcp's own calls throw in a handler is a failure: reported, masked when asked, a tool's isError", async () => {
  const { createServer } = await import('node:net')
  const port = await new Promise(resolve => {
    const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)) })
  })
  const unreachable = `http://127.0.0.1:${port}/mcp`
  class QuotaExceeded extends McpError {}
  for (const maskErrors of [false, true]) {
    const server = new Server({ name: 'nesting', version: '1' }, { maskErrors })
    server.tool('forward', async () => { const up = await Client.http(unreachable); return up.callTool('echo', {}) })
    server.prompt('summary', async () => { await Client.http(unreachable); return 'never' })
    server.tool('quota', () => { throw new QuotaExceeded(-32050, 'quota exceeded') })
    const client = await Client.inMemory(server)
    try {
      let forward, summary, quota
      const calls = await capturingStderr(async () => {
        forward = await client.callTool('forward', {})
        summary = await client.getPrompt('summary').catch(e => e)
        quota = await client.callTool('quota', {}).catch(e => e)
      })
      assert.deepEqual(calls.map(c => c[0]), ['oxmcp: tool "forward" failed:', 'oxmcp: prompt "summary" failed:'],
        'both reported, the deliberate one not')
      assert.equal(forward.isError, true, 'a tool failure, not the upstream error passed on')
      assert.equal(summary.code, -32603)
      if (maskErrors) {
        assert.equal(text(forward), 'internal error in tool forward')
        assert.equal(summary.message, 'internal error in prompt summary')
      } else {
        assert.match(text(forward), /127\.0\.0\.1/)
      }
      assert.equal(quota.code, -32050, 'an McpError subclass of the application is deliberate')
    } finally {
      await client.close()
      await server.close()
    }
  }
})
