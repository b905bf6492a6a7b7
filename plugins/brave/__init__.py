"""Brave Search: one plugin, two providers on the same API.

``brave`` is the paid Search plan; ``brave-free`` is the free plan, identical on the wire
but with a default budget of one request per second (see ``plugin.yaml``), so it reads one
page of results, where ``brave`` reads more for a larger ``limit``.
"""

from __future__ import annotations

from webproviders import PluginContext

from .provider import BraveProvider


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(BraveProvider(ctx.config, "brave"))
    ctx.register_web_search_provider(BraveProvider(ctx.config, "brave-free", pages=False))
