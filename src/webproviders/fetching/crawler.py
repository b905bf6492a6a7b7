"""A polite breadth-first crawler over the safe fetcher.

Shallow pages first; a page's place is its depth and the position of the link that found
it, so results come back in a stable discovery order whatever order the fetches finish in.
It stays in scope (host, registrable domain, or anywhere), obeys robots.txt (and
``Crawl-delay``, and ``nofollow`` in a page's robots ``<meta>`` tags or ``X-Robots-Tag``), follows only HTML pages,
and stops in time to return what it has before the call's deadline.
"""

from __future__ import annotations

import asyncio
import heapq
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import partial
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from ..asynctimeout import cancelled_here, within
from ..config import Config, ProviderSettings, user_agent
from ..context import warn
from ..envelope import page_error
from ..errors import (
    BlockedError,
    InvalidInputError,
    RateLimitedError,
    WebProviderError,
    WebTimeoutError,
    to_provider_error,
)
from ..urls import (
    MAX_URL_CHARS,
    canonicalize,
    host_of,
    join_url,
    page_identity,
    pattern_spelling,
    registrable_domain,
)
from ..validate import MAX_CRAWL_PAGES
from .charset import decode
from .decompress import GZIP_MAGIC
from .extractpool import extraction_pool
from .fetch import FetchResult, cut_short_at, fetch, gunzip, status_error
from .options import FetchLimits, PageOptions, patterns, pick, refused, switch, whole
from .pages import HEAVY_HTML_TAGS, NotAPage, render
from .politeness import HostLimiter, HostPaced, HostPaused
from .robots import PARSE_LIMIT, RobotsCache, RobotsRules, whole_lines
from .robotsmeta import says_nofollow
from .sitemap import parse_sitemap
from .urlsafety import AddressPolicy, check_destination_resolved, resolution_scope

