"""The default cache: a bounded LRU in this process, entries stored as marshalled bytes.

Storing bytes (not the objects) means every hit returns a fresh copy a caller may edit.
"""

from __future__ import annotations

import marshal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any


class MemoryCache:
    """A thread-safe LRU of ``key -> (expires, payload)``."""

    shared = False

    def __init__(self, max_entries: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
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
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def set(self, key: str, payload: bytes, ttl: float) -> None:
        with self._lock:
            self._entries[key] = (self.clock() + ttl, payload)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
