"""Serving one provider: hooks and option checks, the cache, request budgets, retries, health.

Every provider gets this for free, built-in or third-party.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import math
import time
from collections.abc import Awaitable
from typing import Any

from ..accounting.meter import Meter
from ..context import Attempt, start_attempt, take_warnings, warn
from ..dependable.cache import cache_key
from ..dependable.cache.fingerprint import carries_credential, key_scope, provider_setup
from ..dependable.health import CALL_DEADLINE, GIVEN_SHARE, Cooling
from ..dependable.ratelimit import BudgetExhaustedError
from ..dependable.retry import MIN_REQUEST_TIME
from ..envelope import normalise_pages, normalise_search, page_error
from ..errors import (
    BudgetExceededError,
    BudgetStoreUnavailableError,
    ProviderError,
    RateLimitedError,
    UnsupportedError,
    WebProviderError,
    WebTimeoutError,
    error_for_code,
    to_provider_error,
)
from ..redact import scrub, scrub_data
from ..registry.registration import ProviderEntry
from ..urls import url_key
from ..validate import (
    COMMON_SEARCH_OPTIONS,
    MAX_CRAWL_PAGES,
    warn_unknown,
)
from . import hooks, runner, urlgate
from .call import Call
from .firstsend import set_up_first_request
from .hung import HungRefusal
from .per_url import nothing_read
from .state import DispatchState

#: Seconds a member of a chain or fusion waits for its request budget's next slot; a slot
#: further off skips it, so a rate-limited provider never holds a call that another could answer.
SLOT_PATIENCE = 1.0


class Skipped(Exception):
    """A provider was left out without a request (cooling down, paused, no budget slot soon); carries the error.

    ``waitable``: left out only because another provider could answer while its pause or its
    budget's next slot was still to come (within ``error.retry_after``).
    """

    def __init__(self, error: WebProviderError, waitable: bool = False) -> None:
        super().__init__(error)
        self.error = error
        self.waitable = waitable


class Cancelled(WebProviderError):
    """A request given up on because another provider of a hedged chain answered first.

    Only an attempt's outcome and a usage-ledger row, never an envelope's ``error_code``.
    """

    code = "cancelled"


def _option_warnings(call: Call, entry: ProviderEntry) -> None:
    """Report (or refuse) common search options the provider cannot honour."""
    options = call.arguments["options"]
    if call.capability != "search" or not options:
        return
    given = COMMON_SEARCH_OPTIONS & set(options)
    unsupported = sorted(given - set(getattr(entry.provider, "search_options", frozenset())))
    if not unsupported:
        return
    message = f"{entry.manifest.name} does not support {', '.join(unsupported)}; ignored."
    if call.config.web.on_unsupported == "error":
        raise UnsupportedError(
            f"{entry.manifest.name} does not support the option(s) {', '.join(unsupported)} "
            "(web.on_unsupported is 'error').",
            provider=entry.manifest.name,
        )
    call.warn((message,))


def _request(call: Call, entry: ProviderEntry, timeout: float) -> Awaitable[Any]:
    """The provider's method for the call's capability, bounded by ``timeout``."""
    provider = entry.provider
    args = call.arguments
    inline = bool(getattr(provider, "runs_inline", False))
    if call.capability == "search":
        options = _taken(entry, provider.search, args["options"], search=True)
        return runner.call(provider.search, args["query"], args["limit"], timeout=timeout, inline=inline, **options)
    if call.capability == "extract":
        options = _taken(entry, provider.extract, args["options"])
        return runner.call(provider.extract, list(args["urls"]), timeout=timeout, inline=inline, **options)
    options = _taken(entry, provider.crawl, args["options"])
    return runner.call(provider.crawl, args["url"], timeout=timeout, inline=inline, **options)


#: Each provider method's keyword parameters; None for one that takes ``**options``.
_keywords: dict[Any, frozenset[str] | None] = {}
_KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _taken(entry: ProviderEntry, method: Any, options: dict[str, Any], search: bool = False) -> dict[str, Any]:
    """The options ``method`` can be called with. One written without ``**options`` (which the
    contract asks for) is not given the others, named in ``meta.warnings`` instead: its
    ``TypeError`` read as the provider failing, and counted against its health, for what a
    caller had passed."""
    if not options:
        return options
    function = getattr(method, "__func__", method)
    if function not in _keywords:
        try:
            parameters = list(inspect.signature(method).parameters.values())
        except (TypeError, ValueError):  # no signature to read: call it as ever
            parameters = []
        takes_any = not parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
        _keywords[function] = None if takes_any else frozenset(p.name for p in parameters if p.kind in _KEYWORD_KINDS)
    names = _keywords[function]
    if names is None or options.keys() <= names:
        return options
    warn_unknown(entry.manifest.name, options, names, search=search)
    return {key: value for key, value in options.items() if key in names}


def _process_waited(record: Attempt, timeout: float) -> bool:
    """Whether this process's busy moment (no thread, no connection free) took the time of an
    attempt that timed out: its request never went out, or the provider had too little of
    the time to be blamed."""
    queued = record.queued
    return queued is not None and (not queued.sent or timeout - queued.seconds < GIVEN_SHARE * timeout)


def _went_out(record: Attempt) -> bool:
    """Whether an attempt that ended without an answer may have reached the vendor (and be
    billed): not one that waited for a thread or a connection and never got it, nor one whose
    connection (or proxy tunnel) to the vendor was still being opened, with no request of it
    past that point."""
    queued = record.queued
    if queued is not None and not queued.sent:
        return False
    return record.stalled is None or record.reached


def _timed_out(name: str, timeout: float, record: Attempt) -> WebTimeoutError:
    queued = record.queued
    if queued is not None and _process_waited(record, timeout):
        # This process's busy moment took the time, not the provider: never counted against it.
        what = (
            f"did not answer within {timeout:.1f} s, but was asked only after {queued.seconds:.1f} s of them"
            if queued.sent
            else f"was not asked within {timeout:.1f} s"
        )
        return WebTimeoutError(
            f"{name} {what}: {queued.reason}. {queued.advice}",
            provider=name,
            detail=queued.detail,
        )
    if record.stalled is not None:  # e.g. a proxy that had not opened its tunnel to the vendor
        return WebTimeoutError(f"{name} did not answer within {timeout:.1f} s: {record.stalled}", provider=name)
    if record.repeats is not None:  # e.g. a vendor's answer was still arriving: it will drip again
        return WebTimeoutError(
            f"{name} did not finish within {timeout:.1f} s ({record.repeats.replace('_', ' ')}).",
            provider=name,
            detail=record.repeats,
        )
    return WebTimeoutError(f"{name} did not answer within {timeout:.1f} s.", provider=name)


def _read_late(name: str, timeout: float) -> WebTimeoutError:
    """An answer that was still being read (parsed, turned into hits) when the time ran out:
    it is dropped, never handed back as a success after the deadline. An ``async`` method that
    blocks ends here too, so both causes are named: the answer's size alone misled its author."""
    return WebTimeoutError(
        f"{name} answered, but its answer was still being read when its {timeout:.1f} s ran out, so it "
        "was dropped: a very large answer takes long to read (give the call more time), and so does a "
        "provider's async code that blocks without awaiting (its plugin's to fix).",
        provider=name,
    )


