"""The ``serper`` provider: Google's organic results through ``POST https://google.serper.dev/search``.

The answer box and knowledge graph are not web pages, so they go into the envelope's
``meta`` (``answer_box``, ``knowledge_graph``) instead of the hit list.
"""

from __future__ import annotations

from typing import Any

from webproviders import ParseError, report_usage
from webproviders.kit import (
    VendorProvider,
    answer_objects,
    google_locale_params,
    google_organic_hit,
    google_results_envelope,
    site_query,
    warn_unknown,
)

from .errors import classify

#: Page sizes Serper offers; the smallest one that covers the limit is asked for.
PAGE_SIZES = (10, 20, 30, 40, 50, 100)


def envelope_from(body: Any) -> dict[str, Any]:
    """Organic hits as the list, answer box and knowledge graph as meta."""
    if not isinstance(body, dict):
        raise ParseError("Serper answered with something other than a JSON object.")
    if "organic" not in body and "searchParameters" not in body:
        # Every answer of Serper's echoes its ``searchParameters``: ``{}`` (another service at
        # the base URL) is not a search that found nothing.
        raise ParseError(
            "Serper answered without 'searchParameters' or 'organic'; its answer is not in the "
            "shape Serper documents."
        )
    hits = [google_organic_hit(item) for item in answer_objects(body.get("organic") or [], "organic", "Serper")]
    return google_results_envelope(
        hits, answer_box=body.get("answerBox"), knowledge_graph=body.get("knowledgeGraph")
    )


class SerperProvider(VendorProvider):
    provider_name = "serper"
    default_base_url = "https://google.serper.dev"
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang"}
    )

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"X-API-KEY": key}

    def request_body(self, query: str, limit: int, options: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "q": site_query(
                query, options.get("include_domains", []), options.get("exclude_domains", [])
            ),
            "num": next(size for size in PAGE_SIZES if size >= limit),
        }
        body.update(google_locale_params(options, self.name))
        if options.get("location"):  # Serper's free-text location, passed through
            body["location"] = str(options["location"])
        return body

    async def search(self, query: str, limit: int = 5, **options: Any) -> dict[str, Any]:
        warn_unknown(self.name, options, frozenset({"location"}), search=True)
        answer = await self.call_api(
            "POST", "/search", json=self.request_body(query, limit, options), classify=classify
        )
        # Serper states what each search cost: more credits for a page of more than 10 results.
        report_usage(answer.get("credits") if isinstance(answer, dict) else None, unit="credit")
        return envelope_from(answer)
