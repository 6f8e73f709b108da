// The package as a user gets it: `npm pack`, install the tarball into a fresh scratch
// project (no build there), type-check a TypeScript file with `tsc --strict`, and run it
// through both the ESM and the CommonJS entry. zod 3 (as `zod3`, an npm alias) checks
// the typings of zod 3 schemas and that the package brings its converter along; Valibot and
// ArkType, that a Standard Schema types the handler's arguments. A file of typical mistakes must fail to compile at exactly the lines that make them.
import { after, before, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ROOT } from './helpers.mjs'

const TS = `
import { Server, Client, McpError, AbortError, type CallToolResult, type Context, type HttpHandler } from 'oxmcp'
import { z } from 'zod'
import { z as z3 } from 'zod3'
import * as v from 'valibot'
import { type } from 'arktype'

// Fails to compile when the handler's argument is typed \`any\` (a schema not understood).
type IsAny<T> = 0 extends 1 & T ? true : false

let closed = false
const server = new Server({ name: 'typed', version: '1.0.0' }, {
  maskErrors: false,
  onError: (err, { kind, name }) => console.error(kind, name, err),
  lifespan: async () => ({ value: { greeting: 'hello' }, close: () => { closed = true } }),
})
server.tool('greet', (_args, ctx) => \`\${ctx.lifespan.greeting} \${ctx.clientInfo?.name}\`)
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
// Standard Schema validators: the handler's args are typed as each one's output.
server.tool('repeat', { inputSchema: v.object({ word: v.string(), times: v.optional(v.number(), 2) }) }, ({ word, times }) => {
  const n: number = times
  return word.repeat(n)
})
server.tool('double', { inputSchema: type({ n: 'string.integer.parse' }) }, ({ n }) => {
  const typed: IsAny<typeof n> = false
  return String(typed ? 0 : n * 2)
})
const mcp: HttpHandler = server.httpHandler({ stateless: true, allowedHosts: ['localhost'] })
const answer: Promise<Response> = mcp.fetch(new Request('http://localhost/mcp', { method: 'DELETE' }))
void answer
server.resource('file://notes/{name}', async (uri, { name }) => \`\${uri}: \${name}\`)
server.resource('file://{dir}/{file}{?rev}', { annotations: { audience: ['user'] } }, (uri, { dir, file, rev }) => [dir, file, rev].join('/'))
server.prompt('review', { arguments: [{ name: 'code', required: true }] }, async args => \`Review \${args.code}\`)

async function main(): Promise<void> {
  const url: string = await server.listenHttp({ host: '127.0.0.1', port: 0 })
  const client = await Client.http(url, { name: 'scratch', sampling: async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } }) })
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
  const standard = [(await client.callTool('repeat', { word: 'ab' })).content[0], (await client.callTool('double', { n: '21' })).content[0]]
    .map(c => (c.type === 'text' ? c.text : ''))
  const greet = (await client.callTool('greet')).content[0]
  const greeting = greet.type === 'text' ? greet.text : ''
  await client.close()
  await server.close()
  console.log(JSON.stringify({ tools: tools.length, text, aborted, note: note.contents[0].text, half, halfSchema: halfSchema?.properties, standard, greeting, closed }))
}
main().catch((err: unknown) => { console.error(err); process.exit(1) })
`

// Each line marked `// error` must be a type error, and no other line may be one.
const WRONG = `
import { Server, Client } from 'oxmcp'
import { z } from 'zod'
import * as v from 'valibot'

const server = new Server({ name: 'wrong', version: '1.0.0' }, {
  maskErrors: 'yes', // error: a boolean
  lifespan: async () => ({ value: { db: { query: (sql: string) => sql.length } } }),
})
server.tool('shout', { inputSchema: z.object({ n: z.number() }) }, ({ n }) => n.toUpperCase()) // error: n is a number
server.tool('count', { inputSchema: v.object({ s: v.string() }) }, ({ s }) => s.toFixed(1)) // error: s is a string
server.tool('look', { annotations: { readonlyHint: true } }, () => 'ok') // error: readOnlyHint
server.tool('query', async (_args, ctx) => {
  await ctx.log('verbose', 'starting') // error: not a logging level
  await ctx.sample('hi', { maxToken: 5 }) // error: maxTokens
  await ctx.elicit('name?', { name: z.string() }, { mdoe: 'form' }) // error: mode
  return String(ctx.lifespan.db.qurey('select 1')) // error: query, of the lifespan's type
})
server.resource('file://notes/{name}', async (_uri, { nmae }) => 'note ' + nmae) // error: the template's variable is name

async function main(): Promise<void> {
  await server.listenHttp({ prot: 8080 }) // error: port
  server.httpHandler({ port: 8080 }) // error: the framework listens
  const client = await Client.stdio('node', ['server.js'], { cwdir: '/tmp' }) // error: cwd
  await Client.stdio('node', ['server.js'], { stderr: 'inherit' }) // error: 'forward' or 'discard'
  await client.calTool('shout', { n: 1 }) // error: callTool
  await client.callTool('shout', { n: 1 }, { timeot: 1000 }) // error: timeout
  await client.complete({ type: 'ref/prompt', uri: 'file://x' }, { name: 'a', value: 'b' }) // error: a prompt is named
}
void main
`

