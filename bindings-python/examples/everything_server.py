"""The everything server in Python on oxmcp: the fixtures of ``oxmcp everything-server``
(cli/src/everything.rs) with the same names, schemas, texts and behaviour, so the official
MCP conformance suite can run against a Python server.

    python everything_server.py                      # stdio
    python everything_server.py --http 127.0.0.1:8000  # Streamable HTTP on /mcp
    python everything_server.py --http 127.0.0.1:8001 --redis redis://127.0.0.1:6379  # one of several nodes

Over HTTP it prints ``listening on URL`` to stderr once it accepts connections (port 0
picks a free port) and stops on SIGINT or SIGTERM. Like ``oxmcp everything-server``, it
tells subscribers of test://watched-resource about an update every 3 seconds.

What the Python API cannot say identically (none of it matters to the suite): argument
schemas built from signatures give each property a pydantic ``title``; prompts without
arguments list ``"arguments": []``; the template resource's JSON text has spaces after
``,`` and ``:``.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import math
import signal
import socket
import struct
import sys
import zlib
from typing import Annotated, Any, Union

from pydantic import Field

import oxmcp
from oxmcp import Audio, Context, EmbeddedResource, Image, Message, Server, ToolResult

server = Server("oxmcp-everything-python", version=oxmcp.__version__,
                instructions="A test server: every MCP feature with the conformance suite's fixture names.")


# -- media made at run time --------------------------------------------------------------

def png(size: int, rgb: tuple[int, int, int]) -> bytes:
    """A ``size`` x ``size`` 8-bit RGB PNG of one colour (stored deflate, like the Rust one)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = (b"\x00" + bytes(rgb) * size) * size  # each row: filter "none", then the pixels
    ihdr = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b"")


def wav(millis: int, hz: float) -> bytes:
    """A short 8 kHz mono 16-bit PCM WAV tone (samples computed in float32, like the Rust one)."""
    def f32(x: float) -> float:
        return float(struct.unpack("<f", struct.pack("<f", x))[0])

    rate = 8000
    tau = f32(2 * math.pi)
    samples = rate * millis // 1000
    data = b"".join(struct.pack("<h", int(f32(f32(math.sin(f32(f32(f32(i / rate) * hz) * tau))) * 8000.0)))
                    for i in range(samples))
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)  # PCM, mono, rate, bytes/s, block, bits
    return (b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<I", 16) + fmt
            + b"data" + struct.pack("<I", len(data)) + data)


