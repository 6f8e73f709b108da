"""The oxmcp Python benchmark server: `echo` (an async Python handler) and a cancellable
`slow`, over stdio (default) or Streamable HTTP. Used by bench.py and by the cross-SDK
suite (bench/suite/PROTOCOL.md: --stdio | --http PORT, --cancel-log PATH)."""

import asyncio
import sys

from oxmcp import Server

from suite_args import log_cancel, server_args

server = Server("bench-oxmcp-py", version="0.1.0")
CANCEL_LOG = None


@server.tool(description="Echo the text back.")
async def echo(text: str) -> str:
    return text


@server.tool(description="Wait until cancelled.")
async def slow() -> str:
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
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
            server.run("http", host="127.0.0.1", port=args.http)
