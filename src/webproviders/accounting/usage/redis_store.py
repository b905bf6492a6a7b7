"""The usage ledger in a Redis stream, for a fleet: every worker appends to one stream.

Stream ids are millisecond timestamps, so a report reads exactly the range it needs;
entries older than the retention period are trimmed as new ones arrive, by the server's
clock (the ids it gave them), not the worker's: a worker whose clock runs ahead would
otherwise trim every other worker's rows. Running totals of
dollars per ``(period, scope)`` live in one hash per period, updated in the same
``MULTI`` transaction as the rows they add up, so a budget reads what was spent with one
round trip. Rows written before the totals existed (they lack the ``s`` field) are added to
the current day's and month's totals once (:meth:`RedisUsage.add_older_rows`, run off the
call path when a process first opens the ledger; a ``SET NX`` marker per period makes it
once per fleet).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...config import MAX_TIMEOUT
from ..periods import keep_for, starts_at
from .record import PRUNE_EVERY, Unread, UsageRecord, readable, running_totals

#: Entries read per round trip when reading the stream back.
_PAGE = 2000
#: Seconds between a row's own time (its request's start) and its stream id (when the call
#: ended and the row was written) that reading allows for: the longest call, and a while for
#: the spool and the clocks. Five minutes left out the rows of longer crawls from a range
#: that ended while they ran.
_SLACK = MAX_TIMEOUT + 300.0


def _record(fields: dict[str, str]) -> UsageRecord | None:
    return readable(lambda: UsageRecord(
        float(fields["t"]), fields["p"], fields["c"], fields["o"], float(fields["n"]), fields["u"],
        float(fields["usd"]), fields["e"] == "1", float(fields["l"]),
        UsageRecord.parse_tags(fields.get("g")), fields.get("q"),
    ))


class RedisUsage:
    """Append, read back and sum ledger rows in the stream ``<namespace>:usage``."""

    def __init__(self, url: str, namespace: str, retention_days: int, timeout: float = 2.0) -> None:
        import redis  # the optional 'redis' extra, imported on first use

        self._client: Any = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self.key = f"{namespace}:usage"
        self.retention_ms = retention_days * 86_400_000
        self._batches = 0

    def close(self) -> None:
        """Let go of the server's connections (a process keeps a few ledgers open, see
        :func:`.._open_store`); a later use connects again."""
        self._client.close()

    def _totals_key(self, period: str) -> str:
        return f"{self.key}:totals:{period}"

    def append(self, records: list[UsageRecord]) -> None:
        pipe = self._client.pipeline(transaction=True)
        for r in records:
            fields = {
                "p": r.provider, "c": r.capability, "o": r.outcome, "n": repr(r.units), "u": r.unit,
                "usd": repr(r.usd), "e": int(r.estimated), "l": repr(r.latency_ms), "t": repr(r.time), "s": 1,
            }
            if r.tags:
                fields["g"] = r.tags_json() or ""
            if r.query is not None:
                fields["q"] = r.query
            pipe.xadd(self.key, fields)
        self._add_totals(pipe, running_totals(records))
        added = pipe.execute()
        self._batches += 1
        if records and self._batches % PRUNE_EVERY == 1:
            newest = int(added[len(records) - 1].split(b"-")[0])  # the server's clock, in ms
            self._client.xtrim(self.key, minid=max(0, newest - self.retention_ms), approximate=True)

    def _add_totals(self, pipe: Any, sums: dict[tuple[str, str], float]) -> None:
        for (period, scope), usd in sums.items():
            pipe.hincrbyfloat(self._totals_key(period), scope, usd)
            pipe.expire(self._totals_key(period), keep_for(period))

    def rows(self, since: float, until: float | None = None, unread: Unread | None = None) -> Iterator[UsageRecord]:
        stop = float("inf") if until is None else until
        for fields in self._entries(since, until):
            row = _record(fields)
            if row is None:
                if unread is not None:
                    unread.count += 1
            elif since <= row.time < stop:
                yield row

    def _entries(self, since: float, until: float | None = None) -> Iterator[dict[str, str]]:
        """The stream's entries that may hold rows of ``[since, until)``, page by page."""
        # Ids are the server's clock when a row was written (it may wait in a spool a while),
        # so they only narrow the range; the row's own time decides.
        start = f"{max(0, int((since - _SLACK) * 1000))}-0"
        end = "+" if until is None else f"{int((until + _SLACK) * 1000)}-0"
        while True:
            page = self._client.xrange(self.key, min=start, max=end, count=_PAGE)
            for _, raw in page:
                yield {k.decode(errors="replace"): v.decode(errors="replace") for k, v in raw.items()}
            if len(page) < _PAGE:
                return
            start = "(" + page[-1][0].decode()

    def totals(self, keys: list[tuple[str, str]]) -> list[float]:
        """The running total of dollars for each ``(period, scope)``: one round trip."""
        pipe = self._client.pipeline(transaction=False)
        for period, scope in keys:
            pipe.hget(self._totals_key(period), scope)
        return [float(value or 0.0) for value in pipe.execute()]

    def add_older_rows(self, periods: tuple[str, ...]) -> None:
        """Add the rows of ``periods`` written before running totals existed, once per period."""
        for period in periods:
            marker = f"{self._totals_key(period)}:backfilled"
            if not self._client.set(marker, 1, nx=True, ex=keep_for(period)):
                continue
            starts = starts_at(period)
            rows = (_record(f) for f in self._entries(starts) if "s" not in f)
            older = [row for row in rows if row is not None and row.time >= starts]
            sums = {key: usd for key, usd in running_totals(older).items() if key[0] == period}
            if sums:
                pipe = self._client.pipeline(transaction=True)
                self._add_totals(pipe, sums)
                pipe.execute()
