package dev.oxmcp.kotlin

import io.opentelemetry.api.GlobalOpenTelemetry
import io.opentelemetry.sdk.OpenTelemetrySdk
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter
import io.opentelemetry.sdk.trace.SdkTracerProvider
import io.opentelemetry.sdk.trace.data.SpanData
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.TestInstance
import java.io.File
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.TimeUnit
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotEquals
import kotlin.test.assertTrue

/**
 * The engine's traces joined to the application's OpenTelemetry: a handler's coroutine runs
 * in the engine's span for its request (across suspensions and dispatchers), and a client call
 * carries the caller's span.
 */
/** The span the server's sampling request names in its `_meta`. */
private const val SAMPLED = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TelemetryTest {
    private val spans = InMemorySpanExporter.create()
    private lateinit var sdk: OpenTelemetrySdk
    private lateinit var server: Server
    private lateinit var client: Client
    private lateinit var url: String

    /** The traceparent each tool's request info gave ("null": none). */
    private val info = ConcurrentHashMap<String, String>()

    private val tracer get() = GlobalOpenTelemetry.getTracer("oxmcp-test")

    @BeforeAll
    fun start(): Unit = runBlocking {
        sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .build()
        GlobalOpenTelemetry.resetForTest()
        GlobalOpenTelemetry.set(sdk)
        server = mcpServer("traced") {
            tool("work") { _, ctx ->
                info["work"] = ctx.info["traceparent"]?.jsonPrimitive?.content ?: "null"
                // After a suspension and on another dispatcher, still in the request's context.
                delay(5)
                withContext(Dispatchers.IO) {
                    tracer.spanBuilder("handler work").startSpan().end()
                }
                "worked"
            }
            // Asks the client to sample, naming the span SAMPLED in the request's _meta.
            tool("ask_traced") { _, ctx ->
                val answer = ctx.ask("sampling/createMessage", Json.parseToJsonElement("""{"maxTokens": 5,
                    "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                    "_meta": {"traceparent": "$SAMPLED"}}""").jsonObject)
                answer["model"]!!.jsonPrimitive.content
            }
        }
        url = server.startHttp(port = 0)
        client = Client.http(url)
    }

    @AfterAll
    fun stop(): Unit = runBlocking {
        client.close()
        server.close()
        GlobalOpenTelemetry.resetForTest()
        sdk.close()
    }

    @BeforeEach
    fun clear() {
        spans.reset()
        info.clear()
    }

    private fun span(name: String): SpanData =
        spans.finishedSpanItems.firstOrNull { it.name == name } ?: throw AssertionError("no span $name: ${spans.finishedSpanItems}")

    /** Whether this JVM's engine exports spans of its own (the standard variables). */
    private val engineTelemetry: Boolean
        get() = !System.getenv("OTEL_SDK_DISABLED").equals("true", ignoreCase = true) &&
            System.getenv().keys.any { it.startsWith("OTEL_EXPORTER_OTLP_") && it.endsWith("ENDPOINT") }

    @Test
    fun `a client's sampling handler runs in the span the server's request names`(): Unit = runBlocking {
        val sampling: suspend (JsonObject) -> JsonObject = {
            // On another dispatcher too.
            withContext(Dispatchers.IO) { tracer.spanBuilder("sampling work").startSpan().end() }
            Json.parseToJsonElement("""{"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m1"}""").jsonObject
        }
        Client.http(url, options = ClientOptions(sampling = sampling)).use { sampler ->
            assertEquals("m1", sampler.callTool("ask_traced").text())
        }
        val work = span("sampling work")
        assertTrue(work.parentSpanContext.isValid, "the sampling handler's span is no root")
        if (!engineTelemetry) {
            // Nothing of the engine's between: the span the request named is the parent.
            assertEquals(traceIdOf(SAMPLED), work.traceId)
            assertEquals(spanIdOf(SAMPLED), work.parentSpanId)
        }
    }

    private fun spanIdOf(traceparent: String) = traceparent.split("-")[2]
    private fun traceIdOf(traceparent: String) = traceparent.split("-")[1]

    @Test
    fun `a handler's span is a child of the caller's span`(): Unit = runBlocking {
        val app = tracer.spanBuilder("app call").startSpan()
        // runBlocking's one thread: the scope is current where the call reads it.
        app.makeCurrent().use { assertEquals("worked", client.callTool("work").text()) }
        app.end()
        val handler = span("handler work")
        val traceparent = info["work"]!!
        assertNotEquals("null", traceparent, "the handler's info has a traceparent")
        assertEquals(app.spanContext.traceId, traceIdOf(traceparent))
        assertEquals(app.spanContext.traceId, handler.traceId, "the handler's span is in the caller's trace")
        assertTrue(handler.parentSpanContext.isValid, "the handler's span is no root")
        assertTrue(handler.parentSpanContext.isRemote)
        assertEquals(spanIdOf(traceparent), handler.parentSpanId, "its parent is the span of the handler's info")
        if (!engineTelemetry) {
            // The engine's own telemetry off, the client's span travels in _meta: it is the parent itself.
            assertEquals(app.spanContext.spanId, handler.parentSpanId)
        }
    }

    @Test
    fun `without a current span nothing breaks`(): Unit = runBlocking {
        assertEquals("worked", client.callTool("work").text())
        val handler = span("handler work")
        val traceparent = info["work"]!!
        if (traceparent == "null") {
            // No trace anywhere: the handler's span starts a trace of its own.
            assertFalse(engineTelemetry)
            assertFalse(handler.parentSpanContext.isValid, "a root span")
        } else {
            assertEquals(traceIdOf(traceparent), handler.traceId)
            assertEquals(spanIdOf(traceparent), handler.parentSpanId, "a child of the engine's span")
        }
    }

    @Test
    fun `the README's example prints its spans in one trace`() {
        val example = File("examples/Traced.kt").readText().trim()
        assertTrue(example in File("README.md").readText(), "README.md does not show examples/Traced.kt")
        val (java, args) = javaCommand("dev.oxmcp.kotlin.examples.traced.TracedKt")
        val p = ProcessBuilder(listOf(java) + args).redirectErrorStream(true).start()
        try {
            val output = p.inputStream.bufferedReader().readText()
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), output)
            assertEquals(0, p.exitValue(), output)
            val traces = output.lines().map { it.split(" ", limit = 2) }.filter { it.size == 2 }.associate { it[1] to it[0] }
            assertEquals(setOf("lookup work", "app call"), traces.keys, output)
            assertEquals(traces["app call"], traces["lookup work"], output)
        } finally {
            p.destroyForcibly()
        }
    }

    @Test
    fun `without the OpenTelemetry API the binding works`() {
        val (java, args) = javaCommand("dev.oxmcp.kotlin.telemetry.AbsentMainKt")
        val cp = args.indexOf("-cp") + 1
        val classPath = args[cp].split(File.pathSeparator).filterNot { "opentelemetry" in it }.joinToString(File.pathSeparator)
        val command = listOf(java) + args.toMutableList().also { it[cp] = classPath }
        val p = ProcessBuilder(command).redirectErrorStream(true).start()
        try {
            val output = p.inputStream.bufferedReader().readText()
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), output)
            assertEquals(0, p.exitValue(), output)
            assertTrue("api false" in output, output)
            assertTrue("result worked" in output, output)
        } finally {
            p.destroyForcibly()
        }
    }
}
