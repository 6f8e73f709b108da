package dev.oxmcp.kotlin

import dev.oxmcp.kotlin.ffi.RequestContext
import io.opentelemetry.api.GlobalOpenTelemetry
import io.opentelemetry.api.trace.Span
import io.opentelemetry.api.trace.TracerProvider
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator
import io.opentelemetry.context.Scope
import io.opentelemetry.context.propagation.TextMapGetter
import kotlinx.coroutines.ThreadContextElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext
import io.opentelemetry.context.Context as OtelContext

/**
 * Joins the engine's traces to the application's OpenTelemetry (the optional
 * `io.opentelemetry:opentelemetry-api`). When the application installed an SDK
 * (`GlobalOpenTelemetry`), a handler's coroutine runs with the engine's span for its request
 * as its current context (or, the engine's own telemetry off, the span the client sent in
 * `_meta`), on whatever thread it resumes; a client's handler of a server request (sampling,
 * elicitation, roots) runs in the span that request names in its `_meta`; and a client call
 * made inside a span hands that span's W3C trace context to the engine, the parent of the
 * requests the call sends.
 *
 * Without the API on the class path nothing here loads its classes: [api] is checked first,
 * and only [Otel] names them.
 */
internal object Telemetry {
    /** Whether the OpenTelemetry API is on the class path. */
    private val api: Boolean = try {
        Class.forName("io.opentelemetry.api.trace.Span", false, Telemetry::class.java.classLoader)
        Class.forName("io.opentelemetry.context.Context", false, Telemetry::class.java.classLoader)
        true
    } catch (e: ClassNotFoundException) {
        false
    } catch (e: LinkageError) {
        false
    }

    /**
     * What a handler's coroutine runs with: the trace context the engine gives [request]
     * (one native call for the request's facts, only when the application records spans),
     * or nothing.
     */
    fun element(request: RequestContext): CoroutineContext {
        if (!api || !Otel.active()) return EmptyCoroutineContext
        return try {
            Otel.element(request)
        } catch (e: Exception) {
            EmptyCoroutineContext // a request that is over: the handler runs as it would
        } catch (e: LinkageError) {
            EmptyCoroutineContext // an API too old
        }
    }

    /** What a client's handler of a server request runs with: the span its `_meta` names. */
    fun element(params: JsonObject): CoroutineContext {
        if (!api || !Otel.active()) return EmptyCoroutineContext
        return try {
            Otel.element(params["_meta"] as? JsonObject ?: return EmptyCoroutineContext)
        } catch (e: LinkageError) {
            EmptyCoroutineContext // an API too old
        }
    }

    /** The caller's current span as W3C text (`traceparent` to `tracestate`), or null. */
    fun current(): Pair<String, String?>? = if (!api) null else try {
        Otel.current()
    } catch (e: LinkageError) {
        null
    }
}

/** Everything that names the API's classes (loaded only when it is on the class path). */
private object Otel {
    private val getter = object : TextMapGetter<Map<String, String>> {
        // Abstract in the API's older versions, deprecated in newer ones.
        @Deprecated("the API's own deprecation")
        override fun keys(carrier: Map<String, String>): Iterable<String> = carrier.keys
        override fun get(carrier: Map<String, String>?, key: String): String? = carrier?.get(key)
    }

    /** The global instance [recording] was decided for, and the decision. */
    @Volatile private var checked: Any? = null
    @Volatile private var recording = false

    /**
     * Whether the application's global OpenTelemetry has a tracer provider that is not the
     * API's no-op one: decided once per global instance. Never sets the global itself (as
     * `GlobalOpenTelemetry.get()` would).
     */
    fun active(): Boolean {
        val global = try {
            GlobalOpenTelemetry.getOrNoop()
        } catch (e: LinkageError) {
            return true // an API older than getOrNoop: ask the engine each time
        }
        if (global !== checked) {
            recording = global.tracerProvider.get("dev.oxmcp") !== TracerProvider.noop().get("dev.oxmcp")
            checked = global
        }
        return recording
    }

    fun element(request: RequestContext): CoroutineContext =
        element(request.callNow("info", "")?.let(::parseObject) ?: return EmptyCoroutineContext)

    /** The span `info` (a request's facts, or a `_meta`) names as W3C text, as an element. */
    fun element(info: JsonObject): CoroutineContext {
        val carrier = buildMap {
            for (key in listOf("traceparent", "tracestate")) {
                (info[key] as? JsonPrimitive)?.takeIf { it.isString }?.let { put(key, it.content) }
            }
        }
        if ("traceparent" !in carrier) return EmptyCoroutineContext
        val parent = W3CTraceContextPropagator.getInstance().extract(OtelContext.current(), carrier, getter)
        if (!Span.fromContext(parent).spanContext.isValid) return EmptyCoroutineContext
        return TracedElement(parent)
    }

    fun current(): Pair<String, String?>? {
        val context = OtelContext.current()
        if (!Span.fromContext(context).spanContext.isValid) return null
        val carrier = HashMap<String, String>()
        W3CTraceContextPropagator.getInstance().inject(context, carrier) { c, k, v -> c?.put(k, v) }
        val traceparent = carrier["traceparent"] ?: return null
        return traceparent to carrier["tracestate"]
    }
}

/** Makes [otel] current on each thread the coroutine runs on (and undoes it when it leaves). */
private class TracedElement(private val otel: OtelContext) : ThreadContextElement<Scope> {
    companion object Key : CoroutineContext.Key<TracedElement>

    override val key: CoroutineContext.Key<TracedElement> get() = Key

    override fun updateThreadContext(context: CoroutineContext): Scope = otel.makeCurrent()

    override fun restoreThreadContext(context: CoroutineContext, oldState: Scope) = oldState.close()
}
