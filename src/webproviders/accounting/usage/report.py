"""Reading the usage ledger back: totals since a point in time, grouped one way.

:func:`usage_summary` is what ``webproviders usage`` prints; both accept ``since`` as
``7d``, ``24h``, ``30m``, ``2w``, an ISO date or date-time (UTC unless it says otherwise),
or from Python a ``datetime`` / ``timedelta``.
"""

from __future__ import annotations

import datetime
import re
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ...errors import NetworkError, ProviderError, WebProviderError
from ..tags import TAG_NAME, TAG_NAME_RULE
from .record import Unread, UsageRecord

if TYPE_CHECKING:
    from ...config import Config

#: Ways to group rows; ``tag:<name>`` groups by the value of one tag.
GROUPINGS = ("provider", "capability", "outcome", "day")
_SPAN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)\s*$", re.IGNORECASE)
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
#: A ``Z`` for UTC, or an offset without its colon (``+0200``): Python 3.10 reads neither.
_OFFSET = re.compile(r"(?:[Zz]|([+-]\d{2})(\d{2}))$")


class UsageQueryError(ValueError):
    """``since``, ``until`` or ``by`` is not understood; the message says what is."""


#: The last second a date can be written in (``9999-12-31T23:59:59Z``).
_LATEST = datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc).timestamp()


def parse_since(value: Any, now: float | None = None, what: str = "since") -> float:
    """``since`` (or ``until``, named by ``what``) as wall-clock seconds; one before 1970
    (``99999999d``) is 1970, as no row is older, and one after the year 9999 (an offset past
    ``9999-12-31T23:59:59``) is its last second, rather than a year Python's dates cannot hold."""
    now = time.time() if now is None else now
    return min(max(0.0, _seconds(value, now, what)), _LATEST)


def _seconds(value: Any, now: float, what: str) -> float:
    if isinstance(value, datetime.timedelta):
        return now - value.total_seconds()
    if isinstance(value, datetime.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)).timestamp()
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day, tzinfo=datetime.timezone.utc).timestamp()
    if isinstance(value, str):
        match = _SPAN.match(value)
        if match:
            return now - float(match.group(1)) * _SECONDS[match.group(2).lower()]
        try:
            return _seconds(_from_iso(value.strip()), now, what)
        except ValueError:
            pass
    raise UsageQueryError(
        f"{what} {value!r} is not understood; write a span such as '7d', '24h', '30m' or '2w', or a date such as '2026-10-01'."
    )


def _from_iso(text: str) -> datetime.datetime:
    """An ISO date or date-time as Python 3.11 reads it, on 3.10 too: ``2026-11-01T00:00Z``
    (what ``date -u +%FT%TZ`` and JavaScript write) was refused there as not understood."""
    try:
        return datetime.datetime.fromisoformat(text)
    except ValueError:
        offset = _OFFSET.search(text)
        if offset is None:
            raise
        written = "+00:00" if offset[1] is None else f"{offset[1]}:{offset[2]}"
        return datetime.datetime.fromisoformat(text[: offset.start()] + written)


def _key_of(by: str) -> Any:
    if by == "day":
        return lambda r: time.strftime("%Y-%m-%d", time.gmtime(r.time))
    if by in ("provider", "capability", "outcome"):
        return lambda r: getattr(r, by)
    if by.startswith("tag:") and len(by) > 4:
        name = by[4:]
        if not TAG_NAME.match(name):  # every row would be under "-", read as calls without the tag
            raise UsageQueryError(f"by {by!r} names a tag no call can carry (tag names use {TAG_NAME_RULE}).")
        return lambda r: r.tags.get(name)
    raise UsageQueryError(f"by {by!r} is not understood; use one of {', '.join(GROUPINGS)} or tag:<name> (e.g. tag:user).")


def _empty(key: Any) -> dict[str, Any]:
    return {"key": key, "requests": 0, "errors": 0, "units": {}, "usd": 0.0, "estimated": False}


def _add(total: dict[str, Any], row: UsageRecord) -> None:
    total["requests"] += 1
    total["errors"] += row.outcome != "ok"
    if row.units:
        total["units"][row.unit] = total["units"].get(row.unit, 0) + row.units
    total["usd"] += row.usd
    total["estimated"] = total["estimated"] or (row.estimated and row.usd > 0)