def compact(value: Any) -> str:
    """JSON as serde_json writes it (no spaces, non-ASCII kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# -- tools -------------------------------------------------------------------------------
# Handlers that return content helpers (lists of them) or a ToolResult get no output
# schema from their return annotation: the helpers say themselves what they send.

@server.tool(description="Returns its `text` argument as one text block.", annotations={"readOnlyHint": True})
async def echo(text: str) -> str:
    return text


@server.tool(description="Sleeps `ms` milliseconds unless cancelled; returns `tag`.")
async def slow(tag: int, ms: Annotated[int, Field(ge=0)], ctx: Context) -> str:
    try:
        await asyncio.sleep(ms / 1000)
    except asyncio.CancelledError:
        # Tells observers (tests, benchmarks) that the cancel reached the handler.
        ctx.log("info", f"slow tag={tag} cancelled", logger="slow")
        raise
    return f"slow {tag} done"


@server.tool(description="Returns a simple text response.")
async def test_simple_text() -> str:
    return "This is a simple text response for testing."


@server.tool(description="Returns an image.")
async def test_image_content() -> list[Image]:
    return [Image(png(8, (220, 40, 40)), "image/png")]


@server.tool(description="Returns audio.")
async def test_audio_content() -> list[Audio]:
    return [Audio(wav(100, 440.0), "audio/wav")]


@server.tool(description="Returns an embedded resource.")
async def test_embedded_resource() -> list[EmbeddedResource]:
    return [EmbeddedResource("test://embedded-resource", text="This is an embedded resource content.",
                             mime_type="text/plain")]


@server.tool(description="Returns text, an image and a resource.")
async def test_multiple_content_types() -> list[Union[str, Image, EmbeddedResource]]:
    return ["Multiple content types test:",
            Image(png(8, (40, 160, 40)), "image/png"),
            EmbeddedResource("test://mixed-content-resource", text='{"test":"data","value":123}',
                             mime_type="application/json")]


@server.tool(description="Sends three log messages while it runs.")
async def test_tool_with_logging(ctx: Context) -> str:
    steps = ["Tool execution started", "Tool processing data", "Tool execution completed"]
    for i, text in enumerate(steps):
        ctx.log("info", text, logger="everything")
        if i < len(steps) - 1:
            await asyncio.sleep(0.05)
    return "Tool with logging executed successfully"


@server.tool(description="Reports progress 0, 50 and 100 of 100.")
async def test_tool_with_progress(ctx: Context) -> str:
    for i, progress in enumerate([0, 50, 100]):
        await ctx.report_progress(progress, 100, f"Completed step {i} of 2")
        if i < 2:
            await asyncio.sleep(0.05)
    token = ctx.progress_token
    return "Progress test completed (" + ("no progress token" if token is None else f"token {json.dumps(token)}") + ")"


@server.tool(description="Always fails with an isError result.")
async def test_error_handling() -> ToolResult:
    return ToolResult(content=["This tool intentionally returns an error for testing"], is_error=True)


@server.tool(description="Asks the client's model (sampling/createMessage).")
async def test_sampling(prompt: str, ctx: Context) -> str:
    reply = await ctx.sample(prompt, max_tokens=100)
    blocks = reply.content if isinstance(reply.content, list) else [reply.content]
    return "LLM response: " + " ".join(b.text for b in blocks if b and b.type == "text")


def form(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


async def elicit_and_report(ctx: Context, message: str, schema: dict[str, Any]) -> str:
    answer = await ctx.elicit(message, schema)
    return f"User response: action={answer.action}, content={compact(answer.get('content'))}"


@server.tool(description="Asks the user (elicitation/create).")
async def test_elicitation(message: str, ctx: Context) -> str:
    schema = form({"username": {"type": "string", "description": "User's response"},
                   "email": {"type": "string", "description": "User's email address"}}, ["username", "email"])
    return await elicit_and_report(ctx, message, schema)


@server.tool(description="Elicitation whose fields have defaults (SEP-1034).")
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    schema = form({
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": True},
    }, [])
    return await elicit_and_report(ctx, "Please review and update the form fields with defaults", schema)


@server.tool(description="Elicitation with every enum form (SEP-1330).")
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    schema = form({
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": [
            {"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "Second Option"},
            {"const": "value3", "title": "Third Option"}]},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                       "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "items": {"anyOf": [
            {"const": "value1", "title": "First Choice"},
            {"const": "value2", "title": "Second Choice"},
            {"const": "value3", "title": "Third Choice"}]}},
    }, [])
    return await elicit_and_report(ctx, "Please select options from the enum fields", schema)


# The exact 2020-12 schema of the Rust fixture, which no signature expresses: given with
# input_schema=, and the arguments arrive as plain JSON values. The suite checks these
# keywords reach the listing unchanged: $schema, $defs (with an $anchor),
# additionalProperties, allOf holding anyOf, and if/then/else.
JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@server.tool(description="A tool whose input schema uses JSON Schema 2020-12 features.", input_schema=JSON_SCHEMA_2020_12)
async def json_schema_2020_12_tool(**arguments: Any) -> ToolResult:
    return ToolResult(content=["Received: " + compact(arguments)])


@server.tool(description="Closes its SSE stream mid-call; the client resumes it to get the answer (2025-11-25 polling).")
async def test_reconnection(ctx: Context) -> str:
    await asyncio.sleep(0.05)
    ctx.end_response_stream()
    await asyncio.sleep(0.1)
    return "Reconnection test completed"



# -- resources ---------------------------------------------------------------------------

@server.resource("test://static-text", name="static-text", description="A static text resource", mime_type="text/plain")
async def static_text() -> str:
    return "This is the content of the static text resource."


@server.resource("test://static-binary", name="static-binary", description="A static binary resource (PNG)",
                 mime_type="image/png")
async def static_binary() -> bytes:
    return png(4, (0, 0, 255))


@server.resource("test://watched-resource", name="watched-resource", description="A resource to subscribe to",
                 mime_type="text/plain")
async def watched_resource() -> str:
    return "Watched resource content"


@server.resource("test://template/{id}/data", name="template", description="A templated resource")
async def template(id: str) -> dict[str, Any]:
    # A dict is sent as application/json text (the Rust fixture's JSON has no spaces).
    return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}


# -- prompts -----------------------------------------------------------------------------

@server.prompt(description="A prompt without arguments")
def test_simple_prompt() -> list[Message]:
    return [Message("user", "This is a simple prompt for testing.")]


@server.prompt(description="A prompt with two arguments")
def test_prompt_with_arguments(arg1: Annotated[str, Field(description="First test argument")],
                               arg2: Annotated[str, Field(description="Second test argument")]) -> list[Message]:
    return [Message("user", f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")]


@server.prompt(description="A prompt that embeds a resource")
def test_prompt_with_embedded_resource(
        resourceUri: Annotated[str, Field(description="URI of the resource to embed")]) -> list[Message]:  # noqa: N803
    return [Message("user", EmbeddedResource(resourceUri, text="Embedded resource content for testing.",
                                             mime_type="text/plain")),
            Message("user", "Please process the embedded resource above.")]


@server.prompt(description="A prompt with an image")
def test_prompt_with_image() -> list[Message]:
    return [Message("user", Image(png(8, (200, 200, 0)), "image/png")),
            Message("user", "Please analyze the image above.")]


# -- completion --------------------------------------------------------------------------

@server.completion()
def complete(ref: dict[str, Any], argument: dict[str, Any], context: Any) -> list[str]:
    kind, name = ref.get("type"), argument.get("name")
    if kind == "ref/prompt" and name == "arg1":
        candidates = ["alpha", "alpine", "beta", "gamma"]
    elif kind == "ref/prompt" and name == "arg2":
        candidates = ["one", "two", "three"]
    elif kind == "ref/resource" and name == "id":
        candidates = ["1", "2", "3", "10", "42"]
    else:
        candidates = ["paris", "park", "python", "rust"]
    prefix = argument.get("value", "")
    return [c for c in candidates if c.startswith(prefix)]


# -- tasks (the tasks extension; cli/src/task_fixtures.rs) ------------------------------


@server.tool(description="Greets (never a task).")
def greet(name: str = "World") -> str:
    return f"Hello, {name}!"


@server.tool(description="Works for `seconds` seconds, as a task when it can.", task_support="optional")
async def slow_compute(seconds: float = 1.0, label: str = "job") -> str:
    seconds = min(max(seconds, 0.0), 600.0)
    await asyncio.sleep(seconds)
    return f"{label}: computed in {seconds:g} s"


@server.tool(description="Fails as a tool after a second (only as a task).", task_support="required")
async def failing_job() -> ToolResult:
    await asyncio.sleep(1)
    return ToolResult(["the job failed"], is_error=True)


@server.tool(description="Ends with a JSON-RPC error, as a task when it can.", task_support="optional")
def protocol_error_job() -> str:
    raise oxmcp.McpError(-32603, "the job crashed")


async def confirmed(ctx: Context, message: str) -> bool:
    schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
    answer = await ctx.elicit(message, schema)
    return bool(answer.action == "accept" and answer.content and answer.content.confirm)


@server.tool(description="Asks the user to confirm before deleting `filename`.", task_support="optional")
async def confirm_delete(filename: str, ctx: Context) -> str:
    return f"deleted {filename}" if await confirmed(ctx, f"Delete {filename}?") else f"kept {filename}"


@server.tool(description="Asks the user's name inline, then finishes the greeting as a task.",
             task_support="required", escalating=True)
async def test_tool_with_task(ctx: Context) -> str:
    answer = await ctx.elicit("What is your name?", {"type": "object", "properties": {"name": {"type": "string"}},
                                                    "required": ["name"]})
    name = answer.content.name if answer.action == "accept" and answer.content else "stranger"
    await ctx.escalate_to_task()  # what is left is slow: the client gets a task handle now
    await asyncio.sleep(0.3)
    return f"Hello, {name}! Your report is ready."


@server.tool(description="Asks two questions at once.", task_support="optional")
async def multi_input(ctx: Context) -> str:
    first, second = await asyncio.gather(confirmed(ctx, "First question?"), confirmed(ctx, "Second question?"))
    return f"first={str(first).lower()} second={str(second).lower()}"


# -- skills (the skills extension; cli/src/skill_fixtures.rs) ----------------------------

server.skill("pdf-processing", {
    "SKILL.md": "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n"
                "# PDF processing\n\nRead `references/FORMS.md` first; pick a template from `templates/`.\n",
    "references/FORMS.md": "# Forms\n\nFill every required field.\n",
    "templates/invoice.md": "# Invoice\n\nTotal: {total}\n",
    "templates/regional/eu-invoice.md": "# EU invoice\n\nVAT number: {vat}\n",
})
server.skill("acme/billing/refunds", {
    "SKILL.md": "---\nname: refunds\ndescription: Process customer refund requests per company policy\n---\n\n"
                "Refund within 30 days of purchase.\n",
})


# -- main --------------------------------------------------------------------------------

WATCHED = "test://watched-resource"


async def tick_watched_resource() -> None:
    """Subscribers of test://watched-resource hear about an update every few seconds."""
    while True:
        await asyncio.sleep(3)
        server.notify_resource_updated(WATCHED)


