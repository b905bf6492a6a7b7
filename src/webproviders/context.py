"""Per-call context that provider code can read and write: the deadline, warnings, usage, and
the HTTP clients vendor requests go through.

Kept free of asyncio so that plugins importing ``warn`` stay cheap to load.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
from collections.abc import Awaitable, Callable

from .surrogates import sound

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "webproviders_deadline", default=None
)
_warnings: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "webproviders_warnings", default=None
)


class Usage:
    """What provider code reported one request used: units of some kind, and/or dollars.

    A mutable bucket rather than a context value, so a report made in a worker thread (which
    runs in a copy of the context) reaches the dispatcher. Reports are rare, so every bucket
    shares one lock: a request that reports nothing makes none.
    """

    __slots__ = ("unit", "units", "usd")

    def __init__(self) -> None:
        self.units: float | None = None
        self.unit: str | None = None
        self.usd: float | None = None

    def add(self, units: float | None, unit: str, usd: float | None) -> None:
        with _usage_lock:
            if units is not None:
                self.units = (self.units or 0.0) + units
                self.unit = unit
            if usd is not None:
                self.usd = (self.usd or 0.0) + usd


_usage: contextvars.ContextVar[Usage | None] = contextvars.ContextVar("webproviders_usage", default=None)
_usage_lock = threading.Lock()


#: What to do about a wait for a thread or a connection that took a call's time.
FEWER_CALLS = "Make fewer such calls at once, or give them more time."


class Queued:
    """A request's wait in this process before it could be sent (for a thread, a connection,
    the provider's code to load): why (``reason``, the ``detail`` a timeout it caused
    carries, and the ``advice`` it gives), how many ``seconds``, and whether it was ``sent``
    after it or given up on first. The time was this process's, not the provider's."""

    __slots__ = ("advice", "detail", "reason", "seconds", "sent")

    def __init__(self, reason: str, seconds: float, sent: bool, detail: str, advice: str = FEWER_CALLS) -> None:
        self.reason = reason
        self.seconds = seconds
        self.sent = sent
        self.detail = detail
        self.advice = advice


class Attempt:
    """What one request to a provider ran into that the dispatcher cannot see from outside.

    ``repeats`` is the ``detail`` of a failure that would only happen again if the request
    were retried: the vendor transport marks ``slow_answer`` when time ran out while a
    vendor's answer was still arriving (a vendor that drips its answer drips it again), the
    extraction pool ``cpu_limit`` when a page used up its CPU time. ``queued`` is the wait
    for a thread or a connection to send the request from, when every one was busy (:class:`Queued`).
    ``stalled`` says where a request stood when its time ran out short of the provider (a
    proxy that had not opened its tunnel), so the timeout names what kept it; ``reached``, that
    a request of the attempt got past that point to the vendor: one that ended stalled with
    none past it sent the vendor nothing, which bills nothing. ``partial``:
    the answer holds only what was gathered before time ran out or a later part failed (see
    :func:`warn`), so it is not cached. A
    mutable bucket, like :class:`Usage`, so that a mark made in a worker thread reaches the
    dispatcher.
    """

    __slots__ = (
        "further", "given_up", "later_failure", "pace", "partial", "queued", "reached", "repeats", "spend_more", "stalled",
        "warnings",
    )

    def __init__(self) -> None:
        self.partial = False
        self.repeats: str | None = None
        self.queued: Queued | None = None
        self.stalled: str | None = None
        self.reached = False
        #: What provider code said with :func:`warn` during the request (None once the
        #: dispatcher has taken it): it belongs to the answer, and is cached with it.
        self.warnings: list[str] | None = []
        #: The dispatcher no longer waits for the request (it failed, timed out or was
        #: cancelled): what its code says later reaches no one (see :func:`take_warnings`).
        self.given_up = False
        #: Waits (at most the seconds given) for the provider's next slot of its request
        #: budget, set by the dispatcher when the provider has one: what a further request of
        #: the attempt (a paged search's next page) takes, as its first request took one.
        self.pace: Callable[[float], Awaitable[None]] | None = None
        #: Reserves a further request's cost against the spending budgets, set by the
        #: dispatcher when the provider is priced per request and a budget applies: a paged
        #: search's later page costs a request more than the one its call reserved.
        self.spend_more: Callable[[], Awaitable[None]] | None = None
        #: How a further request failed that the answer went without (a paged search's next
        #: page): a 429's or 503's Retry-After in it holds the provider back for every caller,
        #: as the first request's would.
        self.later_failure: Exception | None = None
        #: Requests of the attempt after its first that were given their slot and sent (a
        #: paged search's later pages, an extract's requests per URL): each one the vendor
        #: counts, and ``webproviders.requests`` counts it too.
        self.further = 0


_attempt: contextvars.ContextVar[Attempt | None] = contextvars.ContextVar("webproviders_attempt", default=None)
#: Returns the owner of the HTTP clients the current call's vendor requests use
#: (:class:`webproviders.vendorhttp.clients.HTTPClients`, made on first use; typed loosely to keep
#: this module light).
_clients: contextvars.ContextVar[Callable[[], object] | None] = contextvars.ContextVar(
    "webproviders_clients", default=None
)


def remaining_time() -> float | None:
    """Seconds left before the current call's deadline (None outside a dispatch)."""
    deadline = _deadline.get()
    return None if deadline is None else max(0.0, deadline - time.monotonic())


