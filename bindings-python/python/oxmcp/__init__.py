"""oxmcp: Model Context Protocol servers and clients for Python, on the oxmcp Rust engine.

The engine (JSON-RPC, request correlation, timeouts, progress, cancellation, stdio and
Streamable HTTP transports, JSON Schema validation) is Rust; this package is the Python
API around it.
"""

import atexit as _atexit

from . import _oxmcp
from ._auth import OAuth
from ._client import Client
from ._content import Audio, EmbeddedResource, Image, ResourceLink, Text, ToolResult
from ._context import Context
from ._errors import (CapabilityMissing, ConnectionClosed, HandlerError, InvalidInput, McpError, ProtocolError,
                      RequestCancelled, RequestTimeout, TransportError, Unauthorized)
from ._model import McpObject
from ._server import Message, Server

__version__ = _oxmcp.__version__

# Stop the engine's threads before the interpreter finalizes.
_atexit.register(_oxmcp._shutdown)

__all__ = [
    "Audio", "CapabilityMissing", "Client", "ConnectionClosed", "Context", "EmbeddedResource", "HandlerError", "Image",
    "InvalidInput", "McpError", "McpObject", "Message", "OAuth", "ProtocolError", "RequestCancelled", "RequestTimeout",
    "ResourceLink", "Server", "Text", "ToolResult", "TransportError", "Unauthorized", "__version__",
]
