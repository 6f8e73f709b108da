"""Registering with the Server decorators: ``@server.tool`` and ``@server.prompt`` with or
without parentheses, a second tool, prompt or resource of one name (or URI) refused unless
``replace=True``, and a resource template's variables checked against the function's
parameters when it is registered. Served in-process over HTTP (port 0) where a client has
to see the result."""

from typing import Optional

import pytest

from conftest import run
from oxmcp import Client, Context, InvalidInput, Server


async def serving(server: Server, check) -> None:
    """``check(client)`` against ``server`` served over Streamable HTTP in this process."""
    url = await server.start_http("127.0.0.1", 0)
    try:
        async with Client.http(url) as c:
            await check(c)
    finally:
        await server.stop_http()


def test_tool_and_prompt_decorators_work_with_and_without_parentheses():
    server = Server("forms")

    @server.tool
    def echo(text: str) -> str:
        """Answers its text."""
        return text

    @server.tool()
    async def shout(text: str) -> str:
        return text.upper()

    @server.tool(name="whisper", description="Lower case.")
    def quiet(text: str) -> str:
        return text.lower()

    @server.prompt
    def hello(name: str) -> str:
        return f"Say hello to {name}"

    @server.prompt(name="bye")
    def farewell(name: str) -> str:
        return f"Say goodbye to {name}"

    # The decorators hand the function back as it was.
    assert echo("as is") == "as is" and quiet("A") == "a"

    async def check(c: Client) -> None:
        tools = {t.name: t for t in await c.list_tools()}
        assert sorted(tools) == ["echo", "shout", "whisper"]
        assert tools["echo"].description == "Answers its text."
        assert (await c.call_tool("echo", {"text": "hi"})).content[0].text == "hi"
        assert (await c.call_tool("shout", {"text": "hi"})).content[0].text == "HI"
        assert sorted(p.name for p in await c.list_prompts()) == ["bye", "hello"]
        p = await c.get_prompt("hello", {"name": "Ada"})
        assert p.messages[0].content.text == "Say hello to Ada"
    run(serving(server, check))


def test_a_bare_resource_decorator_says_a_uri_is_needed():
    server = Server("bare-resource")
    with pytest.raises(TypeError, match=r"needs the resource's URI"):
        @server.resource  # type: ignore[arg-type]
        def note() -> str:
            return "never registered"


@pytest.mark.parametrize("kind", ["tool", "prompt"])
def test_a_second_tool_or_prompt_of_one_name_is_refused(kind):
    server = Server("twice")
    register = server.tool if kind == "tool" else server.prompt

    @register()
    def lookup(key: str) -> str:
        return "first"

    with pytest.raises(InvalidInput, match=rf"already has a {kind} named 'lookup'.*replace=True"):
        @register
        def lookup(key: str) -> str:  # noqa: F811
            return "second"

    # Another function, the same name given explicitly: refused too.
    with pytest.raises(InvalidInput, match="'lookup'"):
        @register(name="lookup")
        def other(key: str) -> str:
            return "third"

    assert isinstance(InvalidInput(None, "x"), ValueError)


def test_a_second_resource_of_one_uri_is_refused():
    server = Server("twice")

    @server.resource("notes://today")
    def today() -> str:
        return "first"

    @server.resource("notes://{day}")
    def day(day: str) -> str:
        return day

    with pytest.raises(InvalidInput, match=r"already has a resource with URI 'notes://today'"):
        @server.resource("notes://today")
        def again() -> str:
            return "second"

    with pytest.raises(InvalidInput, match=r"'notes://\{day\}'"):
        @server.resource("notes://{day}")
        def again_template(day: str) -> str:
            return day


def test_replace_true_replaces_on_purpose():
    server = Server("replacing")

    @server.tool
    def answer() -> str:
        return "old"

    @server.tool(replace=True)  # type: ignore[no-redef]
    def answer() -> str:  # noqa: F811
        return "new"

    @server.prompt(name="ask")
    def ask_old() -> str:
        return "old prompt"

    @server.prompt(name="ask", replace=True)
    def ask_new() -> str:
        return "new prompt"

    @server.resource("notes://today")
    def today_old() -> str:
        return "old note"

    @server.resource("notes://today", replace=True)
    def today_new() -> str:
        return "new note"

    # A name of another kind is no clash; a removed tool's name is free again.
    @server.prompt
    def answer_prompt() -> str:
        return "a prompt"

    @server.tool
    def gone() -> str:
        return "first"

    assert server.remove_tool("gone") is True

    @server.tool(name="gone")
    def back() -> str:
        return "back"

    async def check(c: Client) -> None:
        assert [t.name for t in await c.list_tools()].count("answer") == 1
        assert (await c.call_tool("answer")).content[0].text == "new"
        assert (await c.call_tool("gone")).content[0].text == "back"
        assert (await c.get_prompt("ask")).messages[0].content.text == "new prompt"
        assert (await c.read_resource("notes://today")).contents[0].text == "new note"
        assert [r.uri for r in await c.list_resources()] == ["notes://today"]
    run(serving(server, check))


def test_a_template_variable_without_a_parameter_fails_at_registration():
    server = Server("templates")

    with pytest.raises(InvalidInput, match=r"weather\(\) has no parameter for variable 'city'"):
        @server.resource("weather://{city}/now")
        def weather(town: str) -> str:
            return town

    # Operators and modifiers ({+path}, {?a,b}, {x*}, {x:3}) are read the way the engine reads them.
    with pytest.raises(InvalidInput, match=r"no parameter for variables 'depth', 'tags' \("):
        @server.resource("files://{+path:40}{?lang,depth}{/tags*}")
        def listing(path: str, lang: str = "en") -> str:
            return path

    # The context parameter is not a variable.
    with pytest.raises(InvalidInput, match=r"variable 'ctx'"):
        @server.resource("ctx://{ctx}")
        def ctx_only(ctx: Context) -> str:
            return "never"

    # A refused registration leaves the URI free.
    @server.resource("weather://{city}/now")
    def forecast(city: str, ctx: Context) -> str:
        return f"sunny in {city}"

    @server.resource("files://{+path:40}{?lang,depth}{/tags*}")
    def files(path: str, lang: str = "en", depth: int = 0, tags: Optional[list[str]] = None) -> str:
        return f"{path} {lang} {depth} {tags}"

    # **kwargs takes any variable: a named parameter gets its converted value, the rest
    # arrive as the engine read them.
    @server.resource("box://{width}x{height}")
    def box(width: int, **rest) -> str:
        return f"{width!r} {rest!r}"

    async def check(c: Client) -> None:
        assert (await c.read_resource("weather://Paris/now")).contents[0].text == "sunny in Paris"
        assert (await c.read_resource("box://2x3")).contents[0].text == "2 {'height': '3'}"
    run(serving(server, check))
