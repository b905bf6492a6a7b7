"""A request budget shared through Redis by every process and machine that points at it.

The sliding window of slots (see :mod:`.local`) is a list of the latest slots, newest first,
kept and read inside one Lua script on the Redis server with the server's clock, so it is
atomic and independent of clock skew between workers.
"""

from __future__ import annotations

from typing import Any

from .spec import Rate

#: KEYS: slots key, pause key. ARGV: window count (0 = no budget), window ms, max wait ms.
#: Returns the wait in ms when a slot was taken, or -(wait + 1) when it was too far away.
_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local start = math.max(now, tonumber(redis.call('GET', KEYS[2]) or '0'))
local count = tonumber(ARGV[1])
local span = tonumber(ARGV[2])
local max_wait = tonumber(ARGV[3])
if count <= 0 then
  local wait = start - now
  if wait > max_wait then return -wait - 1 end
  return wait
end
local slot = start
local held = redis.call('LLEN', KEYS[1])
if held >= count then
  local oldest = redis.call('LINDEX', KEYS[1], held == count and -1 or count - 1)
  slot = math.max(slot, tonumber(oldest) + span)
end
local wait = slot - now
if wait > max_wait then return -wait - 1 end
redis.call('LPUSH', KEYS[1], string.format('%d', slot))
redis.call('LTRIM', KEYS[1], 0, count - 1)
redis.call('PEXPIRE', KEYS[1], math.max(1000, slot - now + span + 1000))
return wait
"""

#: KEYS: pause key. ARGV: pause ms. Extends, never shortens, a pause.
_PAUSE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untl = now + tonumber(ARGV[1])
if untl > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], string.format('%d', untl), 'PX', tonumber(ARGV[1]) + 1000)
end
return 0
"""

#: KEYS: pause key. Returns ms left in the pause.
_PAUSED_FOR = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return math.max(0, tonumber(redis.call('GET', KEYS[1]) or '0') - now)
"""


class RedisLimiter:
    """The :class:`~webproviders.dependable.ratelimit.local.LocalLimiter` interface, stored in Redis.

    Calls block for one round trip; the async front end runs them off the event loop.
    """

    def __init__(self, url: str, namespace: str = "webproviders", timeout: float = 1.0) -> None:
        import redis  # the optional 'redis' extra, imported on first use

        # A frozen server must not hold a store thread longer than one operation's bound.
        self._client: Any = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self._namespace = namespace
        self._reserve = self._client.register_script(_RESERVE)
        self._pause = self._client.register_script(_PAUSE)
        self._paused_for = self._client.register_script(_PAUSED_FOR)

    def _keys(self, name: str) -> list[str]:
        base = f"{self._namespace}:ratelimit:{{{name}}}"
        return [f"{base}:slots", f"{base}:pause"]

    def reserve(self, name: str, rate: Rate | None, max_wait: float) -> tuple[float, bool]:
        count, span = (0, 0.0) if rate is None else rate.window
        args = [count, max(1, round(span * 1000)), max(0, int(max_wait * 1000))]
        result = int(self._reserve(keys=self._keys(name), args=args))
        if result < 0:
            return (-result - 1) / 1000, False
        return result / 1000, True

    def pause(self, name: str, seconds: float) -> None:
        self._pause(keys=self._keys(name)[1:], args=[max(1, round(seconds * 1000))])

    def paused_for(self, name: str) -> float:
        return int(self._paused_for(keys=self._keys(name)[1:])) / 1000

    def close(self) -> None:
        self._client.close()
