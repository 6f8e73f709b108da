package dev.oxmcp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Where and how {@link McpServer#startHttp(HttpOptions)} serves Streamable HTTP: the address,
 * the endpoint path, the modes, OAuth, a shared Redis, and which {@code Host} and
 * {@code Origin} values it accepts. Only local ones are accepted by default (a guard against
 * DNS rebinding): a server reached under a container name or a public host name names it in
 * {@link #allowedHosts(String...)}, or every request gets 403.
 *
 * <pre>{@code
 * String url = server.startHttp(HttpOptions.bind("0.0.0.0", 8080)
 *         .allowedHosts("mcp.example.com", "mcp.example.com:8080")
 *         .allowedOrigins("https://app.example.com"))
 *     .join();
 * }</pre>
 */
public final class HttpOptions {
    private final String host;
    private final int port;
    private String path = "/mcp";
    private boolean stateless;
    private boolean jsonResponse;
    private HttpAuth auth;
    private String redis;
    private List<String> allowedHosts;
    private List<String> allowedOrigins;

    private HttpOptions(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /**
     * @param host the address or host name to bind
     * @param port the port, 0 for any free one
     * @return the options
     */
    public static HttpOptions bind(String host, int port) {
        return new HttpOptions(host, port);
    }

    /**
     * Options for an endpoint that a web framework serves ({@link McpServer#httpApp},
     * {@link McpServlet}): no address of its own, the rest as for a listener.
     *
     * @return the options
     */
    public static HttpOptions mounted() {
        return new HttpOptions("127.0.0.1", 0);
    }

    /** The endpoint path the engine answers on. */
    String endpointPath() {
        return path;
    }

    /**
     * @param path the endpoint path (default {@code /mcp})
     * @return these options
     */
    public HttpOptions path(String path) {
        this.path = path;
        return this;
    }

    /**
     * @return these options, serving without sessions: every request stands alone
     */
    public HttpOptions stateless() {
        this.stateless = true;
        return this;
    }

    /**
     * @return these options, answering with plain JSON bodies instead of SSE streams
     */
    public HttpOptions jsonResponse() {
        this.jsonResponse = true;
        return this;
    }

    /**
     * @param auth the authorization server and the scopes required
     * @return these options
     */
    public HttpOptions auth(HttpAuth auth) {
        this.auth = auth;
        return this;
    }

    /**
     * @param redis the shared store's URL ({@code redis://HOST:PORT})
     * @return these options
     */
    public HttpOptions redis(String redis) {
        this.redis = redis;
        return this;
    }

    /**
     * @param hosts the {@code Host} header values accepted (replacing the local default)
     * @return these options
     */
    public HttpOptions allowedHosts(String... hosts) {
        this.allowedHosts = new ArrayList<>(Arrays.asList(hosts));
        return this;
    }

    /**
     * @param origins the {@code Origin} header values accepted (replacing the local default)
     * @return these options
     */
    public HttpOptions allowedOrigins(String... origins) {
        this.allowedOrigins = new ArrayList<>(Arrays.asList(origins));
        return this;
    }

    /** The engine's HTTP options as JSON. */
    String toJson() {
        StringBuilder b = new StringBuilder("{\"host\":").append(Json.quote(host)).append(",\"port\":").append(port)
                .append(",\"path\":").append(Json.quote(path)).append(",\"stateless\":").append(stateless)
                .append(",\"jsonResponse\":").append(jsonResponse);
        if (auth != null) b.append(",\"auth\":").append(auth.toJson());
        if (redis != null) b.append(",\"redis\":").append(Json.quote(redis));
        if (allowedHosts != null) b.append(",\"allowedHosts\":").append(strings(allowedHosts));
        if (allowedOrigins != null) b.append(",\"allowedOrigins\":").append(strings(allowedOrigins));
        return b.append('}').toString();
    }

    private static String strings(List<String> values) {
        StringBuilder b = new StringBuilder("[");
        for (String v : values) b.append(b.length() > 1 ? "," : "").append(Json.quote(v));
        return b.append(']').toString();
    }
}