def summarize(rows: Iterable[UsageRecord], by: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(groups, total)``: requests, errors, units per unit and dollars, biggest spend first
    (days in calendar order: a month's days sorted by spend read as a shuffled calendar)."""
    key_of = _key_of(by)
    groups: dict[Any, dict[str, Any]] = {}
    total = _empty(None)
    for row in rows:
        key = key_of(row)
        _add(groups.setdefault(key, _empty(key)), row)
        _add(total, row)
    if by == "day":
        ordered = sorted(groups.values(), key=lambda g: g["key"])
    else:
        ordered = sorted(groups.values(), key=lambda g: (-g["usd"], -g["requests"], str(g["key"])))
    del total["key"]
    for group in [*ordered, total]:
        group["usd"] = round(group["usd"], 6)
        group["units"] = {unit: int(n) if float(n).is_integer() else round(n, 6) for unit, n in group["units"].items()}
    return ordered, total


def _iso(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(timespec="seconds")


def usage_summary(
    since: Any = "7d", by: str = "provider", *, until: Any = None, config: Config | None = None
) -> dict[str, Any]:
    """Totals from the usage ledger of ``config`` (the default config when None).

    Returns ``{"since", "until", "by", "ledger", "rows": [{"key", "requests", "errors",
    "units", "usd", "estimated"}, ...], "total": {...}}``, and ``"warnings"`` when entries of
    the ledger held no row this version reads (they are left out). Raises :class:`UsageQueryError`
    for a ``since`` or ``by`` it cannot read, and a ``network_error`` (a Redis ledger) or
    ``provider_error`` (a SQLite file) naming the ledger when it cannot be read.
    """
    from ...config import default_config
    from . import Ledger

    cfg = config if config is not None else default_config()
    now = time.time()
    start = parse_since(since, now)
    end = now if until is None else parse_since(until, now, "until")
    if until is None and start >= now:  # an empty summary "from 2099 to today" read as nothing spent
        when = "is in the future" if start > now else "is now, a span of no time"  # '0d' is the latter
        raise UsageQueryError(
            f"since ({_iso(start)}) {when} (it is now {_iso(now)}), so there is no usage to "
            "report yet; give a past date, or a span back such as '7d'."
        )
    if until is not None and end <= start:  # the same day for both is no day: until is not included
        when = "is before" if end < start else "is the same moment as"
        raise UsageQueryError(
            f"until ({_iso(end)}) {when} since ({_iso(start)}); no row can be in between "
            "(until is not included: one day runs from that date to the next)."
        )
    _key_of(by)
    settings = cfg.web.usage
    ledger = Ledger(settings) if settings.enabled else None
    unread = Unread()
    try:
        groups, total = summarize(ledger.rows(start, end, unread) if ledger is not None else (), by)
    except Exception as exc:  # any store failure is reported the same way
        if ledger is None:
            raise
        raise _unreadable(ledger, exc) from None
    summary = {
        "since": _iso(start),
        "until": _iso(end),
        "by": by,
        "ledger": ledger.describe() if ledger is not None else None,
        "rows": groups,
        "total": total,
    }
    if unread.count:
        one = unread.count == 1
        summary["warnings"] = [
            f"{unread.count} {'entry' if one else 'entries'} of the ledger held no usage row this version can read "
            f"(another program's, or another version's): {'it is' if one else 'they are'} left out of these totals."
        ]
    return summary


def _unreadable(ledger: Any, exc: Exception) -> WebProviderError:
    """The error for a ledger that could not be read: where it is (no password) and why."""
    from ...redact import scrub

    where = f"The usage ledger at {ledger.describe()} could not be read ({type(exc).__name__}: {scrub(str(exc))})"
    if ledger.kind == "sqlite":
        return ProviderError(f"{where}; check that the file is readable (web.usage.path).")
    return NetworkError(f"{where}; check that the server is running there and web.usage.url.")


def _units_text(units: dict[str, float]) -> str:
    parts = [f"{n} {unit}" for unit, n in sorted(units.items())]
    return " + ".join(parts) or "-"


def format_table(summary: dict[str, Any]) -> str:
    """The summary as a plain-text table (``~`` marks dollars built on estimated prices)."""
    head = summary["by"]
    lines = [
        f"usage from {summary['since']} to {summary['until']}, by {head} ({summary['ledger'] or 'ledger off'})",
    ]
    table = [(head, "requests", "errors", "units", "usd")]
    for group in [*summary["rows"], {**summary["total"], "key": "total"}]:
        usd = f"{'~' if group['estimated'] else ''}{group['usd']:.4f}"
        key = "-" if group["key"] is None else str(group["key"])
        table.append((key, str(group["requests"]), str(group["errors"]), _units_text(group["units"]), usd))
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    for row in table:
        cells = [row[0].ljust(widths[0]), *(cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True))]
        lines.append("  ".join(cells).rstrip())
    if any(g["estimated"] for g in summary["rows"]):
        lines.append("~ built on list prices that could not be confirmed, or on requests whose outcome is unknown")
    lines.extend(f"warning: {warning}" for warning in summary.get("warnings", ()))
    return "\n".join(lines) + "\n"
