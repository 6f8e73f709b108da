// The quickstart through the CommonJS entry: a server on Streamable HTTP and a client in
// one process.
const { Server, Client } = require('oxmcp')
const { z } = require('zod')

async function main() {
  const server = new Server({ name: 'demo', version: '1.0.0' })
  server.tool('add', { description: 'Add two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => String(a + b))
  server.resource('file://notes/{name}', { description: 'A note' }, async (uri, { name }) => `Note ${name}`)
  const url = await server.listenHttp({ host: '127.0.0.1', port: 0 })
  const client = await Client.http(url)
  console.log('add ->', (await client.callTool('add', { a: 2, b: 3 })).content[0].text)
  console.log('note ->', (await client.readResource('file://notes/cjs')).contents[0].text)
  console.log('era:', client.era)
  await client.close()
  await server.close()
}
main().catch(err => { console.error(err); process.exit(1) })