// One scratch project for both tests: packing and installing is the slow part.
let dir, project, tsc
const run = (cmd, args, cwd = dir) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'oxmcp-pack-'))
  project = path.join(dir, 'project')
  tsc = path.join(project, 'node_modules/.bin/tsc')
})
after(() => rmSync(dir, { recursive: true, force: true }))

it('packs, installs into a fresh project, type-checks with tsc --strict and runs (ESM and CJS)', { timeout: 300_000 }, () => {
  run('npm', ['pack', '--silent', '--pack-destination', dir], ROOT)
  const tarball = readdirSync(dir).find(f => /^oxmcp-.*\.tgz$/.test(f))
  assert.ok(tarball, 'npm pack made no tarball')
  const listing = run('tar', ['tzf', tarball])
  assert.match(listing, /package\/oxmcp\.linux-x64-gnu\.node/)
  assert.match(listing, /package\/index\.d\.ts/)
  execFileSync('mkdir', ['-p', project])
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true, type: 'module' }))
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error',
    path.join(dir, tarball), 'zod@4.6.7', 'zod3@npm:zod@3.25.76', 'valibot@1.5.0', '@valibot/to-json-schema@1.8.0', 'arktype@2.2.10', 'typescript@5', '@types/node@20'], project)
  writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', outDir: 'dist', skipLibCheck: false, types: ['node'] },
    files: ['main.ts'],
  }))
  writeFileSync(path.join(project, 'main.ts'), TS)
  try {
    run(tsc, ['--strict', '-p', 'tsconfig.json'], project)
  } catch (err) {
    assert.fail(`tsc --strict failed:\n${err.stdout}${err.stderr}`)
  }
  const out = JSON.parse(run(process.execPath, ['dist/main.js'], project).trim())
  assert.deepEqual(out, {
    tools: 6, text: '3', aborted: true, note: 'file://notes/todo: todo', half: { half: 2.5 }, halfSchema: { n: { type: 'number' } },
    standard: ['abab', '42'], greeting: 'hello scratch', closed: true,
  })
  // The CommonJS entry.
  writeFileSync(path.join(project, 'check.cjs'), "const { Server, Client, McpError } = require('oxmcp'); console.log(typeof Server, typeof Client, new McpError(1, 'm').code)")
  assert.equal(run(process.execPath, ['check.cjs'], project).trim(), 'function function 1')
})

it('tsc --strict reports each typical mistake at its line, and nothing else', { timeout: 120_000 }, t => {
  // The project of the test above, or nothing to check against.
  if (!existsSync(tsc)) return t.skip('the scratch project was not installed')
  writeFileSync(path.join(project, 'wrong.ts'), WRONG)
  writeFileSync(path.join(project, 'tsconfig.wrong.json'), JSON.stringify({
    compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', noEmit: true, skipLibCheck: false, types: ['node'] },
    files: ['wrong.ts'],
  }))
  let output = ''
  try {
    run(tsc, ['--strict', '--pretty', 'false', '-p', 'tsconfig.wrong.json'], project)
    assert.fail('tsc accepted every mistake')
  } catch (err) {
    if (err.code === 'ERR_ASSERTION') throw err
    output = `${err.stdout}${err.stderr}`
  }
  const expected = WRONG.split('\n').flatMap((line, i) => (line.includes('// error') ? [i + 1] : []))
  const reported = [...output.matchAll(/^wrong\.ts\((\d+),\d+\): error TS\d+/gm)].map(m => Number(m[1]))
  assert.equal(expected.length, 16)
  assert.deepEqual(reported, expected, output)
})
