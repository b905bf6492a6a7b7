"""The default cache: a bounded LRU in this process, entries stored as marshalled bytes.

Storing bytes (not the objects) means every hit returns a fresh copy a caller may edit, and
tells what an entry weighs: the LRU is bounded by its entries' total size as well as their
count, since one extract answer can weigh megabytes.
"""

from __future__ import annotations

import marshal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any


class MemoryCache:
    """A thread-safe LRU of ``key -> (expires, payload)``, at most ``max_entries`` entries
    of ``max_bytes`` together."""

    shared = False

    def __init__(
        self, max_entries: int = 10_000, max_bytes: int = 256 * 2**20, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.clock = clock
        self._entries: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        #: The payloads' total size in bytes.
        self.size = 0
        self._lock = threading.Lock()

    @staticmethod
    def encode(value: Any) -> bytes:
        return marshal.dumps(value)

    @staticmethod
    def decode(payload: bytes) -> Any:
        return marshal.loads(payload)

    def get(self, key: str) -> bytes | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] <= self.clock():
                self._drop(key)
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def set(self, key: str, payload: bytes, ttl: float) -> None:
        with self._lock:
            self._drop(key)
            if len(payload) > self.max_bytes:  # it would push out every other answer and still not fit
                return
            self._entries[key] = (self.clock() + ttl, payload)
            self.size += len(payload)
            while len(self._entries) > self.max_entries or self.size > self.max_bytes:
                _, (_, oldest) = self._entries.popitem(last=False)
                self.size -= len(oldest)

    def _drop(self, key: str) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self.size -= len(entry[1])

    def __len__(self) -> int:
        return len(self._entries)
