"""oxmcp: Model Context Protocol servers and clients for Python, on the oxmcp Rust engine.

The engine (JSON-RPC, request correlation, timeouts, progress, cancellation, stdio and
Streamable HTTP transports, JSON Schema validation) is Rust; this package is the Python
API around it.
"""

import atexit as _atexit

from . import _oxmcp, types
from ._asgi import HttpApp
from ._auth import OAuth
from ._client import Client, ConnectOptions, HttpOptions, StdioOptions
from ._content import Audio, EmbeddedResource, Image, ResourceLink, Text, ToolResult
from ._context import Context
from ._errors import (CapabilityMissing, ConnectionClosed, HandlerError, InvalidInput, McpError, ProtocolError,
                      RequestCancelled, RequestTimeout, TransportError, Unauthorized)
from ._model import McpObject
from ._server import Message, Middleware, Request, ServeOptions, Server
# The results of the client's calls; their parts (content blocks, ...) are in oxmcp.types.
from .types import (CallToolResult, Completion, Era, GetPromptResult, Implementation, LoadedSkill, LogLevel, Prompt,
                    ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities, Skill, Task, Tool, Transport)

__version__ = _oxmcp.__version__

# Stop the engine's threads before the interpreter finalizes.
_atexit.register(_oxmcp._shutdown)

__all__ = [
    "Audio", "CallToolResult", "CapabilityMissing", "Client", "Completion", "ConnectOptions", "ConnectionClosed",
    "Context", "EmbeddedResource", "Era", "GetPromptResult", "HandlerError", "HttpApp", "HttpOptions", "Image", "Implementation",
    "InvalidInput", "LoadedSkill", "LogLevel", "McpError", "McpObject", "Message", "Middleware", "OAuth", "Prompt", "ProtocolError",
    "ReadResourceResult", "Request", "RequestCancelled", "RequestTimeout", "Resource", "ResourceLink", "ResourceTemplate",
    "ServeOptions", "Server", "ServerCapabilities", "Skill", "StdioOptions", "Task", "Text", "Tool", "ToolResult", "Transport",
    "TransportError", "Unauthorized",
    "__version__", "types",
]
