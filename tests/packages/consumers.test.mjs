// Each consumer of dist/ (<host>/run.sh) in a scratch folder outside the workspace, with a
// PATH that has no cargo, rustc or maturin and an environment that names nothing of the
// build: what a user who installs the packages has.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const here = path.dirname(new URL(import.meta.url).pathname)
const root = path.resolve(here, '../..')
const dist = process.env.OXMCP_DIST ?? path.join(root, 'dist')
const version = /\[workspace\.package\][^[]*?\nversion = "([^"]+)"/.exec(readFileSync(path.join(root, 'Cargo.toml'), 'utf8'))[1]
const PATH = '/usr/local/bin:/usr/bin:/bin'
let scratch

before(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'oxmcp-consumers-'))
  assert.ok(!scratch.startsWith(root), 'the scratch folder is outside the workspace')
})
after(() => rmSync(scratch, { recursive: true, force: true }))

test('the consumers’ PATH has no Rust toolchain', () => {
  for (const tool of ['cargo', 'rustc', 'maturin', 'cargo-zigbuild', 'zig']) {
    const found = execFileSync('sh', ['-c', `command -v ${tool} || true`], { env: { PATH }, encoding: 'utf8' }).trim()
    assert.equal(found, '', `${tool} is on the consumers' PATH`)
  }
})

// run.sh of one consumer, its output shown as it goes (in the test's diagnostics on failure).
function consume(host) {
  const work = mkdtempSync(path.join(scratch, `${host}-`))
  const env = {
    HOME: os.homedir(), PATH, LANG: 'C.UTF-8', TMPDIR: os.tmpdir(),
    DIST: dist, VERSION: version, WORK: work, OXMCP: path.join(dist, 'oxmcp'),
  }
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(here, host, 'run.sh')], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const keep = chunk => { output += chunk; process.stderr.write(chunk) }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.on('error', reject)
    child.on('close', code => resolve({ code, output }))
  })
}

for (const host of ['python', 'node', 'java', 'c', 'dotnet']) {
  test(`${host}: installs from dist/ and runs its quickstart`, { timeout: 600_000 }, async () => {
    const { code, output } = await consume(host)
    assert.equal(code, 0, `${host}/run.sh failed:\n${output.slice(-4000)}`)
  })
}
