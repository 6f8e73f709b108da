"""A Python client and a Python server, both on oxmcp, over stdio and Streamable HTTP; and
child servers that die (the crash test drives the oxmcp CLI's everything server)."""

import asyncio
import sys
import time

import pytest

from conftest import DEMO, oxmcp_bin, run
from oxmcp import (CapabilityMissing, Client, ConnectionClosed, InvalidInput, McpError, RequestTimeout)


def stdio(**options):
    return Client.stdio(sys.executable, [DEMO], **options)


def test_tools_schemas_and_results_over_stdio():
    async def main():
        async with stdio() as c:
            assert c.server_info.name == "py-demo" and c.server_info.version == "1.2.3"
            assert c.instructions == "A demo server for the tests."
            tools = {t.name: t for t in await c.list_tools()}
            assert tools["add"].description == "Add two numbers."
            assert tools["add"].input_schema["properties"]["a"]["description"] == "the first number"
            assert tools["shout"].annotations.read_only_hint is True
            assert tools["mirror"].output_schema["required"] == ["x", "y"]

            seen = []
            r = await c.call_tool("add", {"a": 2, "b": 40}, on_progress=lambda p, t, m: seen.append((p, t, m)))
            assert r.content[0].text == "42" and not r.is_error
            assert seen == [(50.0, 100.0, "halfway")]

            assert (await c.call_tool("shout", {"text": "hi", "times": 2})).content[0].text == "HI HI"
            r = await c.call_tool("kinds", {"color": "blue", "mode": "b", "tags": ["x"], "box": {"width": 2, "height": 3},
                                            "pair": {"left": "l", "right": "r"}})
            assert r.structured_content == {"color": "blue", "mode": "b", "tags": ["x"], "area": 6.0, "pair": "lr", "note": None}
            r = await c.call_tool("mirror", {"p": {"x": 1, "y": -2}})
            assert r.structured_content == {"x": -1, "y": 2}
            r = await c.call_tool("picture")
            assert [b.type for b in r.content] == ["text", "image"] and r.content[1].mime_type == "image/png"
            r = await c.call_tool("exact")
            assert r.is_error and r.structured_content == {"k": 1} and r.content[0].text == "raw"
    run(main())


def test_invalid_arguments_and_errors():
    async def main():
        async with stdio() as c:
            r = await c.call_tool("add", {"a": "two"})
            assert r.is_error
            assert "/a" in r.content[0].text and '"b"' in r.content[0].text, "the engine names the bad and missing fields"
            r = await c.call_tool("fail")
            assert r.is_error and r.content[0].text == "boom"
            with pytest.raises(McpError) as e:
                await c.call_tool("fail", {"code": -32001})
            assert (e.value.code, e.value.message, e.value.data) == (-32001, "custom failure", {"why": "asked"})
            with pytest.raises(McpError) as e:
                await c.call_tool("no-such-tool")
            assert e.value.code == -32602
            with pytest.raises(InvalidInput):
                await c.set_log_level("loudest")
    run(main())


def test_cancellation_both_ways_and_timeouts():
    # Session era: the handlers' logs arrive without logging/setLevel (a stateless-era server
    # sends none to a request without a level; test_eras.py covers that era's cancellation).
    async def main():
        logs = []
        async with stdio(on_log=lambda level, data, logger: logs.append(data), era="session") as c:
            started = time.time()
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(c.call_tool("sleepy", {"seconds": 10}), 0.3)
            assert time.time() - started < 2
            with pytest.raises(RequestTimeout) as e:
                await c.call_tool("busy_sync", {"seconds": 10}, timeout=0.3)
            assert isinstance(e.value, TimeoutError)
            for _ in range(100):
                if "sleepy saw CancelledError" in logs and "busy_sync saw cancelled" in logs:
                    break
                await asyncio.sleep(0.05)
            assert "sleepy saw CancelledError" in logs, "the async handler's task was cancelled"
            assert "busy_sync saw cancelled" in logs, "the sync handler saw ctx.cancelled"
            assert c._native.stats() == (0, 0), "nothing left in the pending map"
            assert (await c.call_tool("add", {"a": 1, "b": 1})).content[0].text == "2", "the session goes on"
    run(main())


def test_logging_levels_and_notifications():
    async def main():
        logs, notes = [], []
        async with stdio(on_log=lambda level, data, logger: logs.append((level, data)),
                         on_notification=lambda method, params: notes.append(method)) as c:
            await c.set_log_level("warning")
            await c.call_tool("chatty")
            await c.ping()
            await asyncio.sleep(0.1)
            assert logs == [("warning", "warning message"), ("error", "error message")]
            assert notes.count("notifications/message") == 2
    run(main())


def test_sampling_elicitation_and_roots_round_trips():
    async def main():
        async def sampling(params):
            text = params.messages[0].content.text
            return {"role": "assistant", "content": {"type": "text", "text": text[::-1]}, "model": "reverser"}

        def elicitation(params):
            assert params.requested_schema["properties"]["name"]["type"] == "string"
            return {"action": "accept", "content": {"name": "Ada"}}

        # Session era: server-initiated requests, and a missing capability fails inside the
        # handler (an isError result); test_eras.py covers the stateless era's input rounds.
        async with stdio(sampling=sampling, elicitation=elicitation, roots=["file:///a", {"uri": "file:///b", "name": "b"}],
                         era="session") as c:
            assert (await c.call_tool("ask_model", {"question": "abc"})).content[0].text == "model: cba"
            # The default (age 30) comes from the schema: SEP-1034 in the engine's client.
            assert (await c.call_tool("ask_user")).content[0].text == "user is Ada, 30"
            assert (await c.call_tool("roots")).content[0].text == "file:///a,file:///b"
        async with stdio(era="session") as c:
            r = await c.call_tool("ask_model", {"question": "x"})
            assert r.is_error and "sampling" in r.content[0].text
    run(main())


