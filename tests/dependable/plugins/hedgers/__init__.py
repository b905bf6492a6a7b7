"""Providers that answer after ``delay`` seconds (or raise ``fail``), sync or async.

``delay`` of a minute is a provider that hangs. A sync one waits on ``release`` (so a test
can let its worker thread go); an async one notes in ``cancelled`` that it was cancelled, and
takes ``unwind`` seconds to unwind then (closing its connections, say).
``missing`` URLs get a ``not_found`` item from extract; ``said`` sentences are said with
:func:`webproviders.warn` as each request starts, ``said_late`` ones as its answer is made
(by a sync provider's thread also when the call is over).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from webproviders import WebSearchProvider, warn


class Timed(WebSearchProvider):
    def __init__(self, name: str) -> None:
        self._name = name
        self.reset()

    def reset(self) -> None:
        self.delay = 0.0
        self.unwind = 0.0
        self.fail: list[BaseException] = []
        self.missing: set[str] = set()
        self.said: list[str] = []
        self.said_late: list[str] = []
        self.calls = 0
        self.cancelled = 0
        self.finished = threading.Event()
        self.release = threading.Event()

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return True

    def _answer(self, capability: str, subject: Any) -> Any:
        for sentence in self.said_late:
            warn(sentence)
        self.finished.set()
        if self.fail:
            raise self.fail.pop(0)
        if capability == "search":
            return [{"title": f"{self._name} hit", "url": f"https://{self._name}.example/?q={subject}"}]
        if capability == "extract":
            return [
                {"url": url, "error": "gone", "error_code": "not_found"}
                if url in self.missing
                else {"url": url, "title": self._name, "content": f"{self._name} read {url}"}
                for url in subject
            ]
        return [{"url": subject, "title": self._name, "content": f"{self._name} crawled {subject}"}]


class SyncTimed(Timed):
    def _run(self, capability: str, subject: Any) -> Any:
        self.calls += 1
        for sentence in self.said:
            warn(sentence)
        self.finished.clear()
        self.release.wait(self.delay)
        return self._answer(capability, subject)

    def search(self, query: str, limit: int = 5, **options: Any) -> Any:
        return self._run("search", query)

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        return self._run("extract", urls)

    def crawl(self, url: str, **kwargs: Any) -> Any:
        return self._run("crawl", url)


class AsyncTimed(Timed):
    async def _run(self, capability: str, subject: Any) -> Any:
        self.calls += 1
        for sentence in self.said:
            warn(sentence)
        try:
            await asyncio.sleep(self.delay)
        except asyncio.CancelledError:
            self.cancelled += 1
            if self.unwind:
                await asyncio.sleep(self.unwind)
            raise
        return self._answer(capability, subject)

    async def search(self, query: str, limit: int = 5, **options: Any) -> Any:  # type: ignore[override]
        return await self._run("search", query)

    async def extract(self, urls: list[str], **kwargs: Any) -> Any:  # type: ignore[override]
        return await self._run("extract", urls)

    async def crawl(self, url: str, **kwargs: Any) -> Any:  # type: ignore[override]
        return await self._run("crawl", url)


def register(ctx: Any) -> None:
    for n in (1, 2, 3):
        ctx.register_web_search_provider(SyncTimed(f"sync-{n}"))
        ctx.register_web_search_provider(AsyncTimed(f"async-{n}"))
