package consumer

import dev.oxmcp.kotlin.Client
import dev.oxmcp.kotlin.mcpServer
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout

/**
 * The published Kotlin jar as a user gets it: a server and a client of it, with no library
 * path set, so JNA has to take the uniffi library out of the jar (its folder for this
 * platform) and load an extracted copy.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KotlinPackageTest {
    // The files mapped into this process (JNA deletes its extracted copies once loaded).
    private fun mapped(): List<String> = Files.readAllLines(Path.of("/proc/self/maps"))
        .filter { it.contains('/') }.map { it.substring(it.indexOf('/')).removeSuffix(" (deleted)") }.distinct()

    @Test
    fun aServerAndClientRunOnTheLibraryInTheJar() = runBlocking {
        assertNull(System.getProperty("jna.library.path"), "nothing may name another library")
        val resource = javaClass.classLoader.getResource("linux-x86-64/liboxmcp_kotlin.so")
        assertTrue(resource.toString().contains("/oxmcp-kotlin-${System.getProperty("oxmcp.expected.version")}.jar!"), "$resource")
        val before = mapped()

        val schema = Json.parseToJsonElement("""{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}""").jsonObject
        mcpServer("kotlin-consumer") {
            tool("add", "Add two integers", schema) { args, _ ->
                (args["a"]!!.jsonPrimitive.int + args["b"]!!.jsonPrimitive.int).toString()
            }
        }.use { server ->
            Client.http(server.startHttp(port = 0)).use { client ->
                val result = client.callTool("add", buildJsonObject { put("a", 2); put("b", 40) })
                assertEquals("""[{"type":"text","text":"42"}]""", result["content"].toString())
            }
        }

        // Loaded from JNA's extracted copy (jna<n>.tmp in its temporary folder), not from a
        // liboxmcp_kotlin.so somewhere on a search path.
        val now = mapped()
        assertTrue(now.none { it.endsWith("/liboxmcp_kotlin.so") }, now.joinToString("\n"))
        val extracted = now.filter { it.contains("/jna") && it.endsWith(".tmp") } - before.toSet()
        assertTrue(extracted.isNotEmpty(), "no library extracted by JNA was loaded:\n" + now.joinToString("\n"))
    }
}
