"""The typed results of :class:`~oxmcp.Client` calls, as pydantic models.

``list_tools()`` gives :class:`Tool` objects, ``call_tool()`` a :class:`CallToolResult`,
``read_resource()`` a :class:`ReadResourceResult`, ``get_prompt()`` a
:class:`GetPromptResult`, and so on. Fields are snake_case (``tool.input_schema`` reads
``inputSchema``, ``result.meta`` reads ``_meta``); JSON Schemas, ``structured_content``
and ``meta`` stay plain dicts.

The protocol evolves, so parsing is lenient where it can be: a field this version does not
know is kept (``model.model_extra``, under its wire name), and a content block of an
unknown ``type`` becomes an :class:`UnknownContent`. ``model.model_dump(by_alias=True,
exclude_unset=True)`` gives the wire form back.

A content block is one of several classes; narrow it before reading its fields::

    for block in result.content:
        if isinstance(block, TextContent):
            print(block.text)

:class:`ResourceLink` and :class:`EmbeddedResource` here are what a client receives; the
classes of the same names at the top of ``oxmcp`` are what a server's handler returns.
"""

from typing import Annotated, Any, Literal, Optional, Union

import pydantic
from pydantic import ConfigDict, Discriminator, Field, Tag
from pydantic.alias_generators import to_camel

#: The levels of log messages, least severe first (RFC 5424, as MCP names them).
LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

#: Which protocol era a client speaks: ``"auto"`` (probe with ``server/discover``, fall back
#: to ``initialize`` when the server is older), ``"session"`` (``initialize`` and a session,
#: protocol versions up to 2025-11-25) or ``"stateless"`` (2026-07-28).
Era = Literal["auto", "session", "stateless"]

#: How :meth:`Server.run` serves: ``"stdio"``, or Streamable HTTP (``"http"``, also
#: spelled ``"streamable-http"`` as FastMCP does).
Transport = Literal["stdio", "http", "streamable-http"]

#: Who a message or content is for.
Role = Literal["user", "assistant"]


class McpModel(pydantic.BaseModel):
    """Base of the result models: camelCase on the wire, snake_case in Python, and fields
    this version does not know kept rather than refused."""

    # populate_by_name: the models can be built with their Python names too (in tests).
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class Icon(McpModel):
    src: str
    mime_type: Optional[str] = None
    sizes: Optional[list[str]] = None
    theme: Optional[str] = None


class Annotations(McpModel):
    """Hints about content: who it is for, how important, when it last changed."""

    audience: Optional[list[Role]] = None
    priority: Optional[float] = None
    last_modified: Optional[str] = None


class Implementation(McpModel):
    """A server's (or client's) name and version: :attr:`Client.server_info`."""

    name: str
    version: str
    title: Optional[str] = None
    description: Optional[str] = None
    website_url: Optional[str] = None
    icons: Optional[list[Icon]] = None


# -- content -------------------------------------------------------------------------------

class _Block(McpModel):
    """What every content block may carry."""

    annotations: Optional[Annotations] = None
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


class TextContent(_Block):
    type: Literal["text"] = "text"
    text: str


class ImageContent(_Block):
    type: Literal["image"] = "image"
    data: str
    """The image, base64-encoded."""
    mime_type: str


class AudioContent(_Block):
    type: Literal["audio"] = "audio"
    data: str
    """The audio, base64-encoded."""
    mime_type: str


class ResourceLink(McpModel):
    """A link to a resource the client can read (``read_resource(link.uri)``)."""

    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    size: Optional[int] = None
    annotations: Optional[Annotations] = None
    icons: Optional[list[Icon]] = None
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


class TextResourceContents(McpModel):
    uri: str
    mime_type: Optional[str] = None
    text: str
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


class BlobResourceContents(McpModel):
    uri: str
    mime_type: Optional[str] = None
    blob: str
    """The bytes, base64-encoded."""
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


def _contents_kind(value: Any) -> str:
    has_blob = "blob" in value if isinstance(value, dict) else isinstance(value, BlobResourceContents)
    return "blob" if has_blob else "text"


#: A resource's contents: text, or bytes as a base64 blob.
ResourceContents = Annotated[Union[Annotated[TextResourceContents, Tag("text")],
                                   Annotated[BlobResourceContents, Tag("blob")]], Discriminator(_contents_kind)]


class EmbeddedResource(_Block):
    """A resource's contents inside a result."""

    type: Literal["resource"] = "resource"
    resource: ResourceContents


class UnknownContent(McpModel):
    """A content block of a type this version does not know; its fields are in
    ``model_extra``."""

    type: str


_BLOCK_TYPES = {"text", "image", "audio", "resource_link", "resource"}


