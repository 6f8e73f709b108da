// The Kotlin client drivers of the cross-SDK suite (../../../../../../../suite/PROTOCOL.md):
// `--impl oxmcp` is oxmcp's Kotlin client, `--impl official` the official Kotlin SDK's.
// Prints one line of JSON.
//
//   run.sh driver --impl oxmcp --workload seq --n 2000 -- SERVER_CMD ARG...
//   run.sh driver --impl official --workload conc --n 5000 --k 64 --url http://127.0.0.1:PORT/mcp
package dev.oxmcp.bench.kotlin

import dev.oxmcp.kotlin.Client as OxmcpClient
import io.ktor.client.HttpClient
import io.ktor.client.plugins.sse.SSE
import io.modelcontextprotocol.kotlin.sdk.client.Client as OfficialClient
import io.modelcontextprotocol.kotlin.sdk.client.StdioClientTransport
import io.modelcontextprotocol.kotlin.sdk.client.StreamableHttpClientTransport
import io.modelcontextprotocol.kotlin.sdk.types.CallToolRequest
import io.modelcontextprotocol.kotlin.sdk.types.CallToolRequestParams
import io.modelcontextprotocol.kotlin.sdk.types.Implementation
import io.modelcontextprotocol.kotlin.sdk.types.TextContent
import io.ktor.client.engine.cio.CIO as ClientCIO
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.io.asSink
import kotlinx.io.asSource
import kotlinx.io.buffered
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlin.system.exitProcess

/** One implementation's client: a tool call's (isError, first text block), and closing. */
interface Side {
    suspend fun call(name: String, arguments: JsonObject): Pair<Boolean, String?>
    suspend fun close()
}

class OxmcpSide(private val client: OxmcpClient) : Side {
    override suspend fun call(name: String, arguments: JsonObject): Pair<Boolean, String?> {
        val r = client.callTool(name, arguments)
        val isError = (r["isError"] as? JsonPrimitive)?.booleanOrNull == true
        val text = ((r["content"] as? JsonArray)?.firstOrNull() as? JsonObject)?.get("text")?.jsonPrimitive?.content
        return isError to text
    }

    override suspend fun close() = client.close()

    companion object {
        suspend fun open(a: Args): Side =
            OxmcpSide(a.flags["url"]?.let { OxmcpClient.http(it) } ?: OxmcpClient.stdio(a.rest[0], a.rest.drop(1)))
    }
}

class OfficialSide(
    private val client: OfficialClient,
    private val child: Process?,
    private val http: HttpClient?,
) : Side {
    override suspend fun call(name: String, arguments: JsonObject): Pair<Boolean, String?> {
        val r = client.callTool(CallToolRequest(CallToolRequestParams(name = name, arguments = arguments)))
        return (r.isError == true) to (r.content.firstOrNull() as? TextContent)?.text
    }

    override suspend fun close() {
        client.close()
        http?.close()
        // The child sees stdin close and exits; a stuck one is stopped.
        if (child != null && !child.waitFor(5, TimeUnit.SECONDS)) child.destroyForcibly()
    }

    companion object {
        suspend fun open(a: Args): Side {
            val client = OfficialClient(Implementation("bench-kotlin-sdk-driver", "0.1.0"))
            val url = a.flags["url"]
            if (url != null) {
                val http = HttpClient(ClientCIO) { install(SSE) }
                client.connect(StreamableHttpClientTransport(http, url))
                return OfficialSide(client, null, http)
            }
            val child = ProcessBuilder(a.rest).redirectError(ProcessBuilder.Redirect.INHERIT).start()
            client.connect(StdioClientTransport(child.inputStream.asSource().buffered(), child.outputStream.asSink().buffered()))
            return OfficialSide(client, child, null)
        }
    }
}

suspend fun echo(side: Side, base: String, i: Int) {
    val text = payloadFor(base, i)
    val (isError, got) = side.call("echo", buildJsonObject { put("text", text) })
    if (isError || got != text) throw IllegalStateException("echo call $i: wrong reply")
}

