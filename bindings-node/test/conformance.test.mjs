// The official MCP conformance server suite (npm @modelcontextprotocol/conformance, run
// on Node 22 from tests/conformance, which run-tests.sh installs) against the JavaScript
// everything-server (examples/everything-server.mjs) over Streamable HTTP: 0 failed.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { ROOT, startHttpServer } from './helpers.mjs'

const CONFORMANCE = process.env.OXMCP_CONFORMANCE_DIR || path.resolve(ROOT, '../tests/conformance')
const NODE22 = path.join(CONFORMANCE, 'node_modules/node/bin')
const SUITE = path.join(CONFORMANCE, 'node_modules/.bin/conformance')

it('passes the official conformance server suite with 0 failed', { timeout: 180_000 }, async () => {
  assert.ok(existsSync(SUITE), `the conformance suite is not installed at ${SUITE} (run-tests.sh installs it)`)
  const server = await startHttpServer(path.join(ROOT, 'examples/everything-server.mjs'), [])
  try {
    const url = server.url.replace('127.0.0.1', 'localhost')
    const out = await new Promise(resolve => {
      const child = spawn(SUITE, ['server', '--url', url, '--suite', 'all'], {
        env: { ...process.env, PATH: `${NODE22}:${process.env.PATH}` },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let text = ''
      child.stdout.setEncoding('utf8').on('data', d => (text += d))
      child.stderr.setEncoding('utf8').on('data', d => (text += d))
      child.on('exit', () => resolve(text))
    })
    const total = out.match(/Total: (\d+) passed, (\d+) failed/g)?.pop()
    assert.ok(total, `the suite printed no total:\n${out.slice(-3000)}`)
    const [, passed, failed] = total.match(/Total: (\d+) passed, (\d+) failed/)
    const failures = out.split('\n').filter(l => l.startsWith('✗')).join('\n')
    console.log(`conformance server suite: ${passed} passed, ${failed} failed`)
    assert.equal(Number(failed), 0, failures)
    assert.ok(Number(passed) >= 40, total)
  } finally {
    await server.stop()
  }
})


it('passes every tasks and skills extension scenario of the 0.2.0 line', { timeout: 300_000 }, async () => {
  const next = [path.join(NODE22, 'node'), path.join(CONFORMANCE, 'node_modules/conformance-next/dist/index.js')]
  const run = args => new Promise(resolve => {
    const child = spawn(next[0], [next[1], ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let text = ''
    child.stdout.setEncoding('utf8').on('data', d => (text += d))
    child.stderr.setEncoding('utf8').on('data', d => (text += d))
    child.on('exit', () => resolve(text))
  })
  const listed = await run(['list', '--server'])
  const scenarios = [...new Set(listed.match(/^ {2}- (tasks|sep-2640)-[a-z0-9-]+/gm)?.map(l => l.slice(4)))]
  assert.ok(scenarios.filter(s => s.startsWith('tasks-')).length >= 10, listed)
  assert.ok(scenarios.filter(s => s.startsWith('sep-2640-')).length >= 3, listed)
  const server = await startHttpServer(path.join(ROOT, 'examples/everything-server.mjs'), [])
  try {
    const url = server.url.replace('127.0.0.1', 'localhost')
    let passed = 0
    const failing = []
    for (const scenario of scenarios) {
      const out = await run(['server', '--url', url, '--scenario', scenario])
      const m = out.match(/^Passed: (\d+)\/\d+, (\d+) failed/m)
      assert.ok(m, `${scenario}: no result\n${out.slice(-3000)}`)
      passed += Number(m[1])
      if (Number(m[2])) failing.push(`${scenario}: ${m[2]} failed\n${out.split('\n').filter(l => l.includes('FAILURE')).join('\n')}`)
    }
    console.log(`extension scenarios against the Node everything server: ${passed} checks passed`)
    assert.deepEqual(failing, [])
    assert.ok(passed >= 80, String(passed))
  } finally {
    await server.stop()
  }
})
