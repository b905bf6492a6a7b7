"""The ``ddg_html`` plugin: DuckDuckGo's keyless HTML endpoint, parsed with lxml.

DuckDuckGo answers bursts of automated requests with an "anomaly" challenge page (often
as HTTP 202). That is reported as ``blocked`` with ``detail: captcha_required`` and never
worked around, so a fallback chain can move on to another backend.
"""

from __future__ import annotations

from webproviders import PluginContext

from .provider import DuckDuckGoHTMLProvider

__all__ = ["DuckDuckGoHTMLProvider", "register"]


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(DuckDuckGoHTMLProvider(ctx.config))
