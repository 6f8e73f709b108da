// A protected MCP server built with the official TypeScript SDK, for the OAuth interop tests
// (oauth.test.mjs): McpServer + StreamableHTTPServerTransport (stateful sessions) at
// http://127.0.0.1:PORT/mcp, behind the SDK's own resource-server helpers:
//   - mcpAuthMetadataRouter: protected resource metadata (RFC 9728) at
//     /.well-known/oauth-protected-resource/mcp naming ISSUER as the authorization server;
//   - requireBearerAuth: 401 with `WWW-Authenticate: Bearer ..., resource_metadata="..."`
//     without a valid token, 403 `insufficient_scope` without mcp:read, tokens for another
//     resource refused (expectedResource).
// Tokens are verified here as RS256 JWTs with `jose` against ISSUER's JWKS (signature,
// issuer, audience = this server's /mcp URL, `at+jwt` type, expiry); nothing unchecked is
// accepted. The tool `whoami` answers with what the verified token says:
// {"subject", "clientId", "scopes", "audience"}.
//
// Usage: node ts_protected_server.mjs PORT ISSUER
// Prints "ts protected server listening on http://127.0.0.1:PORT/mcp" once it serves, and
// one line per HTTP request ("http METHOD PATH STATUS") to stdout.
import { randomUUID } from 'node:crypto';

import { createRemoteJWKSet, jwtVerify } from 'jose';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

const port = Number(process.argv[2]);
const issuer = process.argv[3];
if (!port || !issuer) {
  console.error('usage: node ts_protected_server.mjs PORT ISSUER');
  process.exit(2);
}
const mcpUrl = new URL(`http://127.0.0.1:${port}/mcp`);

// The authorization server's metadata (oidc-provider publishes OpenID discovery).
const metaResponse = await fetch(new URL('/.well-known/openid-configuration', issuer));
if (!metaResponse.ok) throw new Error(`no metadata at ${issuer}: HTTP ${metaResponse.status}`);
const oauthMetadata = await metaResponse.json();
if (oauthMetadata.issuer !== issuer) throw new Error(`metadata names issuer ${oauthMetadata.issuer}, not ${issuer}`);
const jwks = createRemoteJWKSet(new URL(oauthMetadata.jwks_uri));

const verifier = {
  async verifyAccessToken(token) {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer,
        audience: mcpUrl.href,
        algorithms: ['RS256'],
        typ: 'at+jwt',
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (e) {
      // requireBearerAuth answers 500 for anything that is not an OAuthError.
      throw new InvalidTokenError(`token refused: ${e.code ?? e.name}`);
    }
    return {
      token,
      clientId: payload.client_id,
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
      expiresAt: payload.exp,
      resource: new URL([payload.aud].flat()[0]),
      extra: { subject: payload.sub },
    };
  },
};

function newServer() {
  const server = new McpServer({ name: 'ts-protected-server', version: '1.0.0' });
  server.registerTool('whoami', { description: "Who the request's verified access token speaks for." }, async (extra) => {
    const auth = extra.authInfo;
    const who = { subject: auth?.extra?.subject, clientId: auth?.clientId, scopes: auth?.scopes, audience: auth?.resource?.href };
    return { content: [{ type: 'text', text: JSON.stringify(who) }] };
  });
  server.registerTool('add', { description: 'A tool that needs no identity (lists next to whoami).' }, async () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  return server;
}

const app = createMcpExpressApp({ host: '127.0.0.1' });
app.use((req, res, next) => {
  const rpc = [req.body ?? []].flat().map((m) => m?.method ?? (m?.id !== undefined ? 'response' : '?')).join(',');
  const bearer = /^bearer /i.test(req.headers.authorization ?? '') ? 'bearer' : 'no-token';
  res.on('finish', () => console.log(`http ${req.method} ${req.originalUrl} ${bearer} ${rpc || '-'} ${res.statusCode}`));
  next();
});
app.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: mcpUrl, scopesSupported: ['mcp:read'], resourceName: 'TS SDK protected server' }));
const bearer = requireBearerAuth({
  verifier,
  requiredScopes: ['mcp:read'],
  resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  expectedResource: mcpUrl,
});

// Sessions: transport by session id. A session belongs to the subject that opened it.
const sessions = new Map();
const noSession = (res, status, message) => res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });

app.all('/mcp', bearer, async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  if (sessionId) {
    const session = sessions.get(sessionId);
    if (!session) return noSession(res, 404, 'unknown session');
    if (session.subject !== req.auth.extra.subject) return noSession(res, 403, 'session opened by another subject');
    return session.transport.handleRequest(req, res, req.body);
  }
  if (req.method !== 'POST') return noSession(res, 400, 'no session id');
  const subject = req.auth.extra.subject;
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, { transport, subject }),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await newServer().connect(transport);
  await transport.handleRequest(req, res, req.body);
});

const listener = app.listen(port, '127.0.0.1', () => console.log(`ts protected server listening on ${mcpUrl.href}`));
listener.on('error', (e) => {
  console.error(`listen failed: ${e.message}`);
  process.exit(1);
});
process.on('SIGTERM', () => {
  for (const { transport } of sessions.values()) transport.close().catch(() => {});
  listener.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
