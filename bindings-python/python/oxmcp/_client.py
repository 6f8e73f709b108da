"""The :class:`Client`: connect over stdio or HTTP and call a server; every call is a
coroutine, and cancelling it (or timing out) cancels the request at the server."""

from __future__ import annotations

import asyncio
import base64
import inspect
import json
import sys
from typing import (TYPE_CHECKING, Any, Awaitable, Callable, Generator, Iterable, Literal, Mapping, Optional, Sequence,
                    Tuple, TypedDict, TypeVar, Union, cast)

import pydantic

from . import _oxmcp
from ._auth import OAuth
from ._errors import InvalidInput, ProtocolError
from ._model import McpObject, wrap
from ._telemetry import with_trace_context
from .types import (CallToolResult, Completion, Era, GetPromptResult, Implementation, InitializeResult, LoadedSkill,
                    LogLevel, Prompt, ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities, Skill, Task,
                    Tool)

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # pydantic brings typing_extensions along
    from typing_extensions import Unpack

if TYPE_CHECKING:
    from ._server import Server

_T = TypeVar("_T")

#: What a sampling or elicitation handler returns: the result as JSON data, or an awaitable of it.
Answer = Union[Mapping[str, Any], Awaitable[Mapping[str, Any]]]
#: Answers the server's ``sampling/createMessage`` or ``elicitation/create``: ``handler(params)``.
RequestHandler = Callable[[McpObject], Answer]
#: A root: its URI, or ``{"uri": ..., "name": ...}``.
Root = Union[str, Mapping[str, Any]]
#: The client's roots: a list, or a function (plain or async) that lists them when asked.
Roots = Union[Iterable[Root], Callable[[], Union[Iterable[Root], Awaitable[Iterable[Root]]]]]
#: ``on_notification(method, params)``: every notification from the server.
NotificationHandler = Callable[[str, McpObject], object]
#: ``on_log(level, data, logger)``: the server's log messages.
LogHandler = Callable[[LogLevel, Any, Optional[str]], object]
#: ``on_progress(progress, total, message)``, on the event loop.
ProgressHandler = Callable[[float, Optional[float], Optional[str]], object]


class ConnectOptions(TypedDict, total=False):
    """The keywords every way of connecting takes (:meth:`Client.in_memory`)."""

    name: str
    version: str
    sampling: Optional[RequestHandler]
    elicitation: Optional[RequestHandler]
    roots: Optional[Roots]
    on_notification: Optional[NotificationHandler]
    on_log: Optional[LogHandler]
    era: Era


class StdioOptions(ConnectOptions, total=False):
    """The keywords of :meth:`Client.stdio`."""

    env: Optional[Mapping[str, str]]
    cwd: Optional[str]
    stderr: Literal["forward", "discard"]


class HttpOptions(ConnectOptions, total=False):
    """The keywords of :meth:`Client.http`."""

    headers: Optional[Mapping[str, str]]
    auth: Optional[OAuth]


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _parse(adapter: "pydantic.TypeAdapter[_T]", text: Optional[str], method: str) -> _T:
    """A result as its model; one that does not fit is the server breaking the protocol."""
    try:
        return adapter.validate_json(text or "null")
    except pydantic.ValidationError as e:
        raise ProtocolError(None, f"the server's {method} result does not fit the protocol: {e}") from None


# Built once: a TypeAdapter compiles its validator.
_INITIALIZE = pydantic.TypeAdapter(InitializeResult)
_TOOLS = pydantic.TypeAdapter(list[Tool])
_CALL_TOOL = pydantic.TypeAdapter(CallToolResult)
_RESOURCES = pydantic.TypeAdapter(list[Resource])
_TEMPLATES = pydantic.TypeAdapter(list[ResourceTemplate])
_READ = pydantic.TypeAdapter(ReadResourceResult)
_PROMPTS = pydantic.TypeAdapter(list[Prompt])
_GET_PROMPT = pydantic.TypeAdapter(GetPromptResult)
_COMPLETE = pydantic.TypeAdapter(Completion)
_TASK = pydantic.TypeAdapter(Task)
_SKILLS = pydantic.TypeAdapter(list[Skill])
_SKILL = pydantic.TypeAdapter(Skill)
_LOADED_SKILL = pydantic.TypeAdapter(LoadedSkill)


