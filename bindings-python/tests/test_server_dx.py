"""What a server's author sees: a handler's exception logged with its traceback (and kept
from the client with mask_error_details), a lifespan around serving whose value handlers
read, and plain return values (int, str, list[...]) as structured content."""

import asyncio
import contextlib
import logging
import sys
import textwrap
import time
from typing import Optional

import pytest
from pydantic import BaseModel

from conftest import run
from oxmcp import Client, Context, McpError, Server


# -- errors ------------------------------------------------------------------------------------


def failing_server(**options) -> Server:
    server = Server("failing", **options)

    @server.tool
    async def divide(a: int, b: int) -> float:
        return a / b

    @server.tool
    def parse(text: str) -> int:  # a sync handler: run on a worker thread
        return int(text)

    @server.tool
    def refuse() -> str:
        raise McpError(None, "not today")  # deliberate: the model reads it, nothing is logged

    @server.tool
    def locked() -> str:
        raise McpError(-32001, "locked")

    @server.resource("secret://{name}")
    def secret(name: str) -> str:
        raise KeyError(f"password of {name}")

    @server.prompt
    def ask(topic: str) -> str:
        raise RuntimeError(f"no prompt for {topic}")

    @server.completion
    async def complete(ref, argument, context) -> list[str]:
        raise LookupError("no values")

    return server


def failures(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "oxmcp"]


def test_a_handlers_exception_is_logged_with_its_traceback(caplog):
    caplog.set_level(logging.ERROR, logger="oxmcp")

    async def go():
        async with Client.in_memory(failing_server()) as client:
            r = await client.call_tool("divide", {"a": 1, "b": 0})
            assert r.is_error and r.content[0].text == "division by zero", "the client still gets the text"
            r = await client.call_tool("parse", {"text": "x"})
            assert r.is_error and "invalid literal" in r.content[0].text
            with pytest.raises(McpError, match="password of alice") as e:
                await client.read_resource("secret://alice")
            assert e.value.code == -32603
            with pytest.raises(McpError, match="no prompt for cats"):
                await client.get_prompt("ask", {"topic": "cats"})
            with pytest.raises(McpError, match="no values"):
                await client.complete({"type": "ref/prompt", "name": "ask"}, "topic", "c")
            assert (await client.call_tool("refuse")).content[0].text == "not today"
            with pytest.raises(McpError, match="locked"):
                await client.call_tool("locked")

    run(go())
    records = failures(caplog)
    assert [r.getMessage() for r in records] == [
        "tool 'divide' failed", "tool 'parse' failed", "resource 'secret://{name}' failed", "prompt 'ask' failed",
        "completion 'complete' failed"], "one record per failure; McpError is deliberate and not logged"
    assert {r.levelno for r in records} == {logging.ERROR}
    divide = caplog.handler.format(records[0])
    assert "Traceback" in divide and "return a / b" in divide and "ZeroDivisionError" in divide
    assert "int(text)" in caplog.handler.format(records[1]), "sync handlers' tracebacks too"
    assert records[2].exc_info is not None
    assert isinstance(records[2].exc_info[1], KeyError)


def test_masked_errors_keep_the_exception_from_the_client_but_not_from_the_log(caplog):
    caplog.set_level(logging.ERROR, logger="oxmcp")

    async def go():
        async with Client.in_memory(failing_server(mask_error_details=True)) as client:
            r = await client.call_tool("divide", {"a": 1, "b": 0})
            assert r.is_error and r.content[0].text == "internal error in tool 'divide'"
            r = await client.call_tool("parse", {"text": "x"})
            assert r.is_error and r.content[0].text == "internal error in tool 'parse'"
            with pytest.raises(McpError) as e:
                await client.read_resource("secret://alice")
            assert (e.value.code, e.value.message) == (-32603, "internal error in resource 'secret://{name}'")
            with pytest.raises(McpError) as e:
                await client.get_prompt("ask", {"topic": "cats"})
            assert (e.value.code, e.value.message) == (-32603, "internal error in prompt 'ask'")
            # What the handler says on purpose still goes through.
            assert (await client.call_tool("refuse")).content[0].text == "not today"
            with pytest.raises(McpError, match="locked"):
                await client.call_tool("locked")
            # Invalid arguments are the client's to correct: not masked.
            r = await client.call_tool("divide", {"a": "one", "b": 1})
            assert r.is_error and "/a" in r.content[0].text

    run(go())
    records = failures(caplog)
    assert [r.getMessage() for r in records] == [
        "tool 'divide' failed", "tool 'parse' failed", "resource 'secret://{name}' failed", "prompt 'ask' failed"]
    assert "password of alice" in caplog.handler.format(records[2]), "the log has what the client does not"


