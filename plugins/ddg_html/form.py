"""The form DuckDuckGo's HTML endpoint takes, built from the common search options.

``kl`` is one of DuckDuckGo's fixed region codes (:func:`webproviders.kit.duckduckgo_region`).
A word of the query that starts with ``!`` is quoted: DuckDuckGo reads it as a bang and
answers with a redirect to another site's search (``!w`` Wikipedia, ``!g`` Google) instead of
results, which would send the query to that site from this machine. A query that starts with
``\\`` ("I'm feeling ducky") is answered with a redirect to its first result's page, so that
first word goes in double quotes.
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
#: The longest ``q`` DuckDuckGo answers: searches with a longer one get no results page and time
#: out instead, which reads as the engine failing, not the query.
MAX_QUERY_CHARS = 499
#: A word that starts with ``!``: a bang to DuckDuckGo, wherever it stands in the query.
_BANG = re.compile(r"(?<!\S)!\S*")
#: A first word that starts with ``\``: DuckDuckGo's shortcut to the first result's page.
_DUCKY = re.compile(r"\A(\s*)(\\\S*)")


def searchable(query: str) -> str:
    """``query`` as DuckDuckGo searches it instead of redirecting it elsewhere: each ``!word``
    quoted (``'!w'``), and a leading ``\\word`` in double quotes (``"\\frac"``)."""
    query = _BANG.sub(lambda match: f"'{match.group()}'", query)
    return _DUCKY.sub(lambda match: f'{match.group(1)}"{match.group(2)}"', query)


def region(country: str | None, lang: str | None) -> str | None:
    """The ``kl`` region for a country and/or language, or None (with a warning) if none fits."""
    return duckduckgo_region("ddg_html", country, lang)


def first_page_form(query: str, options: dict[str, Any]) -> dict[str, str]:
    """The POST form for the first results page."""
    q = site_query(
        searchable(query),
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
