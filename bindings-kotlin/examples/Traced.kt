package dev.oxmcp.kotlin.examples.traced

import dev.oxmcp.kotlin.Client
import dev.oxmcp.kotlin.mcpServer
import io.opentelemetry.api.GlobalOpenTelemetry
import io.opentelemetry.sdk.OpenTelemetrySdk
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter
import io.opentelemetry.sdk.trace.SdkTracerProvider
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor
import kotlinx.coroutines.runBlocking

// OpenTelemetry (the README's example): the tool's span is a child of the engine's span for
// its request, in the trace of the client's "app call". Prints each span's trace id and name.
fun main() = runBlocking {
    val spans = InMemorySpanExporter.create()
    OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .buildAndRegisterGlobal()
    val tracer = GlobalOpenTelemetry.getTracer("app")
    mcpServer("traced") {
        tool("lookup") { _, _ ->
            tracer.spanBuilder("lookup work").startSpan().end()
            "found"
        }
    }.use { server ->
        Client.http(server.startHttp(port = 0)).use { client ->
            val app = tracer.spanBuilder("app call").startSpan()
            // Current on this thread (runBlocking's); with opentelemetry-extension-kotlin,
            // withContext(app.asContextElement()) carries it across threads too.
            app.makeCurrent().use { client.callTool("lookup") }
            app.end()
        }
    }
    for (span in spans.finishedSpanItems) println("${span.traceId} ${span.name}")
}
