"""examples/notes_server.py, the small server every binding writes the same way, driven over
stdio by the Python client: typed arguments with an enum and an optional field answered as
structured content, progress then cancellation, an elicitation form from a model, a
template and a prompt."""

import asyncio
import sys
from pathlib import Path
from typing import Any

from conftest import run

from oxmcp import Client

SERVER = Path(__file__).resolve().parent.parent / "examples" / "notes_server.py"


def test_the_notes_example_answers_what_its_client_asks() -> None:
    forms: list[Any] = []
    progress: list[float] = []

    def on_elicit(params: Any) -> dict[str, Any]:
        forms.append(params.requestedSchema)
        return {"action": "accept", "content": {"confirm": True, "reason": "obsolete"}}

    async def go() -> None:
        async with Client.stdio(sys.executable, [str(SERVER)], elicitation=on_elicit) as client:
            tools = {t.name: t for t in await client.list_tools()}
            assert sorted(tools) == ["delete_note", "reindex", "search_notes"]
            search = tools["search_notes"].input_schema["properties"]["search"]
            assert "$ref" in search or search.get("type") == "object"
            hits = await client.call_tool("search_notes", {"search": {"query": "milk", "sort": "newest"}})
            assert hits.structured_content == {"names": ["todo"]}, hits
            bad = await client.call_tool("search_notes", {"search": {"query": "milk", "sort": "sideways"}})
            assert bad.is_error, bad
            with_progress = client.call_tool("reindex", {"steps": 10}, on_progress=lambda p, t, m: progress.append(p))
            try:
                await asyncio.wait_for(with_progress, 1.2)
                raise AssertionError("reindex should still be running")
            except asyncio.TimeoutError:
                pass
            assert progress[:2] == [1, 2], progress
            deleted = await client.call_tool("delete_note", {"name": "todo"})
            assert deleted.content[0].text == "deleted (obsolete)", deleted
            assert (await client.read_resource("notes://ideas")).contents[0].text == "write a parser"
            prompt = await client.get_prompt("review_note", {"name": "ideas"})
            assert prompt.messages[0].content.text == "Please review this note:\nwrite a parser"
            # The deleted note is gone from the server's own state.
            assert (await client.call_tool("search_notes", {"search": {"query": "milk"}})).structured_content == {"names": []}

    run(go())
    assert forms[0]["properties"]["confirm"] == {"type": "boolean"}
    assert forms[0]["required"] == ["confirm"]