#: Warnings one answer keeps, each held to :data:`.errors.MESSAGE_CHARS`: a plugin's warning
#: may quote megabytes of its vendor's text, or be said once per item of a long answer.
MAX_WARNINGS = 100


def warn(message: str, *, partial: bool = False) -> None:
    """Add a sentence to the current call's ``meta.warnings`` (providers call this).

    Said during a request, it is part of that request's answer: the answer is cached with
    it, and a cache hit says it again (an empty result that may be a rate limit stays one).
    ``partial=True`` says the answer is only what was gathered before the call's time ran out
    (a crawl stopped early) or a later part failed: it is not cached, since the same call
    with more time, or a moment later, gets the whole of it.
    """
    record = _attempt.get()
    if record is not None and record.given_up:
        return
    if partial and record is not None:
        record.partial = True
    bucket = record.warnings if record is not None and record.warnings is not None else _warnings.get()
    # A provider's sentence may quote its vendor's text; a plugin may pass the exception
    # itself, or a number: a warning is text, whatever was passed.
    from .errors import bounded  # loaded by then (a call's errors); listing providers loads no more

    message = bounded(sound(message if isinstance(message, str) else _as_text(message)))
    if bucket is None or message in bucket:
        return
    if len(bucket) < MAX_WARNINGS:
        bucket.append(message)
    elif len(bucket) == MAX_WARNINGS:
        bucket.append(f"More warnings were left out (at most {MAX_WARNINGS} are kept).")


def _as_text(value: object) -> str:
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - a __str__ that fails still leaves a warning
        return f"<{type(value).__name__}>"


def warn_call(message: str, *, once_for: str | None = None) -> None:
    """Add a sentence about the call itself, not about any answer (a store that is down), to
    its ``meta.warnings``: never cached with an answer. With ``once_for``, nothing is added
    when a sentence starting with it is there already (one line per store and call)."""
    bucket = _warnings.get()
    if bucket is None or message in bucket:
        return
    if once_for is not None and any(said.startswith(once_for) for said in bucket):
        return
    bucket.append(message)


def in_call() -> bool:
    """Whether the code running now belongs to a dispatch call (whose envelope carries its warnings)."""
    return _warnings.get() is not None


def take_warnings(record: Attempt, given_up: bool = False) -> list[str]:
    """What provider code said during ``record``'s request; later sentences go to the call.

    ``given_up``: the request ended without its answer (failed, timed out, cancelled), and its
    code may run on in a worker thread left behind; what that says later is dropped. Before,
    it went to the call's warnings, the very list of the envelope its caller already held."""
    said, record.warnings = record.warnings or [], None
    record.given_up = given_up
    return said


