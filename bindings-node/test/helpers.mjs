// Shared helpers of the node tests (not a test file itself).
import { spawn } from 'node:child_process'
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const HERE = path.dirname(fileURLToPath(import.meta.url))
export const ROOT = path.resolve(HERE, '..')
export const fixture = name => path.join(HERE, 'fixtures', name)
export const sleep = ms => new Promise(r => setTimeout(r, ms))

/** The `oxmcp` CLI: $OXMCP_BIN, or the workspace's debug build (cargo build -p oxmcp-cli). */
export function oxmcpBin() {
  if (process.env.OXMCP_BIN) return process.env.OXMCP_BIN
  const bin = path.join(process.env.CARGO_TARGET_DIR || path.resolve(ROOT, '..', 'target'), 'debug', 'oxmcp')
  try { accessSync(bin, constants.X_OK) } catch {
    throw new Error('no oxmcp CLI: set OXMCP_BIN or build it with cargo build -p oxmcp-cli')
  }
  return bin
}

/** Rejects with `what` if `promise` has not settled within `ms`. */
export function within(ms, what, promise) {
  let timer
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms) })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** Starts `node script --http` and resolves `{ url, child, stop }` once it listens. */
export function startHttpServer(script, extraArgs = [], { node = process.execPath } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [script, '--http', ...extraArgs], { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`server did not start: ${err}`)) }, 15_000)
    child.stderr.setEncoding('utf8').on('data', d => {
      err += d
      const m = err.match(/listening on (\S+)/)
      if (m) {
        clearTimeout(timer)
        resolve({ url: m[1], child, stop: () => stopChild(child) })
      }
    })
    child.on('exit', code => { clearTimeout(timer); reject(new Error(`server exited (${code}): ${err}`)) })
  })
}

/** SIGTERM, then SIGKILL after a grace period; resolves with the exit code. */
export function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise(resolve => {
    const t = setTimeout(() => child.kill('SIGKILL'), 3000)
    child.once('exit', code => { clearTimeout(t); resolve(code) })
    child.kill('SIGTERM')
  })
}

/** Runs `node -e/--input-type=module` code (or a file) to completion: `{ code, stdout, stderr, ms }`. */
export function runNode(args, { timeoutMs = 20_000, input } = {}) {
  return new Promise(resolve => {
    const started = Date.now()
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], cwd: ROOT })
    let stdout = '', stderr = ''
    child.stdout.setEncoding('utf8').on('data', d => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', d => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr, ms: Date.now() - started }) })
    if (input !== undefined) child.stdin.end(input)
  })
}

/** The newest specification's schema.json as the Rust schema tests find it ($OXMCP_SPEC_DIR,
 *  else ../shared/spec beside the checkout), or null where it is absent (outside CI). */
export function specSchema() {
  const dir = process.env.OXMCP_SPEC_DIR || path.resolve(ROOT, '..', '..', 'shared', 'spec')
  let versions = []
  try { versions = readdirSync(dir).filter(v => /^\d{4}-\d{2}-\d{2}$/.test(v)).sort() } catch { versions = [] }
  const newest = versions.at(-1)
  if (!newest) {
    if (!['', '0', 'false'].includes((process.env.CI || '').toLowerCase())) throw new Error(`no specification schema in ${dir}`)
    return null
  }
  return { version: newest, schema: JSON.parse(readFileSync(path.join(dir, newest, 'schema.json'), 'utf8')) }
}
