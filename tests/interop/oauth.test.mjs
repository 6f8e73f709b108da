// OAuth interop between oxmcp and the official TypeScript SDK (@modelcontextprotocol/sdk),
// with real parts only: a real authorization server (oidc-provider, tests/auth/provider.mjs,
// on the Node 22 that tests/auth/install.sh puts in tests/auth/node_modules), real server
// and client processes, and the user's browser played over HTTP (tests/auth/browser.mjs).
//
//   1. The TS SDK client (StreamableHTTPClientTransport + an OAuthClientProvider) against a
//      protected oxmcp server (`oxmcp everything-server --auth-issuer`): the authorization
//      code flow (dynamic registration, PKCE, resource indicator, finishAuth, reconnect), a
//      refresh after the server refuses the access token, and client credentials with the
//      SDK's ClientCredentialsProvider (client/auth-extensions).
//   2. The oxmcp client (the CLI) against a protected server built on the TS SDK
//      (ts_protected_server.mjs: McpServer + StreamableHTTPServerTransport behind the SDK's
//      mcpAuthMetadataRouter and requireBearerAuth, JWTs checked against the JWKS): client
//      credentials, and `oxmcp login` (browser flow to its loopback listener) then `call`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';

import { consent } from '../auth/browser.mjs';
import { freePort, HERE, oxmcpBin, startHttpServer, startOxmcpHttp } from './helpers.mjs';

const T = { timeout: 60_000 };
const AUTH_DIR = path.join(HERE, '..', 'auth');
// oidc-provider asks for Node 22; tests/auth/install.sh (run by run.sh) installs it there.
const AUTH_NODE = path.join(AUTH_DIR, 'node_modules', 'node', 'bin', 'node');

let as; // the authorization server (oidc-provider)
let asUrl;
let ox; // protected oxmcp everything-server
let ts; // protected TS SDK server (ts_protected_server.mjs)
let tsUrl;
const dir = mkdtempSync(path.join(tmpdir(), 'oxmcp-interop-oauth-'));
const cliPids = new Set();

before(async () => {
  assert.ok(existsSync(AUTH_NODE), `${AUTH_NODE} is missing: run bash tests/auth/install.sh (run.sh does)`);
  as = await startHttpServer({
    name: 'oidc-provider (tests/auth/provider.mjs)',
    command: AUTH_NODE,
    args: (port) => [path.join(AUTH_DIR, 'provider.mjs'), String(port)],
    ready: /listening http:\/\/127\.0\.0\.1:\d+/,
  });
  asUrl = `http://127.0.0.1:${as.port}`;
  ox = await startOxmcpHttp(['--auth-issuer', asUrl, '--auth-scopes', 'mcp:read']);
  ts = await startHttpServer({
    name: 'ts_protected_server.mjs',
    command: process.execPath,
    args: (port) => [path.join(HERE, 'ts_protected_server.mjs'), String(port), asUrl],
    ready: /ts protected server listening on http:\/\/127\.0\.0\.1:\d+\/mcp/,
  });
  tsUrl = `http://127.0.0.1:${ts.port}/mcp`;
});

