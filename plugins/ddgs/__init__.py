"""The ``ddgs`` provider: keyless metasearch through the ``ddgs`` package.

``ddgs`` is sync, can hang, runs threads of its own that outlive an abandoned call, and
reports rate limits as a generic "No results found" error. So each search runs in a worker
process (:mod:`.workers`) that is killed when the call's deadline passes: the call answers
``timeout`` then, and nothing of ddgs is left to hold up this process or its exit. ddgs also
gets its own request timeout (``web.providers.ddgs.timeout``, 10 s by default), and its
answer is read up to ``web.providers.ddgs.max_response_bytes`` (``too_large`` beyond), and its
worker's address space is capped at ``web.providers.ddgs.max_memory_mb`` (1,024 MiB by default;
results that grow past it are ``too_large`` too, the worker ended). "No results
found" becomes an empty success with a warning in ``meta.warnings`` (see
docs/providers.md), never a silent nothing.
"""

from __future__ import annotations

import os
import re
import signal
from typing import Any

from webproviders import (
    Config,
    NetworkError,
    NotConfiguredError,
    PluginContext,
    ProviderError,
    TooLargeError,
    WebSearchProvider,
    WebTimeoutError,
    remaining_time,
    warn,
)
from webproviders.kit import (
    duckduckgo_query,
    duckduckgo_region,
    error_for_status,
    proxy_auth_error,
    proxy_error,
    proxy_refused,
    remember,
    site_query,
    socks_handshake_error,
    spelled,
    url_credentials,
    warn_unknown,
)

_TIMELIMIT = {"day": "d", "week": "w", "month": "m", "year": "y"}
_SAFESEARCH = {"off": "off", "moderate": "moderate", "strict": "on"}
#: How ddgs's HTTP client reports a proxy that refused its credentials.
_PROXY_REFUSED_CREDENTIALS = re.compile(r"HTTP/\S+ 407\b|\b407 Proxy Authentication Required")
#: How it reports a proxy that would not open a tunnel: its status and reason, up to the
#: headers that follow them (escaped in the message: ``\\r\\n``).
_TUNNEL_REFUSED = re.compile(r"proxy CONNECT failed: HTTP/\S+ (\d{3})([^\\\r\n']*)")
#: How it reports a SOCKS5 proxy that wants a user name and password it was not given, or
#: refused the ones given (an HTTP proxy answers 407 to both).
_SOCKS_REFUSED_CREDENTIALS = re.compile(
    r"socks5 proxy (?:rejected the credentials|chose an unexpected authentication method)"
)
#: How it reports a name it looked up itself for a ``socks5://`` proxy (``socks5h://`` leaves
#: names to the proxy, as every other provider's client does with either).
_SOCKS_LOCAL_LOOKUP = re.compile(r"error resolving for socks proxy")
#: How it reports a SOCKS5 proxy that would not connect to an engine, by its reply code.
_SOCKS_CONNECT_FAILED = re.compile(r"socks5 proxy connect failed with status (\d+)")
#: What a SOCKS5 reply code means (RFC 1928), worded as the library's own HTTP client words it.
_SOCKS_REPLIES = {
    "1": "General SOCKS server failure",
    "2": "Connection not allowed by ruleset",
    "3": "Network unreachable",
    "4": "Host unreachable",
    "5": "Connection refused",
    "6": "TTL expired",
    "7": "Command not supported",
    "8": "Address type not supported",
}
#: How it reports a SOCKS proxy that broke off its handshake otherwise (it ended the connection,
#: or is no SOCKS proxy: "socks5 proxy replied with an invalid version"), after the cases above.
_SOCKS_HANDSHAKE = re.compile(r"error connecting to socks proxy > ([^'\"\\]+)")
#: How it reports a connection refused: through a proxy, the proxy's refusal.
_CONNECTION_REFUSED = re.compile(r"Connection refused|os error 111\b")
_SOCKS5_LOOKS_UP_HERE = (
    "ddgs cannot reach its search engines: with a socks5:// proxy its HTTP client looks their names up "
    "on this machine, where they do not resolve. Write socks5h:// instead, so that the proxy looks them "
    "up (in web.proxy, or DDGS_PROXY / HTTPS_PROXY / ALL_PROXY)."
)
NO_RESULTS_WARNING = (
    "ddgs found no results. ddgs reports rate limits the same way, so if this query should "
    "have results, wait a minute or use another backend."
)


#: The address space a worker may use, in MiB (``web.providers.ddgs.max_memory_mb``): ddgs
#: and its HTTP client need about 270 MiB of it before any answer arrives.
DEFAULT_MEMORY_MB = 1024
MIN_MEMORY_MB = 384


