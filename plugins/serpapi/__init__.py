"""The ``serpapi`` plugin: SerpAPI's Google engine over plain HTTP.

No SDK: SerpAPI's two Python packages (``serpapi`` and ``google-search-results``) both
install a module named ``serpapi``, so depending on either can break the other.
"""

from __future__ import annotations

from webproviders import PluginContext

from .provider import SerpApiProvider

__all__ = ["SerpApiProvider", "register"]


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(SerpApiProvider(ctx.config))
