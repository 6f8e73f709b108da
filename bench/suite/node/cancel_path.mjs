// How long the oxmcp Node client's own cancel path takes, cold and warm: `abort()` on a
// call's AbortSignal runs it all synchronously (the JS listener, the engine, the write of
// `notifications/cancelled`), so its duration is that path. Each round starts two `slow`
// calls, waits 50 ms (as the suite's cancel workload does), then aborts the first (the
// path runs cold after the idle wait) and at once the second (the same path, warm).
// Prints one JSON line: the medians and all the samples, in microseconds.
//
//   node cancel_path.mjs [--rounds 20] -- SERVER_CMD ARG...   (a server per PROTOCOL.md)
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from './common.mjs'

const { flags, rest } = parseArgs(process.argv.slice(2))
const rounds = Number(flags.rounds || 20)
const { Client } = await import('oxmcp')
const client = await Client.stdio(rest[0], rest.slice(1))

const us = (a, b) => Number(b - a) / 1e3
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1]
const cold = []
const warm = []
for (let r = 0; r < rounds; r++) {
  const first = new AbortController()
  const second = new AbortController()
  const calls = [first, second].map((c) => client.callTool('slow', {}, { signal: c.signal }).catch(() => 'cancelled'))
  await sleep(50)
  const t0 = process.hrtime.bigint()
  first.abort()
  const t1 = process.hrtime.bigint()
  second.abort()
  const t2 = process.hrtime.bigint()
  cold.push(us(t0, t1))
  warm.push(us(t1, t2))
  await Promise.all(calls)
}
await client.close()
console.log(JSON.stringify({ cold_median_us: median(cold), warm_median_us: median(warm), cold_us: cold, warm_us: warm }))
