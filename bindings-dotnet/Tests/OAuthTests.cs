// OAuth with real parts: an oidc-provider authorization server (tests/auth/provider.mjs) and
// `oxmcp everything-server --auth-issuer ISSUER --auth-scopes mcp:read` (its `whoami` tool
// answers who the token speaks for), both started by run-tests.sh:
//
//   OxMcp.Tests.exe oauth ISSUER PROTECTED_URL NODE BROWSER_MJS TOKEN_FILE
//
// The C# client gets tokens by client credentials and by the authorization code grant (its
// Authorize handler plays the browser with NODE and tests/auth/browser.mjs), is refused
// (Unauthorized) without OAuth; a C# server protected with McpHttpAuth reads ctx.Auth; a C#
// server whose tokens McpServer.VerifyTokens checks, called with an Authorization header.
// Ends with "N passed, M failed".
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using OxMcp;

internal static class OAuthTests
{
    private const string Redirect = "http://127.0.0.1:9/callback";
    private static int _passed, _failed;
    private static string _issuer, _node, _browser;

    private static void Check(bool ok, string what)
    {
        if (ok) _passed++;
        else
        {
            _failed++;
            Console.Error.WriteLine("FAIL: " + what);
        }
    }

    /// <summary>The status of the McpException <paramref name="body"/> throws (null if none or another exception).</summary>
    private static async Task<McpStatus?> Refused(Func<Task> body, string what)
    {
        try
        {
            await body();
            Check(false, what + " (no exception)");
        }
        catch (McpException e)
        {
            return e.Status;
        }
        catch (Exception e)
        {
            Check(false, what + " (" + e.GetType().Name + ": " + e.Message + ")");
        }
        return null;
    }

    private static McpOAuth Machine(string scope = null)
    {
        return new McpOAuth { Grant = "client_credentials", ClientId = "machine", ClientSecret = "machine-secret", Scope = scope };
    }

    /// <summary>The JSON of a tool result's first text block, parsed.</summary>
    private static object Text(CallToolResult result)
    {
        return MiniJson.Parse(((TextContentBlock)result.Content[0]).Text);
    }

    internal static int Run(string[] args)
    {
        _issuer = args[1];
        _node = args[3];
        _browser = args[4];
        Clients(args[2], args[5]).GetAwaiter().GetResult();
        Console.WriteLine(_passed + " passed, " + _failed + " failed");
        return _failed == 0 ? 0 : 1;
    }

