package dev.oxmcp.spring;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code oxmcp.*} properties of a Spring Boot application's MCP server.
 *
 * <pre>{@code
 * oxmcp.name=notes
 * oxmcp.version=1.2.0
 * oxmcp.path=/mcp
 * oxmcp.allowed-hosts=mcp.example.com,mcp.example.com:8080
 * }</pre>
 */
@ConfigurationProperties(prefix = "oxmcp")
public class OxmcpProperties {
    /** Whether the MCP endpoint is mounted in the web server. */
    private boolean enabled = true;
    /** The server's name, as clients see it. */
    private String name = "oxmcp-spring";
    /** The server's version. */
    private String version = "1.0.0";
    /** What the server tells clients about itself. */
    private String instructions;
    /** The endpoint's path in the web server. */
    private String path = "/mcp";
    /** Serve without sessions: every request stands alone. */
    private boolean stateless;
    /** Answer with plain JSON bodies instead of SSE streams. */
    private boolean jsonResponse;
    /** The {@code Host} header values accepted (empty: local ones only). */
    private List<String> allowedHosts = new ArrayList<>();
    /** The {@code Origin} header values accepted (empty: local ones only). */
    private List<String> allowedOrigins = new ArrayList<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getVersion() {
        return version;
    }

    public void setVersion(String version) {
        this.version = version;
    }

    public String getInstructions() {
        return instructions;
    }

    public void setInstructions(String instructions) {
        this.instructions = instructions;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public boolean isStateless() {
        return stateless;
    }

    public void setStateless(boolean stateless) {
        this.stateless = stateless;
    }

    public boolean isJsonResponse() {
        return jsonResponse;
    }

    public void setJsonResponse(boolean jsonResponse) {
        this.jsonResponse = jsonResponse;
    }

    public List<String> getAllowedHosts() {
        return allowedHosts;
    }

    public void setAllowedHosts(List<String> allowedHosts) {
        this.allowedHosts = allowedHosts;
    }

    public List<String> getAllowedOrigins() {
        return allowedOrigins;
    }

    public void setAllowedOrigins(List<String> allowedOrigins) {
        this.allowedOrigins = allowedOrigins;
    }
}
