// A client of a server in the same process, through memory: no child process, no socket.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Client, Server, InvalidInputError } = require('../index.cjs')

function makeServer() {
  const server = new Server({ name: 'memory', version: '1.0.0' })
  server.tool('add', { description: 'Adds.', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
    ({ a, b }) => String(a + b))
  server.tool('ask', { description: "Asks the client's model." }, async (_args, ctx) => {
    const answer = await ctx.sample('ping?', { maxTokens: 5 })
    return answer.content.text
  })
  return server
}

it('a client reaches a Server object through memory, in both eras', async () => {
  const server = makeServer()
  const sampling = async () => ({ role: 'assistant', content: { type: 'text', text: 'pong' }, model: 'm' })
  for (const era of ['session', 'stateless']) {
    const client = await Client.inMemory(server, { era, sampling })
    try {
      assert.equal(client.era, era)
      assert.equal(client.serverInfo.name, 'memory')
      assert.deepEqual((await client.listTools()).map(t => t.name), ['add', 'ask'])
      assert.equal((await client.callTool('add', { a: 2, b: 3 })).content[0].text, '5')
      // A server-to-client request crosses back through memory.
      assert.equal((await client.callTool('ask', {})).content[0].text, 'pong')
    } finally {
      await client.close()
    }
  }
  const clients = await Promise.all([1, 2, 3].map(() => Client.inMemory(server, { era: 'session' })))
  const sums = await Promise.all(clients.map((c, i) => c.callTool('add', { a: i, b: i })))
  assert.deepEqual(sums.map(r => r.content[0].text), ['0', '2', '4'])
  await Promise.all(clients.map(c => c.close()))
  await assert.rejects(Client.inMemory({}), InvalidInputError)
})

it("closing a client aborts its answers to the server's requests", async () => {
  for (const era of ['session', 'stateless']) {
    let asked, aborted
    const askedP = new Promise(r => (asked = r))
    const abortedP = new Promise(r => (aborted = r))
    const sampling = (_params, { signal }) => new Promise((_, reject) => {
      signal.addEventListener('abort', () => { aborted(signal.reason); reject(signal.reason) })
      asked()
    })
    const server = makeServer()
    const client = await Client.inMemory(server, { era, sampling })
    const call = client.callTool('ask', {}).catch(err => err)
    await askedP
    await client.close()
    const reason = await Promise.race([abortedP, new Promise(r => setTimeout(() => r('not aborted'), 3000))])
    assert.ok(reason instanceof Error, `${era}: the sampling handler was ${reason}`)
    assert.ok(await call instanceof Error, era)
    await server.close()
  }
})
