// The benchmark's oxmcp Node server: one `echo` tool with a JavaScript handler. stdio by
// default; `--http` serves Streamable HTTP and prints `listening on URL` to stderr.
import { Server } from 'oxmcp'

const server = new Server({ name: 'bench-oxmcp-node', version: '1.0.0' })
server.tool('echo', {
  description: 'Returns its text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
}, ({ text }) => text)
if (process.argv.includes('--http')) {
  console.error(`listening on ${await server.listenHttp({ port: 0 })}`)
  process.once('SIGTERM', () => server.close())
} else {
  await server.listenStdio()
}
