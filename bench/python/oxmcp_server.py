"""The Python benchmark's oxmcp server: one `echo` tool (an async Python handler), stdio."""

from oxmcp import Server

server = Server("bench-oxmcp-py", version="0.1.0")


@server.tool(description="Echo the text back.")
async def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    server.run("stdio")
