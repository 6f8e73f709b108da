// Engine errors reach JavaScript by their kind's stable name and number (never a message
// encoding): the JS layer's table of kinds must cover every kind the addon reports, each
// with the same number and name and a public McpError class.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const native = require('../native.cjs')
const oxmcp = require('../index.cjs')

it('maps every engine error kind to a JS class with the same number and name', () => {
  const engine = native.errorKinds()
  assert.ok(engine.length > 0)
  const js = oxmcp._errorKinds
  assert.deepEqual(js.map(([code, name]) => ({ code, name })), engine.map(({ code, name }) => ({ code, name })))
  for (const [, name, C] of js) {
    assert.equal(oxmcp[C.name], C, `kind ${name}: ${C.name} is not exported`)
    assert.ok(new C(null, 'm') instanceof oxmcp.McpError, `kind ${name}: ${C.name} is not an McpError`)
  }
  assert.equal(new Set(js.map(([, , C]) => C)).size, js.length, 'two kinds share a class')
})

it('a thrown engine error becomes its class, its message untouched', () => {
  assert.throws(() => oxmcp.validate({ type: 'no such type' }, 1), err =>
    err instanceof oxmcp.InvalidInputError && err.code === null && !err.message.includes('\u0001'))
})

it('a rejected engine error becomes its class', async () => {
  await assert.rejects(oxmcp.Client.http('http://127.0.0.1:9/mcp', { era: 'sideways' }), err =>
    err instanceof oxmcp.InvalidInputError && /era/.test(err.message))
  const server = new oxmcp.Server({ name: 't', version: '1' })
  await assert.rejects(server.listenHttp({ port: 'eighty' }), oxmcp.InvalidInputError)
})
