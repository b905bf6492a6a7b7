"""Spending counters kept in this process, in micro-dollars, checked and bumped under a lock.

Memory stays flat however many tag values come by: a counter is dropped when its period
ends, and beyond ``max_keys`` the least recently used one is evicted. An evicted counter
starts again from the usage ledger's running total when its key comes back (see
:class:`~webproviders.accounting.budget.Budgets`).

Every config of a process that records to one ledger counts on the same counters
(:func:`counters_for`): what one of them spends is spent for the others too.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

#: Counters kept by default (``web.budget.max_counters``).
MAX_KEYS = 10_000
#: What :meth:`LocalCounters.reserve` answers for a counter it no longer keeps.
GONE = (-1, 0)


class LocalCounters:
    """Counter per budget key; a reservation takes every budget or none."""

    def __init__(self, max_keys: int = MAX_KEYS) -> None:
        self.max_keys = max_keys
        #: key -> (micro-dollars used, when the key's period ends), least recently used first.
        self._used: OrderedDict[str, tuple[int, float]] = OrderedDict()
        #: key -> micro-dollars of the used that requests still under way hold (not spent yet).
        self._held: dict[str, int] = {}
        #: ticket -> (the event loop it was made on, weakly; keys; amount) of the reservations
        #: of requests under way: one whose caller closed its loop mid-call is never released
        #: by that call, and :meth:`held` releases it.
        self._pending: dict[object, tuple[weakref.ref[Any], tuple[str, ...], int]] = {}
        self._next_expiry = float("inf")
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._used)

    def known(self, key: str) -> bool:
        return key in self._used

    def reserve(
        self,
        keys: Sequence[str],
        limits: Sequence[int],
        amount: int,
        now: float,
        starts: Mapping[str, tuple[int, float]] | None = None,
        ticket: object | None = None,
        loop: Any = None,
    ) -> tuple[int, int] | None:
        """Add ``amount`` to every counter if none goes over its limit; else ``(index, used)``
        of the first that would. A counter not kept starts at ``starts[key]`` (micro-dollars,
        when its period ends); one not there either (evicted
        since the caller looked) answers :data:`GONE`, nothing reserved: it must start from
        the ledger, not from zero. A ``ticket`` tracks the reservation, made on the event loop
        ``loop``, until it is released with that ticket."""
        with self._lock:
            if now >= self._next_expiry:
                self._expire(now)
            for key in keys:  # ours go last, so that what the starts push out is another's
                if key in self._used:
                    self._used.move_to_end(key)
                elif starts is not None and key in starts:
                    self._used[key] = starts[key]
                    self._next_expiry = min(self._next_expiry, starts[key][1])
                else:
                    return GONE
            while len(self._used) > self.max_keys:
                self._used.popitem(last=False)
            for index, (key, limit) in enumerate(zip(keys, limits, strict=True)):
                used = self._used[key][0]
                if used + amount > limit:
                    return index, used
            for key in keys:
                used, ends = self._used[key]
                self._used[key] = (used + amount, ends)
                self._held[key] = self._held.get(key, 0) + amount
            if ticket is not None:
                self._pending[ticket] = (weakref.ref(loop), tuple(keys), amount)
            return None

    def release(self, keys: Sequence[str], amount: int, ticket: object | None = None) -> None:
        """A request that reserved ``amount`` has ended: it holds none of the counters any more
        (what it cost stays used, corrected by :meth:`add`). Once per ``ticket``."""
        with self._lock:
            if ticket is None or self._pending.pop(ticket, None) is not None:
                self._release(keys, amount)

    def _release(self, keys: Sequence[str], amount: int) -> None:
        for key in keys:
            left = self._held.get(key, 0) - amount
            if left > 0:
                self._held[key] = left
            else:
                self._held.pop(key, None)

    def held(self, key: str) -> int:
        """Micro-dollars of ``key``'s counter reserved by requests still under way, not spent.

        A reservation whose event loop was closed (or collected) before its request ended is
        not under way: no one is left to release it, so it is released here, and its estimate
        stays used, as a request that timed out or a worker that was killed leaves it."""
        with self._lock:
            for ticket in [ticket for ticket, (loop, _keys, _amount) in self._pending.items() if _closed(loop())]:
                _loop, keys, amount = self._pending.pop(ticket)
                self._release(keys, amount)
        return min(self._held.get(key, 0), self.used(key))

    def add(self, keys: Sequence[str], delta: int) -> None:
        """Correct counters that are still kept (an evicted one restarts from the ledger)."""
        with self._lock:
            for key in keys:
                found = self._used.get(key)
                if found is not None:
                    self._used[key] = (found[0] + delta, found[1])

    def used(self, key: str) -> int:
        return self._used.get(key, (0, 0.0))[0]

    def _expire(self, now: float) -> None:
        """Drop the counters of periods that have ended."""
        for key in [k for k, (_, ends) in self._used.items() if ends <= now]:
            del self._used[key]
        self._next_expiry = min((ends for _, ends in self._used.values()), default=float("inf"))


def _closed(loop: Any) -> bool:
    """Whether an event loop (None once collected) can no longer run anything."""
    return loop is None or loop.is_closed()


_by_ledger: weakref.WeakValueDictionary[Hashable, LocalCounters] = weakref.WeakValueDictionary()
_by_ledger_lock = threading.Lock()


def counters_for(ledger: Hashable | None, max_keys: int = MAX_KEYS) -> LocalCounters:
    """The counters of the configs that record to ``ledger`` (their spending is one), kept while
    one of them is in use; a config without a ledger gets its own, starting from zero.

    Each config had its own: a config loaded twice in one process (two ``load_config`` calls,
    a tool built from the settings it was given) counted only its own spending against the
    same caps, and together they spent each cap twice."""
    if ledger is None:
        return LocalCounters(max_keys)
    with _by_ledger_lock:
        counters = _by_ledger.get(ledger)
        if counters is None:
            counters = _by_ledger[ledger] = LocalCounters(max_keys)
        counters.max_keys = max(counters.max_keys, max_keys)
        return counters


def _forget_locks() -> None:
    """In a forked child: a lock a parent's thread held as the process forked stays held there
    for good, and every priced call of the child would wait on it. The parent's requests under
    way are not the child's to end: what they reserved is never released there."""
    global _by_ledger_lock
    _by_ledger_lock = threading.Lock()
    for counters in list(_by_ledger.values()):
        counters._lock = threading.Lock()
        counters._held = {}
        counters._pending = {}


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks)