def _normalise(call: Call, raw: Any, name: str) -> tuple[Any, dict[str, Any]]:
    if call.capability == "search":
        hits, meta = normalise_search(raw, call.arguments["limit"])
        return {"web": hits}, meta
    options = call.arguments["options"]
    pages, meta = normalise_pages(raw, options.get("max_chars"), most_chars=call.config.web.max_response_bytes)
    if call.capability == "crawl":
        most, asked = options.get("max_pages", options.get("limit")), "a crawl of at most {}"
        if most is None:  # the provider's own default, as its settings give it, else the most http crawls
            settings = call.config.provider(name)
            most = settings.option("max_pages", settings.option("limit"))
            if not isinstance(most, int) or isinstance(most, bool) or most < 1:
                most, asked = MAX_CRAWL_PAGES, "a crawl without max_pages (pass it for more than {})"
    else:  # one item per URL: a provider's 100,000 items for 2 URLs were all kept and cached
        most = len(call.arguments["urls"])
        asked = "{} URL" if most == 1 else "{} URLs"
    if isinstance(most, int) and len(pages) > most:  # as a search is held to its limit
        warn(f"{name} returned {len(pages)} pages for {asked.format(most)}; the first {most} are kept.")
        pages = pages[:most]
    if call.capability == "extract" and 0 < len(pages) < most:
        pages = _one_item_per_url(call.arguments["urls"], pages, name)
    return pages, meta


