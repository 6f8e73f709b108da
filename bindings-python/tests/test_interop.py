"""Interop between the oxmcp Python binding and the official MCP Python SDK (PyPI ``mcp``),
over stdio and Streamable HTTP, in both directions:

* the official SDK's ``mcp.Client`` against the oxmcp demo server (servers/demo.py);
* the oxmcp ``Client`` against an official-SDK ``MCPServer`` (servers/official_server.py).

Every test runs once per transport (stdio, HTTP), bar the HTTP-only header test. Server
processes are started here (HTTP) or by the client under test (stdio); an autouse fixture
checks that no child process outlives its test and stops any that does, by pid.
"""

import asyncio
import base64
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any, Optional

import anyio
import mcp
import pytest
from mcp import StdioServerParameters, types
from mcp.shared.exceptions import MCPError
from pydantic import FileUrl

from conftest import DEMO, SERVERS, http_server, run
from oxmcp import Client, McpError, RequestTimeout

OFFICIAL = str(SERVERS / "official_server.py")
SCRIPTS = (DEMO, OFFICIAL)

# The official client warns that logging/sampling/roots are deprecated by the 2026-07-28
# protocol; they are current in the 2025-11-25 protocol these connections negotiate.
pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")


# -- processes ---------------------------------------------------------------------------------


def _children() -> dict[int, str]:
    """This process's live children: pid -> command line (zombies count as gone)."""
    found = {}
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            # "pid (comm) state ppid ...": comm may hold spaces, so split after its ')'.
            state, ppid = stat.rsplit(")", 1)[1].split()[:2]
            if int(ppid) != me or state == "Z":
                continue
            found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
    return found


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# Pids of the HTTP servers this module starts itself (and stops in _http_server).
_HTTP_SERVERS: set[int] = set()


@pytest.fixture(autouse=True)
def no_leftover_servers():
    """Fails a test whose stdio server process is still running shortly after the client closed
    (and kills it by pid). The HTTP servers of the module fixtures are not counted."""
    before = set(_children())
    yield
    deadline = time.time() + 10
    while True:
        left = {pid: cmd for pid, cmd in _children().items()
                if pid not in before and pid not in _HTTP_SERVERS and any(script in cmd for script in SCRIPTS)}
        if not left or time.time() > deadline:
            break
        time.sleep(0.05)
    for pid in left:
        _stop(pid)
    assert not left, f"server processes left running after the client closed: {left}"


def _http_server(script: str):
    """``python script http PORT`` until it listens (conftest.http_server); its process is
    left out of the leftover check."""
    return http_server(script, started=_HTTP_SERVERS.add)


@pytest.fixture(scope="module")
def demo_http_url():
    with _http_server(DEMO) as url:
        yield url


@pytest.fixture(scope="module")
def official_http_url():
    with _http_server(OFFICIAL) as url:
        yield url


