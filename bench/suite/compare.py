"""The cross-SDK benchmark: oxmcp in every host against the official SDKs, side by side.

Every implementation provides a server and a client driver with one command-line contract
(PROTOCOL.md). This program runs every workload for every implementation in interleaved
rounds (A B C ... A B C ...), prints a table of medians [min-max] and a table of ratios
computed round by round, and writes bench/RESULTS.md. It reports; it asserts no time.

Run it through ``bash bench/compare.sh`` (which installs the peers and builds everything).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
ROOT = BENCH.parent

OXMCP = ["oxmcp-rust", "oxmcp-python", "oxmcp-node", "oxmcp-kotlin"]
PEERS = ["rmcp", "python-sdk", "ts-sdk", "kotlin-sdk"]
# The peer each oxmcp host is measured against first (the goal pairs of issues 7 and 21).
NATURAL_PEER = {"oxmcp-rust": "rmcp", "oxmcp-python": "python-sdk", "oxmcp-node": "ts-sdk",
                "oxmcp-kotlin": "kotlin-sdk"}
LABEL = {"oxmcp-rust": "oxmcp Rust", "oxmcp-python": "oxmcp Python", "oxmcp-node": "oxmcp Node",
         "oxmcp-kotlin": "oxmcp Kotlin", "rmcp": "rmcp", "python-sdk": "official Python SDK",
         "ts-sdk": "official TypeScript SDK", "kotlin-sdk": "official Kotlin SDK",
         "floor": "floor (JSON lines over a pipe)"}


def implementations(args) -> dict:
    """Server and driver commands of each implementation (PROTOCOL.md)."""
    py, node, rust, rmcp, kt = args.python, args.node, args.oxmcp_bench, args.rmcp_bench, args.kotlin_bench
    suite_node = str(HERE / "node")
    return {
        "oxmcp-rust": {"server": [rust, "serve"], "driver": [rust, "drive"]},
        "oxmcp-python": {"server": [py, str(BENCH / "python" / "oxmcp_server.py")],
                         "driver": [py, str(BENCH / "python" / "driver.py"), "--impl", "oxmcp"]},
        "oxmcp-node": {"server": [node, f"{suite_node}/server.mjs", "--impl", "oxmcp"],
                       "driver": [node, f"{suite_node}/driver.mjs", "--impl", "oxmcp"]},
        "rmcp": {"server": [rmcp, "serve"], "driver": [rmcp, "drive"]},
        "python-sdk": {"server": [py, str(BENCH / "python" / "official_server.py")],
                       "driver": [py, str(BENCH / "python" / "driver.py"), "--impl", "official"]},
        "ts-sdk": {"server": [node, f"{suite_node}/server.mjs", "--impl", "official"],
                   "driver": [node, f"{suite_node}/driver.mjs", "--impl", "official"]},
        # bench/kotlin/run.sh (built by bench/kotlin/build.sh): one JVM per server or driver.
        "oxmcp-kotlin": {"server": [kt, "server", "--impl", "oxmcp"], "driver": [kt, "driver", "--impl", "oxmcp"]},
        "kotlin-sdk": {"server": [kt, "server", "--impl", "official"], "driver": [kt, "driver", "--impl", "official"]},
    }


# -- running one measurement -------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the server did not listen on port {port} within {seconds:.0f} s")


class HttpServer:
    """An implementation's server in HTTP mode, stopped with SIGTERM (then SIGKILL)."""

    def __init__(self, command: list, cancel_log: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.proc = subprocess.Popen(command + ["--http", str(self.port), "--cancel-log", cancel_log],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     start_new_session=True)
        try:
            wait_listening(self.port, self.proc)
        except Exception:
            self.stop()
            raise

    def rss_kb(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.proc.stderr:
            self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def drive(driver: list, workload: str, n: int, target: list, cancel_log: str, k: int = 64, payload: int = 100,
          timeout: float = 600) -> dict:
    command = driver + ["--workload", workload, "--n", str(n), "--k", str(k), "--payload", str(payload),
                        "--cancel-log", cancel_log] + target
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, start_new_session=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"driver exited with {done.returncode}: {' | '.join(tail)}")
    return json.loads(done.stdout.strip().splitlines()[-1])


async def open_sessions(url: str, count: int, clients: list) -> None:
    """Session-era clients (pinned: an auto client settles on the stateless era where it
    can, and keeps no session), each made one call."""
    from oxmcp import Client
    for _ in range(count):
        c = await Client.connect_http(url, era="session")
        await c.call_tool("echo", {"text": "hello"})
        clients.append(c)


async def close_all(clients: list) -> None:
    for c in clients:
        try:
            await asyncio.wait_for(c.close(), 5)
        except Exception:
            pass


async def open_listeners(url: str, count: int, clients: list) -> None:
    """Stateless-era (2026-07-28) clients with a notification callback: each keeps one
    `subscriptions/listen` stream open."""
    from oxmcp import Client
    for _ in range(count):
        c = await Client.connect_http(url, era="stateless", on_notification=lambda method, params: None)
        clients.append(c)


def listen_memory(server_cmd: list, streams: int, settle: float, cancel_log: str):
    """Server KB per extra idle `subscriptions/listen` stream, or None for a server that
    does not speak the stateless era."""

    async def measure():
        clients: list = []
        with HttpServer(server_cmd, cancel_log) as srv:
            try:
                try:
                    await open_listeners(srv.url, 1, clients)
                except Exception:
                    return None
                await asyncio.sleep(settle)
                one = srv.rss_kb()
                await open_listeners(srv.url, streams - 1, clients)
                await asyncio.sleep(settle)
                return (srv.rss_kb() - one) / (streams - 1)
            finally:
                await close_all(clients)

    return asyncio.run(measure())


def memory(server_cmd: list, sessions: int, settle: float, cancel_log: str) -> dict:
    """Server RSS at start, with 1 and with `sessions` sessions (oxmcp Python clients, each
    made one call and stays open): KB per extra session."""

    async def measure() -> dict:
        clients: list = []
        with HttpServer(server_cmd, cancel_log) as srv:
            try:
                await asyncio.sleep(settle)
                start = srv.rss_kb()
                await open_sessions(srv.url, 1, clients)
                await asyncio.sleep(settle)
                one = srv.rss_kb()
                await open_sessions(srv.url, sessions - 1, clients)
                await asyncio.sleep(settle)
                many = srv.rss_kb()
            finally:
                await close_all(clients)
        return {"rss_start_kb": start, "rss_1_kb": one, f"rss_{sessions}_kb": many,
                "kb_per_session": (many - one) / (sessions - 1)}

    return asyncio.run(measure())


# -- the plan ----------------------------------------------------------------------------

# (key, label, unit, higher_is_better)
WORKLOADS = [
    ("stdio_seq", "stdio sequential", "calls/s", True),
    ("stdio_conc", "stdio 64 in flight", "calls/s", True),
    ("http_seq", "HTTP sequential", "calls/s", True),
    ("http_conc", "HTTP 64 in flight", "calls/s", True),
    ("large", "1 MiB round trip", "ms", False),
    ("cancel_p50", "cancel -> handler, median of 10", "us", False),
    ("cancel_max", "cancel -> handler, max of 10", "us", False),
    ("rss_start", "server RSS at start", "KB", False),
    ("rss_1", "server RSS, 1 session", "KB", False),
    ("rss_100", "server RSS, 100 sessions", "KB", False),
    ("kb_per_session", "server KB per extra session", "KB", False),
    ("kb_per_listen", "server KB per idle listen stream (2026-07-28)", "KB", False),
]


def measure_impl(name: str, impl: dict, a, log: str) -> dict:
    """Every workload for one implementation (one round)."""
    out = {}
    stdio = ["--", *impl["server"], "--stdio", "--cancel-log", log]
    out["stdio_seq"] = drive(impl["driver"], "seq", a.seq, stdio, log)["calls_per_s"]
    out["stdio_conc"] = drive(impl["driver"], "conc", a.conc, stdio, log, k=a.in_flight)["calls_per_s"]
    out["large"] = drive(impl["driver"], "large", a.large_calls, stdio, log, payload=1 << 20)["median_ms"]
    cancels = drive(impl["driver"], "cancel", 10, stdio, log)["cancel_us"]
    out["cancel_p50"], out["cancel_max"] = statistics.median(cancels), max(cancels)
    with HttpServer(impl["server"], log) as srv:
        out["http_seq"] = drive(impl["driver"], "seq", a.http_seq, ["--url", srv.url], log)["calls_per_s"]
        out["http_conc"] = drive(impl["driver"], "conc", a.http_conc, ["--url", srv.url], log, k=a.in_flight)["calls_per_s"]
    mem = memory(impl["server"], a.sessions, a.settle, log)
    out["rss_start"], out["rss_1"] = mem["rss_start_kb"], mem["rss_1_kb"]
    out["rss_100"], out["kb_per_session"] = mem[f"rss_{a.sessions}_kb"], mem["kb_per_session"]
    out["kb_per_listen"] = listen_memory(impl["server"], a.sessions, a.settle, log)
    return out


def cross_pairs(impls: dict) -> list:
    """(label, client impl, server impl): the oxmcp Rust client with each official server,
    and each official client with the oxmcp Rust server."""
    pairs = []
    for peer in PEERS:
        if peer in impls:
            pairs.append((f"oxmcp Rust client -> {LABEL[peer]} server", "oxmcp-rust", peer))
            pairs.append((f"{LABEL[peer]} client -> oxmcp Rust server", peer, "oxmcp-rust"))
    return pairs


# -- report ------------------------------------------------------------------------------


def fmt(v: float, unit: str) -> str:
    if v is None:
        return "n/a"
    if unit == "calls/s" or unit == "KB":
        return f"{v:,.0f}"
    return f"{v:,.1f}" if v < 100 else f"{v:,.0f}"


def spread(values: list, unit: str) -> str:
    values = [v for v in values if v is not None]  # None: the implementation cannot do it
    if not values:
        return "n/a"
    return f"{fmt(statistics.median(values), unit)} [{fmt(min(values), unit)}-{fmt(max(values), unit)}]"


def ratio(a: float, b: float, higher_is_better: bool) -> float:
    """How many times better `a` is than `b` (>1 means better, whatever the unit)."""
    if higher_is_better:
        return a / b
    return b / a if a else float("inf")


def report(results: dict, cross: dict, floor: list, a, names: list, failures: list) -> str:
    lines = []
    add = lines.append
    add(f"# Benchmark results\n")
    add(f"Written by `bash bench/compare.sh` on {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}.\n")
    add("## Machine and versions\n")
    for k, v in environment(a).items():
        add(f"- {k}: {v}")
    add("")
    add(f"Rounds: {a.rounds}, interleaved (every implementation once per round, in turn). "
        f"stdio: {a.seq} sequential calls, {a.conc} with {a.in_flight} in flight; HTTP: {a.http_seq} sequential, "
        f"{a.http_conc} with {a.in_flight} in flight; 100-byte payloads, every reply checked; 1 MiB: median of "
        f"{a.large_calls} round trips; cancel: 10 cancellations of `slow`; memory: RSS of the HTTP server process "
        f"at start, with 1 and with {a.sessions} sessions (each opened by an oxmcp Python client pinned to the session "
        f"era that made one call), and per idle `subscriptions/listen` stream ({a.sessions} stateless-era clients "
        f"with a notification callback; n/a where the server does not speak 2026-07-28).\n")
    add("## Medians [min-max] over rounds\n")
    add("| workload | unit | " + " | ".join(LABEL[n] for n in names) + " |")
    add("|---|---|" + "---|" * len(names))
    for key, label, unit, _ in WORKLOADS:
        row = [spread([r[key] for r in results[n]], unit) for n in names]
        add(f"| {label.replace('100', str(a.sessions))} | {unit} | " + " | ".join(row) + " |")
    add("")
    add("## Ratios, computed round by round: median [min-max]\n")
    add("Each cell: how many times better the oxmcp host is than the peer (throughput / throughput, "
        "or the peer's time or memory / oxmcp's); above 1 means oxmcp is better.\n")
    pairs = [(o, p) for o in OXMCP for p in PEERS if o in names and p in names]
    add("| workload | " + " | ".join(f"{LABEL[o]} vs {LABEL[p]}" for o, p in pairs) + " |")
    add("|---|" + "---|" * len(pairs))
    for key, label, unit, better in WORKLOADS:
        label = label.replace("100", str(a.sessions))
        cells = []
        for o, p in pairs:
            rs = [ratio(x[key], y[key], better) for x, y in zip(results[o], results[p])
                  if x.get(key) is not None and y.get(key) is not None]
            cells.append(f"{statistics.median(rs):.2f}x [{min(rs):.2f}-{max(rs):.2f}]" if rs else "n/a")
        add(f"| {label} | " + " | ".join(cells) + " |")
    add("")
    add("## Cross pairs (stdio sequential, calls/s, median [min-max])\n")
    add("| client -> server | calls/s |")
    add("|---|---|")
    for label, values in cross.items():
        add(f"| {label} | {spread(values, 'calls/s')} |")
    add("")
    add("## Floor\n")
    add(f"A program that echoes JSON lines over the same kind of pipe, with no MCP logic, and a client writing "
        f"100-byte JSON-RPC lines one at a time: {spread(floor, 'calls/s')} round trips/s. "
        "It is the ceiling for stdio sequential.")
    rust = [r["stdio_seq"] for r in results.get("oxmcp-rust", [])]
    if rust and len(rust) == len(floor):
        rs = [x / f for x, f in zip(rust, floor)]
        add("")
        add(f"oxmcp Rust stdio sequential / floor, round by round (the floor measured just before it): "
            f"{statistics.median(rs):.2f} [{min(rs):.2f}-{max(rs):.2f}].")
    add("")
    if failures:
        add("## Failures\n")
        for f in failures:
            add(f"- {f}")
        add("")
    return "\n".join(lines)


def version_of(cmd: list) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except Exception:
        return "unknown"


def environment(a) -> dict:
    cpu = "unknown"
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except Exception:
        pass
    from importlib.metadata import version
    return {
        "machine": f"{os.cpu_count()} cores, {cpu}, {platform.system()} {platform.release()}",
        "load average at start": a.load_at_start,
        "Rust": version_of(["rustc", "--version"]),
        "Python": sys.version.split()[0] + f", official SDK mcp {version('mcp')}, oxmcp {version('oxmcp')}",
        "Node": version_of([a.node, "--version"]) + f", {a.node_versions}",
        "rmcp": a.rmcp_version,
        "Kotlin": a.kotlin_versions or "not measured",
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--node", default="node")
    p.add_argument("--oxmcp-bench", required=True)
    p.add_argument("--rmcp-bench", required=True)
    p.add_argument("--node-versions", default="")
    p.add_argument("--rmcp-version", default="rmcp")
    p.add_argument("--kotlin-bench", default=str(BENCH / "kotlin" / "run.sh"))
    p.add_argument("--kotlin-versions", default="")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seq", type=int, default=2000)
    p.add_argument("--conc", type=int, default=5000)
    p.add_argument("--http-seq", type=int, default=1000)
    p.add_argument("--http-conc", type=int, default=5000)
    p.add_argument("--in-flight", type=int, default=64)
    p.add_argument("--large-calls", type=int, default=5)
    p.add_argument("--sessions", type=int, default=100)
    p.add_argument("--settle", type=float, default=0.3)
    p.add_argument("--only", help="comma-separated implementations (default: all)")
    p.add_argument("--out", default=str(BENCH / "RESULTS.md"))
    a = p.parse_args()
    a.load_at_start = " ".join(open("/proc/loadavg").read().split()[:3])

    impls = implementations(a)
    names = [n for n in OXMCP + PEERS if not a.only or n in a.only.split(",")]
    results = {n: [] for n in names}
    cross = {label: [] for label, c, s in cross_pairs(impls) if c in names and s in names}
    floor: list = []
    failures: list = []
    log = tempfile.NamedTemporaryFile(prefix="oxmcp-bench-cancel-", delete=False).name
    for r in range(1, a.rounds + 1):
        # The floor first, next to oxmcp Rust's stdio run (its ratio to the floor is taken per round).
        try:
            floor.append(drive([a.oxmcp_bench, "floor"], "seq", a.seq, ["--", a.oxmcp_bench, "floor-server"], log)["calls_per_s"])
            print(f"round {r} floor {floor[-1]:,.0f} round trips/s", file=sys.stderr, flush=True)
        except Exception as e:
            failures.append(f"round {r}, floor: {e}")
        for n in names:
            t = time.monotonic()
            try:
                results[n].append(measure_impl(n, impls[n], a, log))
                print(f"round {r} {LABEL[n]:<26} " + ", ".join(f"{k}={fmt(v, 'x')}" for k, v in results[n][-1].items())
                      + f"  ({time.monotonic() - t:.0f} s)", file=sys.stderr, flush=True)
            except Exception as e:
                failures.append(f"round {r}, {LABEL[n]}: {e}")
                print(f"round {r} {LABEL[n]}: FAILED: {e}", file=sys.stderr, flush=True)
        for label, c, s in cross_pairs(impls):
            if label in cross:
                try:
                    target = ["--", *impls[s]["server"], "--stdio", "--cancel-log", log]
                    cross[label].append(drive(impls[c]["driver"], "seq", a.seq, target, log)["calls_per_s"])
                except Exception as e:
                    failures.append(f"round {r}, {label}: {e}")
    os.unlink(log)
    # A failed implementation keeps its rows empty rather than skewing the ratios.
    for n in names:
        if len(results[n]) != a.rounds:
            results[n] = []
    text = report(results, cross, floor, a, names, failures)
    Path(a.out).write_text(text + "\n")
    print(text)
    print(f"\nwritten to {a.out}", file=sys.stderr)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
