// One server serving others under a prefix (a Server of this process, or a remote one
// through a Client), and handlers reading their own server's resources.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { Client, Server, InvalidInputError } = require('../index.cjs')

function weather() {
  const server = new Server({ name: 'weather', version: '1' })
  server.tool('forecast', { inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }, ({ city }) => `sunny in ${city}`)
  server.prompt('advice', () => 'take an umbrella')
  server.resource('weather://today', () => 'rain')
  server.resource('weather://city/{name}', (uri, { name }) => `${name} from ${uri}`)
  return server
}

async function checkMounted(main) {
  const client = await Client.inMemory(main)
  try {
    assert.ok((await client.listTools()).some(t => t.name === 'w_forecast'))
    assert.equal((await client.callTool('w_forecast', { city: 'Oslo' })).content[0].text, 'sunny in Oslo')
    assert.match(JSON.stringify(await client.getPrompt('w_advice')), /umbrella/)
    assert.equal((await client.readResource('weather://w/today')).contents[0].text, 'rain')
    // The mounted template's handler gets the URI its own server knows.
    assert.equal((await client.readResource('weather://w/city/oslo')).contents[0].text, 'oslo from weather://city/oslo')
  } finally {
    await client.close()
  }
}

it('a server mounts another of this process under a prefix', async () => {
  const main = new Server({ name: 'main', version: '1' }).mount('w', weather())
  await checkMounted(main)
  assert.throws(() => main.mount('x', {}), InvalidInputError)
})

it('a server mounts a remote one through a client, each call forwarded', async () => {
  const upstream = await Client.inMemory(weather())
  const main = new Server({ name: 'main', version: '1' })
  assert.equal(await main.mount('w', upstream), main)
  await checkMounted(main)
  await upstream.close()
})

it('a handler reads its own server\'s resources', async () => {
  const server = weather()
  server.tool('quote', { inputSchema: { type: 'object', properties: { uri: { type: 'string' } } } }, async ({ uri }, ctx) =>
    (await ctx.readResource(uri)).contents[0].text)
  const client = await Client.inMemory(server)
  try {
    assert.equal((await client.callTool('quote', { uri: 'weather://city/rome' })).content[0].text, 'rome from weather://city/rome')
  } finally {
    await client.close()
  }
})

it("a mounted server's lifespan starts after its parent's and ends before it", async () => {
  const events = []
  const life = (name, value) => async () => {
    events.push(`${name} in`)
    return { value, close: () => { events.push(`${name} out`) } }
  }
  const child = new Server({ name: 'child', version: '1' }, { lifespan: life('child', { db: 'child-db' }) })
  child.tool('which', (_args, ctx) => ctx.lifespan.db)
  const main = new Server({ name: 'main', version: '1' }, { lifespan: life('main', null) }).mount('c', child)
  const client = await Client.inMemory(main)
  try {
    assert.deepEqual(events, ['main in', 'child in'])
    assert.equal((await client.callTool('c_which')).content[0].text, 'child-db')
  } finally {
    await client.close()
    await main.close()
  }
  assert.deepEqual(events, ['main in', 'child in', 'child out', 'main out'])
})
