"""The Hermes Agent plugin (extra ``hermes``): our backends as Hermes web providers.

Hermes loads pip-installed plugins from the entry-point group ``hermes_agent.plugins`` once
they are named in its ``plugins.enabled``, and calls ``register(ctx)``. Ours registers, as
subclasses of Hermes' own ``WebSearchProvider``:

- each of Hermes' bundled web backends that one of ours serves, under Hermes' name
  (:data:`HERMES_BACKENDS`). A name registered again replaces Hermes' bundled provider, so
  its ``web_search`` / ``web_extract`` tools, which pick among Hermes' own backend names,
  run through our dispatch. Such a provider offers only what Hermes' provider of that name
  offers (Hermes' ``you`` is search-only, so ours is too under that name), with ``extract``
  and ``crawl`` sync or ``async`` as Hermes' own are;
- every other provider of ours under our own name (``web.backend: mojeek`` in Hermes'
  config), with all its capabilities and async ``extract`` / ``crawl``. Our ``local`` (the
  page index) is not registered: Hermes' ``local`` means a key-less page reader, which our
  ``http`` serves.

Calls use the library's process-wide configuration (``$WEBPROVIDERS_CONFIG`` or
``$XDG_CONFIG_HOME/webproviders/config.yaml``, ``~/.config`` by default); keys come from the environment as for any use of
the library. Hermes' package is imported only when ``register`` runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from ..redact import get_logger
from .hermes import HermesProvider

if TYPE_CHECKING:
    from ..manifest import Capability

log = get_logger("webproviders.hermes")


@dataclass(frozen=True)
class HermesBackend:
    """One of Hermes' bundled web backends: which of ours serves it, and what Hermes' own does."""

    ours: str
    capabilities: frozenset[str]
    #: Whether Hermes' own ``extract`` / ``crawl`` are coroutine functions.
    asynchronous: bool = False


def _backend(ours: str, *capabilities: str, asynchronous: bool = False) -> HermesBackend:
    return HermesBackend(ours, frozenset(capabilities), asynchronous)


#: Hermes' bundled web backends (its ``plugins/web/<name>``) that one of ours serves.
HERMES_BACKENDS: dict[str, HermesBackend] = {
    "brave-free": _backend("brave-free", "search"),
    "ddgs": _backend("ddgs", "search"),
    "searxng": _backend("searxng", "search"),
    "exa": _backend("exa", "search", "extract"),
    "perplexity": _backend("perplexity", "search"),
    "parallel": _backend("parallel", "search", "extract", asynchronous=True),
    "tavily": _backend("tavily", "search", "extract", "crawl"),
    "firecrawl": _backend("firecrawl", "search", "extract", "crawl", asynchronous=True),
    "xai": _backend("xai", "search"),
    "you": _backend("you", "search"),
    "linkup": _backend("linkup", "search", "extract"),
    "serper": _backend("serper", "search"),
    "crawl4ai": _backend("crawl4ai", "extract"),
    "local": _backend("http", "extract"),
}
#: Our providers that are not registered under their own name in Hermes (the name means
#: something else there).
NOT_REGISTERED = frozenset(
    name for name, backend in HERMES_BACKENDS.items() if backend.ours != name
)


def registrations(ours: list[str]) -> dict[str, HermesBackend]:
    """What to register in Hermes: its names first, then each of ``ours`` not already there."""
    plan = dict(HERMES_BACKENDS)
    for name in ours:
        if name not in plan and name not in NOT_REGISTERED:
            plan[name] = _backend(name, "search", "extract", "crawl", asynchronous=True)
    return plan


@cache
def provider_classes() -> tuple[type, type]:
    """``(sync, async)`` provider classes built on Hermes' ``WebSearchProvider``."""
    from agent.web_search_provider import WebSearchProvider

    class WebprovidersBackend(WebSearchProvider):  # type: ignore[misc, valid-type]
        """A Hermes web provider answered by webproviders' dispatch."""

        def __init__(self, name: str, backend: HermesBackend) -> None:
            self._name = name
            self._backend = backend
            self.drop_in = HermesProvider(backend.ours)

        @property
        def name(self) -> str:
            return self._name

        @property
        def display_name(self) -> str:
            return self.drop_in.display_name

        def is_available(self) -> bool:
            return self.drop_in.is_available()

        def _offers(self, capability: Capability) -> bool:
            supported = getattr(self.drop_in, f"supports_{capability}")
            return capability in self._backend.capabilities and bool(supported())

        def supports_search(self) -> bool:
            return self._offers("search")

        def supports_extract(self) -> bool:
            return self._offers("extract")

        def supports_crawl(self) -> bool:
            return self._offers("crawl")

        def get_setup_schema(self) -> dict[str, Any]:
            return self.drop_in.get_setup_schema()

        def search(self, query: str, limit: int = 5, **options: Any) -> dict[str, Any]:
            return self.drop_in.search(query, limit, **options)

        def extract(self, urls: list[str], **kwargs: Any) -> Any:
            return self.drop_in.extract(urls, **kwargs)

        def crawl(self, url: str, **kwargs: Any) -> Any:
            return self.drop_in.crawl(url, **kwargs)

        def __repr__(self) -> str:
            return f"<webproviders backend {self._name!r} ({self._backend.ours})>"

    class AsyncWebprovidersBackend(WebprovidersBackend):
        """The same, with ``async`` extract and crawl (awaited on Hermes' event loop)."""

        async def extract(self, urls: list[str], **kwargs: Any) -> Any:  # type: ignore[override]
            return await self.drop_in.aextract(urls, **kwargs)

        async def crawl(self, url: str, **kwargs: Any) -> Any:  # type: ignore[override]
            return await self.drop_in.acrawl(url, **kwargs)

    return WebprovidersBackend, AsyncWebprovidersBackend


def hermes_provider(name: str, backend: HermesBackend) -> Any:
    """The Hermes provider registered as ``name``."""
    sync, asynchronous = provider_classes()
    return (asynchronous if backend.asynchronous else sync)(name, backend)


def _our_names() -> list[str]:
    """Our provider names; none (only Hermes' names) when the configuration cannot be read."""
    from ..registry.providers import get_registry

    try:
        return [entry.manifest.name for entry in get_registry(None).entries()]
    except Exception as exc:  # noqa: BLE001 - Hermes' names still register; calls report it
        log.warning("webproviders registers only Hermes' backend names: %s", exc)
        return []


def register(ctx: Any) -> None:
    """Hermes' plugin hook: register every backend of :func:`registrations`."""
    for name, backend in registrations(_our_names()).items():
        ctx.register_web_search_provider(hermes_provider(name, backend))
