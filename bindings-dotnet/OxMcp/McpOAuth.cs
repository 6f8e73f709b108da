using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace OxMcp
{
    /// <summary>
    /// How a client authorizes at a protected server (the <c>oauth</c> argument of
    /// <see cref="McpClient.ConnectHttpAsync"/>). The engine runs the MCP authorization flow:
    /// it discovers the authorization server from the server's 401 challenge, registers the
    /// client dynamically when no <see cref="ClientId"/> is given, gets tokens (PKCE), refreshes
    /// them and asks for more scope when the server wants it. When the server refuses the
    /// client and no token can be had, the call throws <see cref="McpException"/> with
    /// <see cref="McpStatus.Unauthorized"/>.
    /// <para>A machine acting for itself (client credentials):</para>
    /// <code>
    /// var oauth = new McpOAuth { Grant = "client_credentials", ClientId = "my-service", ClientSecret = secret, Issuer = "https://auth.example.com" };
    /// using (var client = await McpClient.ConnectHttpAsync("https://mcp.example.com/mcp", oauth: oauth))
    ///     Console.WriteLine(await client.CallToolAsync("whoami"));
    /// </code>
    /// <para>A user in a browser (the authorization code grant, the default): <see cref="Authorize"/>
    /// sends the user to the authorization URL and returns the whole URL the browser was sent
    /// back to (its <c>state</c> is checked before the code is used). Tokens live in memory, or
    /// in <see cref="TokenFile"/> (readable by its owner only) to outlive the process:</para>
    /// <code>
    /// var oauth = new McpOAuth
    /// {
    ///     RedirectUri = "http://127.0.0.1:8765/callback",
    ///     TokenFile = "/home/me/.my-app/tokens.json",
    ///     Authorize = async (authorizationUrl, ct) =>
    ///     {
    ///         Process.Start("xdg-open", authorizationUrl);
    ///         return await callbackListener.NextRedirectAsync(ct);   // the URL the browser came back to
    ///     },
    /// };
    /// var client = await McpClient.ConnectHttpAsync(url, oauth: oauth);
    /// </code>
    /// </summary>
    public sealed class McpOAuth
    {
        /// <summary><c>"authorization_code"</c> (the default when null) or <c>"client_credentials"</c>.</summary>
        public string Grant { get; set; }
        /// <summary>A client registered beforehand (without one, the client registers itself).</summary>
        public string ClientId { get; set; }
        /// <summary>The secret of a confidential client.</summary>
        public string ClientSecret { get; set; }
        /// <summary>
        /// The authorization server's issuer the configured credentials belong to: any other one
        /// the MCP server names is refused, so a secret or key never goes to an authorization
        /// server a (hostile) server picked. Recommended whenever a secret or a key is configured.
        /// </summary>
        public string Issuer { get; set; }
        /// <summary>The scope to ask for instead of the one the server suggests (space-separated).</summary>
        public string Scope { get; set; }
        /// <summary>The name dynamic registration gives the client.</summary>
        public string ClientName { get; set; }
        /// <summary>Where the authorization server sends the browser back.</summary>
        public string RedirectUri { get; set; }
        /// <summary>The URL of this client's metadata document, used as its client id where the authorization server supports that.</summary>
        public string ClientMetadataUrl { get; set; }
        /// <summary>A private key (PKCS#8 PEM) to authenticate the client with a signed JWT (<c>private_key_jwt</c>).</summary>
        public string PrivateKeyPem { get; set; }
        /// <summary>The key's algorithm (default <c>ES256</c>).</summary>
        public string SigningAlg { get; set; }
        /// <summary>A file to keep the tokens in between runs (created readable by its owner only); null keeps them in memory.</summary>
        public string TokenFile { get; set; }
        /// <summary>
        /// The user's browser, for the authorization code grant: gets the authorization URL and
        /// returns the URL the browser was sent back to (the redirect URI with <c>code</c> and
        /// <c>state</c>). Runs on the thread pool and may take as long as the user does. Without
        /// it, a client that needs a user's authorization fails with <see cref="McpStatus.Unauthorized"/>.
        /// </summary>
        public Func<string, CancellationToken, Task<string>> Authorize { get; set; }

        /// <summary>The engine's OAuth options (camelCase JSON), without the token file and the handler.</summary>
        internal string ToJson()
        {
            var b = new StringBuilder("{");
            Add(b, "grant", Grant);
            Add(b, "clientId", ClientId);
            Add(b, "clientSecret", ClientSecret);
            Add(b, "issuer", Issuer);
            Add(b, "scope", Scope);
            Add(b, "clientName", ClientName);
            Add(b, "redirectUri", RedirectUri);
            Add(b, "clientMetadataUrl", ClientMetadataUrl);
            Add(b, "privateKeyPem", PrivateKeyPem);
            Add(b, "signingAlg", SigningAlg);
            return b.Append('}').ToString();
        }

        private static void Add(StringBuilder b, string key, string value)
        {
            if (value == null) return;
            if (b.Length > 1) b.Append(',');
            b.Append(McpJson.Quote(key)).Append(':').Append(McpJson.Quote(value));
        }
    }

    /// <summary>
    /// Protects an HTTP listener with OAuth (the <c>auth</c> argument of
    /// <see cref="McpServer.StartHttp"/>): every request needs an access token from
    /// <see cref="Issuer"/>, a JWT checked against the issuer's keys (its JWKS) for
    /// <see cref="Audience"/> (default: the endpoint's own URL). The server publishes its
    /// protected resource metadata and answers a request without a valid token with 401, or
    /// 403 when a scope is missing (the client then asks for it). Handlers see who the token
    /// speaks for in <see cref="McpRequestContext.Auth"/>.
    /// <code>
    /// var auth = new McpHttpAuth("https://auth.example.com") { Scopes = new[] { "mcp:read" } };
    /// auth.ToolScopes["erase"] = new[] { "mcp:write" };
    /// int port = server.StartHttp("127.0.0.1:8080", auth: auth);
    /// </code>
    /// </summary>
    public sealed class McpHttpAuth
    {
        /// <summary>Requires tokens issued by <paramref name="issuer"/>.</summary>
        public McpHttpAuth(string issuer)
        {
            Issuer = issuer;
        }

        /// <summary>The authorization server clients go to, and the tokens' issuer.</summary>
        public string Issuer { get; set; }
        /// <summary>The resource tokens must be for (default: <c>http://HOST:PORT/PATH</c>, the endpoint's URL).</summary>
        public string Audience { get; set; }
        /// <summary>Scopes every request needs.</summary>
        public string[] Scopes { get; set; }
        /// <summary>Scopes a call of the named tool needs besides <see cref="Scopes"/>.</summary>
        public IDictionary<string, string[]> ToolScopes { get; } = new Dictionary<string, string[]>();

        internal string ToJson()
        {
            var b = new StringBuilder("{\"issuer\":").Append(McpJson.Quote(Issuer));
            if (Audience != null) b.Append(",\"audience\":").Append(McpJson.Quote(Audience));
            b.Append(",\"scopes\":").Append(Array(Scopes)).Append(",\"toolScopes\":{");
            bool first = true;
            foreach (var e in ToolScopes)
            {
                if (!first) b.Append(',');
                first = false;
                b.Append(McpJson.Quote(e.Key)).Append(':').Append(Array(e.Value));
            }
            return b.Append("}}").ToString();
        }

        internal static string Array(string[] items)
        {
            var b = new StringBuilder("[");
            if (items != null)
                for (int i = 0; i < items.Length; i++) b.Append(i > 0 ? "," : "").Append(McpJson.Quote(items[i]));
            return b.Append(']').ToString();
        }
    }

    /// <summary>
    /// Who a request's OAuth access token speaks for, as a handler of a protected server sees
    /// it (<see cref="McpRequestContext.Auth"/>). The token itself stays in the engine.
    /// <code>
    /// server.AddTool("whoami", "Who am I", null, (args, ctx, ct) =>
    ///     Task.FromResult(McpJson.TextResult(ctx.Auth == null ? "anonymous" : ctx.Auth.Subject)));
    /// </code>
    /// </summary>
    public sealed class McpAuth
    {
        /// <summary>The user or workload (<c>sub</c>), or null.</summary>
        public string Subject { get; private set; }
        /// <summary>The OAuth client the token was issued to, or null.</summary>
        public string ClientId { get; private set; }
        /// <summary>The scopes the token grants.</summary>
        public string[] Scopes { get; private set; }
        /// <summary>When the token expires (seconds since the epoch), or null.</summary>
        public long? ExpiresAt { get; private set; }
        /// <summary>Every claim of a JWT access token, as a JSON object (<c>{}</c> when none).</summary>
        public string ClaimsJson { get; private set; }
        /// <summary>All of it as the engine's JSON (<c>{"subject", "clientId", "scopes", "expiresAt", "claims"}</c>).</summary>
        public string Json { get; private set; }

        private McpAuth()
        {
        }

        /// <summary>
        /// An identity a token verifier (<see cref="McpServer.VerifyTokens"/>) answers for an
        /// accepted token: the subject, the scopes granted, and optionally the client, the
        /// expiry (seconds since the epoch) and the claims (a JSON object).
        /// </summary>
        public McpAuth(string subject, string[] scopes = null, string clientId = null, long? expiresAt = null, string claimsJson = null)
        {
            Subject = subject;
            Scopes = scopes ?? new string[0];
            ClientId = clientId;
            ExpiresAt = expiresAt;
            ClaimsJson = claimsJson ?? "{}";
            var b = new StringBuilder("{\"subject\":").Append(subject == null ? "null" : McpJson.Quote(subject))
                .Append(",\"clientId\":").Append(clientId == null ? "null" : McpJson.Quote(clientId))
                .Append(",\"scopes\":[");
            for (int i = 0; i < Scopes.Length; i++) b.Append(i > 0 ? "," : "").Append(McpJson.Quote(Scopes[i]));
            b.Append("],\"expiresAt\":").Append(expiresAt.HasValue ? expiresAt.Value.ToString(CultureInfo.InvariantCulture) : "null")
                .Append(",\"claims\":").Append(ClaimsJson).Append('}');
            Json = b.ToString();
        }

        /// <summary>Reads the engine's JSON; null for JSON null.</summary>
        internal static McpAuth Parse(string json)
        {
            if (json == null || json.Trim().Length == 0) return null;
            return From(JsonCodec.Object(json), json);
        }

        /// <summary>Reads the engine's parsed JSON object (<paramref name="json"/> its text, or null to write it again); null for null.</summary>
        internal static McpAuth From(Dictionary<string, object> m, string json = null)
        {
            if (m == null) return null;
            object exp = Get(m, "expiresAt"), claims = Get(m, "claims");
            var scopes = Get(m, "scopes") as List<object>;
            return new McpAuth
            {
                Subject = Get(m, "subject") as string,
                ClientId = Get(m, "clientId") as string,
                Scopes = scopes == null ? new string[0] : scopes.Select(x => x as string).ToArray(),
                ExpiresAt = exp == null ? (long?)null : (long)Convert.ToDouble(exp, CultureInfo.InvariantCulture),
                ClaimsJson = claims == null ? "{}" : JsonCodec.Write(claims),
                Json = json ?? JsonCodec.Write(m),
            };
        }

        private static object Get(Dictionary<string, object> m, string key)
        {
            object v;
            return m.TryGetValue(key, out v) ? v : null;
        }
    }
}
