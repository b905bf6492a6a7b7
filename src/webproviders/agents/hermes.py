"""A drop-in provider object for frameworks built on the Hermes-style provider contract.

Such frameworks hold one object per backend and call ``provider.search(query, limit)``,
``extract(urls)`` and ``crawl(url)`` synchronously, reading ``{"success": True, "data": ...}``
or ``{"success": False, "error": ...}`` back; they never expect an exception. The object
:func:`as_hermes_provider` returns has exactly that surface, and every call goes through
dispatch, so it gets retries, the answer cache, cool-downs and URL safety like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..config import Config, config_from_dict
from ..envelope import failure
from ..errors import InvalidInputError, WebProviderError
from ..manifest import Capability

if TYPE_CHECKING:
    from ..registry.loader import ProviderEntry
    from ..registry.providers import Registry

T = TypeVar("T")

#: The most search results the contract hands out; a larger ``limit`` is clamped, not refused.
MAX_RESULTS = 20


class HermesProvider:
    """One backend (a provider name as in the config) behind the Hermes-style contract."""

    def __init__(self, name: str, config: Config | Mapping[str, Any] | None = None) -> None:
        self._name = str(name)
        self._config: Config | None = None
        self._config_error: WebProviderError | None = None
        if isinstance(config, Config) or config is None:
            self._config = config
        else:
            try:
                self._config = config_from_dict(dict(config), source="<hermes config>")
            except Exception as exc:  # noqa: BLE001 - reported by every call, never raised
                self._config_error = InvalidInputError(f"The configuration is invalid: {exc}")

    @property
    def name(self) -> str:
        return self._name

    @property
    def display_name(self) -> str:
        return self._safely(lambda: str(self._entry()[1].provider.display_name), self._name)

    def _entry(self) -> tuple[Registry, ProviderEntry]:
        """The registry entry of this backend; raises when it is unknown or the config is bad."""
        from ..registry.providers import get_registry

        if self._config_error is not None:
            raise self._config_error
        registry = get_registry(self._config)
        entry = registry.get(self._name)
        if entry is None:
            raise LookupError(self._name)
        return registry, entry

    def _safely(self, work: Callable[[], T], default: T) -> T:
        try:
            return work()
        except Exception:  # noqa: BLE001 - the contract never raises
            return default

    def is_available(self) -> bool:
        """Whether the backend can run now (key, package, URL present); no network."""

        def check() -> bool:
            registry, entry = self._entry()
            return registry.availability(entry)[0]

        return self._safely(check, False)

    def is_keyless_available(self) -> bool:
        """Whether the backend can run now without any API key.

        True for backends that need none (ddgs, http, a SearXNG URL) and for one that is
        available with no key set (a self-hosted Firecrawl); False when a key is what makes
        it available.
        """

        def check() -> bool:
            registry, entry = self._entry()
            if not registry.availability(entry)[0]:
                return False
            secrets = [var for var in entry.manifest.env if var.secret]
            if not any(var.required for var in secrets):
                return True
            keys = registry.config.provider(self._name).api_keys()
            return not keys and not any(var.value() for var in secrets)

        return self._safely(check, False)

    def _supports(self, capability: Capability) -> bool:
        def check() -> bool:
            registry, entry = self._entry()
            return registry.supports(entry, capability)

        return self._safely(check, False)

    def supports_search(self) -> bool:
        return self._supports("search")

    def supports_extract(self) -> bool:
        return self._supports("extract")

    def supports_crawl(self) -> bool:
        return self._supports("crawl")

    def _run(self, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A dispatch call's envelope; a bad config or anything unforeseen is a failure one."""
        meta: dict[str, Any] = {"requested_backend": self._name, "served_by": None, "latency_ms": 0.0, "attempts": []}
        if self._config_error is not None:
            return failure(self._config_error, None, meta)
        try:
            return call()
        except Exception as exc:  # noqa: BLE001 - the contract never raises
            from ..errors import to_provider_error

            return failure(to_provider_error(exc, self._name), self._name, meta)

    def search(self, query: str, limit: int = 5, **options: Any) -> dict[str, Any]:
        """``{"success": True, "data": {"web": [...]}}``; a ``limit`` above 20 is clamped."""
        from ..dispatch.api import dispatch_search

        clamped = isinstance(limit, int) and not isinstance(limit, bool) and limit > MAX_RESULTS
        asked = MAX_RESULTS if clamped else limit
        envelope = self._run(
            lambda: dispatch_search(query, asked, backend=self._name, config=self._config, **options)
        )
        if clamped and envelope.get("success"):
            note = f"limit {limit} is above {MAX_RESULTS}; at most {MAX_RESULTS} results were asked for."
            envelope["meta"].setdefault("warnings", []).append(note)
        return envelope

    def extract(self, urls: str | list[str], **kwargs: Any) -> dict[str, Any]:
        """``{"success": True, "data": [pages]}``; one item per URL, a failed URL has ``error``."""
        from ..dispatch.api import dispatch_extract

        return self._run(lambda: dispatch_extract(urls, backend=self._name, config=self._config, **kwargs))

    def crawl(self, url: str, **kwargs: Any) -> dict[str, Any]:
        """``{"success": True, "data": [pages]}`` reached from ``url``."""
        from ..dispatch.api import dispatch_crawl

        return self._run(lambda: dispatch_crawl(url, backend=self._name, config=self._config, **kwargs))

    def __repr__(self) -> str:
        return f"HermesProvider({self._name!r})"


def as_hermes_provider(name: str, config: Config | Mapping[str, Any] | None = None) -> HermesProvider:
    """The backend ``name`` as a Hermes-style provider; ``config`` is a ``Config``, a config
    mapping (as in ``config.yaml``), or None for the process-wide configuration."""
    return HermesProvider(name, config)


__all__ = ["MAX_RESULTS", "HermesProvider", "as_hermes_provider"]
