import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

SERVERS = Path(__file__).parent / "servers"
DEMO = str(SERVERS / "demo.py")


def run(coro, timeout: float = 60):
    """Runs a coroutine to completion with an overall timeout (no plugin needed)."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def http_demo():
    """The demo server over Streamable HTTP in a child process; yields its URL."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, DEMO, "http", str(port)], stderr=subprocess.PIPE)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
