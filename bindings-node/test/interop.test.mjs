// Interop with the official TypeScript SDK (@modelcontextprotocol/sdk), both directions,
// over stdio and Streamable HTTP: its Client against the oxmcp Node test server, and the
// oxmcp Node Client against a server written with its McpServer.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client, McpError, AbortError } from 'oxmcp'
import { fixture, startHttpServer, sleep } from './helpers.mjs'

function sdkClientSuite(name, makeTransport) {
  describe(`official SDK client -> oxmcp Node server (${name})`, () => {
    let client
    const logs = []
    before(async () => {
      client = new SdkClient({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: {} } })
      client.setRequestHandler(CreateMessageRequestSchema, async req => ({
        role: 'assistant', model: 'm', content: { type: 'text', text: `sdk echo ${req.params.messages[0].content.text}` },
      }))
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Grace' } }))
      client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///sdk' }] }))
      client.setNotificationHandler(LoggingMessageNotificationSchema, n => logs.push(n.params))
      await client.connect(await makeTransport())
    })
    after(async () => { await client?.close() })

    it('initializes and lists tools', async () => {
      assert.equal(client.getServerVersion().name, 'demo')
      const { tools } = await client.listTools()
      assert.ok(tools.some(t => t.name === 'add' && t.inputSchema.properties.a.type === 'number'))
    })

    it('calls a tool with progress', async () => {
      const seen = []
      const r = await client.callTool({ name: 'steps', arguments: {} }, undefined, { onprogress: p => seen.push(p) })
      assert.equal(r.content[0].text, 'stepped')
      assert.deepEqual(seen.map(p => [p.progress, p.total, p.message]), [[1, 2, 'step 1'], [2, 2, 'step 2']])
      assert.equal((await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).content[0].text, '42')
    })

    it('gets isError for invalid arguments and a throwing handler, and JSON-RPC errors', async () => {
      assert.equal((await client.callTool({ name: 'add', arguments: { a: 'x', b: 1 } })).isError, true)
      const boom = await client.callTool({ name: 'boom', arguments: {} })
      assert.equal(boom.isError, true)
      assert.equal(boom.content[0].text, 'kaboom')
      await assert.rejects(client.callTool({ name: 'rpc', arguments: {} }), err => err.code === -32001)
    })

    it('cancels: the AbortSignal reaches the JS handler', async () => {
      const ac = new AbortController()
      const call = client.callTool({ name: 'slow', arguments: { ms: 10_000 } }, undefined, { signal: ac.signal })
      await sleep(100)
      ac.abort('stop')
      await assert.rejects(call)
      for (let i = 0; i < 100 && !logs.some(l => l.data === 'slow cancelled'); i++) await sleep(20)
      assert.ok(logs.some(l => l.data === 'slow cancelled'))
    })

    it('answers the server handler sampling, elicitation and roots requests', async () => {
      assert.equal((await client.callTool({ name: 'sample', arguments: { q: 'yo' } })).content[0].text, 'model said: sdk echo yo')
      assert.equal((await client.callTool({ name: 'ask', arguments: {} })).content[0].text, 'hello Grace')
      assert.equal((await client.callTool({ name: 'roots', arguments: {} })).content[0].text, 'file:///sdk')
    })

    it('reads resources and prompts', async () => {
      const r = await client.readResource({ uri: 'notes://x' })
      assert.equal(r.contents[0].text, 'note x at notes://x')
      const p = await client.getPrompt({ name: 'review', arguments: { code: 'y' } })
      assert.equal(p.messages[0].content.text, 'Please review: y')
    })
  })
}

sdkClientSuite('stdio', async () => new StdioClientTransport({ command: process.execPath, args: [fixture('demo-server.mjs')] }))

describe('HTTP server process', () => {
  let server
  before(async () => { server = await startHttpServer(fixture('demo-server.mjs')) })
  after(async () => { await server?.stop() })
  sdkClientSuite('Streamable HTTP', async () => new StreamableHTTPClientTransport(new URL(server.url)))
})

function oxmcpClientSuite(name, connect) {
  describe(`oxmcp Node client -> official SDK server (${name})`, () => {
    let client
    const logs = []
    before(async () => {
      client = await connect({
        sampling: async p => ({ role: 'assistant', model: 'm', content: { type: 'text', text: `ox ${p.messages[0].content.text}` } }),
        elicitation: async () => ({ action: 'accept', content: { name: 'Linus' } }),
      })
      client.on('notifications/message', p => logs.push(p))
    })
    after(async () => { await client?.close() })

    it('initializes and lists', async () => {
      assert.equal(client.serverInfo.name, 'sdk-server')
      assert.deepEqual((await client.listTools()).map(t => t.name).sort(), ['add', 'ask_model', 'ask_user', 'slow'])
      assert.deepEqual((await client.listResources()).map(r => r.uri), ['memo://note'])
      assert.deepEqual((await client.listPrompts()).map(p => p.name), ['greet'])
    })

    it('calls a tool with progress', async () => {
      const seen = []
      const r = await client.callTool('add', { a: 1, b: 2 }, { onProgress: p => seen.push(p) })
      assert.equal(r.content[0].text, '3')
      assert.deepEqual(seen.map(p => [p.progress, p.total]), [[1, 2]])
    })

    it('reads a resource and gets a prompt', async () => {
      assert.equal((await client.readResource('memo://note')).contents[0].text, 'a note')
      assert.equal((await client.getPrompt('greet', { who: 'you' })).messages[0].content.text, 'Hello you')
      await assert.rejects(client.getPrompt('nope'), McpError)
    })

    it('aborts a call: the SDK handler sees the cancel', async () => {
      const ac = new AbortController()
      const call = client.callTool('slow', { ms: 10_000 }, { signal: ac.signal })
      await sleep(150)
      ac.abort()
      await assert.rejects(call, AbortError)
      for (let i = 0; i < 100 && !logs.some(l => l.data === 'slow cancelled'); i++) await sleep(20)
      assert.ok(logs.some(l => l.data === 'slow cancelled'))
    })

    it('answers the SDK server sampling and elicitation', async () => {
      assert.equal((await client.callTool('ask_model', { q: 'hey' })).content[0].text, 'model: ox hey')
      assert.equal((await client.callTool('ask_user', {})).content[0].text, 'accept:Linus')
    })
  })
}

oxmcpClientSuite('stdio', handlers => Client.stdio(process.execPath, [fixture('sdk-server.mjs')], handlers))

describe('SDK HTTP server process', () => {
  let server
  before(async () => { server = await startHttpServer(fixture('sdk-server.mjs')) })
  after(async () => { await server?.stop() })
  oxmcpClientSuite('Streamable HTTP', handlers => Client.http(server.url, handlers))
})
