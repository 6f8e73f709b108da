package dev.oxmcp.kotlin

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive

/**
 * OAuth 2.1 for a [Client] of a protected server over HTTP ([ClientOptions.oauth]): the
 * engine discovers the authorization server from the server's challenge, registers or uses
 * the given client, gets and refreshes tokens, and steps up on `insufficient_scope`.
 *
 * - [clientCredentials]: a machine client with a secret.
 * - [authorizationCode]: a user in a browser. [authorize] gets the authorization URL, shows
 *   it to the user (or opens a browser) and returns the URL the browser was sent back to
 *   ([redirectUri] with `code` and `state`); it may take up to 5 minutes.
 *
 * [issuer] pins the credentials to one authorization server (a server naming another one
 * is refused); [tokenFile] keeps the tokens between runs (a file only its owner can read).
 * Secrets are left out of [toString].
 *
 * ```
 * Client.http(url, options = ClientOptions(oauth = OAuth.clientCredentials("machine", secret))).use { ... }
 * ```
 */
class OAuth(
    val grant: String? = null,
    val clientId: String? = null,
    val clientSecret: String? = null,
    val scope: String? = null,
    val issuer: String? = null,
    val clientName: String? = null,
    val redirectUri: String? = null,
    val tokenFile: String? = null,
    val authorize: (suspend (url: String) -> String)? = null,
) {
    companion object {
        /** The client credentials grant. */
        fun clientCredentials(clientId: String, clientSecret: String, scope: String? = null, issuer: String? = null) =
            OAuth(grant = "client_credentials", clientId = clientId, clientSecret = clientSecret, scope = scope, issuer = issuer)

        /** The authorization code grant (with PKCE), the user's browser played by [authorize]. */
        fun authorizationCode(
            redirectUri: String,
            clientName: String? = null,
            tokenFile: String? = null,
            scope: String? = null,
            issuer: String? = null,
            authorize: suspend (url: String) -> String,
        ) = OAuth(redirectUri = redirectUri, clientName = clientName, tokenFile = tokenFile, scope = scope, issuer = issuer, authorize = authorize)
    }

    /** The host layer's `oauth` connect option. */
    internal fun json(): JsonObject = JsonObject(
        listOf(
            "grant" to grant, "clientId" to clientId, "clientSecret" to clientSecret, "scope" to scope,
            "issuer" to issuer, "clientName" to clientName, "redirectUri" to redirectUri,
        ).mapNotNull { (k, v) -> v?.let { k to JsonPrimitive(it) } }.toMap(),
    )

    override fun toString(): String =
        "OAuth(grant=$grant, clientId=$clientId, clientSecret=${clientSecret?.let { "…" }}, scope=$scope, issuer=$issuer, " +
            "redirectUri=$redirectUri, tokenFile=$tokenFile)"
}
