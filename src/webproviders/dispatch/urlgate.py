"""The URL-safety gate: extract URLs and crawl seeds are checked before any provider sees them.

Whatever answers the call (a vendor's API, a self-hosted Firecrawl on the operator's own
network, a third-party plugin), a URL that arrives at run time goes through the policy the
built-in fetcher uses (:mod:`webproviders.fetching.urlsafety`): the checks that need no DNS,
then every address its host resolves to. ``web.allow_private_networks`` and
``web.allowed_hosts`` are the switches, as for fetching. An unsafe extract URL becomes that
URL's ``unsafe_url`` item while the others go to the provider; an unsafe crawl seed fails
the call.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..envelope import page_error
from ..errors import WebProviderError, WebTimeoutError, error_for_code
from ..fetching.urlsafety import AddressPolicy, screen_urls
from .call import Call


async def screen(call: Call) -> dict[int, dict[str, Any]]:
    """Check the call's URLs; returns the refused extract items by their position.

    An extract call keeps only its safe URLs in ``call.arguments``. Raises the refusal of a
    crawl seed, or an error when no extract URL may be fetched.
    """
    extract = call.capability == "extract"
    urls: list[str] = list(call.arguments["urls"]) if extract else [call.arguments["url"]]
    try:
        problems = await asyncio.wait_for(
            screen_urls(urls, AddressPolicy.from_config(call.config)), max(0.0, call.remaining())
        )
    except asyncio.TimeoutError:
        raise WebTimeoutError("The call's deadline passed while the URLs' host names were being checked.") from None
    refused = {index: problem for index, problem in enumerate(problems) if problem is not None}
    if not refused:
        return {}
    if not extract:
        raise refused[0]
    if len(refused) == len(urls):
        raise _none_allowed(list(refused.values()))
    call.arguments["urls"] = [url for index, url in enumerate(urls) if index not in refused]
    return {index: page_error(urls[index], problem) for index, problem in refused.items()}


def _none_allowed(problems: list[WebProviderError]) -> WebProviderError:
    if len(problems) == 1:
        return problems[0]
    first = problems[0]
    return error_for_code(
        first.code, f"None of the {len(problems)} URLs may be fetched; the first: {first.message}", detail=first.detail
    )


def merge(envelope: dict[str, Any], refused: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """Put the refused items back where their URLs were in the request."""
    if not refused or not envelope.get("success") or not isinstance(envelope.get("data"), list):
        return envelope
    served = iter(envelope["data"])
    pending = dict(refused)
    items: list[Any] = []
    index = 0
    while pending:
        item = pending.pop(index, None) or next(served, None)
        if item is not None:
            items.append(item)
        index += 1
    items.extend(served)
    envelope["data"] = items
    return envelope
