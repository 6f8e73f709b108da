"""Middleware around every request a Python server routes, and the server's other
runtime surface: removing prompts and resources, the HTTP request's headers, a handler
changing what the server offers (clients are told the lists changed)."""

import asyncio
from typing import Any

import pytest

from conftest import run
from oxmcp import Client, Context, McpError, Server


def make_server(log: list[str]) -> Server:
    server = Server("mw")

    @server.middleware
    async def outer(request, call_next):
        log.append(f"outer {request.method}")
        try:
            return await call_next()
        finally:
            log.append(f"outer done {request.method}")

    @server.middleware
    async def inner(request, call_next):
        log.append(f"inner {request.method}")
        if request.method == "tools/call":
            if request.params["name"] == "secret":
                raise McpError(-32001, "the middleware says no")
            params = dict(request.params, arguments={"text": request.params["arguments"]["text"].upper()})
            result = await call_next(params)
            result["_meta"] = {"seen_by": "inner"}
            return result
        return await call_next()

    @server.tool
    def echo(text: str) -> str:
        return text

    @server.tool
    def secret() -> str:
        return "leaked"

    return server


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_middleware_wraps_every_routed_request(era):
    async def go():
        log: list[str] = []
        async with Client.in_memory(make_server(log), era=era) as client:
            log.clear()
            r = await client.call_tool("echo", {"text": "quiet"})
            assert r.content[0].text == "QUIET", "the inner middleware changed the arguments"
            assert r.meta == {"seen_by": "inner"}, "and the result"
            assert log == ["outer tools/call", "inner tools/call", "outer done tools/call"]
            with pytest.raises(McpError) as refused:
                await client.call_tool("secret", {})
            assert refused.value.code == -32001
            log.clear()
            assert {t.name for t in await client.list_tools()} == {"echo", "secret"}
            assert "outer tools/list" in log

    run(go())


def test_middleware_must_be_async():
    with pytest.raises(TypeError):
        Server("x").middleware(lambda request, call_next: None)  # type: ignore[arg-type, return-value]


def test_prompts_and_resources_can_be_removed_and_handlers_see_http_headers():
    async def go():
        server = Server("rm")

        @server.prompt
        def hello() -> str:
            return "hi"

        @server.resource("memo://note")
        def note() -> str:
            return "a note"

        @server.tool
        def headers(ctx: Context) -> dict[str, Any]:
            return {"headers": ctx.headers}

        async with Client.in_memory(server) as client:
            assert [p.name for p in await client.list_prompts()] == ["hello"]
            assert server.remove_prompt("hello") and server.remove_resource("memo://note")
            assert not server.remove_prompt("hello")
            assert await client.list_prompts() == [] and await client.list_resources() == []
            r = await client.call_tool("headers", {})
            assert r.structured_content == {"headers": None}, "no HTTP, no headers"
        url = await server.start_http("127.0.0.1", 0)
        try:
            async with Client.http(url, headers={"X-Tenant": "blue"}) as client:
                result = await client.call_tool("headers", {})
                assert result.structured_content is not None
                seen = result.structured_content["headers"]
                assert seen["x-tenant"] == "blue"
        finally:
            await server.stop_http()

    run(go())


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_a_handler_that_changes_the_lists_tells_the_clients(era):
    async def go():
        server = Server("changing")

        @server.tool
        def old() -> str:
            return "old"

        @server.prompt
        def hello() -> str:
            return "hi"

        @server.tool
        def rearrange() -> str:  # a sync handler: on a worker thread
            server.remove_tool("old")
            server.remove_prompt("hello")

            @server.tool(name="new")
            def newer() -> str:
                return "new"

            return "done"

        methods: list[str] = []
        wanted = {"notifications/tools/list_changed", "notifications/prompts/list_changed"}
        async with Client.in_memory(server, era=era, on_notification=lambda method, params: methods.append(method)) as client:
            assert (await client.call_tool("rearrange")).content[0].text == "done"
            for _ in range(500):
                if wanted <= set(methods):
                    break
                await asyncio.sleep(0.02)
            assert wanted <= set(methods), methods
            assert sorted(t.name for t in await client.list_tools()) == ["new", "rearrange"]
            assert await client.list_prompts() == []

    run(go())


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_a_middleware_answers_by_itself_without_call_next(era):
    """Caching: the second call of a tool is answered from the middleware's cache, and the
    tool does not run again."""
    async def go():
        server = Server("cache")
        runs: list[int] = []
        cache: dict[str, Any] = {}

        @server.middleware
        async def cached(request, call_next):
            if request.method != "tools/call":
                return await call_next()
            key = repr(request.params.get("arguments"))
            if key not in cache:
                cache[key] = await call_next()
            return cache[key]

        @server.tool
        def square(n: int) -> int:
            runs.append(n)
            return n * n

        async with Client.in_memory(server, era=era) as client:
            assert (await client.call_tool("square", {"n": 3})).structured_content == {"result": 9}
            assert (await client.call_tool("square", {"n": 3})).structured_content == {"result": 9}
            assert (await client.call_tool("square", {"n": 4})).structured_content == {"result": 16}
        assert runs == [3, 4], "the cached call did not reach the tool"

    run(go())
