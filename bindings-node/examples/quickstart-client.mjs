// Quickstart: start the quickstart server as a child process and call it.
import { fileURLToPath } from 'node:url'
import { Client, AbortError } from 'oxmcp'

// fileURLToPath, not the URL's pathname: on Windows that is /C:/..., which node cannot open.
const client = await Client.stdio('node', [fileURLToPath(new URL('./quickstart-server.mjs', import.meta.url))])
console.log('tools:', (await client.listTools()).map(t => t.name))
const result = await client.callTool('add', { a: 1, b: 2 }, { timeout: 30_000, onProgress: p => console.log('progress', p.progress) })
console.log('add ->', result.content[0].text)
console.log('note ->', (await client.readResource('file://notes/todo')).contents[0].text)
const ac = new AbortController()
ac.abort()
await client.callTool('add', { a: 1, b: 2 }, { signal: ac.signal }).catch(e => console.log('aborted:', e instanceof AbortError))
await client.close()
