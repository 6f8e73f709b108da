package dev.oxmcp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Protects an HTTP listener with OAuth ({@link McpServer#startHttp(String, int, HttpAuth)}):
 * every request needs an access token from {@code issuer}, a JWT checked against the
 * issuer's keys (its JWKS) for {@code audience} (default: the endpoint's own URL). The
 * server publishes its protected resource metadata and answers a request without a valid
 * token with 401, or 403 when a scope is missing (the client then asks for it). Handlers
 * see who the token speaks for in {@link RequestContext#auth()}.
 *
 * <pre>{@code
 * String url = server.startHttp("127.0.0.1", 8080,
 *         HttpAuth.issuer("https://auth.example.com").scopes("mcp:read").toolScopes("erase", "mcp:write"))
 *     .join();
 * }</pre>
 */
public final class HttpAuth {
    private final String issuer;
    private String audience;
    private final List<String> scopes = new ArrayList<>();
    private final Map<String, List<String>> toolScopes = new LinkedHashMap<>();

    private HttpAuth(String issuer) {
        this.issuer = issuer;
    }

    /**
     * @param issuer the authorization server clients go to, and the tokens' issuer
     * @return the options
     */
    public static HttpAuth issuer(String issuer) {
        return new HttpAuth(issuer);
    }

    /**
     * @param audience the resource tokens must be for (default: the endpoint's URL,
     *     {@code http://HOST:PORT/PATH})
     * @return these options
     */
    public HttpAuth audience(String audience) {
        this.audience = audience;
        return this;
    }

    /**
     * @param scopes scopes every request needs
     * @return these options
     */
    public HttpAuth scopes(String... scopes) {
        this.scopes.addAll(Arrays.asList(scopes));
        return this;
    }

    /**
     * @param tool a tool's name
     * @param scopes scopes a call of that tool needs besides {@link #scopes}
     * @return these options
     */
    public HttpAuth toolScopes(String tool, String... scopes) {
        toolScopes.computeIfAbsent(tool, t -> new ArrayList<>()).addAll(Arrays.asList(scopes));
        return this;
    }

    private static String array(List<String> items) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) {
            b.append(i > 0 ? "," : "").append(Json.quote(items.get(i)));
        }
        return b.append(']').toString();
    }

    /** The engine's {@code auth} listen option (JSON). */
    String toJson() {
        StringBuilder b = new StringBuilder("{\"issuer\":").append(Json.quote(issuer));
        if (audience != null) {
            b.append(",\"audience\":").append(Json.quote(audience));
        }
        b.append(",\"scopes\":").append(array(scopes)).append(",\"toolScopes\":{");
        int i = 0;
        for (Map.Entry<String, List<String>> e : toolScopes.entrySet()) {
            b.append(i++ > 0 ? "," : "").append(Json.quote(e.getKey())).append(':').append(array(e.getValue()));
        }
        return b.append("}}").toString();
    }
}
