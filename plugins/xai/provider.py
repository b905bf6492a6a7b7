"""The xAI provider: Grok answers a search with its server-side ``web_search`` tool."""

from __future__ import annotations

import contextlib
from functools import partial
from typing import Any, ClassVar
from urllib.parse import urlsplit

from webproviders import report_usage, warn
from webproviders.kit import VendorProvider, warn_unknown

from .errors import classify
from .parse import incomplete_reason, parse_response
from .request import build_body

DEFAULT_MODEL = "grok-4-1-fast-reasoning"
#: ``usage.cost_in_usd_ticks`` counts ten-billionths of a dollar.
USD_TICKS = 1e10
#: Options xAI has no parameter for: they go into the prompt, and the caller is told so.
_PROMPTED = ("time_range", "lang", "country")
_FALLBACK_NOTES = {
    "annotations": "{name} did not return the JSON results block; hits come from its url_citation "
    "annotations, so titles and descriptions are missing.",
    "citations": "{name} did not return the JSON results block or citations in the text; hits are "
    "the URLs its search saw, unranked and without titles.",
}


class XaiProvider(VendorProvider):
    """Web search through xAI's Responses API (``POST /v1/responses``, ``web_search`` tool).

    Trust model: a language model writes the answer. Titles, descriptions, dates and even
    URLs are model-generated and may be wrong or invented; treat them like any model output.
    Hits from the JSON block carry ``cited`` (whether xAI's search tool reported that URL).
    Options without an xAI parameter (time range, language, country) are requests in the
    prompt, not filters. Domain filters are real: at most 5, allowed or excluded, not both.
    """

    provider_name: ClassVar[str] = "xai"
    default_base_url: ClassVar[str] = "https://api.x.ai/v1"
    #: A search with reasoning and several tool calls often takes a minute.
    default_timeout: ClassVar[float] = 90.0
    search_options = frozenset(
        {"time_range", "include_domains", "exclude_domains", "country", "lang"}
    )

    def model(self) -> str:
        return str(self.settings.option("model") or DEFAULT_MODEL)

    def _path(self) -> str:
        # A bare host (https://api.x.ai) gets the version prefix; a proxy URL is used as given.
        return "/v1/responses" if urlsplit(self.base_url()).path in ("", "/") else "/responses"

    async def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        warn_unknown(self.name, options, frozenset(), search=True)
        body = build_body(
            self.model(), query, limit, options, self.name, self.settings.number("max_tool_calls", None)
        )
        prompted = [option for option in _PROMPTED if options.get(option)]
        if prompted:
            warn(
                f"{self.name} has no parameter for {', '.join(prompted)}; it was asked for in the "
                "prompt, which the model may not follow."
            )
        answer = await self.call_api(
            "POST", self._path(), json=body, classify=partial(classify, self.name)
        )
        usage = answer.get("usage") if isinstance(answer, dict) else None
        ticks = usage.get("cost_in_usd_ticks") if isinstance(usage, dict) else None
        if isinstance(ticks, (int, float)):
            # A figure beyond any float is nonsense, ignored as report_usage ignores any.
            with contextlib.suppress(OverflowError):
                report_usage(usd=ticks / USD_TICKS)
        hits, source = parse_response(self.name, answer)
        if source in _FALLBACK_NOTES:
            warn(_FALLBACK_NOTES[source].format(name=self.name))
        reason = incomplete_reason(answer)
        if reason:
            warn(
                f"{self.name} stopped before finishing its answer ({reason}); "
                "results may be partial."
            )
        return hits
