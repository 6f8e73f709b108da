"""An MCP server built with the official Python SDK (PyPI ``mcp``, ``MCPServer``), for the
interop tests in ../test_interop.py that drive the oxmcp Python client against it.

    python official_server.py             serve on stdio
    python official_server.py http PORT   serve Streamable HTTP at http://127.0.0.1:PORT/mcp
                                          (the SDK's own runner: uvicorn on 127.0.0.1)
    python official_server.py sse PORT    serve the legacy HTTP+SSE transport at
                                          http://127.0.0.1:PORT/sse (session era only)
    python official_server.py session-only   stdio, session era only (no server/discover)

The SDK (2.3.0) serves both protocol eras on stdio and Streamable HTTP: a client's first
request decides (server/discover opens the 2026-07-28 stateless era).

The values returned here are asserted in test_interop.py: keep the two in step.
"""

import sys
import warnings
from typing import Annotated

import anyio
from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.types import Completion, PromptReference, ResourceTemplateReference, SamplingMessage, TextContent

# Logging, sampling and roots are deprecated by the 2026-07-28 protocol, yet current with 2025-11-25,
# the version oxmcp negotiates: keep stderr free of the SDK's warnings about them.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

server = MCPServer(
    name="official-py",
    version="2.3.0-interop",
    instructions="An official-SDK server for the oxmcp interop tests.",
    log_level="WARNING",
)

# Names of tool calls whose handler saw its cancellation (the `cancellations` tool reads it).
CANCELLED: list[str] = []


class Point(BaseModel):
    x: int
    y: int


@server.tool(description="Add two integers.")
def add(a: Annotated[int, Field(description="the first number")],
        b: Annotated[int, Field(description="the second number")]) -> int:
    return a + b


@server.tool(description="Greet someone by name.")
def greet(name: str, punctuation: str = "!") -> str:
    return f"Hello, {name}{punctuation}"


@server.tool(description="Mirror a point (structured output).")
def mirror(x: int, y: int) -> Point:
    return Point(x=-x, y=-y)


@server.tool(description="Count to n, reporting progress and logging each step.")
async def count_to(n: int, ctx: Context) -> str:
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
        await ctx.log("info", f"counted {i}", logger_name="count_to")
    return f"counted to {n}"


@server.tool(description="Fail with an anticipated tool error.")
def fail(reason: str) -> str:
    raise ToolError(f"failed on purpose: {reason}")


@server.tool(description="Fail with an unexpected exception.")
def crash() -> str:
    raise RuntimeError("secret internals")


@server.tool(description="Fail with a JSON-RPC error.")
def fail_code(code: int) -> str:
    raise MCPError(code, "custom protocol failure", {"asked": code})


@server.tool(description="Sleep; a cancelled call is recorded.")
async def sleepy(seconds: float) -> str:
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        CANCELLED.append(f"sleepy {seconds}")
        raise
    return "slept"


@server.tool(description="The calls whose handler saw a cancellation.")
def cancellations() -> list[str]:
    return list(CANCELLED)


@server.tool(description="The value of one HTTP request header (or <none>).")
def echo_header(name: str, ctx: Context) -> str:
    headers = ctx.headers or {}
    return headers.get(name.lower(), "<none>")


class Person(BaseModel):
    name: str
    age: int = 30


@server.tool(description="Ask the user who they are (elicitation).")
async def ask_user(ctx: Context) -> str:
    answer = await ctx.elicit("Who are you?", Person)
    if answer.action != "accept":
        return f"user said {answer.action}"
    return f"user is {answer.data.name}, {answer.data.age}"


@server.tool(description="Ask the client's model (sampling).")
async def ask_model(question: str, ctx: Context) -> str:
    reply = await ctx.session.create_message(
        [SamplingMessage(role="user", content=TextContent(type="text", text=question))],
        max_tokens=20, related_request_id=ctx.request_id)
    return f"model {reply.model} said: {reply.content.text}"


@server.tool(description="The client's roots.")
async def roots(ctx: Context) -> str:
    listed = await ctx.session.list_roots()
    return ",".join(str(r.uri) for r in listed.roots)


@server.tool(description="Tell subscribers that a resource changed.")
async def touch(uri: str, ctx: Context) -> str:
    await ctx.notify_resource_updated(uri)
    return f"touched {uri}"


@server.resource("official://static/readme", name="readme", description="A fixed text resource.",
                 mime_type="text/plain")
def readme() -> str:
    return "official readme text"


@server.resource("official://static/logo", name="logo", mime_type="image/png")
def logo() -> bytes:
    return b"\x89PNG\x00\x01\x02"


@server.resource("official://users/{user_id}/profile", name="user_profile", mime_type="text/plain")
def user_profile(user_id: str) -> str:
    return f"profile of user {user_id}"


@server.prompt(description="Ask for a review of some code.")
def review_code(code: str, language: str = "rust") -> str:
    return f"Please review this {language} code:\n{code}"


@server.prompt(description="A short conversation.")
def chat(topic: str) -> list[UserMessage | AssistantMessage]:
    return [UserMessage(f"Tell me about {topic}"), AssistantMessage("Gladly.")]


@server.completion()
async def complete(ref, argument, context):
    if isinstance(ref, PromptReference) and argument.name == "language":
        return Completion(values=[v for v in ("python", "perl", "rust") if v.startswith(argument.value)])
    if isinstance(ref, ResourceTemplateReference) and argument.name == "user_id":
        return Completion(values=[v for v in ("7", "42", "420") if v.startswith(argument.value)])
    return None


async def serve_session_era_only() -> None:
    """stdio in the session era only: the SDK's handshake-only loop (``serve_loop``, what its
    streamable-HTTP manager drives) instead of ``Server.run``'s dual-era loop, so a request
    before ``initialize`` (e.g. ``server/discover``) is refused as by a pre-2026-07-28 server."""
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        async with lowlevel.lifespan(lowlevel) as state:
            await serve_loop(lowlevel, read_stream, write_stream, lifespan_state=state,
                             init_options=lowlevel.create_initialization_options())


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"] and len(sys.argv) == 3:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif sys.argv[1:2] == ["sse"] and len(sys.argv) == 3:
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    elif sys.argv[1:] == ["session-only"]:
        anyio.run(serve_session_era_only)
    elif sys.argv[1:]:
        sys.exit(f"usage: {sys.argv[0]} [http PORT | sse PORT | session-only]")
    else:
        server.run("stdio")
