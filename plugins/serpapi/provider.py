"""The ``serpapi`` provider: ``GET https://serpapi.com/search.json?engine=google&q=...``.

The key travels as the ``api_key`` query parameter (SerpAPI's only scheme), so it is kept
out of every message we build and scrubbed from anything else. The answer box and knowledge
graph are not web pages, so they go into the envelope's ``meta`` (``answer_box``,
``knowledge_graph``); an organic result's ``sitelinks`` stay on its hit.

Google serves about 10 organic results a page and no longer honours ``num``, so a larger
``limit`` is fetched in pages with ``start`` (Google's offset, from SerpAPI's
``serpapi_pagination.next``: a page's organic results may be fewer than the 10 results it
counts), each one a search SerpAPI bills (and reported
as one request to the cost ledger), stopping when SerpAPI gives no next page; a later page that fails or would run past the
deadline ends the paging with the pages read (``kit.later_page``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any
from urllib.parse import parse_qs, urlsplit

from webproviders import BadGatewayError, ParseError, ProviderError, report_usage
from webproviders.kit import (
    GOOGLE_GL,
    GOOGLE_HL,
    GOOGLE_SAFE,
    VendorProvider,
    answer_objects,
    google_locale_params,
    google_organic_hit,
    google_results_envelope,
    later_page,
    site_query,
    warn_unknown,
)

from .errors import classify, is_no_results

#: ``search_metadata.status`` values of a finished search.
DONE = ("Success", "Cached")
#: Organic results on one Google page.
PAGE_SIZE = 10
#: SerpAPI's ``hl`` list (its google-languages.json): Google's, plus Greenlandic and Burmese.
SERPAPI_HL = GOOGLE_HL | {"kl", "my"}
#: SerpAPI's ``gl`` list (its google-countries.json): Google's, without Kosovo (``xk``).
SERPAPI_GL = GOOGLE_GL - {"xk"}


def next_start(body: Any, start: int) -> int | None:
    """Where SerpAPI's next page starts (the ``start`` of ``serpapi_pagination.next``), or
    None when there is no next page. Google counts results that are not organic (a video, a
    block of stories), so the organic results read say nothing of the offset."""
    pagination = body.get("serpapi_pagination") if isinstance(body, dict) else None
    link = pagination.get("next") if isinstance(pagination, dict) else None
    if not isinstance(link, str) or not link:
        return None
    given = parse_qs(urlsplit(link).query).get("start", [""])[0]
    return int(given) if given.isdigit() and int(given) > start else start + PAGE_SIZE


def _hit(item: Mapping[str, Any]) -> dict[str, Any]:
    hit = google_organic_hit(item)
    if item.get("source"):
        hit["source"] = item["source"]
    return hit


def envelope_from(body: Any) -> dict[str, Any]:
    """Organic hits as the list, answer box and knowledge graph as meta (as for Serper)."""
    hits = hits_from(body)
    return google_results_envelope(
        hits, answer_box=body.get("answer_box"), knowledge_graph=body.get("knowledge_graph")
    )


def hits_from(body: Any) -> list[dict[str, Any]]:
    """Organic results of a finished search; a search that failed or did not finish raises."""
    if not isinstance(body, dict):
        raise ParseError("SerpAPI answered with something other than a JSON object.")
    if not isinstance(body.get("search_metadata"), dict) and "organic_results" not in body:
        # Every SerpAPI answer, an empty one too, carries its ``search_metadata``: ``{}``
        # (another service at the base URL) is not a search that found nothing.
        raise ParseError(
            "SerpAPI answered without 'search_metadata' or 'organic_results'; its answer is not "
            "in the shape SerpAPI documents."
        )
    error = str(body.get("error") or "")
    status = (body.get("search_metadata") or {}).get("status")
    if status == "Error" and not is_no_results(error):
        raise ProviderError(
            f"SerpAPI reported that the search failed ({error or 'no reason given'})."
        )
    if status not in (None, *DONE, "Error"):
        raise BadGatewayError(f"SerpAPI returned the search before it finished (status {status}).")
    return [_hit(item) for item in answer_objects(body.get("organic_results") or [], "organic_results", "SerpAPI")]


class SerpApiProvider(VendorProvider):
    provider_name = "serpapi"
    key_param = "api_key"
    default_base_url = "https://serpapi.com"
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang", "safe_search"}
    )

    def request_params(self, query: str, limit: int, options: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {
            "engine": "google",
            "q": site_query(
                query, options.get("include_domains", []), options.get("exclude_domains", [])
            ),
        }
        params.update(google_locale_params(options, self.name, SERPAPI_HL, SERPAPI_GL))
        if options.get("safe_search") in GOOGLE_SAFE:
            params["safe"] = GOOGLE_SAFE[options["safe_search"]]
        if options.get("location"):  # SerpAPI's canonical location string, passed through
            params["location"] = str(options["location"])
        return params

    async def search(self, query: str, limit: int = 5, **options: Any) -> dict[str, Any]:
        warn_unknown(self.name, options, frozenset({"location"}), search=True)
        params = self.request_params(query, limit, options)

        async def page(start: int) -> Any:
            answer = await self.call_api(
                "GET", "/search.json", params={**params, "start": start} if start else params, classify=classify
            )
            report_usage(1, unit="request")  # each page is a search SerpAPI bills
            return answer

        async def later(start: int) -> tuple[Any, list[dict[str, Any]]]:
            answer = await page(start)
            return answer, hits_from(answer)

        answer: Any = await page(0)
        envelope = envelope_from(answer)
        hits, start = envelope["data"]["web"], 0
        for _ in range(-(-limit // PAGE_SIZE) - 1):
            following = next_start(answer, start)
            if len(hits) >= limit or not answer.get("organic_results") or following is None:
                break
            start = following
            got = await later_page(self.name, len(hits), partial(later, start))
            if got is None:
                break
            answer, more = got
            hits += more
        return envelope
