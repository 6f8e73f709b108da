// The benchmark's official TypeScript SDK server: the same `echo` tool on McpServer.
// stdio by default; `--http` serves Streamable HTTP (a transport per session).
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'

function build() {
  const server = new McpServer({ name: 'bench-official', version: '1.0.0' })
  server.registerTool('echo', { description: 'Returns its text.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }))
  return server
}

if (process.argv.includes('--http')) {
  const transports = new Map()
  const httpServer = http.createServer(async (req, res) => {
    const chunks = []
    for await (const c of req) chunks.push(c)
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined
    const sid = req.headers['mcp-session-id']
    let transport = sid ? transports.get(sid) : undefined
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: id => transports.set(id, transport) })
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId)
      await build().connect(transport)
    }
    await transport.handleRequest(req, res, body)
  })
  httpServer.listen(0, '127.0.0.1', () => console.error(`listening on http://127.0.0.1:${httpServer.address().port}/mcp`))
  process.once('SIGTERM', () => { httpServer.closeAllConnections(); httpServer.close() })
} else {
  await build().connect(new StdioServerTransport())
}
