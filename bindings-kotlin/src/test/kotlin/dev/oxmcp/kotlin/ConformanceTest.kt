package dev.oxmcp.kotlin

import org.junit.jupiter.api.Timeout
import java.io.File
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * The official MCP conformance server suite (npm `@modelcontextprotocol/conformance`, run
 * on Node 22 from tests/conformance, which run-tests.sh installs) against the Kotlin
 * everything server (examples/EverythingServer.kt, a child JVM) over Streamable HTTP:
 * 0 failed.
 */
class ConformanceTest {
    private val conformance = File(System.getenv("OXMCP_CONFORMANCE_DIR") ?: "../tests/conformance").absoluteFile
    private val node22 = File(conformance, "node_modules/node/bin")
    private val suite = File(conformance, "node_modules/.bin/conformance")

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    fun `passes the official conformance server suite with 0 failed`() {
        assertTrue(suite.exists(), "the conformance suite is not installed at $suite (run-tests.sh installs it)")
        val (java, args) = javaCommand("dev.oxmcp.kotlin.examples.everything.EverythingServerKt")
        val server = ProcessBuilder(listOf(java) + args + listOf("--http", "127.0.0.1:0"))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start()
        try {
            // Its stderr: the `listening on URL` line, then drained (kept for a failure's message).
            val log = StringBuffer()
            val listening = CompletableFuture<String>()
            thread(isDaemon = true, name = "everything-server stderr") {
                server.errorStream.bufferedReader().forEachLine { line ->
                    log.appendLine(line)
                    if (line.startsWith("listening on ")) listening.complete(line.removePrefix("listening on ").trim())
                }
                listening.complete(null)
            }
            val url = listening.get(60, TimeUnit.SECONDS) ?: fail("the everything server ended without listening:\n$log")

            val run = ProcessBuilder(suite.path, "server", "--url", url.replace("127.0.0.1", "localhost"), "--suite", "all")
                .redirectErrorStream(true)
                .apply { environment()["PATH"] = "${node22.path}:${System.getenv("PATH")}" }
                .start()
            val out = run.inputStream.bufferedReader().readText()
            run.waitFor()
            val total = Regex("""Total: (\d+) passed, (\d+) failed""").findAll(out).lastOrNull()
            assertNotNull(total, "the suite printed no total:\n${out.takeLast(3000)}\nserver log:\n$log")
            val (passed, failed) = total.destructured
            println("conformance server suite: $passed passed, $failed failed")
            val failures = out.lines().filter { it.startsWith("✗") }.joinToString("\n")
            assertEquals(0, failed.toInt(), "$failures\nserver log:\n$log")
            assertTrue(passed.toInt() >= 40, total.value)
        } finally {
            server.destroy()
            server.waitFor()
        }
    }
}
