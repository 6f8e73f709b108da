'use strict'
/**
 * Joins the engine's traces to the application's OpenTelemetry (`@opentelemetry/api`).
 *
 * When the application has registered an OpenTelemetry tracer provider, a handler runs in
 * the context of the engine's span for its run (the `host handler` span, under the server
 * span of its request; with the engine's own telemetry off, of the span the client named
 * in `_meta`), so the spans it starts nest under it; a client's handler of a server request
 * runs in the span that request names in its `params._meta`; and a client call made inside
 * a span hands that span to the engine, which makes it the parent of the request (and
 * carries it in `params._meta`). Without the package, or with no provider registered, this
 * costs one check per call and does nothing.
 */

let api = null
try {
  // Optional: resolved from the application's own dependencies.
  api = require('@opentelemetry/api')
} catch {
  api = null
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** Whether the application records spans: the API is there and a provider is registered
 *  (the API's own default is a proxy whose delegate records nothing). */
function active() {
  if (api === null) return false
  const provider = api.trace.getTracerProvider()
  const delegate = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider
  return delegate.constructor.name !== 'NoopTracerProvider'
}

/** The API's span context named by W3C `traceparent` (and `tracestate`) text, if valid. */
function spanContextOf(traceparent, tracestate) {
  const m = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null
  if (m === null || m[1] === 'ff') return null
  const sc = { traceId: m[2], spanId: m[3], traceFlags: parseInt(m[4], 16) & 1, isRemote: true }
  if (typeof tracestate === 'string' && tracestate !== '') sc.traceState = api.createTraceState(tracestate)
  return api.trace.isSpanContextValid(sc) ? sc : null
}

/** Runs `fn()` in the trace context the engine gives the request `details()` describes
 *  (its `info`, fetched only when a provider is registered). */
function inHandlerContext(details, fn) {
  if (!active()) return fn()
  let sc = null
  try {
    const info = details()
    sc = spanContextOf(info.traceparent, info.tracestate)
  } catch {
    sc = null
  }
  if (sc === null) return fn()
  return api.context.with(api.trace.setSpanContext(api.context.active(), sc), fn)
}

/** Runs `fn()` in the span a server's request names in its `params._meta` (for a client's
 *  handler of it: sampling, elicitation, roots). */
function inMetaContext(params, fn) {
  return inHandlerContext(() => params?._meta ?? {}, fn)
}

/** The current span as W3C text for a call's options (`{}` when there is none). */
function callerSpan() {
  if (api === null) return {}
  const sc = api.trace.getSpanContext(api.context.active())
  if (sc === undefined || !api.trace.isSpanContextValid(sc)) return {}
  const flags = (sc.traceFlags & 0xff).toString(16).padStart(2, '0')
  const out = { traceparent: `00-${sc.traceId}-${sc.spanId}-${flags}` }
  const state = sc.traceState?.serialize()
  if (state) out.tracestate = state
  return out
}

module.exports = { inHandlerContext, inMetaContext, callerSpan }
