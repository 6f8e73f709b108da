"""One server serving others under a prefix (a Server of this process, or a remote one
through a Client), and handlers reading their own server's resources."""

import pytest

from conftest import run
from oxmcp import Client, Context, McpError, Server


def weather() -> Server:
    server = Server("weather")

    @server.tool
    def forecast(city: str) -> str:
        return f"sunny in {city}"

    @server.prompt
    def advice() -> str:
        return "take an umbrella"

    @server.resource("weather://today")
    def today() -> str:
        return "rain"

    @server.resource("weather://city/{name}")
    def city(name: str, uri: str) -> str:
        return f"{name} from {uri}"

    return server


async def check_mounted(main: Server) -> None:
    async with Client.in_memory(main) as client:
        assert "w_forecast" in [t.name for t in await client.list_tools()]
        assert (await client.call_tool("w_forecast", {"city": "Oslo"})).content[0].text == "sunny in Oslo"
        assert "umbrella" in (await client.get_prompt("w_advice")).model_dump_json()
        assert (await client.read_resource("weather://w/today")).contents[0].text == "rain"
        # The mounted template's handler gets the URI its own server knows.
        assert (await client.read_resource("weather://w/city/oslo")).contents[0].text == "oslo from weather://city/oslo"


def test_a_server_mounts_another_of_this_process():
    main = Server("main")
    main.mount("w", weather())
    run(check_mounted(main))


def test_a_server_mounts_a_remote_one_through_a_client():
    async def go():
        async with Client.in_memory(weather()) as upstream:
            main = Server("main")
            await main.mount_client("w", upstream)
            await check_mounted(main)

    run(go())


def test_a_handler_reads_its_own_resources():
    async def go():
        server = weather()

        @server.tool
        async def quote(uri: str, ctx: Context) -> str:
            try:
                return (await ctx.read_resource(uri)).contents[0].text
            except McpError as e:
                return f"error {e.code}"

        async with Client.in_memory(server) as client:
            assert (await client.call_tool("quote", {"uri": "weather://city/rome"})).content[0].text == "rome from weather://city/rome"
            assert (await client.call_tool("quote", {"uri": "weather://nowhere"})).content[0].text.startswith("error -3")

    run(go())


def test_a_mounted_servers_lifespan_runs_with_its_parents():
    events: list[str] = []

    async def child_lifespan(server: Server):
        events.append("child in")
        yield {"db": "child-db"}
        events.append("child out")

    async def parent_lifespan(server: Server):
        events.append("parent in")
        yield None
        events.append("parent out")

    child = Server("child", lifespan=child_lifespan)

    @child.tool
    def which(ctx: Context) -> str:
        db: str = ctx.lifespan["db"]
        return db

    main = Server("main", lifespan=parent_lifespan)
    main.mount("c", child)

    async def go():
        async with Client.in_memory(main) as client:
            assert events == ["parent in", "child in"]
            assert (await client.call_tool("c_which")).content[0].text == "child-db"
        assert events == ["parent in", "child in", "child out", "parent out"]
    run(go())
