"""Process-level behaviour: fork safety and a clean interpreter exit."""

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import DEMO


def test_runtime_is_rebuilt_after_fork():
    script = textwrap.dedent(f"""
        import asyncio, os, sys
        from oxmcp import Client
        async def call():
            async with Client.stdio(sys.executable, [{DEMO!r}]) as c:
                return (await c.call_tool("add", {{"a": 20, "b": 22}})).content[0].text
        assert asyncio.run(call()) == "42"          # the parent has used the runtime
        pid = os.fork()
        if pid == 0:
            ok = asyncio.run(call()) == "42"         # the child needs a fresh one
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
    """)
    r = subprocess.run([sys.executable, "-c", script], timeout=60, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_interpreter_exits_with_a_client_and_a_server_still_open():
    script = textwrap.dedent(f"""
        import asyncio, sys
        from oxmcp import Client, Server
        server = Server("left-open")
        @server.tool()
        def hello() -> str:
            return "hi"
        async def main():
            global client
            await server.start_http("127.0.0.1", 0)
            client = await Client.stdio(sys.executable, [{DEMO!r}])
            print((await client.call_tool("shout", {{"text": "bye"}})).content[0].text)
        asyncio.run(main())
    """)
    r = subprocess.run([sys.executable, "-c", script], timeout=30, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "BYE"
