"""The long-lived HTTP clients vendor requests go through, and their one owner.

An :class:`HTTPClients` keeps one ``httpx.AsyncClient`` per event loop and per provider
configuration (its body cap, the User-Agent, the proxy, a scraper's client options), each on
a :class:`~webproviders.vendorhttp.transport.VendorTransport`, and reuses them from call to
call so connections stay open. A sync dispatch call runs on its thread's own loop, so it
uses that loop's clients: vendor I/O is always awaited, which is what lets the deadline cut
any wait short. The dispatcher keeps one owner per registry (in its dispatch state)
and hands it to each call through :mod:`webproviders.context`; code that runs outside a
dispatch call (a script calling a provider method directly) uses one process-wide owner.
The TLS context and the proxy environment are read when an owner makes its first client,
and again after it is closed.

:func:`close` / :func:`aclose` (``webproviders.close()`` / ``webproviders.aclose()``) close
every owner's clients; an owner is also a context manager, for code that wants explicit
lifetimes. A closed owner stays usable: the next request opens new connections.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from collections.abc import Mapping
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

import httpx

from .. import context
from ..asynctimeout import within
from ..config import VENDOR_MAX_BYTES, Config, user_agent
from ..fetching.pinning import http2_available, trusted_tls
from ..loopend import LoopEnd
from .proxies import ProxyRoutes, read_environment
from .transport import VendorTransport
from .urlauth import URLCredentials

#: Waits when a request names none: 10 s to connect, 30 s for the rest (httpx's phases; the
#: whole request is bounded by the longest of them, see :mod:`.transport`).
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
#: Connections per client (one client per loop and provider configuration).
DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)
#: Client options the owner sets itself: they decide where requests go and how answers are read.
OWNED_OPTIONS = frozenset({"transport", "mounts", "proxy", "verify", "cert", "http2", "limits", "trust_env"})
#: Seconds :func:`close` waits for clients of a loop running in another thread to close.
CLOSE_WAIT = 5.0


class _Same:
    """An option value that cannot be hashed (a hooks dict), compared by identity."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value


def _option_key(value: Any) -> Any:
    """An option value as part of a client's key: itself, or its identity when it cannot be hashed."""
    try:
        hash(value)
    except TypeError:
        return _Same(value)
    return value


@dataclass(frozen=True)
class ClientSpec:
    """What sets one vendor client apart from another."""

    provider: str | None
    user_agent: str
    proxy: str | None
    max_bytes: int
    options: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, config: Config | None, provider: str | None = None, options: Mapping[str, Any] | None = None) -> ClientSpec:
        """The spec for ``provider``'s requests under ``config`` (``options`` are httpx client options)."""
        owned = OWNED_OPTIONS.intersection(options or ())
        if owned:
            raise TypeError(f"{', '.join(sorted(owned))}: set by the library for every vendor client")
        cap = config.provider(provider).answer_cap() if config is not None and provider else VENDOR_MAX_BYTES
        return cls(
            provider,
            user_agent(config),
            config.web.proxy if config is not None else None,
            cap,
            tuple(sorted((key, _option_key(value)) for key, value in (options or {}).items())),
        )


@dataclass
class _Entry:
    client: httpx.AsyncClient
    transport: VendorTransport


@dataclass
class _LoopClients:
    """One event loop's clients, and the thread that made them (whose idle loop it is).

    They are closed once: by the owner, or as their loop shuts down (``end``), which also
    lets go of them."""

    thread: int
    entries: dict[ClientSpec, _Entry] = field(default_factory=dict)
    end: LoopEnd | None = None

    async def aclose(self) -> None:
        if self.end is None:
            await self.close_clients()
        else:
            await self.end.run()

    async def close_clients(self) -> None:
        await asyncio.gather(*(entry.client.aclose() for entry in self.entries.values()), return_exceptions=True)

    def forget(self) -> None:
        """Their loop is closed: the connections went with it."""
        if self.end is not None:
            self.end.forget()


