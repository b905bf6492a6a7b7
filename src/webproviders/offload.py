"""Blocking I/O to a shared store (SQLite, Redis) without blocking the caller's event loop.

A small dedicated pool, so a store call never queues behind hung provider threads.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_WORKERS = 8
_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(_WORKERS, thread_name_prefix="webproviders-store")
    return _pool


async def offload(fn: Callable[..., T], *args: Any) -> T:
    """Run ``fn(*args)`` in the store pool and await its result on the running loop."""
    return await asyncio.get_running_loop().run_in_executor(_executor(), fn, *args)