    private static async Task Clients(string url, string tokenFile)
    {
        // Client credentials.
        using (var c = await McpClient.ConnectHttpAsync(url, oauth: Machine()))
        {
            object who = Text(await c.CallToolAsync("whoami"));
            Check(MiniJson.Str(who, "subject") == "machine", "[oauth] client credentials: whoami is machine (" + MiniJson.Write(who) + ")");
            Check(MiniJson.Write(MiniJson.Get(who, "scopes")) == "[\"mcp:read\"]", "[oauth] with the scope the server needs");
        }

        // Credentials pinned to their issuer: fine there, refused for another.
        var pinned = Machine();
        pinned.Issuer = _issuer;
        using (var c = await McpClient.ConnectHttpAsync(url, oauth: pinned))
            Check(MiniJson.Str(Text(await c.CallToolAsync("whoami")), "subject") == "machine", "[oauth] pinned to the right issuer: connected");
        var elsewhere = Machine();
        elsewhere.Issuer = "http://127.0.0.1:9";
        Check(await Refused(() => McpClient.ConnectHttpAsync(url, oauth: elsewhere), "[oauth] pinned elsewhere") == McpStatus.Unauthorized,
            "[oauth] credentials pinned to another issuer: Unauthorized");

        // No OAuth, or a wrong secret: Unauthorized.
        Check(await Refused(() => McpClient.ConnectHttpAsync(url), "[oauth] no OAuth") == McpStatus.Unauthorized,
            "[oauth] without OAuth: Unauthorized");
        var wrong = new McpOAuth { Grant = "client_credentials", ClientId = "machine", ClientSecret = "guess" };
        Check(await Refused(() => McpClient.ConnectHttpAsync(url, oauth: wrong), "[oauth] wrong secret") == McpStatus.Unauthorized,
            "[oauth] a wrong secret: Unauthorized");
        Check(await Refused(() => McpClient.ConnectHttpAsync(url, oauth: new McpOAuth { Grant = "password" }), "[oauth] bad grant") == McpStatus.InvalidInput,
            "[oauth] an unknown grant: InvalidInput");

        // The authorization code grant: the browser played by node, tokens kept in a file.
        var asked = new List<string>();
        if (File.Exists(tokenFile)) File.Delete(tokenFile);
        var user = new McpOAuth
        {
            RedirectUri = Redirect,
            ClientName = "csharp-oauth-test",
            TokenFile = tokenFile,
            Authorize = (authorizationUrl, ct) =>
            {
                lock (asked) asked.Add(authorizationUrl);
                return Task.Run(() => PlayBrowser(authorizationUrl, "erin"), ct);
            },
        };
        using (var c = await McpClient.ConnectHttpAsync(url, oauth: user))
            Check(MiniJson.Str(Text(await c.CallToolAsync("whoami")), "subject") == "erin", "[oauth] authorization code: whoami is the user, erin");
        Check(asked.Count == 1 && asked[0].StartsWith(_issuer + "/auth?", StringComparison.Ordinal) && asked[0].Contains("code_challenge="),
            "[oauth] the browser was sent to the authorization URL once (" + string.Join(" ", asked) + ")");
        Check(FileMode(tokenFile) == "600", "[oauth] the tokens are kept in a 0600 file (" + FileMode(tokenFile) + ")");

        // The kept tokens serve the next client: the browser is not asked again.
        var again = new McpOAuth
        {
            RedirectUri = Redirect,
            TokenFile = tokenFile,
            Authorize = (u, ct) => { throw new InvalidOperationException("the browser was asked again"); },
        };
        using (var c = await McpClient.ConnectHttpAsync(url, oauth: again))
            Check(MiniJson.Str(Text(await c.CallToolAsync("whoami")), "subject") == "erin", "[oauth] the kept tokens connect without the browser");

        // A forged redirect (another flow's state): Unauthorized, naming the state.
        var forged = new McpOAuth { RedirectUri = Redirect, Authorize = (u, ct) => Task.FromResult(Redirect + "?code=stolen&state=not-this-flow") };
        try
        {
            await McpClient.ConnectHttpAsync(url, oauth: forged);
            Check(false, "[oauth] a forged redirect is refused");
        }
        catch (McpException e)
        {
            Check(e.Status == McpStatus.Unauthorized && e.Message.Contains("state"), "[oauth] a forged redirect: Unauthorized about the state (" + e.Message + ")");
        }

        await ServerTests();
        await VerifierTests();
    }

    /// <summary>A C# server protected with McpHttpAuth: the handler reads ctx.Auth.</summary>
    private static async Task ServerTests()
    {
        var seen = new List<McpAuth>();
        using (var server = new McpServer("csharp-guarded", "1.0.0"))
        {
            server.AddTool("whoami", "Who the token speaks for", null, (args, ctx, ct) =>
            {
                McpAuth who = ctx.Auth;
                lock (seen) seen.Add(who);
                return Task.FromResult(McpJson.TextResult(who == null ? "null" : who.Json));
            });
            server.AddTool("erase", null, null, (args, ct) => Task.FromResult(McpJson.TextResult("erased")));
            // A shared store (scale-out) that cannot be reached fails the start, naming it.
            try
            {
                server.StartHttp("127.0.0.1:0", redis: "redis://127.0.0.1:1");
                Check(false, "[oauth-server] an unreachable redis fails the start");
            }
            catch (McpException e)
            {
                Check(e.Status == McpStatus.Transport && e.Message.Contains("redis://127.0.0.1:1"),
                    "[oauth-server] an unreachable redis fails the start with its URL: " + e.Message);
            }
            var auth = new McpHttpAuth(_issuer) { Scopes = new[] { "mcp:read" } };
            auth.ToolScopes["erase"] = new[] { "mcp:write" };
            int port = server.StartHttp("127.0.0.1:0", auth: auth);
            string url = "http://127.0.0.1:" + port + "/mcp";

            using (var c = await McpClient.ConnectHttpAsync(url, oauth: Machine("mcp:read")))
            {
                object who = Text(await c.CallToolAsync("whoami"));
                Check(MiniJson.Str(who, "subject") == "machine" && MiniJson.Str(who, "clientId") == "machine",
                    "[oauth-server] the handler sees the subject and client (" + MiniJson.Write(who) + ")");
                McpAuth first = seen[0];
                Check(first.Subject == "machine" && first.ClientId == "machine" && first.Scopes.SequenceEqual(new[] { "mcp:read" }),
                    "[oauth-server] ctx.Auth: Subject, ClientId, Scopes");
                Check(first.ExpiresAt.HasValue && first.ExpiresAt.Value > DateTimeOffset.UtcNow.ToUnixTimeSeconds(), "[oauth-server] ctx.Auth.ExpiresAt in the future");
                object claims = MiniJson.Parse(first.ClaimsJson);
                Check(MiniJson.Str(claims, "aud") == url && MiniJson.Str(claims, "iss") == _issuer,
                    "[oauth-server] ctx.Auth.ClaimsJson: aud is the endpoint, iss the issuer (" + first.ClaimsJson + ")");
                // The tool's own scope: the client steps up (asks for both) and goes on.
                Check((await c.CallToolAsync("erase")).Text.Contains("erased"), "[oauth-server] a tool needing mcp:write: the client steps up");
                await c.CallToolAsync("whoami");
                McpAuth last = seen[seen.Count - 1];
                Check(last.Scopes.OrderBy(s => s).SequenceEqual(new[] { "mcp:read", "mcp:write" }),
                    "[oauth-server] then holds both scopes (" + string.Join(" ", last.Scopes) + ")");
            }
            Check(await Refused(() => McpClient.ConnectHttpAsync(url), "[oauth-server] no token") == McpStatus.Unauthorized,
                "[oauth-server] a client without a token: Unauthorized");

            // An unprotected listener: no token, ctx.Auth is null.
            server.StopHttp();
            int open = server.StartHttp();
            using (var c = await McpClient.ConnectHttpAsync("http://127.0.0.1:" + open + "/mcp"))
                await c.CallToolAsync("whoami");
            Check(seen[seen.Count - 1] == null, "[oauth-server] unprotected: ctx.Auth is null");
            server.StopHttp();
        }
    }