async def serve(args: argparse.Namespace) -> None:
    ticker = asyncio.ensure_future(tick_watched_resource())
    try:
        if args.http is None:
            await server.serve_stdio()
            return
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(sig, stop.set)
        host, port = args.http
        url = await server.start_http(host, port, stateless=args.stateless, json_response=args.json_response,
                                      redis=args.redis)
        print(f"listening on {url}", file=sys.stderr, flush=True)
        try:
            await stop.wait()
        finally:
            await server.stop_http()
    finally:
        ticker.cancel()


def host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    host = host.strip("[]") or "127.0.0.1"
    try:
        ipaddress.ip_address(host)
    except ValueError:  # Server.start_http takes an IP address, not a name
        try:
            host = str(socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][4][0])
        except OSError as e:
            raise argparse.ArgumentTypeError(f"cannot resolve {host!r}: {e}") from None
    return host, int(port)


def main() -> None:
    parser = argparse.ArgumentParser(description="The oxmcp everything server, in Python (stdio by default).")
    parser.add_argument("--http", metavar="HOST:PORT", type=host_port,
                        help="serve Streamable HTTP on /mcp (and legacy SSE on /sse) instead of stdio")
    parser.add_argument("--stateless", action="store_true", help="HTTP: no sessions")
    parser.add_argument("--json-response", action="store_true", help="HTTP: plain JSON responses instead of SSE")
    parser.add_argument("--redis", metavar="URL",
                        help="HTTP: share sessions with every node on this Redis (redis://HOST:PORT)")
    args = parser.parse_args()
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