after(async () => {
  for (const pid of cliPids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await Promise.all([ts?.stop(), ox?.stop(), as?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

// --- helpers --------------------------------------------------------------------------------

/** A token straight from the authorization server (client credentials), for `resource`. */
async function tokenFor(resource, scope = 'mcp:read') {
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource, scope });
  const r = await fetch(`${asUrl}/token`, {
    method: 'POST',
    body,
    headers: { authorization: 'Basic ' + Buffer.from('machine:machine-secret').toString('base64') },
  });
  assert.equal(r.status, 200, await r.clone().text());
  return (await r.json()).access_token;
}

/** The payload of a JWT (not verified: only to look at what the server was given). */
const jwtPayload = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));

/**
 * A fetch for the SDK transport that records every request it makes (the MCP ones and the
 * OAuth ones: discovery, registration, token): { method, url, body, authorization, status,
 * wwwAuthenticate }. A form body is recorded as an object, a JSON body parsed.
 */
function recordingFetch(log) {
  return async (url, init = {}) => {
    let body;
    if (init.body instanceof URLSearchParams) body = Object.fromEntries(init.body);
    else if (typeof init.body === 'string') {
      try {
        body = JSON.parse(init.body);
      } catch {
        body = init.body;
      }
    }
    const entry = { method: init.method ?? 'GET', url: String(url), body, authorization: new Headers(init.headers ?? {}).get('authorization') };
    log.push(entry);
    const response = await fetch(url, init);
    entry.status = response.status;
    entry.wwwAuthenticate = response.headers.get('www-authenticate');
    return response;
  };
}

/**
 * An OAuthClientProvider (client/auth.d.ts) keeping everything in memory. Its
 * redirectToAuthorization plays the user's browser at the authorization server (login and
 * consent as `user`) and keeps the redirect back (with the code) without visiting it: what
 * a real client's redirect listener would receive.
 */
class BrowserOAuthProvider {
  constructor(redirectUrl, user) {
    this._redirectUrl = redirectUrl;
    this.user = user;
    this.authorizationUrls = [];
    this.states = [];
    this.redirectBack = undefined;
  }
  get redirectUrl() {
    return this._redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: 'oxmcp interop: TS SDK client',
      redirect_uris: [this._redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    };
  }
  state() {
    const state = randomUUID();
    this.states.push(state);
    return state;
  }
  clientInformation() {
    return this._clientInformation;
  }
  saveClientInformation(info) {
    this._clientInformation = info;
  }
  tokens() {
    return this._tokens;
  }
  saveTokens(tokens) {
    this._tokens = tokens;
  }
  saveCodeVerifier(verifier) {
    this._codeVerifier = verifier;
  }
  codeVerifier() {
    if (!this._codeVerifier) throw new Error('no code verifier saved');
    return this._codeVerifier;
  }
  async redirectToAuthorization(authorizationUrl) {
    this.authorizationUrls.push(authorizationUrl);
    this.redirectBack = new URL(await consent(authorizationUrl.href, this.user, { visit: false }));
  }
}

/** A TS SDK client connected to `url` through `authProvider`; resolves { client, transport }. */
async function sdkConnect(url, authProvider, log) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider, fetch: recordingFetch(log) });
  const client = new Client({ name: 'oxmcp-interop-ts-oauth-client', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** The JSON that `whoami` answers with (a single text block). */
function whoFrom(result) {
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.equal(result.content.length, 1, JSON.stringify(result));
  assert.equal(result.content[0].type, 'text');
  return JSON.parse(result.content[0].text);
}

/** Runs the oxmcp CLI to the end (in its own process group, killed after 60 s). */
function cli(args, { env = {}, onStderr } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(oxmcpBin(), args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    cliPids.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
      onStderr?.(stderr);
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      reject(new Error(`oxmcp ${args.join(' ')} timed out\nstderr: ${stderr}`));
    }, 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      cliPids.delete(child.pid);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The `whoami` result printed by `oxmcp call --json`. */
const whoFromCli = (stdout) => whoFrom(JSON.parse(stdout));

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});

/** POSTs an initialize to `url` with `token` (or none); resolves the response. */
async function postInit(url, token) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(url, { method: 'POST', headers, body: INIT });
  await r.body?.cancel();
  return r;
}

// --- 1. the TS SDK client against the protected oxmcp server ----------------------------------

