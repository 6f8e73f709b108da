// Shared by the Node server and driver of the cross-SDK suite (../PROTOCOL.md).
import { appendFileSync } from 'node:fs'

/** Flags as a map: `--name value` pairs and bare `--flag`s; what follows `--` is `rest`. */
export function parseArgs(argv) {
  const dash = argv.indexOf('--')
  const rest = dash >= 0 ? argv.slice(dash + 1) : []
  const own = dash >= 0 ? argv.slice(0, dash) : argv
  const flags = {}
  for (let i = 0; i < own.length; i++) {
    if (!own[i].startsWith('--')) throw new Error(`unexpected argument ${own[i]}`)
    const name = own[i].slice(2)
    if (i + 1 < own.length && !own[i + 1].startsWith('--')) flags[name] = own[++i]
    else flags[name] = true
  }
  return { flags, rest }
}

/** CLOCK_MONOTONIC in nanoseconds (libuv's hrtime reads that clock on Linux). */
export const monotonicNs = () => process.hrtime.bigint()

/** Appends the time a handler saw its cancellation to the cancel log. */
export function logCancel(path) {
  const seen = monotonicNs()
  if (path) appendFileSync(path, `${seen}\n`)
}
