"""The exceptions of oxmcp: one hierarchy rooted at :class:`McpError`.

Every engine error kind maps to one class here (see ``src/errors.rs``). ``McpError``
itself is a JSON-RPC error from the peer, or one a handler raises to control exactly
what the peer receives::

    raise McpError(-32602, "unknown city", {"city": name})
"""

from __future__ import annotations

import json
from typing import Any, Optional


class McpError(Exception):
    """A JSON-RPC error (code, message, data), or the base of every oxmcp error.

    Each class's ``kind`` is the name of the engine error kind it stands for (``"rpc"``
    here, ``"timeout"`` for :class:`RequestTimeout`, ...: ``oxmcp::ErrorKind::name``)."""

    kind: str = "rpc"

    def __init__(self, code: Optional[int], message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def __str__(self) -> str:
        return self.message if self.code is None else f"{self.message} (JSON-RPC error {self.code})"


class RequestTimeout(McpError, TimeoutError):
    """The request got no response (or progress) in time. A local timeout, not a peer error."""

    kind = "timeout"


class RequestCancelled(McpError):
    """The request was cancelled."""

    kind = "cancelled"


class ConnectionClosed(McpError, ConnectionError):
    """The connection is gone; for a child process the message holds its exit status and stderr tail."""

    kind = "closed"


class TransportError(McpError, ConnectionError):
    """Reading or writing the transport failed, or the server could not be started."""

    kind = "transport"


class ProtocolError(McpError):
    """The peer broke the protocol."""

    kind = "protocol"


class InvalidInput(McpError, ValueError):
    """An argument was unusable (bad JSON, unknown name, invalid schema)."""

    kind = "invalid_input"


class CapabilityMissing(McpError):
    """The peer did not declare the capability the call needs."""

    kind = "capability_missing"


class HandlerError(McpError):
    """A handler raised an exception."""

    kind = "handler"


class Unauthorized(McpError):
    """Authorization failed: the server refused the credentials and no new ones could be obtained."""

    kind = "unauthorized"


_BY_NAME = {cls.__name__: cls for cls in (McpError, RequestTimeout, RequestCancelled, ConnectionClosed,
                                          TransportError, ProtocolError, InvalidInput, CapabilityMissing,
                                          HandlerError, Unauthorized)}


def _from_native(class_name: str, code: Optional[int], message: str, data_json: Optional[str]) -> McpError:
    """Called by the native module to build the exception for an engine error."""
    data = json.loads(data_json) if data_json is not None else None
    return _BY_NAME.get(class_name, McpError)(code, message, data)


def _to_native(exc: BaseException) -> Optional[str]:
    """The JSON-RPC error object for an ``McpError`` with a code; ``None`` otherwise."""
    if isinstance(exc, McpError) and exc.code is not None:
        return json.dumps({"code": exc.code, "message": exc.message, **({"data": exc.data} if exc.data is not None else {})})
    return None
