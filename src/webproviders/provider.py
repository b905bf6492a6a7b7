"""The one surface every provider implements, built-in or third-party."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from .manifest import Capability, Package, ProviderManifest


class WebSearchProvider(ABC):
    """A web backend: search, extract and/or crawl.

    ``search``, ``extract`` and ``crawl`` may be plain or ``async`` methods; the dispatcher
    runs either kind from sync and async callers. They may return an envelope, a
    ``{"web": [...]}`` dict or a bare list of dicts / pydantic models, and may raise
    :mod:`webproviders.errors` exceptions instead of building failure dicts.
    """

    #: Common search options (``time_range``, ``include_domains``, ``exclude_domains``,
    #: ``country``, ``lang``, ``safe_search``) this provider honours. Any other common
    #: option a caller passes is reported in ``meta.warnings`` by the dispatcher.
    search_options: ClassVar[frozenset[str]] = frozenset()

    #: True for sync methods that return at once without I/O (computed answers): they run in
    #: the event loop instead of a worker thread, saving a thread hop, and so cannot be
    #: abandoned at the deadline. Leave False for anything that touches the network.
    runs_inline: ClassVar[bool] = False

    #: The manifest facts this provider was registered with (set at registration): its
    #: ``plugin.yaml`` entry, overlaid with any ``manifest=`` given to the registration.
    #: The defaults below read their facts from it, so a provider states them once.
    manifest: ProviderManifest | None = None

    @property
    @abstractmethod
    def name(self) -> str:
        """Stable id used in config: lowercase, hyphens allowed (``brave-free``)."""

    @property
    def display_name(self) -> str:
        """Human label: the manifest's ``display_name``, else :attr:`name`."""
        declared = self.manifest.display_name if self.manifest is not None else None
        return declared or self.name

    @abstractmethod
    def is_available(self) -> bool:
        """Cheap and offline: key present, package importable, URL set."""

    def unavailable_reason(self) -> str | None:
        """Why :meth:`is_available` is False, when the provider knows better than its manifest."""
        return None

    def supports_search(self) -> bool:
        return self._declares("search", default=True)

    def supports_extract(self) -> bool:
        return self._declares("extract", default=False)

    def supports_crawl(self) -> bool:
        return self._declares("crawl", default=False)

    def _declares(self, capability: Capability, *, default: bool) -> bool:
        """Whether the manifest lists ``capability``; ``default`` before registration."""
        return default if self.manifest is None else capability in self.manifest.capabilities

    def packages(self) -> list[Package]:
        """The optional packages this provider imports on first use (from the manifest); one
        needed only with a setting (its ``when``) is the registry's to check, when it is set."""
        return [p for p in self.manifest.packages if p.when is None] if self.manifest is not None else []

    def packages_installed(self) -> bool:
        """Whether every package of :meth:`packages` can be imported, checked without importing."""
        return all(package.installed() for package in self.packages())

    async def set_up(self) -> None:  # noqa: B027 - optional, nothing to do by default
        """Optional: make ready what this provider's first request in the process would
        otherwise set up once its rate-limit slot was taken (a worker process to start), so
        the slot spaces requests as the vendor sees them. Awaited once, before the first slot
        of a provider with a request budget; what it raises is ignored."""

    def search(self, query: str, limit: int = 5, **options: Any) -> Any:
        raise NotImplementedError(f"{self.name} does not support search")

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self.name} does not support extract")

    def crawl(self, url: str, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self.name} does not support crawl")

    def get_setup_schema(self) -> dict[str, Any]:
        """What a setup wizard needs: ``{"name", "badge", "tag", "env_vars": [...]}``.

        By default it comes from the manifest (``plugin.yaml`` or the ``manifest=`` given at
        registration), so the env vars are written down once.
        """
        if self.manifest is not None:
            return self.manifest.setup_schema(self.display_name)
        return {"name": self.display_name, "badge": "", "tag": "", "env_vars": []}

    def capabilities(self) -> list[str]:
        """The capability names this provider supports, in a fixed order."""
        flags = (
            ("search", self.supports_search),
            ("extract", self.supports_extract),
            ("crawl", self.supports_crawl),
        )
        return [cap for cap, supported in flags if supported()]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"
