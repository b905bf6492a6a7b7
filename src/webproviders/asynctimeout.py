"""``asyncio.timeout`` on every supported Python: the ``async-timeout`` backport before 3.11.

It bounds the awaiting task itself. ``asyncio.wait_for`` on 3.10 runs the awaitable in a
task of its own instead: a ``SystemExit`` raised there leaves the event loop rather than
reaching the awaiting code, and that task's own timeout can beat the deadline to an answer.
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from asyncio import timeout
else:  # pragma: no cover - Python 3.10
    from async_timeout import timeout

__all__ = ["timeout"]
