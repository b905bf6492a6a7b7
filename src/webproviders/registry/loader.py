"""Finding and loading plugins: built-in folders, entry points, then user folders.

Every plugin, wherever it comes from, is a pluggy plugin whose ``register`` hook receives a
:class:`~webproviders.registry.registration.PluginContext`. A plugin folder whose
``plugin.yaml`` declares its providers is only read when found (:func:`discover`); its code
is imported by :func:`load_code` when the registry first needs it. A plugin that fails to
import or register, or whose ``register()`` runs past ``plugins.register_timeout``, is
recorded with its error and skipped; the others keep working. The load order and what
``plugins.disabled`` turns off are written down in docs/architecture.md.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
import stat
import sys
import threading
import types
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from importlib.metadata import distributions, entry_points
from pathlib import Path
from typing import Any

import pluggy

from ..config import Config, default_plugin_dir, unknown_setting
from ..homedir import expand_user, require_home
from ..manifest import ManifestError, read_manifest
from ..redact import get_logger
from . import hookspecs
from .registration import (
    PluginContext,
    PluginRecord,
    ProviderEntry,
    Source,
    served,
)

log = get_logger("webproviders.registry.loader")

ENTRY_POINT_GROUP = "webproviders"
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


#: One lock per plugin module: another thread loading the same plugin (for another config's
#: registry) waits for the import under way, rather than taking the half-run module it finds in
#: ``sys.modules`` (no ``register()`` yet) and recording the plugin as broken for that config.
_import_locks: dict[str, threading.RLock] = {}
_import_locks_guard = threading.Lock()


def _import_lock(module_name: str) -> threading.RLock:
    with _import_locks_guard:
        return _import_locks.setdefault(module_name, threading.RLock())


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
        import hashlib  # here: only user folders need it

        digest = hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:10]
        module_name += f"_{digest}"
    with _import_lock(module_name):
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
    from ..errors import exception_text  # here: reading manifests needs no error class

    bounded = sys.modules.get(f"{__package__}.bounded")  # loaded whenever a Raised exists
    if bounded is not None and isinstance(exc, bounded.Raised):
        exc = exc.raised
    text = exception_text(exc)
    if isinstance(exc, SyntaxError) and exc.filename and exc.msg:  # its text names the file without its folder
        text = f"{exc.msg} ({exc.filename}, line {exc.lineno})"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _users_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` may be the user's Ctrl-C, to pass on: a ``KeyboardInterrupt`` on the
    main thread. On a thread loading a plugin in the background it is the plugin's own
    (signals reach only the main thread), recorded as its failure like any other."""
    return isinstance(exc, KeyboardInterrupt) and threading.current_thread() is threading.main_thread()


@dataclass
class Plugins:
    """The outcome of discovery: providers by name, every plugin found, the hook manager."""

    providers: dict[str, ProviderEntry]
    plugins: list[PluginRecord]
    manager: pluggy.PluginManager
    #: User plugin folders found but not in ``plugins.enabled``: a backend named after one
    #: is unknown, and the sentence saying so says how to enable it.
    idle: list[PluginRecord] = field(default_factory=list)


def _plugin_folders(directories: Iterable[Path]) -> list[Path]:
    """The folders holding a ``plugin.yaml`` in each directory, alphabetically per directory.
    A directory this process may not read is skipped with a warning: one unreadable folder
    (a home directory of another user) must not stop every call."""
    found = []
    for directory in directories:
        try:  # os.stat, not Path.is_dir: from Python 3.14 on, that answers False where this user may not look
            if not stat.S_ISDIR(os.stat(directory).st_mode):
                continue
            entries = sorted(directory.iterdir())
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            log.warning(
                "The plugin folder %s cannot be read (%s); its plugins are skipped.", directory, exc.strerror
            )
            continue
        found.extend(folder for folder in entries if _holds_manifest(folder))
    return found


def _holds_manifest(folder: Path) -> bool:
    """Whether ``folder`` has a ``plugin.yaml``; one that cannot be looked at or read (a
    link to nothing, a pipe, a folder) counts, so that its plugin is recorded with the
    reason (:func:`read_manifest` gives it) instead of being called missing."""
    try:
        return folder.is_dir() and os.path.lexists(folder / "plugin.yaml")
    except OSError:
        return True


