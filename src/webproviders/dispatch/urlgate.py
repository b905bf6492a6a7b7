"""The URL-safety gate: extract URLs and crawl seeds are checked before any provider sees them.

Whatever answers the call (a vendor's API, a self-hosted Firecrawl on the operator's own
network, a third-party plugin), a URL that arrives at run time goes through the policy the
built-in fetcher uses (:mod:`webproviders.fetching.urlsafety`): the checks that need no DNS,
then every address its host resolves to. ``web.allow_private_networks`` and
``web.allowed_hosts`` are the switches, as for fetching. An unsafe extract URL becomes that
URL's ``unsafe_url`` item while the others go to the provider (it joins the answer in its
place, as a malformed URL does: :func:`.per_url.merge_refused`); an unsafe crawl seed fails
the call.
"""

from __future__ import annotations

import asyncio

from ..envelope import page_error
from ..errors import WebTimeoutError
from ..fetching.urlsafety import AddressPolicy, screen_urls
from .call import Call
from .per_url import all_failed


async def screen(call: Call) -> None:
    """Check the call's URLs; an unsafe extract URL joins ``call.refused`` in its place.

    An extract call keeps only its safe URLs in ``call.arguments``. Raises the refusal of a
    crawl seed, or (with every URL in ``meta.failures``) when no extract URL may be fetched.
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
        return
    if not extract:
        raise refused[0]
    items = {index: page_error(urls[index], problem) for index, problem in refused.items()}
    if len(refused) == len(urls):
        raise all_failed(list(items.values()), "extract", None)
    call.arguments["urls"] = [url for index, url in enumerate(urls) if index not in refused]
    taken = {position for position, _ in call.refused}
    positions = [p for p in range(len(urls) + len(taken)) if p not in taken]  # of the URLs checked here
    call.refused = sorted([*call.refused, *((positions[i], item) for i, item in items.items())], key=lambda r: r[0])
