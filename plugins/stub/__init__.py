"""The ``stub`` provider: offline, deterministic answers derived from the input.

It never touches the network, so demos, tests and CI can run the whole dispatch path.
It is used only when named (``backend="stub"``), never auto-detected. Every answer says so
in ``meta.warnings`` (a cached one too), so placeholder results are never taken for the web.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import urlsplit

from webproviders import PluginContext, WebSearchProvider
from webproviders.kit import mask_url

_WORD = re.compile(r"[a-z0-9]+")
_STUB_SITE = "https://stub.example.com"
#: How many results a stub search can produce at most (the dispatcher caps to ``limit``).
_MAX_RESULTS = 50
_MAX_PAGES = 10  # the seed and at most 9 pages below it
NOTICE = (
    "These are offline placeholder results from the stub backend, not from the web: "
    "no real backend is configured for this call."
)


def _slug(text: str) -> str:
    return "-".join(_WORD.findall(text.lower()))[:60] or "query"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _answer(data: Any) -> dict[str, Any]:
    """``data`` in an envelope whose ``meta.warnings`` says where it came from."""
    return {"data": data, "meta": {"warnings": [NOTICE]}}


class StubProvider(WebSearchProvider):
    #: Answers are computed, never fetched: no worker thread needed.
    runs_inline = True
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    @property
    def name(self) -> str:
        return "stub"

    def is_available(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5, **options: Any) -> dict[str, Any]:
        slug, digest = _slug(query), _digest(query)
        hits = [
            {
                "title": f"{query} — result {i}",
                "url": f"{_STUB_SITE}/{slug}/{digest}/{i}",
                "description": f"Stub result {i} for '{query}' ({digest}).",
            }
            for i in range(1, min(limit, _MAX_RESULTS) + 1)
        ]
        return _answer({"web": hits})

    def _page(self, url: str, depth: int | None = None) -> dict[str, Any]:
        host = urlsplit(url).hostname or "unknown"
        metadata: dict[str, Any] = {"source": "stub", "digest": _digest(url)}
        if depth is not None:
            metadata["depth"] = depth
        shown = mask_url(url)  # the page text repeats no credential of the caller's URL
        return {
            "url": url,
            "title": f"Stub page for {host}",
            "content": f"# Stub page\n\nThis is offline content for {shown} ({_digest(url)}).",
            "raw_content": f"Stub page. This is offline content for {shown}.",
            "metadata": metadata,
        }

    def extract(self, urls: list[str], **kwargs: Any) -> dict[str, Any]:
        return _answer([self._page(url) for url in urls])

    def crawl(self, url: str, **kwargs: Any) -> dict[str, Any]:
        max_pages = kwargs.get("max_pages", 3)
        # A larger max_pages is held to the cap, as search holds a larger limit, not dropped.
        count = min(max_pages, _MAX_PAGES) if isinstance(max_pages, int) and max_pages > 0 else 3
        base = url.rstrip("/")
        pages = [self._page(url, depth=0)]
        pages += [self._page(f"{base}/page-{i}", depth=1) for i in range(1, count)]
        return _answer(pages)


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(StubProvider())
