"""The query string of Baidu's results page, built from the common search options."""

from __future__ import annotations

import time
from typing import Any

from webproviders import warn

#: How far back each ``time_range`` reaches, in seconds.
TIME_RANGE_SECONDS = {"day": 86_400, "week": 7 * 86_400, "month": 31 * 86_400, "year": 366 * 86_400}
#: Results per page Baidu serves at most (``rn``).
MAX_PER_PAGE = 50


def search_params(
    query: str, limit: int, options: dict[str, Any], now: float | None = None
) -> dict[str, str]:
    """``wd`` and friends; ``gpc`` for a time range, ``si``+``ct`` to restrict to one site."""
    # Ask for a few spare results: ads and aggregate blocks are dropped after parsing.
    params = {"wd": query, "rn": str(min(MAX_PER_PAGE, max(10, limit + 5))), "ie": "utf-8"}
    if options.get("time_range"):
        end = int(time.time() if now is None else now)
        start = end - TIME_RANGE_SECONDS[options["time_range"]]
        params["gpc"] = f"stf={start},{end}|stftype=1"
    include = options.get("include_domains") or []
    if include:
        params["si"] = include[0]
        params["ct"] = "2336"
        if len(include) > 1:
            warn(
                f"Baidu restricts a search to one site; baidu_html searched {include[0]} only "
                f"and ignored {', '.join(include[1:])}."
            )
    return params
