// OAuth end to end with real parts: an oidc-provider authorization server (provider.mjs),
// a protected oxmcp server (`oxmcp everything-server --auth-issuer`, JWTs checked through
// the issuer's JWKS) and the oxmcp client (the CLI: `login`, then `call` with the kept
// tokens, or client credentials). The test plays the user's browser over HTTP: the login
// form, the consent form, and the redirect back to the CLI's loopback listener.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consent } from './browser.mjs';
import { otlpSink } from './otlp.mjs';

const here = new URL('.', import.meta.url).pathname;
const oxmcp = process.env.OXMCP_BIN;
assert.ok(oxmcp, 'OXMCP_BIN must name the oxmcp binary');

const children = [];
let asUrl, mcpUrl;
const dir = mkdtempSync(join(tmpdir(), 'oxmcp-auth-'));
const tokens = join(dir, 'tokens.json');

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts a process; resolves once a line of its output matches `ready`. */
function start(cmd, args, ready, env = {}) {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = '';
    const look = (chunk) => {
      seen += chunk;
      if (ready.test(seen)) resolve(child);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`${cmd} exited (${code}): ${seen}`)));
  });
}

/** Runs the CLI to the end: its exit code, stdout and stderr. */
function cli(args, { env = {}, onStderr } = {}) {
  const child = spawn(oxmcp, args, { env: { ...process.env, OXMCP_TOKENS: tokens, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '', stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => {
    stderr += c;
    onStderr?.(stderr);
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

before(async () => {
  const asPort = await freePort();
  asUrl = `http://127.0.0.1:${asPort}`;
  await start(process.execPath, [join(here, 'provider.mjs'), String(asPort)], /listening/);
  const port = await freePort();
  mcpUrl = `http://127.0.0.1:${port}/mcp`;
  await start(oxmcp, ['everything-server', '--http', `127.0.0.1:${port}`, '--auth-issuer', asUrl, '--auth-scopes', 'mcp:read'], /listening/);
});

after(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
});

/** A token straight from the authorization server (client credentials). */
async function tokenFor(client, secret, resource, scope) {
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope && { scope }) });
  const r = await fetch(`${asUrl}/token`, { method: 'POST', body, headers: { authorization: 'Basic ' + Buffer.from(`${client}:${secret}`).toString('base64') } });
  assert.equal(r.status, 200, await r.clone().text());
  return (await r.json()).access_token;
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });

async function postInit(token) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(mcpUrl, { method: 'POST', headers, body: INIT });
  await r.body?.cancel();
  return r;
}

test('client credentials: the CLI gets a token and the handler sees who it is', async () => {
  const r = await cli(['call', '--client-id', 'machine', '--client-secret', 'machine-secret', '--json', 'whoami', mcpUrl]);
  assert.equal(r.code, 0, r.stderr);
  const who = JSON.parse(JSON.parse(r.stdout).content[0].text);
  assert.equal(who.subject, 'machine');
  assert.equal(who.clientId, 'machine');
  assert.deepEqual(who.scopes, ['mcp:read']);
  assert.equal(who.claims.aud, mcpUrl);
  assert.ok(!r.stderr.includes('eyJ'), 'no token in the output');
  // A wrong secret is refused by the authorization server, clearly.
  const bad = await cli(['call', '--client-id', 'machine', '--client-secret', 'nope', 'whoami', mcpUrl], { env: { OXMCP_TOKENS: join(dir, 'none.json') } });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /invalid_client/);
});