def test_a_failing_middleware_is_logged_and_masked(caplog):
    caplog.set_level(logging.ERROR, logger="oxmcp")
    server = Server("mw", mask_error_details=True)

    @server.middleware
    async def broken(request, call_next):
        if request.method == "tools/call":
            raise AttributeError("oops")
        return await call_next()

    @server.tool
    def hello() -> str:
        return "hi"

    async def go():
        async with Client.in_memory(server) as client:
            assert [t.name for t in await client.list_tools()] == ["hello"]
            with pytest.raises(McpError) as e:
                await client.call_tool("hello")
            assert e.value.message == "internal error in middleware 'broken'"

    run(go())
    assert [r.getMessage() for r in failures(caplog)] == ["middleware 'broken' failed"]


# -- lifespan ----------------------------------------------------------------------------------


def lifespan_server(events: list[str]) -> Server:
    @contextlib.asynccontextmanager
    async def lifespan(server: Server):
        events.append(f"enter {server.name}")
        yield {"db": f"connection {len(events)}"}
        events.append("exit")

    server = Server("life", lifespan=lifespan)

    @server.tool
    async def db(ctx: Context) -> str:
        db: str = ctx.lifespan["db"]
        return db

    @server.resource("db://name")
    def name(ctx: Context) -> str:  # a sync handler sees it too
        db: str = ctx.lifespan["db"]
        return db

    return server


def test_the_lifespan_runs_around_an_in_memory_client_and_handlers_read_its_value():
    async def go():
        events: list[str] = []
        server = lifespan_server(events)
        assert events == [], "nothing runs before serving"
        async with Client.in_memory(server) as client:
            assert events == ["enter life"]
            assert (await client.call_tool("db")).content[0].text == "connection 1"
            assert (await client.read_resource("db://name")).contents[0].text == "connection 1"
        assert events == ["enter life", "exit"], "closing the last client ends it"

        # `async with server` holds one lifespan for several clients, even concurrent ones.
        events.clear()
        async with server:
            clients = await asyncio.gather(*(Client.connect_in_memory(server) for _ in range(3)))
            texts = [(await c.call_tool("db")).content[0].text for c in clients]
            for c in clients:
                await c.close()
                await c.close()  # twice: let go once
            async with Client.in_memory(server) as client:
                texts.append((await client.call_tool("db")).content[0].text)
            assert events == ["enter life"] and texts == ["connection 1"] * 4
        assert events == ["enter life", "exit"]

    run(go())


def test_the_lifespan_runs_from_start_http_to_stop_http():
    async def go():
        events: list[str] = []
        server = lifespan_server(events)
        url = await server.start_http("127.0.0.1", 0)
        try:
            assert events == ["enter life"]
            async with Client.http(url) as client:
                assert (await client.call_tool("db")).content[0].text == "connection 1"
            async with Client.in_memory(server) as client:  # a second holder, same lifespan
                assert (await client.call_tool("db")).content[0].text == "connection 1"
            assert events == ["enter life"]
        finally:
            await server.stop_http()
        assert events == ["enter life", "exit"]

    run(go())


def test_a_failing_lifespan_fails_the_start_and_holds_nothing():
    async def go():
        events: list[str] = []

        @contextlib.asynccontextmanager
        async def lifespan(server: Server):
            events.append("enter")
            if len(events) <= 2:
                raise OSError("no database")
            yield "up"
            events.append("exit")

        server = Server("flaky", lifespan=lifespan)

        @server.tool
        def state(ctx: Context) -> str:
            value: str = ctx.lifespan
            return value

        with pytest.raises(OSError, match="no database"):
            await Client.connect_in_memory(server)
        with pytest.raises(OSError, match="no database"):
            await server.start_http("127.0.0.1", 0)
        # Nothing was held: the next client enters the lifespan anew, and ends it.
        async with Client.in_memory(server) as client:
            assert (await client.call_tool("state")).content[0].text == "up"
        assert events == ["enter", "enter", "enter", "exit"]

    run(go())


