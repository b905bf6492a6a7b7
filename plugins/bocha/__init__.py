"""The ``bocha`` plugin: Bocha (博查) Web Search API (``POST /v1/web-search``)."""

from __future__ import annotations

from webproviders import PluginContext

from .provider import BochaProvider

__all__ = ["BochaProvider", "register"]


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(BochaProvider(ctx.config))
