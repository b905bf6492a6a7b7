"""A cache in Redis, shared by a fleet of workers; entries expire server-side.

Claims (``SET NX`` with a time limit) give single flight across processes and machines.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

#: Deletes a claim only if it is still ours (a slow leader must not free another's claim).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

#: Holds a claim longer (ARGV[2] ms) only if it is still ours (a lapsed one may be another's now).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""

#: The longest an answer is kept, in milliseconds: Redis refuses an expiry past the range of its
#: clock ("value is not an integer or out of range"), so a config keeping answers as good as
#: forever (``web.cache.ttl.extract: 1e20``) had every answer refused, each call warning. A
#: century is forever enough for a cache.
_LONGEST_MS = 100 * 365 * 86_400_000


class RedisCache:
    """``get`` / ``set`` / ``claim`` against a Redis server; every call blocks for a round trip."""

    shared = True

    def __init__(self, url: str, namespace: str = "webproviders", timeout: float = 1.0) -> None:
        import redis  # the optional 'redis' extra, imported on first use

        # A frozen server must not hold a store thread longer than one operation's bound.
        self._client: Any = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self._prefix = f"{namespace}:cache:"
        self._release = self._client.register_script(_RELEASE)
        self._renew = self._client.register_script(_RENEW)

    @staticmethod
    def encode(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    @staticmethod
    def decode(payload: str | bytes) -> Any:
        return json.loads(payload)

    def get(self, key: str) -> bytes | None:
        return self._client.get(self._prefix + key)

    def set(self, key: str, payload: str, ttl: float) -> None:
        self._client.set(self._prefix + key, payload, px=min(_LONGEST_MS, max(1, round(ttl * 1000))))

    def claim(self, key: str, seconds: float) -> str | None:
        token = uuid.uuid4().hex
        taken = self._client.set(self._prefix + "claim:" + key, token, nx=True, px=max(1, round(seconds * 1000)))
        return token if taken else None

    def claimed(self, key: str) -> bool:
        return bool(self._client.exists(self._prefix + "claim:" + key))

    def renew(self, key: str, token: str, seconds: float) -> None:
        self._renew(keys=[self._prefix + "claim:" + key], args=[token, max(1, round(seconds * 1000))])

    def release(self, key: str, token: str) -> None:
        self._release(keys=[self._prefix + "claim:" + key], args=[token])

    def close(self) -> None:
        self._client.close()
