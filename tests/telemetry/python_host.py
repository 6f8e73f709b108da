"""The Python host of the telemetry tests, with its own OpenTelemetry SDK exporting to the
same OTLP endpoint as the engine (the standard OTEL_* variables name it).

    python python_host.py server PORT [REDIS]
                                          an oxmcp server on 127.0.0.1:PORT whose `lookup`
                                          tool records a span of its own ("lookup work");
                                          one node of several sharing sessions on REDIS
    python python_host.py client URL      calls `lookup` at URL inside a span of its own
                                          ("python client work"); prints its trace id
    python python_host.py stdio-client ERA CMD...
                                          calls `echo` of the server CMD starts, in ERA
                                          (the engine's spans only: hosts.test.mjs)
"""

import asyncio
import sys

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from oxmcp import Client, Server


def install_sdk(service: str) -> TracerProvider:
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return provider


tracer = trace.get_tracer("telemetry-tests")


async def serve(port: int, redis: str | None) -> None:
    install_sdk("python-host-handler")
    server = Server("python-telemetry-server", "1.0.0")

    @server.tool()
    async def lookup(key: str) -> str:
        """Looks a key up, in a span of the handler's own."""
        with tracer.start_as_current_span("lookup work") as span:
            span.set_attribute("lookup.key", key)
            await asyncio.sleep(0.01)
            return f"value of {key}"

    await server.serve_http("127.0.0.1", port, redis=redis)


async def call(url: str) -> None:
    provider = install_sdk("python-host-client")
    with tracer.start_as_current_span("python client work") as span:
        async with Client.http(url) as client:
            result = await client.call_tool("lookup", {"key": "from-python"})
        print(format(span.get_span_context().trace_id, "032x"), flush=True)
        assert result.content[0].text == "value of from-python", result
    provider.force_flush()


async def call_stdio(era: str, command: list[str]) -> None:
    async with Client.stdio(command[0], command[1:], era=era) as client:
        result = await client.call_tool("echo", {"text": f"python {era}"})
    assert result.content[0].text == f"python {era}", result


if __name__ == "__main__":
    if sys.argv[1] == "server":
        asyncio.run(serve(int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None))
    elif sys.argv[1] == "stdio-client":
        asyncio.run(call_stdio(sys.argv[2], sys.argv[3:]))
    else:
        asyncio.run(call(sys.argv[2]))
