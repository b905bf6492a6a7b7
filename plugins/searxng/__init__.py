"""SearXNG: a metasearch instance the operator runs (or trusts), queried as JSON."""

from __future__ import annotations

from webproviders import PluginContext

from .provider import SearxngProvider


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(SearxngProvider(ctx.config))
