"""Answering the stdio requests the ``mcp`` package cannot read, instead of dropping them.

The package reads each stdin line with pydantic's strict JSON parser, which refuses a string
holding half of a UTF-16 pair (``"\\ud800"``, what a model may emit for a cut emoji), and
hands the server the failure, which only logs it: the client would wait for its answer
forever. Python's own ``json`` reads such a line, so its request id is known and an error
can be sent back under it (the HTTP transport answers the same line with a parse error).
"""

from __future__ import annotations

import json
from types import TracebackType
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..surrogates import sound

if TYPE_CHECKING:
    from mcp.shared._stream_protocols import ReadStream, WriteStream
    from mcp.shared.message import SessionMessage


def _lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in ``value``'s strings (keys included), as ``\\udXXX``."""
    if isinstance(value, str):
        if sound(value) == value:
            return None
        return next(f"\\u{ord(c):04x}" for c in value if "\ud800" <= c <= "\udfff")
    items: list[Any] = []
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, list):
        items = value
    return next((found for item in items if (found := _lone_surrogate(item))), None)


def refusal(exc: Exception) -> Any:
    """The JSON-RPC parse error answering a request on a line the transport could not read,
    or None when the line held no request (a notification, a response, no JSON at all)."""
    from mcp import types

    problems = exc.errors() if isinstance(exc, ValidationError) else []
    if not problems or problems[0].get("type") != "json_invalid":
        return None
    line = problems[0].get("input")
    try:
        message = json.loads(line) if isinstance(line, (str, bytes)) else None
    except ValueError:
        return None
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        return None
    surrogate = _lone_surrogate(message)
    if surrogate is None:
        text = f"Parse error: {problems[0]['msg']}"
    else:
        text = (
            f"Parse error: the request holds a lone surrogate ({surrogate}, half of a UTF-16 "
            "pair), which is not text; send whole characters."
        )
    if isinstance(request_id, str):
        request_id = sound(request_id)
    error = types.ErrorData(code=types.PARSE_ERROR, message=text)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


class AnsweringReader:
    """The transport's read stream, with each unreadable request answered on the write
    stream (and not passed on) rather than logged and dropped by the server."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        replies: WriteStream[SessionMessage],
    ) -> None:
        self._inner = inner
        self._replies = replies

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item, as the transport's own stream gives it."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        from mcp.shared.message import SessionMessage

        while True:
            item = await self._inner.receive()
            reply = refusal(item) if isinstance(item, Exception) else None
            if reply is None:
                return item
            await self._replies.send(SessionMessage(reply))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> AnsweringReader:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnsweringReader:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()