def _user_plugin_dirs(config: Config) -> list[Path]:
    """The folders of ``plugins.paths`` and the default one; a folder under a home directory
    this process does not have holds no plugin."""
    found = []
    for directory in [*config.plugins.paths, default_plugin_dir()]:
        try:
            found.append(require_home(expand_user(directory)))
        except OSError:
            continue
    return found


#: The plugin whose code is being imported or registered, by the id of the config being
#: built, so that a call that gives up waiting can say which plugin it waited for.
loading_now: dict[int, PluginRecord] = {}


def discover(config: Config) -> Plugins:
    """Find every plugin the config allows, and the providers each declares.

    Load order: built-in folders, then entry points, then user folders; the first
    registration of a provider name wins. A name in ``plugins.disabled`` keeps the plugin of
    that name from loading, and keeps built-in and entry-point plugins from registering a
    provider of that name; a user plugin (enabled by name) may register it, which is how a
    built-in provider is replaced. Entry points, and folders whose ``plugin.yaml`` declares
    no provider, are imported now: only their code says what they serve.
    """
    found = Plugins({}, [], new_plugin_manager())
    try:
        for folder in _plugin_folders([builtin_plugin_dir()]):
            _add_folder(found, config, folder, "built-in")
        for ep in _entry_points():
            _load_entry_point(found, config, ep)
        user_dirs = _user_plugin_dirs(config)
        for folder in _plugin_folders(user_dirs):
            _add_folder(found, config, folder, "user")
    finally:
        loading_now.pop(id(config), None)
    _warn_not_found(found, config, user_dirs)
    return found


def _warn_not_found(found: Plugins, config: Config, directories: list[Path]) -> None:
    """Say which enabled plugins no folder holds: a misspelt name, or a relative path in
    ``plugins.paths`` read from another working directory, would otherwise only show as an
    unknown backend."""
    seen = {record.name for record in found.plugins}
    for name in config.plugins.enabled:
        if name not in seen and name not in config.plugins.disabled:
            from ..suggest import did_you_mean  # here: only a name no folder holds needs it

            try:
                here = os.getcwd()
            except OSError:  # the folder was removed while the process stood in it
                here = "a folder that no longer exists"
            log.warning(
                "Plugin '%s' is enabled (plugins.enabled) but no plugin folder holds it; looked in %s "
                "(a relative path is read from the working directory, %s).%s%s",
                name,
                ", ".join(str(d) for d in directories),
                here,
                did_you_mean(name, [record.name for record in found.idle]),
                _plugin_folder_named(directories) or _folder_named(name, directories, found),
            )


def _folder_named(name: str, directories: list[Path], found: Plugins) -> str:
    """A sentence for a folder named as the plugin: without a ``plugin.yaml`` it is not a
    plugin folder, and with one its plugin goes by the name written there, which "no folder
    holds it" hid (a folder whose plugin.yaml names another was said to have none)."""
    if os.path.basename(name) != name or name in (".", ".."):  # no folder's own name
        return ""
    for directory in directories:
        folder = directory / name
        named = next((r.name for r in [*found.plugins, *found.idle] if r.location == str(folder)), None)
        if named is not None:
            return (
                f" {folder / 'plugin.yaml'} names its plugin '{named}': plugins.enabled takes that name "
                f"(or write name: {name} there)."
            )
        if folder.is_dir():
            return (
                f" {folder} has no plugin.yaml, so it is not read as a plugin folder: write one there "
                f"(name: {name}, kind: backend, and its providers)."
            )
    return ""


def _plugin_folder_named(directories: list[Path]) -> str:
    """A sentence for a folder of ``plugins.paths`` that is itself a plugin folder (it holds
    a ``plugin.yaml``): only the folders inside it are read, so its own plugin is never found."""
    for directory in directories:
        if _holds_manifest(directory):
            return (
                f" {directory} is itself a plugin folder: plugins.paths names the folders that hold plugin "
                f"folders, so write {directory.parent} there."
            )
    return ""


