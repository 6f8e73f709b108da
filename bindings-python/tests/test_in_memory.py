"""A client of a server in the same process, through memory: no child process, no socket."""

import asyncio

from conftest import run
from oxmcp import Client, Context, Server


def make_server() -> Server:
    server = Server("memory", version="1.0.0")

    @server.tool()
    async def add(a: int, b: int, ctx: Context) -> int:
        """Adds two numbers."""
        await ctx.report_progress(1, 1)
        return a + b

    @server.tool()
    async def ask(ctx: Context) -> str:
        """Asks the client's model."""
        answer = await ctx.sample("ping?", max_tokens=5)
        text: str = answer.content.text
        return text

    @server.resource("memo://note")
    def note() -> str:
        return "a note"

    return server


def test_a_client_reaches_a_server_object_through_memory():
    async def go():
        server = make_server()

        async def sampling(params):
            return {"role": "assistant", "content": {"type": "text", "text": "pong"}, "model": "m"}

        for era in ("session", "stateless"):
            async with Client.in_memory(server, sampling=sampling, era=era) as client:
                assert client.era == era
                assert client.server_info.name == "memory"
                assert [t.name for t in await client.list_tools()] == ["add", "ask"]
                assert (await client.call_tool("add", {"a": 2, "b": 3})).content[0].text == "5"
                # A server-to-client request crosses back through memory.
                assert (await client.call_tool("ask", {})).content[0].text == "pong"
                assert (await client.read_resource("memo://note")).contents[0].text == "a note"
        # Several clients at once, each its own session.
        clients = await asyncio.gather(*(Client.connect_in_memory(server, era="session") for _ in range(3)))
        results = await asyncio.gather(*(c.call_tool("add", {"a": i, "b": i}) for i, c in enumerate(clients)))
        assert [r.content[0].text for r in results] == ["0", "2", "4"]
        for c in clients:
            await c.close()

    run(go())
