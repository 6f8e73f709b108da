package dev.oxmcp;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * How a client authorizes at a protected server ({@link McpClient.Options#oauth}). The
 * engine runs the MCP authorization flow: it discovers the authorization server from the
 * server's 401 challenge, registers the client dynamically when no client id is given,
 * gets tokens (PKCE), refreshes them, and asks for more scope when the server wants it.
 * When the server refuses the client and no token can be had, calls fail with an
 * {@link McpException} of kind {@link McpException.Kind#UNAUTHORIZED}.
 *
 * <p>A machine acting for itself (the client credentials grant):
 *
 * <pre>{@code
 * McpClient.Options o = McpClient.Options.http("https://mcp.example.com/mcp")
 *     .oauth(OAuth.clientCredentials("my-service", secret).issuer("https://auth.example.com").scope("mcp:read"));
 * }</pre>
 *
 * <p>A user in a browser (the authorization code grant, the default): the handler shows
 * the user the authorization URL (or opens a browser) and completes with the whole URL the
 * browser was sent back to, whose {@code state} the engine checks before it uses the code.
 * Tokens live in memory, or in {@link #tokenFile} (readable by its owner only) to outlive
 * the process:
 *
 * <pre>{@code
 * OAuth user = OAuth.authorizationCode("http://127.0.0.1:8765/callback", authorizationUrl -> {
 *         Desktop.getDesktop().browse(URI.create(authorizationUrl));
 *         return callbackServer.nextRedirect();      // CompletableFuture<String>: the URL it received
 *     })
 *     .clientName("my-app")
 *     .tokenFile(Path.of(System.getProperty("user.home"), ".my-app-tokens.json").toString());
 * try (McpClient client = McpClient.connect(McpClient.Options.http(url).oauth(user)).join()) { ... }
 * }</pre>
 */
public final class OAuth {
    private final Map<String, String> options = new LinkedHashMap<>();
    private String tokenFile;
    private Function<String, CompletableFuture<String>> authorize;

    private OAuth() {}

    /**
     * The client credentials grant: the client acts for itself.
     *
     * @param clientId its id at the authorization server
     * @param clientSecret its secret
     * @return the options
     */
    public static OAuth clientCredentials(String clientId, String clientSecret) {
        return new OAuth().grant("client_credentials").clientId(clientId).clientSecret(clientSecret);
    }

    /**
     * The authorization code grant: a user authorizes in a browser.
     *
     * @param redirectUri where the authorization server sends the browser back
     * @param authorize gets the authorization URL to send the user to, and completes with the
     *     URL the browser came back to (see {@link #onAuthorize})
     * @return the options
     */
    public static OAuth authorizationCode(String redirectUri, Function<String, CompletableFuture<String>> authorize) {
        return new OAuth().redirectUri(redirectUri).onAuthorize(authorize);
    }

    /**
     * Options to fill in with the setters (default grant: {@code authorization_code}).
     *
     * @return empty options
     */
    public static OAuth options() {
        return new OAuth();
    }

    private OAuth set(String key, String value) {
        if (value == null) {
            options.remove(key);
        } else {
            options.put(key, value);
        }
        return this;
    }

    /**
     * @param grant {@code authorization_code} (the default) or {@code client_credentials}
     * @return these options
     */
    public OAuth grant(String grant) {
        return set("grant", grant);
    }

    /**
     * @param clientId a client registered beforehand (without one, the client registers itself)
     * @return these options
     */
    public OAuth clientId(String clientId) {
        return set("clientId", clientId);
    }

    /**
     * @param clientSecret the secret of a confidential client
     * @return these options
     */
    public OAuth clientSecret(String clientSecret) {
        return set("clientSecret", clientSecret);
    }

    /**
     * Pins the configured credentials to their authorization server: any other issuer the
     * MCP server names is refused, so a secret or key never goes to an authorization server a
     * (hostile) server picked. Recommended whenever a secret or a private key is configured.
     *
     * @param issuer the authorization server's issuer URL
     * @return these options
     */
    public OAuth issuer(String issuer) {
        return set("issuer", issuer);
    }

    /**
     * @param scope the scope to ask for instead of the one the server suggests (space-separated)
     * @return these options
     */
    public OAuth scope(String scope) {
        return set("scope", scope);
    }

    /**
     * @param clientName the name dynamic registration gives the client
     * @return these options
     */
    public OAuth clientName(String clientName) {
        return set("clientName", clientName);
    }

    /**
     * @param redirectUri where the authorization server sends the browser back
     * @return these options
     */
    public OAuth redirectUri(String redirectUri) {
        return set("redirectUri", redirectUri);
    }

    /**
     * @param url the URL of this client's metadata document, used as its client id where the
     *     authorization server supports that
     * @return these options
     */
    public OAuth clientMetadataUrl(String url) {
        return set("clientMetadataUrl", url);
    }

    /**
     * Authenticates the client with a signed JWT ({@code private_key_jwt}).
     *
     * @param pem the private key (PKCS#8 PEM)
     * @param signingAlg its algorithm (e.g. {@code ES256}, the default when null)
     * @return these options
     */
    public OAuth privateKey(String pem, String signingAlg) {
        return set("privateKeyPem", pem).set("signingAlg", signingAlg);
    }

    /**
     * @param path a file to keep the tokens in between runs (created readable by its owner
     *     only); null keeps them in memory
     * @return these options
     */
    public OAuth tokenFile(String path) {
        this.tokenFile = path;
        return this;
    }

    /**
     * The user's browser, for the authorization code grant. The handler gets the
     * authorization URL; it sends the user there (prints it, opens a browser) and completes
     * with the whole URL the browser was sent back to (the redirect URI with {@code code}
     * and {@code state}). It runs on an oxmcp worker thread and may take as long as the user
     * does. Without it, a client that needs a user's authorization fails with
     * {@link McpException.Kind#UNAUTHORIZED}.
     *
     * @param handler from the authorization URL to the URL the browser came back to
     * @return these options
     */
    public OAuth onAuthorize(Function<String, CompletableFuture<String>> handler) {
        this.authorize = handler;
        return this;
    }

    Function<String, CompletableFuture<String>> authorizeHandler() {
        return authorize;
    }

    /** The engine's connect options for OAuth: {@code "oauth": {...}} and {@code "tokenFile"}. */
    String toJsonMembers() {
        StringBuilder b = new StringBuilder("\"oauth\":").append(Json.objectOfStrings(options));
        if (tokenFile != null) {
            b.append(",\"tokenFile\":").append(Json.quote(tokenFile));
        }
        return b.toString();
    }
}
