// Quickstart: start the quickstart server as a child process and call it.
import { Client, AbortError } from 'oxmcp'

const client = await Client.stdio('node', [new URL('./quickstart-server.mjs', import.meta.url).pathname])
console.log('tools:', (await client.listTools()).map(t => t.name))
const result = await client.callTool('add', { a: 1, b: 2 }, { timeout: 30_000, onProgress: p => console.log('progress', p.progress) })
console.log('add ->', result.content[0].text)
console.log('note ->', (await client.readResource('file://notes/todo')).contents[0].text)
const ac = new AbortController()
ac.abort()
await client.callTool('add', { a: 1, b: 2 }, { signal: ac.signal }).catch(e => console.log('aborted:', e instanceof AbortError))
await client.close()
