"""What a Python developer runs into: servers reused across event loops (a module-level
server in tests), async callbacks, HTTP options, the served URL, a child's working
directory, the bare completion decorator."""

import asyncio
import os
import subprocess
import sys
import textwrap

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

from conftest import run
from oxmcp import Client, Context, Server

SERVER = Server("module-level")


@SERVER.tool
async def double(n: int, ctx: Context) -> int:
    await ctx.notice(f"doubling {n}")
    await ctx.critical("not really")
    return 2 * n


def test_a_server_serves_from_one_event_loop_then_another():
    async def once(n: int) -> str:
        async with Client.in_memory(SERVER) as client:
            return (await asyncio.wait_for(client.call_tool("double", {"n": n}), 10)).content[0].text

    # Two asyncio.run calls: two loops, as two tests would have.
    assert asyncio.run(once(2)) == "4"
    assert asyncio.run(once(3)) == "6"


def test_async_log_and_notification_callbacks_run():
    async def go():
        seen: list[tuple[str, Any]] = []

        async def on_log(level, data, logger):
            await asyncio.sleep(0)
            seen.append((level, data))

        async def on_progress(progress, total, message):
            seen.append(("progress", progress))

        async with Client.in_memory(SERVER, on_log=on_log) as client:
            await client.call_tool("double", {"n": 1}, on_progress=on_progress)
            for _ in range(100):
                if len(seen) >= 2:
                    break
                await asyncio.sleep(0.01)
        assert ("notice", "doubling 1") in seen and ("critical", "not really") in seen

    run(go())


def test_http_takes_allowed_hosts_and_origins():
    async def go():
        server = Server("hosts")

        @server.tool
        def ping() -> str:
            return "pong"

        init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "t", "version": "1"}}})
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                   "Host": "mcp.example.com"}

        def post(url: str) -> int:
            parts = urlsplit(url)
            assert parts.hostname is not None
            conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
            try:
                conn.request("POST", parts.path, init, headers)
                return conn.getresponse().status
            finally:
                conn.close()

        for allowed, accepted in ((None, False), (["mcp.example.com"], True)):
            url = await server.start_http("127.0.0.1", 0, allowed_hosts=allowed, allowed_origins=["https://app.example.com"])
            try:
                status = await asyncio.to_thread(post, url)
                assert (status == 200) == accepted, (allowed, status)
            finally:
                await server.stop_http()

    run(go())


def test_run_over_http_says_where_and_stdio_clients_take_a_working_directory(tmp_path):
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent("""
        import os
        from oxmcp import Server

        server = Server("where")

        @server.tool
        def cwd() -> str:
            return os.getcwd()

        @server.completion
        def complete(ref, argument, context):
            return ["a", "b"]

        if __name__ == "__main__":
            import sys
            server.run(transport=sys.argv[1], port=0)
    """))
    proc = subprocess.Popen([sys.executable, str(script), "http"], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert "serving MCP on http://127.0.0.1:" in line, line
        url = line.split(" on ", 1)[1].strip()

        async def go():
            async with Client.http(url) as client:
                assert (await client.call_tool("cwd", {})).content[0].text == os.getcwd()
            async with Client.stdio(sys.executable, [str(script), "stdio"], cwd=str(tmp_path)) as client:
                assert os.path.samefile((await client.call_tool("cwd", {})).content[0].text, tmp_path)
                assert client.server_capabilities.completions is not None, "the bare @server.completion registered"

        run(go())
    finally:
        proc.terminate()
        proc.wait(10)