async def eventually(predicate, timeout: float = 5.0, what: str = "condition"):
    """Waits until ``predicate()`` is true (notifications may trail the response they belong to)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


# =============================================================================================
# 1. The official SDK's client against the oxmcp demo server
# =============================================================================================


class Recorder:
    """Callbacks for the official client that record what the server sent."""

    def __init__(self) -> None:
        self.logs: list[tuple[str, Any, Optional[str]]] = []

    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append((params.level, params.data, params.logger))

    def data(self) -> list[Any]:
        return [data for _, data, _ in self.logs]


@pytest.fixture(params=["stdio", "http"])
def demo(request):
    """Where the official client finds the oxmcp demo server: stdio parameters or a URL."""
    if request.param == "stdio":
        return StdioServerParameters(command=sys.executable, args=[DEMO])
    return request.getfixturevalue("demo_http_url")


def official_client(target, recorder: Optional[Recorder] = None, **options) -> mcp.Client:
    """The official client, in the session era (``mode="legacy"``: initialize) unless told
    otherwise; ``mode="auto"`` probes ``server/discover`` and so picks the stateless era."""
    options.setdefault("mode", "legacy")
    return mcp.Client(target, logging_callback=recorder.log if recorder else None,
                      client_info=types.Implementation(name="official-interop", version="9.9.9"), **options)


def test_official_client_initializes_and_lists_tools(demo):
    async def main():
        async with official_client(demo) as c:
            assert c.protocol_version == "2025-11-25", "legacy mode: the initialize handshake"
            assert (c.server_info.name, c.server_info.version) == ("py-demo", "1.2.3")
            assert c.instructions == "A demo server for the tests."
            caps = c.server_capabilities
            assert caps.tools is not None and caps.resources is not None and caps.prompts is not None
            assert caps.logging is not None and caps.completions is not None

            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert {"add", "shout", "kinds", "mirror", "picture", "fail", "sleepy", "busy_sync", "chatty",
                    "ask_model", "ask_user", "roots", "who"} <= set(tools)
            add = tools["add"]
            assert add.description == "Add two numbers."
            assert add.input_schema["type"] == "object"
            assert add.input_schema["required"] == ["a", "b"]
            assert add.input_schema["properties"]["a"] == {"description": "the first number", "title": "A",
                                                           "type": "integer"}
            assert add.input_schema["properties"]["b"]["description"] == "the second number"
            assert add.output_schema is not None
            assert add.output_schema["properties"]["result"]["type"] == "integer", "an int is structured as result"

            shout = tools["shout"]
            assert shout.description == "Upper-cases text (a sync handler)."
            assert shout.input_schema["properties"]["text"]["description"] == "what to shout"
            assert shout.input_schema["properties"]["times"]["default"] == 1
            assert shout.input_schema["required"] == ["text"]
            assert shout.annotations is not None and shout.annotations.read_only_hint is True

            kinds = tools["kinds"].input_schema
            assert kinds["$defs"]["Color"]["enum"] == ["red", "blue"]
            assert kinds["properties"]["mode"]["enum"] == ["a", "b"]
            assert kinds["properties"]["tags"] == {"items": {"type": "string"}, "title": "Tags", "type": "array"}

            mirror = tools["mirror"]
            assert mirror.output_schema is not None
            assert mirror.output_schema["type"] == "object" and mirror.output_schema["required"] == ["x", "y"]
            assert tools["sleepy"].input_schema["properties"]["seconds"]["type"] == "number"
    run(main())


def test_official_client_calls_tools(demo):
    async def main():
        async with official_client(demo) as c:
            progress = []

            async def on_progress(p, total, message):
                progress.append((p, total, message))

            r = await c.call_tool("add", {"a": 2, "b": 40}, progress_callback=on_progress)
            assert not r.is_error
            assert [(b.type, b.text) for b in r.content] == [("text", "42")]
            await eventually(lambda: progress, what="progress")
            assert progress == [(50.0, 100.0, "halfway")]

            r = await c.call_tool("shout", {"text": "hi", "times": 3})
            assert r.content[0].text == "HI HI HI" and not r.is_error

            # Structured output, validated by the official client against the tool's output schema.
            r = await c.call_tool("mirror", {"p": {"x": 1, "y": -2}})
            assert r.structured_content == {"x": -1, "y": 2}
            assert not r.is_error and r.content[0].type == "text"

            r = await c.call_tool("kinds", {"color": "blue", "mode": "b", "tags": ["x", "y"],
                                            "box": {"width": 2, "height": 3.5}, "pair": {"left": "l", "right": "r"}})
            assert r.structured_content == {"color": "blue", "mode": "b", "tags": ["x", "y"], "area": 7.0,
                                            "pair": "lr", "note": None}

            r = await c.call_tool("picture")
            assert [b.type for b in r.content] == ["text", "image"]
            assert r.content[0].text == "a caption"
            assert r.content[1].mime_type == "image/png"
            assert base64.b64decode(r.content[1].data) == bytes.fromhex("89504e470d0a1a0a") + b"rest-of-png"

            r = await c.call_tool("exact")
            assert r.is_error and r.structured_content == {"k": 1} and r.content[0].text == "raw"

            r = await c.call_tool("who")
            assert r.structured_content["client"] == "official-interop"
            assert r.structured_content["version"] == "2025-11-25"
            assert isinstance(r.structured_content["id"], (int, str))
    run(main())


def test_official_client_sees_tool_errors(demo):
    async def main():
        async with official_client(demo) as c:
            r = await c.call_tool("fail")
            assert r.is_error
            assert [(b.type, b.text) for b in r.content] == [("text", "boom")]

            with pytest.raises(MCPError) as e:
                await c.call_tool("fail", {"code": -32001})
            assert (e.value.code, e.value.message, e.value.data) == (-32001, "custom failure", {"why": "asked"})

            with pytest.raises(MCPError) as e:
                await c.call_tool("no-such-tool", {})
            assert e.value.code == -32602 and "no-such-tool" in e.value.message

            r = await c.call_tool("add", {"a": "two"})
            assert r.is_error
            assert "/a" in r.content[0].text and '"b"' in r.content[0].text

            # The session still works after errors.
            assert (await c.call_tool("add", {"a": 1, "b": 1})).content[0].text == "2"
    run(main())


def test_official_client_receives_logs_and_sets_level(demo):
    async def main():
        rec = Recorder()
        async with official_client(demo, rec) as c:
            assert (await c.call_tool("chatty")).content[0].text == "logged"
            await eventually(lambda: len(rec.logs) >= 4, what="four log messages")
            assert rec.logs == [("debug", "debug message", None), ("info", "info message", None),
                                ("warning", "warning message", None), ("error", "error message", None)]

            await c.set_logging_level("warning")
            rec.logs.clear()
            await c.call_tool("chatty")
            await eventually(lambda: len(rec.logs) >= 2, what="two log messages")
            await asyncio.sleep(0.1)
            assert rec.logs == [("warning", "warning message", None), ("error", "error message", None)]
    run(main())


def test_official_client_reads_resources(demo):
    async def main():
        async with official_client(demo) as c:
            listed = {r.uri: r for r in (await c.list_resources()).resources}
            assert set(listed) == {"demo://static", "demo://blob"}
            assert listed["demo://static"].name == "static" and listed["demo://static"].mime_type == "text/plain"
            templates = (await c.list_resource_templates()).resource_templates
            assert [(t.name, t.uri_template) for t in templates] == [("profile", "demo://users/{user_id}/profile")]

            r = await c.read_resource("demo://static")
            assert len(r.contents) == 1
            text = r.contents[0]
            assert (text.uri, text.mime_type, text.text) == ("demo://static", "text/plain", "static text")

            r = await c.read_resource("demo://blob")
            blob = r.contents[0]
            assert isinstance(blob, types.BlobResourceContents)
            assert base64.b64decode(blob.blob) == b"\x00\x01\x02"
            assert blob.mime_type == "application/octet-stream"

            r = await c.read_resource("demo://users/7/profile")
            profile = r.contents[0]
            assert profile.uri == "demo://users/7/profile" and profile.mime_type == "application/json"
            assert profile.text == '{"user_id": 7, "kind": "int"}', "the template variable arrives as an int"

            with pytest.raises(MCPError) as e:
                await c.read_resource("demo://nowhere")
            assert (e.value.code, e.value.data) == (-32002, {"uri": "demo://nowhere"}), "resource not found"
    run(main())


def test_official_client_gets_prompts_and_completions(demo):
    async def main():
        async with official_client(demo) as c:
            prompts = {p.name: p for p in (await c.list_prompts()).prompts}
            assert set(prompts) == {"review", "conversation"}
            assert prompts["review"].description == "Review some code."
            assert [(a.name, a.required) for a in prompts["review"].arguments] == [("code", True), ("language", False)]

            r = await c.get_prompt("review", {"code": "x = 1"})
            assert [(m.role, m.content.type, m.content.text) for m in r.messages] == \
                [("user", "text", "Review this python: x = 1")]
            r = await c.get_prompt("review", {"code": "fn main() {}", "language": "rust"})
            assert r.messages[0].content.text == "Review this rust: fn main() {}"

            r = await c.get_prompt("conversation", {"topic": "MCP"})
            assert [(m.role, m.content.text) for m in r.messages] == \
                [("user", "Tell me about MCP"), ("assistant", "Gladly.")]

            with pytest.raises(MCPError) as e:
                await c.get_prompt("no-such-prompt")
            assert e.value.code == -32602
            with pytest.raises(MCPError) as e:
                await c.get_prompt("review", {})
            assert e.value.code == -32602 and "code" in e.value.message

            done = await c.complete(types.PromptReference(type="ref/prompt", name="review"),
                                    {"name": "language", "value": "p"})
            assert done.completion.values == ["python", "perl"]
            assert done.completion.total == 2 and done.completion.has_more is False

            done = await c.complete(types.ResourceTemplateReference(type="ref/resource",
                                                                    uri="demo://users/{user_id}/profile"),
                                    {"name": "user_id", "value": "r"})
            assert done.completion.values == ["rust"]
    run(main())


def test_official_client_cancels_and_the_oxmcp_handler_sees_it(demo):
    """Three ways the official SDK cancels a call: an anyio cancel scope, cancelling the asyncio
    task, and its per-request timeout. Each sends notifications/cancelled, and the oxmcp server
    cancels the async handler's task (CancelledError) or flags a sync handler's ctx.cancelled."""

    async def main():
        rec = Recorder()
        async with official_client(demo, rec) as c:
            started = time.monotonic()
            with anyio.move_on_after(0.4) as scope:
                await c.call_tool("sleepy", {"seconds": 30})
            assert scope.cancelled_caught and time.monotonic() - started < 5
            await eventually(lambda: rec.data().count("sleepy saw CancelledError") == 1, what="sleepy's log")

            task = asyncio.ensure_future(c.call_tool("sleepy", {"seconds": 31}))
            await asyncio.sleep(0.4)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await eventually(lambda: rec.data().count("sleepy saw CancelledError") == 2, what="sleepy's 2nd log")

            with pytest.raises(MCPError) as e:
                await c.call_tool("sleepy", {"seconds": 32}, read_timeout_seconds=0.4)
            assert "timed out" in e.value.message
            await eventually(lambda: rec.data().count("sleepy saw CancelledError") == 3, what="sleepy's 3rd log")

            with anyio.move_on_after(0.4):
                await c.call_tool("busy_sync", {"seconds": 30})
            await eventually(lambda: "busy_sync saw cancelled" in rec.data(), what="busy_sync's log")
            assert all(level == "info" for level, _, _ in rec.logs)

            # The connection is still usable afterwards.
            assert (await c.call_tool("add", {"a": 20, "b": 22})).content[0].text == "42"
    run(main())


def test_official_client_closes_with_a_call_in_flight(demo):
    """Leaving the client while a call runs: the SDK cancels the call and closes the connection
    (stdio: closes the server's stdin and waits for it to exit; HTTP: DELETEs the session)."""

    async def main():
        started = time.monotonic()
        async with official_client(demo) as c:
            async with anyio.create_task_group() as tg:
                tg.start_soon(c.call_tool, "sleepy", {"seconds": 30})
                await anyio.sleep(0.3)
                tg.cancel_scope.cancel()
        assert time.monotonic() - started < 10
        # A new connection works (over HTTP the same server process serves it).
        async with official_client(demo) as c:
            assert (await c.call_tool("add", {"a": 1, "b": 2})).content[0].text == "3"
    run(main())


def test_official_client_answers_sampling_elicitation_and_roots(demo):
    async def main():
        asked: list[tuple[str, Any, Any]] = []

        async def sampling(ctx, params: types.CreateMessageRequestParams):
            asked.append(("sampling", params.max_tokens, params.messages[0].content.text))
            return types.CreateMessageResult(role="assistant", model="interop-model", stop_reason="endTurn",
                                             content=types.TextContent(type="text", text="forty-two"))

        async def elicitation(ctx, params: types.ElicitRequestParams):
            asked.append(("elicitation", params.message, sorted(params.requested_schema["properties"])))
            return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

        async def list_roots(ctx):
            return types.ListRootsResult(roots=[types.Root(uri=FileUrl("file:///srv/a")),
                                                types.Root(uri=FileUrl("file:///srv/b"))])

        async with official_client(demo, sampling_callback=sampling, elicitation_callback=elicitation,
                                   list_roots_callback=list_roots) as c:
            r = await c.call_tool("ask_model", {"question": "meaning of life?"})
            assert r.content[0].text == "model: forty-two"
            r = await c.call_tool("ask_user")
            assert r.content[0].text == "user is Ada, 36"
            r = await c.call_tool("roots")
            assert r.content[0].text == "file:///srv/a,file:///srv/b"
        assert asked == [("sampling", 20, "meaning of life?"), ("elicitation", "Who are you?", ["age", "name"])]
    run(main())


def test_official_client_in_modern_mode_speaks_the_stateless_era(demo):
    """The official client in its default (auto) mode finds ``server/discover`` and talks
    2026-07-28 to the same oxmcp server: per-request _meta, logs only at the level it asked
    for, and the stateless era's resource-not-found code."""

    async def main():
        rec = Recorder()
        async with official_client(demo, rec, mode="auto", log_level="warning") as c:
            assert c.protocol_version == "2026-07-28"
            assert (c.server_info.name, c.server_info.version) == ("py-demo", "1.2.3")
            assert {t.name for t in (await c.list_tools()).tools} >= {"add", "chatty", "ask_model"}
            assert (await c.call_tool("shout", {"text": "hi", "times": 2})).content[0].text == "HI HI"
            assert (await c.call_tool("chatty")).content[0].text == "logged"
            await eventually(lambda: len(rec.logs) >= 2, what="two log messages")
            assert rec.logs == [("warning", "warning message", None), ("error", "error message", None)]
            with pytest.raises(MCPError) as e:
                await c.read_resource("demo://nowhere")
            assert (e.value.code, e.value.data) == (-32602, {"uri": "demo://nowhere"})
    run(main())


def test_official_client_in_modern_mode_answers_input_requests(demo):
    """In the stateless era the Python handler's ctx.sample / ctx.elicit / ctx.list_roots come
    back as InputRequiredResult rounds; the official client answers them with its callbacks and
    retries, and the handler, run again, finishes with the answers."""

    async def main():
        asked = []

        async def sampling(ctx, params: types.CreateMessageRequestParams):
            asked.append("sampling")
            return types.CreateMessageResult(role="assistant", model="interop-model", stop_reason="endTurn",
                                             content=types.TextContent(type="text", text="forty-two"))

        async def elicitation(ctx, params: types.ElicitRequestParams):
            asked.append("elicitation")
            return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

        async def list_roots(ctx):
            asked.append("roots")
            return types.ListRootsResult(roots=[types.Root(uri=FileUrl("file:///srv/a")),
                                                types.Root(uri=FileUrl("file:///srv/b"))])

        async with official_client(demo, mode="auto", sampling_callback=sampling, elicitation_callback=elicitation,
                                   list_roots_callback=list_roots) as c:
            assert c.protocol_version == "2026-07-28"
            assert (await c.call_tool("ask_model", {"question": "meaning of life?"})).content[0].text == "model: forty-two"
            assert (await c.call_tool("ask_user")).content[0].text == "user is Ada, 36"
            assert (await c.call_tool("roots")).content[0].text == "file:///srv/a,file:///srv/b"
        assert asked == ["sampling", "elicitation", "roots"]
    run(main())


# =============================================================================================
# 2. The oxmcp client against an official-SDK server
# =============================================================================================


@pytest.fixture(params=["stdio", "http"])
def official(request):
    """Connects the oxmcp client to the official-SDK server: ``official(**options)``."""
    if request.param == "stdio":
        return lambda **options: Client.stdio(sys.executable, [OFFICIAL], **options)
    url = request.getfixturevalue("official_http_url")
    return lambda **options: Client.http(url, **options)


def test_oxmcp_client_initializes_and_lists_tools(official):
    # Session era: the initialize handshake and the version it negotiates (auto would pick
    # the stateless era, which the SDK's server also speaks: see the test after this one).
    async def main():
        async with official(era="session") as c:
            assert (c.server_info.name, c.server_info.version) == ("official-py", "2.3.0-interop")
            assert c.instructions == "An official-SDK server for the oxmcp interop tests."
            assert c.protocol_version == "2025-11-25"
            caps = c.server_capabilities
            assert caps.tools is not None and caps.resources is not None and caps.prompts is not None
            assert caps.completions is not None

            tools = {t.name: t for t in await c.list_tools()}
            assert {"add", "greet", "mirror", "count_to", "fail", "crash", "fail_code", "sleepy", "cancellations",
                    "echo_header", "ask_user", "ask_model", "roots", "touch"} == set(tools)
            add = tools["add"]
            assert add.description == "Add two integers."
            assert add.input_schema["properties"]["a"]["description"] == "the first number"
            assert add.input_schema["properties"]["b"]["type"] == "integer"
            assert add.input_schema["required"] == ["a", "b"]
            assert add.output_schema["properties"]["result"]["type"] == "integer"
            assert tools["greet"].input_schema["properties"]["punctuation"]["default"] == "!"
            assert tools["mirror"].output_schema["required"] == ["x", "y"]
    run(main())


def test_oxmcp_client_in_auto_speaks_the_stateless_era_with_the_official_server(official):
    """The official SDK's server (2.3.0) serves both eras, so the oxmcp client's default (auto)
    finds server/discover and speaks 2026-07-28: the discover result stands in for initialize,
    logs come at the level the client asks for (every level while it names none), and subscribe opens a
    subscriptions/listen stream the SDK's server sends the resource's updates on."""

    async def main():
        logs, updates = [], []

        def on_notification(method, params):
            if method == "notifications/resources/updated":
                updates.append(params["uri"])

        async with official(on_log=lambda level, data, logger: logs.append((level, data, logger)),
                            on_notification=on_notification) as c:
            assert c.era == "stateless" and c.protocol_version == "2026-07-28"
            assert (c.server_info.name, c.server_info.version) == ("official-py", "2.3.0-interop")
            assert c.instructions == "An official-SDK server for the oxmcp interop tests."
            assert c.server_capabilities.tools is not None and c.server_capabilities.completions is not None
            assert {"add", "count_to", "ask_user"} <= {t.name for t in await c.list_tools()}

            progress = []
            r = await c.call_tool("count_to", {"n": 2}, on_progress=lambda p, t, m: progress.append((p, t, m)))
            assert r.content[0].text == "counted to 2"
            await eventually(lambda: len(progress) >= 2, what="progress")
            assert progress == [(1.0, 2.0, "step 1"), (2.0, 2.0, "step 2")]
            # A client with a log callback asks for every level, as the session era would
            # deliver them; then the level it sets.
            await eventually(lambda: len(logs) >= 2, what="logs")
            assert logs == [("info", f"counted {i}", "count_to") for i in (1, 2)]
            await c.set_log_level("warning")
            r = await c.call_tool("count_to", {"n": 2})
            assert r.content[0].text == "counted to 2"
            await asyncio.sleep(0.1)
            assert len(logs) == 2, "no info logs to a request that asks for warnings"

            await c.subscribe("official://static/readme")
            await c.call_tool("touch", {"uri": "official://static/readme"})
            await eventually(lambda: updates, what="the resource update")
            assert updates == ["official://static/readme"]
            await c.unsubscribe("official://static/readme")
            await c.call_tool("touch", {"uri": "official://static/readme"})
            await c.ping()
            await asyncio.sleep(0.2)
            assert updates == ["official://static/readme"], "no update after unsubscribe"
    run(main())


def test_oxmcp_client_calls_tools_with_progress_and_logs(official):
    # Session era: the SDK's server sends logs without logging/setLevel.
    async def main():
        logs = []
        async with official(on_log=lambda level, data, logger: logs.append((level, data, logger)),
                            era="session") as c:
            r = await c.call_tool("add", {"a": 1, "b": 2})
            assert not r.is_error
            assert r.content[0].text == "3" and r.structured_content == {"result": 3}

            assert (await c.call_tool("greet", {"name": "oxmcp"})).content[0].text == "Hello, oxmcp!"
            assert (await c.call_tool("greet", {"name": "x", "punctuation": "?"})).structured_content == \
                {"result": "Hello, x?"}

            r = await c.call_tool("mirror", {"x": 3, "y": -4})
            assert r.structured_content == {"x": -3, "y": 4}

            progress = []
            r = await c.call_tool("count_to", {"n": 3}, on_progress=lambda p, t, m: progress.append((p, t, m)))
            assert r.content[0].text == "counted to 3"
            await eventually(lambda: len(progress) >= 3 and len(logs) >= 3, what="progress and logs")
            assert progress == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]
            assert logs == [("info", f"counted {i}", "count_to") for i in (1, 2, 3)]
    run(main())


