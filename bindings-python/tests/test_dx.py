"""What a Python developer runs into: servers reused across event loops (a module-level
server in tests), async callbacks, HTTP options, the served URL, a child's working
directory, the bare completion decorator."""

import asyncio
import os
import queue
import subprocess
import sys
import textwrap
import threading
import time

import http.client
import json
from typing import Any, Optional
from urllib.parse import urlsplit

from conftest import free_port, oxmcp_bin, run, wait_listening
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

        def post(url: str, origin: Optional[str] = None) -> int:
            parts = urlsplit(url)
            assert parts.hostname is not None
            conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
            try:
                conn.request("POST", parts.path, init, dict(headers, Origin=origin) if origin else headers)
                return conn.getresponse().status
            finally:
                conn.close()

        for allowed, accepted in ((None, False), (["mcp.example.com"], True)):
            url = await server.start_http("127.0.0.1", 0, allowed_hosts=allowed, allowed_origins=["https://app.example.com"])
            try:
                status = await asyncio.to_thread(post, url)
                assert (status == 200) == accepted, (allowed, status)
                if accepted:
                    # The origins given are the ones accepted: the app's, not another site's.
                    assert await asyncio.to_thread(post, url, "https://app.example.com") == 200
                    assert await asyncio.to_thread(post, url, "https://evil.example") == 403
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


def test_a_child_servers_stderr_reaches_this_process_unless_discarded(tmp_path):
    """What a stdio server writes on its stderr shows on the client's process's stderr as
    it comes (not only its last lines after it dies); ``stderr="discard"`` drops it."""
    (tmp_path / "server.py").write_text(textwrap.dedent("""
        import sys
        from oxmcp import Server

        server = Server("talkative")

        @server.tool
        def work() -> str:
            print("the server says: working", file=sys.stderr, flush=True)
            return "done"

        server.run()
    """))
    (tmp_path / "client.py").write_text(textwrap.dedent("""
        import asyncio, sys
        from oxmcp import Client

        async def main() -> None:
            options = {} if sys.argv[1] == "default" else {"stderr": sys.argv[1]}
            async with Client.stdio(sys.executable, ["server.py"], **options) as client:
                print((await client.call_tool("work")).content[0].text, flush=True)
                await asyncio.to_thread(sys.stdin.read)  # alive until the test closes stdin

        asyncio.run(main())
    """))

    def run_client(mode: str, wait_for_line: bool) -> str:
        proc = subprocess.Popen([sys.executable, "client.py", mode], cwd=tmp_path, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines: "queue.Queue[str]" = queue.Queue()
        assert proc.stderr is not None and proc.stdout is not None and proc.stdin is not None
        stderr = proc.stderr

        def read() -> None:
            for line in stderr:
                lines.put(line)

        threading.Thread(target=read, daemon=True).start()
        try:
            assert proc.stdout.readline().strip() == "done", "the tool answered"
            seen: list[str] = []
            if wait_for_line:  # while the client and its server are still running
                while not any("the server says" in line for line in seen):
                    seen.append(lines.get(timeout=20))
            else:
                time.sleep(0.5)  # time enough for a forwarded line to show
            proc.stdin.close()
            assert proc.wait(20) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        time.sleep(0.1)
        while not lines.empty():
            seen.append(lines.get())
        return "".join(seen)

    assert "the server says: working" in run_client("default", True)
    assert "the server says: working" in run_client("forward", True)
    assert "the server says" not in run_client("discard", False)


def test_a_client_with_on_log_connects_through_oxmcp_proxy():
    """``oxmcp proxy --http -- COMMAND`` in front of a stdio server: a client with
    ``on_log`` settles on the stateless era and opens its listen stream through the proxy,
    then calls; it used to time out while connecting (the stream's acknowledgement was lost)."""
    port = free_port()
    proxy = subprocess.Popen([oxmcp_bin(), "proxy", "--http", f"127.0.0.1:{port}", "--", oxmcp_bin(), "everything-server",
                              "--stdio"], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(proxy, port, "oxmcp proxy")

        async def go():
            logs: list[Any] = []
            client = await asyncio.wait_for(
                Client.connect_http(f"http://127.0.0.1:{port}/mcp", on_log=lambda level, data, logger: logs.append(data)),
                20)  # less than the acknowledgement's 30 s timeout
            try:
                assert client.era == "stateless"
                assert (await client.call_tool("echo", {"text": "hi"})).content[0].text == "hi"
                await client.call_tool("test_tool_with_logging")
                for _ in range(500):
                    if logs:
                        break
                    await asyncio.sleep(0.02)
                assert logs, "the server's logs came back through the proxy"
            finally:
                await client.close()

        run(go())
    finally:
        proxy.terminate()
        proxy.wait(10)