    /// <summary>A C# server whose tokens a C# function checks; clients send a Bearer header.</summary>
    private static async Task VerifierTests()
    {
        var tokens = new List<string>();
        using (var server = new McpServer("csharp-verified", "1.0.0"))
        {
            server.AddTool("whoami", "Who the token speaks for", null, (args, ctx, ct) =>
                Task.FromResult(McpJson.TextResult(ctx.Auth == null ? "anonymous" : ctx.Auth.Subject)));
            server.VerifyTokens((token, ct) =>
            {
                lock (tokens) tokens.Add(token);
                return Task.FromResult(token == "s3cret" ? new McpAuth("alice", new[] { "mcp:read" }) : null);
            });
            int port = server.StartHttp("127.0.0.1:0", auth: new McpHttpAuth("https://auth.example.com") { Scopes = new[] { "mcp:read" } });
            string url = "http://127.0.0.1:" + port + "/mcp";

            var good = new Dictionary<string, string> { { "Authorization", "Bearer s3cret" } };
            using (var c = await McpClient.ConnectHttpAsync(url, headers: good))
            {
                CallToolResult result = await c.CallToolAsync("whoami");
                Check(result.Text == "alice", "[verify-tokens] the accepted token speaks for alice (" + result.Json + ")");
            }
            var bad = new Dictionary<string, string> { { "Authorization", "Bearer wrong" } };
            Check(await Refused(() => McpClient.ConnectHttpAsync(url, headers: bad), "[verify-tokens] another token") == McpStatus.Unauthorized,
                "[verify-tokens] another token: Unauthorized");
            lock (tokens)
                Check(tokens.Contains("s3cret") && tokens.Contains("wrong"), "[verify-tokens] the verifier saw both tokens (" + string.Join(" ", tokens) + ")");
            server.StopHttp();
        }
    }

    private static string FileMode(string path)
    {
        var p = Process.Start(new ProcessStartInfo("stat", "-c %a " + path) { RedirectStandardOutput = true, UseShellExecute = false });
        string mode = p.StandardOutput.ReadToEnd().Trim();
        p.WaitForExit();
        return mode;
    }

    /// <summary>Logs in as <paramref name="login"/> and consents (tests/auth/browser.mjs, run by node); the URL
    /// the authorization server sends the browser back to.</summary>
    private static string PlayBrowser(string authorizationUrl, string login)
    {
        string script = "import {consent} from 'file://" + _browser + "'; console.log(await consent(process.argv[1], '" + login + "', {visit: false}))";
        var info = new ProcessStartInfo(_node)
        {
            Arguments = "--input-type=module -e \"" + script + "\" \"" + authorizationUrl + "\"",
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        using (var p = Process.Start(info))
        {
            Task<string> err = p.StandardError.ReadToEndAsync();
            string landed = p.StandardOutput.ReadToEnd().Trim();
            if (!p.WaitForExit(60000)) p.Kill();
            if (p.ExitCode != 0 || !landed.StartsWith(Redirect + "?", StringComparison.Ordinal))
                throw new InvalidOperationException("the browser did not come back: " + landed + " " + err.Result);
            return landed;
        }
    }
}
