"""Offline providers that answer from a script: each call pops the next step.

A step is an exception (raised), a dict of ``report_usage`` arguments (reported, then the
default answer), a list of such dicts (each reported in turn), a float (seconds the request takes, then the default answer) or None (the
default answer). ``calls`` counts calls and ``seen`` keeps
the options each call received.
"""

from __future__ import annotations

import time
from typing import Any

from webproviders import WebSearchProvider, report_usage


class Scripted(WebSearchProvider):
    def __init__(self, name: str, capabilities: tuple[str, ...]) -> None:
        self._name = name
        self._capabilities = capabilities
        self.steps: list[Any] = []
        self.calls = 0
        self.seen: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return "extract" in self._capabilities

    def supports_crawl(self) -> bool:
        return "crawl" in self._capabilities

    def _step(self, options: dict[str, Any]) -> Any:
        """Run the next step; the answer it gives instead of the default one, if any."""
        self.calls += 1
        self.seen.append(dict(options))
        step = self.steps.pop(0) if self.steps else None
        if isinstance(step, BaseException):
            raise step
        for report in [step] if isinstance(step, dict) else step if isinstance(step, list) else []:
            report_usage(**report)
        if isinstance(step, float):  # seconds the request takes
            time.sleep(step)
        return step[0] if isinstance(step, tuple) else None

    def search(self, query: str, limit: int = 5, **options: Any) -> Any:
        self._step(options)
        return [{"title": f"{self._name} {i}", "url": f"https://{self._name}.example/{i}"} for i in range(1, limit + 1)]

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        given = self._step(kwargs)
        if given is not None:
            return given
        pages = [{"url": url, "title": "T", "content": f"text of {url}"} for url in urls[1:]]
        return [{"url": urls[0], "error": "could not read it", "error_code": "blocked"}, *pages]

    def crawl(self, url: str, **kwargs: Any) -> Any:
        self._step(kwargs)
        return [{"url": f"{url.rstrip('/')}/{i}", "title": "P", "content": "page"} for i in range(3)]


def register(ctx: Any) -> None:
    for name, capabilities in (
        ("priced", ("search", "extract", "crawl")),
        ("pricey", ("search",)),
        ("keyed", ("search",)),
        ("free", ("search", "extract", "crawl")),
    ):
        ctx.register_web_search_provider(Scripted(name, capabilities))
