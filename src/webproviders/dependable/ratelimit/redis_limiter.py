"""A request budget shared through Redis by every process and machine that points at it.

The start times of the requests sent on one budget's name (a provider and its keys) are a
sorted set, read and written inside one Lua script on the Redis server with the server's
clock, so it is atomic and independent of clock skew between workers. Every config sharing
the name counts every request in it against its own ``rate_limit``: configs that set other
values for the same key each keep theirs, the larger never letting more through because of
the smaller, nor the smaller less. A slot taken for a request that was not sent is given back
(a sorted set beside it) and taken by the next caller it suits.
"""

from __future__ import annotations

from typing import Any

from ..scriptbatch import ScriptBatch
from .spec import Rate

#: KEYS: starts key, pause key, given-back key, facts key (the longest span any config keeps,
#: a sequence for unique members). ARGV: window count (0 = no budget), window ms, max wait ms.
#: Returns {wait ms, slot ms} when a slot was taken (the earliest of the next one and one given
#: back), or {-(wait + 1), 0} when it was too far away.
#:
#: A slot ``t`` is free when fewer than ``count`` starts lie within ``span`` of it on either
#: side, so no span holding ``t`` holds more than ``count``, whatever other configs reserved
#: ahead. That count only falls where a start leaves the span behind ``t``: the search jumps
#: from one such point to the next that can make room.
_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local start = math.max(now, tonumber(redis.call('GET', KEYS[2]) or '0'))
local count = tonumber(ARGV[1])
local span = tonumber(ARGV[2])
local max_wait = tonumber(ARGV[3])
if count <= 0 then
  local wait = start - now
  if wait > max_wait then return {-wait - 1, 0} end
  return {wait, 0}
end
local longest = math.max(span, tonumber(redis.call('HGET', KEYS[4], 'span') or '0'))
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - longest)
local slot = start
while true do
  local near = redis.call('ZCOUNT', KEYS[1], '(' .. (slot - span), '(' .. (slot + span))
  if near < count then break end
  local leaving = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (slot - span), '+inf', 'WITHSCORES', 'LIMIT', near - count, 1)
  slot = tonumber(leaving[2]) + span
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. start)
local back = redis.call('ZRANGEBYSCORE', KEYS[3], start, slot, 'LIMIT', 0, 1)
if #back > 0 and tonumber(back[1]) - now <= max_wait then
  redis.call('ZREM', KEYS[3], back[1])
  return {tonumber(back[1]) - now, tonumber(back[1])}
end
local wait = slot - now
if wait > max_wait then return {-wait - 1, 0} end
local seq = redis.call('HINCRBY', KEYS[4], 'seq', 1)
redis.call('ZADD', KEYS[1], slot, string.format('%d:%d', slot, seq))
redis.call('HSET', KEYS[4], 'span', string.format('%d', longest))
local keep = math.max(1000, slot - now + longest + 1000)
for _, key in ipairs({KEYS[1], KEYS[4]}) do
  if redis.call('PTTL', key) < keep then redis.call('PEXPIRE', key, keep) end
end
return {wait, slot}
"""

#: KEYS: given-back key. ARGV: slot ms. A slot taken for a request that was not sent, for
#: the next caller to take: it stays counted in the window, so the budget holds.
_GIVE_BACK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local slot = tonumber(ARGV[1])
if slot > now then
  redis.call('ZADD', KEYS[1], slot, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], slot - now + 1000)
end
return 0
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


#: One limiter operation: ``(method, args)``, e.g. ``("reserve", (name, rate, max_wait))``.
Operation = tuple[str, tuple[Any, ...]]


class RedisLimiter:
    """The :class:`~webproviders.dependable.ratelimit.local.LocalLimiter` interface, stored in Redis.

    Calls block for one round trip; the async front end runs them off the event loop, many
    at once through :meth:`run` (see :mod:`webproviders.dependable.batch`).
    """

    def __init__(self, url: str, namespace: str = "webproviders", timeout: float = 1.0) -> None:
        import redis  # the optional 'redis' extra, imported on first use

        # A frozen server must not hold a store thread longer than one operation's bound.
        self._client: Any = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self._namespace = namespace
        self._batch = ScriptBatch(self._client, {
            "reserve": _RESERVE, "pause": _PAUSE, "paused_for": _PAUSED_FOR, "give_back": _GIVE_BACK,
        })

    def _keys(self, name: str) -> list[str]:
        base = f"{self._namespace}:ratelimit:{{{name}}}"
        return [f"{base}:starts", f"{base}:pause", f"{base}:given-back", f"{base}:facts"]

    def run(self, operations: list[Operation]) -> list[Any]:
        """Each operation's answer (or the error the server gave that operation alone), all
        sent in one script call (:mod:`..scriptbatch`); each stays atomic on its own."""
        batch = [(method, *getattr(self, f"_{method}_args")(*args)) for method, args in operations]
        answers = self._batch.run(batch)
        return [answer if isinstance(answer, Exception) else getattr(self, f"_{method}_answer")(answer)
                for (method, _), answer in zip(operations, answers, strict=True)]

    def _one(self, method: str, *args: Any) -> Any:
        answer = self.run([(method, args)])[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def reserve(self, name: str, rate: Rate | None, max_wait: float) -> tuple[float, bool, int | None]:
        """As :meth:`.local.LocalLimiter.reserve`, and the slot taken (for :meth:`give_back`)."""
        return self._one("reserve", name, rate, max_wait)  # type: ignore[no-any-return]

    def give_back(self, name: str, slot: int) -> None:
        """Offer a slot :meth:`reserve` took, for a request that was not sent, to the next caller."""
        self._one("give_back", name, slot)

    def pause(self, name: str, seconds: float) -> None:
        self._one("pause", name, seconds)

    def paused_for(self, name: str) -> float:
        return self._one("paused_for", name)  # type: ignore[no-any-return]

    def _reserve_args(self, name: str, rate: Rate | None, max_wait: float) -> tuple[list[str], list[int]]:
        count, span = (0, 0.0) if rate is None else rate.window
        return self._keys(name), [count, max(1, round(span * 1000)), max(0, int(max_wait * 1000))]

    @staticmethod
    def _reserve_answer(answer: Any) -> tuple[float, bool, int | None]:
        result, slot = (int(value) for value in answer)
        if result < 0:
            return (-result - 1) / 1000, False, None
        return result / 1000, True, slot or None

    def _give_back_args(self, name: str, slot: int) -> tuple[list[str], list[int]]:
        return self._keys(name)[2:3], [slot]

    @staticmethod
    def _give_back_answer(answer: Any) -> None:
        return None

    def _pause_args(self, name: str, seconds: float) -> tuple[list[str], list[int]]:
        return self._keys(name)[1:2], [max(1, round(seconds * 1000))]

    @staticmethod
    def _pause_answer(answer: Any) -> None:
        return None

    def _paused_for_args(self, name: str) -> tuple[list[str], list[int]]:
        return self._keys(name)[1:2], []

    @staticmethod
    def _paused_for_answer(answer: Any) -> float:
        return int(answer) / 1000

    def close(self) -> None:
        self._client.close()
