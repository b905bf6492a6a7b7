"""At the end of stdin, the requests already read are answered before the server stops.

A client may write a batch of requests and close stdin (``cat calls.jsonl | webproviders
mcp``), as the MCP stdio transport has a client end a session. The ``mcp`` package cancels
every handler once its read stream ends, so each call still running was answered
``Connection closed``. Here the read stream ends only once every request read has been
answered (or cancelled by the client): each call keeps to its own deadline, and a client
that will not wait sends SIGTERM, as the transport says it should.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from .mcp_wrap import ReaderAround, WriterAround

if TYPE_CHECKING:
    from mcp.shared._stream_protocols import ReadStream, WriteStream
    from mcp.shared.message import SessionMessage

_CANCELLED = "notifications/cancelled"


def _key(request_id: Any) -> str:
    """One spelling of a request id: a cancellation may name ``7`` as ``"7"``."""
    return str(request_id)


class Unanswered:
    """The ids of the requests read and not yet answered, each counted as often as it was read
    (a batch may give several requests one id, or ``7`` and ``"7"``: each is answered), and a
    wait until there are none."""

    def __init__(self) -> None:
        self._ids: Counter[str] = Counter()
        self._none_left: Any = None

    def read(self, item: SessionMessage | Exception) -> None:
        """Note a request the server is given, and forget one the client cancels."""
        from mcp import types

        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCRequest):
            self._ids[_key(message.id)] += 1
        elif isinstance(message, types.JSONRPCNotification) and message.method == _CANCELLED:
            self._answered((message.params or {}).get("requestId"))

    def written(self, item: SessionMessage) -> None:
        """Forget a request once its answer is written."""
        from mcp import types

        message = getattr(item, "message", None)
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            self._answered(message.id)

    def _answered(self, request_id: Any) -> None:
        key = _key(request_id)
        if self._ids[key] > 1:
            self._ids[key] -= 1
        else:
            del self._ids[key]
        if not self._ids and self._none_left is not None:
            self._none_left.set()

    async def wait(self) -> None:
        """Return once every request read has been answered."""
        import anyio

        while self._ids:
            self._none_left = anyio.Event()
            await self._none_left.wait()


class DrainingReader(ReaderAround):
    """The server's read stream, whose end comes only once every request read is answered."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], unanswered: Unanswered) -> None:
        super().__init__(inner)
        self._unanswered = unanswered

    async def receive(self) -> SessionMessage | Exception:
        import anyio

        try:
            item = await self._inner.receive()
        except anyio.EndOfStream:
            await self._unanswered.wait()
            raise
        self._unanswered.read(item)
        return item


class NotingWriter(WriterAround):
    """The server's write stream, noting each answer it carries."""

    def __init__(self, inner: WriteStream[SessionMessage], unanswered: Unanswered) -> None:
        super().__init__(inner)
        self._unanswered = unanswered

    async def send(self, item: SessionMessage, /) -> None:
        try:
            await self._inner.send(item)
        finally:  # an answer that cannot be written is not waited for either
            self._unanswered.written(item)
