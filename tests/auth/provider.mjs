// A real OAuth authorization server for the tests: oidc-provider on 127.0.0.1:PORT.
// Clients: `machine` (client credentials), `short` (client credentials, tokens already
// expired when issued), and any client that registers dynamically (the CLI's login).
// Access tokens for a resource are JWTs with that resource as audience (RFC 8707, 9068).
// Usage: node provider.mjs PORT
import Provider from 'oidc-provider';

const port = Number(process.argv[2]);
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    { client_id: 'machine', client_secret: 'machine-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] },
    { client_id: 'short', client_secret: 'short-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] },
  ],
  features: {
    devInteractions: { enabled: true },
    clientCredentials: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource, client) => ({
        scope: 'mcp:read mcp:write',
        audience: resource,
        accessTokenFormat: 'jwt',
        accessTokenTTL: 3600,
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
  // `short` gets JWTs that expired two minutes before they were issued.
  formats: {
    customizers: {
      jwt: async (_ctx, token, jwt) => {
        if (token.clientId === 'short') jwt.payload.exp = Math.floor(Date.now() / 1000) - 120;
      },
    },
  },
  scopes: ['openid', 'offline_access', 'mcp:read', 'mcp:write'],
  // Refresh tokens for every client allowed to use them, without the consent prompt the
  // default requires for offline_access.
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
});
provider.proxy = false;
const server = provider.listen(port, '127.0.0.1', () => console.log(`listening ${issuer}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