def test_a_bare_async_generator_is_a_lifespan_and_ctx_lifespan_is_none_without_one():
    async def go():
        seen: list[str] = []

        async def lifespan(server: Server):
            yield "ready"
            seen.append("done")

        server = Server("bare", lifespan=lifespan)
        plain = Server("plain")
        for s in (server, plain):
            @s.tool
            def state(ctx: Context) -> Optional[str]:
                value: Optional[str] = ctx.lifespan
                return value

        async with Client.in_memory(server) as client:
            assert (await client.call_tool("state")).structured_content == {"result": "ready"}
        async with Client.in_memory(plain) as client:
            assert (await client.call_tool("state")).structured_content == {"result": None}
        assert seen == ["done"]

    run(go())


def test_the_lifespan_runs_around_serve_stdio(tmp_path):
    log = tmp_path / "events.txt"
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(f"""
        import contextlib
        from oxmcp import Context, Server

        LOG = {str(log)!r}

        def note(text):
            with open(LOG, "a") as f:
                f.write(text + "\\n")

        @contextlib.asynccontextmanager
        async def lifespan(server):
            note("enter")
            yield "from the lifespan"
            note("exit")

        server = Server("stdio-life", lifespan=lifespan)

        @server.tool
        def value(ctx: Context) -> str:
            return ctx.lifespan

        server.run()
    """))

    async def go():
        async with Client.stdio(sys.executable, [str(script)]) as client:
            assert (await client.call_tool("value")).content[0].text == "from the lifespan"
            assert log.read_text() == "enter\n"

    run(go())
    deadline = time.time() + 10
    while log.read_text() != "enter\nexit\n" and time.time() < deadline:
        time.sleep(0.05)
    assert log.read_text() == "enter\nexit\n", "stdin closed: serve_stdio returned and the lifespan ended"


# -- structured results of plain values ----------------------------------------------------------


class Point(BaseModel):
    x: int
    y: int


def test_plain_return_values_are_structured_as_result():
    server = Server("plain-values")

    @server.tool
    def count(n: int) -> int:
        return n

    @server.tool
    def name() -> str:
        return "Ada"

    @server.tool
    async def evens(n: int) -> list[int]:
        return list(range(0, n, 2))

    @server.tool
    def yes() -> bool:
        return True

    @server.tool
    def half(n: int) -> float:
        return n / 2

    @server.tool
    def maybe(n: int) -> Optional[int]:
        return n or None

    @server.tool
    def points() -> list[Point]:
        return [Point(x=1, y=2)]

    @server.tool(structured_output=False)
    def legacy() -> int:
        return 7

    @server.tool
    def blocks() -> list:  # type: ignore[type-arg]  # untyped items may be content blocks: as before
        return ["a", "b"]

    async def go():
        async with Client.in_memory(server) as client:
            schemas = {t.name: t.output_schema for t in await client.list_tools()}
            for tool, kind in (("count", "integer"), ("name", "string"), ("evens", "array"), ("yes", "boolean"),
                               ("half", "number")):
                schema = schemas[tool]
                assert schema is not None, tool
                assert schema["type"] == "object" and schema["required"] == ["result"], tool
                assert schema["properties"]["result"]["type"] == kind, tool
            assert schemas["evens"] is not None and schemas["points"] is not None
            assert schemas["evens"]["properties"]["result"]["items"] == {"type": "integer"}
            assert schemas["points"]["properties"]["result"]["items"] == {"$ref": "#/$defs/Point"}
            assert schemas["points"]["$defs"]["Point"]["required"] == ["x", "y"]
            assert schemas["legacy"] is None and schemas["blocks"] is None

            for tool, args, value, texts in (("count", {"n": 3}, 3, ["3"]), ("name", {}, "Ada", ["Ada"]),
                                             ("evens", {"n": 5}, [0, 2, 4], ["0", "2", "4"]),
                                             ("yes", {}, True, ["true"]), ("half", {"n": 3}, 1.5, ["1.5"]),
                                             ("maybe", {"n": 0}, None, []),
                                             ("points", {}, [{"x": 1, "y": 2}], ['{"x":1,"y":2}'])):
                r = await client.call_tool(tool, args)
                assert not r.is_error, (tool, r)
                assert r.structured_content == {"result": value}, tool
                assert [b.text for b in r.content] == texts, "the text content is still there"

            r = await client.call_tool("legacy")
            assert r.structured_content is None and r.content[0].text == "7"
            r = await client.call_tool("blocks")
            assert r.structured_content is None and [b.text for b in r.content] == ["a", "b"]

    run(go())
