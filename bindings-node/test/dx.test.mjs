// What a Node developer runs into besides the calls themselves: a handler changing what the
// server offers (clients are told the lists changed), a child server's stderr (forwarded
// to this process's stderr as it comes, or discarded).
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { ROOT, within } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { Client, Server } = require('../index.cjs')

for (const era of ['session', 'stateless']) {
  it(`a handler that changes the tools and prompts tells the clients (era ${era})`, async () => {
    const server = new Server({ name: 'changing', version: '1' })
    server.tool('old', () => 'old')
    server.prompt('hello', () => 'hi')
    server.tool('rearrange', () => {
      server.removeTool('old')
      server.tool('new', () => 'new')
      server.removePrompt('hello')
      return 'done'
    })
    const methods = []
    const client = await Client.inMemory(server, { era, onNotification: ({ method }) => methods.push(method) })
    try {
      assert.equal((await client.callTool('rearrange')).content[0].text, 'done')
      await within(10_000, 'the list changes', (async () => {
        while (!(methods.includes('notifications/tools/list_changed') && methods.includes('notifications/prompts/list_changed'))) {
          await new Promise(r => setTimeout(r, 20))
        }
      })())
      assert.deepEqual((await client.listTools()).map(t => t.name).sort(), ['new', 'rearrange'])
      assert.deepEqual(await client.listPrompts(), [])
    } finally {
      await client.close()
      await server.close()
    }
  })
}

/** Runs a client of a stdio server that writes a line on its stderr, with `stderr` given
 *  (or not): what the client's process wrote on its stderr. */
async function clientStderr(dir, mode) {
  const child = spawn(process.execPath, [path.join(dir, 'client.mjs'), mode], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', d => { out += d })
  child.stderr.setEncoding('utf8').on('data', d => { err += d })
  const exited = new Promise(resolve => child.on('exit', resolve))
  try {
    await within(20_000, `the client (${mode}) called its tool`, (async () => {
      while (!out.includes('done')) await new Promise(r => setTimeout(r, 20))
    })())
    if (mode === 'discard') {
      await new Promise(r => setTimeout(r, 500)) // time enough for a forwarded line to show
    } else {
      // While the client and its server are still running, not only after the server died.
      await within(20_000, `the server's line on the client's stderr (${mode})`, (async () => {
        while (!err.includes('the server says')) await new Promise(r => setTimeout(r, 20))
      })())
    }
    child.stdin.end()
    assert.equal(await within(20_000, 'the client exits', exited), 0, err)
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
  }
  return err
}

it("a child server's stderr reaches this process's stderr as it comes, unless discarded", { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmcp-stderr-'))
  try {
    const index = JSON.stringify(path.join(ROOT, 'index.mjs'))
    writeFileSync(path.join(dir, 'server.mjs'), `import { Server } from ${index}
const server = new Server({ name: 'talkative', version: '1' })
server.tool('work', () => { console.error('the server says: working'); return 'done' })
await server.listenStdio()
`)
    writeFileSync(path.join(dir, 'client.mjs'), `import { Client } from ${index}
const options = process.argv[2] === 'default' ? {} : { stderr: process.argv[2] }
const client = await Client.stdio(process.execPath, ['server.mjs'], options)
console.log((await client.callTool('work')).content[0].text)
process.stdin.resume()
await new Promise(resolve => process.stdin.on('end', resolve))
await client.close()
`)
    assert.match(await clientStderr(dir, 'default'), /the server says: working/)
    assert.match(await clientStderr(dir, 'forward'), /the server says: working/)
    assert.doesNotMatch(await clientStderr(dir, 'discard'), /the server says/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
