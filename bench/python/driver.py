"""The Python client drivers of the cross-SDK suite (bench/suite/PROTOCOL.md): the oxmcp
Python client (``--impl oxmcp``) or the official SDK's ``mcp.Client`` (``--impl official``)
runs one workload against any server and prints one line of JSON.

    python driver.py --impl oxmcp --workload seq --n 2000 -- SERVER_CMD ARG...
    python driver.py --impl official --workload conc --n 5000 --k 64 --url http://127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import warnings

TAG = 10


def base_payload(n: int) -> str:
    return "".join(chr(ord("a") + i % 26) for i in range(n))


def payload_for(base: str, i: int) -> str:
    return f"{i % 10**TAG:0{TAG}d}" + base[TAG:] if len(base) >= TAG else base


class Oxmcp:
    """The oxmcp Python client: ``call(name, args)`` -> (is_error, text)."""

    async def connect(self, a):
        from oxmcp import Client
        self.conn = Client.http(a.url) if a.url else Client.stdio(a.command[0], a.command[1:])
        self.client = await self.conn.__aenter__()

    async def close(self):
        await self.conn.__aexit__(None, None, None)

    async def call(self, name, args):
        r = await self.client.call_tool(name, args)
        return bool(r.is_error), (r.content[0].text if r.content else None)


class Official:
    """The official SDK's ``mcp.Client``."""

    async def connect(self, a):
        import mcp
        from mcp import StdioServerParameters
        warnings.filterwarnings("ignore", category=mcp.MCPDeprecationWarning)
        target = a.url or StdioServerParameters(command=a.command[0], args=a.command[1:])
        self.client = mcp.Client(target)
        await self.client.__aenter__()

    async def close(self):
        await self.client.__aexit__(None, None, None)

    async def call(self, name, args):
        r = await self.client.call_tool(name, args)
        return bool(r.is_error), (r.content[0].text if r.content else None)


async def echo(side, base: str, i: int) -> None:
    text = payload_for(base, i)
    is_error, got = await side.call("echo", {"text": text})
    if is_error or got != text:
        raise SystemExit(f"echo call {i}: wrong reply ({'error' if is_error else 'different text'})")


def cancel_lines(path: str) -> list:
    try:
        with open(path) as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


async def cancel_latencies(side, n: int, log: str) -> list:
    out = []
    for _ in range(n):
        before = len(cancel_lines(log))
        task = asyncio.ensure_future(side.call("slow", {}))
        await asyncio.sleep(0.05)
        if task.done():
            raise SystemExit("slow returned before it was cancelled")
        t0 = time.monotonic_ns()
        task.cancel()
        try:
            await task
        except (asyncio.CancelledError, Exception):
            pass
        # Looked at 5 ms later: polling meanwhile would take a core from the server.
        await asyncio.sleep(0.005)
        deadline = time.monotonic() + 5
        while len(lines := cancel_lines(log)) <= before:
            if time.monotonic() > deadline:
                raise SystemExit("the server never logged the cancellation")
            await asyncio.sleep(0.001)
        out.append((lines[before] - t0) / 1e3)
    return out


async def main(a) -> dict:
    side = Oxmcp() if a.impl == "oxmcp" else Official()
    await side.connect(a)
    try:
        small = base_payload(100)
        for i in range(a.warmup):
            await echo(side, small, i)
        base = base_payload(a.payload)
        if a.workload in ("seq", "large"):
            lat = []
            start = time.perf_counter()
            for i in range(a.n):
                t = time.perf_counter()
                await echo(side, base, i)
                lat.append(time.perf_counter() - t)
            secs = time.perf_counter() - start
            if a.workload == "large":
                return {"calls": a.n, "median_ms": statistics.median(lat) * 1e3}
            return {"calls": a.n, "seconds": secs, "calls_per_s": a.n / secs}
        if a.workload == "conc":
            counter = iter(range(a.n))

            async def worker():
                for i in counter:
                    await echo(side, base, i)

            start = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(min(a.k, a.n))))
            secs = time.perf_counter() - start
            return {"calls": a.n, "seconds": secs, "calls_per_s": a.n / secs}
        if a.workload == "cancel":
            if not a.cancel_log:
                raise SystemExit("cancel: --cancel-log is required")
            return {"cancel_us": await cancel_latencies(side, a.n, a.cancel_log)}
        raise SystemExit(f"unknown workload {a.workload!r}")
    finally:
        await side.close()


def parse(argv: list) -> argparse.Namespace:
    command = []
    if "--" in argv:
        i = argv.index("--")
        argv, command = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--impl", choices=["oxmcp", "official"], required=True)
    p.add_argument("--workload", required=True)
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--k", type=int, default=64)
    p.add_argument("--payload", type=int, default=100)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--cancel-log")
    p.add_argument("--url")
    a = p.parse_args(argv)
    a.command = command
    if not a.url and not command:
        p.error("give --url URL or -- SERVER_CMD ARG...")
    return a


if __name__ == "__main__":
    args = parse(sys.argv[1:])
    print(json.dumps(asyncio.run(main(args))), flush=True)
    sys.stdout.flush()
    os._exit(0)  # don't wait for SDK background threads at exit: the result is out
