"""A budgeted provider's first request in a process, set up before its slot is taken.

A request budget (``rate_limit: 1/s``) promises requests at most that often at the vendor.
A process's first request also loads the vendor HTTP stack, the TLS trust store, the loop's
lock backend and what the provider sets up itself (``WebSearchProvider.set_up``: an SDK, a
worker process), 0.3-0.8 s on a busy machine: done after the slot was taken, it sent the
first request that much past its slot while the second went out on time, so the vendor saw
the two closer together than the budget allows. Done before, it is no part of the interval;
later calls find it done and skip it.
"""

from __future__ import annotations

from ..offloop import import_off_loop
from ..registry.registration import ProviderEntry
from . import runner

#: Every vendor request is sent through it (httpx and the library's vendor clients).
_HTTP_STACK = "webproviders.kit.http"
#: Providers whose first request has been set up in this process.
_ready: set[str] = set()


async def set_up_first_request(entry: ProviderEntry, timeout: float) -> None:
    """Load, off the event loop, what ``entry``'s first request would load once its slot was
    taken; at once after the first time. A failure here is left to the request, which meets
    it again and says what it is. The provider's own ``set_up()`` is plugin code, run as its
    requests are: for at most ``timeout`` seconds (what is left of the call), abandoned then,
    and a ``def`` one on a worker thread."""
    name = entry.manifest.name
    if name in _ready:
        return
    try:
        provider = entry.provider
        await import_off_loop(_HTTP_STACK)
        from ..vendorhttp.clients import ready_to_send

        ready_to_send()
        await runner.call(provider.set_up, timeout=timeout)  # its own: an SDK to load, a worker to start
    except Exception:  # noqa: BLE001 - see above (the request then meets the deadline itself)
        return
    _ready.add(name)
