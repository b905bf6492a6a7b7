"""Mapping our common search options to SearXNG's form parameters.

SearXNG has no domain filter: domains go into the query as ``site:`` operators (which most
engines understand) and the results are filtered by host afterwards, so the option holds
even for engines that ignore the operator.

A word of the query that starts with ``!!`` is an external bang to SearXNG (``!!w``
Wikipedia): it answers with a redirect to that site's search, even for ``format=json``, so
the search failed as a redirect from a wrongly configured ``base_url``. Such a word goes in
double quotes, and is searched. A single ``!`` (``!wp``, ``!images``), SearXNG's own engine
and category selection, is left as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from webproviders import warn
from webproviders.kit import host_of, site_query

_SAFESEARCH = {"off": 0, "moderate": 1, "strict": 2}
#: The region a script subtag stands for where SearXNG's languages have no script (``zh-Hant``).
_SCRIPT_REGIONS = {"zh-hant": "TW", "zh-hans": "CN"}
#: A word that starts with ``!!``: an external bang, wherever it stands in the query.
_EXTERNAL_BANG = re.compile(r"(?<!\S)!!\S+")


def searchable(query: str) -> str:
    """``query`` with each external bang (``!!w``) in double quotes, so SearXNG searches it."""
    return _EXTERNAL_BANG.sub(lambda match: f'"{match.group()}"', query)


def _csv(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, (list, tuple)):
        return ",".join(str(v).strip() for v in value if str(v).strip()) or None
    return None


def language(name: str, options: dict[str, Any]) -> str | None:
    """``language``: ``en`` or ``en-US``, the only shapes SearXNG takes (it answers any other
    tag, ``EN``, ``zh-Hans-CN`` or ``es-419``, with HTTP 400); a country alone cannot be
    expressed, so it warns. A tag's own region wins over ``country``."""
    lang, country = options.get("lang"), options.get("country")
    if not lang:
        if country:
            warn(f"{name} filters by language, not by country; pass lang with country (ignored).")
        return None
    primary, *subtags = lang.strip().lower().replace("_", "-").split("-")
    regions = [tag for tag in subtags if len(tag) == 2 and tag.isalpha()]
    scripts = [_SCRIPT_REGIONS.get(f"{primary}-{tag}") for tag in subtags]
    region = next(iter(regions), None) or country or next(filter(None, scripts), None)
    return f"{primary}-{region.strip().upper()}" if region else primary


def build_params(
    name: str, query: str, options: dict[str, Any], settings_option: Any
) -> dict[str, Any]:
    """Query parameters for ``GET /search``; ``settings_option`` reads config defaults."""
    q = site_query(
        searchable(query), options.get("include_domains") or [], options.get("exclude_domains") or []
    )
    params: dict[str, Any] = {"q": q, "format": "json", "pageno": 1}
    lang = language(name, options)
    if lang:
        params["language"] = lang
    if options.get("time_range"):
        params["time_range"] = options["time_range"]
    if options.get("safe_search"):
        params["safesearch"] = _SAFESEARCH[options["safe_search"]]
    for key in ("categories", "engines"):
        value = _csv(options.get(key)) or _csv(settings_option(key))
        if value:
            params[key] = value
    return params


def _matches(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


def domain_filter(options: dict[str, Any]) -> Callable[[str], bool] | None:
    """Whether a hit's URL is on an included domain (or a subdomain) and on no excluded one;
    None when no domain is named."""
    include = options.get("include_domains") or []
    exclude = options.get("exclude_domains") or []
    if not include and not exclude:
        return None

    def wanted(url: str) -> bool:
        host = host_of(url)
        if include and not any(_matches(host, d) for d in include):
            return False
        return not any(_matches(host, d) for d in exclude)

    return wanted
