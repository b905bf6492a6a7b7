"""Mapping our common search options to Brave's query parameters.

Brave has no domain filter parameter, so domains go into the query as ``site:`` /
``-site:`` operators, and the query limits (400 characters, 50 words) are checked after that.
"""

from __future__ import annotations

from typing import Any

from webproviders import InvalidInputError, warn
from webproviders.kit import language_code, site_query

#: Brave's web search returns at most this many results per request (a page).
MAX_COUNT = 20
#: The last page ``offset`` reaches (Brave's maximum, counted in pages of ``count``).
MAX_OFFSET = 9
MAX_QUERY_CHARS = 400
MAX_QUERY_WORDS = 50

_FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}
#: Brave's own codes where they differ from ISO 639 / BCP 47 habits.
_LANG_ALIASES = {
    "ja": "jp",
    "zh": "zh-hans",
    "zh-cn": "zh-hans",
    "zh-sg": "zh-hans",
    "zh-tw": "zh-hant",
    "zh-hk": "zh-hant",
    "pt": "pt-pt",
    "no": "nb",
    "nn": "nb",
}
#: Subtags that mark traditional Chinese (``zh-hant``); other Chinese is ``zh-hans``.
_TRADITIONAL = frozenset({"hant", "tw", "hk", "mo"})
#: Regional variants Brave knows as languages of their own; other regions are dropped.
_REGIONAL = {"en-gb", "pt-br", "pt-pt", "zh-hans", "zh-hant"}
#: The countries and languages Brave's ``country`` and ``search_lang`` take (enums: any other
#: value is refused with HTTP 422, which would fail a search another provider can serve).
COUNTRIES = frozenset(
    "AR AU AT BE BR CA CL DK FI FR DE HK IN ID IT JP KR MY MX NL NZ NO CN PL PT PH RU SA ZA "
    "ES SE CH TW TR GB US".split()
)
LANGUAGES = frozenset(
    "ar eu bn bg ca zh-hans zh-hant hr cs da nl en en-gb et fi fr gl de gu he hi hu is it jp kn "
    "ko lv lt ms ml mr nb pl pt-br pt-pt pa ro ru sr sk sl es sv ta te th tr uk vi".split()
)


def search_lang(lang: str) -> str:
    """Brave's ``search_lang`` code for a language tag such as ``en``, ``en-US`` or ``ja``."""
    code = lang.strip().lower().replace("_", "-")
    if code in _LANG_ALIASES:
        return _LANG_ALIASES[code]
    if "-" in code and code not in _REGIONAL:
        primary = language_code(code)
        if primary == "zh":  # zh-Hant-TW is traditional Chinese, whatever comes after the script
            return "zh-hant" if _TRADITIONAL.intersection(code.split("-")[1:]) else "zh-hans"
        return _LANG_ALIASES.get(primary, primary)
    return code


def build_params(name: str, query: str, count: int, options: dict[str, Any]) -> dict[str, Any]:
    """Query parameters for ``GET /res/v1/web/search`` (``count`` results a page); raises for a
    query Brave would refuse."""
    q = site_query(
        query, options.get("include_domains") or [], options.get("exclude_domains") or []
    )
    words = len(q.split())
    if len(q) > MAX_QUERY_CHARS or words > MAX_QUERY_WORDS:
        raise InvalidInputError(
            f"{name} accepts queries of at most {MAX_QUERY_CHARS} characters and {MAX_QUERY_WORDS} "
            f"words, domain filters included; this one has {len(q)} characters and {words} words.",
            provider=name,
        )
    params: dict[str, Any] = {"q": q, "count": count}
    if options.get("time_range"):
        params["freshness"] = _FRESHNESS[options["time_range"]]
    if options.get("country"):
        country = options["country"].strip().upper()
        if country in COUNTRIES:
            params["country"] = country
        else:
            warn(f"{name} does not offer results for the country '{country}'; country ignored.")
    if options.get("lang"):
        lang = search_lang(options["lang"])
        if lang in LANGUAGES:
            params["search_lang"] = lang
        else:
            warn(f"{name} does not search in the language '{options['lang']}'; lang ignored.")
    if options.get("safe_search"):
        params["safesearch"] = options["safe_search"]
    return params
