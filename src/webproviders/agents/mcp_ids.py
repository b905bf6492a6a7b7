"""Requests whose id no answer can carry, answered with an invalid-request error under the id null.

A JSON-RPC request id is a string or an integer. The ``mcp`` package reads a request whose id
is anything else (``1.5``, ``true``, ``null``, an object) as a notification, its id dropped as
an unknown member, so it was never answered: over stdio the client waited for its answer
forever, over HTTP it got ``202 Accepted`` and no answer. JSON-RPC 2.0 answers an invalid
request with an error (-32600), under the id null when the request's own id cannot be given
back; here such a request is answered so, on both transports, and not passed on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, MutableMapping
from typing import TYPE_CHECKING, Any

from ..surrogates import sound

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings
    from mcp.shared._stream_protocols import WriteStream
    from mcp.shared.message import SessionMessage

    from .mcp_server import ASGIApp, Receive, Scope, Send


def reply_id(message: Any) -> tuple[bool, str | int | None]:
    """``(is a request, the id to answer it under)``: a request is an object with a ``method``
    (of any type: one that is no string is refused, not left unanswered) and an ``id`` member,
    answered under None (sent as null) when that id is no string or integer, unless its method
    names a notification (``notifications/...``), which is passed on as the package reads it."""
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return False, None
    request_id = message["id"]
    if isinstance(request_id, str):
        return True, sound(request_id)
    if isinstance(request_id, int) and not isinstance(request_id, bool):
        return True, request_id
    method = message["method"]
    if isinstance(method, str) and method.startswith("notifications/"):
        return False, None  # a notification written with an id (null, as JSON-RPC 1.0 had it) awaits no answer
    return True, None


def _kind(value: Any) -> str:
    """What a JSON value is, in a few words (never the value itself, which may be long)."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, float):
        return "a number with a fraction or an exponent"
    return "an object" if isinstance(value, dict) else "a list"


def id_refusal(message: Any) -> Any:
    """The error answering a request whose id is no string or integer, or None for any other
    message (a request with a sound id, a notification, a response, no object at all)."""
    is_request, request_id = reply_id(message)
    if not is_request or request_id is not None:
        return None
    return invalid_request(
        None,
        f"Invalid request: its id is {_kind(message['id'])}; a JSON-RPC request id is a string or an "
        "integer, and the answer names the request by it.",
    )


def invalid_request(request_id: str | int | None, text: str) -> Any:
    """The JSON-RPC invalid-request error (-32600) saying ``text``, under ``request_id``."""
    from mcp import types

    error = types.ErrorData(code=types.INVALID_REQUEST, message=text)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def _read(raw: str | bytes) -> Any:
    """A message as the transports' parser reads it, or None when it reads none."""
    import pydantic_core

    try:
        return pydantic_core.from_json(raw)
    except ValueError:  # not JSON to it: the transport answers that itself
        return None


class ScreenedLines:
    """The stdio server's input less the requests whose id no answer can carry, each answered
    on :attr:`replies` instead (set once the transport's write stream exists)."""

    def __init__(self, lines: AsyncIterator[str]) -> None:
        self._lines = lines
        self.replies: WriteStream[SessionMessage] | None = None

    def __aiter__(self) -> ScreenedLines:
        return self

    async def __anext__(self) -> str:
        from mcp.shared.message import SessionMessage

        while True:
            line = await self._lines.__anext__()
            replies = self.replies
            refusal = id_refusal(_read(line)) if replies is not None else None
            if replies is None or refusal is None:
                return line
            await replies.send(SessionMessage(refusal))


class AnsweringBadIds:
    """ASGI middleware: a request POSTed to ``path`` whose id no answer can carry gets HTTP 400
    and the invalid-request error under the id null, as the ``mcp`` package answers a body it
    cannot read, rather than ``202 Accepted`` and no answer. Only a request the package's own
    header checks (``security``: content type, DNS-rebinding guard) let through is answered
    here; the body is read within the package's size limit, which answers a larger one with ``413``."""

    def __init__(self, app: ASGIApp, *, path: str, security: TransportSecuritySettings | None) -> None:
        from mcp.server.transport_security import (
            DEFAULT_MAX_REQUEST_BODY_SIZE,
            RequestBodyLimitMiddleware,
            TransportSecurityMiddleware,
        )

        self.app = app
        self._path = path
        self._headers = TransportSecurityMiddleware(security)
        # whole bodies, within the limit, arrive here as one message
        self._limited = RequestBodyLimitMiddleware(self._screen, DEFAULT_MAX_REQUEST_BODY_SIZE)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from starlette.requests import Request

        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or scope.get("path") != self._path
            or await self._headers.validate_request(Request(scope), is_post=True) is not None
        ):
            await self.app(scope, receive, send)
            return
        await self._limited(scope, receive, send)

    async def _screen(self, scope: Scope, receive: Receive, send: Send) -> None:
        first = await receive()
        whole = first["type"] == "http.request" and not first.get("more_body", False)
        refusal = id_refusal(_read(first.get("body", b""))) if whole else None
        if refusal is not None:
            body = refusal.model_dump_json(by_alias=True, exclude_unset=True).encode()
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 400, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        replayed = False

        async def replay() -> MutableMapping[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return first
            return await receive()

        await self.app(scope, replay, send)