def _add_folder(found: Plugins, config: Config, folder: Path, source: Source) -> None:
    record = PluginRecord(name=folder.name, source=source, location=str(folder))
    try:
        record.manifest = read_manifest(folder)
        record.name = record.manifest.name
    except ManifestError as exc:
        if folder.name in config.plugins.disabled:  # turned off: its name is all that can be read
            return
        record.error = str(exc)
        record.loaded = True
        found.plugins.append(record)
        if source != "user" or folder.name in config.plugins.enabled:
            # Said where calls are made too: a plugin of hooks alone has no backend whose
            # failure would name it, and its policy would be off without a word.
            log.warning("Plugin '%s' is not loaded: %s.", record.name, record.error)
        return
    disabled = record.name in config.plugins.disabled
    if disabled or (source == "user" and record.name not in config.plugins.enabled):
        if not disabled:
            found.idle.append(record)
        return
    holder = next((r for r in found.plugins if r.name == record.name and r.error is None), None)
    if holder is not None:  # recorded, so that a backend of this one says why it is unknown
        record.error = (
            f"plugin name '{record.name}' is taken by the {holder.source} plugin at {holder.location}, found "
            "first; give this one another name in its plugin.yaml"
        )
        record.loaded = True
        log.warning("Plugin '%s' at %s is not loaded: %s.", record.name, folder, record.error)
    found.plugins.append(record)
    if holder is not None:
        return
    if source != "built-in":  # a built-in's is held by the project's tests, and listing stays light
        _check_hooks_when(record)
    if record.manifest.providers:
        _declare(found, config, record)
    else:
        loading_now[id(config)] = record
        load_code(found, config, record)


def _check_hooks_when(record: PluginRecord) -> None:
    """Say when a plugin's ``hooks_when`` names no setting: nothing could ever turn it on, so
    its hooks would never run, without a word."""
    when = record.manifest.hooks_when if record.manifest is not None else None
    problem = unknown_setting(when) if when else None
    if problem is not None:
        log.warning(
            "Plugin '%s' runs its hooks only while %s is true (hooks_when in its plugin.yaml), which names no "
            "setting, so they never run: %s",
            record.name,
            when,
            problem,
        )


def _declare(found: Plugins, config: Config, record: PluginRecord) -> None:
    """Entries for the providers a ``plugin.yaml`` declares, by the rules registration follows."""
    for item in record.manifest.providers if record.manifest else []:
        name = item.name
        if record.source != "user" and name in config.plugins.disabled:
            continue
        holder = found.providers.get(name)
        if holder is not None:
            record.error = (
                f"provider name '{name}' from {record.source} plugin '{record.name}' is already "
                f"registered by {holder.source} plugin '{holder.plugin}'; the first registration is kept"
            )
            log.warning("Duplicate provider: %s.", record.error)
            continue
        found.providers[name] = ProviderEntry(served(item, config), record)
        record.providers.append(name)


def import_code(record: PluginRecord) -> types.ModuleType | BaseException:
    """A plugin folder's module, or what its import raised, for :func:`load_code`. Each module
    imports under a lock of its own, so a registry imports before it takes the lock its loads
    share: a plugin whose import takes seconds holds up no other plugin's load."""
    try:
        return _import_folder(Path(record.location), record.source)
    except BaseException as exc:  # a broken plugin (a sys.exit() too) must not stop the others
        if _users_interrupt(exc):
            record.loaded = True  # its load ends here, as one that failed: not "still loading"
            raise
        return exc


def load_code(
    found: Plugins, config: Config, record: PluginRecord, imported: types.ModuleType | BaseException | None = None
) -> None:
    """Import a plugin folder's code (``imported``: what :func:`import_code` gave already) and
    call its ``register()`` (once; failures are recorded)."""
    if record.loaded:
        return
    from ..pools import NoThread  # here: reading manifests starts no thread

    loaded = True
    try:
        module = import_code(record) if imported is None else imported
        if isinstance(module, BaseException):
            record.error = f"import failed: {_describe(module)}"
            log.warning("Plugin '%s' failed to import: %s", record.name, record.error)
            return
        try:
            _register(found, module, record, config)
        except NoThread:  # no thread to run register() on now: a later call loads the plugin
            loaded = False
            raise
    finally:
        record.loaded = loaded


