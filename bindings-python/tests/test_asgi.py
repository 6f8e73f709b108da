"""The server as an ASGI app (Server.http_app), mounted at /api in a Starlette app beside a
/health route and served by uvicorn in a child process: oxmcp's client in both eras and the
official SDK's client reach it, streams and cancellation cross the ASGI layer, the
Host check holds, and the lifespan runs with the outer app's."""

import asyncio
import http.client
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import mcp
import pytest

from conftest import SERVERS, free_port, run, wait_listening
from oxmcp import Client, RequestTimeout, Server

APP = str(SERVERS / "asgi_app.py")


@pytest.fixture()
def served(tmp_path: Path):
    """The Starlette app in uvicorn; yields (base URL, lifespan log path, process)."""
    port = free_port()
    log = tmp_path / "lifespan.log"
    proc = subprocess.Popen([sys.executable, APP, str(port), str(log)], stdin=subprocess.DEVNULL)
    try:
        wait_listening(proc, port, "uvicorn")
        yield f"http://127.0.0.1:{port}", log, proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_app_serves_mcp_under_the_mount_beside_other_routes(served):
    base, log, _ = served
    with urllib.request.urlopen(f"{base}/health") as r:
        assert r.read() == b"ok"
    assert log.read_text() == "started\n", "the outer app's lifespan entered the server's"

    async def main():
        for era in ("session", "stateless"):
            logs: list[Any] = []
            async with Client.http(f"{base}/api/mcp", era=era, headers={"X-Tenant": "blue"},
                                   on_log=lambda level, data, logger: logs.append(data)) as client:
                assert {t.name for t in await client.list_tools()} == {"status", "slow", "was_cancelled"}
                result = await client.call_tool("status")
                assert result.content[0].text == "db ready, tenant blue", era
                assert logs == ["looking"], f"{era}: the log crossed the response stream"
    run(main())


def test_the_official_client_reaches_the_mounted_app(served):
    base, _, _ = served

    async def main():
        async with mcp.Client(f"{base}/api/mcp", mode="legacy") as c:
            assert c.server_info.name == "asgi-demo"
            result = await c.call_tool("status", {})
            assert result.content[0].text.startswith("db ready")
    run(main())


def test_a_client_that_goes_away_cancels_the_handler(served):
    base, _, _ = served

    async def main():
        # The stateless era cancels a call by closing its connection: uvicorn tells the app,
        # and the engine sees the stream dropped.
        async with Client.http(f"{base}/api/mcp", era="stateless") as client:
            with pytest.raises(RequestTimeout):
                await client.call_tool("slow", timeout=0.5)
            for _ in range(100):
                if (await client.call_tool("was_cancelled")).structured_content == {"result": True}:
                    return
                await asyncio.sleep(0.05)
            raise AssertionError("the handler never saw the cancel")
    run(main())


def test_the_host_check_and_the_body_limit_hold_inside_the_app(served):
    base, _, _ = served
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", "/api/mcp", body=b"{}", headers={"Host": "evil.example", "Content-Type": "application/json"})
    response = conn.getresponse()
    assert response.status == 403, "a DNS-rebinding Host is refused as by the engine's own listener"
    response.read()
    # Far over the engine's limit: answered 413 after one byte more than the limit was read.
    conn.request("POST", "/api/mcp", body=b" " * (17 << 20),
                 headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    response = conn.getresponse()
    assert response.status == 413
    conn.close()


def test_the_lifespan_ends_when_the_server_stops(served):
    base, log, proc = served
    proc.send_signal(signal.SIGINT)
    assert proc.wait(20) == 0
    assert log.read_text() == "started\nstopped\n"


def test_an_app_used_without_lifespan_starts_on_first_request_and_close_ends_it():
    entered: list[str] = []

    async def lifespan(server: Server):
        entered.append("in")
        yield "value"
        entered.append("out")

    server = Server("bare", lifespan=lifespan)
    app = server.http_app()

    async def main():
        sent: list[dict[str, Any]] = []
        messages = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive():
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)
        scope = {"type": "http", "method": "GET", "path": "/elsewhere", "root_path": "", "query_string": b"",
                 "headers": [(b"host", b"localhost")]}
        await app(scope, receive, send)
        assert sent[0]["status"] == 404 and entered == ["in"]
        await app.close()
        assert entered == ["in", "out"]
    run(main())
