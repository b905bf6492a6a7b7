"""Finding and loading plugins: built-in folders, user folders and entry points.

Every plugin, wherever it comes from, is a pluggy plugin whose ``register`` hook receives a
:class:`PluginContext`. A plugin that fails to import or register, or whose
``register()`` runs past ``plugins.register_timeout``, is recorded with its error and
skipped; the others keep working.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
import threading
import types
from concurrent.futures import Future
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal

import pluggy

from ..config import DEFAULT_PLUGIN_DIR, Config, ProviderSettings
from ..manifest import (
    PRIORITY_KEYED,
    EnvVar,
    ManifestError,
    PluginManifest,
    ProviderManifest,
    read_manifest,
)
from ..provider import WebSearchProvider
from ..redact import get_logger
from . import hookspecs
from .bounded import Overran, call_bounded

log = get_logger("webproviders.registry.loader")

ENTRY_POINT_GROUP = "webproviders"
Source = Literal["built-in", "user", "entry point"]
_MODULE_ROOT = "_webproviders_plugins"


def builtin_plugin_dir() -> Path:
    """Where the built-in plugin folders are: inside the wheel, or ``plugins/`` in a checkout."""
    package = Path(__file__).resolve().parents[1]
    packaged = package / "builtin_plugins"
    return packaged if packaged.is_dir() else package.parents[1] / "plugins"


class _PluginManager(pluggy.PluginManager):
    """Treats any function named after a hook spec as an implementation, marked or not."""

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is None and name in _HOOK_NAMES and inspect.isroutine(getattr(plugin, name, None)):
            return {}
        return opts


_HOOK_NAMES = frozenset(
    name for name in dir(hookspecs) if hasattr(getattr(hookspecs, name), "webproviders_spec")
)


def new_plugin_manager() -> pluggy.PluginManager:
    manager = _PluginManager("webproviders")
    manager.add_hookspecs(hookspecs)
    return manager


@dataclass
class ProviderEntry:
    """A registered provider with the manifest facts about it."""

    provider: WebSearchProvider
    manifest: ProviderManifest
    plugin: str
    source: Source


@dataclass
class PluginRecord:
    """One plugin that was found, whether or not it loaded."""

    name: str
    source: Source
    location: str
    manifest: PluginManifest | None = None
    error: str | None = None
    providers: list[str] = field(default_factory=list)


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

    def register_web_search_provider(
        self,
        provider: WebSearchProvider,
        *,
        manifest: ProviderManifest | dict[str, Any] | None = None,
    ) -> None:
        """Add a provider. Raises ``TypeError`` for anything that is not a provider."""
        if not isinstance(provider, WebSearchProvider):
            raise TypeError(
                f"register_web_search_provider() needs a WebSearchProvider, "
                f"got {type(provider).__name__}"
            )
        with self._lock:
            if self._closed:
                raise RuntimeError(f"plugin '{self._record.name}' registered a provider after its register() timed out")
            self._add(provider, manifest)

    def _add(self, provider: WebSearchProvider, manifest: ProviderManifest | dict[str, Any] | None) -> None:
        name = provider.name
        facts = self._manifest_for(provider, manifest)
        existing = self._providers.get(name)
        if existing is not None:
            message = (
                f"provider name '{name}' from {self._record.source} plugin "
                f"'{self._record.name}' is already registered by {existing.source} plugin "
                f"'{existing.plugin}'; the first registration is kept"
            )
            log.warning("Duplicate provider: %s.", message)
            raise _DuplicateProvider(message)
        if provider.manifest is None:
            provider.manifest = facts
        self._providers[name] = ProviderEntry(provider, facts, self._record.name, self._record.source)
        self._record.providers.append(name)

    def _manifest_for(
        self, provider: WebSearchProvider, given: ProviderManifest | dict[str, Any] | None
    ) -> ProviderManifest:
        if isinstance(given, ProviderManifest):
            return given
        if isinstance(given, dict):
            return ProviderManifest.model_validate({"name": provider.name, **given})
        declared = self._record.manifest
        for item in declared.providers if declared else []:
            if item.name == provider.name:
                return item
        return manifest_from_provider(provider)


class _DuplicateProvider(Exception):
    """A provider name was registered twice; recorded on the later plugin."""


def manifest_from_provider(provider: WebSearchProvider) -> ProviderManifest:
    """Manifest facts for a provider registered without a ``plugin.yaml`` entry."""
    schema = provider.get_setup_schema() or {}
    env = [
        EnvVar(key=item["key"], prompt=item.get("prompt", ""), url=item.get("url", ""), required=False)
        for item in schema.get("env_vars", [])
        if isinstance(item, dict) and item.get("key")
    ]
    return ProviderManifest(
        name=provider.name,
        display_name=provider.display_name,
        capabilities=provider.capabilities(),  # type: ignore[arg-type]
        env=env,
        badge=str(schema.get("badge") or ""),
        tag=str(schema.get("tag") or ""),
        priority=PRIORITY_KEYED,
    )


def _import_folder(folder: Path, source: Source) -> types.ModuleType:
    """Import ``folder/__init__.py`` as a package, so the plugin's relative imports work."""
    parent = f"{_MODULE_ROOT}.{'builtin' if source == 'built-in' else 'user'}"
    for pkg in (_MODULE_ROOT, parent):
        if pkg not in sys.modules:
            module = types.ModuleType(pkg)
            module.__path__ = []
            sys.modules[pkg] = module
    module_name = f"{parent}.{folder.name.replace('-', '_')}"
    if source != "built-in":
        # Two user folders may share a name; each path is its own module.
        digest = hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:10]
        module_name += f"_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(
        module_name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"{folder} has no __init__.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


