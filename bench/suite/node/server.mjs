// The Node servers of the cross-SDK suite (../PROTOCOL.md): `--impl oxmcp` is the oxmcp
// Node binding, `--impl official` the official TypeScript SDK. Tools `echo` and `slow`.
//
//   node server.mjs --impl oxmcp|official (--stdio | --http PORT) [--cancel-log PATH]
import { createServer } from 'node:http'
import { randomUUID } from 'node:crypto'
import { parseArgs, logCancel } from './common.mjs'

const { flags } = parseArgs(process.argv.slice(2))
const cancelLog = flags['cancel-log']

function waitForCancel(signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('done'), 60_000)
    const seen = () => { clearTimeout(timer); logCancel(cancelLog); resolve('cancelled') }
    if (signal.aborted) seen()
    else signal.addEventListener('abort', seen, { once: true })
  })
}

async function oxmcp() {
  const { Server } = await import('oxmcp')
  const server = new Server({ name: 'bench-oxmcp-node', version: '0.1.0' })
  server.tool('echo', {
    description: 'Echo the text back.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  }, async ({ text }) => text)
  server.tool('slow', { description: 'Wait until cancelled.', inputSchema: { type: 'object' } },
    async (_args, ctx) => waitForCancel(ctx.signal))
  if (flags.stdio) await server.listenStdio()
  else {
    await server.listenHttp({ host: '127.0.0.1', port: Number(flags.http) })
    const stop = () => server.close().then(() => process.exit(0))
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
  }
}

async function official() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js')
  const { z } = await import('zod')
  const build = () => {
    const server = new McpServer({ name: 'bench-official-node', version: '0.1.0' })
    server.registerTool('echo', { description: 'Echo the text back.', inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: 'text', text }] }))
    server.registerTool('slow', { description: 'Wait until cancelled.', inputSchema: {} },
      async (_args, extra) => ({ content: [{ type: 'text', text: await waitForCancel(extra.signal) }] }))
    return server
  }
  if (flags.stdio) {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js')
    await build().connect(new StdioServerTransport())
    return
  }
  // Stateful Streamable HTTP: one transport and one McpServer per session, as the SDK's
  // own examples do.
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js')
  const sessions = new Map()
  const http = createServer(async (req, res) => {
    if (!req.url.startsWith('/mcp')) { res.writeHead(404).end(); return }
    const id = req.headers['mcp-session-id']
    let transport = id && sessions.get(id)
    if (!transport) {
      if (id) { res.writeHead(404).end(); return }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      })
      transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId) }
      await build().connect(transport)
    }
    await transport.handleRequest(req, res)
  })
  http.listen(Number(flags.http), '127.0.0.1')
  const stop = () => { http.close(); process.exit(0) }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

await (flags.impl === 'oxmcp' ? oxmcp() : official())
