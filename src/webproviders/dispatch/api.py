"""``dispatch_search`` / ``dispatch_extract`` / ``dispatch_crawl`` and their async twins.

Each call validates its input, resolves a plan, tries the planned providers under one
deadline, normalises what comes back and returns an envelope. Nothing a caller or a
provider can do wrong raises out of here: it becomes a failure envelope.

Every provider gets the dependable layer for free: cached answers with single flight,
request budgets, retries of transient failures, cool-downs for failing providers, failover
along a chain and rank fusion (see ``docs/dependable-dispatch.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Coroutine
from typing import Any

from .. import context
from ..accounting.meter import Meter
from ..config import BackendSpec, Config
from ..envelope import failure
from ..errors import UnsupportedError, to_provider_error
from ..fetching.urlsafety import resolution_scope
from ..manifest import Capability
from ..pools import NoThread
from ..registry.providers import ready_registry
from . import runner
from .call import Call, could_not_start, never_started, prepare
from .chain import run_plan
from .hooks import after, after_on_loop, observed
from .per_url import mask_urls, merge_set_aside
from .serve import Cancelled

_UNSCOPED = contextlib.nullcontext()


async def _execute(call: Call) -> dict[str, Any]:
    """Run a prepared call's plan under its deadline.

    An extract or crawl resolves each host name once for the whole call (its URL screen and
    its fetches share the answers); a search screens no URL, and a provider that fetches
    resolves its hosts once per fetch (:func:`webproviders.kit.fetch`).
    """
    call.warnings = context.start_call(call.deadline, call.state.clients)  # type: ignore[union-attr]
    meter: Meter = call.meter  # type: ignore[assignment]
    with meter.observe(), (_UNSCOPED if call.capability == "search" else resolution_scope()):
        try:
            envelope = await run_plan(call, call.plan)  # type: ignore[arg-type]
        except asyncio.CancelledError:
            # The caller left: what its requests spent was still spent, and the ledger (from
            # which a restarted process reads its budgets) must say so. No envelope goes out.
            left = Cancelled("The caller cancelled the call.", provider=None)
            meter.finish(failure(left, None, call.meta(None)))
            raise
        except Exception as exc:  # noqa: BLE001
            error = to_provider_error(exc, None)
            envelope = failure(error, error.provider, call.meta(None))
        if call.set_aside:
            merge_set_aside(envelope, call.set_aside)
        if call.capability != "search":
            mask_urls(envelope)
        meter.finish(envelope)
    await after_on_loop(call, envelope)
    return envelope


async def _dispatch(
    capability: Capability,
    arguments: dict[str, Any],
    backend: BackendSpec | None,
    config: Config | None,
    timeout: float | None,
    mode: str | None = None,
    cache: bool = True,
    tags: Any = None,
    hedge_after: Any = None,
) -> dict[str, Any]:
    how = (capability, arguments, backend, config, timeout, mode, cache, tags, hedge_after)
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # awaited under another event loop (trio): asyncio's is not there
        return await _outside_asyncio(how)
    # Loading code (the config, the registry, a plugin whose register() may take seconds) or
    # asking a provider's is_available() would stop the caller's event loop: a call that
    # needs it prepares on a worker thread. Once everything it uses is loaded and known,
    # a call prepares on the loop (microseconds).
    done, prepared = (False, None) if ready_registry(config) is None else runner.unless_plugin_code(prepare, *how)
    if not done or prepared is None:
        try:
            prepared = await runner.off_loop(prepare, *how)
        except NoThread as exc:
            return never_started(could_not_start(exc), backend)
    if isinstance(prepared, dict):
        await observed()
        return prepared
    if _ANYIO_ASYNCIO in sys.modules:  # a caller may be inside an anyio cancel scope
        return await _cancelled_once(_execute(prepared))
    return await _execute(prepared)


#: Loaded once anything runs under anyio on asyncio, the only way the level-triggered
#: cancellation :func:`_cancelled_once` guards against reaches a call (plain asyncio callers
#: do not pay for the extra task).
_ANYIO_ASYNCIO = "anyio._backends._asyncio"


#: Calls whose caller left while they unwind (a task is kept only while it runs).
_unwinding: set[asyncio.Task[Any]] = set()


async def _cancelled_once(work: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    """``await work`` in a task of its own, which a caller's cancellation cancels once.

    An anyio cancel scope (an MCP server's cancelled request, a ``move_on_after``) cancels
    the task inside it again at every await until it leaves the scope, so the awaits of the
    call's own clean-up (closing a half-read connection) were cancelled in turn and the
    connection stayed open. Here the call unwinds as asyncio cancels: once, to its end.
    The caller waits for that end, as for a call awaited in its own task: else a caller
    that went on and closed its loop (``run_until_complete(wait_for(...))`` then ``close()``)
    left the call's clean-up unrun, its connection open and its ledger row unwritten.
    """
    task = asyncio.ensure_future(work)
    _unwinding.add(task)
    task.add_done_callback(_unwound)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        cancelling = getattr(task, "cancelling", None)  # Python 3.11 on
        if cancelling is None or not cancelling():  # not cancelled with it (asyncio.run cancelling every task)
            task.cancel()  # a second cancel would cut short the provider's time to unwind
        while not task.done():  # an anyio scope cancels this wait again at every turn
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait((task,))
        raise


def _unwound(task: asyncio.Task[Any]) -> None:
    _unwinding.discard(task)
    if not task.cancelled():
        task.exception()  # taken: a caller who left is not told of it, nor is the log


async def _outside_asyncio(how: tuple[Any, ...]) -> dict[str, Any]:
    """A call awaited under trio (directly, or through anyio) runs on this library's
    background loop and is awaited from trio without a thread of its own: in one of trio's
    worker threads (40 by default) each, the 41st of many calls at once waited for a thread
    past its own deadline. A trio cancel scope (``move_on_after``) lets go of the call at
    once, and the call is cancelled on its loop. Under any other framework it is an
    ``unsupported`` envelope, never an exception."""
    if runner.inside_trio():
        trio = sys.modules["trio"]
        token = trio.lowlevel.current_trio_token()
        answered = trio.Event()

        def wake(_: Any) -> None:
            with contextlib.suppress(trio.RunFinishedError):  # the trio program has ended
                token.run_sync_soon(answered.set)

        try:
            future = runner.started_outside_trio(_dispatch(*how))
        except runner.NoLoop as exc:
            return never_started(could_not_start(exc), how[2])
        future.add_done_callback(wake)
        try:
            await answered.wait()
        except BaseException:  # trio's Cancelled, or Ctrl-C: the caller left, so does its call
            future.cancel()
            raise
        return future.result()
    return never_started(
        UnsupportedError(
            "This call was awaited outside asyncio and trio, the event loops it can run under; "
            "call it from one of them, or call the sync dispatch_* function instead."
        ),
        how[2],
    )


def _dispatch_sync(
    capability: Capability,
    arguments: dict[str, Any],
    backend: BackendSpec | None,
    config: Config | None,
    timeout: float | None,
    mode: str | None = None,
    cache: bool = True,
    tags: Any = None,
    hedge_after: Any = None,
) -> dict[str, Any]:
    prepared = prepare(capability, arguments, backend, config, timeout, mode, cache, tags, hedge_after)
    if isinstance(prepared, dict):
        return prepared
    try:
        return runner.run_sync(_execute(prepared))
    except (runner.NoLoop, NoThread) as exc:  # nothing was sent: no provider is to blame
        envelope = failure(could_not_start(exc), None, prepared.meta(None))
        after(prepared, envelope)
        return envelope


async def adispatch_search(
    query: str,
    limit: int = 5,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    tags: dict[str, Any] | None = None,
    hedge_after: float | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Search the web; returns ``{"success": True, "data": {"web": [...]}, ...}`` or a failure.

    ``mode="fuse"`` queries the resolved providers at once and merges their rankings;
    ``hedge_after`` (seconds, else ``web.hedge_after``) also starts a chain's next provider
    when the current one has been silent that long, and the first answer wins;
    ``cache=False`` neither reads nor writes the answer cache. ``tags`` (e.g.
    ``{"user": "alice"}``) label the call in the usage ledger and select per-tag budgets;
    they are never sent to a provider.
    """
    arguments = {"query": query, "limit": limit, "options": options}
    return await _dispatch("search", arguments, backend, config, timeout, mode, cache, tags, hedge_after)


async def adispatch_extract(
    urls: str | list[str],
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    tags: dict[str, Any] | None = None,
    hedge_after: float | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Read pages as markdown; one item per URL, a failed URL is an item with ``error``."""
    arguments = {"urls": urls, "options": kwargs}
    return await _dispatch("extract", arguments, backend, config, timeout, mode, cache, tags, hedge_after)


async def adispatch_crawl(
    url: str,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    tags: dict[str, Any] | None = None,
    hedge_after: float | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Crawl a site from ``url``; returns the pages found, in discovery order."""
    arguments = {"url": url, "options": kwargs}
    return await _dispatch("crawl", arguments, backend, config, timeout, mode, cache, tags, hedge_after)


def dispatch_search(
    query: str,
    limit: int = 5,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    tags: dict[str, Any] | None = None,
    hedge_after: float | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Sync twin of :func:`adispatch_search`; safe inside a running event loop."""
    arguments = {"query": query, "limit": limit, "options": options}
    return _dispatch_sync("search", arguments, backend, config, timeout, mode, cache, tags, hedge_after)


def dispatch_extract(
    urls: str | list[str],
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    tags: dict[str, Any] | None = None,
    hedge_after: float | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Sync twin of :func:`adispatch_extract`."""
    arguments = {"urls": urls, "options": kwargs}
    return _dispatch_sync("extract", arguments, backend, config, timeout, mode, cache, tags, hedge_after)


def dispatch_crawl(
    url: str,
    *,
    backend: BackendSpec | None = None,
    config: Config | None = None,
    timeout: float | None = None,
    mode: str | None = None,
    cache: bool = True,
    tags: dict[str, Any] | None = None,
    hedge_after: float | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Sync twin of :func:`adispatch_crawl`."""
    arguments = {"url": url, "options": kwargs}
    return _dispatch_sync("crawl", arguments, backend, config, timeout, mode, cache, tags, hedge_after)
