"""Elicitation forms from pydantic models: the schema sent is the flat subset the
specification allows (checked against its schema.json), the answer comes back as the
model, and a model no form can hold is refused by name before anything reaches the client
(as is a hand-written schema, by the engine)."""

import datetime
import enum
import json
import os
from pathlib import Path
from typing import Any, Literal, Optional

import jsonschema  # type: ignore[import-untyped]
import pydantic
import pytest
from conftest import run

from oxmcp import Client, Context, Server


class Size(str, enum.Enum):
    SMALL = "small"
    LARGE = "large"


class Booking(pydantic.BaseModel):
    guests: int = pydantic.Field(ge=1, le=12, description="How many people")
    size: Size
    note: Optional[str] = None
    day: datetime.date = datetime.date(2026, 12, 24)
    extras: list[Literal["cake", "music"]] = []
    vip: bool = False


class Address(pydantic.BaseModel):
    city: str


class Nested(pydantic.BaseModel):
    name: str
    address: Address


def spec_schema() -> dict[str, Any]:
    """The specification's schema.json (as the Rust schema tests find it: $OXMCP_SPEC_DIR, else
    ../shared/spec beside the checkout); skipped where it is absent, except under CI."""
    spec = Path(os.environ.get("OXMCP_SPEC_DIR") or Path(__file__).resolve().parents[2].parent / "shared" / "spec")
    path = spec / "2025-11-25" / "schema.json"
    if not path.is_file() and os.environ.get("CI", "").lower() in ("", "0", "false"):
        pytest.skip(f"no specification schema at {path}")
    schema: dict[str, Any] = json.loads(path.read_text())
    return schema


def server() -> Server:
    s = Server("forms")

    @s.tool()
    async def book(ctx: Context) -> str:
        answer = await ctx.elicit("Your booking?", Booking)
        b = answer.content
        return f"{b.guests} {b.size.value} {b.note} {b.day} {b.extras} {b.vip}"

    @s.tool()
    async def nested(ctx: Context) -> str:
        await ctx.elicit("Who?", Nested)
        return "sent"

    @s.tool()
    async def raw(ctx: Context) -> str:
        await ctx.elicit("Which?", {"type": "object", "properties": {"c": {"$ref": "#/$defs/C"}}})
        return "sent"

    return s


BOOKING_FORM = {
    "type": "object",
    "properties": {
        "guests": {"type": "integer", "minimum": 1, "maximum": 12, "description": "How many people"},
        "size": {"type": "string", "enum": ["small", "large"]},
        "note": {"type": "string"},
        "day": {"type": "string", "format": "date", "default": "2026-12-24"},
        "extras": {"type": "array", "items": {"type": "string", "enum": ["cake", "music"]}, "default": []},
        "vip": {"type": "boolean", "default": False},
    },
    "required": ["guests", "size"],
}


def test_a_model_becomes_the_flat_form_the_specification_allows() -> None:
    seen: list[dict[str, Any]] = []

    async def elicit(params: Any) -> dict[str, Any]:
        seen.append(dict(params))
        return {"action": "accept", "content": {"guests": 3, "size": "large", "extras": ["cake"]}}

    async def go() -> None:
        for era in ("session", "stateless"):
            async with Client.in_memory(server(), elicitation=elicit, era=era) as client:
                r = await client.call_tool("book")
                assert r.content[0].text == "3 large None 2026-12-24 ['cake'] False", r
                r = await client.call_tool("nested")
                assert r.is_error and "Nested.address: Address cannot be a form field" in r.content[0].text, r
                r = await client.call_tool("raw")
                assert r.is_error and "requestedSchema.properties.c" in r.content[0].text, r
        assert len(seen) == 2  # one per era: neither refused form reached the client

    run(go())
    assert json.loads(json.dumps(seen[0]["requestedSchema"])) == BOOKING_FORM


def test_the_form_validates_against_the_specification() -> None:
    spec = spec_schema()
    form = dict(spec["$defs"]["ElicitRequestFormParams"]["properties"]["requestedSchema"])
    jsonschema.validate(BOOKING_FORM, {**form, "$defs": spec["$defs"]})
    # The check has teeth: what model_json_schema() gives for the same model does not pass.
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(Booking.model_json_schema(), {**form, "$defs": spec["$defs"]})


def test_what_no_form_can_hold_is_named() -> None:
    from oxmcp._form import form_schema

    class Union_(pydantic.BaseModel):
        v: int | str

    class Tags(pydantic.BaseModel):
        tags: list[str]

    with pytest.raises(TypeError, match="Nested.address: Address cannot be a form field"):
        form_schema(Nested)
    with pytest.raises(TypeError, match="Union_.v: the union"):
        form_schema(Union_)
    with pytest.raises(TypeError, match="Tags.tags: .* multi-select enum"):
        form_schema(Tags)
