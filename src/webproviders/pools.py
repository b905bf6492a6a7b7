"""Worker thread pools made on first use, so importing the library never starts a thread.

The library keeps separate pools on purpose, each with its own size: sync provider calls
(which may hang and be abandoned), store I/O (which must never queue behind those) and
response decompression (which must never hold up an event loop). This is the one way
they are built. (Page extraction runs in worker processes instead, see
``webproviders.fetching.extractpool``.)
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class LazyPool:
    """A named ``ThreadPoolExecutor`` of ``workers`` threads, created on first use."""

    def __init__(self, workers: int, name: str) -> None:
        self._workers = workers
        self._name = name
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix=self._name)
        return self._pool

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in the pool and await its result on the running loop."""
        return await asyncio.get_running_loop().run_in_executor(self.executor(), fn, *args)
