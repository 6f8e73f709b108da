"""Joins the engine's traces to the application's OpenTelemetry (``opentelemetry-api``).

When the application has configured an OpenTelemetry SDK, a handler runs in the context
of the engine's span for its run (the ``host handler`` span, under the server span of its
request; with the engine's own telemetry off, of the span the client named in ``_meta``),
so the spans it starts nest under it; and a
client call made inside a span carries that span's context in ``params._meta``, so the
server's trace continues it. Without the package, or with no SDK configured, this costs
one check per call and does nothing.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any, Iterator, Optional

try:
    from opentelemetry import context as _context
    from opentelemetry import propagate as _propagate
    from opentelemetry import trace as _trace
except ImportError:  # pragma: no cover - the API is optional
    _context = None  # type: ignore[assignment]


def _active() -> bool:
    """Whether the application records spans: the API is installed and a real tracer
    provider is set (the API's own default records nothing)."""
    if _context is None:
        return False
    provider = _trace.get_tracer_provider()
    return not isinstance(provider, (_trace.ProxyTracerProvider, _trace.NoOpTracerProvider))


@contextlib.contextmanager
def handler_context(native: Optional[Any]) -> Iterator[None]:
    """Runs a handler's body in the trace context the engine gives its request."""
    if native is None or not _active():
        yield
        return
    facts = json.loads(native.call_now("info") or "null") or {}
    carrier = {k: facts[k] for k in ("traceparent", "tracestate") if isinstance(facts.get(k), str)}
    if not carrier:
        yield
        return
    token = _context.attach(_propagate.extract(carrier))
    try:
        yield
    finally:
        _context.detach(token)


def with_trace_context(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with the current span's context in ``_meta`` (unless the caller put
    trace context there already)."""
    if not _active():
        return params
    meta = params.get("_meta")
    if isinstance(meta, dict) and "traceparent" in meta:
        return params
    carrier: dict[str, str] = {}
    _propagate.inject(carrier)
    if not carrier:
        return params
    return {**params, "_meta": {**(meta if isinstance(meta, dict) else {}), **carrier}}
