// zod 3 and zod 4, as the MCP TypeScript SDK takes them: a schema or a raw shape of either
// major as a tool's input or output schema or a prompt's arguments is published as JSON
// Schema and parses the arguments its handler gets. zod 3 is installed as `zod3` (an npm
// alias); `zod` is zod 4.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { Client, Server, InvalidInputError, validate } from 'oxmcp'
import { z } from 'zod'
import { z as z3 } from 'zod3'
import { runNode } from './helpers.mjs'

// What zod 3 looked like when it was taken for a JSON Schema object.
const leaksZod = schema => /"_def"|"~standard"|"typeName"/.test(JSON.stringify(schema))

describe('zod 3 and zod 4 schemas on one server', () => {
  let server, client
  before(async () => {
    server = new Server({ name: 'zods', version: '1.0.0' })
    // The refinement is zod's alone (not in the JSON Schema): only zod's safeParse catches it.
    server.tool('even3', {
      inputSchema: z3.object({ n: z3.number().refine(n => n % 2 === 0, 'must be even'), tag: z3.string().default('none') }),
      outputSchema: z3.object({ got: z3.string() }),
    }, args => ({ got: JSON.stringify(args) }))
    server.tool('shape3', { inputSchema: { word: z3.string().transform(s => s.toUpperCase()), times: z3.number().int().optional() } },
      ({ word, times }) => word.repeat(times ?? 1))
    server.tool('even4', { inputSchema: { n: z.number().refine(n => n % 2 === 0, 'must be even') }, outputSchema: { got: z.number() } },
      ({ n }) => ({ got: n }))
    server.prompt('review3', { argsSchema: { code: z3.string().describe('the code'), lang: z3.string().min(2).optional() } },
      ({ code, lang }) => `Review ${code} in ${lang ?? 'any language'}`)
    server.prompt('review4', { argsSchema: z.object({ code: z.string().describe('the code') }) }, ({ code }) => `Review ${code}`)
    const url = await server.listenHttp({ host: '127.0.0.1', port: 0 })
    client = await Client.http(url)
  })
  after(async () => {
    await client?.close()
    await server?.close()
  })

  it('publishes a zod 3 schema and raw shape as JSON Schema', async () => {
    const tools = await client.listTools()
    const even3 = tools.find(t => t.name === 'even3')
    assert.ok(!leaksZod(even3), JSON.stringify(even3))
    assert.equal(even3.inputSchema.type, 'object')
    assert.deepEqual(even3.inputSchema.properties, { n: { type: 'number' }, tag: { type: 'string', default: 'none' } })
    assert.deepEqual(even3.inputSchema.required, ['n'])
    assert.equal(even3.outputSchema.type, 'object')
    assert.deepEqual(even3.outputSchema.properties, { got: { type: 'string' } })
    const shape3 = tools.find(t => t.name === 'shape3')
    assert.ok(!leaksZod(shape3), JSON.stringify(shape3))
    assert.deepEqual(shape3.inputSchema.properties, { word: { type: 'string' }, times: { type: 'integer' } })
    assert.deepEqual(shape3.inputSchema.required, ['word'])
    const even4 = tools.find(t => t.name === 'even4')
    assert.deepEqual(even4.inputSchema.properties, { n: { type: 'number' } })
    assert.deepEqual(even4.outputSchema.properties, { got: { type: 'number' } })
  })

  it('validates with the JSON Schema, then hands the handler zod 3-parsed values', async () => {
    const ok = await client.callTool('even3', { n: 2 })
    assert.deepEqual(ok.structuredContent, { got: JSON.stringify({ n: 2, tag: 'none' }) })
    const wrongType = await client.callTool('even3', { n: 'two' })
    assert.equal(wrongType.isError, true)
    assert.match(wrongType.content[0].text, /\/n/)
    const odd = await client.callTool('even3', { n: 3 })
    assert.equal(odd.isError, true)
    assert.match(odd.content[0].text, /must be even/)
    assert.equal((await client.callTool('shape3', { word: 'ab', times: 2 })).content[0].text, 'ABAB')
  })

  it('still parses with zod 4', async () => {
    assert.deepEqual((await client.callTool('even4', { n: 4 })).structuredContent, { got: 4 })
    const odd = await client.callTool('even4', { n: 5 })
    assert.equal(odd.isError, true)
    assert.match(odd.content[0].text, /must be even/)
  })

  it('takes prompt arguments from a zod 3 shape and parses them with zod 3', async () => {
    const prompts = await client.listPrompts()
    assert.deepEqual(prompts.find(p => p.name === 'review3').arguments, [
      { name: 'code', description: 'the code', required: true },
      { name: 'lang', required: false },
    ])
    assert.deepEqual(prompts.find(p => p.name === 'review4').arguments, [{ name: 'code', description: 'the code', required: true }])
    const got = await client.getPrompt('review3', { code: 'x = 1', lang: 'py' })
    assert.equal(got.messages[0].content.text, 'Review x = 1 in py')
    await assert.rejects(client.getPrompt('review3', { code: 'x', lang: 'p' }), /lang/)
  })
})

