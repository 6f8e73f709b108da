"""Python MCP benchmark: the oxmcp Python client against the oxmcp Python server (Python
handlers), and the official Python SDK's client against the official SDK's server, over
stdio, in interleaved rounds of the same run.

Each round, per implementation: the client spawns its server over stdio, makes warm-up
calls, then N sequential `echo` calls (100-byte payload), then N calls with K in flight;
every reply is checked. Prints calls/s per round, the median [min-max] over rounds, and
the oxmcp/official ratio (computed per round, median over rounds).

    python bench.py [--rounds 3] [--seq 1000] [--concurrent 2000] [--in-flight 64] [--warmup 100]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
OXMCP_SERVER = str(HERE / "oxmcp_server.py")
OFFICIAL_SERVER = str(HERE / "official_server.py")
PAYLOAD_BYTES = 100


def payload(i: int) -> str:
    """A 100-byte ASCII payload, distinct per call (so a reply can't be mistaken for another's)."""
    head = f"call-{i:08d}-"
    return head + "x" * (PAYLOAD_BYTES - len(head))


# -- one connected client per implementation: an async `echo(text) -> str` --------------------


class OxmcpSide:
    name = "oxmcp"

    async def __aenter__(self):
        from oxmcp import Client
        self._conn = Client.stdio(sys.executable, [OXMCP_SERVER])
        self._client = await self._conn.__aenter__()
        return self

    async def __aexit__(self, *exc):
        await self._conn.__aexit__(*exc)

    async def echo(self, text: str) -> str:
        result = await self._client.call_tool("echo", {"text": text})
        if getattr(result, "is_error", False):
            raise RuntimeError(f"oxmcp echo failed: {result}")
        return result.content[0].text


class OfficialSide:
    name = "official"

    async def __aenter__(self):
        import mcp
        from mcp import StdioServerParameters
        warnings.filterwarnings("ignore", category=mcp.MCPDeprecationWarning)
        self._client = mcp.Client(StdioServerParameters(command=sys.executable, args=[OFFICIAL_SERVER]))
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc):
        await self._client.__aexit__(*exc)

    async def echo(self, text: str) -> str:
        result = await self._client.call_tool("echo", {"text": text})
        if result.is_error:
            raise RuntimeError(f"official echo failed: {result}")
        return result.content[0].text


SIDES = {"oxmcp": OxmcpSide, "official": OfficialSide}


# -- workloads ----------------------------------------------------------------------------


async def checked(side, i: int) -> None:
    text = payload(i)
    got = await side.echo(text)
    if got != text:
        raise AssertionError(f"{side.name}: call {i} got {got[:40]!r}..., expected {text[:40]!r}...")


async def sequential(side, n: int, base: int) -> float:
    start = time.perf_counter()
    for i in range(base, base + n):
        await checked(side, i)
    return n / (time.perf_counter() - start)


async def in_flight(side, n: int, k: int, base: int) -> float:
    gate = asyncio.Semaphore(k)

    async def one(i: int) -> None:
        async with gate:
            await checked(side, i)

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(base, base + n)))
    return n / (time.perf_counter() - start)


async def round_for(kind: str, args) -> dict:
    t0 = time.perf_counter()
    async with SIDES[kind]() as side:
        connect_ms = (time.perf_counter() - t0) * 1000
        for i in range(args.warmup):
            await checked(side, i)
        seq = await sequential(side, args.seq, 1_000_000)
        conc = await in_flight(side, args.concurrent, args.in_flight, 2_000_000)
    return {"connect_ms": connect_ms, "seq": seq, "conc": conc}


# -- report -------------------------------------------------------------------------------


def spread(values: list) -> str:
    return f"{statistics.median(values):>10,.0f} [{min(values):,.0f} - {max(values):,.0f}]"


def ratio_spread(values: list) -> str:
    return f"{statistics.median(values):>6.2f}x [{min(values):.2f} - {max(values):.2f}]"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seq", type=int, default=1000, help="sequential calls per round (default 1000)")
    p.add_argument("--concurrent", type=int, default=2000, help="calls per round with K in flight (default 2000)")
    p.add_argument("--in-flight", type=int, default=64, help="K (default 64)")
    p.add_argument("--warmup", type=int, default=100)
    args = p.parse_args()

    k = args.in_flight
    print(f"python {sys.version.split()[0]}; payload {PAYLOAD_BYTES} B; warm-up {args.warmup}; "
          f"sequential {args.seq}; {k} in flight {args.concurrent}; {args.rounds} rounds (interleaved)")
    try:
        import mcp.server  # noqa: F401
        from importlib.metadata import version
        print(f"oxmcp {version('oxmcp')}, official SDK mcp {version('mcp')}")
    except Exception:  # pragma: no cover - informational only
        pass

    results = {kind: [] for kind in SIDES}
    print(f"\n{'round':>5} {'impl':<9} {'connect_ms':>10} {'seq calls/s':>12} {f'{k}-in-flight calls/s':>20}")
    for r in range(1, args.rounds + 1):
        for kind in SIDES:  # oxmcp, official, oxmcp, official, ...
            res = asyncio.run(round_for(kind, args))
            results[kind].append(res)
            print(f"{r:>5} {kind:<9} {res['connect_ms']:>10.0f} {res['seq']:>12,.0f} {res['conc']:>20,.0f}", flush=True)

    ox, off = results["oxmcp"], results["official"]
    print(f"\nsummary: median [min - max] over {args.rounds} rounds, calls/s")
    print(f"{'workload':<22} {'oxmcp':>28} {'official (mcp)':>28}   {'oxmcp/official (per round)':>28}")
    for key, label in (("seq", "stdio sequential"), ("conc", f"stdio {k} in flight")):
        ratios = [a[key] / b[key] for a, b in zip(ox, off)]
        print(f"{label:<22} {spread([x[key] for x in ox]):>28} {spread([x[key] for x in off]):>28}   "
              f"{ratio_spread(ratios):>28}")
    print("\ngoal: oxmcp/official >= 10x on both workloads: ", end="")
    verdict = [f"{label} {'met' if statistics.median([a[key] / b[key] for a, b in zip(ox, off)]) >= 10 else 'NOT met'}"
               for key, label in (("seq", "sequential"), ("conc", f"{k} in flight"))]
    print("; ".join(verdict))


if __name__ == "__main__":
    main()