def _load_entry_point(found: Plugins, config: Config, ep: Any) -> None:
    if ep.name in config.plugins.disabled:
        return
    record = PluginRecord(name=ep.name, source="entry point", location=ep.value, loaded=True)
    found.plugins.append(record)
    holder = next((r for r in found.plugins if r.name == ep.name and r.error is None and r is not record), None)
    if holder is not None:  # as a user folder named as an entry point: one name, one plugin
        record.error = (
            f"plugin name '{ep.name}' is taken by the {holder.source} plugin at {holder.location}, found first; "
            f"the entry point needs another name in its package's [project.entry-points.{ENTRY_POINT_GROUP}] "
            f"table{_installed_by(ep)}"
        )
        log.warning("Plugin '%s' at %s is not loaded: %s.", record.name, ep.value, record.error)
        return
    loading_now[id(config)] = record
    if ep.pattern.match(ep.value) is None:  # else load() fails as "'NoneType' object has no attribute 'group'"
        record.error = (
            f"its entry point reads {ep.value!r}, which is not a 'module' or 'module:attribute' reference; "
            f"the package's [project.entry-points.{ENTRY_POINT_GROUP}] table should name its module, "
            f"such as {ep.name} = \"package_name\""
        )
        log.warning("Plugin '%s' failed to import: %s", record.name, record.error)
        return
    try:
        plugin = ep.load()
    except BaseException as exc:  # as a plugin folder's import
        if _users_interrupt(exc):
            raise
        record.error = f"import failed: {_describe(exc)}{_installed_by(ep)}"
        log.warning("Plugin '%s' failed to import: %s", record.name, record.error)
        return
    _register(found, plugin, record, config)


def _installed_by(ep: Any) -> str:
    """The installed package an entry point comes from, to name beside its import failure: the
    entry point's name alone (``acme``) does not say which package to repair or remove."""
    try:
        dist = ep.dist
        return f" (in the installed package {dist.name} {dist.version})" if dist is not None else ""
    except Exception:  # noqa: BLE001 - a package whose metadata cannot be read: named without it
        return ""


#: A line of ``entry_points.txt`` that opens the plugin group: the name between brackets, which
#: :mod:`importlib.metadata` strips from both ends (``[webproviders]``, ``[[webproviders]]``).
_GROUP_LINE = rf"[][]{ENTRY_POINT_GROUP}[][]"


def _entry_points() -> list[Any]:
    """The plugins' entry points, by name.

    ``entry_points()`` parses the ``entry_points.txt`` of every installed distribution (a few
    milliseconds with a couple of hundred installed); reading the files to see whether one
    opens the plugin group is cheaper, and most environments have none. When one does, the standard
    lookup decides, shadowed distributions and all.
    """
    if not any(re.search(_GROUP_LINE, _entry_points_text(dist)) for dist in distributions()):
        return []
    try:
        found = list(entry_points(group=ENTRY_POINT_GROUP))
    except Exception:  # noqa: BLE001 - another package's file that does not parse: whatever its parser meets
        found = _readable_entry_points()
    return sorted(found, key=lambda ep: ep.name)


def _entry_points_text(dist: Any) -> str:
    """A distribution's ``entry_points.txt``, or nothing for one that is not UTF-8 text."""
    try:
        return dist.read_text("entry_points.txt") or ""  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return ""


def _readable_entry_points() -> list[Any]:
    """The plugin group's entry points, read distribution by distribution, when another installed
    package's ``entry_points.txt`` does not parse (a line without ``=``): the standard lookup
    raises for all of them, and the plugins of every other package were lost with it. The first
    distribution of a name on the path wins, as in the standard lookup; the broken ones are
    named in a warning."""
    found: list[Any] = []
    seen: set[str] = set()
    broken: list[str] = []
    for dist in distributions():
        name = ""
        try:
            name = re.sub(r"[-_.]+", "-", dist.metadata["Name"] or "").lower()
            if name in seen:
                continue
            seen.add(name)
            found.extend(ep for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP)
        except Exception as exc:  # noqa: BLE001 - as above
            broken.append(f"{name or 'without a name'} ({type(exc).__name__}: {exc})")
    if broken:
        log.warning(
            "The entry_points.txt of the installed package %s cannot be read, so its plugins are skipped; "
            "repair or remove it.", ", ".join(broken)
        )
    return found


