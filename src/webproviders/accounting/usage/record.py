"""One row of the usage ledger: a request that reached a vendor."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..periods import scopes, stamps

#: Every this many batches a store deletes the rows older than the retention period.
PRUNE_EVERY = 64
#: One encoder for every row (``json.dumps`` with options builds a new one per call).
_encode_tags = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode


@dataclass(slots=True)
class UsageRecord:
    """When, who, what, how much, how it ended; tags and (only when asked) the query."""

    time: float
    provider: str
    capability: str
    #: ``ok`` or the error code of the failure.
    outcome: str
    units: float
    unit: str
    usd: float
    estimated: bool
    latency_ms: float
    tags: dict[str, str] = field(default_factory=dict)
    query: str | None = None

    def tags_json(self) -> str | None:
        return _encode_tags(self.tags) if self.tags else None

    @staticmethod
    def parse_tags(text: Any) -> dict[str, str]:
        if not text:
            return {}
        loaded = json.loads(text)
        return {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}


@dataclass(slots=True)
class Unread:
    """How many entries a read of the ledger left out: ones holding no row this version can
    read (another program's entry in a shared Redis stream, another version's format)."""

    count: int = 0


def readable(make: Callable[[], UsageRecord]) -> UsageRecord | None:
    """The row ``make()`` reads from an entry, or None when the entry holds none: a field
    missing, or one that is not a finite number. One such entry failed every report."""
    try:
        row = make()
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    numbers = (row.time, row.units, row.usd, row.latency_ms)
    if not all(isinstance(n, (int, float)) and math.isfinite(n) for n in numbers):
        return None
    return row


def running_totals(records: Iterable[UsageRecord]) -> dict[tuple[str, str], float]:
    """What ``records`` add to each ``(period, scope)`` running total (priced rows only)."""
    sums: dict[tuple[str, str], float] = {}
    for record in records:
        if record.usd > 0:
            for period in stamps(record.time):
                for scope in scopes(record.provider, record.tags):
                    sums[(period, scope)] = sums.get((period, scope), 0.0) + record.usd
    return sums
