"""Elicitation forms from pydantic models: the flat schema the specification allows a form
(strings, numbers, booleans, enums and multi-select enums, each field at the top level),
built from the model's fields instead of ``model_json_schema()``, whose ``$defs``, ``$ref``
and ``anyOf`` no client renders. A field no form can hold raises :class:`TypeError` naming
it, before anything is sent; the engine checks the result once more."""

from __future__ import annotations

import datetime
import enum
import functools
import types
import typing
from typing import Any

import annotated_types
import pydantic
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

_ALLOWED = "an elicitation form holds strings, numbers, booleans and (multi-select) enums, each at the top level"


@functools.lru_cache(maxsize=256)
def form_schema(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    """The ``requestedSchema`` for ``model``: one property per field (its alias if it has
    one), required unless it has a default or is ``Optional``.

    >>> class Booking(pydantic.BaseModel):
    ...     guests: int = pydantic.Field(ge=1, description="How many")
    ...     size: typing.Literal["small", "large"] = "small"
    >>> form_schema(Booking)["properties"]["size"]
    {'type': 'string', 'enum': ['small', 'large'], 'default': 'small'}
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, field in model.model_fields.items():
        key = field.alias or name
        try:
            properties[key], optional = _field(field)
        except TypeError as e:
            raise TypeError(f"{model.__name__}.{name}: {e}; {_ALLOWED}") from None
        if field.is_required() and not optional:
            required.append(key)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _field(field: FieldInfo) -> tuple[dict[str, Any], bool]:
    ann, optional = _unwrap_optional(field.annotation)
    schema = _kind(ann)
    for m in field.metadata:
        schema.update(_constraint(m, schema["type"]))
    if field.title:
        schema["title"] = field.title
    if field.description:
        schema["description"] = field.description
    if field.default not in (PydanticUndefined, None):
        schema["default"] = pydantic.TypeAdapter(ann).dump_python(field.default, mode="json")
    return schema, optional


def _unwrap_optional(ann: Any) -> tuple[Any, bool]:
    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(ann) if a is not type(None)]
        if len(rest) == 1 and len(rest) < len(typing.get_args(ann)):
            return rest[0], True
        raise TypeError(f"the union {ann} cannot be one form field")
    return ann, False


def _choices(ann: Any) -> list[str] | None:
    """The string values of an enum class or a ``Literal``; ``None`` for anything else."""
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        values = [m.value for m in ann]
    elif typing.get_origin(ann) is typing.Literal:
        values = list(typing.get_args(ann))
    else:
        return None
    if not all(isinstance(v, str) for v in values):
        raise TypeError(f"{ann} has values that are not strings")
    return values


def _kind(ann: Any) -> dict[str, Any]:
    choices = _choices(ann)
    if choices is not None:
        return {"type": "string", "enum": choices}
    if typing.get_origin(ann) in (list, set, frozenset):
        (item,) = typing.get_args(ann) or (Any,)
        choices = _choices(item)
        if choices is None:
            raise TypeError(f"{ann} is a list of what is not an enum (a form's only list is a multi-select enum)")
        return {"type": "array", "items": {"type": "string", "enum": choices}}
    if ann is bool:
        return {"type": "boolean"}
    if ann is int:
        return {"type": "integer"}
    if ann is float:
        return {"type": "number"}
    if ann is str:
        return {"type": "string"}
    if ann is datetime.datetime:
        return {"type": "string", "format": "date-time"}
    if ann is datetime.date:
        return {"type": "string", "format": "date"}
    if isinstance(ann, type) and ann.__name__ == "EmailStr":
        return {"type": "string", "format": "email"}
    if isinstance(ann, type) and issubclass(ann, (pydantic.AnyUrl,)):
        return {"type": "string", "format": "uri"}
    raise TypeError(f"{getattr(ann, '__name__', ann)} cannot be a form field")


def _constraint(m: Any, kind: str) -> dict[str, Any]:
    if kind == "string" and isinstance(m, annotated_types.MinLen):
        return {"minLength": m.min_length}
    if kind == "string" and isinstance(m, annotated_types.MaxLen):
        return {"maxLength": m.max_length}
    if kind in ("integer", "number"):
        if isinstance(m, annotated_types.Ge):
            return {"minimum": m.ge}
        if isinstance(m, annotated_types.Le):
            return {"maximum": m.le}
        if kind == "integer" and isinstance(m, annotated_types.Gt):
            return {"minimum": m.gt + 1}
        if kind == "integer" and isinstance(m, annotated_types.Lt):
            return {"maximum": m.lt - 1}
    if kind == "array" and isinstance(m, annotated_types.MinLen):
        return {"minItems": m.min_length}
    if kind == "array" and isinstance(m, annotated_types.MaxLen):
        return {"maxItems": m.max_length}
    raise TypeError(f"the constraint {m!r} has no form equivalent")
