"""The official Python SDK's benchmark server (PyPI `mcp`, MCPServer): `echo` (an async
Python handler) and a cancellable `slow`, over stdio (default) or Streamable HTTP. Used by
bench.py and by the cross-SDK suite (bench/suite/PROTOCOL.md)."""

import sys
import warnings

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

from suite_args import log_cancel, server_args

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

server = MCPServer(name="bench-official-py", version="0.1.0", log_level="WARNING")
CANCEL_LOG = None


@server.tool(description="Echo the text back.")
async def echo(text: str) -> str:
    return text


@server.tool(description="Wait until cancelled.")
async def slow() -> str:
    try:
        await anyio.sleep(60)
    except anyio.get_cancelled_exc_class():
        log_cancel(CANCEL_LOG)
        raise
    return "done"


if __name__ == "__main__":
    if len(sys.argv) == 1:
        server.run("stdio")
    else:
        args = server_args()
        CANCEL_LOG = args.cancel_log
        if args.stdio:
            server.run("stdio")
        else:
            server.run("streamable-http", host="127.0.0.1", port=args.http)
