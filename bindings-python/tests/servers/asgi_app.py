"""An oxmcp server mounted in a Starlette app at /api, beside a /health route, served by
uvicorn: ``python asgi_app.py PORT [LIFESPAN_LOG]``. The lifespan writes "started" and
"stopped" to LIFESPAN_LOG."""

import asyncio
import contextlib
import sys
from typing import Any, AsyncIterator

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from oxmcp import Context, Server

LOG = sys.argv[2] if len(sys.argv) > 2 else None


def note(text: str) -> None:
    if LOG:
        with open(LOG, "a") as f:
            f.write(text + "\n")


@contextlib.asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[dict[str, Any]]:
    note("started")
    yield {"db": "ready"}
    note("stopped")


server = Server("asgi-demo", lifespan=lifespan)
cancelled = asyncio.Event()


@server.tool()
async def status(ctx: Context) -> str:
    """Logs, then says what the lifespan holds and which tenant asked."""
    await ctx.info("looking")
    return f"db {ctx.lifespan['db']}, tenant {(ctx.headers or {}).get('x-tenant')}"


@server.tool()
async def slow() -> str:
    """Waits until cancelled."""
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        cancelled.set()
        raise
    return "done"


@server.tool()
def was_cancelled() -> bool:
    return cancelled.is_set()


async def health(request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


mcp = server.http_app()
app = Starlette(routes=[Route("/health", health), Mount("/api", mcp)], lifespan=mcp.lifespan)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