describe('official TS SDK client (OAuth) -> protected oxmcp server', () => {
  it('authorization code: dynamic registration, PKCE, resource indicator, finishAuth, reconnect; then a refresh after a 401', T, async () => {
    const redirectUrl = `http://127.0.0.1:${await freePort()}/callback`;
    const provider = new BrowserOAuthProvider(redirectUrl, 'dave');
    const log = [];

    // First attempt: no token, so oxmcp answers 401; the SDK discovers, registers and
    // sends the user to the authorization server, then connect() fails with UnauthorizedError.
    const first = new StreamableHTTPClientTransport(new URL(ox.url), { authProvider: provider, fetch: recordingFetch(log) });
    await assert.rejects(new Client({ name: 'oxmcp-interop-ts-oauth-client', version: '1.0.0' }).connect(first), UnauthorizedError);

    const challenged = log.find((e) => e.url === ox.url && e.status === 401);
    assert.ok(challenged, 'oxmcp refused the request without a token');
    assert.equal(challenged.authorization, null);
    assert.match(challenged.wwwAuthenticate, /^Bearer /);
    assert.ok(
      challenged.wwwAuthenticate.includes(`resource_metadata="http://127.0.0.1:${ox.port}/.well-known/oauth-protected-resource/mcp"`),
      challenged.wwwAuthenticate,
    );
    // The SDK read oxmcp's protected resource metadata, then the authorization server's.
    const prm = log.find((e) => e.url === `http://127.0.0.1:${ox.port}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(prm?.status, 200, JSON.stringify(log.map((e) => [e.method, e.url, e.status])));
    assert.ok(log.some((e) => e.url.startsWith(`${asUrl}/.well-known/`) && e.status === 200), 'authorization server metadata fetched');
    // Dynamic client registration at the authorization server.
    const registration = log.find((e) => e.method === 'POST' && e.url === `${asUrl}/reg`);
    assert.equal(registration?.status, 201);
    assert.deepEqual(registration.body.redirect_uris, [redirectUrl]);
    const clientId = provider.clientInformation()?.client_id;
    assert.ok(clientId, 'the registered client id was saved');

    // The authorization request: this client, PKCE S256, the resource oxmcp published, the
    // scope from its challenge.
    assert.equal(provider.authorizationUrls.length, 1);
    const authz = provider.authorizationUrls[0];
    assert.equal(authz.origin, asUrl);
    const q = authz.searchParams;
    assert.equal(q.get('client_id'), clientId);
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('redirect_uri'), redirectUrl);
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(q.get('resource'), ox.url);
    assert.ok((q.get('scope') ?? '').split(' ').includes('mcp:read'), q.get('scope'));

    // The browser came back to the redirect URI with a code and the state sent.
    const back = provider.redirectBack;
    assert.equal(`${back.origin}${back.pathname}`, redirectUrl);
    assert.equal(back.searchParams.get('state'), provider.states[0]);
    const code = back.searchParams.get('code');
    assert.ok(code, `a code in ${back}`);

    // finishAuth exchanges the code (with the verifier) for tokens for oxmcp's resource.
    await first.finishAuth(code);
    const exchange = log.find((e) => e.method === 'POST' && e.url === `${asUrl}/token` && e.body?.grant_type === 'authorization_code');
    assert.equal(exchange?.status, 200);
    assert.equal(exchange.body.code, code);
    assert.equal(exchange.body.resource, ox.url);
    assert.ok(exchange.body.code_verifier, 'PKCE verifier sent');
    assert.match(exchange.authorization ?? '', /^Basic /);
    const granted = provider.tokens();
    assert.ok(granted?.access_token && granted.refresh_token, 'an access and a refresh token');
    assert.equal(jwtPayload(granted.access_token).aud, ox.url);

    // Connect again, as the SDK's examples do, with the tokens: list tools, call whoami.
    const connected = log.length;
    const { client } = await sdkConnect(ox.url, provider, log);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('whoami') && names.includes('echo'), names.join(','));
      const who = whoFrom(await client.callTool({ name: 'whoami', arguments: {} }));
      assert.equal(who.subject, 'dave');
      assert.equal(who.clientId, clientId);
      assert.ok(who.scopes.includes('mcp:read'), JSON.stringify(who.scopes));
      assert.equal(who.claims.aud, ox.url);
      const mcpRequests = log.slice(connected).filter((e) => e.url === ox.url);
      assert.ok(mcpRequests.length >= 3, 'initialize, tools/list and tools/call went to oxmcp');
      for (const e of mcpRequests) {
        assert.equal(e.authorization, `Bearer ${granted.access_token}`);
        assert.ok(e.status < 300, `${e.method} ${e.url}: ${e.status}`);
      }
    } finally {
      await client.close();
    }

    // A token oxmcp does not take (another audience): its 401 makes the SDK refresh with
    // the refresh token (no new authorization) and retry.
    const foreign = await tokenFor(`http://127.0.0.1:${ox.port}/other`);
    provider.saveTokens({ ...granted, access_token: foreign });
    const mark = log.length;
    const again = await sdkConnect(ox.url, provider, log);
    try {
      const refused = log.slice(mark).find((e) => e.url === ox.url && e.status === 401);
      assert.equal(refused?.authorization, `Bearer ${foreign}`);
      assert.match(refused.wwwAuthenticate, /invalid_token/);
      const refresh = log.slice(mark).find((e) => e.url === `${asUrl}/token` && e.body?.grant_type === 'refresh_token');
      assert.equal(refresh?.status, 200);
      assert.equal(refresh.body.refresh_token, granted.refresh_token);
      assert.equal(refresh.body.resource, ox.url);
      assert.equal(provider.authorizationUrls.length, 1, 'no second trip to the browser');
      const refreshed = provider.tokens().access_token;
      assert.ok(refreshed !== foreign && refreshed !== granted.access_token);
      assert.equal(jwtPayload(refreshed).aud, ox.url);
      const who = whoFrom(await again.client.callTool({ name: 'whoami', arguments: {} }));
      assert.equal(who.subject, 'dave');
    } finally {
      await again.client.close();
    }
  });

  it("client credentials with the SDK's ClientCredentialsProvider (client/auth-extensions)", T, async () => {
    const provider = new ClientCredentialsProvider({ clientId: 'machine', clientSecret: 'machine-secret', scope: 'mcp:read', expectedIssuer: asUrl });
    const log = [];
    const { client } = await sdkConnect(ox.url, provider, log);
    try {
      const grant = log.find((e) => e.method === 'POST' && e.url === `${asUrl}/token`);
      assert.equal(grant?.status, 200);
      assert.equal(grant.body.grant_type, 'client_credentials');
      assert.equal(grant.body.resource, ox.url);
      assert.equal(grant.body.scope, 'mcp:read');
      assert.equal(grant.authorization, 'Basic ' + Buffer.from('machine:machine-secret').toString('base64'));
      assert.ok(!log.some((e) => e.url === `${asUrl}/reg`), 'no registration for a pre-registered client');
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('whoami'), names.join(','));
      const who = whoFrom(await client.callTool({ name: 'whoami', arguments: {} }));
      assert.equal(who.subject, 'machine');
      assert.equal(who.clientId, 'machine');
      assert.deepEqual(who.scopes, ['mcp:read']);
      assert.equal(who.claims.aud, ox.url);
    } finally {
      await client.close();
    }
    // A wrong secret: the SDK's token request fails and nothing reaches the tools.
    const wrong = new ClientCredentialsProvider({ clientId: 'machine', clientSecret: 'nope', scope: 'mcp:read', expectedIssuer: asUrl });
    await assert.rejects(sdkConnect(ox.url, wrong, []), /invalid_client|client authentication failed/i);
  });
});

