// The package as a user gets it: `npm pack`, install the tarball into a fresh scratch
// project (no build there), type-check a TypeScript file with `tsc --strict`, and run it
// through both the ESM and the CommonJS entry. zod 3 (as `zod3`, an npm alias) checks
// the typings of zod 3 schemas and that the package brings its converter along.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ROOT } from './helpers.mjs'

const TS = `
import { Server, Client, McpError, AbortError, type CallToolResult, type Context } from 'oxmcp'
import { z } from 'zod'
import { z as z3 } from 'zod3'

// Fails to compile when the handler's argument is typed \`any\` (a schema not understood).
type IsAny<T> = 0 extends 1 & T ? true : false

const server = new Server({ name: 'typed', version: '1.0.0' })
server.tool('add', { description: 'Add', inputSchema: z.object({ a: z.number(), b: z.number() }) },
  async ({ a, b }, ctx: Context) => { await ctx.progress(1, 2); return String(a + b) })
server.tool('raw', { inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } }, args => ({ n: args.n }))
server.tool('half', { inputSchema: z3.object({ n: z3.number() }), outputSchema: { half: z3.number() } }, ({ n }) => {
  const typed: IsAny<typeof n> = false
  return { half: typed ? 0 : n / 2 }
})
server.prompt('shape3', { argsSchema: { topic: z3.string() }, replace: true }, ({ topic }) => {
  const typed: IsAny<typeof topic> = false
  return \`About \${topic} \${typed}\`
})
server.resource('file://notes/{name}', async (uri, { name }) => \`\${uri}: \${name}\`)
server.prompt('review', { arguments: [{ name: 'code', required: true }] }, async args => \`Review \${args.code}\`)

async function main(): Promise<void> {
  const url: string = await server.listenHttp({ host: '127.0.0.1', port: 0 })
  const client = await Client.http(url, { sampling: async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } }) })
  const tools = await client.listTools()
  const res: CallToolResult = await client.callTool('add', { a: 1, b: 2 }, { timeout: 30_000, onProgress: p => void p.progress })
  const first = res.content[0]
  const text: string = first.type === 'text' ? first.text : ''
  const half = (await client.callTool('half', { n: 5 })).structuredContent
  const halfSchema = tools.find(t => t.name === 'half')?.inputSchema
  const ac = new AbortController()
  ac.abort()
  let aborted = false
  try {
    await client.callTool('add', { a: 1, b: 2 }, { signal: ac.signal })
  } catch (err) {
    aborted = err instanceof AbortError && err instanceof McpError && err.code === null
  }
  const note = await client.readResource('file://notes/todo')
  await client.close()
  await server.close()
  console.log(JSON.stringify({ tools: tools.length, text, aborted, note: note.contents[0].text, half, halfSchema: halfSchema?.properties }))
}
main().catch((err: unknown) => { console.error(err); process.exit(1) })
`

it('packs, installs into a fresh project, type-checks with tsc --strict and runs (ESM and CJS)', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oxmcp-pack-'))
  try {
    const run = (cmd, args, cwd = dir) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    run('npm', ['pack', '--silent', '--pack-destination', dir], ROOT)
    const tarball = readdirSync(dir).find(f => /^oxmcp-.*\.tgz$/.test(f))
    assert.ok(tarball, 'npm pack made no tarball')
    const listing = run('tar', ['tzf', tarball])
    assert.match(listing, /package\/oxmcp\.linux-x64-gnu\.node/)
    assert.match(listing, /package\/index\.d\.ts/)
    const project = path.join(dir, 'project')
    execFileSync('mkdir', ['-p', project])
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true, type: 'module' }))
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error',
      path.join(dir, tarball), 'zod@4.6.7', 'zod3@npm:zod@3.25.76', 'typescript@5', '@types/node@20'], project)
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', outDir: 'dist', skipLibCheck: false, types: ['node'] },
      files: ['main.ts'],
    }))
    writeFileSync(path.join(project, 'main.ts'), TS)
    const tsc = path.join(project, 'node_modules/.bin/tsc')
    try {
      run(tsc, ['--strict', '-p', 'tsconfig.json'], project)
    } catch (err) {
      assert.fail(`tsc --strict failed:\n${err.stdout}${err.stderr}`)
    }
    const out = JSON.parse(run(process.execPath, ['dist/main.js'], project).trim())
    assert.deepEqual(out, { tools: 3, text: '3', aborted: true, note: 'file://notes/todo: todo', half: { half: 2.5 }, halfSchema: { n: { type: 'number' } } })
    // The CommonJS entry.
    writeFileSync(path.join(project, 'check.cjs'), "const { Server, Client, McpError } = require('oxmcp'); console.log(typeof Server, typeof Client, new McpError(1, 'm').code)")
    assert.equal(run(process.execPath, ['check.cjs'], project).trim(), 'function function 1')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