def _one_item_per_url(urls: list[str], pages: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """An extract answer that left URLs out, in the order asked, each URL it did not mention an
    item saying so: a success silent about them was cached as whole. Left as it is when some
    page is for a URL not asked for (read behind a redirect, say): which one it stands for is
    not known."""
    by_key: dict[str, dict[str, Any]] = {}
    for page in pages:
        by_key.setdefault(url_key(page["url"]), page)
    if len(by_key) < len(pages) or not by_key.keys() <= {url_key(url) for url in urls}:
        return pages
    nothing = ProviderError(f"{name} returned nothing for this URL.", provider=name)
    return [by_key.get(url_key(url)) or page_error(url, nothing) for url in urls]


async def attempt(call: Call, entry: ProviderEntry, record: Attempt) -> tuple[Any, dict[str, Any]]:
    """One request to one provider: the call and normalisation.

    Returns ``(data, provider_meta)`` or raises a :class:`WebProviderError`, also when an
    extract or crawl answer has no page read (see :mod:`.per_url`). A timeout in an attempt
    that met a failure which would happen again carries that failure's ``detail``, so that
    it is not retried.
    """
    name = entry.manifest.name
    timeout = call.remaining()
    own = call.state.own_timeout(name)  # type: ignore[union-attr]
    if own is not None:
        timeout = min(timeout, own)
    started = time.monotonic()
    try:
        if timeout <= 0:
            raise WebTimeoutError("The call's deadline passed before this provider could be tried.")
        try:
            raw = await _request(call, entry, timeout)
        except asyncio.TimeoutError:
            raise _timed_out(name, timeout, record) from None
        data, meta = _normalise(call, raw, name)
        if time.monotonic() - started > timeout:  # read past it, on a loop no timer could interrupt
            raise _read_late(name, timeout)
    except asyncio.CancelledError:  # a hedged chain took another answer (or the caller left): it was asked all the same
        call.warn(take_warnings(record, given_up=True))
        raise
    except Exception as exc:  # noqa: BLE001 - every failure becomes an envelope
        call.warn(take_warnings(record, given_up=True))  # a failed request's warnings still reach the call
        error = _repeating(to_provider_error(exc, name), record)
        if error.code == "timeout" and _process_waited(record, timeout):
            error = _timed_out(name, timeout, record)  # whichever timer ended it, the wait was ours
        if (
            error.code == "timeout" and error.detail is None and timeout < GIVEN_SHARE * (own or call.config.web.timeout)
            and time.monotonic() - started >= GIVEN_SHARE * timeout  # not a timeout of the provider's own, sooner
        ):
            error.detail = CALL_DEADLINE  # cut short by the call, not by the provider's own time
        raise error from None
    said = take_warnings(record)
    data, meta = scrub_data([data, meta])  # before it is cached or shown to anyone
    unread = nothing_read(data, call.capability, name)
    if unread is not None:
        call.warn(said)
        raise _repeating(unread, record)
    if said:  # part of the answer: cached with it, and said again by every hit
        given = meta.get("warnings")
        kept = [str(m) for m in given] if isinstance(given, list) else ([str(given)] if given else [])
        meta = {**meta, "warnings": kept + [m for m in map(scrub, said) if m not in kept]}
    return data, meta


def _repeating(error: WebProviderError, record: Attempt) -> WebProviderError:
    if record.repeats is not None and error.code == "timeout" and error.detail is None:
        error.detail = record.repeats
    return error


def _cooling_error(name: str, cooling: Cooling) -> WebProviderError:
    """Why the provider is left out, and when it is asked again: in whole seconds rounded up (0.4 s
    left is not "in 0 s"), or, once the cool-down is over and another call is its trial, when
    that call has ended."""
    left = cooling.seconds_left
    when = f"in {math.ceil(left)} s" if left > 0 else "once that trial call has ended without failing"
    return error_for_code(
        cooling.code,
        f"{name} is cooling down ({cooling.reason}); it will be tried again {when}.",
        provider=name,
        retry_after=cooling.seconds_left or None,
    )


def _slot_patience(call: Call) -> float:
    """Seconds a provider with others to stand in for it (in a chain or fusion) waits for a
    slot of its request budget: :data:`SLOT_PATIENCE`, or ``hedge_after`` when less (a
    hedged chain would start the next member by then anyway)."""
    hedge_after = call.hedge_after
    return SLOT_PATIENCE if hedge_after is None else min(SLOT_PATIENCE, hedge_after)


def _pause_asked(error: WebProviderError) -> float | None:
    """Seconds a vendor's answer holds the provider back for every caller: a 429's, or a
    503's (an outage, RFC 9110), Retry-After. A site's, read URL by URL, holds back only that
    call's retry."""
    if error.failures is not None or not (error.code == "rate_limited" or error.status_code == 503):
        return None
    return error.retry_after


async def _check_pause(name: str, state: DispatchState) -> None:
    """In a chain or fusion, a provider paused by a 429's or 503's Retry-After is skipped
    rather than waited for."""
    paused = await state.limits.paused_for(name)
    if paused > 0:
        raise Skipped(
            RateLimitedError(
                f"{name} asked for a pause (Retry-After); {paused:.1f} s are left.", provider=name, retry_after=paused
            ),
            waitable=True,
        )


async def _upstream(call: Call, entry: ProviderEntry, failover: bool) -> dict[str, Any]:
    """Requests to one provider: cool-downs, budget, retries with back-off, health bookkeeping."""
    name = entry.manifest.name
    state: DispatchState = call.state  # type: ignore[assignment]
    cooling = state.health.cooling(name)
    if cooling is not None:
        raise Skipped(_cooling_error(name, cooling))
    try:
        return await _requests(call, entry, failover)
    except BaseException:
        # This call may have been the trial after a cool-down and left without an answer that
        # says anything of the provider (its budget or a pause refused it, it was cancelled):
        # the next caller tries, rather than every caller skipping it for PROBE_TIMEOUT.
        state.health.end_trial(name)
        raise


async def _requests(call: Call, entry: ProviderEntry, failover: bool) -> dict[str, Any]:
    """Requests to one provider: budget, retries with back-off, health bookkeeping."""
    name = entry.manifest.name
    state: DispatchState = call.state  # type: ignore[assignment]
    if failover and not state.limits.unlimited(name):
        await _check_pause(name, state)
    policy = state.retry_policy(name)
    meter: Meter = call.meter  # type: ignore[assignment]
    retry = 0
    # The failure the next try retries (None on the first try).
    failed: WebProviderError | None = None
    while True:
        try:
            spend = await meter.start(name, call.arguments)  # a budget refuses here, before anything is sent
        except (BudgetExceededError, BudgetStoreUnavailableError) as error:
            if failed is not None:  # the retry may not be paid for: the failure it was for is the call's
                _gave_up(state, name, failed)
                raise failed from None
            raise Skipped(error) from None
        started = asked = time.perf_counter()
        record = start_attempt()
        record.spend_more = meter.spending_more(spend)  # a later page is billed: it reserves its own cost
        sent = False
        try:
            if not state.limits.unlimited(name):
                if state.limits.rate(name) is not None:  # its slots are spaced as the vendor sees them
                    await set_up_first_request(entry, call.remaining())
                patience = _slot_patience(call) if failover else None
                await state.limits.acquire(name, call.remaining() - MIN_REQUEST_TIME, state.sleep, patience)
                record.pace = functools.partial(_next_slot, state, name)
            sent, asked = True, time.perf_counter()
            data, meta = await attempt(call, entry, record)
        except asyncio.CancelledError:  # a hedged chain took another answer (or the caller left)
            cancelled = Cancelled(f"The request to {name} was given up on.", provider=name)
            sent = sent and _went_out(record)
            if sent:
                call.unanswered.append(name)
            call.record(name, "cancelled", started, **meter.stop(spend, error=cancelled, sent=sent, further=record.further))
            state.health.failed(name, cancelled)  # not counted; it only ends a trial call
            raise
        except WebProviderError as error:
            if isinstance(error, BudgetExhaustedError) and (failover or not sent):
                meter.stop(spend, error=error, sent=False)
                if failed is not None:
                    # The retry has no slot in time: what the provider answered is the call's
                    # failure, as when no retry is left. Before, the call said the budget had
                    # no slot, hiding the vendor's 503, which never counted towards a cool-down.
                    _gave_up(state, name, failed)
                    raise failed from None
                # No slot soon (another provider is asked), or none before the deadline:
                # left out without a request, as a cooling provider is.
                state.health.failed(name, error)  # not counted; it only ends a trial call
                raise Skipped(error, waitable=failover) from None
            extra = {"retry": retry} if retry else {}
            sent = sent and _went_out(record) and not isinstance(error, HungRefusal)
            if sent:
                call.unanswered.append(name)
            stopped = meter.stop(spend, error=error, sent=sent, further=record.further)
            call.record(name, "error", started, error, **extra, **stopped)
            if isinstance(error, BudgetExhaustedError):
                state.health.failed(name, error)  # not counted; it only ends a trial call
                raise
            pause = _pause_asked(error)
            if pause:
                await state.limits.pause(name, pause)
            if failover and (error.code == "rate_limited" or pause):  # another provider is asked instead
                delay = None
            else:
                took = time.perf_counter() - asked  # the request's time, not its wait for a budget slot
                delay = policy.delay(retry, error, call.remaining(), repeating=record.repeats is not None, took=took)
            if delay is None:
                _gave_up(state, name, error)
                raise
            retry, failed = retry + 1, error
            await state.sleep(delay)
            continue
        later = record.later_failure
        if isinstance(later, WebProviderError):  # a later page's 429 or 503 asked every caller to wait
            pause = _pause_asked(later)
            if pause:
                await state.limits.pause(name, pause)
        cost = meter.stop(spend, data=data, further=record.further)
        if retry:
            call.record(name, "ok", started, retry=retry, **cost)
        else:
            call.record(name, "ok", started, **cost)
        state.health.succeeded(name)
        value = {"data": data, "meta": meta}
        if record.partial:  # only what was gathered in time (see context.warn): never cached
            value["partial"] = True
        return value


def _gave_up(state: DispatchState, name: str, error: WebProviderError) -> None:
    """Tell the provider's health how its last try failed, once no retry follows."""
    if error.failures is None:
        state.health.failed(name, error)
    else:  # it answered URL by URL: the pages failed, not the provider
        state.health.succeeded(name)


def _next_slot(state: DispatchState, name: str, max_wait: float) -> Awaitable[None]:
    """The slot a further request of an attempt takes (a paged search's next page): waited
    for within ``max_wait``, or refused as ``rate_limited``, as the first request's would be."""
    return state.limits.acquire(name, max_wait, state.sleep)


def serve(call: Call, entry: ProviderEntry, failover: bool = False) -> Awaitable[tuple[Any, dict[str, Any], bool]]:
    """One provider's answer, ``(data, provider_meta, cached)``, through the cache when on.

    Extract and crawl URLs are screened for this provider first (:mod:`.urlgate`): it is
    given only those it may fetch, and the refused ones join its answer in their places.
    ``failover`` says another provider could answer instead: a paused provider is skipped and
    a 429 (or a 503 that paused it) is not retried. The awaitable raises
    :class:`WebProviderError` (``Skipped`` when no request was spent).
    """
    call = hooks.for_provider(call)
    if call.capability == "search":
        return _serve_search(call, entry, failover)
    return _serve_screened(call, entry, failover)


async def _serve_search(call: Call, entry: ProviderEntry, failover: bool) -> tuple[Any, dict[str, Any], bool]:
    await _checked(call, entry, failover)
    return await _serve(call, entry, failover)


async def _serve_screened(call: Call, entry: ProviderEntry, failover: bool) -> tuple[Any, dict[str, Any], bool]:
    # The hooks run first: a URL a hook wrote (an address rewritten, a mirror put in) is
    # screened as the caller's are, and a refused one never reaches the provider.
    await _checked(call, entry)
    try:
        screened = await urlgate.screen(call, entry)
    except WebProviderError as error:
        call.attempts.append(
            {"provider": entry.manifest.name, "outcome": "skipped", "error_code": error.code, "reason": error.message}
        )
        raise
    try:
        data, meta, cached = await _serve(screened.view(call), entry, failover)
    except WebProviderError as error:
        raise screened.merge_failures(error) from None
    return screened.merge(data), meta, cached


async def _checked(call: Call, entry: ProviderEntry, failover: bool = False) -> None:
    """Policy hooks and option checks, once per provider (a cache hit included); an option
    refused (``web.on_unsupported: error``) is recorded as this provider's attempt. With
    ``failover`` the provider is skipped instead: another provider may honour the option."""
    await hooks.before(call, entry)
    try:
        _option_warnings(call, entry)
    except WebProviderError as exc:
        if failover:
            raise Skipped(exc) from None
        call.record(entry.manifest.name, "error", time.perf_counter(), exc)
        raise


async def _serve(call: Call, entry: ProviderEntry, failover: bool) -> tuple[Any, dict[str, Any], bool]:
    """The answer through the cache when on (the hooks have run)."""
    name = entry.manifest.name
    state: DispatchState = call.state  # type: ignore[assignment]
    cache = state.cache
    cacheable = (
        cache is not None and call.use_cache and entry.manifest.cache
        and not carries_credential(call.capability, call.arguments)
    )
    ttl = cache.ttl_for(call.capability) if cacheable else 0.0  # type: ignore[union-attr]
    key = None
    if ttl:
        setup = provider_setup(state.config_setup(entry.manifest, call.capability), entry.manifest.env)
        key = cache_key(call.capability, name, call.arguments, setup)
    if key is None:
        value = await _upstream(call, entry, failover)
        return value["data"], value["meta"], False
    started = time.perf_counter()
    fetched = False
    account: dict[str, Any] = {}

    async def fetch() -> dict[str, Any]:
        nonlocal fetched
        fetched = True
        value = await _upstream(call, entry, failover)
        meta = value["meta"]
        account.update((field, meta.pop(field)) for field in ACCOUNT_META.intersection(meta))
        return value

    try:
        value, cached = await cache.get_or_fetch(  # type: ignore[union-attr]
            key, ttl, fetch, call.remaining,
            keep=lambda value: not value.get("partial") and worth_keeping(value["data"]),
            own=callers_own,
            scope=lambda: key_scope(key, call.config.provider(name).api_keys(), entry.manifest.env),
        )
    except WebProviderError as error:
        if not fetched:  # another caller's identical request failed (it is ours too), or our time ran out waiting
            call.record(name, "error", started, error, **({} if callers_own(error) else {"shared": True}))
        raise
    if cached:
        call.record(name, "ok", started, cached=True)
    elif account:  # this call's own request: what the vendor said of the account is its to show
        value["meta"].update(account)
    return value["data"], value["meta"], cached


#: Fields of a provider's ``meta`` about the account that asked (Kagi's prepaid ``api_balance``),
#: not about the answer: each request's own, never cached nor shared with identical calls. A hit
#: showed the balance as it was when the answer was stored, and, from a store shared by several
#: tenants, another tenant's balance.
ACCOUNT_META = frozenset({"api_balance"})


def callers_own(error: Exception) -> bool:
    """Whether a failure belongs to the call that met it rather than to the provider: no
    request was sent (a budget refused it, a cool-down or pause left the provider out), or
    the call's own deadline cut it short. Identical calls waiting on it ask again themselves;
    what the provider answered, they share."""
    if isinstance(error, (Skipped, BudgetExhaustedError)):
        return True
    return isinstance(error, WebTimeoutError) and error.detail == CALL_DEADLINE


def worth_keeping(data: Any) -> bool:
    """Whether an answer is cached. Not an extract where some URL failed (the failure may be
    transient), and not a search that found nothing: keyless engines answer a rate limit or a
    bot check with an empty page, and a cached one would outlast the engine's recovery."""
    if isinstance(data, dict):
        return bool(data.get("web"))
    return not (isinstance(data, list) and any(isinstance(item, dict) and item.get("error") for item in data))


