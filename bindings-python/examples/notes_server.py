# The small notes server every binding writes the same way (../README.md: Tools, Context, Resources, Prompts).
import asyncio
from enum import Enum
from typing import Optional

from pydantic import BaseModel, Field
from oxmcp import Context, Server

server = Server("notes", version="1.0.0")
NOTES = {"todo": "buy milk", "ideas": "write a parser"}


class Sort(str, Enum):
    newest = "newest"
    oldest = "oldest"
    relevance = "relevance"


class Search(BaseModel):
    query: str = Field(description="text to look for")
    sort: Sort = Sort.relevance
    limit: Optional[int] = Field(None, ge=1, le=50)


class Hits(BaseModel):
    names: list[str]


@server.tool
def search_notes(search: Search) -> Hits:
    """Search the notes."""
    names = [n for n, text in NOTES.items() if search.query in text]
    return Hits(names=names[: search.limit or len(names)])


@server.tool
async def reindex(steps: int, ctx: Context) -> str:
    """Rebuild the index, reporting progress; stops when cancelled."""
    try:
        for i in range(steps):
            await ctx.report_progress(i + 1, steps, f"step {i + 1}")
            await asyncio.sleep(0.5)
    except asyncio.CancelledError:
        await ctx.warning("reindex cancelled")
        raise
    return "reindexed"


class Confirm(BaseModel):
    confirm: bool
    reason: str = ""


@server.tool
async def delete_note(name: str, ctx: Context) -> str:
    """Delete a note after asking the user."""
    answer = await ctx.elicit(f"Delete {name}?", Confirm)
    if answer.action != "accept" or not answer.content.confirm:
        return "kept"
    NOTES.pop(name, None)
    return f"deleted ({answer.content.reason})"


@server.resource("notes://{name}", mime_type="text/plain")
def note(name: str) -> str:
    """A note by name."""
    return NOTES[name]


@server.prompt
def review_note(name: str) -> str:
    """Ask for a review of a note."""
    return f"Please review this note:\n{NOTES.get(name, '')}"


if __name__ == "__main__":
    server.run()  # server.run(transport="http", port=8000) / server.http_app() for ASGI