def test_oxmcp_client_sees_official_errors(official):
    async def main():
        async with official() as c:
            r = await c.call_tool("fail", {"reason": "testing"})
            assert r.is_error and r.content[0].text == "Error executing tool fail: failed on purpose: testing"

            r = await c.call_tool("crash")
            assert r.is_error and r.content[0].text == "Error executing tool crash"

            with pytest.raises(McpError) as e:
                await c.call_tool("fail_code", {"code": -32042})
            assert (e.value.code, e.value.message, e.value.data) == (-32042, "custom protocol failure", {"asked": -32042})

            r = await c.call_tool("no-such-tool")
            assert r.is_error and r.content[0].text == "Unknown tool: no-such-tool"

            r = await c.call_tool("add", {"a": "two"})
            assert r.is_error and "validation error" in r.content[0].text

            with pytest.raises(McpError) as e:
                await c.read_resource("official://nowhere")
            assert e.value.code is not None

            with pytest.raises(McpError) as e:
                await c.get_prompt("no-such-prompt")
            assert e.value.code is not None

            await c.ping()
            assert (await c.call_tool("add", {"a": 2, "b": 2})).structured_content == {"result": 4}
    run(main())


def test_oxmcp_client_cancels_official_handler(official):
    async def main():
        async with official() as c:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(c.call_tool("sleepy", {"seconds": 30.25}), 0.4)
            with pytest.raises(RequestTimeout):
                await c.call_tool("sleepy", {"seconds": 30.5}, timeout=0.4)

            async def cancelled():
                return (await c.call_tool("cancellations")).structured_content["result"]

            deadline = time.monotonic() + 5
            while not {"sleepy 30.25", "sleepy 30.5"} <= set(await cancelled()):
                assert time.monotonic() < deadline, f"the official server saw only {await cancelled()}"
                await asyncio.sleep(0.05)
    run(main())