def test_resources_prompts_completion():
    async def main():
        async with stdio() as c:
            assert [r.uri for r in await c.list_resources()] == ["demo://static", "demo://blob"]
            assert [t.uri_template for t in await c.list_resource_templates()] == ["demo://users/{user_id}/profile"]
            r = await c.read_resource("demo://static")
            assert r.contents[0].text == "static text" and r.contents[0].mime_type == "text/plain"
            assert (await c.read_resource("demo://blob")).contents[0].blob == "AAEC"
            r = await c.read_resource("demo://users/42/profile")
            assert r.contents[0].text == '{"user_id": 42, "kind": "int"}', "template variables are converted to the annotation"
            with pytest.raises(McpError) as e:
                await c.read_resource("demo://nope")
            # Auto speaks the stateless era here, where an unknown resource is invalid params
            # (SEP-2164); the session era's code is -32002.
            assert c.era == "stateless" and e.value.code == -32602
            async with stdio(era="session") as s:
                with pytest.raises(McpError) as e:
                    await s.read_resource("demo://nope")
                assert e.value.code == -32002
            prompts = {p.name: p for p in await c.list_prompts()}
            assert [(a.name, a.required) for a in prompts["review"].arguments] == [("code", True), ("language", False)]
            p = await c.get_prompt("review", {"code": "x = 1"})
            assert p.messages[0].content.text == "Review this python: x = 1"
            p = await c.get_prompt("conversation", {"topic": "rust"})
            assert [m.role for m in p.messages] == ["user", "assistant"]
            with pytest.raises(McpError) as e:
                await c.get_prompt("review")
            assert e.value.code == -32602
            done = await c.complete({"type": "ref/prompt", "name": "review"}, "language", "p")
            assert done.values == ["python", "perl"]
    run(main())


def test_over_streamable_http(http_demo):
    async def main():
        logs = []
        # Session era: the cancelled handler's log arrives with no level set, after the
        # cancellation (in the stateless era the client closes the request's stream to cancel
        # it, so nothing the handler sends afterwards can arrive; see test_eras.py).
        async with Client.http(http_demo, headers={"x-test": "1"}, on_log=lambda l, d, g: logs.append(d),
                               era="session") as c:
            assert c.server_info.name == "py-demo"
            seen = []
            r = await c.call_tool("add", {"a": 1, "b": 2}, on_progress=lambda p, t, m: seen.append(p))
            assert r.content[0].text == "3" and seen == [50.0]
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(c.call_tool("sleepy", {"seconds": 10}), 0.3)
            for _ in range(100):
                if "sleepy saw CancelledError" in logs:
                    break
                await asyncio.sleep(0.05)
            assert "sleepy saw CancelledError" in logs
            r = await c.call_tool("who")
            assert r.structured_content is not None
            assert r.structured_content["client"] == "oxmcp-python"
    run(main())


def test_a_dead_server_reports_its_exit_status_and_stderr():
    async def main():
        with pytest.raises(ConnectionClosed) as e:
            await Client.connect_stdio(sys.executable, ["-c", "import sys; sys.stderr.write('fatal: no config\\n'); sys.exit(3)"])
        assert "exit status: 3" in str(e.value) and "fatal: no config" in str(e.value)
        assert isinstance(e.value, ConnectionError)
    run(main())


def test_every_pending_call_fails_with_the_exit_status_and_stderr_when_the_server_crashes():
    # The Rust CLI's everything server as the child: its `crash` tool writes a stderr line and
    # exits with status 3 while three `slow` calls are still waiting for their answers.
    async def main():
        async with Client.stdio(oxmcp_bin(), ["everything-server", "--stdio", "--with-crash-tool"], era="session") as c:
            started = time.monotonic()
            calls = [c.call_tool("slow", {"tag": tag, "ms": 20_000}) for tag in (1, 2, 3)]
            calls.append(c.call_tool("crash", {"ms": 200}))
            results = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 10)
            assert time.monotonic() - started < 5
            for r in results:
                assert isinstance(r, ConnectionClosed), repr(r)
                assert "exit status: 3" in str(r) and "fatal: crash requested" in str(r), str(r)
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(c.call_tool("echo", {"text": "x"}), 5)
    run(main(), timeout=30)


def test_remove_tool_before_serving_says_it_removed_the_tool():
    # The same answer in every host: True when a tool went away, whether or not the server
    # was serving yet; False when there was none.
    from oxmcp import Server

    server = Server("staged", version="1")

    @server.tool(description="Goes away before serving.")
    async def doomed() -> str:
        return "never"

    assert server.remove_tool("doomed") is True
    assert server.remove_tool("doomed") is False
    assert server.remove_tool("never-was") is False


def test_a_server_cancelling_its_sampling_request_cancels_the_callback():
    # The client cancels its tool call; the server's handler is dropped with its sampling
    # request in flight, so the server cancels that request: the Python callback waiting
    # on it must see CancelledError, as Node's AbortSignal and Java's future do.
    async def main():
        started, cancelled = asyncio.Event(), asyncio.Event()

        async def sampling(params):
            started.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return {"role": "assistant", "content": {"type": "text", "text": "late"}, "model": "m"}

        async with stdio(sampling=sampling, era="session") as c:
            call = asyncio.ensure_future(c.call_tool("ask_model", {"question": "abc"}))
            await asyncio.wait_for(started.wait(), 10)
            call.cancel()
            await asyncio.wait_for(cancelled.wait(), 10)
    run(main())
