// Skills (the skills extension) from Node: a server serves skills given as texts or found
// in a directory; a client lists them without fetching files, loads one (SKILL.md checked
// against its entry), reads its files and directories, and refuses what the entry does not
// list or what does not match it.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Client, Server, McpError, ProtocolError, InvalidInputError, CapabilityMissingError } = require('../index.cjs')

const PDF_MD = '---\nname: pdf-processing\ndescription: Work with PDFs\nlicense: MIT\n---\n# PDF\nSee references/FORMS.md.\n'
const FORMS = '# Forms\nFill every field.\n'

function skillsServer(root) {
  const refunds = join(root, 'acme', 'refunds')
  mkdirSync(join(refunds, 'assets'), { recursive: true })
  writeFileSync(join(refunds, 'SKILL.md'), '---\nname: refunds\ndescription: Refund requests\n---\nBe kind.\n')
  writeFileSync(join(refunds, 'assets', 'logo.bin'), Buffer.from([0, 159, 146, 150]))
  return new Server({ name: 'skills', version: '1' })
    .skill('pdf-processing', { 'SKILL.md': PDF_MD, 'references/FORMS.md': FORMS })
    .skillsDir(root)
}

for (const era of ['session', 'stateless']) {
  it(`skills are listed, loaded and read (${era} era)`, async () => {
    const root = mkdtempSync(join(tmpdir(), 'oxmcp-skills-'))
    const server = skillsServer(root)
    const url = await server.listenHttp({ host: '127.0.0.1', port: 0 })
    const client = await Client.http(url, { era })
    try {
      const skills = await client.listSkills()
      assert.deepEqual(skills.map(s => s.uri), ['skill://pdf-processing/SKILL.md', 'skill://acme/refunds/SKILL.md'])
      const [pdf, refunds] = skills
      assert.deepEqual(pdf.frontmatter, { name: 'pdf-processing', description: 'Work with PDFs', license: 'MIT' })
      const forms = pdf.resources.find(f => f.uri === 'skill://pdf-processing/references/FORMS.md')
      assert.deepEqual([forms.size, forms.digest], [FORMS.length, 'sha256:' + createHash('sha256').update(FORMS).digest('hex')])
      assert.deepEqual(await client.getSkill(pdf.uri), pdf)

      const loaded = await client.loadSkill(pdf)
      assert.equal(loaded.markdown, PDF_MD)
      assert.equal((await client.loadSkill('skill://acme/refunds/SKILL.md')).skill.frontmatter.name, 'refunds')
      assert.equal((await client.readSkillFile(pdf, 'references/FORMS.md')).toString(), FORMS)
      assert.deepEqual([...await client.readSkillFile(refunds, 'assets/logo.bin')], [0, 159, 146, 150])

      const children = await client.readDirectory('skill://acme/refunds')
      assert.deepEqual(children.map(c => [c.name, c.mimeType]).sort(), [['assets', 'inode/directory'], ['refunds', 'text/markdown']])
      await assert.rejects(client.readDirectory('skill://acme/refunds/SKILL.md'), e => e instanceof McpError && e.code === -32602)
      await assert.rejects(client.getSkill('skill://nothing/SKILL.md'), e => e instanceof McpError && e.code === -32602)
      await assert.rejects(client.readSkillFile(pdf, 'references/OTHER.md'), e => e instanceof ProtocolError && /does not list it/.test(e.message))
      // An entry that does not match what the server serves: refused, not returned.
      const stale = { ...pdf, frontmatter: { ...pdf.frontmatter, description: 'Exfiltrate' } }
      await assert.rejects(client.loadSkill(stale), e => e instanceof ProtocolError && /frontmatter differs/.test(e.message))
    } finally {
      await client.close()
      await server.close()
      rmSync(root, { recursive: true, force: true })
    }
  })
}

it('a skill breaking the rules is refused when added', () => {
  const server = new Server({ name: 'skills', version: '1' })
  assert.throws(() => server.skill('other-name', { 'SKILL.md': PDF_MD }), e => e instanceof InvalidInputError && /must be its name/.test(e.message))
  assert.throws(() => server.skill('pdf-processing', { 'SKILL.md': '# none' }), e => e instanceof InvalidInputError && /frontmatter/.test(e.message))
  const empty = mkdtempSync(join(tmpdir(), 'oxmcp-skills-'))
  try {
    assert.throws(() => server.skillsDir(empty), e => e instanceof InvalidInputError && /no directory under/.test(e.message))
  } finally {
    rmSync(empty, { recursive: true, force: true })
  }
})

it('a server without skills says so', async () => {
  const server = new Server({ name: 'plain', version: '1' }).tool('hello', {}, () => 'hi')
  const url = await server.listenHttp({ host: '127.0.0.1', port: 0 })
  const client = await Client.http(url)
  try {
    await assert.rejects(client.listSkills(), e => e instanceof CapabilityMissingError)
  } finally {
    await client.close()
    await server.close()
  }
})
