"""A handler that lets through what oxmcp's own calls raise (here: connecting to a server
that is not there) failed: the server logs it, masks it when told to, and answers a tool
call with an isError result, not with the other peer's JSON-RPC error. An McpError the
handler raises itself (or a subclass of its own) is its deliberate answer, as before."""

import logging

import pytest
from conftest import free_port, run

from oxmcp import Client, McpError, Server


class QuotaExceeded(McpError):
    """An application's own error class."""


def nesting_server(mask: bool) -> Server:
    server = Server("nesting", mask_error_details=mask)
    unreachable = f"http://127.0.0.1:{free_port()}/mcp"

    @server.tool
    async def forward(text: str) -> str:
        async with Client.http(unreachable) as upstream:
            return (await upstream.call_tool("echo", {"text": text})).content[0].text

    @server.prompt
    async def summary() -> str:
        async with Client.http(unreachable):
            return "never"

    @server.tool
    def quota() -> str:
        raise QuotaExceeded(-32050, "quota exceeded")

    return server


def test_a_nested_calls_error_is_a_logged_failure(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="oxmcp")

    async def go() -> None:
        async with Client.in_memory(nesting_server(mask=False)) as client:
            r = await client.call_tool("forward", {"text": "hi"})
            assert r.is_error, "a tool's failure, not the upstream's JSON-RPC error"
            assert "127.0.0.1" in r.content[0].text
            with pytest.raises(McpError) as e:
                await client.get_prompt("summary")
            assert e.value.code == -32603
            with pytest.raises(McpError) as e:
                await client.call_tool("quota")
            assert (e.value.code, e.value.message) == (-32050, "quota exceeded")

    run(go())
    logged = [r.getMessage() for r in caplog.records if r.name == "oxmcp"]
    assert logged == ["tool 'forward' failed", "prompt 'summary' failed"], "the deliberate one is not logged"


def test_a_nested_calls_error_is_masked_when_asked(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="oxmcp")

    async def go() -> None:
        async with Client.in_memory(nesting_server(mask=True)) as client:
            r = await client.call_tool("forward", {"text": "hi"})
            assert r.is_error and r.content[0].text == "internal error in tool 'forward'"
            with pytest.raises(McpError) as e:
                await client.get_prompt("summary")
            assert (e.value.code, e.value.message) == (-32603, "internal error in prompt 'summary'")
            with pytest.raises(McpError, match="quota exceeded"):
                await client.call_tool("quota")

    run(go())
    assert "127.0.0.1" in caplog.text, "the log keeps what the client does not get"