def _block_kind(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    # A type of a newer protocol parses as UnknownContent instead of failing the result.
    return kind if kind in _BLOCK_TYPES else "unknown"


#: One content block of a tool result or prompt message.
ContentBlock = Annotated[Union[Annotated[TextContent, Tag("text")], Annotated[ImageContent, Tag("image")],
                               Annotated[AudioContent, Tag("audio")], Annotated[ResourceLink, Tag("resource_link")],
                               Annotated[EmbeddedResource, Tag("resource")], Annotated[UnknownContent, Tag("unknown")]],
                         Discriminator(_block_kind)]


# -- tools ---------------------------------------------------------------------------------

class ToolAnnotations(McpModel):
    """Hints about a tool's behaviour (not guarantees)."""

    title: Optional[str] = None
    read_only_hint: Optional[bool] = None
    destructive_hint: Optional[bool] = None
    idempotent_hint: Optional[bool] = None
    open_world_hint: Optional[bool] = None


class Tool(McpModel):
    """A tool the server offers: ``list_tools()``."""

    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    input_schema: dict[str, Any]
    """The JSON Schema of the arguments."""
    output_schema: Optional[dict[str, Any]] = None
    """The JSON Schema of ``structured_content``, when the tool declares one."""
    annotations: Optional[ToolAnnotations] = None
    icons: Optional[list[Icon]] = None
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


class CallToolResult(McpModel):
    """What ``call_tool()`` returns. A tool that failed says so with ``is_error`` (its
    content tells why); a protocol error raises :class:`~oxmcp.McpError` instead."""

    content: list[ContentBlock] = []
    structured_content: Optional[dict[str, Any]] = None
    is_error: bool = False
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


#: Where a task stands.
TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


class Task(McpModel):
    """A task (the tasks extension), as ``start_tool_task()`` and ``get_task()`` give it:
    ``result`` once ``completed``, ``error`` (the JSON-RPC error) once ``failed``, and in
    ``input_required`` the ``input_requests`` to answer with ``update_task()``."""

    task_id: str
    status: TaskStatus
    status_message: Optional[str] = None
    created_at: str
    last_updated_at: str
    ttl_ms: Optional[int] = None
    poll_interval_ms: Optional[int] = None
    result: Optional[CallToolResult] = None
    error: Optional[dict[str, Any]] = None
    input_requests: Optional[dict[str, Any]] = None


# -- resources -----------------------------------------------------------------------------

class Resource(McpModel):
    """A resource the server offers: ``list_resources()``."""

    uri: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    size: Optional[int] = None
    annotations: Optional[Annotations] = None
    icons: Optional[list[Icon]] = None
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


class ResourceTemplate(McpModel):
    """A family of resources, by URI template: ``list_resource_templates()``."""

    uri_template: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    annotations: Optional[Annotations] = None
    icons: Optional[list[Icon]] = None
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


class ReadResourceResult(McpModel):
    """What ``read_resource()`` returns."""

    contents: list[ResourceContents]
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


# -- skills (the io.modelcontextprotocol/skills extension) ---------------------------------

class SkillResource(McpModel):
    """One file of a skill, with the digest (``sha256:...``) and size of its bytes."""

    uri: str
    digest: str
    size: int


class Skill(McpModel):
    """A skill's entry: ``list_skills()``, ``get_skill()``. ``resources`` lists every file
    (``"dynamic"`` when the server generates them and publishes no digests)."""

    uri: str
    frontmatter: dict[str, Any]
    resources: Union[list[SkillResource], Literal["dynamic"]]

    @property
    def name(self) -> str:
        """The frontmatter's ``name``."""
        return str(self.frontmatter.get("name", ""))

    @property
    def description(self) -> str:
        """The frontmatter's ``description``."""
        return str(self.frontmatter.get("description", ""))


class LoadedSkill(McpModel):
    """What ``load_skill()`` returns: the entry ``SKILL.md`` was checked against (keep it
    while acting on the skill) and the ``SKILL.md`` text."""

    skill: Skill
    markdown: str


# -- prompts -------------------------------------------------------------------------------

class PromptArgument(McpModel):
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    required: bool = False


class Prompt(McpModel):
    """A prompt the server offers: ``list_prompts()``."""

    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    arguments: list[PromptArgument] = []
    """Empty when the server lists none."""
    icons: Optional[list[Icon]] = None
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


class PromptMessage(McpModel):
    role: Role
    content: ContentBlock


class GetPromptResult(McpModel):
    """What ``get_prompt()`` returns."""

    description: Optional[str] = None
    messages: list[PromptMessage]
    meta: Optional[dict[str, Any]] = Field(None, alias="_meta")


# -- completion, capabilities --------------------------------------------------------------

class Completion(McpModel):
    """What ``complete()`` returns: the values, and how many there are in all."""

    values: list[str]
    total: Optional[int] = None
    has_more: Optional[bool] = None


class PromptsCapability(McpModel):
    list_changed: Optional[bool] = None


class ResourcesCapability(McpModel):
    subscribe: Optional[bool] = None
    list_changed: Optional[bool] = None


class ToolsCapability(McpModel):
    list_changed: Optional[bool] = None


class ServerCapabilities(McpModel):
    """What the server declared it can do: :attr:`Client.server_capabilities`. A feature the
    server lacks is ``None``."""

    experimental: Optional[dict[str, Any]] = None
    logging: Optional[dict[str, Any]] = None
    completions: Optional[dict[str, Any]] = None
    prompts: Optional[PromptsCapability] = None
    resources: Optional[ResourcesCapability] = None
    tools: Optional[ToolsCapability] = None


class InitializeResult(McpModel):
    """What the server said when the client connected (in the stateless era, its
    ``server/discover`` answer in the same shape)."""

    protocol_version: str
    capabilities: ServerCapabilities
    server_info: Implementation
    instructions: Optional[str] = None


__all__ = [
    "Annotations", "AudioContent", "BlobResourceContents", "CallToolResult", "Completion", "ContentBlock",
    "EmbeddedResource", "Era", "GetPromptResult", "Icon", "ImageContent", "Implementation", "InitializeResult",
    "LogLevel", "McpModel", "Prompt", "PromptArgument", "PromptMessage", "PromptsCapability", "ReadResourceResult",
    "Resource", "ResourceContents", "ResourceLink", "ResourceTemplate", "ResourcesCapability", "Role",
    "ServerCapabilities", "Skill", "SkillResource", "LoadedSkill", "Task", "TaskStatus", "TextContent", "TextResourceContents", "Tool",
    "ToolAnnotations", "ToolsCapability", "UnknownContent",
]
