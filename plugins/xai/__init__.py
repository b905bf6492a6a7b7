"""xAI: web search through Grok's server-side ``web_search`` tool."""

from __future__ import annotations

from webproviders import PluginContext

from .provider import XaiProvider


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(XaiProvider(ctx.config))
