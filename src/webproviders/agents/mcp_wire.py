"""The stdio server's input, read so that Ctrl-C stops the server.

The ``mcp`` package reads stdin in a worker thread. A thread blocked in ``read`` cannot be
cancelled, so on Ctrl-C the server waited for the client's next line, or for ever when none
came (``webproviders mcp`` tried out in a terminal). Here the event loop waits until stdin is
readable and only then reads, so a cancelled read is simply not done. A stdin the loop cannot
watch (a regular file, any pipe on Windows) is read in a worker thread, as before.

While serving, fd 0 points at the null device (as the package does when it reads stdin
itself), so a handler or a child process reads end-of-file rather than the client's requests.

A line longer than the server reads (the HTTP transport's body limit, 4 MiB) is not held: a
200 MB line took 656 MB and 18 s. Its first bytes are kept and handed to ``on_oversized``,
which answers it when its request id can be read from them; the rest is skipped.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

#: Bytes asked of stdin at a time.
_CHUNK = 64 * 1024
#: Bytes of an oversized line kept to read its request id from.
HEAD_BYTES = 64 * 1024

#: Told of a line over the limit: its first :data:`HEAD_BYTES`, its size and the limit.
Oversized = Callable[[bytes, int, int], Awaitable[None]]


class WireLines:
    """The lines a client writes to the server's stdin, as text (undecodable bytes as U+FFFD,
    as the package reads them), one per ``async for`` step; ends at end-of-file. A line over
    ``max_line`` bytes is skipped and told to ``on_oversized``."""

    def __init__(self, fd: int, max_line: int) -> None:
        self._fd = fd
        self._max_line = max_line
        self._pending = bytearray()
        self._ended = False
        self._watchable = True
        self.on_oversized: Oversized | None = None

    def __aiter__(self) -> WireLines:
        return self

    async def __anext__(self) -> str:
        while True:
            searched = 0  # a long line is looked through once, not once per chunk
            while (end := self._pending.find(b"\n", searched)) < 0 and not self._ended:
                if len(self._pending) > self._max_line:
                    break
                searched = len(self._pending)
                chunk = await self._read()
                self._ended = not chunk
                self._pending += chunk
            if not self._pending:
                raise StopAsyncIteration
            cut = end + 1 if end >= 0 else len(self._pending)
            if cut > self._max_line:
                await self._skip_oversized(end)
                continue
            line = bytes(self._pending[:cut])
            del self._pending[:cut]
            return line.decode("utf-8", errors="replace")

    async def _skip_oversized(self, end: int) -> None:
        """Drop the line at the head of what is pending, reading on to its end if need be."""
        head = bytes(self._pending[:HEAD_BYTES])
        if end >= 0:
            size = end + 1
            del self._pending[:size]
        else:
            size = len(self._pending)
            self._pending.clear()
            while not self._ended:
                chunk = await self._read()
                self._ended = not chunk
                end = chunk.find(b"\n")
                if end >= 0:
                    size += end + 1
                    self._pending += chunk[end + 1:]
                    break
                size += len(chunk)
        if self.on_oversized is not None:
            await self.on_oversized(head, size, self._max_line)

    async def _read(self) -> bytes:
        import anyio

        if self._watchable:
            try:
                await anyio.wait_readable(self._fd)
            except (OSError, NotImplementedError):  # a regular file (which never blocks for
                # long), or a loop that watches no pipe (Windows' proactor)
                self._watchable = False
            else:
                return os.read(self._fd, _CHUNK)
        return await anyio.to_thread.run_sync(os.read, self._fd, _CHUNK)


@asynccontextmanager
async def wire_lines(max_line: int) -> AsyncIterator[WireLines]:
    """Stdin's lines of at most ``max_line`` bytes, read from a private copy of fd 0 while fd 0
    points at the null device; fd 0 is given back on exit."""
    wire = os.dup(0)
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
        try:
            yield WireLines(wire, max_line)
        finally:
            os.dup2(wire, 0)
    finally:
        os.close(wire)
