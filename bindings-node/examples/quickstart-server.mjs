// Quickstart: a server with one zod tool, served over stdio.
import { Server } from 'oxmcp'
import { z } from 'zod'

const server = new Server({ name: 'demo', version: '1.0.0' })
server.tool('add', { description: 'Add two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
  async ({ a, b }, ctx) => {
    await ctx.progress(50, 100)
    return String(a + b)
  })
server.resource('file://notes/{name}', { description: 'A note' }, async (uri, { name }) => `Note ${name}`)
server.prompt('review', { arguments: [{ name: 'code', required: true }] }, ({ code }) => `Please review:\n${code}`)
await server.listenStdio() // or: console.error(await server.listenHttp({ host: '127.0.0.1', port: 8000 }))
