"""Several API keys for one provider: round-robin, with a cool-down per key.

A key that gets an auth or quota error rests on its own while the others keep serving.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

#: How long a key rests after an auth error (a revoked key will not heal sooner).
AUTH_COOLDOWN = 3600.0
#: How long a key rests after a quota error (plans reset hourly to monthly).
QUOTA_COOLDOWN = 6 * 3600.0


class KeyRing:
    """Hands out keys in turn, skipping resting ones; thread-safe."""

    def __init__(self, keys: list[str], clock: Callable[[], float] = time.monotonic) -> None:
        self._keys = list(dict.fromkeys(keys))
        self._resting: dict[str, float] = {}
        self._next = 0
        self._clock = clock
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"<KeyRing keys={len(self._keys)} resting={len(self._resting)}>"

    def update(self, keys: list[str]) -> None:
        """Follow a config or environment change without losing rest periods."""
        fresh = list(dict.fromkeys(keys))
        with self._lock:
            if fresh != self._keys:
                self._keys = fresh
                self._resting = {k: v for k, v in self._resting.items() if k in fresh}
                self._next = 0

    def pick(self) -> str | None:
        """The next key that is not resting (the one resting least long if all are)."""
        with self._lock:
            if not self._keys:
                return None
            now = self._clock()
            for offset in range(len(self._keys)):
                key = self._keys[(self._next + offset) % len(self._keys)]
                if self._resting.get(key, 0.0) <= now:
                    self._resting.pop(key, None)
                    self._next = (self._next + offset + 1) % len(self._keys)
                    return key
            return min(self._keys, key=lambda k: self._resting.get(k, 0.0))

    def rest(self, key: str, seconds: float) -> None:
        with self._lock:
            self._resting[key] = self._clock() + seconds

    def usable(self) -> int:
        """How many keys are not resting now."""
        now = self._clock()
        with self._lock:
            return sum(1 for k in self._keys if self._resting.get(k, 0.0) <= now)
