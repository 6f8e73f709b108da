"""Light JSON objects with attribute access in snake_case (``params.requested_schema``
reads ``requestedSchema``): what :meth:`Client.request` returns, and what the client's
handlers and a handler's :class:`Context` receive from the peer. The named client calls
return typed models instead (:mod:`oxmcp.types`)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1024)  # attribute names are few; this runs on every attribute read
def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


class McpObject(dict[str, Any]):
    """A JSON object from the protocol: a ``dict`` with attribute access.

    Fields win over dict methods of the same name (``completion.values`` is the field);
    the methods stay reachable as ``dict.values(obj)``. A missing field reads as ``None``.
    """

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("_"):
            for key in (name, _camel(name)):
                if dict.__contains__(self, key):
                    return wrap(dict.__getitem__(self, key))
        return super().__getattribute__(name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return None

    def __repr__(self) -> str:
        return f"McpObject({dict.__repr__(self)})"


def wrap(value: Any) -> Any:
    """Wraps nested dicts (and dicts in lists) as :class:`McpObject`."""
    if isinstance(value, dict) and not isinstance(value, McpObject):
        return McpObject(value)
    if isinstance(value, list):
        return [wrap(v) for v in value]
    return value
