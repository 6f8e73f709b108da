"""Turning what a handler returns into MCP content, and the helpers that say exactly what
to send (:class:`Image`, :class:`Audio`, :class:`ToolResult`, ...)."""

from __future__ import annotations

import base64
import dataclasses
import json
from typing import Any, Optional

import pydantic


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _sniff_image(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"


class Content:
    """Base of explicit content blocks; ``to_mcp()`` is the wire form."""

    def to_mcp(self) -> dict:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclasses.dataclass
class Text(Content):
    """A text block."""

    text: str

    def to_mcp(self) -> dict:
        return {"type": "text", "text": self.text}


@dataclasses.dataclass
class Image(Content):
    """An image block from bytes (the MIME type is detected when not given)."""

    data: bytes
    mime_type: Optional[str] = None

    def to_mcp(self) -> dict:
        return {"type": "image", "data": _b64(self.data), "mimeType": self.mime_type or _sniff_image(self.data)}


@dataclasses.dataclass
class Audio(Content):
    """An audio block from bytes."""

    data: bytes
    mime_type: str = "audio/wav"

    def to_mcp(self) -> dict:
        return {"type": "audio", "data": _b64(self.data), "mimeType": self.mime_type}


@dataclasses.dataclass
class EmbeddedResource(Content):
    """A resource embedded in a result: text, or bytes as a blob."""

    uri: str
    text: Optional[str] = None
    blob: Optional[bytes] = None
    mime_type: Optional[str] = None

    def to_mcp(self) -> dict:
        res: dict = {"uri": self.uri}
        if self.blob is not None:
            res["blob"] = _b64(self.blob)
        else:
            res["text"] = self.text or ""
        if self.mime_type:
            res["mimeType"] = self.mime_type
        return {"type": "resource", "resource": res}


@dataclasses.dataclass
class ResourceLink(Content):
    """A link to a resource the client can read."""

    uri: str
    name: str
    mime_type: Optional[str] = None

    def to_mcp(self) -> dict:
        out = {"type": "resource_link", "uri": self.uri, "name": self.name}
        if self.mime_type:
            out["mimeType"] = self.mime_type
        return out


@dataclasses.dataclass
class ToolResult:
    """A tool result said exactly: content blocks, structured content, error flag."""

    content: list = dataclasses.field(default_factory=list)
    structured_content: Any = None
    is_error: bool = False

    def to_mcp(self) -> dict:
        out: dict = {"content": [to_block(c) for c in self.content]}
        if self.structured_content is not None:
            out["structuredContent"] = self.structured_content
        if self.is_error:
            out["isError"] = True
        return out


def jsonable(value: Any) -> Any:
    """A value as plain JSON data (pydantic models and dataclasses included)."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    return pydantic.TypeAdapter(type(value)).dump_python(value, mode="json") if dataclasses.is_dataclass(value) else value


def to_block(value: Any) -> dict:
    """One value as one content block."""
    if isinstance(value, Content):
        return value.to_mcp()
    if isinstance(value, str):
        return {"type": "text", "text": value}
    if isinstance(value, (bytes, bytearray)):
        return Image(bytes(value)).to_mcp()
    return {"type": "text", "text": json.dumps(jsonable(value), ensure_ascii=False)}


def tool_result(value: Any) -> Any:
    """What a tool returned, as the JSON value it crosses to the engine as: ``ToolResult``
    is a whole result, content objects and bytes (an image) are content blocks, models and
    dataclasses their JSON data, lists item by item. What that becomes (a string one text
    block, a dict structured content, a list of strings one block each...) is the engine's
    one rule for every host (``core/src/host/result.rs``)."""
    if type(value) is str or value is None:  # the common cases first
        return value
    if isinstance(value, ToolResult):
        return value.to_mcp()
    if isinstance(value, (list, tuple)):
        return [_item(v) for v in value]
    return _item(value)


def _item(value: Any) -> Any:
    if isinstance(value, Content):
        return value.to_mcp()
    if isinstance(value, (bytes, bytearray)):
        return Image(bytes(value)).to_mcp()
    return jsonable(value)
