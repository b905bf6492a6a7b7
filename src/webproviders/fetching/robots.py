"""robots.txt read by protego (RFC 9309: groups by product token, longest match wins).

The whole User-Agent goes to protego, which finds a group's product token in it at a token
boundary, so ``Mozilla/5.0 (compatible; MyBot/1.0)`` is ruled by the ``MyBot`` group.

An unavailable file (HTTP 4xx) allows everything; a server error (5xx) allows nothing, as the
RFC asks, and so does 429: a site that says it has too many requests is not unavailable but
busy, and is not sent a whole crawl at once (Google reads 429 so too). A file longer than
:data:`PARSE_LIMIT` is read up to there (the fetch stops at that size) and its cut last line
dropped, as the RFC allows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..pools import LazyPool

#: The RFC asks crawlers to parse at least 500 KiB; anything after that is ignored.
PARSE_LIMIT = 512 * 1024
#: A ``Crawl-delay`` above this is capped (the call deadline would end the crawl anyway).
MAX_CRAWL_DELAY = 10.0
#: A file longer than this (characters) is parsed, and URLs matched against it, on a thread
#: of :data:`_readers`: protego took 330 ms to parse a 512 KiB file of 20,000 rules and 15 ms
#: to match one URL against it, time in which the crawl's event loop, and every other call
#: on it, stood still. A file of ordinary size is read where it arrives (no thread hop).
BIG_FILE = 32 * 1024

_readers = LazyPool(2, "webproviders-robots")


@dataclass
class RobotsRules:
    """The rules that apply to one user agent on one origin."""

    #: The parsed file (a ``protego.Protego``); None when there is no file to obey.
    parsed: Any = None
    #: The User-Agent the file's groups are matched against.
    user_agent: str = "*"
    crawl_delay: float | None = None
    sitemaps: list[str] = field(default_factory=list)
    #: Set when the file could not be fetched and everything is refused.
    disallow_all: bool = False
    #: Why the rules are what they are, for warnings ("robots.txt answered HTTP 503").
    note: str = ""
    #: Whether the file is over :data:`BIG_FILE`: URLs are matched off the event loop.
    big: bool = False

    def allowed(self, url: str) -> bool:
        """Whether ``url`` may be fetched under these rules (``/robots.txt`` itself always may)."""
        if self.disallow_all:
            return False
        if self.parsed is None or (urlsplit(url).path == "/robots.txt"):
            return True
        return bool(self.parsed.can_fetch(url, self.user_agent))

    async def permits(self, url: str) -> bool:
        """:meth:`allowed`, on a robots thread when the file is big."""
        return await _readers.run(self.allowed, url) if self.big else self.allowed(url)


def parse(text: str, user_agent: str) -> RobotsRules:
    """The rules in ``text`` for ``user_agent`` (its groups, else the ``*`` groups)."""
    from protego import Protego

    parsed = Protego.parse(text[:PARSE_LIMIT])
    delay = parsed.crawl_delay(user_agent)
    return RobotsRules(
        parsed,
        user_agent,
        crawl_delay=None if delay is None else min(MAX_CRAWL_DELAY, max(0.0, float(delay))),
        sitemaps=list(parsed.sitemaps),
        big=len(text) > BIG_FILE,
    )


#: ``async (robots_url) -> (status, text)``; raises a WebProviderError when it cannot fetch.
#: The text is at most :data:`PARSE_LIMIT` long (see :func:`whole_lines`).
RobotsFetcher = Callable[[str], Awaitable[tuple[int, str]]]


def whole_lines(text: str, truncated: bool) -> str:
    """``text`` without its last line when the file was cut there (a cut rule matches other paths)."""
    return text[: text.rfind("\n") + 1] if truncated else text


class RobotsCache:
    """robots.txt per origin, fetched once per crawl (concurrent askers share one fetch).

    ``on_read(origin, rules)`` sees each origin's rules once, as they are read (its
    ``Crawl-delay`` applies to that host from then on).
    """

    def __init__(
        self,
        fetcher: RobotsFetcher,
        user_agent: str,
        on_read: Callable[[str, RobotsRules], None] | None = None,
    ) -> None:
        self._fetcher = fetcher
        self.user_agent = user_agent
        self._on_read = on_read
        self._origins: dict[str, asyncio.Task[RobotsRules]] = {}

    async def rules_for(self, url: str) -> RobotsRules:
        origin = _origin(url)
        task = self._origins.get(origin)
        if task is None:
            task = self._origins[origin] = asyncio.ensure_future(self._load(origin))
        return await asyncio.shield(task)

    def unanswered(self, url: str) -> bool:
        """Whether the robots.txt of ``url``'s origin was asked for and gave no rules: it is
        being fetched still, or its fetch ran out of time a moment before the crawl did."""
        task = self._origins.get(_origin(url))
        return task is not None and (not task.done() or task.cancelled() or task.exception() is not None)

    async def allowed(self, url: str) -> bool:
        return await (await self.rules_for(url)).permits(url)

    async def _load(self, origin: str) -> RobotsRules:
        # A failure to fetch (unsafe host, no connection, timeout) is raised to every page of
        # the origin: the page would fail the same way, and says why better than "disallowed".
        status, text = await self._fetcher(f"{origin}/robots.txt")
        if 200 <= status < 300:
            rules = await _readers.run(parse, text, self.user_agent) if len(text) > BIG_FILE else parse(text, self.user_agent)
        elif 400 <= status < 500 and status != 429:
            rules = RobotsRules(note=f"{origin}/robots.txt answered HTTP {status}; all paths allowed")
        else:
            rules = RobotsRules(disallow_all=True, note=f"{origin}/robots.txt answered HTTP {status}")
        if self._on_read is not None:
            self._on_read(origin, rules)
        return rules

    def close(self) -> None:
        for task in self._origins.values():
            task.cancel()

    async def aclose(self) -> None:
        """:meth:`close`, waiting for the fetches under way to end (each has its say as it does)."""
        self.close()
        await asyncio.gather(*self._origins.values(), return_exceptions=True)


def _origin(url: str) -> str:
    """The origin whose robots.txt rules ``url`` (``https://host:port``)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
