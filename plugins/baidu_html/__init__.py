"""The ``baidu_html`` plugin: Baidu's results page, parsed with lxml.

Result URLs are where the results lead (the block's ``mu`` attribute); Baidu's own
``/link?url=`` redirect is kept in the hit's metadata. A redirect to Baidu's verification
page, or a page that carries its CAPTCHA markers, is reported as ``blocked`` /
``captcha_required`` and never bypassed.
"""

from __future__ import annotations

from webproviders import PluginContext

from .provider import BaiduHTMLProvider

__all__ = ["BaiduHTMLProvider", "register"]


def register(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(BaiduHTMLProvider(ctx.config))