it('validate() takes a zod 3 schema', () => {
  assert.equal(validate(z3.object({ a: z3.number() }), { a: 1 }), null)
  assert.match(validate(z3.object({ a: z3.number() }), { a: 'x' }), /\/a/)
  assert.match(validate({ a: z3.number() }, {}), /a/)
})

it('refuses a raw shape that mixes zod 3 and zod 4', () => {
  const server = new Server({ name: 'mixed', version: '1.0.0' })
  assert.throws(() => server.tool('mixed', { inputSchema: { a: z3.string(), b: z.string() } }, () => ''), InvalidInputError)
})

it('names zod-to-json-schema when a zod 3 schema is given and it cannot be loaded', async () => {
  // A child process in which zod-to-json-schema cannot be resolved.
  const code = `
    const Module = require('node:module')
    const resolve = Module._resolveFilename
    Module._resolveFilename = function (request, ...rest) {
      if (request === 'zod-to-json-schema') throw Object.assign(new Error('not here'), { code: 'MODULE_NOT_FOUND' })
      return resolve.call(this, request, ...rest)
    }
    const { Server, InvalidInputError } = require('./index.cjs')
    const { z } = require('zod3')
    const server = new Server({ name: 'no-converter', version: '1.0.0' })
    for (const schema of [z.object({ a: z.string() }), { a: z.string() }]) {
      try {
        server.tool('t', { inputSchema: schema }, () => '')
        console.log('registered')
      } catch (err) {
        console.log(err instanceof InvalidInputError, err.message)
      }
    }
    // zod 4 needs no converter.
    server.tool('t4', { inputSchema: { a: require('zod').string() } }, () => '')
    console.log('zod 4 ok')
  `
  const r = await runNode(['-e', code])
  assert.equal(r.code, 0, r.stderr)
  const lines = r.stdout.trim().split('\n')
  assert.equal(lines.length, 3, r.stdout)
  for (const line of lines.slice(0, 2)) assert.match(line, /^true .*zod 3.*zod-to-json-schema/)
  assert.equal(lines[2], 'zod 4 ok')
})

it('takes zod/mini schemas and raw shapes, published and parsed as zod 4 ones', async () => {
  const m = await import('zod/mini')
  const server = new Server({ name: 'mini', version: '1.0.0' })
  server.tool('object', { inputSchema: m.object({ n: m.number(), tag: m._default(m.string(), 'none') }) }, args => JSON.stringify(args))
  server.tool('shape', { inputSchema: { word: m.string(), times: m.optional(m.int()) } }, ({ word, times }) => word.repeat(times ?? 1))
  const client = await Client.inMemory(server)
  try {
    const tools = Object.fromEntries((await client.listTools()).map(t => [t.name, t.inputSchema]))
    assert.deepEqual(tools.shape.properties.word, { type: 'string' })
    assert.deepEqual(tools.shape.required, ['word'])
    assert.equal(tools.object.properties.n.type, 'number')
    assert.ok(!leaksZod(tools.object) && !leaksZod(tools.shape))
    // zod's own parse gives the handler the default the JSON Schema does not apply.
    assert.equal((await client.callTool('object', { n: 2 })).content[0].text, '{"n":2,"tag":"none"}')
    assert.equal((await client.callTool('shape', { word: 'ab', times: 2 })).content[0].text, 'abab')
    const bad = await client.callTool('shape', { word: 3 })
    assert.equal(bad.isError, true)
  } finally {
    await client.close()
    await server.close()
  }
})
