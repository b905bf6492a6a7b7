"""The stdio server's input, read so that Ctrl-C stops the server.

The ``mcp`` package reads stdin in a worker thread. A thread blocked in ``read`` cannot be
cancelled, so on Ctrl-C the server waited for the client's next line, or for ever when none
came (``webproviders mcp`` tried out in a terminal). Here the event loop waits until stdin is
readable and only then reads, so a cancelled read is simply not done. A stdin the loop cannot
watch (a regular file, any pipe on Windows) is read in a worker thread, as before.

While serving, fd 0 points at the null device (as the package does when it reads stdin
itself), so a handler or a child process reads end-of-file rather than the client's requests.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

#: Bytes asked of stdin at a time.
_CHUNK = 64 * 1024


class WireLines:
    """The lines a client writes to the server's stdin, as text (undecodable bytes as U+FFFD,
    as the package reads them), one per ``async for`` step; ends at end-of-file."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending = bytearray()
        self._ended = False
        self._watchable = True

    def __aiter__(self) -> WireLines:
        return self

    async def __anext__(self) -> str:
        searched = 0  # a long line is looked through once, not once per chunk
        while (end := self._pending.find(b"\n", searched)) < 0 and not self._ended:
            searched = len(self._pending)
            chunk = await self._read()
            self._ended = not chunk
            self._pending += chunk
        if not self._pending:
            raise StopAsyncIteration
        cut = end + 1 if end >= 0 else len(self._pending)
        line = bytes(self._pending[:cut])
        del self._pending[:cut]
        return line.decode("utf-8", errors="replace")

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
async def wire_lines() -> AsyncIterator[WireLines]:
    """Stdin's lines, read from a private copy of fd 0 while fd 0 points at the null device;
    fd 0 is given back on exit."""
    wire = os.dup(0)
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
        try:
            yield WireLines(wire)
        finally:
            os.dup2(wire, 0)
    finally:
        os.close(wire)
