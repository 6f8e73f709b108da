// The Node client drivers of the cross-SDK suite (../PROTOCOL.md): `--impl oxmcp` is the
// oxmcp Node client, `--impl official` the official TypeScript SDK client. Prints one line
// of JSON.
//
//   node driver.mjs --impl oxmcp --workload seq --n 2000 -- SERVER_CMD ARG...
//   node driver.mjs --impl official --workload conc --n 5000 --k 64 --url http://127.0.0.1:PORT/mcp
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs, monotonicNs } from './common.mjs'

const { flags, rest } = parseArgs(process.argv.slice(2))
const n = Number(flags.n ?? 1000)
const k = Number(flags.k ?? 64)
const warmup = Number(flags.warmup ?? 100)
const payloadBytes = Number(flags.payload ?? 100)
if (!flags.url && rest.length === 0) throw new Error('give --url URL or -- SERVER_CMD ARG...')

const TAG = 10
const basePayload = (len) => Array.from({ length: len }, (_, i) => String.fromCharCode(97 + (i % 26))).join('')
const payloadFor = (base, i) => (base.length >= TAG ? String(i % 10 ** TAG).padStart(TAG, '0') + base.slice(TAG) : base)

// Each side: call(name, args, signal) -> { isError, text }.
async function oxmcpSide() {
  const { Client } = await import('oxmcp')
  const client = flags.url ? await Client.http(flags.url) : await Client.stdio(rest[0], rest.slice(1))
  return {
    call: async (name, args, signal) => {
      const r = await client.callTool(name, args, signal ? { signal } : undefined)
      return { isError: !!r.isError, text: r.content?.[0]?.text }
    },
    close: () => client.close(),
  }
}

async function officialSide() {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const client = new Client({ name: 'bench-official-node-driver', version: '0.1.0' })
  let transport
  if (flags.url) {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
    transport = new StreamableHTTPClientTransport(new URL(flags.url))
  } else {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
    transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: 'inherit' })
  }
  await client.connect(transport)
  return {
    call: async (name, args, signal) => {
      const r = await client.callTool({ name, arguments: args }, undefined, signal ? { signal } : undefined)
      return { isError: !!r.isError, text: r.content?.[0]?.text }
    },
    close: () => client.close(),
  }
}

async function echo(side, base, i) {
  const text = payloadFor(base, i)
  const r = await side.call('echo', { text })
  if (r.isError || r.text !== text) throw new Error(`echo call ${i}: wrong reply`)
}

const cancelLines = (path) => {
  try { return readFileSync(path, 'utf8').split('\n').filter(Boolean).map(BigInt) } catch { return [] }
}

async function cancelLatencies(side, count, log) {
  const out = []
  for (let c = 0; c < count; c++) {
    const before = cancelLines(log).length
    const abort = new AbortController()
    const call = side.call('slow', {}, abort.signal).then(() => 'returned', () => 'rejected')
    await sleep(50)
    const t0 = monotonicNs()
    abort.abort()
    if ((await call) === 'returned') throw new Error('slow returned instead of being cancelled')
    // Looked at 5 ms later: polling meanwhile would take a core from the server.
    await sleep(5)
    const deadline = Date.now() + 5000
    let lines
    while ((lines = cancelLines(log)).length <= before) {
      if (Date.now() > deadline) throw new Error('the server never logged the cancellation')
      await sleep(1)
    }
    out.push(Number(lines[before] - t0) / 1e3)
  }
  return out
}

const side = flags.impl === 'oxmcp' ? await oxmcpSide() : await officialSide()
const small = basePayload(100)
for (let i = 0; i < warmup; i++) await echo(side, small, i)
const base = basePayload(payloadBytes)
let result
if (flags.workload === 'seq' || flags.workload === 'large') {
  const lat = []
  const start = performance.now()
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await echo(side, base, i)
    lat.push(performance.now() - t)
  }
  const secs = (performance.now() - start) / 1e3
  lat.sort((a, b) => a - b)
  result = flags.workload === 'large'
    ? { calls: n, median_ms: lat[Math.floor(lat.length / 2)] }
    : { calls: n, seconds: secs, calls_per_s: n / secs }
} else if (flags.workload === 'conc') {
  let next = 0
  const worker = async () => { while (next < n) await echo(side, base, next++) }
  const start = performance.now()
  await Promise.all(Array.from({ length: Math.min(k, n) }, worker))
  const secs = (performance.now() - start) / 1e3
  result = { calls: n, seconds: secs, calls_per_s: n / secs }
} else if (flags.workload === 'cancel') {
  if (!flags['cancel-log']) throw new Error('cancel: --cancel-log is required')
  result = { cancel_us: await cancelLatencies(side, n, flags['cancel-log']) }
} else {
  throw new Error(`unknown workload ${flags.workload}`)
}
await side.close()
process.stdout.write(JSON.stringify(result) + '\n')
process.exit(0)