def _register(found: Plugins, plugin: Any, record: PluginRecord, config: Config) -> None:
    from ..pools import NoThread
    from .bounded import Overran  # here: reading manifests needs no worker thread

    manager, providers = found.manager, found.providers
    plugin_id = record.plugin_id
    holder = next((r for r in found.plugins if r.plugin_id == manager.get_name(plugin)), None)
    if holder is not None:  # pluggy's refusal names its internal ids and the module's repr twice
        code = getattr(plugin, "__name__", None) or type(plugin).__name__
        record.error = (
            f"its code ({code}) is loaded already as the {holder.source} plugin '{holder.name}', and one "
            "module is one plugin: remove one of the two, or point it at a module of its own"
        )
        log.warning("Plugin '%s' failed to register: %s", record.name, record.error)
        return
    try:
        manager.register(plugin, name=plugin_id)
    except Exception as exc:  # noqa: BLE001
        problem = _hook_arguments_problem(plugin)
        record.error = problem or f"invalid plugin: {' '.join(_describe(exc).split())}"  # one line, as listed
        log.warning("Plugin '%s' failed to register: %s", record.name, record.error)
        return
    ctx = PluginContext(config, record, providers)
    impls = [i for i in manager.hook.register.get_hookimpls() if i.plugin_name == plugin_id]
    if not impls and not _implements_hooks(manager, plugin_id):  # hooks alone serve: an audit plugin
        record.error = "the plugin defines no register(ctx) function, nor any other hook"
        log.warning("Plugin '%s' failed to register: %s", record.name, record.error)
    limit = config.plugins.register_timeout
    asynchronous = _async_hook(manager, plugin_id)
    if asynchronous is not None:  # called, it would only make a coroutine
        ctx.close()
        record.error = asynchronous
        log.warning("Plugin '%s' failed to register: %s", record.name, record.error)
        _withdraw(providers, record)
        manager.unregister(name=plugin_id)
        return
    _say_undeclared_hooks(manager, record)
    for impl in impls:
        try:
            returned = _call_register(impl.function, ctx, limit)
        except NoThread:
            ctx.close()
            _withdraw(providers, record)
            manager.unregister(name=plugin_id)
            raise
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - a register() that calls sys.exit() fails too
            ctx.close()
            if isinstance(exc, Overran):
                record.error = (
                    f"register() did not finish within {limit:g} s (plugins.register_timeout); the plugin is skipped"
                )
            else:
                record.error = f"register() failed: {_describe(exc)}"
            log.warning("Plugin '%s' failed to register: %s", record.name, record.error)
            _withdraw(providers, record)
            manager.unregister(name=plugin_id)
            return
        if _holds_provider(returned):  # "did not register it" alone left the author guessing why
            record.error = (
                f"register() returned {type(returned).__name__} instead of registering it: call "
                "ctx.register_web_search_provider(provider) for each provider inside register()"
            )
            log.warning("Plugin '%s' failed to register: %s", record.name, record.error)


def _holds_provider(value: Any) -> bool:
    """Whether ``register()``'s return value is, or lists, a provider it meant to register."""
    from ..provider import WebSearchProvider

    items = value if isinstance(value, (list, tuple)) else [value]
    return any(isinstance(item, WebSearchProvider) for item in items)


