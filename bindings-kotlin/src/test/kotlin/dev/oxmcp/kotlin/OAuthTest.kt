package dev.oxmcp.kotlin

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import java.io.File
import java.net.InetAddress
import java.net.ServerSocket
import java.net.Socket
import java.nio.file.Files
import java.nio.file.attribute.PosixFilePermissions
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.io.path.createTempDirectory
import kotlin.test.AfterTest
import kotlin.test.BeforeTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

/**
 * OAuth with real parts: an oidc-provider authorization server (tests/auth/provider.mjs,
 * installed by tests/auth/install.sh) and a protected `oxmcp everything-server
 * --auth-issuer` whose `whoami` tool says who the token speaks for. The Kotlin client gets
 * tokens by client credentials and by the authorization code grant, whose browser
 * tests/auth/browser.mjs plays over HTTP (login form, consent, the redirect back).
 */
class OAuthTest {
    private val repo = File("..").absoluteFile.normalize()
    private val node = File(repo, "tests/auth/node_modules/node/bin/node").path
    private lateinit var provider: Process
    private lateinit var server: Process
    private lateinit var issuer: String
    private lateinit var url: String

    private fun freePort(): Int = ServerSocket(0, 1, InetAddress.getLoopbackAddress()).use { it.localPort }

    private fun awaitPort(port: Int, process: Process) {
        val deadline = System.nanoTime() + 30_000_000_000
        while (System.nanoTime() < deadline) {
            check(process.isAlive) { "the process exited with ${process.exitValue()}" }
            try {
                Socket("127.0.0.1", port).close()
                return
            } catch (notYet: java.io.IOException) {
                Thread.sleep(50)
            }
        }
        error("nothing listened on port $port")
    }

    @BeforeTest
    fun start() {
        assertTrue(File(node).canExecute(), "run tests/auth/install.sh first (run-tests.sh does)")
        val asPort = freePort()
        provider = ProcessBuilder(node, File(repo, "tests/auth/provider.mjs").path, asPort.toString())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start()
        awaitPort(asPort, provider)
        issuer = "http://127.0.0.1:$asPort"
        val port = freePort()
        server = ProcessBuilder(OXMCP, "everything-server", "--http", "127.0.0.1:$port", "--auth-issuer", issuer, "--auth-scopes", "mcp:read")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        awaitPort(port, server)
        url = "http://127.0.0.1:$port/mcp"
    }

    @AfterTest
    fun stop() {
        for (p in listOf(server, provider)) {
            p.destroy()
            p.waitFor()
        }
    }

    /** The `whoami` tool's answer. */
    private suspend fun Client.whoami(): JsonObject = Json.parseToJsonElement(callTool("whoami").text()).jsonObject

    /** The user's browser from the authorization URL to the redirect back (its URL). */
    private fun browser(authorizationUrl: String, user: String): String {
        val script = "import('${File(repo, "tests/auth/browser.mjs").path}').then(m => m.consent(process.argv[1], process.argv[2], { visit: false })).then(u => console.log(u))"
        val p = ProcessBuilder(node, "--input-type=module", "-e", script, authorizationUrl, user).redirectErrorStream(true).start()
        val out = p.inputStream.bufferedReader().readText().trim()
        check(p.waitFor() == 0) { out }
        return out.lines().last()
    }

    @Test
    fun `client credentials, the issuer pin, and no token`() = runBlocking<Unit> {
        Client.http(url, options = ClientOptions(oauth = OAuth.clientCredentials("machine", "machine-secret"))).use { c ->
            val who = c.whoami()
            assertEquals("machine", who["subject"]!!.jsonPrimitive.content)
            assertEquals(url, who["claims"]!!.jsonObject["aud"]!!.jsonPrimitive.content)
        }
        val elsewhere = OAuth.clientCredentials("machine", "machine-secret", issuer = "http://127.0.0.1:9")
        val pinned = assertFailsWith<McpException.Unauthorized> { Client.http(url, options = ClientOptions(oauth = elsewhere)) }
        assertTrue(pinned.message!!.contains(issuer), pinned.message)
        assertFailsWith<McpException.Unauthorized> { Client.http(url) }
        assertFailsWith<McpException.Unauthorized> {
            Client.http(url, options = ClientOptions(oauth = OAuth.clientCredentials("machine", "guess")))
        }
        assertTrue("machine-secret" !in OAuth.clientCredentials("machine", "machine-secret").toString())
    }

    @Test
    fun `a Kotlin server protected by the authorization server`() = runBlocking<Unit> {
        mcpServer("guarded") {
            tool("whoami") { _, ctx -> ctx.auth.toString() }
            tool("erase") { _, _ -> "erased" }
        }.use { server ->
            val url = server.startHttp(port = 0, auth = HttpAuth(issuer, scopes = listOf("mcp:read"), toolScopes = mapOf("erase" to listOf("mcp:write"))))
            val reader = OAuth.clientCredentials("machine", "machine-secret", scope = "mcp:read")
            Client.http(url, options = ClientOptions(oauth = reader)).use { c ->
                val who = Json.parseToJsonElement(c.callTool("whoami").text()).jsonObject
                assertEquals("machine", who["subject"]!!.jsonPrimitive.content)
                assertEquals("machine", who["clientId"]!!.jsonPrimitive.content)
                assertEquals(listOf("mcp:read"), who["scopes"]!!.jsonArray.map { it.jsonPrimitive.content })
                // The tool's own scope: the client steps up (asks for both) and goes on.
                assertEquals("erased", c.callTool("erase").text())
                val after = Json.parseToJsonElement(c.callTool("whoami").text()).jsonObject
                assertEquals(listOf("mcp:read", "mcp:write"), after["scopes"]!!.jsonArray.map { it.jsonPrimitive.content }.sorted())
            }
            // No token: refused, clearly.
            assertFailsWith<McpException.Unauthorized> { Client.http(url) }
        }
    }

    @Test
    fun `the authorization code grant goes through the user's browser`() = runBlocking<Unit> {
        val redirect = "http://127.0.0.1:9/callback"
        val tokens = File(createTempDirectory("oxmcp-kotlin-oauth").toFile(), "tokens.json")
        val asked = CopyOnWriteArrayList<String>()
        val user = OAuth.authorizationCode(redirect, clientName = "kotlin-oauth-test", tokenFile = tokens.path) { authorizationUrl ->
            asked += authorizationUrl
            withContext(Dispatchers.IO) { browser(authorizationUrl, "dana") }
        }
        Client.http(url, options = ClientOptions(oauth = user)).use { c -> assertEquals("dana", c.whoami()["subject"]!!.jsonPrimitive.content) }
        assertEquals(1, asked.size)
        assertTrue(asked[0].startsWith("$issuer/auth?") && "code_challenge=" in asked[0], asked[0])
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tokens.toPath())))

        // The kept tokens serve the next client: the browser is not asked again.
        val again = OAuth.authorizationCode(redirect, tokenFile = tokens.path) { error("the browser was asked again") }
        Client.http(url, options = ClientOptions(oauth = again)).use { c -> assertEquals("dana", c.whoami()["subject"]!!.jsonPrimitive.content) }

        // A forged redirect (another flow's state) is refused, naming the state.
        val forged = OAuth.authorizationCode(redirect) { "$redirect?code=stolen&state=not-this-flow" }
        val refused = assertFailsWith<McpException.Unauthorized> { Client.http(url, options = ClientOptions(oauth = forged)) }
        assertTrue("state" in refused.message!!, refused.message)
        tokens.parentFile.deleteRecursively()
    }
}
