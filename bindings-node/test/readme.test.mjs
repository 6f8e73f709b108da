// The examples of ../README.md, run as they are written.
//
// How README.md marks its blocks: an HTML comment on the line right before a fence (readers
// of the rendered page don't see it).
// - `<!-- test -->` before a ```js block: a program, written to `block.mjs` in a fresh
//   folder inside the package (so that `import ... from 'oxmcp'` finds this package, and
//   zod its dev dependency) and run there by node; it must exit with status 0.
// - `<!-- test file=NAME.mjs -->`: not run by itself; written as NAME.mjs beside every
//   program, for the programs that use it (the client quickstart starts
//   `quickstart-server.mjs`). A program must name it.
// - `<!-- output -->` before a ```text block: what the program block above it prints on
//   stdout, line by line (trailing spaces ignored).
// Every other ```js block (fragments that need what a test cannot have) must parse
// (`node --check`).
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ROOT } from './helpers.mjs'

const README = path.join(ROOT, 'README.md')
const MARKER = /^<!--\s*(test(?:\s+file=[\w.-]+)?|output)\s*-->\s*$/

/** The fenced blocks of the README: `{ line, lang, code, marker }`, a program's `output`. */
function parse(text) {
  const lines = text.split('\n')
  const blocks = []
  let marker = null
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(MARKER)
    if (m) {
      assert.ok(/^\s*```/.test(lines[i + 1] ?? ''), `README.md:${i + 1}: a marker must be right before a fenced block`)
      marker = m[1].split(/\s+/).join(' ')
      continue
    }
    assert.ok(!/^\s*<!--\s*(test|output)/.test(lines[i]), `README.md:${i + 1}: a marker this test does not understand`)
    const fence = lines[i].match(/^(\s*)```(\S*)\s*$/)
    if (!fence) continue
    const indent = fence[1].length
    let end = i + 1
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) end++
    assert.ok(end < lines.length, `README.md:${i + 1}: unclosed fence`)
    const code = lines.slice(i + 1, end).map(l => l.slice(Math.min(indent, l.length - l.trimStart().length))).join('\n') + '\n'
    blocks.push({ line: i + 2, lang: fence[2], code, marker })
    marker = null
    i = end
  }
  let last = null
  for (const b of blocks) {
    if (b.marker === 'output') {
      assert.equal(b.lang, 'text', `README.md:${b.line}: <!-- output --> marks a \`\`\`text block`)
      assert.ok(last && last.output === undefined, `README.md:${b.line}: an output block needs a program block before it`)
      last.output = b.code
    } else if (b.marker) {
      assert.equal(b.lang, 'js', `README.md:${b.line}: <!-- ${b.marker} --> marks a \`\`\`js block`)
      if (b.marker === 'test') last = b
    }
  }
  return blocks
}

const BLOCKS = parse(readFileSync(README, 'utf8'))
const FILES = BLOCKS.filter(b => b.marker?.startsWith('test file=')).map(b => ({ name: b.marker.slice('test file='.length), code: b.code }))
const PROGRAMS = BLOCKS.filter(b => b.marker === 'test')
const lines = text => text.replace(/^\n+|\n+$/g, '').split('\n').map(l => l.trimEnd())

it('the README marks its examples, and each file block is used', () => {
  assert.ok(PROGRAMS.length >= 1 && FILES.length >= 1, 'the README lost its <!-- test --> markers')
  for (const { name } of FILES) {
    assert.ok(PROGRAMS.some(p => p.code.includes(name)), `the file block ${name} is used by no program block`)
  }
  for (const p of PROGRAMS) {
    if (p.code.includes('console.log(')) assert.ok(p.output !== undefined, `README.md:${p.line}: a block that prints needs its <!-- output -->`)
  }
})

for (const block of PROGRAMS) {
  it(`README.md:${block.line} runs`, { timeout: 120_000 }, () => {
    const dir = mkdtempSync(path.join(ROOT, 'test', '.readme-'))
    try {
      for (const { name, code } of FILES) writeFileSync(path.join(dir, name), code)
      writeFileSync(path.join(dir, 'block.mjs'), block.code)
      const r = spawnSync(process.execPath, ['block.mjs'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 100_000 })
      assert.equal(r.status, 0, `README.md:${block.line} exited with ${r.status} (${r.signal})\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`)
      if (block.output !== undefined) assert.deepEqual(lines(r.stdout), lines(block.output), `README.md:${block.line} printed something else\nstderr:\n${r.stderr}`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
}

it('every other js block of the README parses', () => {
  const others = BLOCKS.filter(b => b.lang === 'js' && !b.marker)
  assert.ok(others.length >= 1)
  const dir = mkdtempSync(path.join(ROOT, 'test', '.readme-'))
  try {
    for (const b of others) {
      const file = path.join(dir, `line${b.line}.mjs`)
      writeFileSync(file, b.code)
      try {
        execFileSync(process.execPath, ['--check', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      } catch (err) {
        assert.fail(`README.md:${b.line} does not parse:\n${err.stderr}`)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