Scope = Literal["host", "domain", "any"]
MAX_PAGES_CAP = MAX_CRAWL_PAGES
#: Links to these are never fetched: they cannot be pages (a tuple, for one ``str.endswith``).
SKIP_EXTENSIONS = tuple(
    [".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".ico", ".bmp", ".tif", ".tiff", ".avif", ".css", ".js", ".mjs", ".map", ".json.gz", ".zip", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".7z", ".rar", ".exe", ".msi", ".dmg", ".iso", ".apk", ".deb", ".rpm", ".mp3", ".mp4", ".m4a", ".m4v", ".ogg", ".oga", ".wav", ".flac", ".avi", ".mov", ".mkv", ".webm", ".woff", ".woff2", ".ttf", ".otf", ".eot"]
)
#: How many sitemap files (an index and its children) one crawl reads.
MAX_SITEMAPS = 10
#: URLs kept waiting per page of ``max_pages``: room for waiting URLs that turn out to be no
#: page (disallowed, binary, a redirect to a page we have), without holding every link of an
#: endless site in memory.
QUEUE_PER_PAGE = 4
#: The part of the time left when the seed arrives that its sitemaps may take: ten large
#: files took it all, and the pages its links lead to were never read.
SITEMAP_SHARE = 0.5
#: Links handled between two looks at the clock: a page may hold thousands, and the crawl
#: must stop in time to return its pages.
LINKS_PER_CLOCK = 256

Progress = Callable[[dict[str, Any]], Any]


def _only_star_wild(pattern: str) -> str:
    """``pattern`` for :func:`fnmatchcase` with ``*`` its only wildcard: ``?`` and ``[`` stand
    for themselves, as they do in URLs (a shop's filter ``?f[0]=color:red`` read as a glob's
    character class matched no link)."""
    return "".join(f"[{char}]" if char in "?[" else char for char in pattern)


class RobotsRefused(BlockedError):
    """robots.txt disallows a URL: a page is skipped for it, the seed fails with it."""


class NotFollowed(Exception):
    """A found link redirects where no link would be followed, or to a URL the crawl already
    has: it is skipped before that hop."""


@dataclass(frozen=True)
class CrawlOptions:
    """A crawl's options, validated (see docs/providers/http.md)."""

    max_depth: int = 2
    max_pages: int = 25
    scope: Scope = "host"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    respect_robots: bool = True
    use_sitemap: bool = False
    limits: FetchLimits = field(default_factory=FetchLimits)
    page: PageOptions = field(default_factory=PageOptions)
    progress: Progress | None = None

    @classmethod
    def from_kwargs(cls, kwargs: dict[str, Any], settings: ProviderSettings) -> tuple[CrawlOptions, list[str]]:
        """``(options, notes)``; ``notes`` are warnings for values that were adjusted."""
        notes: list[str] = []
        # ``limit`` is the alias every crawling backend takes for ``max_pages``.
        asked = kwargs if kwargs.get("max_pages") is not None else {"max_pages": kwargs.get("limit")}
        max_pages = whole(*pick(asked, settings, "max_pages", 25), 1)
        if max_pages > MAX_PAGES_CAP:
            notes.append(f"max_pages {max_pages} is above the limit of {MAX_PAGES_CAP}; {MAX_PAGES_CAP} is used.")
            max_pages = MAX_PAGES_CAP
        where, scope = pick(kwargs, settings, "scope", "host")
        if scope not in ("host", "domain", "any"):
            raise refused(where, f"must be 'host', 'domain' or 'any', not {scope!r}.")
        progress = kwargs.get("progress")
        if progress is not None and not callable(progress):
            raise InvalidInputError("progress must be a function that receives a dict per page.")
        return (
            cls(
                max_depth=whole(*pick(kwargs, settings, "max_depth", 2), 0, 20),
                max_pages=max_pages,
                scope=scope,
                include=patterns("include", kwargs.get("include")),
                exclude=patterns("exclude", kwargs.get("exclude")),
                respect_robots=switch(*pick(kwargs, settings, "respect_robots", True)),
                use_sitemap=switch(*pick(kwargs, settings, "use_sitemap", False)),
                limits=FetchLimits.from_kwargs(kwargs, settings),
                page=PageOptions.from_kwargs(kwargs),
                progress=progress,
            ),
            notes,
        )


@dataclass(order=True)
class Entry:
    """A URL waiting to be fetched, ordered shallow-first, then by discovery position."""

    depth: int
    key: tuple[int, ...]
    url: str = field(compare=False)
    referrer: str | None = field(compare=False, default=None)
    #: Which page it is (:func:`_page_of`): the crawl reads each once.
    page: str = field(compare=False, default="")


@dataclass
class Outcome:
    entry: Entry
    item: dict[str, Any] | None = None
    links: list[str] = field(default_factory=list)
    final_url: str | None = None
    robots_refused: bool = False
    #: The fetch was cut off by the call's deadline (not by its own timeout): not a result.
    cut_short: bool = False
    #: The host asked for a pause (429, 503): the page is asked for again once it is over.
    again: bool = False



def _absolute(sitemap: str, listed: list[str]) -> list[str]:
    """The ``<loc>`` entries of the sitemap at ``sitemap`` (where it was read, after redirects),
    each read against that URL as a link is: the protocol asks for full URLs, but ``/docs/a``
    is common, and was passed over unsaid."""
    return [url for url in (join_url(sitemap, loc) for loc in listed) if url is not None]


def _canonical(url: str) -> str:
    """``url``'s canonical form (:func:`~webproviders.urls.canonicalize`) with a host outside
    ASCII in its IDNA spelling (``münchen.de`` is ``xn--mnchen-3ya.de``), as httpx sends it and
    spells a page's final URL: a link written either way is one host and one page to the crawl
    (a crawl of the ASCII spelling passed by every link written the other way, and one of the
    other read each page twice)."""
    canon = canonicalize(url)
    if canon.isascii():
        return canon
    try:
        parts = urlsplit(canon)
        host, port = parts.hostname, parts.port
        if not host or host.isascii() or "@" in parts.netloc:
            return canon  # a link with user info is never followed, whatever its host
        spelled = httpx.URL(f"http://{host}/").raw_host.decode("ascii")
    except (ValueError, httpx.InvalidURL, UnicodeError):
        return canon  # refused when it is fetched, as it would have been
    return parts._replace(netloc=spelled if port is None else f"{spelled}:{port}").geturl()


def _as_sent(url: str) -> str:
    """``url`` spelled as it is requested (``/a b`` is ``/a%20b``), as a page read is named:
    a page that failed kept the link's spelling, beside pages read in the other."""
    try:
        return str(httpx.URL(url))
    except (httpx.InvalidURL, ValueError, UnicodeError):
        return url  # never requested: named as the link spelled it


def _page_of(url: str) -> str:
    """Which page ``url`` (a canonical URL) is to the crawl: its
    :func:`~webproviders.urls.page_identity` with the query's parameters in the order of their
    names (a name given twice keeps its values' order). A shop's filter links name them in
    every order (``?color=red&size=m``, ``?size=m&color=red``): each order was read as a page."""
    identity = page_identity(url)
    head, mark, query = identity.partition("?")
    if not mark or "&" not in query:
        return identity
    return f"{head}?{'&'.join(sorted(query.split('&'), key=lambda param: param.partition('=')[0]))}"


def _host_and_port(url: str) -> str:
    """``url``'s host, with its port when that is not its scheme's own: scope ``host`` keeps to
    the service the seed is on (``http`` and ``https`` on their usual ports are one site, and
    a link to ``:8080`` or ``:9200`` on the same name is another service, perhaps an
    administrator's, not more of the site)."""
    host = host_of(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return host
    return host if port is None or port == _SCHEME_PORTS.get(parts.scheme) else f"{host}:{port}"


_SCHEME_PORTS = {"http": 80, "https": 443}

class Crawler:
    """One crawl: call :meth:`run` once."""

    def __init__(
        self,
        config: Config,
        options: CrawlOptions,
        *,
        budget: float | None = None,
        pace: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.config = config
        self.options = options
        self.budget = budget
        self.policy = AddressPolicy.from_config(config)
        self.limiter = HostLimiter(
            options.limits.concurrency, options.limits.per_host_concurrency, options.limits.delay
        )
        self.robots = RobotsCache(self._fetch_robots, user_agent(config), self._robots_read)
        self._heap: list[Entry] = []
        #: Waiting entries and the pages read or queued, by page (not by spelling).
        self._pending: dict[str, Entry] = {}
        self._seen: set[str] = set()
        #: Pages a redirect is on its way to, by page, with the entry whose fetch follows it
        #: there: another link redirecting to one of them is not followed (it would read it twice).
        self._redirected: dict[str, Entry] = {}
        #: Pages a page read names as its canonical address (not itself): the same page, not
        #: requested again when its turn comes (it may be queued, or waiting for its host's slot).
        self._named: set[str] = set()
        #: The text of each page read, by page (a hash): a copy that names it its canonical
        #: address, with the same text, is not returned again.
        self._texts: dict[str, int] = {}
        #: Pages asked for again after their host's pause (each once).
        self._asked_again: set[str] = set()
        #: robots.txt answers read at the end of another origin's redirect, by their URL.
        self._robots_of: dict[str, tuple[int, str]] = {}
        #: Why a fetch the crawl's deadline cut short never reached its host (a proxy that had
        #: not opened its tunnel), by host: the seed's timeout names it, as an extract's does.
        self._held: dict[str, str] = {}
        #: What waits for a page's slot of the provider's request budget, given the seconds the
        #: page may wait (``kit.Pacer``'s ``slot``), and the refusal that ended the crawl when
        #: none came in time.
        self._pace = pace
        self._no_slot: RateLimitedError | None = None
        self._results: list[tuple[Entry, dict[str, Any]]] = []
        self._scope_hosts: set[str] = set()
        self._scope_domains: set[str] = set()
        self._robots_refused = 0
        #: Pages whose links were not followed for their robots ``nofollow``: a crawl of one page
        #: (its seed says it) read as one of a site without links.
        self._nofollow = 0
        #: Pages linked on other hosts of the seed's domain, not followed with scope ``host``
        #: (by page, their host): a site whose links all name ``www.`` read as one page.
        self._nearby: dict[str, str] = {}
        #: Hosts whose robots.txt ``Crawl-delay`` paces them, and the seconds between requests.
        self._paced: dict[str, float] = {}
        #: Hosts whose next request the gap between their requests would have started past the
        #: deadline, and that gap: their pages left are not waited for (the crawl ends with a word).
        self._paced_out: dict[str, float] = {}
        #: Pages linked from the deepest pages, one depth past ``max_depth``: a crawl that read
        #: everything within it says there was more (at most as many as the queue holds).
        self._past_depth: set[str] = set()
        #: Links that matched ``include`` and links that did not: none matching is worth a word.
        self._included = 0
        self._not_included = 0
        self._stop_at: float | None = None
        self._progress = options.progress
        # Matched against a link's one spelling: a pattern written either way names both.
        self._include = tuple(_only_star_wild(pattern_spelling(p)) for p in options.include)
        self._exclude = tuple(_only_star_wild(pattern_spelling(p)) for p in options.exclude)

    # -- time -------------------------------------------------------------------------
    def _left(self) -> float | None:
        if self._stop_at is None:
            return None
        return self._stop_at - asyncio.get_running_loop().time()

    def _url_timeout(self) -> float:
        left = self._left()
        limit = self.options.limits.url_timeout
        return limit if left is None else max(0.0, min(limit, left))

    # -- scope and filters ------------------------------------------------------------
    def _add_scope(self, url: str) -> None:
        self._scope_hosts.add(_host_and_port(url))
        self._scope_domains.add(registrable_domain(host_of(url)))

    def _in_scope(self, url: str) -> bool:
        if self.options.scope == "any":
            return True
        if self.options.scope == "host":
            return _host_and_port(url) in self._scope_hosts
        return registrable_domain(host_of(url)) in self._scope_domains

    def _wanted(self, url: str, *, count: bool = True) -> bool:
        """Whether a link to ``url`` is followed; ``count`` tallies it for the ``include`` warning."""
        try:
            parts = urlsplit(url)
        except ValueError:  # a sitemap's <loc> is not checked before it gets here (``http://[::1``)
            return False
        if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > MAX_URL_CHARS:
            return False
        if "@" in parts.netloc:  # user info: never fetched (docs/security.md), so not followed
            return False
        path = parts.path.lower()
        if path.endswith(SKIP_EXTENSIONS):
            return False
        if not (self._include or self._exclude):
            return True
        # ``/wiki/Caf%C3%A9`` and ``/wiki/Café`` are one page, and one pattern names both.
        spelled = page_identity(url)
        one = urlsplit(spelled)
        local = one.path + (f"?{one.query}" if one.query else "")

        def matches(pattern: str) -> bool:
            return fnmatchcase(spelled, pattern) or (pattern.startswith("/") and fnmatchcase(local, pattern))

        if self._include:
            included = any(matches(p) for p in self._include)
            if count:
                self._included += included
                self._not_included += not included
            if not included:
                return False
        return not any(matches(p) for p in self._exclude)

    # -- queue ------------------------------------------------------------------------
    def _enqueue(self, canon: str, page: str, depth: int, key: tuple[int, ...], referrer: str | None) -> None:
        """Queue ``canon`` (a canonical URL of ``page``), or move it up if it was found earlier in order."""
        entry = Entry(depth, key, canon, referrer, page)
        waiting = self._pending.get(page)
        if waiting is not None:
            if entry < waiting:  # found again, earlier in breadth-first order
                self._pending[page] = entry
                heapq.heappush(self._heap, entry)
            return
        if page in self._seen:
            return
        self._seen.add(page)
        self._pending[page] = entry
        heapq.heappush(self._heap, entry)

    def _pop(self) -> Entry | None:
        while self._heap:
            entry = heapq.heappop(self._heap)
            if self._pending.get(entry.page) is entry:
                del self._pending[entry.page]
                return entry
        return None

    def _discover(self, parent: Entry, links: list[str], referrer: str, rank: int = 0) -> None:
        """Queue ``links`` found on ``parent``, whose final URL (after redirects) is ``referrer``."""
        depth = parent.depth + 1
        if depth > self.options.max_depth:
            self._note_past_depth(links)
            return
        for index, link in enumerate(links):
            if index % LINKS_PER_CLOCK == 0 and (left := self._left()) is not None and left <= 0:
                break  # the crawl is over: no link found now would be fetched
            canon = _canonical(link)
            page = _page_of(canon)
            if page in self._seen and page not in self._pending:
                continue  # read, or being read (the site's navigation, on every page)
            if not self._wanted(canon):
                continue
            if self._in_scope(canon):
                self._enqueue(canon, page, depth, parent.key + (rank, index), referrer)
            elif self.options.scope == "host":
                self._note_nearby(canon, page)
        if len(self._pending) > 2 * QUEUE_PER_PAGE * self.options.max_pages:
            self._trim()

    def _note_nearby(self, canon: str, page: str) -> None:
        """Remember a page on another host of a domain in scope (``www.`` for the bare host)."""
        room = QUEUE_PER_PAGE * self.options.max_pages
        if len(self._nearby) < room and registrable_domain(host_of(canon)) in self._scope_domains:
            self._nearby[page] = host_of(canon)

    def _note_past_depth(self, links: list[str]) -> None:
        """Remember the pages ``links`` would lead to were the crawl allowed one depth more."""
        room = QUEUE_PER_PAGE * self.options.max_pages
        for index, link in enumerate(links):
            if len(self._past_depth) >= room:
                return
            if index % LINKS_PER_CLOCK == 0 and (left := self._left()) is not None and left <= 0:
                return
            canon = _canonical(link)
            page = _page_of(canon)
            if page not in self._seen and self._in_scope(canon) and self._wanted(canon, count=False):
                self._past_depth.add(page)

    def _trim(self) -> None:
        """Keep the URLs that come first in breadth-first order; the others may be found again."""
        keep = heapq.nsmallest(QUEUE_PER_PAGE * self.options.max_pages, self._pending.values())
        self._seen.difference_update(self._pending.keys() - {entry.page for entry in keep})
        self._pending = {entry.page: entry for entry in keep}
        self._heap = keep  # sorted, so already a heap

    # -- fetching ---------------------------------------------------------------------
    async def _fetch(self, url: str, **options: Any) -> FetchResult:
        """:func:`fetch`, noting what held a fetch cut short short of its host: by the crawl's
        end, or by its own time, which runs out with the crawl's (a robots.txt's timeout may
        fire a moment before the crawl stops, and the seed's failure says it had not arrived)."""
        try:
            return await fetch(url, self.config, **options)
        except (asyncio.CancelledError, WebTimeoutError):
            if (kept := cut_short_at()) is not None:
                self._held[host_of(url)] = kept
            raise

    async def _fetch_robots(self, url: str) -> tuple[int, str]:
        """robots.txt, outside the limiter: a redirect's check must not wait for the slot its page holds.

        One that redirects to another origin's robots.txt (``www.`` to the bare host) is that
        origin's answer too: it is not asked for again when a page of that origin is."""
        read = self._robots_of.pop(url, None)
        if read is not None:
            return read
        timeout = min(10.0, self._url_timeout())
        result = await self._fetch(url, timeout=timeout, max_bytes=PARSE_LIMIT, accept="text/plain", truncate=True)
        text, _codec = decode(result.content, result.content_type, "text", result.final_url)
        answer = result.status_code, whole_lines(text, result.truncated)
        final = urlsplit(_canonical(result.final_url))
        moved = f"{final.scheme}://{final.netloc}/robots.txt"
        if final.path == "/robots.txt" and not final.query and moved != url:
            self._robots_of[moved] = answer
        return answer

    def _robots_read(self, origin: str, rules: RobotsRules) -> None:
        """A host's ``Crawl-delay`` paces that host from when its robots.txt is read (when obeyed)."""
        if rules.crawl_delay and self.options.respect_robots:
            self.limiter.set_host_delay(host_of(origin), rules.crawl_delay)
            self._paced[host_of(origin)] = rules.crawl_delay

    async def _visit(self, entry: Entry) -> Outcome:
        """Fetch and render one page; every failure becomes an error item, never an exception."""
        try:
            await self._obey_robots(entry.url)
            async with self.limiter.slot(host_of(entry.url), self._stop_at):
                if entry.page in self._named:  # read already, under the address that names it
                    raise NotFollowed(entry.url)
                try:
                    if self._pace is not None:
                        await self._pace(self._url_timeout())
                except RateLimitedError as exc:  # no later page would have a slot sooner: none is started
                    self._no_slot = exc
                    return Outcome(entry)
                result = await self._fetch(
                    entry.url, timeout=self._url_timeout(),
                    on_redirect=partial(self._check_redirect, entry), check_hop=self._obey_robots,
                )
            return await self._page(entry, result)
        except NotFollowed:
            return Outcome(entry)
        except HostPaused as exc:
            return Outcome(entry, item=self._error_item(entry, exc.refusal(_as_sent(entry.url))))
        except HostPaced as exc:  # waiting for its turn would only hold the call until its deadline
            self._paced_out[exc.host] = exc.gap
            return Outcome(entry)
        except RobotsRefused as exc:
            return self._skipped(entry, exc, robots=True)
        except NotAPage as exc:
            return self._skipped(entry, exc)  # an image, an archive: a page that cannot be read is an item
        except WebTimeoutError as exc:
            left = self._left()
            if left is not None and left <= 0.05:
                return Outcome(entry, cut_short=True)
            return Outcome(entry, item=self._error_item(entry, exc))
        except WebProviderError as exc:
            return Outcome(entry, item=self._error_item(entry, exc))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - one bad page must not end the crawl
            return Outcome(entry, item=self._error_item(entry, to_provider_error(exc, "http")))

    def _check_redirect(self, entry: Entry, url: str) -> None:
        """A found link's redirect goes only where a link would be followed (the seed's moves
        the scope instead), to a URL not read or queued yet (an old address of a page the crawl
        has). Judged before the target's address is checked: a hop out of scope is skipped
        unseen, whatever it points to. robots.txt is then asked before the hop is requested."""
        if entry.depth:
            canon = _canonical(url)
            page = _page_of(canon)
            if page != entry.page and page in self._seen and self._redirected.get(page) is not entry:
                raise NotFollowed(url)
            if not (self._in_scope(canon) and self._wanted(canon)):
                raise NotFollowed(url)
            if page != entry.page:  # this fetch goes there: a link on its way there too stops here
                self._seen.add(page)
                self._redirected[page] = entry

    async def _obey_robots(self, url: str) -> None:
        """Raise :class:`RobotsRefused` when the crawl respects robots.txt and it disallows ``url``."""
        if not self.options.respect_robots:
            return
        rules = await self.robots.rules_for(url)
        if not await rules.permits(url):
            note = f" ({rules.note})" if rules.note else ""
            raise RobotsRefused(
                f"robots.txt does not allow crawling {url}{note}; pass respect_robots=False "
                "if you have the site owner's permission.",
                detail="robots_txt",
            )

    def _skipped(self, entry: Entry, reason: WebProviderError, *, robots: bool = False) -> Outcome:
        """A URL that gives no page is skipped; the seed is the crawl's answer, so it fails with why."""
        if entry.depth == 0:
            return Outcome(entry, item=self._error_item(entry, reason))
        return Outcome(entry, robots_refused=robots)

    def _error_item(self, entry: Entry, exc: WebProviderError) -> dict[str, Any]:
        item = page_error(_as_sent(entry.url), exc)
        item["metadata"] = {"depth": entry.depth, "referrer": entry.referrer}
        if exc.status_code:
            item["metadata"]["status_code"] = exc.status_code
        return item

    async def _page(self, entry: Entry, result: FetchResult) -> Outcome:
        final = _canonical(result.final_url)
        if entry.depth == 0:
            self._add_scope(final)  # a seed that redirects (to www., to https) moves the scope
        page = _page_of(final)
        if page != entry.page:
            if page in self._seen and self._redirected.get(page) is not entry:
                return Outcome(entry)  # a redirect to a page we have
            self._seen.add(page)  # in scope, wanted and allowed by robots.txt: every hop was checked
        error = status_error(result)
        if self._pause(entry, final, result):
            return Outcome(entry, again=True)
        if error is not None:
            return Outcome(entry, item=self._error_item(entry, error), final_url=final)
        read = page
        page = await render(result, self.options.page, self.config.web.extraction, want_links=True)
        if entry.depth and read in self._named and self._texts.get(read) == hash(page.item["content"]):
            return Outcome(entry)  # a copy read meanwhile named this one its address: read already
        item = page.item
        item["url"] = final
        item["metadata"]["depth"] = entry.depth
        item["metadata"]["referrer"] = entry.referrer
        nofollow = page.nofollow or says_nofollow(result.headers.get_list("x-robots-tag"), self.robots.user_agent)
        follow = page.html and not (nofollow and self.options.respect_robots)
        links = page.links if follow else []
        canonical = item["metadata"].get("canonical_url")
        if page.refresh:
            # It sends its reader on at once (a moved page, a site generator's alias, which names
            # its target as its canonical too): that page is followed as its redirect would be,
            # and is not taken for read already, as the page a duplicate names is.
            links = [page.refresh, *links]
        elif canonical and self._in_scope(canonical):
            named = _page_of(_canonical(canonical))
            if entry.depth and named != read and self._texts.get(named) == hash(item["content"]):
                return Outcome(entry)  # a copy of a page read (``/index.html`` of ``/``), its text the same
            self._seen.add(named)
            if named != read:
                self._named.add(named)
                self._pending.pop(named, None)
                self._texts.setdefault(named, hash(item["content"]))  # read for it: a second copy is one too
        if page.html and page.links and not follow:
            self._nofollow += 1
        self._texts[read] = hash(item["content"])
        return Outcome(entry, item=item, links=links, final_url=final)

    def _pause(self, entry: Entry, final: str, result: FetchResult) -> bool:
        """Hold the host back as a 429 or 503 asked (:meth:`HostLimiter.answered`); True when
        the page is to be asked for again once the pause is over (once, and when the call's
        time allows)."""
        wait = self.limiter.answered(host_of(final), result.status_code, result.headers)
        if wait is None:
            return False
        left = self._left()
        if entry.page in self._asked_again or (left is not None and wait >= left):
            return False
        self._asked_again.add(entry.page)
        return True

    async def _read_sitemaps(self, seed: Entry, referrer: str) -> None:
        """Queue the pages the sitemaps of the seed's site list; ``referrer`` is where the seed
        landed after its redirects, whose host's sitemaps they are."""
        try:
            # Read for the sitemaps it lists even when its rules are set aside.
            rules: RobotsRules | None = await self.robots.rules_for(referrer)
        except WebProviderError:
            if self.options.respect_robots:
                return  # no robots.txt, no page of this host: the seed's item already says why
            rules = None
        if rules is not None and rules.disallow_all and self.options.respect_robots:
            return  # a host that answered 429 or 5xx for robots.txt: nothing listed could be read
        parts = urlsplit(referrer)
        origin = f"{parts.scheme}://{parts.netloc}"
        # ``Sitemap: /sitemap.xml`` is common, though the protocol asks for a full URL.
        # Each file once, however it is spelled (a fragment is never sent: ``#2`` is the same file).
        joined = (join_url(f"{origin}/robots.txt", url) for url in rules.sitemaps) if rules else ()
        listed = [_canonical(url) for url in joined if url is not None]
        queue = list(dict.fromkeys(listed)) or [f"{origin}/sitemap.xml"]
        pages: list[str] = []
        read: set[str] = set()
        left = self._left()
        share = None if left is None else left * SITEMAP_SHARE
        try:
            await within(self._read_listed(queue, read, pages), share)
        except asyncio.TimeoutError:
            taken = len(pages)
            warn(
                f"The sitemaps of {origin} were read for {share:.1f} s, half the time the crawl had left, "
                f"and no longer ({len(read)} of at most {MAX_SITEMAPS} files asked for); the {taken:,} "
                f"URL{'s' if taken != 1 else ''} taken from them by then are crawled with the links' pages."
            )
        self._discover(seed, pages, referrer, rank=1)

    async def _read_listed(self, queue: list[str], read: set[str], pages: list[str]) -> None:
        """Read the sitemaps in ``queue`` (and those their indexes list) into ``pages``, adding
        each file asked for to ``read``."""
        # A sitemap may list 50,000 URLs; queueing them all would hold up the event loop.
        wanted = self.options.max_pages * QUEUE_PER_PAGE
        while queue and len(read) < MAX_SITEMAPS and len(pages) < wanted:
            url = queue.pop(0)
            read.add(url)
            try:
                async with self.limiter.slot(host_of(url), self._stop_at):
                    # Its beginning is read when it is longer than the cap: few of its URLs are taken.
                    result = await fetch(url, self.config, timeout=min(10.0, self._url_timeout()),
                                         accept="application/xml,text/xml;q=0.9,*/*;q=0.5", truncate=True)
                if status_error(result) is not None:
                    warn(f"The sitemap {url} answered HTTP {result.status_code}; crawling from links only.")
                    continue
                content, cut, content_type = result.content, result.truncated, result.content_type
                if content.startswith(GZIP_MAGIC):  # a .xml.gz file, whatever its Content-Type says
                    content, cut = await gunzip(content, url, self.config.web.max_response_bytes)
                    content_type = None  # the header's charset, if any, was the archive's
                # Parsed in a worker, as pages are: 5 MB of short entries held the event loop 1.8 s.
                found = await extraction_pool.run(
                    self.config.web.extraction, parse_sitemap, content, cut, content_type,
                    heavy=content.count(b"<") > HEAVY_HTML_TAGS,
                )
            except WebProviderError as exc:
                warn(f"The sitemap {url} could not be read ({exc.code}: {exc.message}); crawling from links only.")
                continue
            except HostPaused as exc:  # waiting for it would only hold the call until its deadline
                warn(
                    f"The sitemap {url} was not requested: its host asked for a pause (Retry-After) that lasts "
                    f"{exc.seconds_left:.0f} s more, past the call's time limit; crawling from links only."
                )
                continue
            except HostPaced as exc:
                self._paced_out[exc.host] = exc.gap
                warn(
                    f"The sitemap {url} was not requested: requests to its host are kept {exc.gap:g} s apart, "
                    "and its turn would come past the call's time limit; crawling from links only."
                )
                continue
            if found is None:
                warn(f"The sitemap {url} is not a sitemap (no <urlset> or <sitemapindex> in XML, nor one URL a line); crawling from links only.")
                continue
            if cut:
                limit = self.config.web.max_response_bytes
                warn(f"The sitemap {url} is longer than web.max_response_bytes ({limit:,} bytes); the URLs in its first {limit:,} bytes were read.")
            await self._take_listed(result.final_url, found.pages, pages, wanted)
            # An index that lists itself (or a child twice) does not use up the reads.
            children = dict.fromkeys(_canonical(child) for child in _absolute(result.final_url, found.children))
            fresh = [child for child in self._own_children(result.final_url, children) if child not in read and child not in queue]
            queue += fresh[: MAX_SITEMAPS - len(read) - len(queue)]

    def _own_children(self, index: str, children: dict[str, None]) -> list[str]:
        """The sitemaps the index at ``index`` lists on its own site (its registrable domain: a
        ``static.`` host serves them too), or in the crawl's scope: an index names only its own
        site's (the protocol), and one listing another site's sent the crawl there (scope
        ``host`` too), a site no link would have led it to."""
        site = registrable_domain(host_of(index))
        own = [child for child in children if registrable_domain(host_of(child)) == site or self._in_scope(child)]
        if len(own) < len(children):
            kept = set(own)  # not the list: an index of 50,000 held the event loop for each one's search of it
            others = [child for child in children if child not in kept]
            warn(
                f"The sitemap index {index} lists {len(others):,} sitemap{'s' if len(others) != 1 else ''} of other "
                f"sites ({others[0]}{', ...' if len(others) > 1 else ''}), not read: an index lists its own site's."
            )
        return own

    async def _take_listed(self, sitemap: str, listed: list[str], pages: list[str], wanted: int) -> None:
        """Add to ``pages`` the URLs the sitemap at ``sitemap`` lists (``listed``) that a link
        would be followed to, up to ``wanted``: counting those it would not (another host, left
        out by ``include``) took a sitemap's first blog posts and never reached its docs. Each is
        read against the sitemap's URL in its batch, and the event loop runs on between batches:
        reading all 540,000 entries of a 20 MB sitemap first held the loop 2.3 s on Python 3.10."""
        for start in range(0, len(listed), LINKS_PER_CLOCK):
            if len(pages) >= wanted:
                return
            batch = (_canonical(url) for url in _absolute(sitemap, listed[start : start + LINKS_PER_CLOCK]))
            pages += [url for url in batch if self._in_scope(url) and self._wanted(url)][: wanted - len(pages)]
            await asyncio.sleep(0)

    # -- progress ---------------------------------------------------------------------
    async def _report(self, outcome: Outcome, in_flight: int) -> None:
        if self._progress is None or outcome.item is None:
            return
        event = {
            "pages": len(self._results),
            "max_pages": self.options.max_pages,
            "url": outcome.item["url"],
            "depth": outcome.entry.depth,
            "ok": "error" not in outcome.item,
            "queued": len(self._pending),
            "in_flight": in_flight,
        }
        try:
            result = self._progress(event)
            if inspect.isawaitable(result):
                # One that never returns would hold the crawl past its deadline, and lose every page.
                await within(result, self._left())
        except KeyboardInterrupt:
            raise  # a Ctrl-C: not the callback's failure
        except asyncio.CancelledError:
            if cancelled_here():
                raise  # the crawl's own end (its deadline, its caller leaving)
            warn("The progress callback failed (CancelledError); it was switched off.")
            self._progress = None
        except BaseException as exc:  # noqa: BLE001 - a broken progress bar (one calling sys.exit() too) must not end the crawl
            left = self._left()
            if isinstance(exc, asyncio.TimeoutError) and left is not None and left <= 0.05:
                warn("The progress callback did not return before the call's time limit; it was switched off.")
            else:
                warn(f"The progress callback failed ({type(exc).__name__}: {exc}); it was switched off.")
            self._progress = None

    # -- the crawl --------------------------------------------------------------------
    async def run(self, url: str) -> list[dict[str, Any]]:
        """Crawl from ``url``; returns page items sorted by depth, then discovery order.

        Each host is resolved once for the whole crawl (the seed's check, robots.txt,
        sitemaps, pages and redirects), joining the dispatch call's lookups when there is one.
        """
        with resolution_scope():
            return await self._crawl(url)

    async def _crawl(self, url: str) -> list[dict[str, Any]]:
        loop = asyncio.get_running_loop()
        self._stop_at = None if self.budget is None else loop.time() + self.budget
        seed = _canonical(url)
        await check_destination_resolved(seed, self.policy)
        self._add_scope(seed)
        self._enqueue(seed, _page_of(seed), 0, (), None)
        try:
            stopped_early = await self._loop()
            robots_late = self.robots.unanswered(seed)
            if stopped_early and not self._results:
                await self.robots.aclose()  # a robots.txt fetch cut short notes what held it
        finally:
            self.robots.close()
        if stopped_early and not self._results:
            # Not even the seed arrived in time: that page timed out, as it would in an
            # extract (a per-URL failure), rather than the crawler returning nothing.
            entry = Entry(0, (), seed, page=_page_of(seed))
            why = " (its site's robots.txt, asked for first, had not arrived)" if robots_late else ""
            kept = self._held.get(host_of(seed))
            late = WebTimeoutError(
                f"{seed} could not be read before the call's time limit{why}{f': {kept}' if kept else '.'}",
                provider="http",
            )
            self._results.append((entry, self._error_item(entry, late)))
        elif stopped_early and self._no_slot is not None:
            warn(
                f"The crawl stopped after {self._pages_read()}: "
                f"{self._no_slot.message} Raise web.providers.http.rate_limit, or pass a larger timeout, for more.",
                partial=True,
            )
        elif stopped_early and self._paced_out:
            hosts = ", ".join(list(self._paced_out)[:3]) + (", ..." if len(self._paced_out) > 3 else "")
            gaps = ", ".join(f"{host} {gap:g} s" for host, gap in list(self._paced_out.items())[:3])
            warn(
                f"The crawl stopped after {self._pages_read()}: "
                f"the next request to {hosts} would have started past the call's time limit"
                f"{self._pacing() or f' (delay, kept between requests to a host: {gaps})'}; pass a larger "
                "timeout, or a smaller delay, for more.",
                partial=True,
            )
        elif stopped_early:
            warn(
                f"The crawl stopped after {self._pages_read()} because the call's time limit "
                f"was nearly reached{self._pacing()}; pass a larger timeout or a smaller max_pages for more.",
                partial=True,
            )
        elif self._pending and len(self._results) >= self.options.max_pages:
            # As a crawl that read the whole site would look the same, say there was more.
            waiting = len(self._pending)
            warn(
                f"The crawl stopped at max_pages ({self.options.max_pages:,}) with more pages found "
                f"and not read ({waiting:,} URL{'s' if waiting != 1 else ''} waiting); pass a larger "
                "max_pages for more."
            )
        elif past := len(self._past_depth - self._seen):
            # Else a site deeper than max_depth read as one that had been read whole.
            room = QUEUE_PER_PAGE * self.options.max_pages
            many = "at least " if len(self._past_depth) >= room else ""
            warn(
                f"The crawl read every page it found within max_depth ({self.options.max_depth}); the deepest "
                f"of them link to {many}{past:,} more page{'s' if past != 1 else ''} past it, not read; "
                "pass a larger max_depth for more."
            )
        finished = not stopped_early and not (self._pending and len(self._results) >= self.options.max_pages)
        if finished and (nearby := {page: host for page, host in self._nearby.items() if page not in self._seen}):
            others = list(dict.fromkeys(nearby.values()))
            named = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
            warn(
                f"{len(nearby):,} page{'s' if len(nearby) != 1 else ''} linked on other hosts of the site ({named}) "
                f"{'were' if len(nearby) != 1 else 'was'} not followed: scope 'host' keeps to "
                f"{', '.join(sorted(self._scope_hosts))}; pass scope='domain' to crawl them too."
            )
        if self._robots_refused:
            count = self._robots_refused
            warn(f"{count} URL{'s were' if count != 1 else ' was'} skipped because robots.txt disallows {'them' if count != 1 else 'it'}.")
        if self._nofollow:
            count = self._nofollow
            warn(
                f"The links of {count} page{'s' if count != 1 else ''} were not followed: "
                f"{'they ask' if count != 1 else 'it asks'} crawlers not to (robots nofollow, in a <meta> tag or an "
                "X-Robots-Tag header); pass respect_robots=False if you have the site owner's permission."
            )
        if self._not_included and not self._included:
            warn(
                f"No link found matched include {list(self.options.include)}: a pattern that starts with '/' "
                "matches a link's whole path and query ('/docs/*' for a section), any other its whole URL."
            )
        self._results.sort(key=lambda pair: pair[0])
        return [item for _entry, item in self._results]

    def _pages_read(self) -> str:
        """``3 pages``, ``1 page``: what the crawl has, for a sentence about where it stopped."""
        count = len(self._results)
        return f"{count} page{'s' if count != 1 else ''}"

    def _pacing(self) -> str:
        """Why a crawl may have been slow: the hosts whose robots.txt asked for a pause between
        requests (without it, a few pages in a minute read as a slow library)."""
        if not self._paced:
            return ""
        named = [f"{host} {delay:g} s" for host, delay in list(self._paced.items())[:3]]
        more = ", ..." if len(self._paced) > 3 else ""
        return f" (robots.txt Crawl-delay, kept between requests to a host: {', '.join(named)}{more})"

    async def _loop(self) -> bool:
        """Run fetches until the queue is empty or ``max_pages`` is reached; True if time, or the request budget, ran out first."""
        in_flight: dict[asyncio.Task[Outcome], Entry] = {}
        seed_done = False
        try:
            while True:
                left = self._left()
                if left is not None and left <= 0:
                    return bool(in_flight or self._heap)
                while (
                    self._no_slot is None
                    and len(in_flight) < self.options.limits.concurrency
                    and len(self._results) + len(in_flight) < self.options.max_pages
                    and (seed_done or not in_flight)
                ):
                    entry = self._pop()
                    if entry is None:
                        break
                    in_flight[asyncio.ensure_future(self._visit(entry))] = entry
                if not in_flight:  # the pages in flight when the request budget ran out are kept
                    return self._no_slot is not None or (bool(self._paced_out) and len(self._results) < self.options.max_pages)
                done, _ = await asyncio.wait(in_flight, timeout=self._left(), return_when=asyncio.FIRST_COMPLETED)
                if not done:
                    return True
                cut_short = False
                for task in done:
                    entry = in_flight.pop(task)
                    outcome = task.result()
                    if outcome.again:  # after its host's pause, in its place in the order
                        self._pending[entry.page] = entry
                        heapq.heappush(self._heap, entry)
                        continue
                    found_on = outcome.final_url or entry.url
                    cut_short = cut_short or outcome.cut_short
                    if outcome.robots_refused:
                        self._robots_refused += 1
                    if outcome.item is not None:
                        self._results.append((entry, outcome.item))
                        self._discover(entry, outcome.links, found_on)
                        await self._report(outcome, len(in_flight))
                    if entry.depth == 0 and not seed_done:
                        seed_done = True
                        more = len(self._results) < self.options.max_pages  # else nothing listed is read
                        if self.options.use_sitemap and self.options.max_depth >= 1 and more:
                            # Its fetches wait for the host's slot and Crawl-delay: bounded too.
                            try:
                                await within(self._read_sitemaps(entry, found_on), self._left())
                            except asyncio.TimeoutError:
                                cut_short = True
                if cut_short:
                    return True
        finally:
            for task in in_flight:
                task.cancel()
            if in_flight:
                await asyncio.gather(*in_flight, return_exceptions=True)
