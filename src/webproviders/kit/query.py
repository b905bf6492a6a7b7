"""Domain filters written into the query as ``site:`` / ``-site:`` operators.

Many engines have no domain parameter but honour these operators (Google and its resellers,
Brave, DuckDuckGo, Kagi, SearXNG's engines), so one spelling serves them all: the domains to
keep become alternatives joined by ``OR``, each excluded domain a ``-site:`` term.
"""

from __future__ import annotations

from collections.abc import Sequence


def site_query(
    query: str,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    *,
    group: bool = False,
) -> str:
    """``query`` with ``site:`` operators for ``include`` and ``-site:`` ones for ``exclude``.

    ``group`` puts several ``site:`` alternatives in parentheses, so that ``OR`` plainly joins
    only them and not the query's own words.
    """
    parts = [query]
    if include:
        sites = " OR ".join(f"site:{domain}" for domain in include)
        parts.append(f"({sites})" if group and len(include) > 1 else sites)
    parts += [f"-site:{domain}" for domain in exclude]
    return " ".join(parts)
