"""The stdio server's streams seen through a wrapper: what the ``mcp`` package calls on a
stream, in one place, so each wrapper writes only what it changes (``receive`` or ``send``)."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from mcp.shared._stream_protocols import ReadStream, WriteStream
    from mcp.shared.message import SessionMessage

_Stream = TypeVar("_Stream", bound="_Around")


class _Around:
    """A stream around another one, closed with it."""

    _inner: Any

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self: _Stream) -> _Stream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class ReaderAround(_Around):
    """A read stream around the transport's: items come from :meth:`receive`."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception]) -> None:
        self._inner = inner

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item, as the transport's own stream gives it."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        return await self._inner.receive()

    def __aiter__(self) -> ReaderAround:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class WriterAround(_Around):
    """A write stream around the transport's: items go through :meth:`send`."""

    def __init__(self, inner: WriteStream[SessionMessage]) -> None:
        self._inner = inner

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(item)
