"""The scenario server of tests/scenarios/README.md, written with oxmcp's public Python API
(``Server``, its decorators, ``Context``), never by reading scenarios.json. Serves stdio
when run as a script; test_scenarios.py is its runner."""

import asyncio

from oxmcp import Context, McpError, Server, ToolResult

server = Server("scenario-server", version="1.0.0")


@server.tool(description="Answers its text.")
def echo(text: str) -> str:
    return text


@server.tool(description="Registered, then removed before serving.")
def gone() -> str:
    return "gone"


@server.prompt(name="gone")
def gone_prompt() -> str:
    return "removed before serving"


@server.resource("fixed://gone", name="gone", mime_type="text/plain")
def gone_resource() -> str:
    return "removed before serving"


# Removed while the server is still staged (before serving): what they answered is
# staged_removal's result.
REMOVED = [server.remove_tool("gone"), server.remove_prompt("gone"), server.remove_resource("fixed://gone")]


@server.tool(description="What the three removals answered before serving, joined with commas.")
def staged_removal() -> str:
    return ",".join("true" if r else "false" for r in REMOVED)


@server.tool(description="Reads the server's own resource fixed://note through its request's context; answers its text.")
async def read_own(ctx: Context) -> str:
    result = await ctx.read_resource("fixed://note")
    return str(getattr(result.contents[0], "text"))


@server.tool(description="Answers the protocol version its request's context names.")
def protocol_version(ctx: Context) -> str:
    return ctx.protocol_version or "none"


@server.tool(description="How many clients the server has connected, as the host's session count says.")
def session_count() -> str:
    return str(server.session_count)


@server.tool(description='Asks the client\'s model (no maxTokens given); answers "sampled: " + the model\'s text.')
async def ask_sampling(prompt: str, ctx: Context) -> str:
    reply = await ctx.sample(prompt)  # no max_tokens: the engine fills the protocol default
    text: str = reply.content.text
    return "sampled: " + text


@server.tool(description='Asks the user for a name; answers "elicited: " + action + " " + content.name.')
async def ask_elicitation(ctx: Context) -> str:
    answer = await ctx.elicit("What is your name?", {"type": "object", "properties": {"name": {"type": "string"}},
                                                      "required": ["name"]})
    return f"elicited: {answer.action} {answer.content.name}"


@server.tool(description='Lists the client\'s roots; answers "roots: " + the URIs joined by ",".')
async def ask_roots(ctx: Context) -> str:
    roots = await ctx.list_roots()
    return "roots: " + ",".join(r.uri for r in roots)


@server.tool(description='Fails with JSON-RPC error -32042 "custom failure" and data.')
def fail_rpc() -> str:
    raise McpError(-32042, "custom failure", {"why": "scenario"})


@server.tool(description='Fails with a plain host error "plain failure" (an isError result).')
def fail_plain() -> str:
    raise RuntimeError("plain failure")


@server.tool(description="Escalating: asks a name inline, goes on as a task if it may, then asks the model.",
             task_support="optional", escalating=True)
async def escalate(ctx: Context) -> str:
    answer = await ctx.elicit("What is your name?", {"type": "object", "properties": {"name": {"type": "string"}},
                                                      "required": ["name"]})
    became = await ctx.escalate_to_task()
    reply = await ctx.sample("after")
    return f"escalated: {answer.content.name} {'true' if became else 'false'} {reply.content.text}"


# What a returned value becomes is the engine's rule (core/src/host/result.rs).
@server.tool()
def shape_text() -> str:
    return "plain"


@server.tool(structured_output=False)
def shape_object() -> dict[str, str]:
    return {"city": "Paris"}


@server.tool()
def shape_whole() -> ToolResult:
    return ToolResult(content=["whole"], is_error=True)


@server.tool(structured_output=False)
def shape_list() -> list[str]:
    return ["one", "two"]


@server.tool(structured_output=False)
def shape_number() -> int:
    return 42


@server.tool()
def shape_nothing() -> None:
    return None


# The engine's rule: an escalating tool no client may run as a task is refused.
try:
    @server.tool(escalating=True)
    def never() -> str:
        return "never"
    refused = "accepted"
except McpError as e:
    refused = type(e).kind


@server.tool(description="What registering an escalating tool with no task_support raised.")
def refused_escalation() -> str:
    return refused


@server.resource("fixed://note", name="note", mime_type="text/plain")
def note() -> str:
    return "a note"


@server.resource("greet://{name}", name="greeting", mime_type="text/plain")
def greeting(name: str, uri: str) -> str:
    """The template's variable and the URI read (a ``uri`` parameter that is not a variable)."""
    return f"hello {name} from {uri}"


@server.prompt()
def greet(name: str) -> str:
    return f"Hello, {name}!"


VALUES = [f"n{i:03d}" for i in range(150)]


@server.completion()
def complete(ref, argument, context):
    # The whole list: the engine caps what it sends.
    return [v for v in VALUES if v.startswith(argument["value"])]


@server.middleware
async def steer(request, call_next):
    """Changes one request's params on their way, answers another itself, lets the rest go on."""
    params = request.params or {}
    if request.method == "tools/call" and params.get("name") == "echo" \
            and params.get("arguments", {}).get("text") == "through middleware":
        return await call_next({**params, "arguments": {"text": "changed by the middleware"}})
    if request.method == "tools/call" and params.get("name") == "answered_by_middleware":
        return {"content": [{"type": "text", "text": "answered by the middleware"}]}
    if request.method == "logging/setLevel":
        await asyncio.sleep(2)
    return await call_next()


sub = Server("sub-server", version="1.0.0")


@sub.tool(description='Answers "hello from the mounted server".')
def hello() -> str:
    return "hello from the mounted server"


server.mount("sub", sub)


if __name__ == "__main__":
    server.run()
