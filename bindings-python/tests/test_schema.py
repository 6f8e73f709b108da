"""Schemas from signatures (pydantic) and the engine's validator."""

import dataclasses
import enum
import json
from typing import Annotated, List, Literal, Optional

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from oxmcp import Context, Image, ToolResult, _oxmcp
from oxmcp._schema import Signature


class Color(enum.Enum):
    RED = "red"


class Model(BaseModel):
    n: int


@dataclasses.dataclass
class DC:
    w: float


class TD(TypedDict):
    a: str


def f(a: int, b: Annotated[str, Field(description="the b")], c: Optional[float] = None, d: Literal["x", "y"] = "x",  # type: ignore[empty-body]
      e: List[str] = [], color: Color = Color.RED, m: Optional[Model] = None, dc: Optional[DC] = None,
      td: Optional[TD] = None, ctx: Optional[Context] = None) -> Model:
    """Summary line.

    Args:
        a: the a
        b: ignored, Annotated wins
    """


def test_input_schema_from_signature():
    sig = Signature(f, Context)
    s = sig.input_schema()
    assert s["type"] == "object"
    assert s["required"] == ["a", "b"]
    props = s["properties"]
    assert props["a"] == {"description": "the a", "title": "A", "type": "integer"}
    assert props["b"]["description"] == "the b"
    assert props["d"]["enum"] == ["x", "y"] and props["d"]["default"] == "x"
    assert props["e"]["items"] == {"type": "string"}
    assert "ctx" not in props, "the context parameter is not an argument"
    defs = json.dumps(s.get("$defs", {}))
    for name in ("Color", "Model", "DC", "TD"):
        assert name in defs
    assert sig.context_param == "ctx"


def test_output_schema_for_data_returns():
    schema = Signature(f, Context).output_schema()
    assert schema is not None
    assert schema["properties"]["n"]["type"] == "integer"
    assert not Signature(f, Context).wraps_result

    def g() -> int: ...  # type: ignore[empty-body]
    def h() -> Optional[str]: ...
    def k() -> dict: ...  # type: ignore[empty-body, type-arg]
    def r() -> ToolResult: ...  # type: ignore[empty-body]
    def i() -> Image: ...  # type: ignore[empty-body]
    def images() -> List[Image]: ...  # type: ignore[empty-body]
    def blocks() -> list: ...  # type: ignore[empty-body, type-arg]
    def untyped() -> List[object]: ...  # type: ignore[empty-body]
    def raw() -> bytes: ...  # type: ignore[empty-body]
    def nothing() -> None: ...
    def models() -> List[Model]: ...  # type: ignore[empty-body]
    # Other JSON data is the "result" property of an object.
    assert Signature(g, Context).output_schema() == {"type": "object", "properties": {"result": {"type": "integer"}},
                                                     "required": ["result"]}
    assert Signature(g, Context).wraps_result
    schema = Signature(h, Context).output_schema()
    assert schema is not None
    assert schema["properties"]["result"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    wrapped = Signature(models, Context).output_schema()
    assert wrapped is not None
    assert wrapped["properties"]["result"]["items"] == {"$ref": "#/$defs/Model"} and "Model" in wrapped["$defs"]
    # What content helpers, bytes and untyped lists send is no schema's business.
    for fn in (r, i, images, blocks, untyped, raw, nothing):
        assert Signature(fn, Context).output_schema() is None, fn.__name__
    schema = Signature(k, Context).output_schema()
    assert schema is not None
    assert schema["type"] == "object"


def test_arguments_are_rebuilt_as_python_values():
    sig = Signature(f, Context)
    kw = sig.arguments(json.dumps({"a": 1, "b": "x", "m": {"n": 5}, "dc": {"w": 2.5}, "color": "red"}))
    assert isinstance(kw["m"], Model) and kw["m"].n == 5
    assert isinstance(kw["dc"], DC) and kw["dc"].w == 2.5
    assert kw["color"] is Color.RED and kw["c"] is None


def test_star_args_are_refused():
    def bad(*args): ...
    with pytest.raises(TypeError):
        Signature(bad, Context)


def test_the_engine_validator_names_the_field():
    schema = json.dumps(Signature(f, Context).input_schema())
    assert _oxmcp.validate_json(schema, json.dumps({"a": 1, "b": "x"})) is None
    problems = _oxmcp.validate_json(schema, json.dumps({"a": "one"}))
    assert problems is not None
    assert "/a" in problems and '"b"' in problems


def test_an_explicit_input_schema_is_sent_as_is_and_arguments_arrive_as_json():
    import asyncio
    from conftest import run
    from oxmcp import Client, Server
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": False}
    server = Server("explicit")

    @server.tool(input_schema=schema)
    def double(**arguments) -> str:
        return str(arguments["n"] * 2)

    async def main():
        url = await server.start_http("localhost", 0)
        try:
            async with Client.http(url) as c:
                tools = await c.list_tools()
                assert dict(tools[0].input_schema) == schema
                assert (await c.call_tool("double", {"n": 21})).content[0].text == "42"
                assert (await c.call_tool("double", {"n": 1, "extra": 2})).is_error, "the engine applies the schema"
        finally:
            await server.stop_http()
    run(main())
