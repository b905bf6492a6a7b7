"""Extract calls over several URLs, where a page failure is an item, not a call failure.

Errors about the account (bad key, no credit, rate limit) fail the whole call at once, so
the dispatcher can fail over. Anything else becomes that URL's error item; when no URL was
read the dispatcher makes the call a failure with the most telling code (a vendor down for
every URL is a ``bad_gateway`` it retries and fails over). Vendors that answer for many URLs
in one response are matched back to the URLs asked for with :func:`one_item_per_url`.

Plugins import this when they are listed, so asyncio and the HTTP error mapping load only
when a call runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from ..envelope import page_error
from ..errors import (
    AuthError,
    NotConfiguredError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    WebProviderError,
    WebTimeoutError,
)
from ..urls import shorten, url_key

if TYPE_CHECKING:
    from ..config import ProviderSettings

T = TypeVar("T")

ACCOUNT_ERRORS = (AuthError, QuotaExceededError, RateLimitedError, NotConfiguredError)


def per_url_error(exc: BaseException, provider: str) -> WebProviderError:
    """Our error for one URL's failure; raises it at once when it is about the account."""
    from ..errors import to_provider_error

    error = to_provider_error(exc, provider)
    if isinstance(error, ACCOUNT_ERRORS):
        raise error from None
    return error


def settle(
    urls: list[str], outcomes: list[dict[str, Any] | WebProviderError]
) -> list[dict[str, Any]]:
    """Pages in input order, a failed URL as its error item."""
    pairs = zip(urls, outcomes, strict=True)
    return [o if isinstance(o, dict) else page_error(url, o) for url, o in pairs]


async def gather_or_cancel(jobs: Iterable[Awaitable[T]]) -> list[T]:
    """Run ``jobs`` together, results in order; the first failure cancels the rest."""
    import asyncio

    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()


async def fetch_each(
    urls: list[str],
    fetch: Callable[[str], Awaitable[dict[str, Any]]],
    *,
    provider: str,
    concurrency: int,
    settings: ProviderSettings | None = None,
) -> list[dict[str, Any]]:
    """Run ``fetch`` for every URL (at most ``concurrency`` at once), results in input order.

    Each fetch ends a little before the call's deadline (and the provider's own ``timeout``
    in ``settings``): a URL not read by then, or whose turn had not come, is a ``timeout``
    item, and the pages read are returned instead of being lost with the call. Each fetch
    after the first waits for its slot of the provider's request budget (:class:`.pacing.Pacer`)."""
    import asyncio
    import time

    from ..asynctimeout import within
    from ..config import ProviderSettings
    from ..fetching.options import time_budget
    from .pacing import Pacer

    gate = asyncio.Semaphore(max(1, concurrency))
    budget = time_budget(settings or ProviderSettings())
    end = None if budget is None else time.monotonic() + budget
    pacer = Pacer()

    async def one(url: str) -> dict[str, Any] | WebProviderError:
        async with gate:
            try:
                await pacer.slot(None if end is None else end - time.monotonic())
            except WebProviderError as exc:  # no slot of the request budget in time: not asked
                return exc
            left = None if end is None else end - time.monotonic()
            try:
                return await within(fetch(url), left)
            except asyncio.TimeoutError as exc:
                if end is None or time.monotonic() < end:
                    return per_url_error(exc, provider)  # the fetch's own, not the deadline's
                return _late(provider, left, concurrency)
            except Exception as exc:  # noqa: BLE001 - sorted into call-level or per-URL
                return per_url_error(exc, provider)

    return settle(urls, await gather_or_cancel(one(url) for url in urls))


def _late(provider: str, left: float | None, concurrency: int) -> WebTimeoutError:
    """A URL of an extract the call's deadline came for: still being read, or not yet asked."""
    if left is not None and left <= 0:
        return WebTimeoutError(
            f"{provider} was not asked for this page: its turn ({concurrency} pages are read at once) "
            "came at the call's deadline.",
            provider=provider,
        )
    return unread_by_deadline(f"{provider} had not read this page by the call's deadline.", provider)


def unread_by_deadline(sentence: str, provider: str, who: str | None = None) -> WebTimeoutError:
    """A page the call's deadline came for while it was being asked for: ``sentence`` says so,
    unless the request stood short of the vendor (a proxy that had not opened its tunnel, a
    name still being looked up), which is said instead, naming ``who`` (the provider by
    default): the vendor never saw that request."""
    from ..context import stalled_at

    where = stalled_at()
    if where is not None:
        return WebTimeoutError(
            f"{who or provider} was not reached for this page by the call's deadline: {where}", provider=provider
        )
    return WebTimeoutError(sentence, provider=provider)


def one_item_per_url(
    urls: list[str],
    found: dict[str, dict[str, Any]],
    failed: dict[str, WebProviderError],
    vendor: str,
) -> list[dict[str, Any]]:
    """Extract items in the order asked: the page, the vendor's reason for not having it, or
    (a URL it did not mention at all) an error saying so. Keys are :func:`~webproviders.urls.url_key` values."""
    items = []
    for url in urls:
        key = url_key(url)
        if key in found:
            items.append(found[key])
            continue
        error = failed.get(key) or ProviderError(f"{vendor} returned nothing for this URL.")
        items.append(page_error(url, error))
    return items


def say_empty_pages(vendor: str, pages: Iterable[dict[str, Any]]) -> None:
    """Say in ``meta.warnings`` which pages a vendor returned without any text: an empty
    ``content`` alone leaves an agent guessing (the ``http`` provider says the same of its own)."""
    empty = [page.get("url") or "" for page in pages if not page.get("error") and not str(page.get("content") or "").strip()]
    if not empty:
        return
    from ..context import warn

    which = shorten(empty[0]) if len(empty) == 1 else f"{len(empty)} pages (the first {shorten(empty[0])})"
    warn(f"{vendor} returned no text for {which}: the page may be empty, or its text put there by a script.")
