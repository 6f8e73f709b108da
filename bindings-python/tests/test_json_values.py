"""Python values crossing as JSON (request arguments, handler results): the binding writes
the plain types itself and leaves the rest to ``json.dumps``, and either way the peer reads
the same JSON as ``json.dumps`` would have given it."""

import enum
import json
import logging
import math
from typing import Any

import pytest

from conftest import run
from oxmcp import Client, InvalidInput, McpError, Message, Server, ToolResult


class Level(enum.IntEnum):
    HIGH = 3


def echo_server() -> Server:
    server = Server("values", version="1.0.0")

    @server.tool(input_schema={"type": "object"})
    async def args(**kwargs: Any) -> str:
        """Echoes its arguments as JSON text (sorted keys)."""
        return json.dumps(kwargs, sort_keys=True, ensure_ascii=False)

    @server.tool(input_schema={"type": "object"})
    async def structured(**kwargs: Any) -> dict[str, Any]:
        """Returns its arguments as its structured result."""
        return kwargs

    return server


VALUES: dict[str, Any] = {
    "text": "é ☃ \u2028 \"quoted\" back\\slash\n\t\x01 \U0001f600",
    "numbers": [0, -1, 2**63 - 1, -(2**63), 2**70, 1.5, -0.0, 1e300, 1e-300],
    "flags": [True, False, None],
    "tuple": (1, "two", [3]),
    "nested": {"a": {"b": [{"c": []}, {}]}},
    "enum": Level.HIGH,  # an int subclass: json.dumps decides
    "int_keys": {1: "one"},  # a non-str key: json.dumps decides
}


def test_arguments_and_results_cross_as_json_dumps_would_write_them():
    expected = json.loads(json.dumps(VALUES))

    async def go():
        async with Client.in_memory(echo_server()) as client:
            got = await client.call_tool("args", VALUES)
            assert json.loads(got.content[0].text) == expected
            back = await client.call_tool("structured", VALUES)
            assert back.structured_content == expected

    run(go())


@pytest.mark.parametrize("bad", [float("nan"), math.inf, object()])
def test_arguments_that_are_not_json_raise_before_anything_is_sent(bad: Any):
    async def go():
        async with Client.in_memory(echo_server()) as client:
            with pytest.raises((ValueError, TypeError)):
                await client.call_tool("args", {"x": bad})
            # The connection is unharmed.
            assert json.loads((await client.call_tool("args", {"x": 1})).content[0].text) == {"x": 1}

    run(go())


def nested(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


def test_nesting_crosses_up_to_the_engines_limit_and_is_refused_clearly_beyond():
    async def go():
        async with Client.in_memory(echo_server()) as client:
            got = await client.call_tool("args", {"deep": nested(100)})
            assert json.loads(got.content[0].text) == {"deep": nested(100)}
            # Deeper than the engine reads (and than the binding writes itself): refused
            # with a clear error, and the connection goes on.
            with pytest.raises(InvalidInput, match="recursion limit"):
                await client.call_tool("args", {"deep": nested(300)})
            assert json.loads((await client.call_tool("args", {"x": 1})).content[0].text) == {"x": 1}

    run(go())


def test_a_result_that_is_not_json_is_the_handlers_failure_logged_and_masked(caplog: pytest.LogCaptureFixture):
    """Written inside the handler's ``finish``: the failure goes where a raising handler's
    goes (logged with its traceback, masked when asked), not out as the writer's message."""

    def make(mask: bool) -> Server:
        server = Server("bad", version="1.0.0", mask_error_details=mask)

        @server.tool()
        async def nan() -> dict[str, float]:
            return {"x": float("nan")}

        @server.tool()
        async def opaque() -> ToolResult:
            return ToolResult(content=["x"], structured_content={"when": object()})

        @server.prompt()
        def odd() -> list[Message]:
            return [Message("user", "hi")]

        @server.completion()
        def complete(ref: Any, argument: Any, context: Any) -> list[Any]:
            return [object()]

        return server

    async def go():
        async with Client.in_memory(make(True)) as client:
            for tool in ("nan", "opaque"):
                result = await client.call_tool(tool, {})
                assert result.is_error and result.content[0].text == f"internal error in tool {tool!r}"
            with pytest.raises(McpError, match="internal error in completion"):
                await client.complete({"type": "ref/prompt", "name": "odd"}, "x", "")
        with caplog.at_level(logging.ERROR, logger="oxmcp"):
            async with Client.in_memory(make(False)) as client:
                result = await client.call_tool("opaque", {})
                assert result.is_error and "not JSON serializable" in result.content[0].text
        assert any("'opaque' failed" in r.getMessage() and r.exc_info for r in caplog.records)

    run(go())
