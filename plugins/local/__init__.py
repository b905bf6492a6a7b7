"""The ``local`` provider: search and read the pages already extracted or crawled, offline.

Pages live in one SQLite FTS5 file (or a PostgreSQL database shared by a fleet); see
docs/providers/local.md. The plugin's ``after_dispatch`` hook fills the index from every
successful extract and crawl when ``web.local.index`` is true. It is used only when named
(``backend="local"``, a chain such as ``[local, http]``, or fusion), never auto-detected.
"""

from __future__ import annotations

from typing import Any

from webproviders import Config, PluginContext, WebSearchProvider

NAME = "local"


class LocalProvider(WebSearchProvider):
    """Search (BM25, highlighted snippets) and extract (stored pages) over the page index."""

    search_options = frozenset({"time_range", "include_domains", "exclude_domains"})

    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def name(self) -> str:
        return NAME

    def is_available(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        from .provider import search

        return search(self.config, query, limit, options)

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        from .provider import extract

        return extract(self.config, urls, kwargs)


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(LocalProvider(ctx.config))


def after_dispatch(capability: str, arguments: dict[str, Any], envelope: dict[str, Any], config: Config) -> None:
    """Queue the pages of a successful extract or crawl (called only with ``web.local.index:
    true``: its ``plugin.yaml`` says ``hooks_when``); the call's options say the format read."""
    from webproviders.kit import index_envelope

    options = arguments.get("options")
    index_envelope(config, capability, envelope, options if isinstance(options, dict) else None)
