"""Both protocol eras against ONE oxmcp Python server (servers/eras.py): a client of each era
(``era="session"``: initialize; ``era="stateless"``: 2026-07-28, server/discover and every
request on its own), over stdio (a child process) and over Streamable HTTP (one server
process every client connects to). The same calls give the same results; the server's
elicitation reaches the client's handler, progress and logs arrive, and what exists only in
one era says so."""

import asyncio
import sys
import time
from typing import Any, Optional

import pytest

from conftest import SERVERS, http_server, run
from oxmcp import Client, InvalidInput, McpError, ProtocolError

ERAS = str(SERVERS / "eras.py")
OFFICIAL = str(SERVERS / "official_server.py")  # the official Python SDK's server


@pytest.fixture(scope="module")
def eras_url():
    with http_server(ERAS) as url:
        yield url


@pytest.fixture(params=["stdio", "http"])
def connect(request):
    """``connect(**options)``: a client of the eras server over stdio (a child process per
    client) or Streamable HTTP (the one module-wide server process)."""
    if request.param == "stdio":
        return lambda **options: Client.stdio(sys.executable, [ERAS], **options)
    url = request.getfixturevalue("eras_url")
    return lambda **options: Client.http(url, **options)


async def eventually(predicate, what: str, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


class Seen:
    """What the client's handlers saw: elicitations, logs, progress."""

    def __init__(self) -> None:
        self.elicited: list[str] = []
        self.logs: list[tuple[str, Any]] = []
        self.progress: list[tuple[float, Optional[float], Optional[str]]] = []

    def elicitation(self, params):
        self.elicited.append(params.message)
        assert params.requested_schema["properties"]["name"]["type"] == "string"
        return {"action": "accept", "content": {"name": "Ada"}}

    def on_log(self, level, data, logger):
        self.logs.append((level, data))

    def on_progress(self, progress, total, message):
        self.progress.append((progress, total, message))


VERSIONS = {"session": "2025-11-25", "stateless": "2026-07-28"}


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_one_server_each_era(connect, era):
    async def main():
        seen = Seen()
        async with connect(era=era, elicitation=seen.elicitation, on_log=seen.on_log) as c:
            assert c.era == era
            assert c.protocol_version == VERSIONS[era]
            assert (c.server_info.name, c.server_info.version) == ("py-eras", "2.0.0")
            assert c.instructions == "One server, both eras."
            assert c.server_capabilities.tools is not None
            assert [t.name for t in await c.list_tools()] == ["greet", "consult", "wait", "cancelled", "era"]
            await c.ping()

            r = await c.call_tool("era")
            assert r.structured_content == {"version": VERSIONS[era], "client": "oxmcp-python"}

            await c.set_log_level("info")
            r = await c.call_tool("greet", {"greeting": "Hello"}, on_progress=seen.on_progress)
            assert not r.is_error and r.content[0].text == "Hello, Ada!"
            assert seen.elicited == ["What is your name?"], "the client's elicitation handler answered once"
            await eventually(lambda: len(seen.progress) >= 2 and len(seen.logs) >= 2, "progress and logs")
            assert seen.progress == [(1.0, 2.0, "asked"), (2.0, 2.0, "greeted")]
            assert seen.logs == [("info", "info: greeting Ada"), ("warning", "warning: greeting Ada")]

            assert (await c.read_resource("eras://note")).contents[0].text == "a note"
            # A session-era request, or in the stateless era a subscriptions/listen stream
            # reopened with the resource (and again without it).
            await c.subscribe("eras://note")
            await c.unsubscribe("eras://note")
            # Nothing in flight (the stateless client's own listen stream, which brings list
            # changes to its notification callback, is not the caller's request).
            assert c._native.stats() == (0, 0)
    run(main())


def test_a_stateless_client_with_on_log_gets_every_log_then_the_level_it_sets(connect):
    async def main():
        seen = Seen()
        async with connect(era="stateless", elicitation=seen.elicitation, on_log=seen.on_log) as c:
            assert (await c.call_tool("greet", {"greeting": "Hi"})).content[0].text == "Hi, Ada!"
            await eventually(lambda: len(seen.logs) >= 3, "three log messages without set_log_level")
            assert [level for level, _ in seen.logs] == ["debug", "info", "warning"]
            await c.set_log_level("warning")
            await c.call_tool("greet", {"greeting": "Hi"})
            await eventually(lambda: len(seen.logs) >= 4, "the warning")
            await asyncio.sleep(0.2)
            assert [level for level, _ in seen.logs] == ["debug", "info", "warning", "warning"]
    run(main())


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_sampling_and_roots_in_each_era(connect, era):
    async def main():
        asked = []

        def sampling(params):
            asked.append("sampling")
            return {"role": "assistant", "model": "m", "content": {"type": "text", "text": params.messages[0].content.text.upper()}}

        async with connect(era=era, sampling=sampling, roots=["file:///x", "file:///y"]) as c:
            r = await c.call_tool("consult", {"question": "why"})
            assert not r.is_error and r.content[0].text == "WHY in file:///x,file:///y"
            assert asked == ["sampling"]
        async with connect(era=era) as c:
            if era == "session":
                # The handler's ctx.sample fails inside it: an isError result.
                r = await c.call_tool("consult", {"question": "why"})
                assert r.is_error and "sampling" in r.content[0].text
            else:
                # The stateless era makes a missing capability the request's error.
                with pytest.raises(McpError) as e:
                    await c.call_tool("consult", {"question": "why"})
                assert e.value.code == -32021 and "sampling" in e.value.message
    run(main())


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_cancelling_reaches_the_handler_in_each_era(connect, era):
    async def main():
        async with connect(era=era) as c:
            seconds = 30.25 if era == "session" else 30.5  # the HTTP server is shared
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(c.call_tool("wait", {"seconds": seconds}), 0.3)
            deadline = time.monotonic() + 5
            while seconds not in (await c.call_tool("cancelled")).structured_content["seconds"]:
                assert time.monotonic() < deadline, "the handler never saw the cancellation"
                await asyncio.sleep(0.05)
            assert c._native.stats() == (0, 0)
    run(main())


def test_auto_picks_the_stateless_era_of_an_oxmcp_server(connect):
    async def main():
        seen = Seen()
        async with connect(elicitation=seen.elicitation) as c:  # era="auto", the default
            assert c.era == "stateless" and c.protocol_version == "2026-07-28"
            assert (await c.call_tool("greet", {"greeting": "Hey"})).content[0].text == "Hey, Ada!"
            assert seen.elicited == ["What is your name?"]
    run(main())


def test_both_eras_on_one_http_server_give_the_same_results(eras_url):
    async def main():
        results = {}
        for era in ("session", "stateless"):
            seen = Seen()
            async with Client.http(eras_url, era=era, elicitation=seen.elicitation) as c:
                greet = await c.call_tool("greet", {"greeting": "Hello"})
                note = await c.read_resource("eras://note")
                results[era] = (greet, note, [t.name for t in await c.list_tools()])
        (sg, sn, st), (lg, ln, lt) = results["session"], results["stateless"]
        assert sg.content == lg.content and sg.is_error == lg.is_error
        assert sn.contents == ln.contents
        assert st == lt
    run(main())


def test_an_unknown_era_is_invalid_input():
    async def main():
        with pytest.raises(InvalidInput, match="era"):
            await Client.connect_stdio(sys.executable, [ERAS], era="modernist")  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="era"):
            await Client.connect_http("http://127.0.0.1:9/mcp", era="")  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="era"):
            await Client.connect_http("http://127.0.0.1:9/mcp", era=2026)  # type: ignore[arg-type]
    run(main())


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_stateless_against_a_session_only_server_fails_clearly(transport):
    """The official Python SDK's server restricted to the session era (its handshake-only loop
    on stdio; its legacy HTTP+SSE transport over HTTP): era="stateless" refuses it with a
    ProtocolError, and auto falls back to initialize."""

    async def main(url=None):
        def connect(**options):
            if url is None:
                return Client.connect_stdio(sys.executable, [OFFICIAL, "session-only"], **options)
            return Client.connect_http(url, **options)

        started = time.monotonic()
        with pytest.raises(ProtocolError, match="does not speak the stateless era"):
            await connect(era="stateless")
        assert time.monotonic() - started < 8, "refused at once, not after the discover timeout"
        c = await connect()
        try:
            assert c.era == "session" and c.protocol_version == "2025-11-25"
            assert (c.server_info.name, c.server_info.version) == ("official-py", "2.3.0-interop")
            assert (await c.call_tool("add", {"a": 1, "b": 2})).content[0].text == "3"
        finally:
            await c.close()

    if transport == "stdio":
        run(main())
    else:
        with http_server(OFFICIAL, "sse") as url:
            run(main(url.replace("/mcp", "/sse")))
