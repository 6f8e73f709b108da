// Connection failures are the binding's own connection errors, and say what failed.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Client, Server, TransportError, McpError } = require('../index.cjs')

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

for (const era of ['auto', 'session', 'stateless']) {
  it(`an unreachable server is a TransportError (era ${era})`, async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`
    await assert.rejects(Client.http(url, { era }), (err) => {
      assert.ok(err instanceof TransportError, `${err.constructor.name}: ${err.message}`)
      assert.ok(err.message.includes(url), err.message)
      return true
    })
  })
}

it('a taken address is named', async () => {
  const first = new Server({ name: 'first', version: '1' })
  const url = await first.listenHttp({ host: '127.0.0.1', port: 0 })
  const port = Number(new URL(url).port)
  try {
    const second = new Server({ name: 'second', version: '1' })
    await assert.rejects(second.listenHttp({ host: '127.0.0.1', port }), (err) => {
      assert.ok(err instanceof McpError, String(err))
      assert.equal(err.message.split(`127.0.0.1:${port}`).length, 2, `the address, named once: ${err.message}`)
      return true
    })
  } finally {
    await first.close()
  }
})
