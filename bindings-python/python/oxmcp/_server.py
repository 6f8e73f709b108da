"""The :class:`Server`: decorators that register Python functions as MCP tools,
resources and prompts; the engine does the protocol."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import json
import logging
import os
import re
import sys
from typing import (TYPE_CHECKING, Any, AsyncContextManager, AsyncIterator, Awaitable, Callable, Literal, Mapping,
                    Optional, Sequence, TypedDict, TypeVar, Union, cast, overload)

from . import _oxmcp
from ._content import jsonable, tool_result
from ._context import Context
from ._asgi import HttpApp
from ._errors import (ConnectionClosed, HandlerError, InvalidInput, McpError, ProtocolError,
                      RequestCancelled, RequestTimeout, TransportError, Unauthorized)
from ._schema import Signature, doc_summary
from ._telemetry import handler_context
from .types import Transport

if TYPE_CHECKING:
    from ._client import Client

if sys.version_info >= (3, 10):
    from typing import ParamSpec
else:  # pydantic brings typing_extensions along
    from typing_extensions import ParamSpec
if sys.version_info >= (3, 11):
    from typing import Unpack
else:
    from typing_extensions import Unpack

# The decorators hand the function back unchanged; these let type checkers see that.
_P = ParamSpec("_P")
_R = TypeVar("_R")

#: What oxmcp's own calls raise (a client a handler uses...): a handler letting one
#: through failed, unlike one raising an ``McpError`` to answer with it. Not
#: ``CapabilityMissing``: from ``ctx.sample`` and the like it names what this request's
#: client lacks, and passed on it answers the request with -32021 (in the stateless era).
_RAISED_BY_CALLS = (ConnectionClosed, HandlerError, ProtocolError, RequestCancelled, RequestTimeout, TransportError,
                    Unauthorized)

#: The servers whose lifespan is held (serving, listening, an in-memory client, ``async
#: with``): kept here because the engine may call their handlers while nothing else in
#: Python refers to them (``url = await Server(...).start_http()``). A server not held is
#: collected once unreachable, handlers and all (see ``NativeServer.__traverse__``).
_HELD: set["Server"] = set()

#: Whether a tool runs as a task (the tasks extension) for clients that declared it.
TaskSupport = Literal["forbidden", "optional", "required"]

#: Where a handler's exception is logged, with its traceback.
_log = logging.getLogger("oxmcp")

#: ``lifespan(server)``: an async context manager around the time the server serves (or a
#: bare async generator function, which is made one).
Lifespan = Callable[["Server"], Union[AsyncContextManager[Any], AsyncIterator[Any]]]


class ServeOptions(TypedDict, total=False):
    """The keywords of :meth:`Server.start_http` after host and port, which
    :meth:`Server.serve_http` and :meth:`Server.run` pass on (typed, so that a type
    checker catches a misspelled or mistyped one there too)."""

    path: str
    stateless: bool
    json_response: bool
    allowed_hosts: Optional[Sequence[str]]
    allowed_origins: Optional[Sequence[str]]
    max_sessions: Optional[int]
    auth_issuer: Optional[str]
    auth_audience: Optional[str]
    auth_scopes: Sequence[str]
    tool_scopes: Optional[Mapping[str, Sequence[str]]]
    redis: Optional[str]


@dataclasses.dataclass(frozen=True)
class Request:
    """A request as a middleware sees it: its method, its params (``None`` when it has
    none) and its :class:`Context`."""

    method: str
    params: Optional[dict[str, Any]]
    context: Context


#: ``async def middleware(request, call_next) -> result``.
Middleware = Callable[[Request, Callable[..., Awaitable[Any]]], Awaitable[Any]]


#: ``failed(exc)``: the answer for an exception of a handler, or ``None`` to let it go on.
Failed = Callable[[Exception], Optional[str]]


def _bind(fn: Callable, prepare: Callable, finish: Callable, failed: Optional[Failed] = None):
    """The native handler for ``fn``: ``prepare(*native_args)`` gives its keyword arguments,
    ``finish(value)`` the JSON result (written by ``_oxmcp.to_json`` inside the ``try``, so a
    value that is not JSON is the handler's failure), ``failed(exc)`` the answer when ``fn``
    or ``finish`` raises (``None``: the exception goes to the engine). Coroutine functions
    run on the event loop; plain functions run on the engine's worker threads (never
    blocking the loop). Returns the handler and whether it is async."""
    def native_of(native_args: tuple) -> Any:
        return native_args[1] if len(native_args) > 1 else None

    if inspect.iscoroutinefunction(fn):
        async def run_async(*native_args: Any) -> str:
            kwargs = prepare(*native_args)  # invalid arguments are the client's error, not logged
            try:
                with handler_context(native_of(native_args)):
                    return finish(await fn(**kwargs))
            except Exception as exc:
                answer = failed(exc) if failed else None
                if answer is None:
                    raise
                return answer
        return run_async, True

    def run_sync(*native_args: Any) -> str:
        kwargs = prepare(*native_args)
        try:
            with handler_context(native_of(native_args)):
                return finish(fn(**kwargs))
        except Exception as exc:
            answer = failed(exc) if failed else None
            if answer is None:
                raise
            return answer
    return run_sync, False


@dataclasses.dataclass
class Message:
    """A prompt message: a role and a content block (a str is a text block)."""

    role: str
    content: Any

    def to_mcp(self) -> dict:
        from ._content import to_block
        return {"role": self.role, "content": to_block(self.content)}


def _prompt_messages(value: Any) -> list:
    items = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in items:
        if isinstance(item, Message):
            out.append(item.to_mcp())
        elif isinstance(item, dict) and "role" in item:
            out.append(item)
        else:
            out.append(Message("user", item).to_mcp())
    return out


def _resource_kwargs(sig: Signature, template: bool, read: dict, native: Any, context: Callable[[Any], Context],
                     any_variable: bool = False) -> dict:
    """The keyword arguments of a resource function: the template's variables, and the URI
    read for a ``uri`` parameter that is not a variable. With ``any_variable`` (the function
    takes ``**kwargs``) variables that name no parameter go in as the engine gives them."""
    values = dict(read.get("variables") or {}) if template else {}
    takes_uri = "uri" in sig.model.model_fields and "uri" not in values
    if takes_uri:
        values["uri"] = read["uri"]
    kwargs = sig.arguments(json.dumps(values)) if template or takes_uri else {}
    if any_variable:
        for key, value in values.items():
            kwargs.setdefault(key, value)
    if sig.context_param:
        kwargs[sig.context_param] = context(native)
    return kwargs


def _template_variables(uri: str) -> list[str]:
    """The variable names of a URI template, read as the engine reads them: ``{a,b}`` after an
    optional operator (``{+path}``, ``{?q,lang}``), each name without ``*`` or ``:N``."""
    names = []
    for body in re.findall(r"\{([^}]*)\}", uri):
        if body and body[0] in "+#./;?&":
            body = body[1:]
        names += [v.rstrip("*").split(":")[0] for v in body.split(",")]
    return [n for n in names if n]  # the engine itself refuses empty ones


def _takes_any_keyword(fn: Callable[..., Any]) -> bool:
    return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(fn).parameters.values())


def _resource_contents(uri: str, value: Any, mime_type: Optional[str]) -> list:
    import base64
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if isinstance(item, (bytes, bytearray)):
            entry = {"uri": uri, "blob": base64.b64encode(bytes(item)).decode("ascii")}
            entry["mimeType"] = mime_type or "application/octet-stream"
        elif isinstance(item, str):
            entry = {"uri": uri, "text": item}
            if mime_type:
                entry["mimeType"] = mime_type
        else:
            entry = {"uri": uri, "text": json.dumps(jsonable(item), ensure_ascii=False), "mimeType": mime_type or "application/json"}
        out.append(entry)
    return out


class Server:
    """An MCP server whose tools, resources and prompts are Python functions.

    Example::

        from oxmcp import Server, Context

        server = Server("demo", version="1.0.0")

        @server.tool  # or @server.tool(name=..., description=...)
        async def add(a: int, b: int, ctx: Context) -> int:
            \"\"\"Add two numbers.\"\"\"
            await ctx.report_progress(50, 100)
            return a + b

        server.run()  # stdio; or server.run(transport="http", port=8000)
    """

    def __init__(self, name: str, version: str = "0.1.0", instructions: Optional[str] = None, *,
                 lifespan: Optional[Lifespan] = None, mask_error_details: bool = False,
                 task_ttl: Optional[float] = 3600.0, task_poll_interval: float = 0.5, max_tasks: int = 10_000,
                 max_running_tasks: int = 1000) -> None:
        """``lifespan(server)``: an async context manager entered when the server starts
        serving and exited when it stops; what it yields is :attr:`Context.lifespan`.
        ``mask_error_details``: a handler's exception reaches the client as a generic
        message ("internal error in tool 'x'") instead of its text (the server's log has
        it whole); a raised :class:`McpError` is still sent as it is.

        Tasks (tools with ``task_support``): each is kept ``task_ttl`` seconds after its
        creation (``None``: no limit), clients are asked to poll every
        ``task_poll_interval`` seconds, and at most ``max_tasks`` are kept and
        ``max_running_tasks`` run at once (past either, a call that would start one is
        refused)."""
        self.name = name
        self._native = _oxmcp.NativeServer(name, version, instructions)
        self._native.set_task_options(json.dumps({
            "ttlMs": None if task_ttl is None else round(task_ttl * 1000),
            "pollIntervalMs": round(task_poll_interval * 1000), "maxTasks": max_tasks,
            "maxRunning": max_running_tasks}))
        # What is registered, by kind ("tool", "prompt": names; "resource": URIs and
        # templates): the engine would silently keep only the later of two.
        self._registered: dict[str, set[str]] = {"tool": set(), "prompt": set(), "resource": set()}
        self._mask_error_details = mask_error_details
        if lifespan is not None and inspect.isasyncgenfunction(lifespan):
            lifespan = contextlib.asynccontextmanager(lifespan)  # a bare async generator, as Starlette takes
        self._lifespan = cast(Optional[Callable[["Server"], AsyncContextManager[Any]]], lifespan)
        # The lifespan is entered by the first of its holders (stdio serving, the HTTP
        # listener, an in-memory client, ``async with server``) and exited by the last.
        self._holders = 0
        self._lifespan_exit: Optional[Callable[[], Awaitable[Any]]] = None
        self._lifespan_value: Any = None
        self._http_held = False
        # The servers mounted here, and those whose lifespans this one's holds now.
        self._mounted: list[Server] = []
        self._mounted_held: list[Server] = []
        self._lock: Optional[asyncio.Lock] = None
        self._lock_loop: Optional[asyncio.AbstractEventLoop] = None

    def _context(self, native: Any) -> Context:
        return Context(native, lifespan=self._lifespan_value)

    def _failed(self, kind: str, name: str) -> Failed:
        """The answer for an exception of the ``kind`` handler ``name``: logged with its
        traceback (a tool's becomes an ``isError`` result, others' a -32603 error, by the
        engine); masked, a generic message instead of its text. An ``McpError`` is the
        handler's deliberate answer: neither logged nor masked; but the errors of oxmcp's
        own calls (a timeout or a lost connection of a client the handler used) are
        failures like any other."""
        def failed(exc: Exception) -> Optional[str]:
            if isinstance(exc, McpError) and not isinstance(exc, _RAISED_BY_CALLS):
                return None
            _log.error("%s %r failed", kind, name, exc_info=exc)
            if self._mask_error_details:
                message = f"internal error in {kind} {name!r}"
            elif isinstance(exc, McpError):
                message = exc.message  # not its JSON-RPC code: that was another peer's answer
            else:
                return None
            if kind == "tool":
                return json.dumps({"content": [{"type": "text", "text": message}], "isError": True})
            raise McpError(-32603, message) from None
        return failed

    # -- registration ----------------------------------------------------------------------

    def _check_new(self, kind: str, key: str, replace: bool) -> None:
        if key in self._registered[kind] and not replace:
            what = "a resource with URI" if kind == "resource" else f"a {kind} named"
            raise InvalidInput(None, f"server {self.name!r} already has {what} {key!r}; "
                                     f"pass replace=True to the decorator to replace it")

    @overload
    def tool(self, fn: Callable[_P, _R], /) -> Callable[_P, _R]: ...

    @overload
    def tool(self, name: Optional[str] = None, *, description: Optional[str] = None, title: Optional[str] = None,
             annotations: Optional[dict[str, Any]] = None, structured_output: Optional[bool] = None,
             input_schema: Optional[dict[str, Any]] = None, task_support: Optional[TaskSupport] = None,
             escalating: bool = False, replace: bool = False) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]: ...

    def tool(self, name: Union[str, Callable[..., Any], None] = None, *, description: Optional[str] = None,
             title: Optional[str] = None, annotations: Optional[dict[str, Any]] = None,
             structured_output: Optional[bool] = None, input_schema: Optional[dict[str, Any]] = None,
             task_support: Optional[TaskSupport] = None, escalating: bool = False, replace: bool = False) -> Any:
        """Registers a function as a tool: ``@server.tool`` or ``@server.tool(...)``. Its input
        schema comes from the signature, unless ``input_schema`` gives one exactly (a JSON
        Schema dict): then the function receives the validated arguments as plain JSON
        values, by keyword. A second tool of one name is an error unless ``replace=True``.

        ``task_support="optional"`` runs the tool as a task (the tasks extension) for clients
        that declared it: they get a task handle at once and follow it while the function
        runs in the background (``ctx.elicit`` and the like become the task's input
        requests); ``"required"`` refuses other clients (-32021). With ``escalating=True``
        the call starts inline instead (its questions asked as any call's) and becomes a
        task when the function awaits ``ctx.escalate_to_task()``."""
        if callable(name):
            return self.tool()(name)  # bare @server.tool: ``name`` is the function

        def decorate(fn: Callable[_P, _R]) -> Callable[_P, _R]:
            tool_name = name or fn.__name__
            self._check_new("tool", tool_name, replace)
            sig = Signature(fn, Context, explicit_schema=input_schema is not None)
            tool: dict = {"name": tool_name, "description": description or doc_summary(fn) or "",
                          "inputSchema": input_schema if input_schema is not None else sig.input_schema()}
            output = sig.output_schema() if structured_output is not False else None
            if output is not None:
                tool["outputSchema"] = output
            if title:
                tool["title"] = title
            if annotations:
                tool["annotations"] = annotations
            if task_support is not None:
                tool["execution"] = {"taskSupport": task_support}
            if escalating:
                # The engine checks that the tool may run as a task, as for every host.
                tool["escalating"] = True

            def prepare(args_json: str, native: Any) -> dict:
                kwargs = json.loads(args_json) if input_schema is not None else sig.arguments(args_json)
                if sig.context_param:
                    kwargs[sig.context_param] = self._context(native)
                return kwargs

            handler, is_async = _bind(fn, prepare, lambda v: _oxmcp.to_json(tool_result(v)),
                                      self._failed("tool", tool_name))
            self._native.register("tool", json.dumps(tool), handler, is_async)
            self._registered["tool"].add(tool_name)
            return fn

        return decorate

    def resource(self, uri: str, *, name: Optional[str] = None, description: Optional[str] = None,
                 mime_type: Optional[str] = None, title: Optional[str] = None,
                 replace: bool = False) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
        """Registers a resource; a URI with ``{variables}`` is a template whose variables
        become the function's arguments (each must name a parameter, unless the function
        takes ``**kwargs``). A ``uri`` parameter that is not a variable gets the URI read.
        Return str (text), bytes (blob) or JSON data. A second resource of one URI is an
        error unless ``replace=True``."""
        if not isinstance(uri, str):
            # A bare @server.resource hands the function over as the URI.
            raise TypeError("server.resource needs the resource's URI: use @server.resource(\"scheme://path\"), "
                            f"not {uri!r}")

        def decorate(fn: Callable[_P, _R]) -> Callable[_P, _R]:
            self._check_new("resource", uri, replace)
            template = "{" in uri
            any_variable = _takes_any_keyword(fn)
            # explicit_schema lets **kwargs through (template variables arrive there).
            sig = Signature(fn, Context, explicit_schema=any_variable)
            if template and not any_variable:
                # Found now rather than when a client first reads the resource.
                unknown = [v for v in _template_variables(uri) if v not in sig.model.model_fields]
                if unknown:
                    names = ("variable " if len(unknown) == 1 else "variables ") + ", ".join(map(repr, unknown))
                    raise InvalidInput(None, f"resource template {uri!r}: {fn.__name__}() has no parameter for "
                                             f"{names} (add one of that name, or **kwargs)")
            meta = {"name": name or fn.__name__}
            for key, value in (("description", description or doc_summary(fn)), ("mimeType", mime_type), ("title", title)):
                if value:
                    meta[key] = value
            # The engine hands every resource read over as {"uri", "variables"}; the keyword
            # arguments are built then, so call ``fn`` untyped.
            call: Callable[..., Any] = fn
            failed = self._failed("resource", uri)  # not a tool: returns None or raises
            if inspect.iscoroutinefunction(fn):
                async def handler(input_json: str, native: Any) -> str:
                    read = json.loads(input_json)
                    kwargs = _resource_kwargs(sig, template, read, native, self._context, any_variable)
                    try:
                        with handler_context(native):
                            value = await call(**kwargs)
                        return _oxmcp.to_json({"contents": _resource_contents(read["uri"], value, mime_type)})
                    except Exception as exc:
                        failed(exc)  # logs it; raises the generic error when masking
                        raise
            else:
                def handler(input_json: str, native: Any) -> str:  # type: ignore[misc]
                    read = json.loads(input_json)
                    kwargs = _resource_kwargs(sig, template, read, native, self._context, any_variable)
                    try:
                        with handler_context(native):
                            value = call(**kwargs)
                        return _oxmcp.to_json({"contents": _resource_contents(read["uri"], value, mime_type)})
                    except Exception as exc:
                        failed(exc)  # logs it; raises the generic error when masking
                        raise
            is_async = inspect.iscoroutinefunction(fn)
            if template:
                self._native.register("resource template", json.dumps({"uriTemplate": uri, **meta}), handler, is_async)
            else:
                self._native.register("resource", json.dumps({"uri": uri, **meta}), handler, is_async)
            self._registered["resource"].add(uri)
            return fn

        return decorate

    @overload
    def prompt(self, fn: Callable[_P, _R], /) -> Callable[_P, _R]: ...

    @overload
    def prompt(self, name: Optional[str] = None, *, description: Optional[str] = None, title: Optional[str] = None,
               replace: bool = False) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]: ...

    def prompt(self, name: Union[str, Callable[..., Any], None] = None, *, description: Optional[str] = None,
               title: Optional[str] = None, replace: bool = False) -> Any:
        """Registers a prompt: ``@server.prompt`` or ``@server.prompt(...)``. Return a str, a
        :class:`Message`, or a list of them. A second prompt of one name is an error unless
        ``replace=True``."""
        if callable(name):
            return self.prompt()(name)  # bare @server.prompt: ``name`` is the function

        def decorate(fn: Callable[_P, _R]) -> Callable[_P, _R]:
            prompt_name = name or fn.__name__
            self._check_new("prompt", prompt_name, replace)
            sig = Signature(fn, Context)
            schema = sig.input_schema()
            required = set(schema.get("required", []))
            arguments = []
            for arg, prop in schema.get("properties", {}).items():
                entry = {"name": arg, "required": arg in required}
                if prop.get("description"):
                    entry["description"] = prop["description"]
                arguments.append(entry)
            prompt: dict = {"name": prompt_name, "arguments": arguments}
            if description or doc_summary(fn):
                prompt["description"] = description or doc_summary(fn)
            if title:
                prompt["title"] = title
            def prepare(args_json: str, native: Any) -> dict:
                kwargs = sig.arguments(args_json)
                if sig.context_param:
                    kwargs[sig.context_param] = self._context(native)
                return kwargs

            def finish(value: Any) -> str:
                return _oxmcp.to_json({"messages": _prompt_messages(value)})

            handler, is_async = _bind(fn, prepare, finish, self._failed("prompt", prompt_name))
            self._native.register("prompt", json.dumps(prompt), handler, is_async)
            self._registered["prompt"].add(prompt_name)
            return fn

        return decorate

    @overload
    def completion(self, fn: Callable[_P, _R], /) -> Callable[_P, _R]: ...

    @overload
    def completion(self) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]: ...

    def completion(self, fn: Optional[Callable[..., Any]] = None) -> Any:
        """Registers the completion function ``fn(ref, argument, context) -> list[str]``:
        ``ref`` is the prompt or template reference, ``argument`` has ``name`` and ``value``.
        ``@server.completion`` or ``@server.completion()``."""
        if fn is not None:
            return self.completion()(fn)

        def decorate(fn: Callable[_P, _R]) -> Callable[_P, _R]:
            def prepare(params_json: str, native: Any) -> dict:
                p = json.loads(params_json)
                return {"ref": p["ref"], "argument": p["argument"], "context": p.get("context")}

            def finish(value: Any) -> str:
                # A list is the whole answer; the engine caps what is sent at the
                # specification's 100 values (and then says there is more).
                values = list(value)
                return _oxmcp.to_json({"values": values, "total": len(values), "hasMore": False})

            handler, is_async = _bind(fn, prepare, finish, self._failed("completion", fn.__name__))
            self._native.register("completion", "{}", handler, is_async)
            return fn

        return decorate

    def token_verifier(self, fn: Callable[_P, _R]) -> Callable[_P, _R]:
        """Registers ``fn(token) -> dict | None`` (plain or async) as the check of access
        tokens on a protected HTTP listener (``start_http(auth_issuer=...)``), instead of
        JWTs of the issuer: it answers who the token speaks for (``subject``, ``client_id``,
        ``scopes``, ``claims``, any left out), or ``None`` (or raises) to refuse it.

        Example::

            @server.token_verifier
            async def check(token: str):
                return {"subject": "alice", "scopes": ["mcp:read"]} if token == "s3cret" else None
        """
        def prepare(input_json: str) -> dict:
            return {"token": json.loads(input_json)["token"]}

        def finish(info: Any) -> Optional[str]:
            if info is None:
                return None  # the engine refuses the token
            names = {"subject": "subject", "client_id": "clientId", "scopes": "scopes", "expires_at": "expiresAt",
                     "claims": "claims"}
            return json.dumps({names.get(k, k): v for k, v in dict(info).items()})

        handler, is_async = _bind(fn, prepare, finish)
        self._native.verify_tokens(handler, is_async)
        return fn

    def skill(self, path: str, files: Mapping[str, str]) -> None:
        """Serves an Agent Skill (the ``io.modelcontextprotocol/skills`` extension):
        ``files`` maps each file's path in the skill to its text, ``SKILL.md`` (with
        ``name`` and ``description`` frontmatter) among them. Clients find it with
        ``skills/list`` and read its files at ``skill://<path>/<file>``; the last segment
        of ``path`` is the skill's name. A skill breaking the extension's rules raises
        ``InvalidInput`` now.

        >>> server = Server("docs")
        >>> server.skill("git-workflow", {
        ...     "SKILL.md": "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n",
        ...     "references/naming.md": "feature/<ticket>-<slug>\n",
        ... })
        """
        self._native.add_skill(path, json.dumps(dict(files)))

    def skills_dir(self, root: Union[str, "os.PathLike[str]"]) -> None:
        """Serves every skill under the directory ``root``: each directory holding a
        ``SKILL.md``, at its path relative to ``root`` (``root/acme/refunds/SKILL.md`` is
        ``skill://acme/refunds/SKILL.md``), with all its files (binary ones too). Read and
        checked now."""
        self._native.add_skills_dir(os.fspath(root))

    def remove_tool(self, name: str) -> bool:
        """Removes a tool (clients are told the list changed); whether it existed, staged
        or live."""
        self._registered["tool"].discard(name)
        return self._native.remove("tool", name)

    def remove_prompt(self, name: str) -> bool:
        """Removes a prompt (clients are told the list changed); whether it existed."""
        self._registered["prompt"].discard(name)
        return self._native.remove("prompt", name)

    def remove_resource(self, uri: str) -> bool:
        """Removes a resource (not a template; clients are told the list changed); whether
        it existed."""
        self._registered["resource"].discard(uri)
        return self._native.remove("resource", uri)

    def mount(self, prefix: str, other: Server) -> None:
        """Serves ``other``'s tools, prompts, resources and templates too, under ``prefix``:
        names become ``prefix_name``, URIs ``scheme://prefix/rest`` (a read reaches
        ``other`` with its own URI). What ``other`` has when this server starts serving
        counts (or now, if it serves already); its handlers run on this server's loop.
        ``other``'s lifespan is entered and exited with this server's (when mounted
        before this server starts serving)."""
        self._native.mount(prefix, other._native)
        self._mounted.append(other)

    async def mount_client(self, prefix: str, client: Client) -> None:
        """Serves what ``client``'s server offers now under ``prefix``, as :meth:`mount`
        does, each call, read and prompt forwarded to it (cancellation too): a proxy of a
        remote server inside this one. This starts the engine's server: register
        templates, completion and middleware before."""
        await self._native.mount_client(prefix, client._native)

    def middleware(self, fn: Middleware) -> Middleware:
        """Registers ``async def fn(request, call_next)`` around every request the server
        routes (tool calls, reads, prompts, completion and their lists), in both eras:
        ``request`` has ``method``, ``params`` and ``context``; ``await call_next()`` (or
        ``call_next(changed_params)``) runs the rest and gives the result as a dict, which
        ``fn`` returns (or changes, or replaces). Raising :class:`McpError` answers with that
        JSON-RPC error. The first registered is the outermost. Register before serving.

        Example::

            @server.middleware
            async def timing(request, call_next):
                started = time.perf_counter()
                try:
                    return await call_next()
                finally:
                    log.info("%s took %.1f ms", request.method, (time.perf_counter() - started) * 1e3)
        """
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"middleware {getattr(fn, '__name__', fn)!r} must be an async function")

        failed = self._failed("middleware", getattr(fn, "__name__", repr(fn)))

        async def handler(input_json: str, native: Any) -> str:
            data = json.loads(input_json)
            request = Request(data["method"], data.get("params"), self._context(native))

            async def call_next(params: Optional[dict[str, Any]] = None) -> Any:
                return json.loads(await native.call("next", "" if params is None else json.dumps(params)))

            try:
                return json.dumps(await fn(request, call_next), ensure_ascii=False)
            except Exception as exc:
                failed(exc)  # logs it (an McpError from call_next is not); raises the generic error when masking
                raise

        self._native.register("middleware", "{}", handler, True)
        return fn

    @property
    def session_count(self) -> int:
        """How many sessions are open (0 before serving): one per stdio, in-memory or
        session-era HTTP client; a stateless-era HTTP request is one only while it is
        served."""
        return self._native.session_count()

    def notify_resource_updated(self, uri: str) -> None:
        """Tells clients subscribed to ``uri`` that it changed."""
        self._native.notify_resource_updated(uri)

    # -- lifespan --------------------------------------------------------------------------

    def _loop_lock(self) -> asyncio.Lock:
        """The lock of the lifespan's holders, on this event loop. A server may be served
        from one loop, then another (each ``asyncio.run`` of a test): what a closed loop
        still held is given up, unexited (its loop can run nothing any more)."""
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:
            if self._lock_loop is not None and self._lock_loop.is_closed():
                self._holders, self._lifespan_exit, self._lifespan_value, self._http_held = 0, None, None, False
                _HELD.discard(self)
                self._mounted_held = []
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock

    async def _hold(self) -> None:
        """One more holder of the lifespan; the first enters it."""
        async with self._loop_lock():
            if self._holders == 0:
                await self._enter_lifespans()
            self._holders += 1
            _HELD.add(self)

    async def _enter_lifespans(self) -> None:
        """This server's lifespan, then those of the servers mounted here; on a failure,
        what was entered is exited again."""
        entered: list[Server] = []
        try:
            if self._lifespan is not None:
                manager = self._lifespan(self)
                self._lifespan_value = await manager.__aenter__()
                self._lifespan_exit = lambda: manager.__aexit__(None, None, None)
            for other in self._mounted:
                await other._hold()
                entered.append(other)
        except BaseException:
            self._mounted_held = entered
            await self._exit_lifespans()
            raise
        self._mounted_held = entered

    async def _exit_lifespans(self) -> None:
        held, self._mounted_held = self._mounted_held, []
        for other in reversed(held):
            await other._release()
        if self._lifespan_exit is not None:
            exit_lifespan, self._lifespan_exit, self._lifespan_value = self._lifespan_exit, None, None
            await exit_lifespan()

    async def _release(self) -> None:
        """One holder fewer; the last exits the lifespan (without the exception that ended
        the serving, if any: stopping is the normal end, and the cleanup after ``yield``
        runs whether or not it sits in a ``finally``)."""
        async with self._loop_lock():
            if self._holders == 0:
                return  # given up with a closed loop
            self._holders -= 1
            if self._holders == 0:
                _HELD.discard(self)
                await self._exit_lifespans()

    async def __aenter__(self) -> "Server":
        """``async with server:`` holds the lifespan for the block: in a test, one lifespan
        for several in-memory clients (each of which holds it as long as it is open)."""
        await self._hold()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._release()

    # -- serving ---------------------------------------------------------------------------

    async def serve_stdio(self) -> None:
        """Serves one client on stdin/stdout until stdin closes (the lifespan around it)."""
        await self._hold()
        try:
            await self._native.serve_stdio()
        finally:
            await self._release()

    async def start_http(self, host: str = "127.0.0.1", port: int = 8000, *, path: str = "/mcp",
                         stateless: bool = False, json_response: bool = False,
                         allowed_hosts: Optional[Sequence[str]] = None, allowed_origins: Optional[Sequence[str]] = None,
                         max_sessions: Optional[int] = None, auth_issuer: Optional[str] = None,
                         auth_audience: Optional[str] = None, auth_scopes: Sequence[str] = (),
                         tool_scopes: Optional[Mapping[str, Sequence[str]]] = None,
                         redis: Optional[str] = None) -> str:
        """Starts Streamable HTTP (and legacy SSE on /sse) in the background; returns the URL.
        Port 0 picks a free port.

        ``redis="redis://HOST:PORT"`` shares sessions, streams, tasks and the
        ``requestState`` key with every server started with the same Redis, so that any
        number of them behind a load balancer (no sticky sessions needed) act as one
        server. Give it on the first start, before the server serves anything else.

        ``allowed_hosts`` and ``allowed_origins`` are the ``Host`` and ``Origin`` header
        values accepted (by default only the local ones: a guard against DNS rebinding; a
        server behind a proxy or on another name lists its names here; an origin is
        given whole, ``"https://app.example.com"``, or as a host name, any scheme and
        port); ``max_sessions`` caps the sessions kept at once.

        ``auth_issuer`` protects the endpoint with OAuth: requests need an access token (a
        JWT of that issuer, checked against its published keys) for ``auth_audience``
        (default: this endpoint's URL) with ``auth_scopes``, and a call of a tool named in
        ``tool_scopes`` needs those too; handlers see who the token speaks for in
        :attr:`Context.auth`."""
        options = _http_options(path, stateless, json_response, allowed_hosts, allowed_origins, max_sessions,
                                auth_issuer, auth_audience, auth_scopes, tool_scopes)
        options.update(host=host, port=port)
        if redis is not None:
            options["redis"] = redis
        await self._hold()  # the lifespan is entered before the first request can come
        try:
            url = await self._native.start_http(json.dumps(options))
        except BaseException:
            await self._release()
            raise
        if self._http_held:
            await self._release()  # one hold for the listener, however often it is started
        self._http_held = True
        return url

    async def stop_http(self) -> None:
        """Stops the HTTP server, letting in-flight requests finish; then the lifespan ends
        (unless something else holds it)."""
        await self._native.stop_http()
        if self._http_held:
            self._http_held = False
            await self._release()

    def http_app(self, path: str = "/mcp", *, stateless: bool = False, json_response: bool = False,
                 allowed_hosts: Optional[Sequence[str]] = None, allowed_origins: Optional[Sequence[str]] = None,
                 max_sessions: Optional[int] = None, auth_issuer: Optional[str] = None,
                 auth_audience: Optional[str] = None, auth_scopes: Sequence[str] = (),
                 tool_scopes: Optional[Mapping[str, Sequence[str]]] = None) -> HttpApp:
        """This server as an ASGI application, to run in uvicorn or mount in Starlette or
        FastAPI beside routes of your own; the endpoint is ``path`` under the mount.
        The options are :meth:`start_http`'s; a protected server names its
        ``auth_audience`` (the URL clients use), and legacy HTTP+SSE is not served.

        ::

            from starlette.applications import Starlette
            from starlette.routing import Mount, Route

            mcp = server.http_app(allowed_hosts=["api.example.com"])
            app = Starlette(routes=[Route("/health", health), Mount("/api", mcp)], lifespan=mcp.lifespan)
            # clients connect to https://api.example.com/api/mcp
        """
        options = _http_options(path, stateless, json_response, allowed_hosts, allowed_origins, max_sessions,
                                auth_issuer, auth_audience, auth_scopes, tool_scopes)
        return HttpApp(self, options)

    async def serve_http(self, host: str = "127.0.0.1", port: int = 8000, **options: Unpack[ServeOptions]) -> None:
        """Serves Streamable HTTP until cancelled; says where on stderr."""
        url = await self.start_http(host, port, **options)
        print(f"{self.name}: serving MCP on {url}", file=sys.stderr, flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await self.stop_http()

    def run(self, transport: Transport = "stdio", host: str = "127.0.0.1", port: int = 8000,
            **options: Unpack[ServeOptions]) -> None:
        """Runs the server (blocking): ``transport="stdio"`` or ``"http"`` (``options``
        are :meth:`start_http`'s)."""
        if transport == "stdio":
            asyncio.run(self.serve_stdio())
        elif transport in ("http", "streamable-http"):
            try:
                asyncio.run(self.serve_http(host, port, **options))
            except KeyboardInterrupt:
                pass
        else:
            raise ValueError(f"unknown transport {transport!r}: use 'stdio' or 'http'")


def _http_options(path: str, stateless: bool, json_response: bool, allowed_hosts: Optional[Sequence[str]],
                  allowed_origins: Optional[Sequence[str]], max_sessions: Optional[int], auth_issuer: Optional[str],
                  auth_audience: Optional[str], auth_scopes: Sequence[str],
                  tool_scopes: Optional[Mapping[str, Sequence[str]]]) -> dict[str, Any]:
    """The engine's HTTP options (the core's ``HttpOptions`` JSON) from the keywords."""
    options: dict[str, Any] = {"path": path, "stateless": stateless, "jsonResponse": json_response}
    if allowed_hosts is not None:
        options["allowedHosts"] = list(allowed_hosts)
    if allowed_origins is not None:
        options["allowedOrigins"] = list(allowed_origins)
    if max_sessions is not None:
        options["maxSessions"] = max_sessions
    if auth_issuer is not None:
        options["auth"] = {"issuer": auth_issuer, "scopes": list(auth_scopes),
                           "toolScopes": {k: list(v) for k, v in (tool_scopes or {}).items()}}
        if auth_audience is not None:
            options["auth"]["audience"] = auth_audience
    return options
