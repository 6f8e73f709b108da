package dev.oxmcp.bench.kotlin

import java.io.File
import java.io.FileOutputStream

/** The flags of ../../suite/PROTOCOL.md: `--name value`, a bare `--stdio`, and `-- CMD ARG...`. */
class Args(argv: Array<String>) {
    val flags = mutableMapOf<String, String>()
    val rest = mutableListOf<String>()

    init {
        var i = 0
        while (i < argv.size) {
            val a = argv[i]
            when {
                a == "--" -> {
                    rest.addAll(argv.drop(i + 1))
                    break
                }
                a == "--stdio" -> flags["stdio"] = "true"
                a.startsWith("--") && i + 1 < argv.size -> flags[a.removePrefix("--")] = argv[++i]
                else -> throw IllegalArgumentException("unexpected argument $a")
            }
            i++
        }
    }

    fun int(name: String, default: Int): Int = flags[name]?.toInt() ?: default
}

/**
 * The `--cancel-log` file, opened once in append mode: one line per cancellation a handler
 * observed, the CLOCK_MONOTONIC time in ns (System.nanoTime() is clock_gettime(CLOCK_MONOTONIC)
 * on Linux: checked against Python's time.monotonic_ns). Opened at start so the first
 * cancellation pays no class loading for it.
 */
class CancelLog(path: String?) {
    private val out = path?.let { FileOutputStream(it, true) }

    @Synchronized
    fun record() {
        val now = System.nanoTime()
        out?.let {
            it.write("$now\n".toByteArray())
            it.flush()
        }
    }
}

/** The cancel log's lines so far (none while it does not exist). */
fun cancelLines(path: String): List<String> =
    try {
        File(path).readLines().filter { it.isNotBlank() }
    } catch (_: java.io.IOException) {
        emptyList()
    }

/** [len] ASCII bytes, a..z repeated. */
fun basePayload(len: Int): String = buildString(len) { for (i in 0 until len) append('a' + i % 26) }

private const val TAG = 10

/** The payload of call [i]: its number (10 digits) over the start of [base], so every call differs. */
fun payloadFor(base: String, i: Int): String =
    if (base.length >= TAG) i.toLong().rem(10_000_000_000L).toString().padStart(TAG, '0') + base.substring(TAG) else base
