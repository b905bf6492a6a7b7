"""Bounded concurrency overall and per host, with an optional delay between requests to a host.

One limiter serves one extract or crawl call. The per-host slot is taken before the global
one, so a busy host never holds global slots that other hosts could use. A host that asked
for a pause (``Retry-After``) gets no request until it is over; one that answers 429
without one is slowed down.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from ..errors import RateLimitedError, WebTimeoutError
from ..retry_after import retry_after_from_headers, retry_after_header

#: The longest gap :meth:`HostLimiter.slow_down` sets (as long as the longest ``Crawl-delay`` obeyed).
MAX_GAP = 10.0
#: Answers whose ``Retry-After`` pauses their host: too many requests, or down for a while.
PAUSE_STATUSES = (429, 503)


class HostPaused(Exception):
    """The host asked for a pause that lasts past the time the request had to start by."""

    def __init__(self, host: str, seconds_left: float) -> None:
        super().__init__(host, seconds_left)
        self.seconds_left = seconds_left

    def refusal(self, url: str) -> RateLimitedError:
        """The failure of ``url``, which was not requested for its host's pause."""
        return RateLimitedError(
            f"{url} was not requested: its host asked for a pause (Retry-After) that lasts "
            f"{self.seconds_left:.0f} s more, past the call's time limit.",
            retry_after=self.seconds_left,
        )


class HostPaced(Exception):
    """The gap kept between requests to the host (``delay``, a ``Crawl-delay``) would start the
    request past the time it had to start by: waiting for it would only hold the call until its
    deadline."""

    def __init__(self, host: str, gap: float, seconds_left: float) -> None:
        super().__init__(host, gap, seconds_left)
        self.host = host
        self.gap = gap
        self.seconds_left = seconds_left

    def refusal(self, url: str) -> WebTimeoutError:
        """The failure of ``url``, which was not requested for its host's pacing."""
        return WebTimeoutError(
            f"{url} was not requested: requests to {self.host} are kept {self.gap:g} s apart, and its "
            f"turn would come {self.seconds_left:.0f} s from now, past the call's time limit. Pass a "
            "larger timeout, or a smaller delay, for more pages of one host.",
            retry_after=self.seconds_left,  # asked again at once, the host would be asked too soon
        )


class HostLimiter:
    """``concurrency`` requests at once in total, ``per_host`` at once to one host."""

    def __init__(self, concurrency: int = 8, per_host: int = 2, delay: float = 0.0) -> None:
        self.concurrency = concurrency
        self.per_host = per_host
        self.delay = delay
        self._global = asyncio.Semaphore(concurrency)
        self._hosts: dict[str, asyncio.Semaphore] = {}
        self._next_start: dict[str, float] = {}
        self._host_delay: dict[str, float] = {}
        self._paused_until: dict[str, float] = {}
        self._slowed_until: dict[str, float] = {}

    def set_host_delay(self, host: str, delay: float) -> None:
        """A host-specific minimum gap between request starts (e.g. robots ``Crawl-delay``)."""
        self._host_delay[host] = max(0.0, delay)

    def pause(self, host: str, seconds: float) -> None:
        """Start no request to ``host`` for ``seconds`` (its 429 or 503 said ``Retry-After``)."""
        until = asyncio.get_running_loop().time() + seconds
        self._paused_until[host] = max(until, self._paused_until.get(host, until))

    def answered(self, host: str, status: int, headers: Mapping[str, str]) -> float | None:
        """Hold ``host`` back as its answer asks: a 429's or 503's ``Retry-After`` pauses it (a
        503's rate-limit reset headers say when a quota renews, not when an outage ends, and
        are not read), a 429 that does not say for how long slows it down. Returns the wait,
        or None (another answer, or a 503 that says nothing more: a page that is down)."""
        if status not in PAUSE_STATUSES:
            return None
        limited = status == 429
        wait = retry_after_from_headers(headers) if limited else retry_after_header(headers)
        if wait:
            self.pause(host, wait)
            return wait
        return self.slow_down(host) if limited else None

    def slow_down(self, host: str) -> float:
        """``host`` answered 429 without saying for how long: twice the gap between its request
        starts (1 s the first time, at most :data:`MAX_GAP`), and no request for that long.
        A 429 within twice that gap of the last slow-down answers a request sent before it,
        and says nothing new. Returns the gap."""
        now = asyncio.get_running_loop().time()
        if now < self._slowed_until.get(host, 0.0):
            return self._gap(host)
        gap = min(MAX_GAP, max(1.0, 2 * self._gap(host)))
        self._host_delay[host] = gap
        self.pause(host, gap)
        self._slowed_until[host] = now + 2 * gap  # the requests already on their way answer by then
        return gap

    def _gap(self, host: str) -> float:
        return max(self.delay, self._host_delay.get(host, 0.0))

    @asynccontextmanager
    async def slot(self, host: str, start_by: float | None = None) -> AsyncIterator[None]:
        """Wait for a free slot for ``host`` (and the host's delay or pause), hold it while inside.

        Raises :class:`HostPaused` when the host's pause lasts past ``start_by`` (a loop time),
        :class:`HostPaced` when the gap between its requests would start this one past it.
        """
        semaphore = self._hosts.get(host)
        if semaphore is None:
            semaphore = self._hosts[host] = asyncio.Semaphore(self.per_host)
        async with semaphore:
            loop = asyncio.get_running_loop()
            now = loop.time()
            paused = self._paused_until.get(host, now)
            if start_by is not None and paused > start_by:
                raise HostPaused(host, paused - now)
            start = max(now, paused, self._next_start.get(host, now))
            gap = self._gap(host)
            if start_by is not None and start > start_by:
                raise HostPaced(host, gap, start - now)
            if gap > 0:
                self._next_start[host] = start + gap
            if start > now:
                await asyncio.sleep(start - now)
            async with self._global:
                yield
