// oxmcp Node (client and server, JS handlers) against the official TypeScript SDK (client
// and server), in the same run with interleaved rounds: stdio sequential and 64 in
// flight, Streamable HTTP sequential and 64 in flight, and server memory with 100 HTTP
// sessions. Prints each round, then medians and ratios. `node bench.mjs --help`.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client as OxClient, version as oxVersion } from 'oxmcp'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : dflt
}
if (process.argv.includes('--help')) {
  console.log('node bench.mjs [--rounds 5] [--calls 3000] [--http-calls 1500] [--inflight 64] [--sessions 100]')
  process.exit(0)
}
const ROUNDS = arg('rounds', 5), CALLS = arg('calls', 3000), HTTP_CALLS = arg('http-calls', 1500)
const K = arg('inflight', 64), SESSIONS = arg('sessions', 100)
const PAYLOAD = 'x'.repeat(64)

const SERVERS = { oxmcp: path.join(HERE, 'oxmcp_server.mjs'), official: path.join(HERE, 'official_server.mjs') }

function startHttp(script) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, '--http'], { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.setEncoding('utf8').on('data', d => {
      err += d
      const m = err.match(/listening on (\S+)/)
      if (m) resolve({ url: m[1], child })
    })
    child.on('exit', code => reject(new Error(`server exited ${code}: ${err}`)))
  })
}

function stop(child) {
  return new Promise(resolve => {
    if (child.exitCode !== null) return resolve()
    const t = setTimeout(() => child.kill('SIGKILL'), 3000)
    child.once('exit', () => { clearTimeout(t); resolve() })
    child.kill('SIGTERM')
  })
}

const rssKb = pid => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1])

/** `echo(text) -> text` and `close()` for each implementation's client. */
async function connect(impl, transport, url) {
  if (impl === 'oxmcp') {
    const c = transport === 'stdio' ? await OxClient.stdio(process.execPath, [SERVERS.oxmcp]) : await OxClient.http(url)
    return { echo: async t => (await c.callTool('echo', { text: t })).content[0].text, close: () => c.close() }
  }
  const c = new SdkClient({ name: 'bench', version: '1.0.0' })
  await c.connect(transport === 'stdio'
    ? new StdioClientTransport({ command: process.execPath, args: [SERVERS.official] })
    : new StreamableHTTPClientTransport(new URL(url)))
  return { echo: async t => (await c.callTool({ name: 'echo', arguments: { text: t } })).content[0].text, close: () => c.close() }
}

async function checked(client, i) {
  const text = `${PAYLOAD}${i}`
  if ((await client.echo(text)) !== text) throw new Error('wrong echo')
}

async function sequential(client, n) {
  const t = performance.now()
  for (let i = 0; i < n; i++) await checked(client, i)
  return n / ((performance.now() - t) / 1000)
}

async function inFlight(client, n, k) {
  let next = 0
  const t = performance.now()
  await Promise.all(Array.from({ length: k }, async () => { while (next < n) await checked(client, next++) }))
  return n / ((performance.now() - t) / 1000)
}

async function throughput(impl, transport, url, n) {
  const client = await connect(impl, transport, url)
  try {
    await sequential(client, Math.min(200, n)) // warm-up
    return { seq: await sequential(client, n), conc: await inFlight(client, n, K) }
  } finally {
    await client.close()
  }
}

async function memory(impl) {
  const { url, child } = await startHttp(SERVERS[impl])
  try {
    const warm = await connect(impl, 'http', url)
    await sequential(warm, 50)
    await warm.close()
    await new Promise(r => setTimeout(r, 300))
    const base = rssKb(child.pid)
    const clients = []
    for (let i = 0; i < SESSIONS; i++) {
      const c = await connect(impl, 'http', url)
      await checked(c, i)
      clients.push(c)
    }
    await new Promise(r => setTimeout(r, 300))
    const loaded = rssKb(child.pid)
    await Promise.all(clients.map(c => c.close()))
    return { baseMb: base / 1024, perSessionKb: (loaded - base) / SESSIONS }
  } finally {
    await stop(child)
  }
}

const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = x => x.toLocaleString('en-US', { maximumFractionDigits: x < 100 ? 1 : 0 })

console.log(`node ${process.version}; oxmcp ${oxVersion}; official SDK @modelcontextprotocol/sdk ` +
  `${JSON.parse(readFileSync(path.join(HERE, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')).version}; ` +
  `${ROUNDS} rounds; ${CALLS} stdio / ${HTTP_CALLS} HTTP calls per workload; ${K} in flight; ${SESSIONS} sessions`)
const results = { oxmcp: [], official: [] }
console.log(`\n${'round'.padStart(5)} ${'impl'.padEnd(9)} ${'stdio seq/s'.padStart(12)} ${`stdio ${K}/s`.padStart(12)} ` +
  `${'http seq/s'.padStart(12)} ${`http ${K}/s`.padStart(12)} ${'base MB'.padStart(8)} ${'KB/session'.padStart(11)}`)
for (let r = 1; r <= ROUNDS; r++) {
  for (const impl of r % 2 ? ['oxmcp', 'official'] : ['official', 'oxmcp']) {
    const stdio = await throughput(impl, 'stdio', null, CALLS)
    const server = await startHttp(SERVERS[impl])
    let http
    try {
      http = await throughput(impl, 'http', server.url, HTTP_CALLS)
    } finally {
      await stop(server.child)
    }
    const mem = await memory(impl)
    const row = { stdioSeq: stdio.seq, stdioConc: stdio.conc, httpSeq: http.seq, httpConc: http.conc, ...mem }
    results[impl].push(row)
    console.log(`${String(r).padStart(5)} ${impl.padEnd(9)} ${fmt(row.stdioSeq).padStart(12)} ${fmt(row.stdioConc).padStart(12)} ` +
      `${fmt(row.httpSeq).padStart(12)} ${fmt(row.httpConc).padStart(12)} ${fmt(row.baseMb).padStart(8)} ${fmt(row.perSessionKb).padStart(11)}`)
  }
}

console.log(`\nsummary: medians over ${ROUNDS} rounds`)
console.log(`${'workload'.padEnd(26)} ${'oxmcp'.padStart(10)} ${'official'.padStart(10)} ${'ratio'.padStart(8)}   goal`)
const rows = [
  ['stdio sequential calls/s', 'stdioSeq', 3, true],
  [`stdio ${K} in flight calls/s`, 'stdioConc', 3, true],
  ['HTTP sequential calls/s', 'httpSeq', 5, true],
  [`HTTP ${K} in flight calls/s`, 'httpConc', 5, true],
  ['server base memory MB', 'baseMb', null, false],
  ['server KB per session', 'perSessionKb', 5, false],
]
for (const [label, key, goal, higher] of rows) {
  const ox = median(results.oxmcp.map(x => x[key])), off = median(results.official.map(x => x[key]))
  const ratio = higher ? ox / off : off / Math.max(ox, 0.001)
  const verdict = goal === null ? '' : `${higher ? '' : '1/'}${goal}x: ${ratio >= goal ? 'met' : 'NOT met'}`
  console.log(`${label.padEnd(26)} ${fmt(ox).padStart(10)} ${fmt(off).padStart(10)} ${(fmt(ratio) + 'x').padStart(8)}   ${verdict}`)
}
