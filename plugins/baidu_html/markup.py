"""Where Baidu's markup is described: every XPath and verification marker in one place.

Baidu changes its markup often (class names carry build hashes such as
``content-right_8Zs40``), so a markup change is a one-line fix in :data:`SELECTORS` or the
marker tuples here, and nowhere else.
"""

from __future__ import annotations

from webproviders import BlockedError


def _token(name: str) -> str:
    """XPath test for one class token (``result`` but not ``result-op``)."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


#: ``result-op`` templates that are one page each, kept as results: Baidu serves a Baike article
#: (``tpl="bk_polysemy"``, its ``mu`` the article) in a ``result-op`` block, as it does its
#: aggregates (videos, "people also search"), which are dropped.
SINGLE_PAGE_TEMPLATES = ("bk_polysemy",)
_SINGLE_PAGE = " or ".join(f"@tpl='{name}'" for name in SINGLE_PAGE_TEMPLATES)

SELECTORS: dict[str, str] = {
    # The left column that holds the results; its absence means "not a results page".
    "column": "//div[@id='content_left']",
    # One result: an outermost c-container, minus "result-op" aggregate blocks.
    "result": (
        f".//div[{_token('c-container')}][not(ancestor::div[{_token('c-container')}])]"
        f"[not({_token('result-op')}) or {_SINGLE_PAGE}]"
    ),
    # The blocks of the column, each expected to be a result, an aggregate or an ad.
    "block": "./div",
    "aggregate": f"self::*[{_token('result-op')}][not({_SINGLE_PAGE})]",
    "title_link": ".//h3//a[@href]",
    # Where an organic result really leads (its title link is a /link?url= redirect).
    "destination": "./@mu",
    "snippet": (
        ".//*[contains(@class, 'c-abstract') or contains(@class, 'summary-text_')"
        " or contains(@class, 'content-right_') or contains(@class, 'c-span-last')]"
    ),
    "date": ".//span[contains(@class, 'c-color-gray2') or contains(@class, 'newTimeFactor')]",
    "display_url": ".//*[contains(@class, 'c-showurl') or contains(@class, 'cosc-source-text')]",
    # Paid placements: tuiguang classes/attributes, or a baidu.php click-through link.
    "ad": (
        "self::*[contains(@class, 'tuiguang') or contains(@class, 'EC_result') or @data-tuiguang]"
        " | .//a[contains(@href, '/baidu.php?')] | .//*[contains(@class, 'ec-tuiguang')]"
    ),
    "no_results": f"//div[{_token('nors')}]",
    "verification": (
        "//*[contains(@class, 'passMod_') or contains(@id, 'seccaptcha')]"
        " | //title[contains(., '安全验证')]"
    ),
}

#: Hosts of the ``mu`` placeholders Baidu sets on some blocks (``http://nourl.ubs.baidu.com/51270``,
#: ``http://28608.recommend_list.baidu.com``): they lead nowhere, so the title link's redirect is
#: the hit's URL there.
PLACEHOLDER_HOSTS = ("nourl.ubs.baidu.com", "recommend_list.baidu.com")
#: Text of the "no results" notice (很抱歉，没有找到与“...”相关的网页).
NO_RESULTS_TEXT_MARKERS = ("没有找到与", "抱歉没有找到")
#: A redirect to (or a page served from) one of these is the verification wall.
VERIFY_URL_MARKERS = (
    "wappass.baidu.com",
    "verify.baidu.com",
    "seccaptcha",
    "/static/captcha",
)
#: Text Baidu's verification page shows.
VERIFY_TEXT_MARKERS = ("请完成下方验证", "请完成验证", "百度安全验证")


def is_verification_url(url: str) -> bool:
    return any(marker in url for marker in VERIFY_URL_MARKERS)


def captcha_error(where: str) -> BlockedError:
    return BlockedError(
        f"Baidu asked for its security verification (CAPTCHA) {where}; this backend does not "
        "solve it. Wait a while, search less often, or use another backend.",
        detail="captcha_required",
    )
