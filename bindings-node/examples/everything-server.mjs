// The everything server in JavaScript on oxmcp: the fixtures of `oxmcp everything-server`
// (cli/src/everything.rs) with the same names, schemas, texts and behaviour, so the
// official MCP conformance suite can run against a Node server.
//
//   node everything-server.mjs                         # stdio
//   node everything-server.mjs --http 127.0.0.1:8000   # Streamable HTTP on /mcp
//   node everything-server.mjs --http 127.0.0.1:8001 --redis redis://127.0.0.1:6379   # one of several nodes
//
// Over HTTP it prints `listening on URL` to stderr once it accepts connections (port 0
// picks a free port) and stops on SIGINT or SIGTERM. Like `oxmcp everything-server`, it
// tells subscribers of test://watched-resource about an update every 3 seconds.

import zlib from 'node:zlib'
import { McpError, Server, version } from 'oxmcp'

const server = new Server({ name: 'oxmcp-everything-node', version },
  { instructions: "A test server: every MCP feature with the conformance suite's fixture names." })

// -- media made at run time -------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
function crc32(buf) {
  let c = 0xffffffff
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

/** A `size` x `size` 8-bit RGB PNG of one colour (stored deflate, like the Rust one), base64. */
function png(size, rgb) {
  const chunk = (kind, data) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(kind, 'ascii'), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([len, body, crc])
  }
  const row = Buffer.concat([Buffer.from([0]), ...Array(size).fill(Buffer.from(rgb))])
  const raw = Buffer.concat(Array(size).fill(row))
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(size, 0)
  ihdr.writeUInt32BE(size, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 0 })), chunk('IEND', Buffer.alloc(0))]).toString('base64')
}

/** A short 8 kHz mono 16-bit PCM WAV tone (samples computed in float32, like the Rust one), base64. */
function wav(millis, hz) {
  const f = Math.fround
  const rate = 8000
  const tau = f(2 * Math.PI)
  const samples = Math.floor((rate * millis) / 1000)
  const data = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.trunc(f(f(Math.sin(f(f(f(i / rate) * hz) * tau))) * 8000)), i * 2)
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVEfmt ', 8, 'ascii')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(rate, 24)
  header.writeUInt32LE(rate * 2, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(data.length, 40)
  return Buffer.concat([header, data]).toString('base64')
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const object = (properties, required) => ({ type: 'object', properties, required })
const noArgs = { type: 'object', properties: {} }
const text = t => ({ type: 'text', text: t })

// -- tools ------------------------------------------------------------------------------

server.tool('echo', {
  description: 'Returns its `text` argument as one text block.',
  inputSchema: object({ text: { type: 'string' } }, ['text']),
  annotations: { readOnlyHint: true },
}, ({ text }) => text)

server.tool('slow', {
  description: 'Sleeps `ms` milliseconds unless cancelled; returns `tag`.',
  inputSchema: object({ tag: { type: 'integer' }, ms: { type: 'integer', minimum: 0 } }, ['tag', 'ms']),
}, ({ tag, ms }, ctx) => new Promise((resolve, reject) => {
  const timer = setTimeout(() => resolve(`slow ${tag} done`), ms)
  ctx.signal.addEventListener('abort', () => {
    clearTimeout(timer)
    // Tells observers (tests, benchmarks) that the cancel reached the handler.
    ctx.log('info', `slow tag=${tag} cancelled`, 'slow')
    reject(new Error('cancelled'))
  })
}))

server.tool('test_simple_text', { description: 'Returns a simple text response.', inputSchema: noArgs },
  () => 'This is a simple text response for testing.')

server.tool('test_image_content', { description: 'Returns an image.', inputSchema: noArgs },
  () => [{ type: 'image', data: png(8, [220, 40, 40]), mimeType: 'image/png' }])

server.tool('test_audio_content', { description: 'Returns audio.', inputSchema: noArgs },
  () => [{ type: 'audio', data: wav(100, 440), mimeType: 'audio/wav' }])

server.tool('test_embedded_resource', { description: 'Returns an embedded resource.', inputSchema: noArgs },
  () => [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }])