test('the server refuses a missing, foreign, expired, tampered or under-scoped token', async () => {
  const challenge = (r) => r.headers.get('www-authenticate') ?? '';
  const none = await postInit(null);
  assert.equal(none.status, 401);
  assert.match(challenge(none), /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/);
  const prm = await (await fetch(mcpUrl.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'))).json();
  assert.deepEqual(prm.authorization_servers, [asUrl]);

  const good = await tokenFor('machine', 'machine-secret', mcpUrl, 'mcp:read');
  assert.equal((await postInit(good)).status, 200);
  const cases = [
    ['another audience', await tokenFor('machine', 'machine-secret', mcpUrl.replace('/mcp', '/other'), 'mcp:read'), 401, /another audience/],
    ['expired', await tokenFor('short', 'short-secret', mcpUrl, 'mcp:read'), 401, /expired/],
    ['tampered', good.slice(0, -4) + (good.endsWith('AAAA') ? 'BBBB' : 'AAAA'), 401, /signature/],
    ['a scope missing', await tokenFor('machine', 'machine-secret', mcpUrl, 'mcp:write'), 403, /insufficient_scope/],
    ['oversized', 'a'.repeat(64 * 1024), 401, /too large/],
  ];
  for (const [what, token, status, why] of cases) {
    const r = await postInit(token);
    assert.equal(r.status, status, what);
    assert.match(challenge(r), why, what);
    assert.ok(!challenge(r).includes(token.slice(20, 60)), `${what}: the token is not echoed`);
  }
});

test('authorization code: login in a browser, then calls with the kept tokens, refreshed when they expire', async () => {
  let played;
  const login = cli(['login', mcpUrl], {
    onStderr: (text) => {
      const m = text.match(/^(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m);
      if (m && !played) played = consent(m[1], 'alice');
    },
  });
  const r = await login;
  assert.equal(r.code, 0, r.stderr);
  const page = await played;
  assert.equal(page.status, 200);
  // The tokens are kept for the owner only, and never printed.
  assert.equal(statSync(tokens).mode & 0o777, 0o600);
  const kept = JSON.parse(readFileSync(tokens, 'utf8'));
  const entry = kept[mcpUrl];
  assert.ok(entry.tokens.access_token && entry.tokens.refresh_token, 'an access and a refresh token');
  assert.ok(!r.stderr.includes(entry.tokens.access_token) && !r.stdout.includes(entry.tokens.access_token));
  assert.equal(entry.issuer, asUrl);

  const call = await cli(['call', '--json', 'whoami', mcpUrl]);
  assert.equal(call.code, 0, call.stderr);
  const who = JSON.parse(JSON.parse(call.stdout).content[0].text);
  assert.equal(who.subject, 'alice');
  assert.ok(who.scopes.includes('mcp:read'));

  // An access token about to expire is refreshed before the request goes out: with
  // telemetry on, the refresh is a span under the client span of the request that waited
  // on it (the first of the run: the era probe), in the call's trace.
  entry.tokens.expires_at = Math.floor(Date.now() / 1000);
  writeFileSync(tokens, JSON.stringify(kept));
  const sink = await otlpSink();
  const again = await cli(['call', '--json', 'whoami', mcpUrl], { env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } });
  sink.close();
  assert.equal(again.code, 0, again.stderr);
  const exported = sink.spans();
  const run = exported.find((s) => s.name === 'oxmcp call whoami');
  const refresh = exported.find((s) => s.name === 'oauth token refresh');
  assert.ok(run && refresh, `exported: ${exported.map((s) => s.name)}`);
  const waiting = exported.find((s) => s.id === refresh.parent);
  assert.ok(['server/discover', 'initialize', 'tools/call whoami'].includes(waiting?.name), `the refresh's parent: ${waiting?.name}`);
  assert.equal(waiting.parent, run.id, "that request is the CLI call's");
  assert.equal(refresh.trace, run.trace);
  const refreshed = JSON.parse(readFileSync(tokens, 'utf8'))[mcpUrl].tokens;
  assert.notEqual(refreshed.access_token, entry.tokens.access_token);
  assert.ok(refreshed.expires_at > entry.tokens.expires_at);

  // A token the server no longer takes (here: for another audience) is replaced by a
  // refresh after the 401, without the browser.
  const foreign = JSON.parse(readFileSync(tokens, 'utf8'));
  foreign[mcpUrl].tokens.access_token = await tokenFor('machine', 'machine-secret', mcpUrl.replace('/mcp', '/other'), 'mcp:read');
  writeFileSync(tokens, JSON.stringify(foreign));
  const third = await cli(['call', '--json', 'whoami', mcpUrl]);
  assert.equal(third.code, 0, third.stderr);
  assert.equal(JSON.parse(JSON.parse(third.stdout).content[0].text).subject, 'alice');
});

test('oxmcp proxy authorizes as itself: a stdio host reaches the protected server without a token of its own', async () => {
  const proxy = spawn(oxmcp, ['proxy', '--stdio', '--client-id', 'machine', '--client-secret', 'machine-secret', '--', mcpUrl], {
    env: { ...process.env, OXMCP_TOKENS: join(dir, 'proxy.json') },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(proxy);
  const lines = [];
  let buffered = '';
  const answered = new Map();
  proxy.stdout.on('data', (chunk) => {
    buffered += chunk;
    let i;
    while ((i = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      const msg = JSON.parse(line);
      lines.push(msg);
      answered.get(msg.id)?.(msg);
    }
  });
  const ask = (id, method, params) =>
    new Promise((resolve) => {
      answered.set(id, resolve);
      proxy.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  const init = await ask(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'host', version: '1' } });
  assert.ok(init.result, JSON.stringify(init));
  proxy.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const call = await ask(2, 'tools/call', { name: 'whoami', arguments: {} });
  const who = JSON.parse(call.result.content[0].text);
  assert.equal(who.subject, 'machine');
  proxy.stdin.end();
});

test('a protected oxmcp proxy takes only tokens for itself and relays with its own', async () => {
  const port = await freePort();
  const proxyUrl = `http://127.0.0.1:${port}/mcp`;
  await start(
    oxmcp,
    ['proxy', '--http', `127.0.0.1:${port}`, '--auth-issuer', asUrl, '--client-id', 'machine', '--client-secret', 'machine-secret', '--', mcpUrl],
    /listening/,
    { OXMCP_TOKENS: join(dir, 'relay.json') },
  );
  // A token the client holds for the server behind the proxy is not the proxy's: passing
  // it through would let any client of the proxy spend it.
  const upstreamToken = await tokenFor('machine', 'machine-secret', mcpUrl, 'mcp:read');
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${upstreamToken}` };
  const refused = await fetch(proxyUrl, { method: 'POST', headers, body: INIT });
  await refused.body?.cancel();
  assert.equal(refused.status, 401);
  assert.match(refused.headers.get('www-authenticate') ?? '', /another audience/);

  // The CLI authorizes at the proxy; the proxy calls the protected server with a token of
  // its own, for that server's audience.
  const r = await cli(['call', '--client-id', 'machine', '--client-secret', 'machine-secret', '--json', 'whoami', proxyUrl], {
    env: { OXMCP_TOKENS: join(dir, 'through-proxy.json') },
  });
  assert.equal(r.code, 0, r.stderr);
  const who = JSON.parse(JSON.parse(r.stdout).content[0].text);
  assert.equal(who.claims.aud, mcpUrl);
  const kept = JSON.parse(readFileSync(join(dir, 'through-proxy.json'), 'utf8'));
  assert.deepEqual(Object.keys(kept), [proxyUrl], 'the CLI holds a token for the proxy only');
});
