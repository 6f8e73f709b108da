"""A small MCP server built with the official Python SDK (mcp 2.x, MCPServer).

    python_server.py             serve on stdio
    python_server.py http PORT   serve Streamable HTTP at http://127.0.0.1:PORT/mcp
                                 (the SDK's own runner: uvicorn, bound to 127.0.0.1)

The oxmcp client is driven against it by oxmcp_client.test.mjs (stdio) and
oxmcp_client_http.test.mjs (HTTP); the values returned here are asserted there, so
keep them in step. Over HTTP two more tools exist (`count_to`, `echo_header`); the stdio
tool list stays add / fail / greet.
"""

import sys

from mcp.server.mcpserver import Context, MCPServer

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


def add_http_tools() -> None:
    @server.tool(description="Count to n, reporting progress and logging each step.")
    async def count_to(n: int, ctx: Context) -> str:
        for i in range(1, n + 1):
            await ctx.report_progress(i, n, f"step {i}")
            await ctx.log("info", f"counted {i}", logger_name="count_to")
        return f"counted to {n}"

    @server.tool(description="Return the value of one HTTP request header (or <none>).")
    def echo_header(name: str, ctx: Context) -> str:
        headers = ctx.headers or {}
        return headers.get(name.lower(), "<none>")


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        add_http_tools()
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif sys.argv[1:]:
        sys.exit(f"usage: {sys.argv[0]} [http PORT]")
    else:
        server.run("stdio")
