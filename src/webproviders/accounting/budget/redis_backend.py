"""Spending counters in Redis, shared by every process that points at the same server.

Checking every budget and adding to all of them happens in one Lua script, so two workers
can never both take the last cent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: KEYS: counters. ARGV: amount, then one limit per key, then one TTL (seconds) per key.
#: Returns {0, 0} when reserved, else {index, used} of the first budget that would be exceeded.
_RESERVE = """
local amount = tonumber(ARGV[1])
local n = #KEYS
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


class RedisCounters:
    """The :class:`~.local.LocalCounters` interface on a Redis server; every call is one round trip."""

    def __init__(self, url: str, timeout: float = 1.0) -> None:
        import redis  # the optional 'redis' extra, imported on first use

        # A frozen server must not hold a store thread longer than one operation's deadline.
        self._client: Any = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self._reserve = self._client.register_script(_RESERVE)

    def reserve(
        self, keys: Sequence[str], limits: Sequence[int], ttls: Sequence[int], amount: int
    ) -> tuple[int, int] | None:
        index, used = self._reserve(keys=list(keys), args=[amount, *limits, *ttls])
        return None if int(index) == 0 else (int(index) - 1, int(used))

    def add(self, keys: Sequence[str], delta: int) -> None:
        pipe = self._client.pipeline(transaction=False)
        for key in keys:
            pipe.incrby(key, delta)
        pipe.execute()

    def used(self, key: str) -> int:
        return int(self._client.get(key) or 0)

    def close(self) -> None:
        self._client.close()