server.tool('test_multiple_content_types', { description: 'Returns text, an image and a resource.', inputSchema: noArgs }, () => [
  text('Multiple content types test:'),
  { type: 'image', data: png(8, [40, 160, 40]), mimeType: 'image/png' },
  { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
])

server.tool('test_tool_with_logging', { description: 'Sends three log messages while it runs.', inputSchema: noArgs }, async (_args, ctx) => {
  const steps = ['Tool execution started', 'Tool processing data', 'Tool execution completed']
  for (const [i, step] of steps.entries()) {
    await ctx.log('info', step, 'everything')
    if (i < steps.length - 1) await sleep(50)
  }
  return 'Tool with logging executed successfully'
})

server.tool('test_tool_with_progress', { description: 'Reports progress 0, 50 and 100 of 100.', inputSchema: noArgs }, async (_args, ctx) => {
  for (const [i, progress] of [0, 50, 100].entries()) {
    await ctx.progress(progress, 100, `Completed step ${i} of 2`)
    if (i < 2) await sleep(50)
  }
  const token = ctx.progressToken
  return `Progress test completed (${token === undefined ? 'no progress token' : `token ${JSON.stringify(token)}`})`
})

server.tool('test_error_handling', { description: 'Always fails with an isError result.', inputSchema: noArgs },
  () => ({ content: [text('This tool intentionally returns an error for testing')], isError: true }))

server.tool('test_sampling', {
  description: "Asks the client's model (sampling/createMessage).",
  inputSchema: object({ prompt: { type: 'string' } }, ['prompt']),
}, async ({ prompt }, ctx) => {
  const reply = await ctx.sample(prompt, { maxTokens: 100 })
  const blocks = Array.isArray(reply.content) ? reply.content : [reply.content]
  return `LLM response: ${blocks.filter(b => b && b.type === 'text').map(b => b.text).join(' ')}`
})

async function elicitAndReport(ctx, message, schema) {
  const answer = await ctx.elicit(message, schema)
  return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? null)}`
}

server.tool('test_elicitation', {
  description: 'Asks the user (elicitation/create).',
  inputSchema: object({ message: { type: 'string' } }, ['message']),
}, ({ message }, ctx) => elicitAndReport(ctx, message ?? 'Please provide your information', object({
  username: { type: 'string', description: "User's response" },
  email: { type: 'string', description: "User's email address" },
}, ['username', 'email'])))

server.tool('test_elicitation_sep1034_defaults', {
  description: 'Elicitation whose fields have defaults (SEP-1034).',
  inputSchema: noArgs,
}, (_args, ctx) => elicitAndReport(ctx, 'Please review and update the form fields with defaults', object({
  name: { type: 'string', default: 'John Doe' },
  age: { type: 'integer', default: 30 },
  score: { type: 'number', default: 95.5 },
  status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
  verified: { type: 'boolean', default: true },
}, [])))

server.tool('test_elicitation_sep1330_enums', {
  description: 'Elicitation with every enum form (SEP-1330).',
  inputSchema: noArgs,
}, (_args, ctx) => elicitAndReport(ctx, 'Please select options from the enum fields', object({
  untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
  titledSingle: { type: 'string', oneOf: [
    { const: 'value1', title: 'First Option' },
    { const: 'value2', title: 'Second Option' },
    { const: 'value3', title: 'Third Option' }] },
  legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
  untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
  titledMulti: { type: 'array', items: { anyOf: [
    { const: 'value1', title: 'First Choice' },
    { const: 'value2', title: 'Second Choice' },
    { const: 'value3', title: 'Third Choice' }] } },
}, [])))

server.tool('json_schema_2020_12_tool', {
  description: 'A tool whose input schema uses JSON Schema 2020-12 features.',
  // The Rust fixture's schema; the suite checks these keywords reach the listing unchanged:
  // $schema, $defs (with an $anchor), additionalProperties, allOf holding anyOf, if/then/else.
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
    properties: {
      name: { type: 'string' },
      address: { $ref: '#/$defs/address' },
      contactMethod: { type: 'string', enum: ['phone', 'email'] },
      phone: { type: 'string' },
      email: { type: 'string' },
    },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false,
  },
}, args => ({ content: [text(`Received: ${JSON.stringify(args)}`)] }))

server.tool('test_reconnection', {
  description: 'Closes its SSE stream mid-call; the client resumes it to get the answer (2025-11-25 polling).',
  inputSchema: noArgs,
}, async (_args, ctx) => {
  await sleep(50)
  ctx.endResponseStream()
  await sleep(100)
  return 'Reconnection test completed'
})

// -- tasks (the tasks extension; cli/src/task_fixtures.rs): ordinary handlers with taskSupport
server.tool('greet', { description: 'Greets (never a task).', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
  ({ name }) => `Hello, ${name ?? 'World'}!`)
server.tool('slow_compute', {
  description: 'Works for `seconds` seconds, as a task when it can.',
  taskSupport: 'optional',
  inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } } },
}, ({ seconds = 1, label = 'job' }, ctx) => new Promise((resolve, reject) => {
  const s = Math.min(seconds, 600)
  const timer = setTimeout(() => resolve(`${label}: computed in ${s} s`), s * 1000)
  ctx.signal.addEventListener('abort', () => { clearTimeout(timer); reject(ctx.signal.reason) })
}))
server.tool('failing_job', { description: 'Fails as a tool after a second (only as a task).', taskSupport: 'required', inputSchema: noArgs },
  async () => {
    await new Promise(resolve => setTimeout(resolve, 1000))
    return { content: [{ type: 'text', text: 'the job failed' }], isError: true }
  })
server.tool('protocol_error_job', { description: 'Ends with a JSON-RPC error, as a task when it can.', taskSupport: 'optional', inputSchema: noArgs },
  () => { throw new McpError(-32603, 'the job crashed') })
const confirmed = async (ctx, message) => {
  const answer = await ctx.elicit(message, { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] })
  return answer.action === 'accept' && answer.content?.confirm === true
}
server.tool('confirm_delete', {
  description: 'Asks the user to confirm before deleting `filename`.',
  taskSupport: 'optional',
  inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
}, async ({ filename }, ctx) => (await confirmed(ctx, `Delete ${filename}?`)) ? `deleted ${filename}` : `kept ${filename}`)
server.tool('test_tool_with_task', {
  description: "Asks the user's name inline, then finishes the greeting as a task.",
  taskSupport: 'required',
  escalating: true,
  inputSchema: noArgs,
}, async (_args, ctx) => {
  const answer = await ctx.elicit('What is your name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] })
  const name = answer.action === 'accept' && answer.content ? answer.content.name : 'stranger'
  await ctx.escalateToTask() // what is left is slow: the client gets a task handle now
  await new Promise(resolve => setTimeout(resolve, 300))
  return `Hello, ${name}! Your report is ready.`
})
server.tool('multi_input', { description: 'Asks two questions at once.', taskSupport: 'optional', inputSchema: noArgs }, async (_args, ctx) => {
  const [first, second] = await Promise.all([confirmed(ctx, 'First question?'), confirmed(ctx, 'Second question?')])
  return `first=${first} second=${second}`
})

// -- skills (the skills extension; cli/src/skill_fixtures.rs) --------------------------

server.skill('pdf-processing', {
  'SKILL.md': '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n' +
    '# PDF processing\n\nRead `references/FORMS.md` first; pick a template from `templates/`.\n',
  'references/FORMS.md': '# Forms\n\nFill every required field.\n',
  'templates/invoice.md': '# Invoice\n\nTotal: {total}\n',
  'templates/regional/eu-invoice.md': '# EU invoice\n\nVAT number: {vat}\n',
})
server.skill('acme/billing/refunds', {
  'SKILL.md': '---\nname: refunds\ndescription: Process customer refund requests per company policy\n---\n\n' +
    'Refund within 30 days of purchase.\n',
})

// -- resources --------------------------------------------------------------------------

server.resource('test://static-text', { name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
  () => 'This is the content of the static text resource.')

server.resource('test://static-binary', { name: 'static-binary', description: 'A static binary resource (PNG)', mimeType: 'image/png' },
  () => Buffer.from(png(4, [0, 0, 255]), 'base64'))

server.resource('test://watched-resource', { name: 'watched-resource', description: 'A resource to subscribe to', mimeType: 'text/plain' },
  () => 'Watched resource content')

server.resource('test://template/{id}/data', { name: 'template', description: 'A templated resource' },
  (_uri, { id }) => ({ mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }))

// -- prompts ----------------------------------------------------------------------------

server.prompt('test_simple_prompt', { description: 'A prompt without arguments' },
  () => 'This is a simple prompt for testing.')

server.prompt('test_prompt_with_arguments', {
  description: 'A prompt with two arguments',
  arguments: [
    { name: 'arg1', description: 'First test argument', required: true },
    { name: 'arg2', description: 'Second test argument', required: true },
  ],
}, ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)

server.prompt('test_prompt_with_embedded_resource', {
  description: 'A prompt that embeds a resource',
  arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
}, ({ resourceUri }) => [
  { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
  'Please process the embedded resource above.',
])

server.prompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => [
  { role: 'user', content: { type: 'image', data: png(8, [200, 200, 0]), mimeType: 'image/png' } },
  'Please analyze the image above.',
])

// -- completion -------------------------------------------------------------------------

server.completion((ref, argument) => {
  let candidates
  if (ref.type === 'ref/prompt' && argument.name === 'arg1') candidates = ['alpha', 'alpine', 'beta', 'gamma']
  else if (ref.type === 'ref/prompt' && argument.name === 'arg2') candidates = ['one', 'two', 'three']
  else if (ref.type === 'ref/resource' && argument.name === 'id') candidates = ['1', '2', '3', '10', '42']
  else candidates = ['paris', 'park', 'python', 'rust']
  return candidates.filter(c => c.startsWith(argument.value ?? ''))
})

// -- main -------------------------------------------------------------------------------

const ticker = setInterval(() => server.notifyResourceUpdated('test://watched-resource'), 3000)
ticker.unref() // the server, not the ticker, keeps the process alive

const at = process.argv.indexOf('--http')
if (at < 0) {
  await server.listenStdio()
} else {
  const spec = process.argv[at + 1] ?? '127.0.0.1:0'
  const colon = spec.lastIndexOf(':')
  const host = spec.slice(0, colon).replace(/^\[|\]$/g, '') || '127.0.0.1'
  const port = Number(spec.slice(colon + 1))
  const url = await server.listenHttp({
    host,
    port,
    stateless: process.argv.includes('--stateless'),
    jsonResponse: process.argv.includes('--json-response'),
    // One of several nodes behind a load balancer, sharing sessions through Redis.
    redis: process.argv.includes('--redis') ? process.argv[process.argv.indexOf('--redis') + 1] : undefined,
  })
  console.error(`listening on ${url}`)
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => server.close())
}
