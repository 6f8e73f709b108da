"""Process-level behaviour: fork safety and a clean interpreter exit."""

import json
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


def run_script(body: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, "-c", textwrap.dedent(body)], timeout=60, capture_output=True, text=True)


def test_closed_clients_and_servers_are_garbage_collected():
    # The core holds a server's handlers from Rust, and handlers hold their server (bound
    # methods, closures, a user's function naming it): the collector must be shown that
    # cycle, or no server is ever freed.
    r = run_script("""
        import asyncio, gc, json, weakref
        from oxmcp import Client, Server
        gone = {}
        def track(obj, kind):
            weakref.finalize(obj, lambda: gone.__setitem__(kind, gone.get(kind, 0) + 1))
        def make():
            server = Server("collected")
            @server.tool()
            def echo() -> str:
                return type(server).__name__  # a handler naming its server
            return server
        async def main():
            shared = make()
            for _ in range(5):
                c = await Client.connect_in_memory(shared)
                await c.call_tool("echo", {})
                await c.close()
                track(c, "client")
            for _ in range(5):
                s = make()
                c = await Client.connect_in_memory(s)
                await c.call_tool("echo", {})
                await c.close()
                track(s, "in-memory server")
            for _ in range(5):
                s = make()
                url = await s.start_http(port=0)
                async with Client.http(url) as c:
                    await c.call_tool("echo", {})
                await s.stop_http()
                track(s, "http server")
            del c, s
            for _ in range(3):
                gc.collect()
                await asyncio.sleep(0.01)
            print(json.dumps(gone, sort_keys=True))
        asyncio.run(main())
    """)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"client": 5, "http server": 5, "in-memory server": 5}


def test_a_server_nothing_refers_to_keeps_serving_while_started_or_connected_in_memory():
    r = run_script("""
        import asyncio, gc, weakref
        from oxmcp import Client, Server
        def make():
            server = Server("unreferenced")
            @server.tool()
            def echo() -> str:
                return "still here"
            return server
        async def main():
            listening = make()
            ref = weakref.ref(listening)
            url = await listening.start_http(port=0)
            del listening
            in_memory = await Client.connect_in_memory(make())
            for _ in range(3):
                gc.collect()
            async with Client.http(url) as c:
                a = (await c.call_tool("echo", {})).content[0].text
            b = (await in_memory.call_tool("echo", {})).content[0].text
            await in_memory.close()
            await ref().stop_http()
            print(a, "/", b)
        asyncio.run(main())
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "still here / still here"


def test_replaced_handlers_are_let_go():
    # The native server remembers its handlers for the cycle collector: one the core no
    # longer holds (replaced) must not be kept there for good.
    r = run_script("""
        import gc, weakref
        from oxmcp import Server
        server = Server("replacing")
        gone = []
        for i in range(20):
            def tool() -> str:
                return "x"
            weakref.finalize(tool, gone.append, i)
            server.tool(name="t", replace=True)(tool)
            del tool
        gc.collect()
        print(sorted(gone))
    """)
    assert r.returncode == 0, r.stderr
    # Every replaced version but the last one replaced (kept until the next filing).
    assert r.stdout.strip() == str(list(range(18)))