def _required(function: Any) -> list[str]:
    """The arguments ``function`` must be given (pluggy passes a hook only those it names)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in parameters if p.kind in kinds and p.default is inspect.Parameter.empty]


def _hook_arguments_problem(plugin: Any) -> str | None:
    """A hook of the plugin's that names an argument its hook does not pass (``def
    register(context)``), said on one line with the names it may take: pluggy's own message
    spans three lines and names the plugin by its internal id."""
    for name in sorted(_HOOK_NAMES):
        function = getattr(plugin, name, None)
        if not inspect.isroutine(function):
            continue
        passed = _required(getattr(hookspecs, name))
        unknown = [arg for arg in _required(function) if arg not in passed]
        if unknown:
            return (
                f"{name}() takes {', '.join(repr(arg) for arg in unknown)}, which the hook does not pass; "
                f"it may take any of {', '.join(passed)}, by those names"
            )
    return None


def _implements_hooks(manager: pluggy.PluginManager, plugin_id: str) -> bool:
    """Whether the plugin implements any hook: one that only watches or polices calls needs
    no ``register``."""
    return any(
        impl.plugin_name == plugin_id for name in _HOOK_NAMES for impl in getattr(manager.hook, name).get_hookimpls()
    )


def _say_undeclared_hooks(manager: pluggy.PluginManager, record: PluginRecord) -> None:
    """Warn of a dispatch hook a ``plugin.yaml`` leaves out of its ``hooks``: the plugin is
    imported when one of its providers is first used, and calls before that run without it,
    a policy off without a word."""
    manifest = record.manifest
    if manifest is None or manifest.hooks is None or not manifest.providers:  # imported before any dispatch
        return
    declared = manifest.hooks
    undeclared = [
        name
        for name in sorted(_HOOK_NAMES - {"register", *declared})
        if any(impl.plugin_name == record.plugin_id for impl in getattr(manager.hook, name).get_hookimpls())
    ]
    if undeclared:
        log.warning(
            "Plugin '%s' implements %s, which its plugin.yaml leaves out of hooks: it is imported when one of its "
            "providers is first used, and calls before that run without it; write hooks: [%s] there.",
            record.name,
            " and ".join(undeclared),
            ", ".join(sorted({*declared, *undeclared})),
        )


def _async_hook(manager: pluggy.PluginManager, plugin_id: str) -> str | None:
    """Why the plugin cannot load when one of its hooks is an ``async def`` or, unmarked as
    a wrapper, yields: hooks are called, never awaited or iterated, so such a hook does
    nothing (a policy's ``before_dispatch`` refused no call)."""
    for name in ("register", *sorted(_HOOK_NAMES - {"register"})):
        for impl in getattr(manager.hook, name).get_hookimpls():
            if impl.plugin_name != plugin_id:
                continue
            does = "registers nothing" if name == "register" else "does nothing"
            if inspect.iscoroutinefunction(impl.function):
                return f"{name}() is an async def, which {does} when called; write it as a plain def"
            wrapper = impl.hookwrapper or impl.wrapper
            if not wrapper and (inspect.isgeneratorfunction(impl.function) or inspect.isasyncgenfunction(impl.function)):
                return f"{name}() yields, which {does} when called; write it as a plain def that returns"
    return None


def _withdraw(providers: dict[str, ProviderEntry], record: PluginRecord) -> None:
    """Take back what a failed ``register()`` added: declared entries stay, without a provider."""
    declared = {item.name for item in record.manifest.providers} if record.manifest else set()
    for name in list(record.providers):
        entry = providers.get(name)
        if name in declared and entry is not None:
            entry.loaded = None
        else:
            providers.pop(name, None)
            record.providers.remove(name)


#: ``register()`` calls that overran and have not returned yet, by function.
_still_registering: dict[Any, Future[Any]] = {}


def _call_register(function: Any, ctx: PluginContext, limit: float) -> Any:
    """Run a plugin's ``register(ctx)`` for at most ``limit`` seconds (raises :class:`Overran`);
    what it returned.

    A ``register()`` still stuck from an earlier load is not started again: that plugin
    overruns at once.
    """
    from .bounded import Overran, call_bounded

    stuck = _still_registering.get(function)
    if stuck is not None:
        if not stuck.done():
            raise Overran(stuck)
        _still_registering.pop(function, None)
    try:
        return call_bounded(function, limit, ctx)
    except Overran as overran:
        _still_registering[function] = overran.future
        raise
