"""Spending counters in Redis, shared by every process that points at the same server.

Checking every budget and adding to all of them happens in one Lua operation, so two workers
can never both take the last cent; the operations of a batch go in one script call
(:mod:`webproviders.dependable.scriptbatch`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...dependable.scriptbatch import ScriptBatch

#: KEYS: counters. ARGV: amount, one limit per key, one TTL (seconds) per key, then how to
#: treat a counter the server does not hold: ``count`` (from zero), ``ask`` (reserve nothing,
#: answer {-1, 0}) or ``seed`` followed by one starting value per key (set for missing ones).
#: Returns {0, 0} when reserved, else {index, used} of the first budget that would be exceeded.
_RESERVE = """
local amount = tonumber(ARGV[1])
local n = #KEYS
local missing = ARGV[2 * n + 2]
if missing ~= 'count' then
  for i = 1, n do
    if redis.call('EXISTS', KEYS[i]) == 0 then
      if missing == 'ask' then return {-1, 0} end
      redis.call('SET', KEYS[i], ARGV[2 * n + 2 + i], 'EX', tonumber(ARGV[n + i + 1]))
    end
  end
end
for i = 1, n do
  local used = tonumber(redis.call('GET', KEYS[i]) or '0')
  if used + amount > tonumber(ARGV[i + 1]) then return {i, used} end
end
for i = 1, n do
  redis.call('INCRBY', KEYS[i], amount)
  redis.call('EXPIRE', KEYS[i], tonumber(ARGV[n + i + 1]))
end
return {0, 0}
"""

#: KEYS: counters. ARGV: delta. Corrects the counters the server still holds: one it lost is
#: started again from the ledger, which has the request's real cost, by the next reservation.
_ADD = """
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('INCRBY', KEYS[i], ARGV[1]) end
end
return 0
"""

#: What :meth:`RedisCounters.reserve` answers, asked to, when the server lacks a counter.
MISSING = (-1, 0)

#: One reservation: ``(keys, limits, ttls, amount, starts)`` (see :meth:`RedisCounters.reserve`).
Reservation = tuple[Sequence[str], Sequence[int], Sequence[int], int, Sequence[int] | bool]


def _refused(index: Any, used: Any) -> tuple[int, int] | None:
    """The script's answer: None (reserved), :data:`MISSING`, or ``(index, used)`` of the budget that refused."""
    if int(index) == -1:
        return MISSING
    return None if int(index) == 0 else (int(index) - 1, int(used))


class RedisCounters:
    """Spending counters on a Redis server; every call is one round trip, whatever the number
    of reservations (:meth:`reserve`) or corrections (:meth:`add`) it carries.

    A counter the server does not hold (a new period, a server restarted empty, a key evicted
    under ``maxmemory``) is started from the usage ledger's running total when the caller has
    a ledger: :meth:`reserve` answers :data:`MISSING` until it is given the starting values.
    """

    def __init__(self, url: str, timeout: float = 1.0) -> None:
        import redis  # the optional 'redis' extra, imported on first use

        # A frozen server must not hold a store thread longer than one operation's deadline.
        self._client: Any = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self._batch = ScriptBatch(self._client, {"reserve": _RESERVE, "add": _ADD})

    def reserve(self, requests: Sequence[Reservation]) -> list[tuple[int, int] | None | Exception]:
        """Each request's answer, all sent in one script call: None when ``amount`` was taken
        from every counter, else ``(index, used)`` of the first that would go over, or the
        error the server gave that reservation alone (each is atomic on its own).

        ``starts``: False counts a missing counter from zero; True answers :data:`MISSING`
        instead (nothing reserved); a list of values starts missing counters at them.
        """
        batch = []
        for keys, limits, ttls, amount, starts in requests:
            if starts is False:
                missing: list[Any] = ["count"]
            elif starts is True:
                missing = ["ask"]
            else:
                missing = ["seed", *starts]
            batch.append(("reserve", keys, [amount, *limits, *ttls, *missing]))
        return [answer if isinstance(answer, Exception) else _refused(*answer) for answer in self._batch.run(batch)]

    def add(self, corrections: Sequence[tuple[Sequence[str], int]]) -> None:
        """Add each ``delta`` to its ``keys`` (the counters the server still holds), in one
        script call; raises the first error met."""
        for answer in self._batch.run([("add", keys, [delta]) for keys, delta in corrections]):
            if isinstance(answer, Exception):
                raise answer

    def used(self, key: str) -> int:
        return int(self._client.get(key) or 0)

    def close(self) -> None:
        self._client.close()