def _progress(on_progress: Optional[ProgressHandler]) -> Optional[Callable[[float, Optional[float], Optional[str]], None]]:
    """The native layer's progress callback for ``on_progress`` (sync or async)."""
    if on_progress is None:
        return None
    handler = on_progress

    def progress(p: float, total: Optional[float], message: Optional[str]) -> None:
        _run_callback(handler(p, total, message))
    return progress

class Client:
    """A connected MCP client.

    Example::

        async with Client.stdio(sys.executable, ["server.py"]) as client:
            tools = await client.list_tools()
            result = await client.call_tool("add", {"a": 1, "b": 2}, timeout=30, on_progress=print)

    ``era`` (a keyword of :meth:`stdio` and :meth:`http`) picks the protocol era:
    ``"auto"`` (the default) asks the server with ``server/discover`` and falls back to
    ``initialize`` when the server is older, ``"session"`` always initializes a session,
    ``"stateless"`` requires a 2026-07-28 server (connecting to an older one fails with
    :class:`ProtocolError`). :attr:`era` tells which the connection speaks. The calls are
    the same in both eras, except: in the stateless era :meth:`subscribe` and
    :meth:`unsubscribe` reopen the client's ``subscriptions/listen`` stream (which also
    brings list changes to ``on_notification`` / ``on_log`` clients); :meth:`set_log_level`
    makes every later request ask for that level (before it, a client with ``on_log`` or
    ``on_notification`` asks for every level, one without them for none); :meth:`ping` is
    a ``server/discover`` round trip; and the
    server's sampling, elicitation and roots questions are answered by the same handlers.

    Results are typed models (:mod:`oxmcp.types`): ``list_tools()`` gives :class:`Tool`
    objects, ``call_tool()`` a :class:`CallToolResult` whose ``content`` blocks are
    ``TextContent``, ``ImageContent``, ... (check with ``isinstance`` before reading
    ``block.text``). :meth:`request` returns any result as its plain JSON.
    """

    def __init__(self, native: _oxmcp.NativeClient) -> None:
        self._native = native
        # An in-memory client holds its server's lifespan until it is closed.
        self._on_close: Optional[Callable[[], Awaitable[None]]] = None
        self._init = _parse(_INITIALIZE, native.initialize_result_json(), "initialize")

    # -- connecting ------------------------------------------------------------------------

    @staticmethod
    def _hooks(sampling: Optional[RequestHandler], elicitation: Optional[RequestHandler], roots: Optional[Roots],
               on_notification: Optional[NotificationHandler], on_log: Optional[LogHandler],
               auth: Optional[OAuth] = None) -> Tuple[list[str], Any, Any]:
        capabilities = [c for c, h in (("sampling", sampling), ("elicitation", elicitation), ("roots", roots)) if h is not None]
        if auth is not None and auth._interactive:
            if auth.redirect_handler is None or auth.callback_handler is None:
                raise InvalidInput(None, "OAuth needs both redirect_handler and callback_handler for a user's browser")
            capabilities.append("authorize")

        async def on_request(method: str, params_json: str) -> str:
            if method == "authorize" and auth is not None:
                # The user's browser: shown the authorization URL, then back with the code.
                await _maybe_await(auth.redirect_handler(json.loads(params_json)["url"]))  # type: ignore[misc]
                landed = await _maybe_await(auth.callback_handler())  # type: ignore[misc]
                if not isinstance(landed, str):
                    raise InvalidInput(None, "callback_handler must return the URL the browser came back to")
                return json.dumps(landed)
            params = wrap(json.loads(params_json))
            if method == "sampling/createMessage" and sampling is not None:
                result = await _maybe_await(sampling(params))
            elif method == "elicitation/create" and elicitation is not None:
                result = await _maybe_await(elicitation(params))
            elif method == "roots/list" and roots is not None:
                listed = roots() if callable(roots) else roots
                listed = await _maybe_await(listed)
                result = {"roots": [r if isinstance(r, dict) else {"uri": str(r)} for r in listed]}
            else:  # pragma: no cover - the engine only forwards what the client declared
                raise ValueError(f"unexpected request {method}")
            return json.dumps(result)

        def notified(method: str, params_json: str) -> None:
            params = wrap(json.loads(params_json))
            if on_log is not None and method == "notifications/message":
                _run_callback(on_log(params.level, params.data, params.logger))
            if on_notification is not None:
                _run_callback(on_notification(method, params))

        listen = notified if (on_notification or on_log) else None
        return capabilities, (on_request if capabilities else None), listen

    @staticmethod
    def _era(era: object) -> str:
        if era is None:
            return "auto"
        if not isinstance(era, str):
            raise InvalidInput(None, f"era must be \"auto\", \"session\" or \"stateless\", not {era!r}")
        return era  # the engine checks the name (InvalidInput for an unknown one)

    @classmethod
    async def connect_stdio(cls, command: str, args: Sequence[str] = (), *, env: Optional[Mapping[str, str]] = None,
                            cwd: Optional[str] = None, stderr: Literal["forward", "discard"] = "forward",
                            name: str = "oxmcp-python", version: str = "0.1.0",
                            sampling: Optional[RequestHandler] = None, elicitation: Optional[RequestHandler] = None,
                            roots: Optional[Roots] = None, on_notification: Optional[NotificationHandler] = None,
                            on_log: Optional[LogHandler] = None, era: Era = "auto") -> "Client":
        """Starts ``command`` (in ``cwd``, with ``env`` added) and connects to it over stdio, in
        ``era`` (see :class:`Client`). What the server writes to its stderr goes to this
        process's stderr as it comes (``stderr="discard"`` drops it)."""
        caps, on_request, listen = cls._hooks(sampling, elicitation, roots, on_notification, on_log)
        options: dict[str, Any] = {"command": command, "args": list(args), "env": dict(env or {}), "name": name,
                                   "version": version, "answers": caps, "era": cls._era(era), "stderr": stderr}
        if cwd is not None:
            options["cwd"] = cwd
        return cls(await _oxmcp.NativeClient.connect(json.dumps(options), on_request, listen))

    @classmethod
    async def connect_http(cls, url: str, *, headers: Optional[Mapping[str, str]] = None, name: str = "oxmcp-python",
                           version: str = "0.1.0", sampling: Optional[RequestHandler] = None,
                           elicitation: Optional[RequestHandler] = None, roots: Optional[Roots] = None,
                           on_notification: Optional[NotificationHandler] = None, on_log: Optional[LogHandler] = None,
                           era: Era = "auto", auth: Optional[OAuth] = None) -> "Client":
        """Connects to a Streamable HTTP server (or a legacy HTTP+SSE one), in ``era``;
        ``auth`` answers a protected server's authorization challenges (see :class:`OAuth`)."""
        caps, on_request, listen = cls._hooks(sampling, elicitation, roots, on_notification, on_log, auth)
        options: dict[str, Any] = {"url": url, "headers": dict(headers or {}), "name": name, "version": version,
                                   "answers": caps, "era": cls._era(era)}
        if auth is not None:
            options["oauth"] = auth._options()
            if auth.token_file is not None:
                options["tokenFile"] = auth.token_file
        return cls(await _oxmcp.NativeClient.connect(json.dumps(options), on_request, listen))

    @classmethod
    async def connect_in_memory(cls, server: "Server", *, name: str = "oxmcp-python", version: str = "0.1.0",
                                sampling: Optional[RequestHandler] = None, elicitation: Optional[RequestHandler] = None,
                                roots: Optional[Roots] = None, on_notification: Optional[NotificationHandler] = None,
                                on_log: Optional[LogHandler] = None, era: Era = "auto") -> "Client":
        """Connects to ``server``, a :class:`Server` of this process, through memory: no
        child process and no socket, for tests. The server keeps serving its other
        clients (stdio, HTTP) as well. The server's lifespan is entered first (unless it
        already runs) and held until the client is closed."""
        caps, on_request, listen = cls._hooks(sampling, elicitation, roots, on_notification, on_log)
        options = {"name": name, "version": version, "answers": caps, "era": cls._era(era)}
        await server._hold()
        try:
            client = cls(await _oxmcp.NativeClient.connect(json.dumps(options), on_request, listen, server._native))
        except BaseException:
            await server._release()
            raise
        client._on_close = server._release
        return client

    # The keywords are TypedDicts (Unpack) rather than repeated, so a type checker still
    # catches a misspelled or mistyped one.

    @classmethod
    def in_memory(cls, server: "Server", **options: Unpack[ConnectOptions]) -> "_Connecting":
        """``async with Client.in_memory(server) as client:``: a client of ``server`` in
        this process (see :meth:`connect_in_memory`), closed at the end of the block."""
        return _Connecting(cls.connect_in_memory(server, **options))

    @classmethod
    def stdio(cls, command: str, args: Sequence[str] = (), **options: Unpack[StdioOptions]) -> "_Connecting":
        """``async with Client.stdio(cmd, args, era="auto") as client:`` (or ``await Client.stdio(...)``).

        Options: ``env``, ``name``, ``version``, ``sampling``, ``elicitation``, ``roots``,
        ``on_notification``, ``on_log``, ``era`` (``"auto"``, ``"session"`` or ``"stateless"``).
        """
        return _Connecting(cls.connect_stdio(command, args, **options))

    @classmethod
    def http(cls, url: str, **options: Unpack[HttpOptions]) -> "_Connecting":
        """``async with Client.http(url, headers={...}, era="auto") as client:``.

        Options: ``headers``, ``name``, ``version``, ``sampling``, ``elicitation``, ``roots``,
        ``on_notification``, ``on_log``, ``era`` (``"auto"``, ``"session"`` or ``"stateless"``),
        ``auth`` (an :class:`OAuth`).
        """
        return _Connecting(cls.connect_http(url, **options))

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the connection (a child process is stopped; an in-memory server's
        lifespan is let go)."""
        try:
            await self._native.close()
        finally:
            on_close, self._on_close = self._on_close, None  # once, however often close is called
            if on_close is not None:
                await on_close()

    # -- what the server said --------------------------------------------------------------

    @property
    def server_info(self) -> Implementation:
        """The server's name and version."""
        return self._init.server_info

    @property
    def server_capabilities(self) -> ServerCapabilities:
        """What the server declared it can do (``None`` for what it cannot)."""
        return self._init.capabilities

    @property
    def protocol_version(self) -> str:
        """The negotiated protocol version (``"2026-07-28"`` in the stateless era)."""
        return self._init.protocol_version

    @property
    def era(self) -> Literal["session", "stateless"]:
        """The era the connection settled on: ``"session"`` or ``"stateless"``."""
        return cast(Literal["session", "stateless"], self._native.era())

    @property
    def instructions(self) -> Optional[str]:
        return self._init.instructions

    # -- calls -----------------------------------------------------------------------------

    async def request(self, method: str, params: Optional[Mapping[str, Any]] = None, *, timeout: Optional[float] = None,
                      on_progress: Optional[ProgressHandler] = None) -> McpObject:
        """Sends any request; ``timeout`` is seconds without a response or progress. In the
        stateless era the request carries the client's ``_meta`` and the server's questions
        are answered with the client's handlers before the result comes back. The result is
        the JSON as it came (an :class:`McpObject`); the named calls below return models."""
        return cast(McpObject, wrap(json.loads(await self._request(method, params, timeout, on_progress) or "null")))

    async def _request(self, method: str, params: Optional[Mapping[str, Any]], timeout: Optional[float] = None,
                       on_progress: Optional[ProgressHandler] = None) -> Optional[str]:
        params = with_trace_context(dict(params or {}))
        return await self._native.call("request", method, params, timeout, _progress(on_progress))

    async def ping(self) -> None:
        """``ping`` (session era); a ``server/discover`` round trip in the stateless era."""
        await self._native.call("ping")

    async def list_tools(self) -> list[Tool]:
        """Every tool (all pages)."""
        return _parse(_TOOLS, await self._native.call("tools/list"), "tools/list")

    async def call_tool(self, name: str, arguments: Optional[Mapping[str, Any]] = None, *,
                        timeout: Optional[float] = None, on_progress: Optional[ProgressHandler] = None,
                        task: bool = False) -> CallToolResult:
        """Calls a tool. ``on_progress(progress, total, message)`` runs on the event loop.

        ``task=True`` lets the server run the call as a task (the tasks extension): this
        still waits for the final result, polling the task and answering what it asks
        with this client's ``sampling``/``elicitation``/``roots`` callbacks; each status
        reaches ``on_progress`` (message ``"working"``, ``"input_required"``...), and
        cancelling the wait cancels the task. ``timeout`` does not apply to a task."""
        if task:
            text = await self._native.call("tools/call as task", name, json.dumps(dict(arguments or {})), None,
                                           _progress(on_progress))
            return _parse(_CALL_TOOL, text, "tools/call")
        text = await self._request("tools/call", {"name": name, "arguments": dict(arguments or {})}, timeout, on_progress)
        return _parse(_CALL_TOOL, text, "tools/call")

    async def start_tool_task(self, name: str, arguments: Optional[Mapping[str, Any]] = None) -> Union[Task, CallToolResult]:
        """Starts a tool call the server may run as a task and returns at once: the
        :class:`Task` to follow with :meth:`get_task` (keep its ``task_id``: it outlives
        this connection), or the result when the server answered at once. The steps
        :meth:`call_tool` with ``task=True`` takes for you."""
        text = await self._native.call("tools/call start task", name, json.dumps(dict(arguments or {})))
        started = json.loads(text or "{}")
        if "task" in started:
            return _parse(_TASK, json.dumps(started["task"]), "tools/call")
        return _parse(_CALL_TOOL, json.dumps(started.get("result")), "tools/call")

    async def get_task(self, task_id: str) -> Task:
        """``tasks/get``: where the task stands, with its result, error or input requests."""
        return _parse(_TASK, await self._native.call("tasks/get", task_id), "tasks/get")

    async def update_task(self, task_id: str, responses: Mapping[str, Any]) -> None:
        """``tasks/update``: answers the task's ``input_requests`` by key (each a result
        of the request asked, e.g. ``{"action": "accept", "content": {...}}``)."""
        await self._native.call("tasks/update", task_id, json.dumps(dict(responses)))

    async def cancel_task(self, task_id: str) -> None:
        """``tasks/cancel``: asks the task to stop (its handler sees the cancellation)."""
        await self._native.call("tasks/cancel", task_id)

    async def list_resources(self) -> list[Resource]:
        """Every resource (all pages)."""
        return _parse(_RESOURCES, await self._native.call("resources/list"), "resources/list")

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        """Every resource template (all pages)."""
        return _parse(_TEMPLATES, await self._native.call("resources/templates/list"), "resources/templates/list")

    async def read_resource(self, uri: str) -> ReadResourceResult:
        return _parse(_READ, await self._request("resources/read", {"uri": uri}), "resources/read")

    async def list_skills(self) -> list[Skill]:
        """Every skill the server lists (all pages; the skills extension). Nothing is
        fetched: a skill's files are read when it is loaded. A listing may be partial:
        :meth:`get_skill` reaches a skill known only by its URI.
        :class:`CapabilityMissing` when the server does not declare the extension."""
        return _parse(_SKILLS, await self._native.call("skills/list"), "skills/list")

    async def get_skill(self, uri: str) -> Skill:
        """The entry of the skill whose ``SKILL.md`` is at ``uri`` (``McpError`` -32602
        when the server serves none there)."""
        return _parse(_SKILL, await self._native.call("skills/get", uri), "skills/get")

    async def load_skill(self, skill: Union[Skill, str]) -> LoadedSkill:
        """Fetches a skill's ``SKILL.md`` and checks it against the entry (``skill``, or
        the one ``skills/get`` gives for a URI): size, digest and frontmatter. Content
        failing a check raises :class:`ProtocolError` and is not returned; refresh the
        entry with :meth:`get_skill` to recover from a stale one."""
        if isinstance(skill, str):
            text = await self._native.call("skills/load", skill)
        else:
            text = await self._native.call("skills/load", skill.uri, skill.model_dump_json(by_alias=True))
        return _parse(_LOADED_SKILL, text, "skills/load")

    async def read_skill_file(self, skill: Skill, path: str) -> bytes:
        """Reads a file of ``skill`` (a path in the skill such as ``references/FORMS.md``,
        or its URI), checked against the entry's size and digest. A file the entry does
        not list raises :class:`ProtocolError` without a request."""
        text = await self._native.call("skills/read", path, skill.model_dump_json(by_alias=True))
        return base64.b64decode(json.loads(text or '""'))

    async def read_directory(self, uri: str) -> list[Resource]:
        """The direct children of a directory resource (``resources/directory/read``, all
        pages): files with their metadata, subdirectories with mime type
        ``inode/directory``."""
        return _parse(_RESOURCES, await self._native.call("resources/directory/read", uri), "resources/directory/read")

    async def subscribe(self, uri: str) -> None:
        """Subscribes to updates of a resource; they reach ``on_notification`` as
        ``notifications/resources/updated``. In the stateless era this reopens the client's
        ``subscriptions/listen`` stream and returns once the server acknowledged it
        (:class:`CapabilityMissing` when the server does not take the subscription)."""
        await self._native.call("resources/subscribe", uri)

    async def unsubscribe(self, uri: str) -> None:
        """Ends a subscription (in the stateless era: drops the URI from the client's
        ``subscriptions/listen`` stream)."""
        await self._native.call("resources/unsubscribe", uri)

    async def list_prompts(self) -> list[Prompt]:
        """Every prompt (all pages)."""
        return _parse(_PROMPTS, await self._native.call("prompts/list"), "prompts/list")

    async def get_prompt(self, name: str, arguments: Optional[Mapping[str, str]] = None) -> GetPromptResult:
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = dict(arguments)
        return _parse(_GET_PROMPT, await self._request("prompts/get", params), "prompts/get")

    async def complete(self, ref: Mapping[str, Any], argument_name: str, value: str,
                       context: Optional[Mapping[str, str]] = None) -> Completion:
        """Completion for a prompt (``{"type": "ref/prompt", "name": ...}``) or template
        (``{"type": "ref/resource", "uri": ...}``) argument; ``context`` holds the values of
        the other arguments."""
        params: dict[str, Any] = {"ref": dict(ref), "argument": {"name": argument_name, "value": value}}
        if context is not None:
            params["context"] = {"arguments": dict(context)}
        text = await self._native.call("completion/complete", None, json.dumps(params))
        # The engine answers the whole CompleteResult; the completion is what callers want.
        completion = json.dumps(json.loads(text or "{}").get("completion"))
        return _parse(_COMPLETE, completion, "completion/complete")

    async def set_log_level(self, level: LogLevel, *, timeout: Optional[float] = None) -> None:
        """The minimum level of the server's log messages: ``logging/setLevel`` in the session
        era; in the stateless era every later request asks for it (no logs before).
        ``timeout`` is seconds without a response, as for :meth:`request`."""
        await self._native.call("logging/setLevel", level, None, timeout)

    def notify_roots_changed(self) -> None:
        self._native.notify_roots_changed()


def _run_callback(result: object) -> None:
    """A callback declared ``async def`` returns a coroutine: it runs as a task of its own
    (the engine calls callbacks on the loop and does not wait for them)."""
    if inspect.isawaitable(result):
        asyncio.ensure_future(result)


class _Connecting:
    """What ``Client.stdio(...)`` returns: awaitable, and an async context manager."""

    def __init__(self, coro: Awaitable[Client]) -> None:
        self._coro = coro
        self._client: Optional[Client] = None

    def __await__(self) -> Generator[Any, None, Client]:
        return self._coro.__await__()

    async def __aenter__(self) -> Client:
        self._client = await self._coro
        return self._client

    async def __aexit__(self, *exc: Any) -> None:
        if self._client is not None:
            await self._client.close()