def _engines(value: Any) -> str:
    """ddgs's ``backend``: ``auto``, ``"duckduckgo,bing"``, or a YAML list of engine names,
    which ddgs takes joined by commas (its text, ``['duckduckgo', 'bing']``, named none)."""
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def memory_limit(value: Any) -> int:
    """The worker's memory limit a config gives, checked (a wrong one is named, not guessed at)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_MEMORY_MB:
        raise NotConfiguredError(
            f"web.providers.ddgs.max_memory_mb must be a whole number of MiB, at least {MIN_MEMORY_MB}; "
            f"it is {value!r}.",
            provider="ddgs",
        )
    return value


class DDGSProvider(WebSearchProvider):
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def name(self) -> str:
        return "ddgs"

    def is_available(self) -> bool:
        return self.packages_installed()

    def _region(self, options: dict[str, Any]) -> str:
        """One of DuckDuckGo's regions for ``country`` / ``lang`` (ddgs splits it into each
        engine's country and language), else the configured one."""
        default = str(self.config.provider(self.name).option("region", "us-en"))
        found = duckduckgo_region(
            self.name, options.get("country"), options.get("lang"), f"region {default}"
        )
        return found or default

    async def set_up(self) -> None:
        """A worker started and ddgs loaded in it (0.4 s or more), before a rate limit's first
        slot: inside it, the first search reached the engines that much past its slot."""
        import asyncio

        from .workers import Search, pool

        ready = Search(pool, {"ready": True}, 30.0, 100)
        try:
            await asyncio.to_thread(ready.run)
        except BaseException:  # the deadline passed (cancelled), or the worker broke
            ready.abandon()
            raise

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        import asyncio

        from .workers import AnswerTooLarge, Busy, Search, WorkerEnded, pool

        warn_unknown(self.name, options, frozenset(), search=True)
        self._check_environment_proxy()
        # The worker sends through this proxy (web.proxy, else DDGS_PROXY, HTTPS_PROXY...): a
        # password in it is scrubbed from the proxy's refusal, which may quote what it was sent.
        remember(*url_credentials(self._proxy()))
        settings = self.config.provider(self.name)
        request = {
            # ddgs posts the query to DuckDuckGo as given and follows its redirects: a ``!bang``
            # or leading ``\`` would fetch another site from this machine instead of searching.
            "query": site_query(
                duckduckgo_query(query), options.get("include_domains", []), options.get("exclude_domains", [])
            ),
            "region": self._region(options),
            "safesearch": _SAFESEARCH[options.get("safe_search", "moderate")],
            "timelimit": _TIMELIMIT.get(options.get("time_range", "")),
            "max_results": limit,
            "backend": _engines(settings.option("backend", "auto")),
            "proxy": self._proxy(),
            # seconds, fractions too: as a whole number, 0.5 was 0, and every request timed out at once
            "timeout": settings.timeout or 10,
            # TLS trusts what the environment says, as httpx does (a proxy's own CA, say).
            "verify": os.environ.get("SSL_CERT_FILE") or True,
            "memory_mb": memory_limit(spelled(settings.option("max_memory_mb", DEFAULT_MEMORY_MB))),
        }
        left = remaining_time()
        cap = settings.answer_cap()
        search = Search(pool, request, 30.0 if left is None else left, cap)
        try:
            answer = await asyncio.to_thread(search.run)
        except Busy:
            raise WebTimeoutError("Every ddgs worker was busy until the call's deadline.", provider=self.name) from None
        except AnswerTooLarge:
            raise TooLargeError(
                f"ddgs's results were larger than {cap:,} bytes; they were not read "
                "(web.providers.ddgs.max_response_bytes sets the cap).",
                provider=self.name,
            ) from None
        except WorkerEnded as ended:
            search.abandon()
            if ended.signal == signal.SIGABRT:
                raise TooLargeError(
                    f"ddgs's worker ended while reading results, as it does when they grow past its "
                    f"memory limit of {request['memory_mb']:,} MiB (web.providers.ddgs.max_memory_mb).",
                    provider=self.name,
                ) from None
            how = f" (signal {ended.signal})" if ended.signal else ""
            raise ProviderError(f"ddgs's worker ended without answering{how}.", provider=self.name) from None
        except BaseException:  # the deadline passed (cancelled)
            search.abandon()
            raise
        if answer.get("unknown_engines"):
            warn(
                f"ddgs has no search engine named {', '.join(map(str, answer['unknown_engines']))} "
                f"(web.providers.ddgs.backend); it searched the others, or every engine when none was "
                f"left. Its engines: {', '.join(map(str, answer.get('engines') or []))}."
            )
        return self._results(answer, request["memory_mb"])

    def _proxy(self) -> str | None:
        """The proxy ddgs's worker sends through: ``web.proxy``, else ``DDGS_PROXY`` (ddgs's
        own), else the environment's by the rule every other vendor request follows (lower-case
        names win; direct only where ``NO_PROXY`` spares every engine). It is handed to ddgs:
        its HTTP client would read the environment otherwise, ``HTTPS_PROXY`` first. One
        written ``proxy.corp:3128`` is an HTTP proxy, as to curl."""
        from webproviders.kit import shared_proxy

        from .worker import (
            ENGINE_HOSTS,  # the worker's own list (its module imports only the stdlib)
        )

        own = None if self.config.web.proxy else os.environ.get("DDGS_PROXY")
        if own:
            return own if "://" in own else f"http://{own}"
        return shared_proxy(self.config.web.proxy, ENGINE_HOSTS)

    def _spared_by_no_proxy(self) -> bool:
        """Whether a proxy is set that ``NO_PROXY`` sent ddgs's engines past (``DDGS_PROXY`` is
        never spared); the environment read as :func:`webproviders.kit.shared_proxy` reads it."""
        import urllib.request

        found = urllib.request.getproxies_environment()
        named = self.config.web.proxy or found.get("https") or found.get("all")
        return bool(named) and self._proxy() is None

    def _check_environment_proxy(self) -> None:
        """Refuse a proxy from the environment that no request could go through (no host,
        another scheme, a line break read from a file): ddgs's HTTP client would pass it by
        without a word and go direct, or fail on it as ddgs's own error. ``web.proxy`` was
        checked as the config loaded."""
        from webproviders.kit import proxy_problem

        proxy = None if self.config.web.proxy else self._proxy()
        problem = proxy_problem(proxy, speaks_socks=True) if proxy is not None else None
        if problem is not None:
            raise NotConfiguredError(
                f"The proxy for ddgs's search engines cannot be used: {problem} "
                "(set web.proxy, or correct DDGS_PROXY / HTTPS_PROXY / ALL_PROXY).",
                provider=self.name,
            )

    def _results(self, answer: dict[str, Any], memory_mb: int) -> list[dict[str, Any]]:
        error, message = answer.get("error"), str(answer.get("message", ""))
        if error == "memory":
            raise TooLargeError(
                f"ddgs's results grew past its worker's memory limit of {memory_mb:,} MiB "
                "(web.providers.ddgs.max_memory_mb).",
                provider=self.name,
            )
        if error == "dns" and answer.get("via_socks5"):
            raise NetworkError(_SOCKS5_LOOKS_UP_HERE, provider=self.name)
        if error == "dns":
            what = (
                "NO_PROXY names them, so ddgs went direct instead of through the proxy; where only the "
                "proxy reaches the internet, take them out of NO_PROXY."
                if self._spared_by_no_proxy()
                else "It needs DNS, or a proxy (web.proxy or HTTPS_PROXY)."
            )
            raise NetworkError(
                f"ddgs cannot reach its search engines: their host names do not resolve on this machine ({message}). {what}",
                provider=self.name,
            )
        if error == "timeout":
            raise WebTimeoutError(f"ddgs timed out: {message}", provider=self.name)
        if error == "ddgs":
            if "no results" in message.lower():
                warn(NO_RESULTS_WARNING)
                return []
            if _PROXY_REFUSED_CREDENTIALS.search(message):
                # the proxy's own credentials: not ddgs's failure, and not network_error
                raise error_for_status(407, self.name, vendor="ddgs's search engines")
            if _SOCKS_REFUSED_CREDENTIALS.search(message):
                raise proxy_auth_error(
                    "ddgs's search engines", self.name, refusal="SOCKS5 user name and password"
                )
            if _SOCKS_LOCAL_LOOKUP.search(message):
                raise NetworkError(_SOCKS5_LOOKS_UP_HERE, provider=self.name)
            socks = _SOCKS_CONNECT_FAILED.search(message)
            if socks:  # the proxy's own answer, as for a tunnel an HTTP proxy would not open
                reply = _SOCKS_REPLIES.get(socks[1], f"reply code {socks[1]}")
                answered = ConnectionError(f"Proxy Server could not connect: {reply}")
                raise proxy_error(answered, "ddgs's search engines", self.name)
            tunnel = _TUNNEL_REFUSED.search(message)
            if tunnel:  # the proxy's own answer (a 403 for engines it does not allow, a 502)
                answered = ConnectionError(f"{tunnel[1]}{tunnel[2].rstrip()}")
                raise proxy_error(answered, "ddgs's search engines", self.name)
            proxy = self._proxy()
            if proxy and _CONNECTION_REFUSED.search(message):
                # every connection goes to the proxy: not an engine's refusal, as it read
                raise proxy_refused(proxy, "ddgs's search engines", ConnectionRefusedError(message), self.name)
            handshake = _SOCKS_HANDSHAKE.search(message)
            if proxy and handshake:  # never reached an engine: not ddgs's failure
                raise socks_handshake_error(proxy, "ddgs's search engines", handshake[1].strip(), self.name)
            raise NetworkError(f"ddgs could not get results: {message}", provider=self.name)
        if error is not None:
            raise ProviderError(f"ddgs failed: {message}", provider=self.name)
        return [
            {"title": r.get("title", ""), "url": r.get("href", ""), "description": r.get("body", "")}
            for r in answer.get("results") or []
        ]


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(DDGSProvider(ctx.config))
