"""The task the engine starts for each async handler (see ``src/bridge.rs``)."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable


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
