// Registering a tool, prompt or resource (or template) a second time under the same name
// or URI is refused with an InvalidInputError; `{ replace: true }` replaces the first, before
// and while serving.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { Client, Server, InvalidInputError } from 'oxmcp'

const duplicate = kind => err => err instanceof InvalidInputError && err.message.includes(kind) &&
  err.message.includes('already registered') && err.message.includes('replace: true')

it('refuses a duplicate tool, prompt, resource or template', () => {
  const server = new Server({ name: 'dups', version: '1.0.0' })
  server.tool('t', () => 'one')
  server.prompt('p', () => 'one')
  server.resource('mem://r', () => 'one')
  server.resource('mem://r/{id}', () => 'one')
  assert.throws(() => server.tool('t', () => 'two'), duplicate('tool t'))
  assert.throws(() => server.tool('t', { description: 'again' }, () => 'two'), duplicate('tool t'))
  assert.throws(() => server.prompt('p', {}, () => 'two'), duplicate('prompt p'))
  assert.throws(() => server.resource('mem://r', () => 'two'), duplicate('resource mem://r'))
  assert.throws(() => server.resource('mem://r/{id}', { name: 'other' }, () => 'two'), duplicate('resource mem://r/{id}'))
  // A name is only taken within its kind, and a failed registration takes none.
  server.tool('p', () => 'tool p')
  assert.throws(() => server.tool('bad', { inputSchema: 'nope' }, () => ''), InvalidInputError)
  server.tool('bad', () => 'fine')
  // A removed tool's name is free again.
  assert.equal(server.removeTool('t'), true)
  server.tool('t', () => 'three')
})

it('replaces with { replace: true }, before and while serving', async () => {
  const server = new Server({ name: 'replace', version: '1.0.0' })
  server.tool('t', { description: 'one' }, () => 'one')
  server.tool('t', { description: 'two', replace: true }, () => 'two')
  server.prompt('p', { description: 'one' }, () => 'one')
  server.prompt('p', { description: 'two', replace: true }, () => 'two')
  server.resource('mem://r', { description: 'one' }, () => 'one')
  server.resource('mem://r', { description: 'two', replace: true }, () => 'two')
  server.resource('mem://r/{id}', { description: 'one' }, () => 'one')
  server.resource('mem://r/{id}', { description: 'two', replace: true }, () => 'two')
  const url = await server.listenHttp({ host: '127.0.0.1', port: 0 })
  const client = await Client.http(url)
  try {
    const check = async (want, template = true) => {
      assert.deepEqual((await client.listTools()).map(t => [t.name, t.description]), [['t', want]])
      assert.equal((await client.callTool('t')).content[0].text, want)
      assert.deepEqual((await client.listPrompts()).map(p => [p.name, p.description]), [['p', want]])
      assert.equal((await client.getPrompt('p')).messages[0].content.text, want)
      assert.deepEqual((await client.listResources()).map(r => [r.uri, r.description]), [['mem://r', want]])
      assert.equal((await client.readResource('mem://r')).contents[0].text, want)
      if (template) {
        assert.deepEqual((await client.listResourceTemplates()).map(r => [r.uriTemplate, r.description]), [['mem://r/{id}', want]])
        assert.equal((await client.readResource('mem://r/1')).contents[0].text, want)
      }
    }
    await check('two')
    // While serving (templates are fixed once serving).
    assert.throws(() => server.tool('t', () => 'x'), InvalidInputError)
    server.tool('t', { description: 'three', replace: true }, () => 'three')
    server.prompt('p', { description: 'three', replace: true }, () => 'three')
    server.resource('mem://r', { description: 'three', replace: true }, () => 'three')
    await check('three', false)
  } finally {
    await client.close()
    await server.close()
  }
})
