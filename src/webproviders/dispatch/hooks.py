"""The dispatch hooks plugins implement (``before_dispatch``, ``after_dispatch``), bounded by
the call's deadline.

A hook is plugin code that may block: a policy asked over the network, a log shipped to a
server. Run on the caller's thread, one that hung held the call past its deadline, and on
an event loop every other call on that loop with it. Each runs on a thread of the hooks' own
pools (:data:`_threads`, :data:`_observers`) and is waited for until the call's deadline at most (an
``after_dispatch`` hook, which only observes, for :data:`AFTER_WAIT` at most); one still
running then is left to finish on its own, and the call answers in time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import dataclasses
import functools
import os
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..asynctimeout import within
from ..errors import (
    ERROR_CODES,
    InvalidInputError,
    ProviderError,
    WebProviderError,
    WebTimeoutError,
    to_provider_error,
)
from ..pools import LazyPool
from ..redact import get_logger, mask_url, scrub
from ..registry.providers import Registry, context_for_thread, on_callers_loop
from ..registry.registration import ProviderEntry
from .call import Call, validate_arguments

log = get_logger("webproviders.dispatch")

#: The hooks' own threads: never queued behind sync provider calls or a call's preparation.
_threads = LazyPool(16, "webproviders-hooks")
#: The ``after_dispatch`` hooks' threads, apart: observers left running past their wait (a log
#: server that stopped answering) hold these, never a thread a ``before_dispatch`` hook needs.
_observers = LazyPool(16, "webproviders-after-hooks")

#: Seconds an answer waits at most for its ``after_dispatch`` hooks (and never past the call's
#: deadline). They observe, and a call's answer does not depend on them: one that hangs (a log
#: server that stopped answering) costs each call this long, not the rest of its time.
AFTER_WAIT = 1.0
#: ``after_dispatch`` runs started and not returned (running, or waiting for a thread) at most.
#: Each holds its call's envelope: with the observers hung (a log server that stopped answering)
#: the waiting ones grew without bound, a gigabyte in 300 calls of 4 MB pages. Past it an answer
#: goes out without them, said in a warning.
AFTER_BACKLOG = 64
_backlog = threading.BoundedSemaphore(AFTER_BACKLOG)
#: The ``after_dispatch`` hooks of a call refused as it was prepared on an async caller's
#: loop, for that caller to await (:func:`observed`).
_left: contextvars.ContextVar[Callable[[], Awaitable[None]] | None] = contextvars.ContextVar(
    "webproviders_refused_observers", default=None
)
#: The arguments each capability's call holds, which a ``before_dispatch`` hook may edit but not remove.
_ARGUMENTS = {"search": ("query", "limit", "options"), "extract": ("urls", "options"), "crawl": ("url", "options")}


def for_provider(call: Call) -> Call:
    """``call`` with arguments of its own for one provider, when a ``before_dispatch`` hook may
    edit them: what it writes for that provider is sent to that provider alone. Edited in
    place on the call, it reached the next provider of a chain (whose hooks then edited it
    again: a term appended for every provider was there twice) and the members of a fusion
    asked beside it."""
    if call.registry.hook("before_dispatch") is None:
        return call
    return dataclasses.replace(call, arguments=_copy(call.arguments))


async def before(call: Call, entry: ProviderEntry) -> None:
    """The ``before_dispatch`` hooks for one provider of the call (once per provider, a cache
    hit included). A refusal or failure is raised as this provider's error and recorded as
    its attempt; it is the hook's, never counted against the provider."""
    if call.registry.hook("before_dispatch") is None:
        return
    name = entry.manifest.name
    try:
        problem = await within(asyncio.wrap_future(_started(_edit, call, entry)), max(0.0, call.remaining()))
    except asyncio.TimeoutError:
        problem = WebTimeoutError(
            f"The before_dispatch hook of {call.registry.hook_plugins('before_dispatch')} had not "
            "returned by the call's deadline.",
            provider=name,
        )
    if problem is not None:
        problem.hook = "before_dispatch"  # a sentence about it must not blame the provider
        call.record(name, "error", time.perf_counter(), problem)
        raise problem


def _edit(call: Call, entry: ProviderEntry) -> WebProviderError | None:
    """Run the hooks (on a hook thread) and check what they left as the caller's input is
    checked: their mistake is not the provider's. Returns the call's failure, if any."""
    registry, name = call.registry, entry.manifest.name
    try:
        registry.hook("before_dispatch")(capability=call.capability, backend=name, arguments=call.arguments)
    except WebProviderError as exc:  # a policy's refusal, in its own words
        return _refusal(registry, name, exc)
    except BaseException as exc:  # noqa: BLE001 - a failing (or exiting) hook is an envelope
        return ProviderError(registry.hook_failure("before_dispatch", exc) + ".", provider=name)
    checked: dict[str, Any] = {}
    problem = _unshaped(call.capability, call.arguments)
    if problem is None:
        try:
            checked, _ = validate_arguments(call.capability, call.arguments)
        except InvalidInputError as exc:
            problem = exc.message
    if problem is not None:
        return ProviderError(
            f"The before_dispatch hook of {registry.hook_plugins('before_dispatch')} left the call's "
            f"arguments invalid: {problem}",
            provider=name,
        )
    call.arguments.update(checked)
    return None


def _refusal(registry: Registry, name: str, exc: WebProviderError) -> WebProviderError:
    """A hook's refusal in its own words and code; one the envelope cannot carry as raised (a
    code of the plugin's own, no words) is said as the hook's refusal: the provider's
    sentence ("stub failed: ...") named a provider that was never called."""
    hook = registry.hook_raiser("before_dispatch", exc)
    if exc.code not in ERROR_CODES:  # callers act on the documented codes only
        words = exc.message.strip()
        exc = ProviderError(
            f"{hook} refused the call with {type(exc).__name__} (error code '{exc.code}', which is not one of "
            f"the library's)" + (f": {words}" if words else "."),
            provider=name,
            detail=exc.detail,
        )
    elif not exc.message.strip():
        exc.message = f"{hook} refused the call ({exc.code}): it raised {type(exc).__name__} without a message."
    return to_provider_error(exc, name)


