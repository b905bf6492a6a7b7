"""Spending counters kept in this process, in micro-dollars, checked and bumped under a lock."""

from __future__ import annotations

import threading
from collections.abc import Sequence


class LocalCounters:
    """Counter per budget key; a reservation takes every budget or none."""

    def __init__(self) -> None:
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()

    def known(self, key: str) -> bool:
        return key in self._used

    def seed(self, key: str, micros: int) -> None:
        """Start a counter at what the ledger already holds (first use in this process only)."""
        with self._lock:
            self._used.setdefault(key, micros)

    def reserve(self, keys: Sequence[str], limits: Sequence[int], amount: int) -> tuple[int, int] | None:
        """Add ``amount`` to every counter if none goes over its limit; else ``(index, used)`` of the first that would."""
        with self._lock:
            for index, (key, limit) in enumerate(zip(keys, limits, strict=True)):
                used = self._used.get(key, 0)
                if used + amount > limit:
                    return index, used
            for key in keys:
                self._used[key] = self._used.get(key, 0) + amount
            return None

    def add(self, keys: Sequence[str], delta: int) -> None:
        with self._lock:
            for key in keys:
                self._used[key] = self._used.get(key, 0) + delta

    def used(self, key: str) -> int:
        return self._used.get(key, 0)
