"""The ``google_cse`` plugin: provider ``google-cse``, Google's Custom Search JSON API.

Google closed the API to new customers and ends it for everyone on 1 January 2027.
"""

from __future__ import annotations

from webproviders import PluginContext

from .provider import GoogleCSEProvider

__all__ = ["GoogleCSEProvider", "register"]


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(GoogleCSEProvider(ctx.config))
