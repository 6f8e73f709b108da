"""The Python benchmark's official-SDK server (PyPI `mcp`, MCPServer): one `echo` tool
(an async Python handler), stdio."""

import warnings

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

server = MCPServer(name="bench-official-py", version="0.1.0", log_level="WARNING")


@server.tool(description="Echo the text back.")
async def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    server.run("stdio")