def test_oxmcp_client_reads_official_resources(official):
    async def main():
        async with official() as c:
            listed = {r.uri: r for r in await c.list_resources()}
            assert set(listed) == {"official://static/readme", "official://static/logo"}
            assert listed["official://static/readme"].name == "readme"
            assert listed["official://static/readme"].description == "A fixed text resource."
            assert listed["official://static/readme"].mime_type == "text/plain"
            templates = await c.list_resource_templates()
            assert [(t.name, t.uri_template) for t in templates] == \
                [("user_profile", "official://users/{user_id}/profile")]

            r = await c.read_resource("official://static/readme")
            assert [(x.uri, x.mime_type, x.text) for x in r.contents] == \
                [("official://static/readme", "text/plain", "official readme text")]

            r = await c.read_resource("official://static/logo")
            assert r.contents[0].mime_type == "image/png"
            assert base64.b64decode(r.contents[0].blob) == b"\x89PNG\x00\x01\x02"

            r = await c.read_resource("official://users/42/profile")
            assert [(x.uri, x.text) for x in r.contents] == [("official://users/42/profile", "profile of user 42")]
    run(main())


def test_oxmcp_client_gets_official_prompts_and_completions(official):
    async def main():
        async with official() as c:
            prompts = {p.name: p for p in await c.list_prompts()}
            assert set(prompts) == {"review_code", "chat"}
            assert prompts["review_code"].description == "Ask for a review of some code."
            assert [(a.name, a.required) for a in prompts["review_code"].arguments] == \
                [("code", True), ("language", False)]

            r = await c.get_prompt("review_code", {"code": "let x = 1;"})
            assert [(m.role, m.content.type, m.content.text) for m in r.messages] == \
                [("user", "text", "Please review this rust code:\nlet x = 1;")]
            r = await c.get_prompt("review_code", {"code": "x = 1", "language": "python"})
            assert r.messages[0].content.text == "Please review this python code:\nx = 1"

            r = await c.get_prompt("chat", {"topic": "MCP"})
            assert [(m.role, m.content.text) for m in r.messages] == \
                [("user", "Tell me about MCP"), ("assistant", "Gladly.")]

            done = await c.complete({"type": "ref/prompt", "name": "review_code"}, "language", "p")
            assert done.values == ["python", "perl"]
            done = await c.complete({"type": "ref/resource", "uri": "official://users/{user_id}/profile"}, "user_id", "4")
            assert done.values == ["42", "420"]
    run(main())