// --- 2. the oxmcp client against the protected TS SDK server --------------------------------

describe('oxmcp client (CLI) -> protected TS SDK server (ts_protected_server.mjs)', () => {
  it('the TS SDK server is a protected resource: 401 with resource_metadata, RFC 9728 metadata, foreign or tampered tokens refused', T, async () => {
    const none = await postInit(tsUrl, null);
    assert.equal(none.status, 401);
    const prmUrl = `http://127.0.0.1:${ts.port}/.well-known/oauth-protected-resource/mcp`;
    assert.ok((none.headers.get('www-authenticate') ?? '').includes(`resource_metadata="${prmUrl}"`), none.headers.get('www-authenticate'));
    const prm = await (await fetch(prmUrl)).json();
    assert.equal(prm.resource, tsUrl);
    assert.deepEqual(prm.authorization_servers, [asUrl]);

    const good = await tokenFor(tsUrl);
    assert.equal((await postInit(tsUrl, good)).status, 200);
    assert.equal((await postInit(tsUrl, await tokenFor(ox.url))).status, 401, "a token for oxmcp's server");
    const tampered = good.slice(0, -4) + (good.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    assert.equal((await postInit(tsUrl, tampered)).status, 401, 'a tampered token');
    assert.equal((await postInit(tsUrl, await tokenFor(tsUrl, 'mcp:write'))).status, 403, 'a token without mcp:read');
  });

  it('client credentials: oxmcp call --client-id/--client-secret gets a token for the TS server and whoami says machine', T, async () => {
    const mark = ts.output().length;
    const r = await cli(['call', '--client-id', 'machine', '--client-secret', 'machine-secret', '--json', 'whoami', tsUrl], {
      env: { OXMCP_TOKENS: path.join(dir, 'cc-tokens.json') },
    });
    assert.equal(r.code, 0, r.stderr);
    const who = whoFromCli(r.stdout);
    assert.equal(who.subject, 'machine');
    assert.equal(who.clientId, 'machine');
    assert.deepEqual(who.scopes, ['mcp:read']);
    assert.equal(who.audience, tsUrl);
    assert.ok(!r.stderr.includes('eyJ') && !r.stdout.includes('eyJ'), 'no token in the output');
    // What the TS server saw: a request without a token (401), its metadata read, then
    // only requests with a bearer token.
    // (A line of the previous test's last request may still arrive after the mark.)
    const lines = ts.output().slice(mark).split('\n');
    const seen = lines.slice(lines.findIndex((l) => l.startsWith('http POST /mcp no-token '))).filter((l) => l.startsWith('http '));
    assert.match(seen[0] ?? '', /^http POST \/mcp no-token \S+ 401$/, lines.join('\n'));
    assert.ok(seen.some((l) => /^http GET \/\.well-known\/oauth-protected-resource\/mcp no-token - 200$/.test(l)), seen.join('\n'));
    const after401 = seen.slice(1).filter((l) => / \/mcp /.test(l));
    assert.ok(after401.length > 0 && after401.every((l) => / bearer /.test(l)), seen.join('\n'));
    assert.ok(after401.some((l) => / bearer tools\/call 200$/.test(l)), seen.join('\n'));
  });

  it('authorization code: oxmcp login (browser to its loopback listener), then oxmcp call with the kept tokens', T, async () => {
    const tokens = path.join(dir, 'login-tokens.json');
    let played;
    const r = await cli(['login', tsUrl], {
      env: { OXMCP_TOKENS: tokens },
      onStderr: (text) => {
        const m = text.match(/^(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m);
        if (m && !played) played = consent(m[1], 'erin');
      },
    });
    assert.ok(played, `oxmcp login printed no authorization URL:\n${r.stderr}`);
    const page = await played;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(page.status, 200, 'the loopback listener took the code');

    // The authorization request named the TS server's resource (from its metadata).
    const authz = new URL(r.stderr.match(/^(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m)[1]);
    assert.equal(authz.origin, asUrl);
    assert.equal(authz.searchParams.get('resource'), tsUrl);
    assert.equal(authz.searchParams.get('code_challenge_method'), 'S256');

    assert.equal(statSync(tokens).mode & 0o777, 0o600);
    const entry = JSON.parse(readFileSync(tokens, 'utf8'))[tsUrl];
    assert.ok(entry?.tokens?.access_token, `tokens kept for ${tsUrl}`);
    assert.equal(entry.issuer, asUrl);
    assert.equal(jwtPayload(entry.tokens.access_token).aud, tsUrl);
    assert.ok(!r.stderr.includes(entry.tokens.access_token) && !r.stdout.includes(entry.tokens.access_token), 'no token in the output');

    const call = await cli(['call', '--json', 'whoami', tsUrl], { env: { OXMCP_TOKENS: tokens } });
    assert.equal(call.code, 0, call.stderr);
    const who = whoFromCli(call.stdout);
    assert.equal(who.subject, 'erin');
    assert.equal(who.clientId, entry.client?.client_id);
    assert.ok(who.scopes.includes('mcp:read'), JSON.stringify(who.scopes));
    assert.equal(who.audience, tsUrl);
  });
});
