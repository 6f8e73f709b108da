// Standard Schema validators (zod 4, Valibot, ArkType) as tool schemas, as the official
// TypeScript SDK v2 takes them: each publishes its JSON Schema (a Tool the specification's
// schema accepts), the engine validates with it, then the validator parses what the
// handler gets (defaults, coercions, refinements), and refuses what it does not accept.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { Client, Server, InvalidInputError, validate } from 'oxmcp'
import * as z from 'zod/v4'
import * as v from 'valibot'
import { type } from 'arktype'
import { specSchema } from './helpers.mjs'

// The same tool three times: `word` trimmed and non-empty (a refinement the JSON Schema may
// not hold), `times` defaulting to 2, `sep` coerced from a numeric string to a number.
const VALIDATORS = {
  zod: {
    input: z.object({
      word: z.string().trim().refine(s => s.length > 0, 'must not be blank'),
      times: z.number().int().default(2),
      sep: z.string().regex(/^\d+$/).transform(Number).optional(),
    }),
    output: z.object({ text: z.string() }),
  },
  valibot: {
    input: v.object({
      word: v.pipe(v.string(), v.trim(), v.check(s => s.length > 0, 'must not be blank')),
      times: v.optional(v.pipe(v.number(), v.integer()), 2),
      sep: v.optional(v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number))),
    }),
    output: v.object({ text: v.string() }),
  },
  arktype: {
    input: type({
      word: type('string.trim').narrow((s, ctx) => s.length > 0 || ctx.mustBe('not blank')),
      times: 'number.integer = 2',
      'sep?': 'string.integer.parse',
    }),
    output: type({ text: 'string' }),
  },
}

describe('Standard Schema validators as tool schemas', () => {
  let server, client
  before(async () => {
    server = new Server({ name: 'standard', version: '1.0.0' })
    for (const [vendor, { input, output }] of Object.entries(VALIDATORS)) {
      server.tool(vendor, { inputSchema: input, outputSchema: output }, args => ({ text: JSON.stringify(args) }))
    }
    client = await Client.inMemory(server)
  })
  after(async () => {
    await client?.close()
    await server?.close()
  })

  it("lists each validator's JSON Schema, a Tool the specification's schema accepts", async t => {
    const spec = specSchema()
    const tools = Object.fromEntries((await client.listTools()).map(tool => [tool.name, tool]))
    for (const vendor of Object.keys(VALIDATORS)) {
      const tool = tools[vendor]
      assert.ok(!/"~standard"|"_zod"|"~run"/.test(JSON.stringify(tool)), JSON.stringify(tool))
      assert.equal(tool.inputSchema.type, 'object', vendor)
      assert.deepEqual(tool.inputSchema.required, ['word'], vendor)
      assert.equal(tool.inputSchema.properties.times.type, 'integer', vendor)
      assert.equal(tool.outputSchema.properties.text.type, 'string', vendor)
      if (spec) assert.equal(validate({ ...spec.schema, $ref: '#/$defs/Tool' }, tool), null, `${vendor} against ${spec.version}`)
    }
    if (!spec) t.diagnostic('no specification schema here: the Tool check was skipped')
  })

  it('hands the handler the parsed values: default applied, string trimmed and coerced', async () => {
    for (const vendor of Object.keys(VALIDATORS)) {
      const r = await client.callTool(vendor, { word: '  hi ', sep: '7' })
      assert.equal(r.isError, undefined, `${vendor}: ${JSON.stringify(r)}`)
      assert.deepEqual(JSON.parse(r.structuredContent.text), { word: 'hi', times: 2, sep: 7 }, vendor)
    }
  })

  it('refuses bad arguments with a message naming the argument', async () => {
    for (const vendor of Object.keys(VALIDATORS)) {
      // The engine's JSON Schema check: a wrong type.
      const wrongType = await client.callTool(vendor, { word: 3 })
      assert.equal(wrongType.isError, true, vendor)
      assert.match(wrongType.content[0].text, /word/, vendor)
      // The validator's own: a blank word (passes the JSON Schema) and a non-numeric sep.
      const blank = await client.callTool(vendor, { word: '   ' })
      assert.equal(blank.isError, true, vendor)
      assert.match(blank.content[0].text, /^Invalid arguments: word: .*(blank|not blank)/, vendor)
      const sep = await client.callTool(vendor, { word: 'a', sep: 'x' })
      assert.equal(sep.isError, true, vendor)
      assert.match(sep.content[0].text, /sep/, vendor)
    }
  })
})

it('waits for an asynchronous validator, and refuses a schema it cannot publish', async () => {
  const server = new Server({ name: 'async', version: '1.0.0' })
  // A hand-written Standard Schema: asynchronous, with its JSON Schema through
  // ~standard.jsonSchema (the Standard JSON Schema interface).
  const upper = {
    '~standard': {
      version: 1,
      vendor: 'handmade',
      validate: async value => typeof value?.s === 'string' ? { value: { s: value.s.toUpperCase() } } : { issues: [{ message: 'need s', path: [{ key: 's' }] }] },
      jsonSchema: { input: () => ({ type: 'object', properties: { s: { type: 'string' } } }), output: () => ({}) },
    },
  }
  server.tool('upper', { inputSchema: upper }, ({ s }) => s)
  const opaque = { '~standard': { version: 1, vendor: 'opaque', validate: value => ({ value }) } }
  assert.throws(() => server.tool('opaque', { inputSchema: opaque }, () => ''), err => err instanceof InvalidInputError && /opaque.*JSON Schema/.test(err.message))
  const client = await Client.inMemory(server)
  try {
    assert.equal((await client.callTool('upper', { s: 'ab' })).content[0].text, 'AB')
    const bad = await client.callTool('upper', {})
    assert.equal(bad.isError, true)
    assert.equal(bad.content[0].text, 'Invalid arguments: s: need s')
  } finally {
    await client.close()
    await server.close()
  }
})
