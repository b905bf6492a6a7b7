"""Budget periods (the UTC day and month) and the scopes spending is totalled by.

Budgets and the usage ledger's running totals name them the same way, so a budget counter
starts from the ledger's total for the same ``(period, scope)`` with one lookup.
"""

from __future__ import annotations

import calendar
import time
from collections.abc import Mapping

#: How long each period's totals are worth keeping after it starts (seconds).
KEEP = {"daily": 3 * 86400, "monthly": 35 * 86400}


def periods(now: float) -> dict[str, tuple[str, float, float]]:
    """``{"daily": (stamp, starts, ends), "monthly": (...)}`` for the UTC day and month of ``now``."""
    day = time.gmtime(now)
    day_start = calendar.timegm((day.tm_year, day.tm_mon, day.tm_mday, 0, 0, 0))
    month_start = calendar.timegm((day.tm_year, day.tm_mon, 1, 0, 0, 0))
    next_month = (day.tm_year + day.tm_mon // 12, day.tm_mon % 12 + 1)
    return {
        "daily": (time.strftime("%Y-%m-%d", day), day_start, day_start + 86400),
        "monthly": (time.strftime("%Y-%m", day), month_start, calendar.timegm((*next_month, 1, 0, 0, 0))),
    }


def keep_for(stamp: str) -> int:
    """Seconds the totals of a day (``2026-11-25``) or a month (``2026-11``) are kept."""
    return KEEP["daily" if len(stamp) == 10 else "monthly"]


def starts_at(stamp: str) -> float:
    """When a day (``2026-11-25``) or a month (``2026-11``) starts, in wall-clock seconds (UTC)."""
    parts = [int(part) for part in stamp.split("-")]
    return float(calendar.timegm((parts[0], parts[1], parts[2] if len(parts) == 3 else 1, 0, 0, 0)))


def stamps(now: float) -> tuple[str, str]:
    """The day and month stamps of ``now`` (``2026-11-25``, ``2026-11``)."""
    day = time.gmtime(now)
    return time.strftime("%Y-%m-%d", day), time.strftime("%Y-%m", day)


ALL = "all"


def provider_scope(name: str) -> str:
    return f"provider:{name}"


def tag_scope(name: str, value: str) -> str:
    return f"tag:{name}={value}"


def scopes(provider: str, tags: Mapping[str, str]) -> list[str]:
    """Every scope a request to ``provider`` with ``tags`` counts towards."""
    return [ALL, provider_scope(provider), *(tag_scope(k, v) for k, v in tags.items())]
