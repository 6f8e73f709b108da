// Both protocol eras against ONE oxmcp Node server (fixtures/eras-server.mjs): a client of
// each era (`era: 'session'`: initialize; `era: 'stateless'`: 2026-07-28, server/discover
// and every request on its own), over stdio (a child process per client) and Streamable
// HTTP (one server process every client connects to). The same calls give the same
// results; the server's elicitation reaches the client's handler, progress and logs
// arrive, and what exists only in one era says so. Also: era 'stateless' against the
// official TypeScript SDK's server (session era only) fails clearly, 'auto' falls back.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { Client, McpError, AbortError, InvalidInputError, ProtocolError } from 'oxmcp'
import { fixture, startHttpServer, sleep } from './helpers.mjs'

const VERSIONS = { session: '2025-11-25', stateless: '2026-07-28' }

async function eventually(predicate, what, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** What a client's handlers saw: elicitations, logs, progress. */
function recorder() {
  const seen = { elicited: [], logs: [], progress: [] }
  seen.options = {
    elicitation: async params => {
      seen.elicited.push(params.message)
      assert.equal(params.requestedSchema.properties.name.type, 'string')
      return { action: 'accept', content: { name: 'Ada' } }
    },
    onNotification: n => { if (n.method === 'notifications/message') seen.logs.push([n.params.level, n.params.data]) },
  }
  seen.onProgress = p => seen.progress.push([p.progress, p.total, p.message])
  return seen
}

function eraSuite(transport, connect) {
  describe(`one server, each era (${transport})`, () => {
    for (const era of ['session', 'stateless']) {
      it(`${era}: the same calls, elicitation, progress, logs`, async () => {
        const seen = recorder()
        const client = await connect({ era, ...seen.options })
        try {
          assert.equal(client.era, era)
          assert.equal(client.protocolVersion, VERSIONS[era])
          assert.deepEqual(client.serverInfo, { name: 'node-eras', version: '2.0.0' })
          assert.equal(client.instructions, 'One server, both eras.')
          assert.ok(client.serverCapabilities.tools)
          assert.deepEqual((await client.listTools()).map(t => t.name), ['greet', 'consult', 'wait', 'cancelled', 'era'])
          await client.ping()
          await client.ping({ timeout: 5000 })

          const who = await client.callTool('era', {})
          assert.deepEqual(who.structuredContent, { version: VERSIONS[era], client: 'oxmcp-node' })

          await client.setLogLevel('info')
          const r = await client.callTool('greet', { greeting: 'Hello' }, { onProgress: seen.onProgress })
          assert.deepEqual(r.content, [{ type: 'text', text: 'Hello, Ada!' }])
          assert.deepEqual(seen.elicited, ['What is your name?'], 'the client elicitation handler answered once')
          await eventually(() => seen.progress.length >= 2 && seen.logs.length >= 2, 'progress and logs')
          assert.deepEqual(seen.progress, [[1, 2, 'asked'], [2, 2, 'greeted']])
          assert.deepEqual(seen.logs, [['info', 'info: greeting Ada'], ['warning', 'warning: greeting Ada']])

          assert.equal((await client.readResource('eras://note')).contents[0].text, 'a note')
          // A session-era request, or in the stateless era a subscriptions/listen stream
          // reopened with the resource (and again without it).
          await client.subscribe('eras://note')
          await client.unsubscribe('eras://note')
          await assert.rejects(client.setLogLevel('loudest'), InvalidInputError)
          client.notifyRootsChanged()
          // Nothing in flight (the stateless client's own listen stream, which brings list
          // changes to its notification events, is not the caller's request).
          assert.deepEqual(client.stats(), { pending: 0, inFlight: 0 })
        } finally {
          await client.close()
        }
      })
    }

    for (const era of ['session', 'stateless']) {
      it(`${era}: sampling and roots; a missing capability`, async () => {
        const asked = []
        const sampling = async params => {
          asked.push('sampling')
          return { role: 'assistant', model: 'm', content: { type: 'text', text: params.messages[0].content.text.toUpperCase() } }
        }
        const client = await connect({ era, sampling, roots: ['file:///x', { uri: 'file:///y' }] })
        try {
          const r = await client.callTool('consult', { question: 'why' })
          assert.ok(!r.isError)
          assert.equal(r.content[0].text, 'WHY in file:///x,file:///y')
          assert.deepEqual(asked, ['sampling'])
        } finally {
          await client.close()
        }
        const bare = await connect({ era })
        try {
          if (era === 'session') {
            // The handler's ctx.sample fails inside it: an isError result.
            const r = await bare.callTool('consult', { question: 'why' })
            assert.equal(r.isError, true)
            assert.match(r.content[0].text, /sampling/)
          } else {
            // The stateless era makes a missing capability the request's error.
            await assert.rejects(bare.callTool('consult', { question: 'why' }),
              err => err instanceof McpError && err.code === -32021 && /sampling/.test(err.message))
          }
        } finally {
          await bare.close()
        }
      })

      it(`${era}: an AbortSignal reaches the handler`, async () => {
        const client = await connect({ era })
        try {
          const ms = era === 'session' ? 30_001 : 30_002 // the HTTP server is shared
          const ac = new AbortController()
          const call = client.callTool('wait', { ms }, { signal: ac.signal })
          await sleep(100)
          ac.abort()
          await assert.rejects(call, AbortError)
          const deadline = Date.now() + 5000
          while (!(await client.callTool('cancelled', {})).structuredContent.ms.includes(ms)) {
            assert.ok(Date.now() < deadline, 'the handler never saw the cancellation')
            await sleep(50)
          }
          assert.deepEqual(client.stats(), { pending: 0, inFlight: 0 })
        } finally {
          await client.close()
        }
      })
    }

    it('stateless: a listening client gets every log, then the level it sets', async () => {
      const seen = recorder()
      const client = await connect({ era: 'stateless', ...seen.options })
      try {
        assert.equal((await client.callTool('greet', { greeting: 'Hi' })).content[0].text, 'Hi, Ada!')
        await eventually(() => seen.logs.length >= 3, 'three log messages without setLogLevel')
        assert.deepEqual(seen.logs.map(l => l[0]), ['debug', 'info', 'warning'])
        await client.setLogLevel('warning')
        await client.callTool('greet', { greeting: 'Hi' })
        await eventually(() => seen.logs.length >= 4, 'the warning')
        await sleep(200)
        assert.deepEqual(seen.logs.map(l => l[0]), ['debug', 'info', 'warning', 'warning'])
      } finally {
        await client.close()
      }
    })

    it('auto (the default) picks the stateless era of an oxmcp server', async () => {
      const seen = recorder()
      const client = await connect(seen.options)
      try {
        assert.equal(client.era, 'stateless')
        assert.equal(client.protocolVersion, '2026-07-28')
        assert.equal((await client.callTool('greet', { greeting: 'Hey' })).content[0].text, 'Hey, Ada!')
        assert.deepEqual(seen.elicited, ['What is your name?'])
      } finally {
        await client.close()
      }
    })
  })
}

eraSuite('stdio', options => Client.stdio(process.execPath, [fixture('eras-server.mjs')], options))

describe('Streamable HTTP (one server process)', () => {
  let server
  before(async () => { server = await startHttpServer(fixture('eras-server.mjs')) })
  after(async () => { await server?.stop() })
  eraSuite('Streamable HTTP', options => Client.http(server.url, options))

  it('gives the same results in both eras', async () => {
    const results = {}
    for (const era of ['session', 'stateless']) {
      const seen = recorder()
      const client = await Client.http(server.url, { era, ...seen.options })
      try {
        results[era] = {
          greet: await client.callTool('greet', { greeting: 'Hello' }),
          note: await client.readResource('eras://note'),
          tools: await client.listTools(),
        }
      } finally {
        await client.close()
      }
    }
    const { session, stateless } = results
    assert.deepEqual(stateless.greet.content, session.greet.content)
    assert.equal(!!stateless.greet.isError, !!session.greet.isError)
    assert.deepEqual(stateless.note.contents, session.note.contents)
    assert.deepEqual(stateless.tools, session.tools)
  })
})

describe('era option', () => {
  it('rejects an unknown era with an InvalidInputError', async () => {
    await assert.rejects(Client.stdio(process.execPath, [fixture('eras-server.mjs')], { era: 'modernist' }), InvalidInputError)
    await assert.rejects(Client.http('http://127.0.0.1:9/mcp', { era: '' }), InvalidInputError)
    await assert.rejects(Client.http('http://127.0.0.1:9/mcp', { era: 2026 }), err => err instanceof InvalidInputError && /era/.test(err.message))
  })
})

describe('era stateless against a session-only server (the official TypeScript SDK)', () => {
  const sdkServer = fixture('sdk-server.mjs')
  it('stdio: fails clearly; auto falls back to the session era', async () => {
    await assert.rejects(Client.stdio(process.execPath, [sdkServer], { era: 'stateless' }),
      err => err instanceof ProtocolError && /does not speak the stateless era/.test(err.message))
    const client = await Client.stdio(process.execPath, [sdkServer])
    try {
      assert.equal(client.era, 'session')
      assert.equal(client.protocolVersion, '2025-11-25')
      assert.equal((await client.callTool('add', { a: 1, b: 2 })).content[0].text, '3')
    } finally {
      await client.close()
    }
  })

  describe('Streamable HTTP', () => {
    let server
    before(async () => { server = await startHttpServer(sdkServer) })
    after(async () => { await server?.stop() })
    it('fails clearly; auto falls back to the session era', async () => {
      await assert.rejects(Client.http(server.url, { era: 'stateless' }),
        err => err instanceof ProtocolError && /does not speak the stateless era/.test(err.message))
      const client = await Client.http(server.url)
      try {
        assert.equal(client.era, 'session')
        assert.equal((await client.callTool('add', { a: 1, b: 2 })).content[0].text, '3')
      } finally {
        await client.close()
      }
    })
  })
})
