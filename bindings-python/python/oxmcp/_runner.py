"""The Python half of the engine bridge (``src/bridge.rs``): the future an engine call
returns, and the task the engine starts for each async handler."""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Awaitable, Callable


class CallFuture(asyncio.Future):
    """The asyncio future of an engine call. Cancelling it (a task cancel, a ``wait_for``
    timeout) cancels the engine's work inside ``cancel()`` itself: the MCP request's
    cancel is written before ``cancel()`` returns, and a call that completes costs no
    done-callback."""

    __slots__ = ("_cancel_engine",)

    def __init__(self, loop: asyncio.AbstractEventLoop, cancel_engine: Callable[[], None]) -> None:
        super().__init__(loop=loop)
        self._cancel_engine = cancel_engine

    def cancel(self, msg: Any = None) -> bool:
        if not super().cancel(msg):
            return False
        self._cancel_engine()
        return True


async def run_handler(fn: Callable[..., Awaitable[Any]], args: tuple, outcome: Any) -> None:
    """Awaits ``fn(*args)`` and reports how it ended to ``outcome``, exactly once. Errors
    are reported, not raised: the engine turns them into the MCP error or ``isError``
    result, so the task itself never ends with an unretrieved exception."""
    try:
        result = await fn(*args)
    except asyncio.CancelledError:
        outcome.cancelled()
        raise
    except Exception as exc:
        outcome.failed(exc)
    except BaseException as exc:  # KeyboardInterrupt, SystemExit: report, then let them go on
        outcome.failed(exc)
        raise
    else:
        outcome.succeeded(result)


#: ``asyncio.Task(..., eager_start=True)`` exists from Python 3.12 on.
_EAGER = sys.version_info >= (3, 12)


def start_handler(fn: Callable[..., Awaitable[Any]], args: tuple, outcome: Any) -> asyncio.Task:
    """Starts a handler call as a task on the running loop. From Python 3.12 on, when the
    loop has no task factory of its own, the task starts eagerly: the handler runs now, in
    its task, up to its first suspension, so one that never suspends (most do not) is
    answered without waiting for another turn of the loop. Before 3.12 (or with a task
    factory) the task starts on the loop's next turn, as ``create_task`` does."""
    loop = asyncio.get_running_loop()
    coro = run_handler(fn, args, outcome)
    if _EAGER and loop.get_task_factory() is None:
        return asyncio.Task(coro, loop=loop, eager_start=True)  # type: ignore[call-arg]
    return loop.create_task(coro)
