"""The ``serper`` provider: Google's organic results through ``POST https://google.serper.dev/search``.

The answer box and knowledge graph are not web pages, so they go into the envelope's
``meta`` (``answer_box``, ``knowledge_graph``) instead of the hit list.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from webproviders import VendorProvider
from webproviders.errors import ParseError

from .errors import classify

#: ``tbs`` values for a time range.
TIME_RANGES = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}
#: Page sizes Serper offers; the smallest one that covers the limit is asked for.
PAGE_SIZES = (10, 20, 30, 40, 50, 100)


def query_with_domains(query: str, include: list[str], exclude: list[str]) -> str:
    """Serper has no domain parameters; Google's ``site:`` operators do the job."""
    parts = [query]
    if include:
        parts.append(" OR ".join(f"site:{domain}" for domain in include))
    parts += [f"-site:{domain}" for domain in exclude]
    return " ".join(parts)


def iso_date(text: Any) -> str | None:
    """Google's absolute dates (``Sep 3, 2026``) as ISO; relative ones (``3 days ago``) stay out."""
    for fmt in ("%b %d, %Y", "%d %b %Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(str(text).strip(), fmt).date().isoformat()
        except ValueError:
            continue
    return None


def _hit(item: dict[str, Any]) -> dict[str, Any]:
    hit: dict[str, Any] = {
        "title": item.get("title"),
        "url": item.get("link"),
        "description": item.get("snippet"),
    }
    if item.get("date"):
        hit["date"] = item["date"]
        published = iso_date(item["date"])
        if published:
            hit["published_at"] = published
    if item.get("sitelinks"):
        hit["sitelinks"] = item["sitelinks"]
    return hit


def envelope_from(body: Any) -> dict[str, Any]:
    """Organic hits as the list, answer box and knowledge graph as meta."""
    if not isinstance(body, dict):
        raise ParseError("Serper answered with something other than a JSON object.")
    organic = body.get("organic") or []
    if not isinstance(organic, list):
        raise ParseError("Serper sent 'organic' that is not a list.")
    meta: dict[str, Any] = {}
    if body.get("answerBox"):
        meta["answer_box"] = body["answerBox"]
    if body.get("knowledgeGraph"):
        meta["knowledge_graph"] = body["knowledgeGraph"]
    hits = [_hit(item) for item in organic if isinstance(item, dict)]
    return {"success": True, "data": {"web": hits}, "meta": meta}


class SerperProvider(VendorProvider):
    provider_name = "serper"
    key_env = ("SERPER_API_KEY",)
    default_base_url = "https://google.serper.dev"
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang"}
    )

    @property
    def display_name(self) -> str:
        return "Serper (Google results)"

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"X-API-KEY": key}

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "free tier",
            "tag": "api key",
            "env_vars": [
                {
                    "key": "SERPER_API_KEY",
                    "prompt": "Serper API key",
                    "url": "https://serper.dev/api-key",
                }
            ],
        }

    def request_body(self, query: str, limit: int, options: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "q": query_with_domains(
                query, options.get("include_domains", []), options.get("exclude_domains", [])
            ),
            "num": next(size for size in PAGE_SIZES if size >= limit),
        }
        if options.get("country"):
            body["gl"] = options["country"].lower()
        if options.get("lang"):
            body["hl"] = options["lang"]
        if options.get("time_range"):
            body["tbs"] = TIME_RANGES[options["time_range"]]
        if options.get("location"):  # Serper's free-text location, passed through
            body["location"] = str(options["location"])
        return body

    async def search(self, query: str, limit: int = 5, **options: Any) -> dict[str, Any]:
        answer = await self.call_api(
            "POST", "/search", json=self.request_body(query, limit, options), classify=classify
        )
        return envelope_from(answer)
