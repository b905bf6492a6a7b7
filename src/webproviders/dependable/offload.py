"""Blocking I/O to a shared store (SQLite, Redis) without blocking the caller's event loop.

A small dedicated pool, so a store call never queues behind hung provider threads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..pools import LazyPool

T = TypeVar("T")

_store = LazyPool(8, "webproviders-store")


async def offload(fn: Callable[..., T], *args: Any) -> T:
    """Run ``fn(*args)`` in the store pool and await its result on the running loop."""
    return await _store.run(fn, *args)
