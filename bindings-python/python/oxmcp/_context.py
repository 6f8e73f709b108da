"""The :class:`Context` a handler can ask for by annotating a parameter with it."""

from __future__ import annotations

import json
from typing import Any, Generator, Optional, Union, cast

import pydantic

from . import _oxmcp
from ._form import form_schema
from .types import ReadResourceResult
from ._model import McpObject, wrap
from .types import LogLevel


class _Done:
    """Already done, yet awaitable: ``ctx.report_progress(...)`` works with and without ``await``."""

    def __await__(self) -> Generator[None, None, None]:
        return
        yield  # pragma: no cover


_DONE = _Done()


class Context:
    """One request's context: progress, logging, cancellation, and questions to the client.

    Ask for it by annotating a handler parameter with ``Context``::

        @server.tool()
        async def work(n: int, ctx: Context) -> str:
            await ctx.report_progress(0, n)
            ...
    """

    def __init__(self, native: _oxmcp.NativeContext, *, lifespan: Any = None) -> None:
        self._native = native
        self._lifespan = lifespan
        self._facts: Optional[dict[str, Any]] = None

    def _info(self) -> dict[str, Any]:
        """The request's facts, asked of the engine once (they do not change)."""
        if self._facts is None:
            self._facts = json.loads(self._native.call_now("info") or "null") or {}
        return self._facts

    def _fact(self, name: str) -> Optional[McpObject]:
        value = self._info().get(name)
        return cast(McpObject, wrap(value)) if value is not None else None

    @property
    def lifespan(self) -> Any:
        """What the server's lifespan yielded (``Server(..., lifespan=...)``), as it was when
        the request came; ``None`` without a lifespan."""
        return self._lifespan

    @property
    def request_id(self) -> Union[int, str]:
        """The client's id for this request."""
        return cast(Union[int, str], self._info()["requestId"])

    @property
    def cancelled(self) -> bool:
        """Whether the client cancelled (sync handlers poll this; async ones get CancelledError)."""
        return bool(self._native.call_now("cancelled") == "true")

    @property
    def client_info(self) -> Optional[McpObject]:
        """The client's name and version."""
        return self._fact("clientInfo")

    @property
    def auth(self) -> Optional[McpObject]:
        """Who the request's verified access token speaks for, on a protected server:
        ``subject``, ``client_id``, ``scopes``, ``expires_at``, ``claims``."""
        return self._fact("auth")

    @property
    def headers(self) -> Optional[dict[str, str]]:
        """The HTTP request's headers (lower-case names; ``Authorization`` is left out, see
        :attr:`auth`), or ``None`` when the request did not come over HTTP."""
        headers: Optional[dict[str, str]] = self._info().get("headers")
        return headers

    @property
    def client_capabilities(self) -> Optional[McpObject]:
        """What the client declared it can do."""
        return self._fact("clientCapabilities")

    @property
    def progress_token(self) -> Union[int, str, None]:
        """The progress token the client attached, if any."""
        return cast(Union[int, str, None], self._info().get("progressToken"))

    @property
    def protocol_version(self) -> Optional[str]:
        """The negotiated protocol version."""
        return cast(Optional[str], self._info().get("protocolVersion"))

    def report_progress(self, progress: float, total: Optional[float] = None, message: Optional[str] = None) -> _Done:
        """Sends a progress notification (if the client asked for progress)."""
        params: dict[str, Any] = {"progress": float(progress)}
        if total is not None:
            params["total"] = float(total)
        if message is not None:
            params["message"] = message
        self._native.call_now("progress", json.dumps(params))
        return _DONE

    def log(self, level: LogLevel, data: Any, logger: Optional[str] = None) -> _Done:
        """Sends a log message to the client at ``level`` (``"debug"``, ``"info"``,
        ``"notice"``, ``"warning"``, ``"error"``, ``"critical"``, ``"alert"`` or
        ``"emergency"``); ``data`` is any JSON data."""
        self._native.call_now("log", json.dumps({"level": level, "data": data, "logger": logger}))
        return _DONE

    def debug(self, data: Any) -> _Done:
        return self.log("debug", data)

    def info(self, data: Any) -> _Done:
        return self.log("info", data)

    def notice(self, data: Any) -> _Done:
        return self.log("notice", data)

    def warning(self, data: Any) -> _Done:
        return self.log("warning", data)

    def error(self, data: Any) -> _Done:
        return self.log("error", data)

    def critical(self, data: Any) -> _Done:
        return self.log("critical", data)

    async def elicit(self, message: str, schema: Any) -> McpObject:
        """Asks the user for input. ``schema`` is a JSON Schema dict or a pydantic model
        class; with a model, an accepted answer's ``content`` is an instance of it. A form
        holds flat fields only (strings, numbers, booleans, enums, ``Optional`` ones, lists of
        enums): a model field that is none of those raises :class:`TypeError` naming it, and
        nothing is sent."""
        model = schema if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel) else None
        requested = form_schema(model) if model else schema
        text = await self._native.call("elicitation/create", json.dumps({"message": message, "requestedSchema": requested}))
        result = cast(McpObject, wrap(json.loads(text)))
        if model is not None and result.get("action") == "accept":
            result["content"] = model.model_validate(result.get("content") or {})
        return result

    async def sample(self, messages: Union[str, list[Any]], *, max_tokens: Optional[int] = None,
                     system_prompt: Optional[str] = None, **params: Any) -> McpObject:
        """Asks the client's model (``sampling/createMessage``). A string is one user message;
        without ``max_tokens`` the engine asks for its default (1000)."""
        if isinstance(messages, str):
            messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
        body: dict[str, Any] = {"messages": messages, **params}
        if max_tokens is not None:
            body["maxTokens"] = max_tokens
        if system_prompt is not None:
            body["systemPrompt"] = system_prompt
        return cast(McpObject, wrap(json.loads(await self._native.call("sampling/createMessage", json.dumps(body)))))

    async def list_roots(self) -> list[McpObject]:
        """The client's roots (each with ``uri``, maybe ``name``)."""
        return cast("list[McpObject]", wrap(json.loads(await self._native.call("roots/list"))["roots"]))

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """Reads one of this server's own resources (or templates), as a client would, with
        this request's context; :class:`McpError` with the protocol's code when there is
        none."""
        return ReadResourceResult.model_validate(json.loads(await self._native.call("resources/read", json.dumps({"uri": uri}))))

    async def escalate_to_task(self) -> bool:
        """In an escalating tool (``@server.tool(escalating=True, task_support=...)``):
        continues this call as a task. The client gets a task handle now and this function
        goes on in the background; later ``elicit``/``sample`` calls become the task's
        input requests and ``tasks/cancel`` cancels it. ``False`` when the call stays
        inline (the client did not declare the tasks extension)."""
        return bool(json.loads(await self._native.call("escalate")))

    def end_response_stream(self) -> None:
        """Over Streamable HTTP, closes this request's SSE connection; the client resumes it."""
        self._native.call_now("end response stream")
