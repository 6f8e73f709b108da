"""The engine wakes an asyncio loop that watches no descriptor (asyncio's proactor, the
default on Windows) through call_soon_threadsafe; here a selector loop that refuses
add_reader stands in for it."""

import asyncio
import sys
from typing import Any, Callable

from oxmcp import Client, Context, Server


class NoReaderLoop(asyncio.SelectorEventLoop):
    """Refuses to watch descriptors, as ProactorEventLoop does."""

    refused = 0

    def add_reader(self, fd: Any, callback: Callable[..., object], *args: Any) -> None:  # type: ignore[override]
        NoReaderLoop.refused += 1
        raise NotImplementedError


def run_on_no_reader_loop(coro):
    loop = NoReaderLoop()
    try:
        return loop.run_until_complete(asyncio.wait_for(coro, 60))
    finally:
        loop.close()


def test_a_loop_without_add_reader_runs_calls_and_a_child_server():
    server = Server("proactor-like", version="1.0.0")

    @server.tool()
    async def add(a: int, b: int, ctx: Context) -> int:
        """Adds two numbers, reporting progress on the way."""
        await ctx.report_progress(1, 1)
        return a + b

    async def go():
        async with Client.in_memory(server) as client:
            results = await asyncio.gather(*(client.call_tool("add", {"a": i, "b": 1}) for i in range(50)))
            assert [r.content[0].text for r in results] == [str(i + 1) for i in range(50)]
        # A child process's pipe: read by the engine's reactor, not this loop.
        script = "from oxmcp import Server\ns = Server('child')\n@s.tool()\ndef hi() -> str:\n    return 'hi'\ns.run()\n"
        async with Client.stdio(sys.executable, ["-c", script]) as child:
            assert (await child.call_tool("hi", {})).content[0].text == "hi"

    run_on_no_reader_loop(go())
    # The loop was asked once, refused, and every wake-up then went through
    # call_soon_threadsafe.
    assert NoReaderLoop.refused == 1
