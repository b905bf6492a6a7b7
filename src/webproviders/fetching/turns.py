"""The event loop's turn while a body arrives faster than its reads wait.

One read from a socket hands httpcore up to 64 KiB, and a body sent in one-byte chunks is
thousands of chunks in it, each handed up without a wait: no timer fires among them, so a
call's deadline landed 0.1-0.3 s late and every other call on the loop waited as long.
"""

from __future__ import annotations

import time

#: Seconds of reading a body without a wait before the loop is given a turn.
TURN_AFTER = 0.005


class Turns:
    """Says when a reader of chunks owes the event loop a turn (``await asyncio.sleep(0)``)."""

    __slots__ = ("_since",)

    def __init__(self) -> None:
        self._since = time.monotonic()

    def due(self) -> bool:
        """Whether :data:`TURN_AFTER` has passed since the last turn given; if so, the next
        is counted from now."""
        now = time.monotonic()
        if now - self._since < TURN_AFTER:
            return False
        self._since = now
        return True
