"""The shared behaviour suite (tests/scenarios/README.md): every scenario of scenarios.json,
in each of its eras, as one raw request through the Python client against the Python
scenario server (scenario_server.py, a child process over stdio), and what ``expect`` says
of its outcome. One test per scenario and era, named ``<scenario name> [<era>]``."""

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, run
from oxmcp import (CapabilityMissing, Client, ConnectionClosed, HandlerError, InvalidInput, McpError, ProtocolError,
                   RequestCancelled, RequestTimeout, TransportError, Unauthorized)
from oxmcp.types import Era

SERVER = str(Path(__file__).with_name("scenario_server.py"))
SPEC = json.loads((REPO / "tests" / "scenarios" / "scenarios.json").read_text())
DEFAULT_ERAS = ["session", "stateless"]
MATCHERS = {"text", "contains", "isError", "error", "at", "count", "present", "absent", "handler_cancelled"}
SPECIALS = {"cancel_during_sampling", "call_as_task", "set_level", "connect_refused"}
# How long the cancel scenario waits for the handler to hold, and then for it to see its
# cancellation (the README's 10 seconds).
HOLD_WITHIN = 30.0
CANCEL_WITHIN = 10.0


class Handlers:
    """The client's answers to the server's requests (the README's "client"), and what the
    sampling handler saw of a ``hold`` request."""

    def __init__(self) -> None:
        self.holding = asyncio.Event()
        self.handler_cancelled = asyncio.Event()

    async def sampling(self, params):
        if params["messages"][0]["content"].get("text") == "hold":
            self.holding.set()
            try:
                await asyncio.Event().wait()  # never answers: waits for its cancellation
            except asyncio.CancelledError:
                self.handler_cancelled.set()
                raise
        return {"role": "assistant", "content": {"type": "text", "text": f"maxTokens={params['maxTokens']}"},
                "model": "scenario"}

    def elicitation(self, params):
        return {"action": "accept", "content": {"name": "ada"}}

    roots = [{"uri": "file:///scenario/root", "name": "root"}]


_MISSING = object()


def at_path(value, path: str):
    """The value at a dotted path (numbers index arrays), or ``_MISSING``."""
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return _MISSING
    return value


def result_text(method: str, result: dict[str, Any]):
    """The text the ``text`` and ``contains`` matchers look at, by the request's method."""
    if method == "tools/call":
        return "".join(b["text"] for b in result.get("content") or [] if b.get("type") == "text")
    if method == "resources/read":
        return at_path(result, "contents.0.text")
    if method == "prompts/get":
        return at_path(result, "messages.0.content.text")
    pytest.fail(f"no text matcher for a {method} result")


def named_items(result: dict[str, Any], path: str) -> list[Any]:
    items = at_path(result, path)
    assert isinstance(items, list), f"{path} is not an array in {result}"
    return [item.get("name") for item in items if isinstance(item, dict)]


def check_result(method: str, expect: dict[str, Any], result: dict[str, Any]) -> None:
    """Every matcher of ``expect`` (but ``error`` and ``handler_cancelled``) against a result."""
    if "text" in expect:
        assert result_text(method, result) == expect["text"], result
    if "contains" in expect:
        text = result_text(method, result)
        assert isinstance(text, str) and expect["contains"] in text, result
    if "isError" in expect:
        assert bool(result.get("isError", False)) is expect["isError"], result
    for path, want in (expect.get("at") or {}).items():
        got = at_path(result, path)
        assert got is not _MISSING, f"nothing at {path} in {result}"
        assert got == want and type(got) is type(want), f"{path}: {got!r}, expected {want!r}"
    if "count" in expect:
        path, n = expect["count"]
        items = at_path(result, path)
        assert isinstance(items, list), f"{path} is not an array in {result}"
        assert len(items) == n, f"{path} has {len(items)} items, expected {n}"
    if "present" in expect:
        path, name = expect["present"]
        assert name in named_items(result, path), f"no {name!r} in {path}: {result}"
    if "absent" in expect:
        path, name = expect["absent"]
        assert name not in named_items(result, path), f"{name!r} is in {path}: {result}"


