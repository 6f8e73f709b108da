// OAuth with real parts: an oidc-provider authorization server (tests/auth/provider.mjs,
// on the Node 22 tests/auth installs) and a protected oxmcp server (`oxmcp
// everything-server --auth-issuer`). The Node client gets tokens by client credentials
// and by the authorization code grant, whose browser the test plays over HTTP.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client, Server, UnauthorizedError, InvalidInputError } from '../index.mjs'
import { ROOT, oxmcpBin, stopChild } from './helpers.mjs'
import { consent } from '../../tests/auth/browser.mjs'

const AUTH = path.resolve(ROOT, '..', 'tests', 'auth')
const children = []
let issuer, url

const freePort = () => new Promise(resolve => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)) })
})

function start(cmd, args) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  return new Promise((resolve, reject) => {
    let seen = ''
    const look = d => { seen += d; if (/listening/.test(seen)) resolve(child) }
    child.stdout.on('data', look)
    child.stderr.on('data', look)
    child.on('exit', code => reject(new Error(`${cmd} exited (${code}): ${seen}`)))
  })
}

before(async () => {
  const asPort = await freePort()
  issuer = `http://127.0.0.1:${asPort}`
  await start(path.join(AUTH, 'node_modules', 'node', 'bin', 'node'), [path.join(AUTH, 'provider.mjs'), String(asPort)])
  const port = await freePort()
  url = `http://127.0.0.1:${port}/mcp`
  await start(oxmcpBin(), ['everything-server', '--http', `127.0.0.1:${port}`, '--auth-issuer', issuer, '--auth-scopes', 'mcp:read'])
})

after(async () => { for (const c of children) await stopChild(c) })

const whoami = async client => JSON.parse((await client.callTool('whoami', {})).content[0].text)

test('client credentials: plain options', async () => {
  const client = await Client.http(url, { auth: { clientId: 'machine', clientSecret: 'machine-secret', grant: 'client_credentials' } })
  const who = await whoami(client)
  assert.equal(who.subject, 'machine')
  assert.deepEqual(who.scopes, ['mcp:read'])
  await client.close()
  await assert.rejects(Client.http(url, { auth: { clientId: 'machine', clientSecret: 'wrong', grant: 'client_credentials' } }),
    e => e instanceof UnauthorizedError && /invalid_client/.test(e.message))
})

test('authorization code: the browser through redirectHandler and callbackHandler; the kept tokens serve the next client', async () => {
  const tokenFile = path.join(mkdtempSync(path.join(tmpdir(), 'oxmcp-node-auth-')), 'tokens.json')
  let landed, asked = 0
  const auth = {
    redirectUri: 'http://127.0.0.1:9/callback',
    tokenFile,
    redirectHandler: async authorizationUrl => {
      asked++
      assert.ok(authorizationUrl.startsWith(`${issuer}/auth?`))
      landed = await consent(authorizationUrl, 'carol', { visit: false })
    },
    callbackHandler: async () => landed,
  }
  const client = await Client.http(url, { auth })
  assert.equal((await whoami(client)).subject, 'carol')
  await client.close()
  assert.equal(statSync(tokenFile).mode & 0o777, 0o600)
  const again = await Client.http(url, { auth })
  assert.equal((await whoami(again)).subject, 'carol')
  await again.close()
  assert.equal(asked, 1, 'the browser was needed once')

  // A forged redirect (another flow's state) is refused, clearly.
  await assert.rejects(Client.http(url, { auth: { ...auth, tokenFile: undefined, callbackHandler: async () => 'http://127.0.0.1:9/callback?code=x&state=forged' } }),
    e => e instanceof UnauthorizedError && /state/.test(e.message))
  // Half a browser is a mistake caught before connecting.
  await assert.rejects(Client.http(url, { auth: { redirectHandler: async () => {} } }), InvalidInputError)
  // No auth at all: a clear UnauthorizedError.
  await assert.rejects(Client.http(url), UnauthorizedError)
})

test('a Node server protected by OAuth: ctx.auth in handlers, scopes per server and per tool', async () => {
  const server = new Server({ name: 'guarded', version: '1.0.0' })
  server.tool('whoami', {}, (_args, ctx) => JSON.stringify({ subject: ctx.auth.subject, clientId: ctx.auth.clientId, scopes: ctx.auth.scopes }))
  server.tool('erase', {}, () => 'erased')
  const guarded = await server.listenHttp({ port: 0, auth: { issuer, scopes: ['mcp:read'], toolScopes: { erase: ['mcp:write'] } } })
  try {
    const client = await Client.http(guarded, { auth: { clientId: 'machine', clientSecret: 'machine-secret', grant: 'client_credentials', scope: 'mcp:read' } })
    assert.deepEqual(await whoami(client), { subject: 'machine', clientId: 'machine', scopes: ['mcp:read'] })
    // The tool's own scope: the client steps up and goes on with both.
    assert.equal((await client.callTool('erase', {})).content[0].text, 'erased')
    assert.deepEqual((await whoami(client)).scopes.sort(), ['mcp:read', 'mcp:write'])
    await client.close()
    await assert.rejects(Client.http(guarded), UnauthorizedError)
  } finally {
    await server.close()
  }
})

test('a JS function checks the tokens: who it says reaches ctx.auth; null refuses', async () => {
  const server = new Server({ name: 'checked', version: '1.0.0' })
  const seen = []
  server.verifyTokens(async token => {
    seen.push(token)
    return token === 's3cret' ? { subject: 'alice', clientId: 'cli', scopes: ['mcp:read'] } : null
  })
  server.tool('whoami', {}, (_args, ctx) => JSON.stringify([ctx.auth.subject, ctx.auth.clientId, ctx.auth.scopes]))
  const checked = await server.listenHttp({ port: 0, auth: { issuer: 'https://as.example.com', scopes: ['mcp:read'] } })
  try {
    const client = await Client.http(checked, { headers: { authorization: 'Bearer s3cret' } })
    assert.deepEqual(JSON.parse((await client.callTool('whoami', {})).content[0].text), ['alice', 'cli', ['mcp:read']])
    await client.close()
    await assert.rejects(Client.http(checked, { headers: { authorization: 'Bearer guess' } }), UnauthorizedError)
    assert.ok(seen.includes('guess') && seen.includes('s3cret'))
  } finally {
    await server.close()
  }
})
