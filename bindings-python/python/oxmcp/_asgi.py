"""The engine's HTTP server as an ASGI application, to mount in FastAPI, Starlette or any
ASGI server beside the routes of your own (health checks, a web UI). The engine answers
each request exactly as its own listener would; this module only moves bytes between
the ASGI server and it."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, MutableMapping, Optional

from . import _oxmcp

if TYPE_CHECKING:
    from ._server import Server

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class HttpApp:
    """An ASGI application serving MCP (Streamable HTTP) at ``path``; made by
    :meth:`Server.http_app`.

    Mounted at ``/api`` in Starlette or FastAPI, the endpoint is ``/api/mcp``. The server's
    lifespan is entered by the ASGI lifespan protocol when the app is the top-level one,
    by ``lifespan=app.lifespan`` when it is mounted in another app, and otherwise by the
    first request (then :meth:`close` exits it).
    """

    def __init__(self, server: Server, options: dict[str, Any]) -> None:
        self._server = server
        self._options = options
        self._native: Optional[_oxmcp.NativeHttpApp] = None
        self._held = False
        self._starting: Optional[asyncio.Lock] = None

    @property
    def server(self) -> Server:
        return self._server

    async def _app(self) -> _oxmcp.NativeHttpApp:
        """The engine's app, made (and the lifespan entered) on first use on this loop."""
        if self._native is not None:
            return self._native
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._native is None:
                await self._server._hold()
                self._held = True
                self._native = self._server._native.http_app(json.dumps(self._options))
        return self._native

    async def close(self) -> None:
        """Ends every session and stream, then the server's lifespan (unless something
        else holds it). A later request starts the app again."""
        native, self._native = self._native, None
        if native is not None:
            await native.shutdown()
        if self._held:
            self._held = False
            await self._server._release()

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Any = None) -> AsyncIterator[None]:
        """The app's lifetime, for the outer app's lifespan: ``Starlette(...,
        lifespan=mcp.lifespan)`` or ``FastAPI(lifespan=mcp.lifespan)``."""
        await self._app()
        try:
            yield
        finally:
            await self.close()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan_protocol(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)
        else:  # websocket: not an MCP transport
            raise ValueError(f"oxmcp's HTTP app does not serve {scope['type']!r} connections")

    async def _lifespan_protocol(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self._app()
                except Exception as e:
                    await send({"type": "lifespan.startup.failed", "message": str(e)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = await self._app()
        # The path inside the mount: Starlette hands mounted apps the whole path and the
        # mount's prefix as root_path (older versions strip it themselves).
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root):] or "/"
        query: bytes = scope.get("query_string", b"")
        target = path + ("?" + query.decode("latin-1") if query else "")
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        # One byte beyond the engine's limit is enough for it to answer 413: a huge body is
        # never held here.
        body = bytearray()
        limit = app.max_body_bytes + 1
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")[: max(0, limit - len(body))]
            if not message.get("more_body", False):
                break
        # From here on the client may go away at any time: while the engine works on the
        # answer (a stateless-era call is cancelled that way) as while it streams.
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            answer = asyncio.ensure_future(app.handle(scope["method"], target, headers, bytes(body)))
            if not await _first(answer, gone):
                return  # dropping the engine's work cancels the request
            status, reply_headers, reply = answer.result()
            try:
                await send({"type": "http.response.start", "status": status,
                            "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in reply_headers]})
                await _stream(reply, gone, send)
            finally:
                reply.close()
        finally:
            gone.cancel()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _first(work: asyncio.Future[Any], gone: asyncio.Future[None]) -> bool:
    """Whether ``work`` finished before the client went away (else it is cancelled)."""
    await asyncio.wait({work, gone}, return_when=asyncio.FIRST_COMPLETED)
    if work.done():
        return True
    work.cancel()
    return False


async def _stream(body: _oxmcp.NativeHttpBody, gone: asyncio.Future[None], send: Send) -> None:
    """Sends the body as it comes, until it ends or the client goes away (then the
    engine sees the stream closed, as a dropped connection)."""
    while True:
        chunk = asyncio.ensure_future(body.next())
        if not await _first(chunk, gone):
            return
        data = chunk.result()
        if data is None:
            break
        await send({"type": "http.response.body", "body": data, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})
