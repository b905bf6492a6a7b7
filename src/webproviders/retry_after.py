"""Reading "when may I try again" from vendor response headers, clamped to a sane range.

A vendor (or anything pretending to be one) may answer ``Retry-After: inf``, ``1e12``,
``nan`` or a negative number. Every wait read here, and every ``retry_after`` an error
carries, is clamped to ``0 .. MAX_RETRY_AFTER`` so a provider is never paused for the life
of the process and the envelope stays valid JSON. Only an out-of-quota error may report a
longer reset (up to ``MAX_QUOTA_RESET``): it tells the caller when a monthly quota comes
back, and pauses nothing.

Used wherever an answer says to wait: the status table in :mod:`webproviders.errors` (429),
the safe fetcher, and vendor classifiers that read their own reset headers.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from typing import Any

#: Vendor reset headers, in the order they are trusted after ``Retry-After``.
_RESET_HEADERS = (
    "x-ratelimit-reset",
    "ratelimit-reset",
    "x-rate-limit-reset",
    "x-ratelimit-reset-requests",
)
_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+)ms)?$")
#: A reset value above this is an epoch timestamp rather than a number of seconds.
_EPOCH_THRESHOLD = 1_000_000_000
#: A reset value above this is an epoch timestamp in milliseconds (as seconds, the year 5138).
_EPOCH_MS_THRESHOLD = 100_000_000_000
#: The longest wait any vendor answer can impose, in seconds (one hour).
MAX_RETRY_AFTER = 3600.0
#: The longest quota reset an out-of-quota error reports (a monthly window), in seconds.
MAX_QUOTA_RESET = 31 * 86400.0


def clamp_retry_after(seconds: float | None, ceiling: float = MAX_RETRY_AFTER) -> float | None:
    """``seconds`` within ``0 .. ceiling``; None for a missing or not-a-number value."""
    if seconds is None or math.isnan(seconds):
        return None
    return min(max(0.0, float(seconds)), ceiling)


def _get(headers: Any, name: str) -> str | None:
    if headers is None:
        return None
    getter = getattr(headers, "get", None)
    if getter is None:
        return None
    value = getter(name)
    if value is None and isinstance(headers, Mapping):
        lowered = {str(k).lower(): v for k, v in headers.items()}
        value = lowered.get(name.lower())
    return None if value is None else str(value).strip()


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` value: delta seconds or an HTTP date."""
    if not value:
        return None
    try:
        return clamp_retry_after(float(value))
    except ValueError:
        pass
    # Here: every process imports this module, few ever read a date.
    from datetime import timezone
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # asctime's form ("Sun Nov  6 08:49:37 1994") or -0000: HTTP dates are GMT
        when = when.replace(tzinfo=timezone.utc)
    current = time.time() if now is None else now
    return clamp_retry_after(when.timestamp() - current)


def _parse_reset(value: str, now: float) -> float | None:
    # Several windows ("1, 1419704" from Brave): the first is the one that was hit soonest.
    first = value.split(",")[0].strip()
    try:
        number = float(first)
    except ValueError:
        match = _DURATION.match(first)
        if not match or not any(match.groups()):
            return None
        hours, minutes, seconds, millis = (float(g) if g else 0.0 for g in match.groups())
        return clamp_retry_after(hours * 3600 + minutes * 60 + seconds + millis / 1000)
    if number > _EPOCH_MS_THRESHOLD and math.isfinite(number):  # read as seconds: an hour's pause
        return clamp_retry_after(number / 1000 - now)
    if number > _EPOCH_THRESHOLD and math.isfinite(number):
        return clamp_retry_after(number - now)
    return clamp_retry_after(number)


def retry_after_header(headers: Any, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` alone: what a 503 says of
    its outage, where a vendor's rate-limit reset headers (sent on every answer) say nothing."""
    millis = _get(headers, "retry-after-ms")
    if millis:
        try:
            return clamp_retry_after(float(millis) / 1000)
        except ValueError:
            pass
    return parse_retry_after(_get(headers, "retry-after"), now)


def retry_after_from_headers(headers: Any, now: float | None = None) -> float | None:
    """Seconds to wait, from ``retry-after-ms``, ``Retry-After`` or a vendor reset header."""
    current = time.time() if now is None else now
    seconds = retry_after_header(headers, current)
    if seconds is not None:
        return seconds
    for name in _RESET_HEADERS:
        value = _get(headers, name)
        if value:
            parsed = _parse_reset(value, current)
            if parsed is not None:
                return parsed
    return None