@dataclass
class LoadedPlugins:
    """The outcome of discovery: providers by name, every plugin found, the hook manager."""

    providers: dict[str, ProviderEntry]
    plugins: list[PluginRecord]
    manager: pluggy.PluginManager


def _folder_candidates(config: Config) -> list[tuple[Path, Source]]:
    found: list[tuple[Path, Source]] = []
    builtin = builtin_plugin_dir()
    if builtin.is_dir():
        found += [(p, "built-in") for p in sorted(builtin.iterdir()) if (p / "plugin.yaml").is_file()]
    user_dirs = [Path(p).expanduser() for p in config.plugins.paths] + [DEFAULT_PLUGIN_DIR.expanduser()]
    for directory in user_dirs:
        if directory.is_dir():
            found += [(p, "user") for p in sorted(directory.iterdir()) if (p / "plugin.yaml").is_file()]
    return found


def load_plugins(config: Config) -> LoadedPlugins:
    """Discover, import and register every plugin the config allows."""
    manager = new_plugin_manager()
    providers: dict[str, ProviderEntry] = {}
    records: list[PluginRecord] = []
    disabled = set(config.plugins.disabled)
    enabled = set(config.plugins.enabled)

    for folder, source in _folder_candidates(config):
        record = PluginRecord(name=folder.name, source=source, location=str(folder))
        try:
            record.manifest = read_manifest(folder)
            record.name = record.manifest.name
        except ManifestError as exc:
            record.error = str(exc)
            records.append(record)
            continue
        if record.name in disabled or (source == "user" and record.name not in enabled):
            continue
        if any(r.name == record.name and r.error is None for r in records):
            log.warning("Plugin '%s' at %s is shadowed by an earlier one.", record.name, folder)
            continue
        records.append(record)
        try:
            module = _import_folder(folder, source)
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not stop the others
            record.error = f"import failed: {_describe(exc)}"
            log.warning("Plugin '%s' failed to import: %s", record.name, record.error)
            continue
        _register(manager, module, record, config, providers)

    for ep in _entry_points():
        if ep.name in disabled:
            continue
        record = PluginRecord(name=ep.name, source="entry point", location=ep.value)
        records.append(record)
        try:
            plugin = ep.load()
        except Exception as exc:  # noqa: BLE001
            record.error = f"import failed: {_describe(exc)}"
            log.warning("Plugin '%s' failed to import: %s", record.name, record.error)
            continue
        _register(manager, plugin, record, config, providers)

    for name in disabled:
        providers.pop(name, None)
    return LoadedPlugins(providers, records, manager)


def _entry_points() -> list[Any]:
    return sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def _register(
    manager: pluggy.PluginManager,
    plugin: Any,
    record: PluginRecord,
    config: Config,
    providers: dict[str, ProviderEntry],
) -> None:
    plugin_id = f"{record.source}:{record.name}"
    try:
        manager.register(plugin, name=plugin_id)
    except Exception as exc:  # noqa: BLE001
        record.error = f"invalid plugin: {_describe(exc)}"
        return
    ctx = PluginContext(config, record, providers)
    impls = [i for i in manager.hook.register.get_hookimpls() if i.plugin_name == plugin_id]
    if not impls:
        record.error = "the plugin defines no register(ctx) function"
    limit = config.plugins.register_timeout
    for impl in impls:
        try:
            _call_register(impl.function, ctx, limit)
        except _DuplicateProvider as exc:
            record.error = str(exc)
        except Exception as exc:  # noqa: BLE001
            ctx.close()
            if isinstance(exc, Overran):
                record.error = (
                    f"register() did not finish within {limit:g} s (plugins.register_timeout); the plugin is skipped"
                )
            else:
                record.error = f"register() failed: {_describe(exc)}"
            log.warning("Plugin '%s' failed to register: %s", record.name, record.error)
            for name in record.providers:
                providers.pop(name, None)
            record.providers.clear()
            manager.unregister(name=plugin_id)
            return


#: ``register()`` calls that overran and have not returned yet, by function.
_still_registering: dict[Any, Future[Any]] = {}


def _call_register(function: Any, ctx: PluginContext, limit: float) -> None:
    """Run a plugin's ``register(ctx)`` for at most ``limit`` seconds (raises :class:`Overran`).

    A ``register()`` still stuck from an earlier load is not started again: that plugin
    overruns at once.
    """
    stuck = _still_registering.get(function)
    if stuck is not None:
        if not stuck.done():
            raise Overran(stuck)
        _still_registering.pop(function, None)
    try:
        call_bounded(function, limit, ctx)
    except Overran as overran:
        _still_registering[function] = overran.future
        raise