def _amount(value: float | None) -> float | None:
    """A reported quantity, or None when it is missing or not a finite number >= 0."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        amount = float(value)
    except OverflowError:  # an int beyond any float (a vendor's 400-digit figure): nonsense too
        return None
    return amount if math.isfinite(amount) and amount >= 0 else None


def report_usage(units: float | None = None, *, unit: str = "credit", usd: float | None = None) -> None:
    """Tell the dispatcher what the current request really used (providers call this).

    ``units`` of ``unit`` (e.g. ``report_usage(2, unit="credit")`` for a vendor that answered
    ``"credits": 2``) and/or ``usd`` when the vendor states the price itself. Reports add up
    within one request; a value that is not a finite number >= 0 is ignored. Outside a
    dispatch this does nothing.
    """
    bucket = _usage.get()
    if bucket is None:
        return
    counted, paid = _amount(units), _amount(usd)
    if counted is not None or paid is not None:
        # A unit named from a vendor's text may hold a lone surrogate, which the ledger
        # cannot store: the batch holding its row would be lost.
        bucket.add(counted, sound(str(unit)), paid)


def start_usage() -> Usage:
    """Start a fresh usage bucket for the request about to be sent (the dispatcher calls this)."""
    bucket = Usage()
    _usage.set(bucket)
    return bucket


def start_attempt() -> Attempt:
    """A fresh record for the request about to be sent (the dispatcher calls this)."""
    record = Attempt()
    _attempt.set(record)
    return record


async def next_request_slot(max_wait: float | None = None) -> None:
    """Wait for the current provider's next request slot before a further request of the
    same attempt (nothing to wait for without a request budget, or outside a dispatch).
    Raises :class:`~webproviders.errors.RateLimitedError` when the slot is more than
    ``max_wait`` seconds off (by default, when it lies past the call's deadline): a vendor
    counts every request against its limit. Raises :class:`~webproviders.errors.BudgetExceededError`
    (or ``BudgetStoreUnavailableError``) when its cost would take a spending budget over:
    the vendor bills every request too."""
    record = _attempt.get()
    if record is None:
        return
    if record.spend_more is not None:
        await record.spend_more()
    if record.pace is not None:
        if max_wait is None:
            max_wait = remaining_time() or 0.0
        await record.pace(max_wait)
    record.further += 1


def note_later_failure(error: Exception) -> None:
    """Record that a further request of the current attempt failed while the answer stands
    without it (see :class:`Attempt`); outside a dispatch this does nothing."""
    record = _attempt.get()
    if record is not None:
        record.later_failure = error


def note_repeating(detail: str | None) -> str | None:
    """Record that the current request met a failure that would happen again (see
    :class:`Attempt`), or with None that it did not after all; returns what was recorded before."""
    record = _attempt.get()
    if record is None:
        return None
    earlier, record.repeats = record.repeats, detail
    return earlier


def note_stalled(where: str | None) -> None:
    """Record where the current request stands, short of the provider, should its time run
    out there (see :class:`Attempt`); None once it has moved on."""
    record = _attempt.get()
    if record is not None:
        record.stalled = where


def stalled_at() -> str | None:
    """Where the current request stood short of the provider when it was last noted (see
    :func:`note_stalled`); None when it reached the provider, or outside a dispatch."""
    record = _attempt.get()
    return None if record is None else record.stalled


def note_reached() -> None:
    """Record that a request of the current attempt got past connecting (see :class:`Attempt`)."""
    record = _attempt.get()
    if record is not None:
        record.reached = True


def note_queued(reason: str, seconds: float, sent: bool, detail: str, advice: str = FEWER_CALLS) -> None:
    """Record that the current request waited in this process before it was sent (see :class:`Queued`).

    The longest wait is kept (a request sent after its SDK loaded for most of its time, then
    given a connection at once, waited for the SDK), unless this one ended with the request
    not sent at all."""
    record = _attempt.get()
    if record is None:
        return
    kept = record.queued
    if kept is None or not sent or seconds >= kept.seconds:
        record.queued = Queued(reason, seconds, sent, detail, advice)


def call_clients() -> object | None:
    """The owner of the current call's HTTP clients; None outside a dispatch call."""
    owner = _clients.get()
    return None if owner is None else owner()


def set_deadline(deadline: float) -> contextvars.Token[float | None]:
    """Make ``deadline`` the current call's; :func:`reset_deadline` with the token restores the last."""
    return _deadline.set(deadline)


def reset_deadline(token: contextvars.Token[float | None]) -> None:
    _deadline.reset(token)


def start_call(deadline: float, clients: Callable[[], object]) -> list[str]:
    """What a dispatch call sets for the provider code it runs: its deadline, the owner of its
    HTTP clients, and a fresh list of warnings (returned)."""
    _deadline.set(deadline)
    _clients.set(clients)
    bucket: list[str] = []
    _warnings.set(bucket)
    return bucket
