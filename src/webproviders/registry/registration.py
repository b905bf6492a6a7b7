"""What a plugin's ``register`` hook receives, and what a registration records.

:class:`PluginContext` attaches to every provider the manifest facts it is served with:
its plugin's ``plugin.yaml`` entry, overlaid with the ``manifest=`` given to the call, or
(for a provider registered without either) facts read from the provider itself. A provider
a ``plugin.yaml`` declares has its entry before its plugin's code is imported; the code
fills it in on first use.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..config import Config, ProviderSettings
from ..manifest import (
    CAPABILITIES,
    PRIORITY_KEYED,
    PluginManifest,
    ProviderManifest,
    provider_manifest,
)
from ..provider import WebSearchProvider
from ..redact import get_logger

log = get_logger("webproviders.registry.registration")

Source = Literal["built-in", "entry point", "user"]


@dataclass
class PluginRecord:
    """One plugin that was found, whether or not it loaded."""

    name: str
    source: Source
    location: str
    manifest: PluginManifest | None = None
    error: str | None = None
    providers: list[str] = field(default_factory=list)
    #: Whether its code has run (imported and ``register()`` called, successfully or not).
    loaded: bool = False

    @property
    def plugin_id(self) -> str:
        """Its name in the hook manager (names may repeat across sources)."""
        return f"{self.source}:{self.name}"


@dataclass(eq=False)
class ProviderEntry:
    """A provider with the manifest facts about it; its object comes with its plugin's code."""

    manifest: ProviderManifest
    record: PluginRecord
    #: The provider object, once its plugin's code has registered it.
    loaded: WebSearchProvider | None = None
    #: Loads the plugin's code (set by the registry for a plugin not loaded yet).
    load: Callable[[], None] | None = field(default=None, repr=False)

    @property
    def plugin(self) -> str:
        return self.record.name

    @property
    def source(self) -> Source:
        return self.record.source

    @property
    def provider(self) -> WebSearchProvider:
        """The provider object, importing its plugin first if needed.

        Raises :class:`NotConfiguredError` when the plugin failed to load or did not
        register this provider.
        """
        if self.loaded is None and self.load is not None:
            self.load()
        if self.loaded is None:
            from ..errors import NotConfiguredError  # here: listing providers needs no error class

            name = self.manifest.name
            raise NotConfiguredError(f"{name} is not available: {self.unloaded_reason()}.", provider=name)
        return self.loaded

    def unloaded_reason(self) -> str:
        """Why there is no provider object although the manifest declares one."""
        if self.record.error:
            return f"its plugin '{self.record.name}' failed to load ({self.record.error})"
        if self.record.loaded:
            return f"its plugin '{self.record.name}' did not register it{self._registered_instead()}"
        return f"its plugin '{self.record.name}' is still loading"

    def _registered_instead(self) -> str:
        """The providers its plugin registered that its ``plugin.yaml`` does not list: a name
        spelt one way in the code and another in the manifest, which "did not register it" hid."""
        declared = {item.name for item in self.record.manifest.providers} if self.record.manifest else set()
        others = [name for name in self.record.providers if name not in declared]
        if not others:
            return ""
        names = ", ".join(f"'{name}'" for name in others)
        return f" (it registered {names}, which its plugin.yaml does not list: the names there and in the code should match)"


def served(manifest: ProviderManifest, config: Config) -> ProviderManifest:
    """The facts a provider is served with under ``config``: its rank applied (``keyed_priority``)."""
    rank = manifest.rank(config.provider(manifest.name))
    return manifest if rank == manifest.priority else manifest.model_copy(update={"priority": rank})