async def cancel_during_sampling(client: Client, handlers: Handlers, scenario: dict[str, Any]) -> None:
    """Starts the call, waits until the sampling handler holds, cancels the call (cancelling
    its task), and waits for the handler to see its own cancellation."""
    call = asyncio.ensure_future(client.request(scenario["method"], scenario["params"]))
    holding = asyncio.ensure_future(handlers.holding.wait())
    done, _ = await asyncio.wait({call, holding}, timeout=HOLD_WITHIN, return_when=asyncio.FIRST_COMPLETED)
    if holding not in done:
        holding.cancel()
        if call in done:
            pytest.fail(f"the call ended before the sampling handler held: {call.exception() or call.result()}")
        call.cancel()
        pytest.fail("the sampling handler never got the hold request")
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    try:
        await asyncio.wait_for(handlers.handler_cancelled.wait(), CANCEL_WITHIN)
    except asyncio.TimeoutError:
        pass
    assert handlers.handler_cancelled.is_set() is scenario["expect"]["handler_cancelled"], \
        f"the sampling handler did not see its cancellation within {CANCEL_WITHIN} s"


def check_error(want: dict[str, Any], e: McpError) -> None:
    """The ``error`` matcher against the host's exception."""
    assert type(e).kind == want["kind"], f"{type(e).__name__} (kind {type(e).kind}): {e}"
    if "code" in want:
        assert e.code == want["code"], f"code {e.code}: {e}"
    if "data" in want:
        assert e.data == want["data"], f"data {e.data!r}: {e}"
    if "message_contains" in want:
        assert want["message_contains"] in str(e), f"{want['message_contains']!r} is not in {str(e)!r}"


async def expect_failure(expect: dict[str, Any], call) -> None:
    """Awaits ``call``, which must fail as ``expect["error"]`` says."""
    assert "error" in expect, "this special judges a failure: its expect needs error"
    try:
        result = await call
    except McpError as e:
        check_error(expect["error"], e)
        return
    pytest.fail(f"expected an error, got {result!r}")


async def play(scenario: dict[str, Any], era: Era) -> None:
    expect = scenario["expect"]
    unknown = set(expect) - MATCHERS
    assert not unknown, f"matchers this runner does not know: {unknown}"
    special = scenario.get("special")
    assert special is None or special in SPECIALS, f"a special this runner does not know: {special}"
    if special == "connect_refused":
        await expect_failure(expect, Client.connect_http(scenario["params"]["url"], era=era))
        return
    handlers = Handlers()
    async with Client.stdio(sys.executable, [SERVER], era=era, sampling=handlers.sampling,
                            elicitation=handlers.elicitation, roots=handlers.roots) as client:
        assert client.era == era
        if special == "cancel_during_sampling":
            await cancel_during_sampling(client, handlers, scenario)
            return
        assert "handler_cancelled" not in expect, "handler_cancelled needs the cancel_during_sampling special"
        if special == "call_as_task":
            # The host's own way to run a call as a task and wait for its end.
            params = scenario["params"]
            done = await client.call_tool(params["name"], params.get("arguments"), task=True)
            check_result(scenario["method"], expect, done.model_dump(by_alias=True, exclude_none=True))
            return
        if special == "set_level":
            # The host's own call, with its own per-call timeout.
            await expect_failure(expect, client.set_log_level(scenario["params"]["level"],
                                                              timeout=scenario["timeout_ms"] / 1000))
            return
        try:
            result = await client.request(scenario["method"], scenario["params"])
        except McpError as e:
            if "error" not in expect:
                raise
            check_error(expect["error"], e)
            return
        assert "error" not in expect, f"expected an error, got {result}"
        check_result(scenario["method"], expect, result)


CASES = [pytest.param(s, era, id=f"{s['name']} [{era}]")
         for s in SPEC["scenarios"] for era in s.get("eras", DEFAULT_ERAS)]


@pytest.mark.parametrize(("scenario", "era"), CASES)
def test_scenario(scenario, era):
    run(play(scenario, era), timeout=90)


def test_every_error_class_names_its_engine_kind():
    # The `error.kind` matcher reads the class's `kind`: one class per engine kind name.
    classes = [McpError, RequestTimeout, RequestCancelled, ConnectionClosed, TransportError, ProtocolError,
               InvalidInput, CapabilityMissing, HandlerError, Unauthorized]
    assert [c.kind for c in classes] == ["rpc", "timeout", "cancelled", "closed", "transport", "protocol",
                                         "invalid_input", "capability_missing", "handler", "unauthorized"]
