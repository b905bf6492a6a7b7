"""The form DuckDuckGo's HTML endpoint takes, built from the common search options.

``kl`` is one of DuckDuckGo's fixed region codes (:func:`webproviders.kit.duckduckgo_region`).
A ``!bang`` word and a leading ``\\word`` of the query are quoted
(:func:`webproviders.kit.duckduckgo_query`): DuckDuckGo answers them with a redirect to another
site instead of results.
"""

from __future__ import annotations

from typing import Any

from webproviders import InvalidInputError
from webproviders.kit import duckduckgo_query, duckduckgo_region, site_query

#: ``df``: how recent results must be.
TIME_RANGES = {"day": "d", "week": "w", "month": "m", "year": "y"}
#: ``kp``: 1 strict, -1 moderate, -2 off.
SAFE_SEARCH = {"strict": "1", "moderate": "-1", "off": "-2"}
#: The longest ``q`` DuckDuckGo answers: searches with a longer one get no results page and time
#: out instead, which reads as the engine failing, not the query.
MAX_QUERY_CHARS = 499


def region(country: str | None, lang: str | None) -> str | None:
    """The ``kl`` region for a country and/or language, or None (with a warning) if none fits."""
    return duckduckgo_region("ddg_html", country, lang)


def first_page_form(query: str, options: dict[str, Any]) -> dict[str, str]:
    """The POST form for the first results page."""
    q = site_query(
        duckduckgo_query(query),
        options.get("include_domains", []),
        options.get("exclude_domains", []),
        group=True,
    )
    if len(q) > MAX_QUERY_CHARS:
        raise InvalidInputError(
            f"DuckDuckGo takes a query of at most {MAX_QUERY_CHARS} characters, domain filters "
            f"included; this one has {len(q)}. Shorten it or use another backend.",
            provider="ddg_html",
        )
    form = {"q": q, "b": ""}
    kl = region(options.get("country"), options.get("lang"))
    if kl:
        form["kl"] = kl
    if options.get("time_range"):
        form["df"] = TIME_RANGES[options["time_range"]]
    if options.get("safe_search"):
        form["kp"] = SAFE_SEARCH[options["safe_search"]]
    return form
