package dev.oxmcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OAuth with real parts: an oidc-provider authorization server (tests/auth/provider.mjs,
 * installed by tests/auth/install.sh) and a protected `oxmcp everything-server
 * --auth-issuer` whose {@code whoami} tool answers who the token speaks for. The Java client
 * gets tokens by client credentials and by the authorization code grant, whose browser the
 * test plays over HTTP (login form, consent form, redirect back); a Java server protected
 * with {@link HttpAuth} reads {@link RequestContext#auth()}; a Java server whose tokens
 * {@link McpServer#verifyTokens} checks answers clients sending an Authorization header.
 */
class OAuthTest {
    static final String REDIRECT = "http://127.0.0.1:9/callback";

    static Process provider;
    static Process protectedServer;
    static String issuer;
    static String protectedUrl;

    @BeforeAll
    static void start() throws Exception {
        Path node = Support.REPO.resolve("tests/auth/node_modules/node/bin/node");
        assertTrue(Files.isExecutable(node), "run tests/auth/install.sh first (run-tests.sh does)");
        int asPort = Support.freePort();
        provider = new ProcessBuilder(node.toString(), Support.REPO.resolve("tests/auth/provider.mjs").toString(), String.valueOf(asPort))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        Support.awaitPort(asPort, provider);
        issuer = "http://127.0.0.1:" + asPort;
        int port = Support.freePort();
        protectedServer = new ProcessBuilder(Support.oxmcpBin(), "everything-server", "--http", "127.0.0.1:" + port,
                        "--auth-issuer", issuer, "--auth-scopes", "mcp:read")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        Support.awaitPort(port, protectedServer);
        protectedUrl = "http://127.0.0.1:" + port + "/mcp";
    }

    @AfterAll
    static void stop() throws Exception {
        Support.stop(protectedServer);
        Support.stop(provider);
    }

    static OAuth machine() {
        return OAuth.clientCredentials("machine", "machine-secret");
    }

    /** The JSON text of a tool result's first text block. */
    static JsonNode text(String callToolResult) {
        return Support.json(Support.json(callToolResult).get("content").get(0).get("text").asText());
    }

    static McpException.Kind failureKind(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        return assertInstanceOf(McpException.class, e.getCause()).kind();
    }

    @Test
    void clientCredentialsGetATokenForTheMachine() {
        try (McpClient c = McpClient.connect(McpClient.Options.http(protectedUrl).oauth(machine())).join()) {
            JsonNode who = text(c.callTool("whoami", null).join());
            assertEquals("machine", who.get("subject").asText());
            assertEquals("machine", who.get("clientId").asText());
            assertEquals("[\"mcp:read\"]", who.get("scopes").toString());
            assertEquals(protectedUrl, who.get("claims").get("aud").asText());
        }
    }

    @Test
    void credentialsPinnedToTheirIssuerGoNowhereElse() {
        try (McpClient c = McpClient.connect(McpClient.Options.http(protectedUrl).oauth(machine().issuer(issuer))).join()) {
            assertEquals("machine", text(c.callTool("whoami", null).join()).get("subject").asText());
        }
        OAuth elsewhere = machine().issuer("http://127.0.0.1:9");
        CompletionException e = assertThrows(CompletionException.class,
                () -> McpClient.connect(McpClient.Options.http(protectedUrl).oauth(elsewhere)).join());
        McpException m = assertInstanceOf(McpException.class, e.getCause());
        assertEquals(McpException.Kind.UNAUTHORIZED, m.kind());
        assertTrue(m.getMessage().contains(issuer), m.getMessage());
    }

    @Test
    void withoutOAuthOrWithAWrongSecretTheClientIsUnauthorized() {
        assertEquals(McpException.Kind.UNAUTHORIZED, failureKind(McpClient.connect(McpClient.Options.http(protectedUrl))));
        OAuth wrong = OAuth.clientCredentials("machine", "guess");
        assertEquals(McpException.Kind.UNAUTHORIZED, failureKind(McpClient.connect(McpClient.Options.http(protectedUrl).oauth(wrong))));
    }

    @Test
    void theAuthorizationCodeGrantGoesThroughTheUsersBrowser(@TempDir Path dir) throws Exception {
        List<String> asked = new CopyOnWriteArrayList<>();
        String tokens = dir.resolve("tokens.json").toString();
        OAuth user = OAuth.authorizationCode(REDIRECT, url -> {
                    asked.add(url);
                    return CompletableFuture.supplyAsync(() -> playBrowser(url, "dana"));
                })
                .clientName("java-oauth-test")
                .tokenFile(tokens);
        try (McpClient c = McpClient.connect(McpClient.Options.http(protectedUrl).oauth(user)).join()) {
            assertEquals("dana", text(c.callTool("whoami", null).join()).get("subject").asText());
        }
        assertEquals(1, asked.size(), "the browser was needed once");
        assertTrue(asked.get(0).startsWith(issuer + "/auth?"), asked.get(0));
        assertTrue(asked.get(0).contains("code_challenge="), "PKCE");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of(tokens))));

        // The kept tokens serve the next client: the browser is not asked again.
        OAuth again = OAuth.authorizationCode(REDIRECT, url -> {
            throw new AssertionError("the browser was asked again");
        }).tokenFile(tokens);
        try (McpClient c = McpClient.connect(McpClient.Options.http(protectedUrl).oauth(again)).join()) {
            assertEquals("dana", text(c.callTool("whoami", null).join()).get("subject").asText());
        }

        // A forged redirect (another flow's state) is refused: UNAUTHORIZED, naming the state.
        OAuth forged = OAuth.authorizationCode(REDIRECT,
                url -> CompletableFuture.completedFuture(REDIRECT + "?code=stolen&state=not-this-flow"));
        CompletionException e = assertThrows(CompletionException.class,
                () -> McpClient.connect(McpClient.Options.http(protectedUrl).oauth(forged)).join());
        McpException m = assertInstanceOf(McpException.class, e.getCause());
        assertEquals(McpException.Kind.UNAUTHORIZED, m.kind());
        assertTrue(m.getMessage().contains("state"), m.getMessage());

        // A handler that fails is no crash either.
        OAuth failing = OAuth.authorizationCode(REDIRECT, url -> CompletableFuture.failedFuture(new IllegalStateException("no browser here")));
        assertThrows(CompletionException.class, () -> McpClient.connect(McpClient.Options.http(protectedUrl).oauth(failing)).join());
    }

    @Test
    void badOAuthOptionsAreRefused() {
        OAuth bad = OAuth.options().grant("password");
        assertEquals(McpException.Kind.INVALID_INPUT, failureKind(McpClient.connect(McpClient.Options.http(protectedUrl).oauth(bad))));
    }

    @Test
    void aJavaServerProtectedByOAuthSeesWhoTheTokenSpeaksFor() throws Exception {
        List<AuthInfo> seen = new CopyOnWriteArrayList<>();
        try (McpServer server = new McpServer("java-guarded", "1.0.0")) {
            server.tool("whoami", "Who the token speaks for", "{\"type\":\"object\"}", (args, ctx) -> {
                AuthInfo who = ctx.auth();
                seen.add(who);
                String json = who == null ? "null"
                        : "{\"subject\":" + Json.quote(who.subject()) + ",\"client\":" + Json.quote(who.clientId())
                                + ",\"scopes\":" + Support.JSON.writeValueAsString(who.scopes()) + ",\"claims\":" + who.claimsJson() + "}";
                return CompletableFuture.completedFuture(Json.textResult(json));
            });
            server.tool("erase", null, "{\"type\":\"object\"}", (args, ctx) -> CompletableFuture.completedFuture(Json.textResult("erased")));
            // A shared store (scale-out) that cannot be reached fails the start, naming it.
            CompletionException unreachable = assertThrows(CompletionException.class,
                    () -> server.startHttp("127.0.0.1", 0, "/mcp", false, false, null, "redis://127.0.0.1:1").join());
            McpException refused = assertInstanceOf(McpException.class, unreachable.getCause());
            assertEquals(McpException.Kind.TRANSPORT, refused.kind());
            assertTrue(refused.getMessage().contains("redis://127.0.0.1:1"), refused.getMessage());
            String url = server.startHttp("127.0.0.1", 0, HttpAuth.issuer(issuer).scopes("mcp:read").toolScopes("erase", "mcp:write")).join();

            try (McpClient c = McpClient.connect(McpClient.Options.http(url).oauth(machine().scope("mcp:read"))).join()) {
                JsonNode who = text(c.callTool("whoami", null).join());
                assertEquals("machine", who.get("subject").asText());
                assertEquals("machine", who.get("client").asText());
                assertEquals("[\"mcp:read\"]", who.get("scopes").toString());
                assertEquals(url, who.get("claims").get("aud").asText());
                assertEquals(issuer, who.get("claims").get("iss").asText());
                AuthInfo first = seen.get(0);
                assertNotNull(first.expiresAt());
                assertTrue(first.expiresAt() > System.currentTimeMillis() / 1000, "expires in the future");
                // The tool's own scope: the client steps up (asks for both) and goes on.
                assertEquals("erased", Support.json(c.callTool("erase", null).join()).get("content").get(0).get("text").asText());
                JsonNode after = text(c.callTool("whoami", null).join());
                List<String> scopes = new java.util.ArrayList<>();
                after.get("scopes").forEach(s -> scopes.add(s.asText()));
                assertEquals(List.of("mcp:read", "mcp:write"), scopes.stream().sorted().collect(Collectors.toList()));
            }
            // No token: refused, clearly.
            assertEquals(McpException.Kind.UNAUTHORIZED, failureKind(McpClient.connect(McpClient.Options.http(url))));

            // An unprotected listener: the handler sees no token.
            server.stopHttp().join();
            String open = server.startHttp("127.0.0.1", 0).join();
            try (McpClient c = McpClient.connect(McpClient.Options.http(open)).join()) {
                c.callTool("whoami", null).join();
            }
            assertNull(seen.get(seen.size() - 1));
        }
    }

    @Test
    void aHostFunctionChecksTheTokens() throws Exception {
        List<String> tokens = new CopyOnWriteArrayList<>();
        try (McpServer server = new McpServer("java-verified", "1.0.0")) {
            server.tool("whoami", null, "{\"type\":\"object\"}", (args, ctx) ->
                    CompletableFuture.completedFuture(Json.textResult(ctx.auth() == null ? "anonymous" : ctx.auth().subject())));
            server.verifyTokens(token -> {
                tokens.add(token);
                return CompletableFuture.completedFuture(
                        token.equals("s3cret") ? new AuthInfo("alice", null, List.of("mcp:read"), null, "{}") : null);
            });
            String url = server.startHttp("127.0.0.1", 0, HttpAuth.issuer("https://auth.example.com").scopes("mcp:read")).join();

            try (McpClient c = McpClient.connect(McpClient.Options.http(url).header("Authorization", "Bearer s3cret")).join()) {
                String result = c.callTool("whoami", null).join();
                assertEquals("alice", Support.json(result).get("content").get(0).get("text").asText());
            }
            assertEquals(McpException.Kind.UNAUTHORIZED,
                    failureKind(McpClient.connect(McpClient.Options.http(url).header("Authorization", "Bearer wrong"))));
            assertTrue(tokens.contains("s3cret") && tokens.contains("wrong"), "the verifier saw both tokens: " + tokens);
            server.stopHttp().join();
        }
    }

    @Test
    void authInfoWritesTheEnginesJson() {
        AuthInfo a = new AuthInfo("alice", null, List.of("mcp:read", "x\"y"), 17L, "{\"k\":1}");
        assertEquals(a, AuthInfo.parse(a.toJson()));
    }

    @Test
    void authInfoReadsTheEnginesJson() {
        AuthInfo a = AuthInfo.parse("{\"subject\":\"s\",\"clientId\":null,\"scopes\":[\"a\",\"b\\\"c\"],\"expiresAt\":17,\"claims\":{\"x\":[1,{\"y\":\"}\"}]}}");
        assertEquals("s", a.subject());
        assertNull(a.clientId());
        assertEquals(List.of("a", "b\"c"), a.scopes());
        assertEquals(17L, a.expiresAt());
        assertEquals("{\"x\":[1,{\"y\":\"}\"}]}", a.claimsJson());
        assertNull(AuthInfo.parse("null"));
    }

    // ---- the user's browser, over HTTP ------------------------------------------------------

    private static final Pattern FORM_ACTION = Pattern.compile("<form[^>]*action=\"([^\"]+)\"");
    private static final Pattern PROMPT = Pattern.compile("name=\"prompt\" value=\"(\\w+)\"");

    /**
     * Logs in as {@code user} and consents at the authorization server, following redirects
     * with the browser's cookies; returns the URL it sends the browser back to (not visited:
     * that is the client's business). As tests/auth/browser.mjs does.
     */
    static String playBrowser(String authorizationUrl, String user) {
        HttpClient http = HttpClient.newBuilder()
                .cookieHandler(new CookieManager(null, CookiePolicy.ACCEPT_ALL))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        try {
            URI url = URI.create(authorizationUrl);
            HttpRequest request = HttpRequest.newBuilder(url).GET().build();
            for (int step = 0; step < 20; step++) {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() >= 300 && r.statusCode() < 400) {
                    url = url.resolve(r.headers().firstValue("location").orElseThrow());
                    if (url.getPath().equals("/callback")) {
                        return url.toString();
                    }
                    request = HttpRequest.newBuilder(url).GET().build();
                    continue;
                }
                assertEquals(200, r.statusCode(), r.body());
                Matcher action = FORM_ACTION.matcher(r.body());
                Matcher prompt = PROMPT.matcher(r.body());
                assertTrue(action.find() && prompt.find(), r.body());
                Map<String, String> form = prompt.group(1).equals("login")
                        ? Map.of("prompt", "login", "login", user, "password", "any")
                        : Map.of("prompt", prompt.group(1));
                String body = form.entrySet().stream()
                        .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                        .collect(Collectors.joining("&"));
                url = url.resolve(action.group(1));
                request = HttpRequest.newBuilder(url)
                        .header("content-type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build();
            }
        } catch (Exception e) {
            throw new CompletionException(e);
        }
        throw new AssertionError("the authorization did not come back");
    }
}