/** N times: call `slow`, cancel it after 50 ms (the coroutine's cancellation: the SDK's own), time the handler's log line. */
suspend fun cancelLatencies(side: Side, count: Int, log: String): List<Double> = coroutineScope {
    val out = mutableListOf<Double>()
    repeat(count) {
        val before = cancelLines(log).size
        var returned = false
        val call = launch {
            try {
                side.call("slow", JsonObject(emptyMap()))
                returned = true
            } catch (e: CancellationException) {
                throw e
            } catch (_: Exception) {
                // an error answer is not a return either
            }
        }
        delay(50)
        val t0 = System.nanoTime()
        call.cancel()
        call.join()
        if (returned) throw IllegalStateException("slow returned instead of being cancelled")
        // Looked at 5 ms later: polling meanwhile would take a core from the server.
        delay(5)
        val deadline = System.nanoTime() + 5_000_000_000L
        var lines = cancelLines(log)
        while (lines.size <= before) {
            if (System.nanoTime() > deadline) throw IllegalStateException("the server never logged the cancellation")
            delay(1)
            lines = cancelLines(log)
        }
        out.add((lines[before].toLong() - t0) / 1e3)
    }
    out
}

fun run(a: Args): String = runBlocking {
    val n = a.int("n", 1000)
    val k = a.int("k", 64)
    val warmup = a.int("warmup", 100)
    val payloadBytes = a.int("payload", 100)
    require(a.flags["url"] != null || a.rest.isNotEmpty()) { "give --url URL or -- SERVER_CMD ARG..." }
    val side = when (a.flags["impl"]) {
        "oxmcp" -> OxmcpSide.open(a)
        "official" -> OfficialSide.open(a)
        else -> throw IllegalArgumentException("--impl oxmcp|official")
    }
    val small = basePayload(100)
    for (i in 0 until warmup) echo(side, small, i)
    val base = basePayload(payloadBytes)
    val result = when (val w = a.flags["workload"]) {
        "seq", "large" -> {
            val lat = DoubleArray(n)
            val start = System.nanoTime()
            for (i in 0 until n) {
                val t = System.nanoTime()
                echo(side, base, i)
                lat[i] = (System.nanoTime() - t) / 1e6
            }
            val secs = (System.nanoTime() - start) / 1e9
            lat.sort()
            if (w == "large") buildJsonObject { put("calls", n); put("median_ms", lat[lat.size / 2]) }
            else buildJsonObject { put("calls", n); put("seconds", secs); put("calls_per_s", n / secs) }
        }
        "conc" -> {
            val next = AtomicInteger(0)
            val start = System.nanoTime()
            coroutineScope {
                repeat(minOf(k, n)) {
                    launch {
                        while (true) {
                            val i = next.getAndIncrement()
                            if (i >= n) break
                            echo(side, base, i)
                        }
                    }
                }
            }
            val secs = (System.nanoTime() - start) / 1e9
            buildJsonObject { put("calls", n); put("seconds", secs); put("calls_per_s", n / secs) }
        }
        "cancel" -> {
            val log = a.flags["cancel-log"] ?: throw IllegalArgumentException("cancel: --cancel-log is required")
            val us = cancelLatencies(side, n, log)
            buildJsonObject { put("cancel_us", JsonArray(us.map(::JsonPrimitive))) }
        }
        else -> throw IllegalArgumentException("unknown workload $w")
    }
    // A close that hangs does not hold the figures back.
    withTimeoutOrNull(10_000) { side.close() } ?: System.err.println("driver: close timed out")
    result.toString()
}

fun main(argv: Array<String>) {
    val line = try {
        run(Args(argv))
    } catch (e: Throwable) {
        System.err.println("driver: $e")
        exitProcess(1)
    }
    println(line)
    System.out.flush()
    // The engine's runtime threads would keep the JVM alive: exit.
    exitProcess(0)
}
