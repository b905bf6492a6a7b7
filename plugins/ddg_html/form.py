"""The form DuckDuckGo's HTML endpoint takes, built from the common search options.

``kl`` is one of DuckDuckGo's fixed region codes (:func:`webproviders.kit.duckduckgo_region`).
A word of the query that starts with ``!`` is quoted: DuckDuckGo reads it as a bang and
answers with a redirect to another site's search (``!w`` Wikipedia, ``!g`` Google) instead of
results, which would send the query to that site from this machine.
"""

from __future__ import annotations

import re
from typing import Any

from webproviders import InvalidInputError
from webproviders.kit import duckduckgo_region, site_query

#: ``df``: how recent results must be.
TIME_RANGES = {"day": "d", "week": "w", "month": "m", "year": "y"}
#: ``kp``: 1 strict, -1 moderate, -2 off.
SAFE_SEARCH = {"strict": "1", "moderate": "-1", "off": "-2"}
#: The longest ``q`` DuckDuckGo answers: a longer one gets no results page (the request hangs
#: until it times out), which reads as the engine failing, not the query.
MAX_QUERY_CHARS = 499
#: A word that starts with ``!``: a bang to DuckDuckGo, wherever it stands in the query.
_BANG = re.compile(r"(?<!\S)!\S*")


def without_bangs(query: str) -> str:
    """``query`` with each ``!word`` quoted (``'!w'``), which DuckDuckGo searches as a word."""
    return _BANG.sub(lambda match: f"'{match.group()}'", query)


def region(country: str | None, lang: str | None) -> str | None:
    """The ``kl`` region for a country and/or language, or None (with a warning) if none fits."""
    return duckduckgo_region("ddg_html", country, lang)


def first_page_form(query: str, options: dict[str, Any]) -> dict[str, str]:
    """The POST form for the first results page."""
    q = site_query(
        without_bangs(query),
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