def _unshaped(capability: str, arguments: dict[str, Any]) -> str | None:
    """What a hook did to the arguments' shape that no check of a value would name: a key it
    removed, or ``options`` that are no longer a mapping (a ``KeyError`` in the library's code)."""
    missing = [key for key in _ARGUMENTS[capability] if key not in arguments]
    if missing:
        return f"it removed {', '.join(repr(key) for key in missing)}."
    options = arguments["options"]
    if not isinstance(options, dict):
        return f"'options' is a {type(options).__name__}, not a mapping of option names to values."
    return None


def after(call: Call, envelope: dict[str, Any]) -> None:
    """The ``after_dispatch`` hooks of a call refused before it ran: waited for
    :data:`AFTER_WAIT` at most, and not past the deadline. Refused as it was prepared on an
    async caller's loop, the call leaves them to :func:`observed`: waited for here, they held
    that loop, every call on it, for as long."""
    running = _observing(call, envelope)
    if running is None:
        return
    if on_callers_loop():
        _left.set(functools.partial(_awaited, call, running))
    elif not concurrent.futures.wait([running], _after_wait(call)).done:
        _not_waited(call)


async def observed() -> None:
    """Await the ``after_dispatch`` hooks :func:`after` left, if any, the caller's loop running on."""
    left = _left.get()
    if left is not None:
        _left.set(None)
        await left()


async def after_on_loop(call: Call, envelope: dict[str, Any]) -> None:
    """:func:`after` for a call that ran: the caller's loop runs on while the hooks do."""
    running = _observing(call, envelope)
    if running is not None:
        await _awaited(call, running)


async def _awaited(call: Call, running: concurrent.futures.Future[None]) -> None:
    done, _ = await asyncio.wait([asyncio.wrap_future(running)], timeout=_after_wait(call))
    if not done:
        _not_waited(call)


def _after_wait(call: Call) -> float:
    return max(0.0, min(AFTER_WAIT, call.remaining()))


def _observing(call: Call, envelope: dict[str, Any]) -> concurrent.futures.Future[None] | None:
    """The ``after_dispatch`` hooks started, when a loaded plugin has any. They observe: they
    are handed a copy, so what one changes (``success``, a key it removed, an object JSON
    cannot hold) never reaches the caller, nor does what it does once the caller has it."""
    registry = call.registry
    hook = registry.hook("after_dispatch")
    if hook is None:
        return None
    meter = call.meter
    cost = meter.total.as_dict() if meter is not None and registry.hook_takes("after_dispatch", "cost") else None
    arguments = {
        "capability": call.capability, "arguments": _shown(call.capability, call.arguments),
        "envelope": _copy(envelope), "config": call.config, "cost": cost,
    }

    backlog = _backlog
    if not backlog.acquire(blocking=False):
        log.warning(
            "The after_dispatch hook of %s was not called for this answer: %d runs of after_dispatch hooks "
            "(of any plugin) have not returned yet.",
            registry.hook_plugins("after_dispatch"),
            AFTER_BACKLOG,
        )
        return None

    def observe() -> None:
        try:
            hook(**arguments)
        except BaseException as exc:  # noqa: BLE001 - an observer (even one calling sys.exit()) must not break the call
            log.warning("%s.", registry.hook_failure("after_dispatch", exc))
        finally:
            backlog.release()

    return _started(observe, pool=_observers)


def _shown(capability: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A copy of the call's arguments as the envelope and the usage ledger show them: the
    credentials in its URLs masked and its query scrubbed. The observer was handed the URLs
    as asked (``user:password@``, ``?api_key=``) beside an envelope that masks them."""
    shown = _copy(arguments)
    if capability == "extract" and isinstance(shown.get("urls"), list):
        shown["urls"] = [mask_url(url) if isinstance(url, str) else url for url in shown["urls"]]
    elif capability == "crawl" and isinstance(shown.get("url"), str):
        shown["url"] = mask_url(shown["url"])
    elif capability == "search" and isinstance(shown.get("query"), str):
        shown["query"] = scrub(shown["query"])
    return shown


def _not_waited(call: Call) -> None:
    log.warning(
        "The after_dispatch hook of %s had not returned within %.1f s, or by the call's deadline; "
        "the answer went out without waiting for it.",
        call.registry.hook_plugins("after_dispatch"),
        AFTER_WAIT,
    )


def _started(fn: Callable[..., Any], *args: Any, pool: LazyPool = _threads) -> concurrent.futures.Future[Any]:
    """``fn(*args)`` started on a thread of ``pool``, in a copy of the caller's context; run
    here when no thread can be started (the process is at its limit: better late than never)."""
    try:
        return pool.executor().submit(context_for_thread().run, fn, *args)
    except RuntimeError:  # NoThread: the process is at its limit of threads
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        done.set_result(fn(*args))
        return done


def _forget_backlog() -> None:
    """In a forked child: the runs the parent's observers hold never return there."""
    global _backlog
    _backlog = threading.BoundedSemaphore(AFTER_BACKLOG)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_backlog)


def _copy(value: Any) -> Any:
    """An envelope's dicts and lists copied, its text and numbers shared: they cannot be
    changed in place, and a page of megabytes costs nothing to hand on."""
    kind = type(value)
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}
    if kind is list:
        return [_copy(item) for item in value]
    return value
