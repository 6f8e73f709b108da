"""The client's results are typed models (oxmcp.types): each content kind its class, the
same data as the wire JSON, fields and content types of a newer protocol kept rather
than refused, and a result that breaks the protocol a ProtocolError."""

import sys

import pytest

from conftest import SERVERS, run
from oxmcp import (Audio, CallToolResult, Client, Completion, Context, EmbeddedResource, GetPromptResult, Image,
                   Implementation, McpObject, Message, Prompt, ProtocolError, ReadResourceResult, Resource,
                   ResourceLink, ResourceTemplate, Server, ServerCapabilities, Tool, ToolResult)
from oxmcp import types

PNG = b"\x89PNG\r\n\x1a\nrest"


def make_server() -> Server:
    server = Server("typed", version="3.1.4")

    @server.tool(annotations={"readOnlyHint": True})
    def every_kind(ctx: Context):
        """Returns one block of each kind."""
        return ToolResult(content=["words", Image(PNG), Audio(b"RIFF", "audio/wav"),
                                   ResourceLink("memo://note", "note", mime_type="text/plain"),
                                   EmbeddedResource("memo://inline", text="inline text"),
                                   EmbeddedResource("memo://bytes", blob=b"\x00\x01", mime_type="application/x-raw")],
                          structured_content={"n": 6})

    @server.resource("memo://note", mime_type="text/plain")
    def note() -> str:
        return "a note"

    @server.resource("memo://bytes/{name}")
    def raw(name: str) -> bytes:
        return name.encode()

    @server.prompt(description="Greets.")
    def greet(name: str, formal: bool = False) -> list[Message]:
        return [Message("user", f"Hello {name}"), Message("assistant", Image(PNG))]

    @server.completion()
    def complete(ref, argument, context) -> list[str]:
        return ["alpha", "alpine"]

    return server


def test_every_call_returns_its_model_with_the_wires_data():
    async def main():
        async with Client.in_memory(make_server(), era="session") as c:
            assert isinstance(c.server_info, Implementation) and c.server_info.version == "3.1.4"
            assert isinstance(c.server_capabilities, ServerCapabilities) and c.server_capabilities.tools is not None
            assert c.server_capabilities.prompts is not None and c.server_capabilities.logging == {}

            [tool] = await c.list_tools()
            assert isinstance(tool, Tool) and tool.annotations.read_only_hint is True
            assert tool.input_schema["type"] == "object" and tool.output_schema is None

            r = await c.call_tool("every_kind")
            assert isinstance(r, CallToolResult) and r.is_error is False and r.structured_content == {"n": 6}
            assert [type(b) for b in r.content] == [types.TextContent, types.ImageContent, types.AudioContent,
                                                    types.ResourceLink, types.EmbeddedResource, types.EmbeddedResource]
            text, image, audio, link, inline, blob = r.content
            assert text.text == "words" and image.mime_type == "image/png" and audio.mime_type == "audio/wav"
            assert (link.uri, link.name, link.mime_type) == ("memo://note", "note", "text/plain")
            assert isinstance(inline.resource, types.TextResourceContents) and inline.resource.text == "inline text"
            assert isinstance(blob.resource, types.BlobResourceContents) and blob.resource.blob == "AAE="
            # The model is the wire result, field for field (request() gives the raw JSON).
            raw = await c.request("tools/call", {"name": "every_kind", "arguments": {}})
            assert isinstance(raw, McpObject)
            assert r.model_dump(by_alias=True, exclude_unset=True) == raw

            [resource] = await c.list_resources()
            assert isinstance(resource, Resource) and resource.mime_type == "text/plain"
            [template] = await c.list_resource_templates()
            assert isinstance(template, ResourceTemplate) and template.uri_template == "memo://bytes/{name}"
            read = await c.read_resource("memo://note")
            assert isinstance(read, ReadResourceResult)
            assert isinstance(read.contents[0], types.TextResourceContents) and read.contents[0].text == "a note"
            read = await c.read_resource("memo://bytes/hi")
            assert isinstance(read.contents[0], types.BlobResourceContents) and read.contents[0].blob == "aGk="

            [prompt] = await c.list_prompts()
            assert isinstance(prompt, Prompt) and [(a.name, a.required) for a in prompt.arguments] == \
                [("name", True), ("formal", False)]
            p = await c.get_prompt("greet", {"name": "Ada"})
            assert isinstance(p, GetPromptResult)
            assert [(m.role, type(m.content)) for m in p.messages] == \
                [("user", types.TextContent), ("assistant", types.ImageContent)]

            done = await c.complete({"type": "ref/prompt", "name": "greet"}, "name", "al")
            assert isinstance(done, Completion) and done.values == ["alpha", "alpine"] and done.has_more is False
    run(main())


def test_fields_and_content_types_of_a_newer_protocol_do_not_break_parsing():
    async def main():
        async with Client.stdio(sys.executable, [str(SERVERS / "future_server.py")], era="session") as c:
            assert c.server_info.name == "future" and c.server_info.model_extra == {"motto": "ahead"}
            assert c.server_capabilities.model_extra == {"telepathy": {}}
            assert c.server_capabilities.tools.model_extra == {"batch": True}
            assert [t.model_extra for t in await c.list_tools()] == [{"cost": 3}, {}]

            r = await c.call_tool("future")
            text, hologram = r.content
            assert isinstance(text, types.TextContent) and text.text == "plain" and text.model_extra == {"sparkle": True}
            assert isinstance(hologram, types.UnknownContent) and hologram.type == "hologram"
            assert hologram.model_extra == {"depth": 3, "frames": ["a", "b"]}
            assert r.meta == {"trace": "t-1"} and r.model_extra == {"receipt": {"id": 7}}
            # Nothing is lost: the wire form comes back whole.
            assert r.model_dump(by_alias=True, exclude_unset=True) == await c.request("tools/call", {"name": "future"})

            with pytest.raises(ProtocolError, match="tools/call result does not fit the protocol"):
                await c.call_tool("broken")
            await c.ping()  # the connection goes on
    run(main())