class PluginContext:
    """What a plugin's ``register`` hook receives."""

    def __init__(
        self,
        config: Config,
        record: PluginRecord,
        providers: dict[str, ProviderEntry],
    ) -> None:
        self.config = config
        self._record = record
        self._providers = providers
        self._closed = False
        self._lock = threading.Lock()

    def close(self) -> None:
        """Refuse registrations from now on (a ``register()`` that overran may still try)."""
        with self._lock:
            self._closed = True

    @property
    def plugin_name(self) -> str:
        return self._record.name

    def settings(self, provider_name: str) -> ProviderSettings:
        """``web.providers.<provider_name>`` from the active config."""
        return self.config.provider(provider_name)

    def declared_manifest(self, provider_name: str) -> ProviderManifest | None:
        """The plugin's ``plugin.yaml`` entry for ``provider_name`` (None without one)."""
        declared = self._record.manifest
        for item in declared.providers if declared else []:
            if item.name == provider_name:
                return item
        return None

    def register_web_search_provider(
        self,
        provider: WebSearchProvider,
        *,
        manifest: ProviderManifest | dict[str, Any] | None = None,
    ) -> None:
        """Add a provider. Raises ``TypeError`` for anything that is not a provider.

        A built-in or entry-point provider whose name is in ``plugins.disabled`` is left out,
        and so is one whose name is taken, recorded on this plugin: its other providers are
        still registered (raised into ``register()``, the refusal lost every later one).
        ``manifest`` overlays the plugin's declared ``plugin.yaml`` entry: the keys it sets
        replace the declared ones, the others stay as declared.
        """
        if not isinstance(provider, WebSearchProvider):
            raise TypeError(
                f"register_web_search_provider() needs a WebSearchProvider, "
                f"got {type(provider).__name__}"
            )
        if manifest is not None and not isinstance(manifest, (ProviderManifest, dict)):
            raise TypeError(
                "register_web_search_provider()'s manifest= takes a mapping of plugin.yaml's provider keys "
                f"(such as {{'fetch': 'none'}}), not a {type(manifest).__name__}"
            )
        # The provider's own code (its name, capabilities, setup schema) runs outside the lock:
        # close() takes it, and a provider whose code never returns held the loader (every
        # call, every listing) past plugins.register_timeout, for as long as it hung.
        name = provider.name
        if not isinstance(name, str):  # its manifest's check would speak of YAML and quotes
            raise TypeError(
                "register_web_search_provider() needs a provider whose name is text (such as 'acme-search'); "
                f"{type(provider).__name__}.name is {repr(name)[:64]} ({type(name).__name__})"
            )
        if self._record.source != "user" and name in self.config.plugins.disabled:
            return  # turned off; a user plugin may register the name instead
        existing = self._providers.get(name)
        declared = existing is not None and existing.record is self._record and existing.loaded is None
        if existing is not None and not declared:
            message = (
                f"provider name '{name}' from {self._record.source} plugin "
                f"'{self._record.name}' is already registered by {existing.source} plugin "
                f"'{existing.plugin}'; the first registration is kept"
            )
            if self._record.error != message:  # a clash its plugin.yaml declared was said as it was read
                log.warning("Duplicate provider: %s.", message)
            self._record.error = self._record.error or message
            return
        facts = self._facts_for(provider, manifest)
        with self._lock:
            if self._closed:
                raise RuntimeError(f"plugin '{self._record.name}' registered a provider after its register() timed out")
            provider.manifest = facts
            if existing is not None:  # declared: fill it in
                existing.manifest = facts
                existing.loaded = provider
            else:
                self._providers[name] = ProviderEntry(facts, self._record, provider)
                self._record.providers.append(name)
        if declared or manifest is not None or self.declared_manifest(name) is not None:
            self._check_methods(provider, facts)  # else the facts were read from the provider itself

    def _check_methods(self, provider: WebSearchProvider, facts: ProviderManifest) -> None:
        """Say when the capabilities declared and the methods written disagree: a call to one
        declared but not written fails as ``unsupported`` with no word of the manifest, and
        one written but not declared is never asked for."""
        for capability in CAPABILITIES:
            written = getattr(type(provider), capability, None) is not getattr(WebSearchProvider, capability)
            declared = capability in facts.capabilities
            if declared != written:
                log.warning(
                    "Provider '%s' of plugin '%s' %s: %s.",
                    provider.name,
                    self._record.name,
                    f"declares {capability} but has no {capability}() method of its own"
                    if declared
                    else f"has {'an' if capability == 'extract' else 'a'} {capability}() method but does not "
                    f"declare {capability}",
                    f"calls to it for {capability} fail as unsupported; write {capability}() or take it out of "
                    "its manifest's capabilities"
                    if declared
                    else f"it is never asked to {capability}; add {capability} to its manifest's capabilities",
                )

    def _facts_for(
        self, provider: WebSearchProvider, given: ProviderManifest | dict[str, Any] | None
    ) -> ProviderManifest:
        declared = self.declared_manifest(provider.name)
        facts = served(declared, self.config) if declared is not None else manifest_from_provider(provider)
        if given is not None:
            overlay = given.model_dump(exclude_unset=True) if isinstance(given, ProviderManifest) else given
            facts = provider_manifest({**facts.model_dump(exclude_unset=True), **overlay, "name": provider.name})
        facts.price_sheet()  # a price that does not parse fails the registration, naming the key
        facts.check_rate_limit()  # and so does a request budget
        return facts


def manifest_from_provider(provider: WebSearchProvider) -> ProviderManifest:
    """Manifest facts for a provider registered without a ``plugin.yaml`` entry."""
    schema = provider.get_setup_schema() or {}
    # as mappings, checked with the rest: a key no shell can set is a ManifestError naming it
    env = [
        {"key": item["key"], "prompt": item.get("prompt", ""), "url": item.get("url", ""), "required": False}
        for item in schema.get("env_vars", [])
        if isinstance(item, dict) and item.get("key")
    ]
    return provider_manifest(
        {
            "name": provider.name,
            "display_name": provider.display_name,
            "capabilities": provider.capabilities(),
            "env": env,
            "badge": str(schema.get("badge") or ""),
            "tag": str(schema.get("tag") or ""),
            "priority": PRIORITY_KEYED,
        }
    )