def test_oxmcp_client_answers_official_sampling_elicitation_and_roots(official):
    async def main():
        asked = []

        def sampling(params):
            asked.append(("sampling", params.max_tokens, params.messages[0].content.text))
            return {"role": "assistant", "model": "interop-model", "stopReason": "endTurn",
                    "content": {"type": "text", "text": "forty-two"}}

        async def elicitation(params):
            asked.append(("elicitation", params.message, sorted(params.requested_schema["properties"])))
            return {"action": "accept", "content": {"name": "Ada", "age": 36}}

        # Session era: the SDK server's tools ask with server-initiated requests
        # (ctx.elicit, ctx.session.create_message / list_roots), which its stateless era
        # refuses ("no back-channel for server-initiated requests", -32600).
        async with official(sampling=sampling, elicitation=elicitation,
                            roots=["file:///srv/a", {"uri": "file:///srv/b", "name": "b"}], era="session") as c:
            r = await c.call_tool("ask_model", {"question": "meaning of life?"})
            assert r.content[0].text == "model interop-model said: forty-two"
            r = await c.call_tool("ask_user")
            assert r.content[0].text == "user is Ada, 36"
            r = await c.call_tool("roots")
            assert r.content[0].text == "file:///srv/a,file:///srv/b"
        assert asked == [("sampling", 20, "meaning of life?"), ("elicitation", "Who are you?", ["age", "name"])]
    run(main())


def test_oxmcp_client_sends_http_headers(official_http_url):
    async def main():
        async with Client.http(official_http_url, headers={"X-Interop": "oxmcp"}) as c:
            r = await c.call_tool("echo_header", {"name": "X-Interop"})
            assert r.content[0].text == "oxmcp"
            r = await c.call_tool("echo_header", {"name": "X-Absent"})
            assert r.content[0].text == "<none>"
    run(main())
