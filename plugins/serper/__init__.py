"""The ``serper`` plugin: Google results through Serper.dev (``POST /search``)."""

from __future__ import annotations

from webproviders import PluginContext

from .provider import SerperProvider

__all__ = ["SerperProvider", "register"]


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(SerperProvider(ctx.config))
