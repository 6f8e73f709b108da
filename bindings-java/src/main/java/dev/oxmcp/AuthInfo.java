package dev.oxmcp;

import java.util.List;
import java.util.Map;

/**
 * Who a request's OAuth access token speaks for, as a handler of a protected server sees
 * it ({@link RequestContext#auth()}). The token itself stays in the engine.
 *
 * <pre>{@code
 * server.tool("whoami", null, "{\"type\":\"object\"}", (args, ctx) -> {
 *     AuthInfo who = ctx.auth();                       // null without a token
 *     return CompletableFuture.completedFuture(Json.textResult(who == null ? "anonymous" : who.subject()));
 * });
 * }</pre>
 *
 * <p>A token verifier ({@link McpServer#verifyTokens}) answers one for each token it accepts.
 *
 * @param subject the user or workload ({@code sub}), or null
 * @param clientId the OAuth client the token was issued to, or null
 * @param scopes the scopes the token grants
 * @param expiresAt when the token expires (seconds since the epoch), or null
 * @param claimsJson every claim of a JWT access token, as a JSON object ({@code {}} when none)
 */
public record AuthInfo(String subject, String clientId, List<String> scopes, Long expiresAt, String claimsJson) {

    /** The engine's JSON: {@code {"subject", "clientId", "scopes", "expiresAt", "claims"}}. */
    String toJson() {
        StringBuilder b = new StringBuilder("{\"subject\":").append(subject == null ? "null" : Json.quote(subject))
                .append(",\"clientId\":").append(clientId == null ? "null" : Json.quote(clientId))
                .append(",\"scopes\":[");
        if (scopes != null) {
            for (int i = 0; i < scopes.size(); i++) {
                b.append(i > 0 ? "," : "").append(Json.quote(scopes.get(i)));
            }
        }
        return b.append("],\"expiresAt\":").append(expiresAt == null ? "null" : expiresAt.toString())
                .append(",\"claims\":").append(claimsJson == null || claimsJson.isBlank() ? "{}" : claimsJson)
                .append('}').toString();
    }

    /** Reads the engine's {@code auth} JSON; null for JSON null. */
    static AuthInfo parse(String json) {
        if (json == null || json.isBlank() || json.trim().equals("null")) {
            return null;
        }
        Map<String, String> m = Json.members(json);
        String exp = m.get("expiresAt");
        String claims = m.get("claims");
        return new AuthInfo(
                Json.unquote(m.get("subject")),
                Json.unquote(m.get("clientId")),
                Json.strings(m.get("scopes")),
                exp == null || exp.equals("null") ? null : Long.valueOf(exp),
                claims == null || claims.equals("null") ? "{}" : claims);
    }
}
