"""Scriptable providers: each call takes the next scripted outcome, then a default answer.

A scripted outcome is an exception instance (raised), a callable (called with the query)
or a value (returned). ``delay`` makes every call slow; ``calls`` counts them; ``page``
(text) is what extract reads on every page, and ``leaves_out`` the URLs its answer omits.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.parse
import urllib.request
from typing import Any

from webproviders import VendorProvider, WebSearchProvider


def hits_for(name: str, query: str, count: int = 5) -> list[dict[str, Any]]:
    return [
        {"title": f"{name} {i}", "url": f"https://{name}.example/{i}?q={query}", "description": f"{name} hit {i}"}
        for i in range(1, count + 1)
    ]


class Fake(WebSearchProvider):
    def __init__(self, name: str) -> None:
        self._name = name
        self.script: list[Any] = []
        self.hits: list[dict[str, Any]] | None = None
        self.page: str | None = None
        self.leaves_out: set[str] = set()
        self.delay = 0.0
        self.calls = 0
        self.queries: list[str] = []
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def _next(self, query: str) -> Any:
        with self._lock:
            self.calls += 1
            self.queries.append(query)
            outcome = self.script.pop(0) if self.script else None
        if isinstance(outcome, BaseException):
            raise outcome
        if callable(outcome):
            return outcome(query)
        if outcome is not None:
            return outcome
        return list(self.hits) if self.hits is not None else hits_for(self._name, query)

    def search(self, query: str, limit: int = 5, **options: Any) -> Any:
        if self.delay:
            time.sleep(self.delay)
        return self._next(query)

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        if self.delay:
            time.sleep(self.delay)
        self._next(" ".join(urls))
        return [{"url": u, "title": "T", "content": self.page or f"body of {u}"} for u in urls if u not in self.leaves_out]

    def crawl(self, url: str, **kwargs: Any) -> Any:
        self._next(url)
        return [{"url": url, "title": "T", "content": "root"}]


class AsyncFake(Fake):
    async def search(self, query: str, limit: int = 5, **options: Any) -> Any:  # type: ignore[override]
        if self.delay:
            await asyncio.sleep(self.delay)
        return self._next(query)


class FakeVendor(VendorProvider):
    """A keyed HTTP API: ``GET {base}/search?q=`` answering ``{"results": [...]}``."""

    provider_name = "fake-vendor"
    key_env = ("FAKE_VENDOR_API_KEY",)
    default_base_url = "https://api.fake-vendor.test/v1"

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"X-Api-Key": key}

    async def search(self, query: str, limit: int = 5, **options: Any) -> Any:
        body = await self.call_api("GET", "/search", params={"q": query, "count": limit})
        return [{"title": r["title"], "url": r["link"], "description": r["snippet"]} for r in body["results"]]


class Counter(WebSearchProvider):
    """Asks a real local HTTP server (``base_url``), which counts the requests it gets."""

    def __init__(self, config: Any) -> None:
        self.config = config

    @property
    def name(self) -> str:
        return "fake-counter"

    def is_available(self) -> bool:
        return bool(self.config.provider("fake-counter").base_url)

    def search(self, query: str, limit: int = 5, **options: Any) -> Any:
        base = self.config.provider("fake-counter").base_url
        with urllib.request.urlopen(f"{base}/search?q={urllib.parse.quote(query)}", timeout=10) as response:
            answer = json.loads(response.read())
        return hits_for("counter", query, answer.get("hits", limit))


def register(ctx: Any) -> None:
    for name in ("fake-a", "fake-b", "fake-c", "fake-budget"):
        ctx.register_web_search_provider(Fake(name))
    ctx.register_web_search_provider(AsyncFake("fake-async"))
    ctx.register_web_search_provider(FakeVendor(ctx.config))
    ctx.register_web_search_provider(Counter(ctx.config))
