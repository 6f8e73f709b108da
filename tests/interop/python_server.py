"""A small stdio MCP server built with the official Python SDK (mcp 2.x, MCPServer).

The oxmcp client is driven against it by oxmcp_client.test.mjs; the values
returned here are asserted there, so keep both in step.
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer(
    name="oxmcp-interop-python",
    version="1.2.3",
    instructions="Interop fixture server for oxmcp (official Python SDK).",
)


@server.tool(description="Add two integers and return the sum.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Greet someone by name.")
def greet(name: str) -> str:
    return f"Hello, {name}!"


@server.tool(description="Fail on purpose, to check error results.")
def fail(reason: str) -> str:
    raise ValueError(f"failed on purpose: {reason}")


@server.resource(
    "interop://static/readme",
    name="readme",
    description="A fixed text resource.",
    mime_type="text/plain",
)
def readme() -> str:
    return "oxmcp interop readme: static text"


@server.resource(
    "interop://users/{user_id}/profile",
    name="user_profile",
    description="A templated resource: the profile of one user.",
    mime_type="text/plain",
)
def user_profile(user_id: str) -> str:
    return f"profile of user {user_id}"


@server.prompt(description="Ask for a review of some code in a given language.")
def review_code(code: str, language: str = "rust") -> str:
    return f"Please review this {language} code:\n{code}"


if __name__ == "__main__":
    server.run("stdio")
