"""The usage ledger in a Redis stream, for a fleet: every worker appends to one stream.

Stream ids are millisecond timestamps, so a report reads exactly the range it needs;
entries older than the retention period are trimmed as new ones arrive.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .record import UsageRecord

#: Entries read per round trip when reading the stream back.
_PAGE = 2000
#: Seconds between a row's own time and its stream id that reading allows for.
_SLACK = 300.0


def _record(fields: dict[str, str]) -> UsageRecord:
    return UsageRecord(
        float(fields["t"]), fields["p"], fields["c"], fields["o"], float(fields["n"]), fields["u"],
        float(fields["usd"]), fields["e"] == "1", float(fields["l"]),
        UsageRecord.parse_tags(fields.get("g")), fields.get("q"),
    )


class RedisUsage:
    """Append, read back and sum ledger rows in the stream ``<namespace>:usage``."""

    def __init__(self, url: str, namespace: str, retention_days: int) -> None:
        import redis  # the optional 'redis' extra, imported on first use

        self._client: Any = redis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)
        self.key = f"{namespace}:usage"
        self.retention_ms = retention_days * 86_400_000

    def append(self, records: list[UsageRecord]) -> None:
        pipe = self._client.pipeline(transaction=False)
        for r in records:
            fields = {
                "p": r.provider, "c": r.capability, "o": r.outcome, "n": repr(r.units), "u": r.unit,
                "usd": repr(r.usd), "e": int(r.estimated), "l": repr(r.latency_ms), "t": repr(r.time),
            }
            if r.tags:
                fields["g"] = r.tags_json() or ""
            if r.query is not None:
                fields["q"] = r.query
            pipe.xadd(self.key, fields, minid=max(0, int(r.time * 1000) - self.retention_ms), approximate=True)
        pipe.execute()

    def rows(self, since: float, until: float | None = None) -> Iterator[UsageRecord]:
        # Ids are the server's clock when a row was written (it may wait in a spool a while),
        # so they only narrow the range; the row's own time decides.
        start = f"{max(0, int((since - _SLACK) * 1000))}-0"
        end = "+" if until is None else f"{int((until + _SLACK) * 1000)}-0"
        stop = float("inf") if until is None else until
        while True:
            page = self._client.xrange(self.key, min=start, max=end, count=_PAGE)
            for _, raw in page:
                row = _record({k.decode(): v.decode() for k, v in raw.items()})
                if since <= row.time < stop:
                    yield row
            if len(page) < _PAGE:
                return
            start = "(" + page[-1][0].decode()

    def spent(self, since: float, provider: str | None = None, tag: tuple[str, str] | None = None) -> float:
        total = 0.0
        for row in self.rows(since):
            if provider is not None and row.provider != provider:
                continue
            if tag is not None and row.tags.get(tag[0]) != tag[1]:
                continue
            total += row.usd
        return total

    def close(self) -> None:
        self._client.close()
