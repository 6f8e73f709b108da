"""A Python MCP server on oxmcp used by the tests (stdio by default, `http PORT` for HTTP)."""

import asyncio
import dataclasses
import enum
import sys
import time
from typing import Annotated, Any, List, Literal, Optional

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from oxmcp import Context, Image, McpError, Message, Server, ToolResult

server = Server("py-demo", version="1.2.3", instructions="A demo server for the tests.")


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int
    y: int


@dataclasses.dataclass
class Box:
    width: float
    height: float


class Pair(TypedDict):
    left: str
    right: str


@server.tool()
async def add(a: int, b: int, ctx: Context) -> int:
    """Add two numbers.

    Args:
        a: the first number
        b: the second number
    """
    await ctx.report_progress(50, 100, "halfway")
    return a + b


@server.tool(annotations={"readOnlyHint": True})
def shout(text: Annotated[str, Field(description="what to shout")], times: int = 1) -> str:
    """Upper-cases text (a sync handler)."""
    return " ".join([text.upper()] * times)


@server.tool()
async def kinds(color: Color, mode: Literal["a", "b"], tags: List[str], box: Box, pair: Pair,
                note: Optional[str] = None) -> dict[str, Any]:
    """Echoes every kind of argument back as structured content."""
    return {"color": color.value, "mode": mode, "tags": tags, "area": box.width * box.height,
            "pair": pair["left"] + pair["right"], "note": note}


@server.tool()
async def mirror(p: Point) -> Point:
    """Returns the point mirrored (structured output with a schema)."""
    return Point(x=-p.x, y=-p.y)


@server.tool()
async def picture() -> list[object]:
    """Returns a caption and an image (bytes)."""
    png = bytes.fromhex("89504e470d0a1a0a") + b"rest-of-png"
    return ["a caption", Image(png)]


@server.tool()
async def exact() -> ToolResult:
    return ToolResult(content=["raw"], structured_content={"k": 1}, is_error=True)


@server.tool()
async def fail(code: Optional[int] = None) -> str:
    if code is not None:
        raise McpError(code, "custom failure", {"why": "asked"})
    raise ValueError("boom")


@server.tool()
async def sleepy(seconds: float, ctx: Context) -> str:
    try:
        await asyncio.sleep(seconds)
        return "slept"
    except asyncio.CancelledError:
        ctx.info("sleepy saw CancelledError")
        raise


@server.tool()
def busy_sync(seconds: float, ctx: Context) -> str:
    """A sync handler that polls ctx.cancelled."""
    end = time.time() + seconds
    while time.time() < end:
        if ctx.cancelled:
            ctx.info("busy_sync saw cancelled")
            return "stopped"
        time.sleep(0.01)
    return "done"


@server.tool()
async def chatty(ctx: Context) -> str:
    for level in ("debug", "info", "warning", "error"):
        ctx.log(level, f"{level} message")
    return "logged"


@server.tool()
async def ask_model(question: str, ctx: Context) -> str:
    reply = await ctx.sample(question, max_tokens=20)
    return f"model: {reply.content.text}"


class Details(BaseModel):
    name: str
    age: int = 30


@server.tool()
async def ask_user(ctx: Context) -> str:
    answer = await ctx.elicit("Who are you?", Details)
    if answer.action != "accept":
        return f"user said {answer.action}"
    return f"user is {answer.content.name}, {answer.content.age}"


@server.tool()
async def roots(ctx: Context) -> str:
    return ",".join(r.uri for r in await ctx.list_roots())


@server.tool()
async def who(ctx: Context) -> dict[str, Any]:
    return {"client": ctx.client_info.name, "id": ctx.request_id, "version": ctx.protocol_version}


@server.resource("demo://static", mime_type="text/plain")
def static() -> str:
    return "static text"


@server.resource("demo://blob")
def blob() -> bytes:
    return b"\x00\x01\x02"


@server.resource("demo://users/{user_id}/profile")
async def profile(user_id: int) -> dict[str, Any]:
    return {"user_id": user_id, "kind": type(user_id).__name__}


@server.prompt()
def review(code: str, language: str = "python") -> str:
    """Review some code."""
    return f"Review this {language}: {code}"


@server.prompt()
def conversation(topic: str) -> list[Message]:
    return [Message("user", f"Tell me about {topic}"), Message("assistant", "Gladly.")]


@server.completion()
def complete(ref, argument, context):
    options = ["python", "perl", "rust"]
    return [o for o in options if o.startswith(argument["value"])]


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run(transport="http", port=int(sys.argv[2]))
    else:
        server.run()
