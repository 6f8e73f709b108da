"""Schemas from Python signatures, with pydantic: a tool's input schema from its parameters
(types, defaults, ``Annotated[..., Field(description=...)]`` or docstring descriptions),
its output schema from its return annotation, and argument conversion back into Python
values. The engine validates arguments against the input schema before Python runs."""

from __future__ import annotations

import collections.abc
import functools
import inspect
import re
import types
import typing
from typing import Any, Callable, Optional

import pydantic
from pydantic.fields import FieldInfo


def doc_summary(fn: Callable) -> Optional[str]:
    """The docstring without its parameter section."""
    doc = inspect.getdoc(fn)
    if not doc:
        return None
    lines = []
    for line in doc.splitlines():
        if re.match(r"^\s*(Args|Arguments|Parameters|Returns|Raises)\s*:\s*$", line) or line.strip().startswith(":param"):
            break
        lines.append(line)
    return "\n".join(lines).strip() or None


def doc_params(fn: Callable) -> dict:
    """Parameter descriptions from a Google-style ``Args:`` section or ``:param x:`` lines."""
    doc = inspect.getdoc(fn) or ""
    out = {}
    for m in re.finditer(r"^\s*:param\s+(\w+)\s*:\s*(.+)$", doc, re.M):
        out[m.group(1)] = m.group(2).strip()
    section = re.search(r"^\s*(?:Args|Arguments|Parameters)\s*:\s*\n((?:[ \t]+.+\n?)+)", doc, re.M)
    if section:
        for m in re.finditer(r"^\s+(\w+)(?:\s*\([^)]*\))?\s*:\s*(.+)$", section.group(1), re.M):
            out.setdefault(m.group(1), m.group(2).strip())
    return out


class Signature:
    """A handler's signature as MCP sees it."""

    def __init__(self, fn: Callable, context_type: type, explicit_schema: bool = False) -> None:
        self.fn = fn
        hints = typing.get_type_hints(fn, include_extras=True)
        descriptions = doc_params(fn)
        self.context_param: Optional[str] = None
        fields: dict = {}
        for name, p in inspect.signature(fn).parameters.items():
            ann = hints.get(name, Any)
            if _is_context(ann, context_type):
                self.context_param = name
                continue
            if p.kind == p.VAR_KEYWORD and explicit_schema:
                continue  # the given schema describes the arguments; they arrive as **kwargs
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"{fn.__name__}: *args and **kwargs cannot be described as MCP arguments")
            default: Any = ... if p.default is inspect.Parameter.empty else p.default
            if name in descriptions and not _has_description(ann):
                fields[name] = (ann, pydantic.Field(default, description=descriptions[name]))
            else:
                fields[name] = (ann, default)
        self.model = pydantic.create_model(f"{fn.__name__}_arguments", **fields)
        self.returns = hints.get("return", inspect.Signature.empty)

    def input_schema(self) -> dict:
        schema = self.model.model_json_schema()
        schema.pop("title", None)
        schema.setdefault("properties", {})
        return schema

    def output_schema(self) -> Optional[dict]:
        """The tool's output schema from the return annotation: the annotation's own when it
        is an object (models, dataclasses, TypedDicts, dicts); for other JSON data (``int``,
        ``str``, ``list[...]``, ...) an object whose ``result`` property is that data (see
        :attr:`wraps_result`); ``None`` without an annotation, for ``None``/``Any``, and for
        content helpers and bytes, which say themselves what they send."""
        schema = self._return_schema
        if schema is None or not self.wraps_result:
            return schema
        schema = dict(schema)
        defs = schema.pop("$defs", None)  # the refs ("#/$defs/...") point at the root
        wrapped: dict = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
        if defs:
            wrapped["$defs"] = defs
        return wrapped

    @property
    def wraps_result(self) -> bool:
        """Whether the output schema wraps the returned value as ``{"result": value}``."""
        schema = self._return_schema
        return schema is not None and schema.get("type") != "object"

    @functools.cached_property
    def _return_schema(self) -> Optional[dict]:
        """The return annotation's JSON Schema, when it describes JSON data."""
        ret = self.returns
        if ret in (inspect.Signature.empty, None, type(None), Any) or not _is_data(ret):
            return None
        try:
            schema = pydantic.TypeAdapter(ret).json_schema()
        except Exception:
            return None
        if "$ref" in schema:
            return None  # a self-referencing model: no top-level type to wrap or send
        schema.pop("title", None)
        return schema

    def arguments(self, args_json: str) -> dict:
        """Validated keyword arguments (nested models and dataclasses rebuilt)."""
        values = self.model.model_validate_json(args_json)
        return {name: getattr(values, name) for name in self._field_names}

    @functools.cached_property
    def _field_names(self) -> tuple[str, ...]:
        # Read once: ``model_fields`` on the class is a computed property in recent pydantic.
        return tuple(self.model.model_fields)


def _is_context(ann: Any, context_type: type) -> bool:
    """``Context``, ``Optional[Context]`` or ``Annotated[Context, ...]``."""
    if typing.get_origin(ann) is typing.Annotated:
        ann = typing.get_args(ann)[0]
    if typing.get_origin(ann) is typing.Union:
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        ann = args[0] if len(args) == 1 else ann
    return isinstance(ann, type) and issubclass(ann, context_type)


def _has_description(ann: Any) -> bool:
    if typing.get_origin(ann) is typing.Annotated:
        return any(isinstance(m, FieldInfo) and m.description for m in typing.get_args(ann)[1:])
    return False


# The containers whose items may be content blocks (a tool returns a list of blocks), and
# unions (of which each member may be returned).
_SEQUENCES = (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.Iterable)
_UNIONS = (typing.Union, getattr(types, "UnionType", typing.Union))  # X | Y from 3.10


def _is_data(ann: Any, top: bool = True) -> bool:
    """Whether what a tool returns under ``ann`` is JSON data: no content helper, bytes or
    ToolResult anywhere, and, at the top or as a list's items, no untyped ``object``/``Any``
    (a ``list[object]`` is a list of blocks). Inside a dict or model anything goes."""
    from ._content import Content, ToolResult
    if ann is Any or ann is object or ann in _SEQUENCES:  # a bare list: untyped items
        return not top
    if isinstance(ann, type) and issubclass(ann, (Content, ToolResult, bytes, bytearray)):
        return False
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is typing.Annotated:
        return _is_data(args[0], top)
    inner_top = top and (origin in _SEQUENCES or origin in _UNIONS)
    return all(_is_data(a, inner_top) for a in args if a is not Ellipsis)
