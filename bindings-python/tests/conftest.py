import asyncio
from contextlib import contextmanager
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

SERVERS = Path(__file__).parent / "servers"
DEMO = str(SERVERS / "demo.py")
REPO = Path(__file__).resolve().parents[2]


def oxmcp_bin() -> str:
    """The `oxmcp` CLI: $OXMCP_BIN, or the workspace's debug build (cargo build -p oxmcp-cli)."""
    env = os.environ.get("OXMCP_BIN")
    if env:
        return env
    path = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target") / "debug" / "oxmcp"
    assert os.access(path, os.X_OK), "no oxmcp CLI: set OXMCP_BIN or build it with cargo build -p oxmcp-cli"
    return str(path)


def run(coro, timeout: float = 60):
    """Runs a coroutine to completion with an overall timeout (no plugin needed)."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_listening(proc, port: int, what: str) -> None:
    """Waits until something accepts connections on 127.0.0.1:``port`` (``proc`` must not
    exit meanwhile)."""
    deadline = time.time() + 30
    while True:
        assert proc.poll() is None, f"{what} exited early with status {proc.returncode}"
        assert time.time() < deadline, f"{what} did not listen on port {port} in time"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)


@contextmanager
def http_server(script: str, mode: str = "http", started=None):
    """``python script MODE PORT`` in a child process, until it accepts connections; yields
    its URL. ``started(pid)`` is told the process id first."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, script, mode, str(port)], stdin=subprocess.DEVNULL)
    if started is not None:
        started(proc.pid)
    try:
        wait_listening(proc, port, script)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture()
def http_demo():
    """The demo server over Streamable HTTP in a child process; yields its URL."""
    with http_server(DEMO) as url:
        yield url
