"""Where a handler runs: in a task of its own on the event loop, started eagerly (run at
once up to its first suspension) from Python 3.12 on."""

import asyncio
import sys
from typing import Any

from conftest import run
from oxmcp import Client, Server
from oxmcp._runner import start_handler


class Recorder:
    """The engine's outcome object, as a handler's task reports to it."""

    def __init__(self, seen: list[object]) -> None:
        self.seen = seen

    def succeeded(self, value: object) -> None:
        self.seen.append(value)

    def failed(self, exc: BaseException) -> None:
        self.seen.append(exc)

    def cancelled(self) -> None:
        self.seen.append("cancelled")


def test_a_handler_starts_in_its_own_task_eagerly_where_python_can():
    async def go():
        seen: list[object] = []

        async def handler():
            seen.append(asyncio.current_task())
            async with asyncio.timeout(5):  # raises outside a task
                await asyncio.sleep(0)
            return "done"

        task = start_handler(handler, (), Recorder(seen))
        eager = sys.version_info >= (3, 12)
        assert len(seen) == (1 if eager else 0), "an eager start runs the handler up to its first await at once"
        await task
        assert seen == [task, "done"]

        # A loop's own task factory is honoured (the start is then the factory's to decide).
        made: list[object] = []
        loop = asyncio.get_running_loop()

        def factory(lp: asyncio.AbstractEventLoop, coro: Any, **kw: Any) -> "asyncio.Task[Any]":
            made.append(coro)
            return asyncio.Task(coro, loop=lp, **kw)

        loop.set_task_factory(factory)
        try:
            await start_handler(handler, (), Recorder(seen))
        finally:
            loop.set_task_factory(None)
        assert len(made) == 1 and seen[-1] == "done"

    run(go())


def test_a_tool_handler_sees_its_task_and_its_cancellation():
    async def go():
        server = Server("tasks", version="1.0.0")
        started = asyncio.Event()
        outcome: list[str] = []

        @server.tool()
        async def timed() -> str:
            async with asyncio.timeout(5):
                await asyncio.sleep(0)
            return "in a task" if asyncio.current_task() is not None else "no task"

        @server.tool()
        async def forever() -> str:
            started.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                outcome.append("cancelled")
                raise
            return "finished"

        async with Client.in_memory(server, era="session") as client:
            assert (await client.call_tool("timed", {})).content[0].text == "in a task"
            call = asyncio.ensure_future(client.call_tool("forever", {}))
            await asyncio.wait_for(started.wait(), 5)
            call.cancel()
            for _ in range(100):
                if outcome:
                    break
                await asyncio.sleep(0.01)
            assert outcome == ["cancelled"], "the client's cancel reaches the handler's task"

    run(go())