class HTTPClients:
    """The one owner of the vendor clients of a registry (or of code outside dispatch)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClients] = weakref.WeakKeyDictionary()
        self._environment: dict[str, str] | None = None
        _owners.add(self)

    def client(self, spec: ClientSpec) -> httpx.AsyncClient:
        """The running loop's client for ``spec``, made on first use."""
        return self._entry(spec).client

    def transport(self, spec: ClientSpec) -> VendorTransport:
        """The transport under :meth:`client`, lent to the clients SDKs get (:mod:`webproviders.kit.sdkhttp`)."""
        return self._entry(spec).transport

    def _entry(self, spec: ClientSpec) -> _Entry:
        loop = asyncio.get_running_loop()
        clients = self._loops.get(loop)
        if clients is None:
            clients = self._clients_of(loop)
        entry = clients.entries.get(spec)
        if entry is None:
            entry = clients.entries[spec] = self._build(spec)
        return entry

    def _clients_of(self, loop: asyncio.AbstractEventLoop) -> _LoopClients:
        """The running loop's clients, new ones closed and let go of as the loop shuts down."""
        with self._lock:
            clients = self._loops.get(loop)
            if clients is not None:
                return clients
            # Loops closed without shutting down (loop.close() alone): nothing to run on.
            closed = [self._loops.pop(old) for old in list(self._loops) if old.is_closed()]
            clients = self._loops[loop] = _LoopClients(threading.get_ident())
        for gone in closed:
            gone.forget()

        async def ended() -> None:
            with self._lock:
                if self._loops.get(loop) is clients:
                    del self._loops[loop]
            await clients.close_clients()

        clients.end = LoopEnd(ended)
        return clients

    def _build(self, spec: ClientSpec) -> _Entry:
        """A client for ``spec``; the proxy environment is read for the first."""
        with self._lock:
            if self._environment is None:
                self._environment = read_environment()
            environment = self._environment
        transport = VendorTransport(
            routes=ProxyRoutes.build(spec.proxy, environment),
            tls=trusted_tls(),
            max_bytes=spec.max_bytes,
            provider=spec.provider,
            http2=http2_available(),
            limits=DEFAULT_LIMITS,
        )
        return _Entry(httpx.AsyncClient(transport=transport, **_client_options(spec)), transport)

    def _take(self) -> list[tuple[asyncio.AbstractEventLoop, _LoopClients]]:
        """Every client, handed over for closing; the owner starts afresh."""
        with self._lock:
            taken = list(self._loops.items())
            self._loops.clear()
            self._environment = None
        return taken

    def close(self) -> None:
        """Close every client. Clients of a loop running in another thread are closed there
        (waited for up to :data:`CLOSE_WAIT` s); those of another thread's idle loop when it
        next runs. In async code prefer :meth:`aclose`."""
        for loop, clients in self._take():
            _close_on(loop, clients)

    async def aclose(self) -> None:
        """Close every client; the running loop's are closed before this returns."""
        here = asyncio.get_running_loop()
        for loop, clients in self._take():
            if loop is here:
                await clients.aclose()
            elif loop.is_running():
                waiting = asyncio.run_coroutine_threadsafe(clients.aclose(), loop)
                try:
                    await within(asyncio.wrap_future(waiting), CLOSE_WAIT)
                except asyncio.TimeoutError:
                    pass
            else:
                _close_on(loop, clients)

    async def aclose_loop(self) -> None:
        """Close the running loop's clients only (the loop is about to be closed)."""
        with self._lock:
            clients = self._loops.pop(asyncio.get_running_loop(), None)
        if clients is not None:
            await clients.aclose()

    def __enter__(self) -> HTTPClients:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> HTTPClients:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _client_options(spec: ClientSpec) -> dict[str, Any]:
    """httpx client options for ``spec``: our User-Agent and timeouts, then its own options."""
    options: dict[str, Any] = {
        "headers": {"User-Agent": spec.user_agent},
        "timeout": DEFAULT_TIMEOUT,
        "trust_env": False,  # the transport reads the proxy environment; .netrc is never read
        "auth": URLCredentials(spec.provider),
    }
    options.update((key, value.value if isinstance(value, _Same) else value) for key, value in spec.options)
    return options


#: Closings started on a loop that could not be waited for (kept until they finish).
_closing: set[asyncio.Future[Any]] = set()


def _close_on(loop: asyncio.AbstractEventLoop, clients: _LoopClients) -> None:
    """Close ``clients`` on their own loop, from sync code."""
    if loop.is_closed():
        clients.forget()
        return
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if loop.is_running() and loop is not running:
        try:
            asyncio.run_coroutine_threadsafe(clients.aclose(), loop).result(CLOSE_WAIT)
        except FutureTimeout:
            pass
    elif running is None and clients.thread == threading.get_ident():
        loop.run_until_complete(clients.aclose())  # this thread's own idle loop
    else:
        loop.call_soon_threadsafe(_start_closing, loop, clients)


def _start_closing(loop: asyncio.AbstractEventLoop, clients: _LoopClients) -> None:
    task = loop.create_task(clients.aclose())
    _closing.add(task)
    task.add_done_callback(_closing.discard)


#: Every owner alive, so that :func:`close` reaches them all.
_owners: weakref.WeakSet[HTTPClients] = weakref.WeakSet()
_outside: HTTPClients | None = None
_outside_lock = threading.Lock()


def _forget_locks() -> None:
    """In a forked child: a lock held by one of the parent's threads as it forked (making the
    first client reads the proxy environment) stays held in the child, where no thread will
    let go of it, and every vendor request of the child waited on it for good, past its
    deadline. Each owner gets a new lock and reads the proxy environment again, which that
    thread may have left half set (the TLS contexts' lock: :mod:`..fetching.pinning`)."""
    global _outside_lock
    _outside_lock = threading.Lock()
    for owner in list(_owners):
        owner._lock = threading.Lock()
        owner._environment = None

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks)


def current() -> HTTPClients:
    """The owner for the running code: the dispatch call's, else the one for code outside dispatch."""
    owner = context.call_clients()
    if owner is not None:
        return owner  # type: ignore[return-value]
    global _outside
    if _outside is None:
        with _outside_lock:
            if _outside is None:
                _outside = HTTPClients()
    return _outside


def ready_to_send() -> None:
    """Load, on the running loop, what a client's first request would load as it goes out:
    the TLS trust store, and the backend of the locks httpcore's pools take (anyio's)."""
    import anyio  # httpx's own dependency, loaded with it

    trusted_tls()
    anyio.Event()


def close() -> None:
    """Close every vendor client the library holds (see :meth:`HTTPClients.close`)."""
    for owner in list(_owners):
        owner.close()


async def aclose() -> None:
    """Close every vendor client the library holds, awaiting those of the running loop."""
    for owner in list(_owners):
        await owner.aclose()


async def aclose_loop_clients() -> None:
    """Close every owner's clients of the running loop (the loop is about to be closed)."""
    for owner in list(_owners):
        await owner.aclose_loop()


__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_TIMEOUT",
    "ClientSpec",
    "HTTPClients",
    "aclose",
    "aclose_loop_clients",
    "close",
    "current",
    "ready_to_send",
]
