"""Per-call context that provider code can read: the deadline, and warnings to report.

Kept free of asyncio so that plugins importing ``warn`` stay cheap to load.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "webproviders_deadline", default=None
)
_warnings: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "webproviders_warnings", default=None
)


def remaining_time() -> float | None:
    """Seconds left before the current call's deadline (None outside a dispatch)."""
    deadline = _deadline.get()
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def warn(message: str) -> None:
    """Add a sentence to the current call's ``meta.warnings`` (providers call this)."""
    bucket = _warnings.get()
    if bucket is not None and message not in bucket:
        bucket.append(message)


def collect_warnings() -> list[str]:
    """Start collecting warnings for the current task; returns the list that fills up."""
    bucket: list[str] = []
    _warnings.set(bucket)
    return bucket


def set_deadline(deadline: float) -> None:
    _deadline.set(deadline)


@contextmanager
def deadline_scope(deadline: float) -> Iterator[None]:
    """The call's deadline for a block of sync code, restored when the block ends."""
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)
