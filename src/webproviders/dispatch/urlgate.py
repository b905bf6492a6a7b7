"""The URL screen: each provider's extract URLs and crawl seed, checked where its fetch happens.

The screen protects the operator's network, so it is as strict as the place that makes the
request (the provider's manifest ``fetch``, see :meth:`.ProviderManifest.fetch_place`):

- ``local`` (this machine fetches: ``http``, a browser, a self-hosted service): the full
  policy of :mod:`webproviders.fetching.urlsafety`, every host resolved once for the call;
- ``vendor`` (the vendor's servers fetch): every check that needs no DNS, and no lookup;
- ``none`` (nothing is fetched: computed answers, an index): the input check only.

A ``vendor`` provider with an endpoint the operator configured on their own network (a
self-hosted Firecrawl at ``http://10.0.0.5:3002``, a Jina reader at ``http://reader:3000``)
is screened as ``local``: that network makes the request. A vendor whose manifest says it
is not ``self_hostable`` (it runs only on its own servers) stays ``vendor`` wherever its
endpoint is: one on the operator's network is a gateway in front of the vendor. ``web.allow_private_networks``
and ``web.allowed_hosts`` are the switches. An unsafe extract URL becomes that URL's item in
the provider's answer, in its place; an unsafe crawl seed fails the provider.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..asynctimeout import within
from ..config import Config
from ..envelope import page_error
from ..errors import NetworkError, WebProviderError, WebTimeoutError
from ..fetching.urlsafety import (
    AddressPolicy,
    on_operator_network,
    screen_urls,
    screen_urls_offline,
)
from ..manifest import Fetching, FetchPlace
from ..offloop import import_off_loop
from ..registry.registration import ProviderEntry
from .call import Call
from .per_url import Refused, all_failed, summary


def fetch_place(entry: ProviderEntry, capability: Fetching, config: Config) -> FetchPlace:
    """Where ``entry`` fetches for ``capability`` now: its manifest's word, unless self-hosted."""
    manifest = entry.manifest
    place = manifest.fetch_place(capability)
    self_hosted = place == "vendor" and manifest.self_hostable
    endpoints = manifest.configured_endpoints(config.provider(manifest.name)) if self_hosted else []
    return "local" if any(map(on_operator_network, endpoints)) else place


def _checked_here(problem: WebProviderError | None, provider: str) -> WebProviderError | None:
    """A lookup that failed for a vendor on the operator's network, saying why it was made
    here at all: that vendor fetches from this network, so its URLs are checked as ours are.
    No proxy setting would help (the vendor does not fetch through ``web.proxy``), so none is advised."""
    if not isinstance(problem, NetworkError):
        return problem
    return NetworkError(
        f"{problem.message} {provider}'s endpoint is on this machine's network, so the URLs it is given "
        f"are checked here first, and a name this machine cannot look up is not sent to it ({provider} fetches "
        "pages itself, not through web.proxy, so web.proxy_resolves_names does not apply). Let this machine "
        "resolve the name, or use a provider that fetches from its own servers."
    )


@dataclass
class Screened:
    """One provider's share of the call's URLs: those it may be given, the rest as items."""

    urls: list[str]
    #: Refused URLs: their positions among the call's URLs, and their error items.
    refused: list[Refused] = field(default_factory=list)

    def view(self, call: Call) -> Call:
        """``call`` as this provider sees it: only the URLs it may be given."""
        if not self.refused or call.capability != "extract":
            return call
        return dataclasses.replace(call, arguments={**call.arguments, "urls": self.urls})

    def merge(self, data: Any) -> Any:
        """The provider's pages with the refused URLs' items put back in their places."""
        if not self.refused or not isinstance(data, list):
            return data
        merged = list(data)
        for position, item in self.refused:
            merged.insert(position, item)
        return merged

    def merge_failures(self, error: WebProviderError) -> WebProviderError:
        """A per-URL failure of the provider with the refused URLs among its failures."""
        if not self.refused or error.failures is None:
            return error
        merged = copy.copy(error)  # the error may be shared with other calls (single flight)
        merged.failures = list(error.failures)
        for position, item in self.refused:
            merged.failures.insert(position, summary(item))
        return merged


async def screen(call: Call, entry: ProviderEntry) -> Screened:
    """Check the call's URLs for ``entry``; raises when it may be given none of them.

    An unsafe crawl seed raises its own refusal; an extract whose every URL is refused
    raises the most telling of them, with each in ``meta.failures``.
    """
    extract = call.capability == "extract"
    urls: list[str] = list(call.arguments["urls"]) if extract else [call.arguments["url"]]
    place = fetch_place(entry, call.capability, call.config)  # type: ignore[arg-type]
    if place == "none":
        return Screened(urls)
    await import_off_loop("httpx")  # the screen parses URLs as the request will (a cold import: 80-350 ms)
    # A vendor run on this network fetches from it, not through web.proxy: its names must resolve here.
    self_hosted = place == "local" and entry.manifest.fetch_place(call.capability) == "vendor"
    policy = AddressPolicy.for_service(call.config) if self_hosted else AddressPolicy.from_config(call.config)
    if place == "vendor":
        problems = screen_urls_offline(urls, policy)
    else:
        try:
            problems = await within(screen_urls(urls, policy), max(0.0, call.remaining()))
        except asyncio.TimeoutError:
            raise WebTimeoutError(
                "The call's deadline passed while this machine's DNS was still looking up the URLs' host "
                "names, which are checked before any page is fetched: a resolver that does not answer "
                "holds every page this long. Check this machine's DNS settings, or give the call more time."
            ) from None
        if self_hosted:
            problems = [_checked_here(problem, entry.manifest.name) for problem in problems]
    seed = problems[0]
    if not extract and seed is not None:
        raise seed
    refused = [(index, page_error(urls[index], problem)) for index, problem in enumerate(problems) if problem is not None]
    if not refused:
        return Screened(urls)
    if len(refused) == len(urls):
        raise all_failed([item for _, item in refused], "extract", entry.manifest.name)
    taken = {index for index, _ in refused}
    return Screened([url for index, url in enumerate(urls) if index not in taken], refused)
