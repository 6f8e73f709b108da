"""One oxmcp Python server for the era tests (../test_eras.py): a tool that asks the user
(ctx.elicit), then reports progress and logs. stdio by default, `http PORT` for HTTP.

In the stateless era the engine re-runs a handler once the client has answered its asks,
so the tool asks first and does its side effects afterwards: both eras then see the same
progress and logs, and the same result."""

import asyncio
import sys
from typing import Any

from pydantic import BaseModel

from oxmcp import Context, Server

server = Server("py-eras", version="2.0.0", instructions="One server, both eras.")


class Name(BaseModel):
    name: str


@server.tool()
async def greet(greeting: str, ctx: Context) -> str:
    """Asks the user's name, then reports progress and logs at three levels."""
    answer = await ctx.elicit("What is your name?", Name)
    who = answer.content.name if answer.action == "accept" else f"<{answer.action}>"
    await ctx.report_progress(1, 2, "asked")
    ctx.debug(f"debug: greeting {who}")
    ctx.info(f"info: greeting {who}")
    ctx.warning(f"warning: greeting {who}")
    await ctx.report_progress(2, 2, "greeted")
    return f"{greeting}, {who}!"


@server.tool()
async def consult(question: str, ctx: Context) -> str:
    """Asks the client's model and lists its roots (two more kinds of asks)."""
    reply = await ctx.sample(question, max_tokens=10)
    roots = await ctx.list_roots()
    return f"{reply.content.text} in {','.join(r.uri for r in roots)}"


CANCELLED: list[float] = []


@server.tool()
async def wait(seconds: float) -> str:
    """Sleeps; a cancelled call is recorded for `cancelled`."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        CANCELLED.append(seconds)
        raise
    return "waited"


@server.tool()
def cancelled() -> dict[str, Any]:
    return {"seconds": list(CANCELLED)}


@server.tool()
async def era(ctx: Context) -> dict[str, Any]:
    """What the handler sees of the request: the protocol version and the client's name."""
    return {"version": ctx.protocol_version, "client": ctx.client_info.name if ctx.client_info else None}


@server.resource("eras://note", mime_type="text/plain")
def note() -> str:
    return "a note"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run(transport="http", port=int(sys.argv[2]))
    else:
        server.run()
