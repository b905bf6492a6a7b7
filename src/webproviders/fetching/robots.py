"""robots.txt as RFC 9309 reads it: groups by product token, longest match wins.

The standard library's parser lets the first matching line win and ignores ``*`` and
``$``; sites write their files for the RFC (and for the big crawlers, which follow it), so
this module implements the RFC's matching. An unavailable file (HTTP 4xx) allows
everything; a server error (5xx) allows nothing, as the RFC asks. A file longer than
:data:`PARSE_LIMIT` is read up to there (the fetch stops at that size) and its cut last line
dropped, as the RFC allows.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

#: The RFC asks crawlers to parse at least 500 KiB; anything after that is ignored.
PARSE_LIMIT = 512 * 1024
#: A ``Crawl-delay`` above this is capped (the call deadline would end the crawl anyway).
MAX_CRAWL_DELAY = 10.0

_LINE = re.compile(r"^\s*([A-Za-z-]+)\s*:\s*(.*?)\s*$")


@dataclass
class Rule:
    allow: bool
    pattern: str
    regex: re.Pattern[str]


@dataclass
class RobotsRules:
    """The rules that apply to one user agent on one origin."""

    rules: list[Rule] = field(default_factory=list)
    crawl_delay: float | None = None
    sitemaps: list[str] = field(default_factory=list)
    #: Set when the file could not be fetched and everything is refused.
    disallow_all: bool = False
    #: Why the rules are what they are, for warnings ("robots.txt answered HTTP 503").
    note: str = ""

    def allowed(self, url: str) -> bool:
        """Whether ``url`` may be fetched under these rules."""
        if self.disallow_all:
            return False
        parts = urlsplit(url)
        path = _normalise(parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if path == "/robots.txt":
            return True
        best: Rule | None = None
        for rule in self.rules:
            if rule.regex.match(path) and (
                best is None
                or len(rule.pattern) > len(best.pattern)
                or (len(rule.pattern) == len(best.pattern) and rule.allow)
            ):
                best = rule
        return best is None or best.allow


def _normalise(path: str) -> str:
    """Percent-decode what needs no encoding, so ``/a%62c`` and ``/abc`` compare equal."""
    if "%" not in path or "%2f" in path.lower():
        return path
    try:
        return unquote(path, errors="strict")
    except UnicodeDecodeError:
        return path


def _compile(pattern: str) -> re.Pattern[str]:
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    regex = ".*".join(re.escape(piece) for piece in body.split("*"))
    return re.compile(regex + ("$" if anchored else ""))


def product_token(user_agent: str) -> str:
    """``webproviders/0.1.0 (+https://…)`` -> ``webproviders``: what robots.txt groups name."""
    token = user_agent.strip().split("/", 1)[0].split(" ", 1)[0]
    return re.sub(r"[^A-Za-z_-]", "", token).lower() or "*"


def parse(text: str, user_agent: str) -> RobotsRules:
    """The rules in ``text`` for ``user_agent`` (its groups, else the ``*`` groups)."""
    token = product_token(user_agent)
    groups: list[tuple[list[str], list[tuple[str, str]]]] = []
    sitemaps: list[str] = []
    agents: list[str] = []
    lines: list[tuple[str, str]] = []
    for raw in text[:PARSE_LIMIT].splitlines():
        match = _LINE.match(raw.split("#", 1)[0])
        if not match:
            continue
        key, value = match.group(1).lower(), match.group(2)
        if key == "sitemap":
            if value:
                sitemaps.append(value)
            continue
        if key in ("user-agent", "useragent"):
            if lines:
                groups.append((agents, lines))
                agents, lines = [], []
            agents.append(value.lower())
        elif key in ("allow", "disallow", "crawl-delay") and agents:
            lines.append((key, value))
    if agents:
        groups.append((agents, lines))
    chosen = [body for names, body in groups if token in names] or [
        body for names, body in groups if "*" in names
    ]
    rules = RobotsRules(sitemaps=sitemaps)
    for body in chosen:
        for key, value in body:
            if key == "crawl-delay":
                try:
                    rules.crawl_delay = min(MAX_CRAWL_DELAY, max(0.0, float(value)))
                except ValueError:
                    pass
            elif value:
                pattern = value if value.startswith(("/", "*")) else "/" + value
                rules.rules.append(Rule(key == "allow", pattern, _compile(_normalise(pattern))))
    return rules


#: ``async (robots_url) -> (status, text)``; raises a WebProviderError when it cannot fetch.
#: The text is at most :data:`PARSE_LIMIT` long (see :func:`whole_lines`).
RobotsFetcher = Callable[[str], Awaitable[tuple[int, str]]]


def whole_lines(text: str, truncated: bool) -> str:
    """``text`` without its last line when the file was cut there (a cut rule matches other paths)."""
    return text[: text.rfind("\n") + 1] if truncated else text


class RobotsCache:
    """robots.txt per origin, fetched once per crawl (concurrent askers share one fetch)."""

    def __init__(self, fetcher: RobotsFetcher, user_agent: str) -> None:
        self._fetcher = fetcher
        self._user_agent = user_agent
        self._origins: dict[str, asyncio.Task[RobotsRules]] = {}

    async def rules_for(self, url: str) -> RobotsRules:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        task = self._origins.get(origin)
        if task is None:
            task = self._origins[origin] = asyncio.ensure_future(self._load(origin))
        return await asyncio.shield(task)

    async def allowed(self, url: str) -> bool:
        return (await self.rules_for(url)).allowed(url)

    async def _load(self, origin: str) -> RobotsRules:
        # A failure to fetch (unsafe host, no connection, timeout) is raised to every page of
        # the origin: the page would fail the same way, and says why better than "disallowed".
        status, text = await self._fetcher(f"{origin}/robots.txt")
        if 200 <= status < 300:
            return parse(text, self._user_agent)
        if 400 <= status < 500:
            return RobotsRules(note=f"{origin}/robots.txt answered HTTP {status}; all paths allowed")
        return RobotsRules(disallow_all=True, note=f"{origin}/robots.txt answered HTTP {status}")

    def close(self) -> None:
        for task in self._origins.values():
            task.cancel()
