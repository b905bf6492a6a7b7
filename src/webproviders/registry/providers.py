"""The registry: every provider, what it can do, and whether it can run now.

One registry is built per :class:`~webproviders.config.Config` (plugins enabled, disabled
and provider settings all come from it) and kept on that config object for as long as it
lives, so dispatch does not read plugins again and its state (cache, cool-downs, request
budgets) lasts as long as the config, however many configs a process uses.
It is built from the plugins' manifests: a plugin's code is imported when one of its
providers is first used (or, for a plugin with dispatch hooks, before the first dispatch),
never to list providers. Whether a provider can run is one verdict (:meth:`Registry.availability`):
what its manifest requires must be present, and once its code is loaded its
``is_available()`` must agree. That runs under ``plugins.availability_timeout`` and its
answer is remembered briefly, so plugin code that hangs never stalls a call.
"""

from __future__ import annotations

import inspect
import os
import threading
import time
import types
import weakref
from concurrent.futures import Future, wait
from concurrent.futures import TimeoutError as FutureTimeout
from contextvars import Context, ContextVar, Token, copy_context
from typing import Any

import pluggy

from .. import context, redact
from ..config import Config, ProviderSettings, default_config, loaded_default
from ..manifest import CAPABILITIES, Capability
from .loader import Plugins, discover, import_code, load_code, loading_now
from .registration import PluginRecord, ProviderEntry

log = redact.get_logger("webproviders.registry")

#: Seconds an availability answer is reused while the provider's environment variables stay
#: the same.
AVAILABILITY_TTL = 2.0
Availability = tuple[bool, str | None]


class Registry:
    """Providers by name, with manifest facts, for one config."""

    def __init__(self, config: Config, found: Plugins) -> None:
        self.config = config
        self._found = found
        self._providers = found.providers
        self.plugins: list[PluginRecord] = found.plugins
        self.hooks: pluggy.PluginManager = found.manager
        #: Cache, health and rate-limit state of dispatch (:mod:`webproviders.dispatch.state`).
        self.dispatch_state: Any = None
        #: Whether the plugins dispatch runs hooks of are loaded (:meth:`ready_for_dispatch`).
        self.dispatch_ready = False
        #: Counts plugin loads: what was worked out from the providers' facts before a load
        #: (plans, hook lists) is worked out again after it.
        self.version = 0
        #: Recent answers: name -> (environment fingerprint, expiry, answer, whether the
        #: provider's own ``is_available()`` is in it).
        self._answers: dict[str, tuple[tuple[str | None, ...], float, Availability, bool]] = {}
        #: ``is_available()`` calls that overran and have not returned yet, with the method
        #: of the provider's they were in (``unavailable_reason`` once it said no).
        self._hung: dict[str, tuple[Future[Availability], list[str]]] = {}
        #: Plugin loads under way or done, by record.
        self._loading: dict[int, Future[None]] = {}
        self._lock = threading.Lock()
        self._load_lock = threading.RLock()
        #: Hook callers with implementations (None: none) and the arguments those take, by hook
        #: name, until a plugin loads.
        self._callers: dict[str, tuple[Any, frozenset[str]]] = {}
        #: The config's secrets, remembered again at each call that uses it (see :func:`get_registry`).
        self.secrets = tuple(config.secrets())
        redact.remember(*self.secrets)
        self._adopt(list(self._providers.values()))
        self._warn_misnamed_sections()
        self._warn_unread_keys()

    def _adopt(self, entries: list[ProviderEntry]) -> None:
        """Scrub the secrets entries' manifests declare (in the environment, and in the config
        keys that stand in for them), and let unloaded ones load their code."""
        for entry in entries:
            redact.watch_env(*(n for var in entry.manifest.env if var.secret for n in var.names()))
            redact.remember(*_configured_secrets(entry, self.config))
            redact.watch_url_env(*(n for var in entry.manifest.env if var.config_key == "base_url" for n in var.names()))
            if not entry.record.loaded:
                record = entry.record
                entry.load = lambda record=record: self.load(record, context.remaining_time())  # type: ignore[misc]

    def _warn_misnamed_sections(self) -> None:
        """A ``web.providers.<name>`` section, or a name in ``plugins.disabled``, one typo away
        from a provider's or a plugin's name (``tavilly``, ``brav``) does nothing: say which one
        it was likely meant for (a name in ``plugins.enabled`` is checked as plugins are found)."""
        config = self.config
        source = config.source
        providers = set(self._providers)
        records = [*self.plugins, *self._found.idle]
        # every name that can be turned off, those turned off included (a plugin.yaml declares them)
        names = {r.name for r in records} | {p.name for r in records if r.manifest for p in r.manifest.providers}
        checks = [
            (config.web.providers, providers, f"Config section 'web.providers.{{}}' in {source} names no provider, so it is not used."),
            (config.plugins.disabled, names | providers, f"plugins.disabled in {source} names '{{}}', which is no plugin's or provider's name, so it turns nothing off."),
        ]
        strays = [(name, known, sentence) for names, known, sentence in checks for name in names if name not in known]
        if not strays:
            return
        from ..suggest import did_you_mean  # here: only a config with a stray name needs it

        for name, known, sentence in strays:
            hint = did_you_mean(name, known)
            if hint:
                log.warning("%s%s", sentence.format(name), hint)

    def _warn_unread_keys(self) -> None:
        """A key of ``web.providers.<name>`` its provider does not read (``concurency``, or
        another provider's key) does nothing: name it, with the key it was likely meant to be,
        where the provider's manifest lists what it reads (``options``). A typo of a shared key
        (``timout``) was named as the config was read."""
        for name, settings in self.config.web.providers.items():
            entry = self._providers.get(name)
            extra = settings.model_extra
            if entry is None or not extra or entry.manifest.options is None:
                continue
            known = entry.manifest.read_keys()
            unread = [key for key in extra if key not in known]
            if not unread:
                continue
            # here: only a config with a stray key needs it
            from ..suggest import closest, did_you_mean

            for key in unread:
                if closest(key, ProviderSettings.model_fields):
                    continue
                own = sorted(known.difference(ProviderSettings.model_fields))
                hint = did_you_mean(key, known) or (f" Its own keys: {', '.join(own)}." if own else "")
                log.warning(
                    "Config key 'web.providers.%s.%s' in %s is not one %s reads, so it does nothing.%s",
                    name, key, self.config.source, name, hint,
                )

    def names(self) -> list[str]:
        return sorted(list(self._providers))

    def get(self, name: str) -> ProviderEntry | None:
        return self._providers.get(name)

    def named(self, name: str) -> str:
        """The provider ``name`` stands for: provider names are lower case (the manifest's rule),
        and a config often writes a vendor as it spells itself (``Brave``, ``BRAVE``), so such a
        name is the provider's; a name no provider has is kept as written, for the sentence
        that says so."""
        if name in self._providers or not name.isascii():
            return name
        lower = name.lower()
        return lower if lower in self._providers else name

    def entries(self) -> list[ProviderEntry]:
        providers = self._providers
        return [providers[name] for name in self.names()]

    def why_unknown(self, name: str) -> tuple[str, bool]:
        """Why no provider is called ``name``: the plugin of that name failed to load, or some
        plugin that may have provided it did (an entry point that raised on import, a
        ``plugin.yaml`` that did not parse), else the names there are. With whether the name
        is simply no provider's (a mistake in the name, not a plugin to set up or repair)."""
        key = name.lower() if name.isascii() else name  # names are lower case: ``Acme`` is acme's
        if key in self.config.plugins.disabled:
            return f"Backend '{name}' is not available: plugins.disabled turns it off.", False
        failed = [record for record in self.plugins if record.error and not record.providers]
        for record in failed:
            declared = {item.name for item in record.manifest.providers} if record.manifest else set()
            if key == record.name or key in declared:
                return (
                    f"Backend '{name}' is not available: its {record.source} plugin '{record.name}' failed to load "
                    f"({record.error})."
                ), False
        for record in self._found.idle:
            declared = {item.name for item in record.manifest.providers} if record.manifest else set()
            if key == record.name or key in declared:
                return (
                    f"Backend '{name}' is not available: its user plugin '{record.name}' ({record.location}) is not "
                    f"enabled; add '{record.name}' to plugins.enabled in the config."
                ), False
        from ..suggest import did_you_mean  # here: only a name no provider has needs it

        known = ", ".join(self.names()) or "none"
        sentence = f"Unknown backend '{name}'." + did_you_mean(key, self.names())
        sentence += f" Known backends: {known}."
        if failed:
            plugins = "; ".join(f"'{record.name}' ({record.error})" for record in failed)
            sentence += f" Plugins that failed to load, and may provide it: {plugins}."
        return sentence, not failed

    def supports(self, entry: ProviderEntry, capability: Capability) -> bool:
        """Whether the provider's manifest lists ``capability``."""
        return capability in entry.manifest.capabilities

    def load(self, record: PluginRecord, timeout: float | None = None) -> None:
        """Import a plugin's code and call its ``register()``, once.

        With ``timeout`` a caller waits at most that long (:class:`WebTimeoutError`); the load
        goes on in the background and later calls use it.
        """
        if record.loaded:
            return
        if _on_loop.get():
            raise RunsPluginCode()
        from ..errors import WebTimeoutError  # here: listing providers needs no error class
        from ..pools import NoThread  # nor the thread pools

        with self._lock:
            future = self._loading.get(id(record))
            starter = future is None
            if future is None:
                future = self._loading[id(record)] = Future()
        if starter and timeout is None:
            self._load_now(record, future)
        elif starter:
            try:
                threading.Thread(
                    target=self._load_now, args=(record, future), name="webproviders-plugin-load", daemon=True
                ).start()
            except RuntimeError as exc:
                self._not_loaded(record, future, NoThread(f"no worker thread could be started ({exc})"))
        try:
            future.result(timeout)
        except FutureTimeout:
            raise WebTimeoutError(
                f"Loading plugin '{record.name}' took longer than this call's {timeout:.1f} s; it goes on "
                f"loading in the background (its register() may take up to "
                f"{self.config.plugins.register_timeout:g} s, plugins.register_timeout)."
            ) from None

    def _load_now(self, record: PluginRecord, future: Future[None]) -> None:
        from ..pools import NoThread

        try:
            imported = None if record.loaded else import_code(record)  # not under the lock: it may take seconds
            with self._load_lock:
                known = set(self._providers)
                load_code(self._found, self.config, record, imported)
                self._callers = {}
                self.version += 1
                self._adopt([entry for name, entry in list(self._providers.items()) if name not in known])
        except NoThread as exc:
            self._not_loaded(record, future, exc)
        finally:
            if not future.done():
                future.set_result(None)

    def _not_loaded(self, record: PluginRecord, future: Future[None], exc: Exception) -> None:
        """No thread to load the plugin on: this call fails, the next one loads it afresh."""
        with self._lock:
            self._loading.pop(id(record), None)
        future.set_exception(exc)

    def forget_unfinished(self) -> None:
        """In a forked child: plugin loads and ``is_available()`` calls still under way ran on
        the parent's threads, which the child does not have. Waited for, they would never end:
        the child starts them again when it needs them."""
        self._lock = threading.Lock()
        self._load_lock = threading.RLock()
        self._loading = {key: future for key, future in self._loading.items() if future.done()}
        self._hung = {name: hung for name, hung in self._hung.items() if hung[0].done()}

    def load_all(self) -> None:
        """Load the code of every plugin (``webproviders providers`` shows what fails)."""
        for record in list(self.plugins):
            self.load(record)

    def ready_for_dispatch(self, timeout: float | None) -> None:
        """Load the plugins that may implement dispatch hooks, before the first call runs them.

        A plugin whose ``plugin.yaml`` declares its providers and ``hooks: []`` (or hooks for
        a setting that is off, ``hooks_when``) waits until one of its providers is used; one
        that declares hooks, or does not say, loads now.
        """
        if self.dispatch_ready:
            return
        deadline = None if timeout is None else time.monotonic() + timeout
        for record in list(self.plugins):
            hooked = record.manifest is not None and record.manifest.hooks != [] and not self._hooks_off(record)
            if not record.loaded and hooked:
                self.load(record, None if deadline is None else max(0.0, deadline - time.monotonic()))
        self.dispatch_ready = True

    def hook(self, name: str) -> Any:
        """The caller of hook ``name`` when some loaded plugin implements it, else None."""
        return self._hook(name)[0]

    def hook_takes(self, name: str, argument: str) -> bool:
        """Whether an implementation of hook ``name`` takes ``argument`` (worth computing it)."""
        return argument in self._hook(name)[1]

    def _hooks_off(self, record: PluginRecord) -> bool:
        """Whether the setting ``record``'s hooks serve (its ``hooks_when``) is off here."""
        when = record.manifest.hooks_when if record.manifest is not None else None
        return when is not None and not self.config.setting(when)

    def _hook(self, name: str) -> tuple[Any, frozenset[str]]:
        found = self._callers.get(name)
        if found is None:
            caller = getattr(self.hooks.hook, name)
            off = [self.hooks.get_plugin(r.plugin_id) for r in self.plugins if r.loaded and self._hooks_off(r)]
            if any(plugin is not None for plugin in off):
                caller = self.hooks.subset_hook_caller(name, remove_plugins=[p for p in off if p is not None])
            impls = caller.get_hookimpls()
            taken = frozenset(arg for impl in impls for arg in impl.argnames)
            found = self._callers[name] = (caller if impls else None, taken)
        return found

    def hook_failure(self, hook: str, exc: BaseException) -> str:
        """``exc`` from a dispatch hook as a sentence naming the plugin whose code raised it:
        every plugin's hooks run in one hook call, and which one failed is what the operator
        needs to know."""
        from ..errors import exception_text  # here: listing providers needs no error class

        text = exception_text(exc)
        what = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        return redact.scrub(f"{self.hook_raiser(hook, exc)} failed: {what}")

    def hook_raiser(self, hook: str, exc: BaseException) -> str:
        """``The <hook> hook of user plugin 'policy'``: the plugin whose code raised ``exc``
        (the innermost frame of its traceback in a plugin's module), or the hook alone."""
        modules: dict[str, PluginRecord] = {}
        for record in self.plugins:
            plugin = self.hooks.get_plugin(record.plugin_id)
            module = plugin.__name__ if isinstance(plugin, types.ModuleType) else getattr(plugin, "__module__", None)
            if isinstance(module, str):
                modules[module] = record
        owner: PluginRecord | None = None
        frame = exc.__traceback__
        while frame is not None:
            parts = str(frame.tb_frame.f_globals.get("__name__", "")).split(".")
            found = next((modules[m] for m in (".".join(parts[:n]) for n in range(len(parts), 0, -1)) if m in modules), None)
            owner = found or owner
            frame = frame.tb_next
        return f"The {hook} hook" + (f" of {owner.source} plugin '{owner.name}'" if owner is not None else "")

    def hook_plugins(self, hook: str) -> str:
        """The plugins whose ``hook`` a call runs, for a sentence about what its calls did
        (``user plugin 'policy'``): one whose hooks serve a setting that is off ran nothing."""
        caller = self.hook(hook)
        ids = {impl.plugin_name for impl in caller.get_hookimpls()} if caller is not None else set()
        return " or ".join(f"{r.source} plugin '{r.name}'" for r in self.plugins if r.plugin_id in ids)

    def availability(self, entry: ProviderEntry, *, load: bool = False) -> Availability:
        """``(available, reason)``; never touches the network, never hangs.

        What the manifest requires comes first (packages installed, variables or config keys
        set), read without importing anything. A provider whose code is loaded (or, with
        ``load``, gets loaded now) must then agree through its ``is_available()``, which runs
        for at most ``plugins.availability_timeout`` seconds (less when the current call's
        deadline is nearer); a provider that overruns is reported unavailable, and is not
        asked again until that call returns. When the current call's deadline cut the check
        short, :class:`~webproviders.errors.WebTimeoutError` is raised instead: the call ran out
        of time, which says nothing of whether the provider can run. An answer is reused for
        :data:`AVAILABILITY_TTL` seconds unless one of the environment variables its
        manifest declares changes.
        """
        manifest = entry.manifest
        name = manifest.name
        fingerprint = tuple(os.environ.get(var) for env in manifest.env for var in env.names()) if manifest.env else ()
        now = time.monotonic()
        remembered = self._answers.get(name)
        if (
            remembered is not None
            and remembered[0] == fingerprint
            and now < remembered[1]
            and (remembered[3] or not (load or entry.loaded is not None))
        ):
            return remembered[2]
        if manifest.env and (remembered is None or remembered[0] != fingerprint):
            # A variable it declares changed (a key set at run time), or is read for the first
            # time: its value is masked from this call on, as VendorProvider's keys are, not
            # once the watched variables are next read.
            redact.watch_env(*(name for var in manifest.env if var.secret for name in var.names()))
        answer, whole = self._verdict(entry, load)
        if whole is not None:
            self._answers[name] = (fingerprint, now + AVAILABILITY_TTL, answer, whole)
        return answer

    def _verdict(self, entry: ProviderEntry, load: bool) -> tuple[Availability, bool | None]:
        """The answer, and whether the provider's own ``is_available()`` is part of it (None:
        the answer is not to be remembered, ``is_available()`` is still running).

        A plugin still loading when the call's deadline passes raises ``timeout``: the call
        ran out of time, and the provider is no less configured for it.
        """
        reason = entry.manifest.missing(self.config.provider(entry.manifest.name))
        if reason is not None:
            return (False, reason), True
        if load and entry.loaded is None and not entry.record.loaded:
            self.load(entry.record, context.remaining_time())
        if entry.loaded is None:
            if entry.record.loaded:
                return (False, entry.unloaded_reason()), True
            return (True, None), False
        return self._ask(entry)

    def _ask(self, entry: ProviderEntry) -> tuple[Availability, bool | None]:
        """The loaded provider's own ``is_available()``, bounded in time."""
        from .bounded import Overran, call_bounded  # here: listing from manifests needs no worker

        name = entry.manifest.name
        hung = self._hung.get(name)
        if hung is not None:
            if not hung[0].done():
                return (False, f"{hung[1][0]}() has not returned yet; the provider is skipped until it does"), None
            self._hung.pop(name, None)
        if _on_loop.get():
            raise RunsPluginCode()
        limit = self.config.plugins.availability_timeout
        left = context.remaining_time()
        bound = limit if left is None else min(limit, left)
        asking = ["is_available"]
        try:
            return call_bounded(_ask_provider, bound, entry, asking), True
        except Overran as overran:
            self._hung[name] = (overran.future, asking)
            method = asking[0]
            if bound < limit:  # the call ran out of time, not the provider: a timeout, no verdict
                from ..errors import WebTimeoutError

                raise WebTimeoutError(
                    f"{name}'s {method}() had not answered by this call's deadline, {bound:.1f} s after it "
                    f"was asked; it goes on in the background (it may take up to {limit:g} s, "
                    "plugins.availability_timeout).",
                    provider=name,
                ) from None
            log.warning("Provider '%s': %s() did not return within %g s; it is skipped.", name, method, limit)
            return (False, (
                f"{method}() did not return within {limit:g} s (plugins.availability_timeout); "
                "the provider is skipped until it does"
            )), None

    def describe(self, entry: ProviderEntry, load: bool = False) -> dict[str, Any]:
        """One row of :func:`list_providers`, from the manifest; ``loaded`` says whether the
        provider's code has loaded, so that ``available`` includes its own ``is_available()``
        (before that, it is the manifest's view: the code may yet fail to load)."""
        available, reason = self.availability(entry, load=load)
        manifest = entry.manifest
        return {
            "name": manifest.name,
            "display_name": manifest.display_name or manifest.name,
            "capabilities": [c for c in CAPABILITIES if c in manifest.capabilities],
            "available": available,
            "reason": reason,
            # an available provider's capabilities that still need a value (jina's search, its key)
            "unavailable_for": manifest.unavailable_for(self.config.provider(manifest.name)) if available else {},
            "source": entry.source,
            "plugin": entry.plugin,
            "priority": manifest.priority,
            "auto_detect": manifest.auto_detect,
            "loaded": entry.loaded is not None,
            "load_error": None,
        }

    def list_providers(self, load: bool = False) -> list[dict[str, Any]]:
        """Every provider, then every plugin that failed to load (with its error).

        From manifests alone, unless ``load``: then every plugin's code is loaded first, so
        that import and ``register()`` failures show, and loaded providers are asked too.
        A plugin's error is its own text (``import failed: ... key rejected: <its key>``), and
        these rows reach a terminal and, through MCP's ``web_providers``, a model: the
        reasons and errors are scrubbed of secrets, as every error sentence is.
        """
        if load:
            self.load_all()
        rows = [self.describe(entry, load) for entry in self.entries()]
        for record in self.plugins:
            if record.error and not record.providers:
                rows.append(
                    {
                        "name": record.name,
                        "display_name": record.name,
                        "capabilities": [],
                        "available": False,
                        "reason": "the plugin failed to load",
                        "unavailable_for": {},
                        "source": record.source,
                        "plugin": record.name,
                        "priority": None,
                        "auto_detect": False,
                        "loaded": False,
                        "load_error": record.error,
                    }
                )
            elif record.error:
                for row in rows:
                    if row["plugin"] == record.name and row["source"] == record.source:
                        row["load_error"] = record.error
        for row in rows:
            for key in ("reason", "load_error"):
                if row[key]:
                    row[key] = redact.scrub(row[key])
        return rows


def _configured_secrets(entry: ProviderEntry, config: Config) -> list[str]:
    """The values of ``web.providers.<name>`` keys that stand in for a secret variable other
    than ``api_key`` (which :meth:`Config.secrets` knows): a plugin's ``token``, say."""
    settings = config.provider(entry.manifest.name)
    found: list[str] = []
    for var in entry.manifest.env:
        if var.secret and var.config_key and var.config_key != "api_key":
            value = settings.option(var.config_key)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    found.append(item.strip())
    return found


def _ask_provider(entry: ProviderEntry, asking: list[str]) -> Availability:
    """The provider's verdict; ``asking`` is set to the method being called, so that a call
    that overruns names the one that hung."""
    provider = entry.provider
    method = "is_available"
    try:
        answer = provider.is_available()
        if inspect.iscoroutine(answer):  # a coroutine is true: an ``async def`` saying False counted as yes
            answer.close()
            return False, "is_available() is an async def; write it as a plain def answering at once (offline)"
        if answer is not True and answer is not False and answer is not None:
            # ``return "ACME_KEY is not set"`` is a reason, and a non-empty string is true:
            # only True makes a provider available (None, a ``return`` forgotten, reads as False);
            # named by its type alone, as ``return os.environ.get("ACME_KEY")`` gives the key
            return False, (
                f"is_available() gave a {type(answer).__name__}, not True or False; "
                "it should answer True or False (a reason goes in unavailable_reason())"
            )
        if answer:
            return True, None
        method = asking[0] = "unavailable_reason"
        reason = provider.unavailable_reason()
    except BaseException as exc:  # noqa: BLE001 - on a worker thread: a plugin's sys.exit() is its failure
        from ..errors import exception_text

        text = exception_text(exc)  # what to fix, in the plugin's words (scrubbed where it is shown)
        return False, f"{method}() failed: {type(exc).__name__}" + (f": {text}" if text else "")
    if reason is not None and not isinstance(reason, str):  # the listing and every error quote it as text
        kind = type(reason).__name__
        return False, f"the provider reports it is not available (its unavailable_reason() gave a {kind}, not text)"
    return False, reason or "the provider reports it is not available"


#: Bumped by :func:`clear_registry_cache`: a registry built before is not used again.
_generation = 0
#: Every registry still in use, for a forked child to reset (held weakly: a registry goes with its config).
_live: weakref.WeakSet[Registry] = weakref.WeakSet()
#: Registries being built, so that concurrent callers wait for one build.
_building: dict[int, tuple[Config, Future[Registry]]] = {}
_lock = threading.Lock()


def _built(cfg: Config) -> Registry | None:
    """The registry built for this config object, unless the registries were cleared since."""
    found = cfg.attached()
    if found is None or found[0] != _generation:
        return None
    registry: Registry = found[1]
    return registry


class RunsPluginCode(BaseException):
    """Code on an event loop came to plugin code that may block: a plugin's import and
    ``register()``, or a provider's ``is_available()``.

    Running it there would stop the loop for as long as it takes (seconds, for a plugin that
    imports a vendor SDK; up to ``plugins.availability_timeout`` for an ``is_available()``),
    so the caller runs that step again on a worker thread. A ``BaseException``, so that no
    failure handling on the way turns it into an envelope.
    """


#: True while code runs on an event loop that plugin code must not stop (see :class:`RunsPluginCode`).
_on_loop: ContextVar[bool] = ContextVar("webproviders_on_loop", default=False)


def on_callers_loop() -> bool:
    """Whether this is an async call being prepared on its caller's event loop."""
    return _on_loop.get()


def context_for_thread() -> Context:
    """A copy of the current context for code that runs on a thread of its own (a hook), where
    plugin code may load: one copied as an async call was prepared on its caller's loop said
    the hook was there too, and a call the hook made failed as ``RunsPluginCode``."""
    found = copy_context()
    if _on_loop.get():
        found.run(_on_loop.set, False)
    return found


def refuse_plugin_code() -> Token[bool]:
    """From now until :func:`allow_plugin_code`, loading a plugin or asking a provider's
    ``is_available()`` raises :class:`RunsPluginCode` (a pair of calls, not a ``with``
    block: this is on every async call)."""
    return _on_loop.set(True)


def allow_plugin_code(token: Token[bool]) -> None:
    _on_loop.reset(token)


def ready_registry(config: Config | None) -> Registry | None:
    """The registry for ``config`` if it is built and has loaded the plugins a dispatch needs
    first (so that starting a call loads nothing), else None; never builds or loads."""
    cfg = config if config is not None else loaded_default()
    registry = _built(cfg) if cfg is not None else None
    return registry if registry is not None and registry.dispatch_ready else None


def get_registry(config: Config | None = None, *, timeout: float | None = None) -> Registry:
    """The registry for ``config`` (the default config when None), built once and cached.

    With ``timeout``, a caller waits at most that long for plugins to load and gets
    :class:`~webproviders.errors.WebTimeoutError` otherwise; the build goes on in the
    background and later calls use it.
    """
    cfg = config if config is not None else default_config()
    key = id(cfg)
    built = _built(cfg)  # the common case, without the lock
    if built is not None:
        if built.secrets:  # in use: not among those a busy process forgets
            redact.remember(*built.secrets)
        return built
    with _lock:
        built = _built(cfg)
        if built is not None:
            return built
        pending = _building.get(key)
        builder = pending is None or pending[0] is not cfg
        if builder:
            future: Future[Registry] = Future()
            _building[key] = (cfg, future)
        else:
            future = pending[1]  # type: ignore[index]
    if builder and timeout is None:
        _build(cfg, future)
    elif builder:
        try:
            threading.Thread(target=_build, args=(cfg, future), name="webproviders-registry", daemon=True).start()
        except RuntimeError as exc:  # else the build would be awaited, never started, by every call
            from ..pools import NoThread

            _unbuilt(key, future, NoThread(f"no worker thread could be started ({exc})"))
    try:
        return future.result(timeout)
    except FutureTimeout:
        from ..errors import WebTimeoutError

        record = loading_now.get(key)
        waited = f" ({record.source} plugin '{record.name}' is still loading)" if record is not None else ""
        raise WebTimeoutError(
            f"Loading plugins took longer than this call's {timeout:.1f} s{waited}; they go on loading in the "
            f"background (a plugin's register() may take up to {cfg.plugins.register_timeout:g} s, "
            "plugins.register_timeout; its import is not bounded)."
        ) from None


def _build(cfg: Config, future: Future[Registry]) -> None:
    key = id(cfg)
    try:
        registry = Registry(cfg, discover(cfg))
    except BaseException as exc:  # noqa: BLE001 - handed to every caller waiting for the build
        _unbuilt(key, future, exc)
        return
    with _lock:
        if _building.get(key, (None, None))[1] is future:
            del _building[key]
            cfg.attach((_generation, registry))
            _live.add(registry)
    future.set_result(registry)


def _unbuilt(key: int, future: Future[Registry], exc: BaseException) -> None:
    """A build that failed: its callers get ``exc``, the next call builds afresh."""
    with _lock:
        if _building.get(key, (None, None))[1] is future:
            del _building[key]
    future.set_exception(exc)


def _forget_builds() -> None:
    """In a forked child: a registry being built, a plugin being loaded, was the work of one
    of the parent's threads. Waiting for it failed every call of the child with that config
    for good ("Loading plugins took longer ..."); the child builds and loads again instead."""
    global _lock
    _lock = threading.Lock()
    _building.clear()
    for registry in list(_live):
        registry.forget_unfinished()


def _finish_loads() -> None:
    """Before a fork: let the registry builds and plugin loads under way end (at most
    :data:`~webproviders.forklock.FORK_WAIT` seconds). One cut off in the child left the
    plugin's module half imported there: the child's own load found no ``register()`` in it
    and failed the plugin for good."""
    from ..forklock import FORK_WAIT  # here: listing providers loads no more than it needs

    under_way = [future for _config, future in list(_building.values())]
    for registry in list(_live):
        under_way.extend(future for future in list(registry._loading.values()) if not future.done())
    if under_way:
        wait(under_way, FORK_WAIT)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_finish_loads, after_in_child=_forget_builds)


def clear_registry_cache() -> None:
    """Forget every built registry (after installing a plugin, or in tests)."""
    global _generation
    with _lock:
        _generation += 1
        _live.clear()
        _building.clear()


def list_providers(config: Config | None = None, *, load: bool = False) -> list[dict[str, Any]]:
    """Name, display name, capabilities, availability (and why not), whether the code has
    loaded, source and load error.

    Read from the plugins' manifests: no plugin code is imported for it (except plugins that
    declare no provider, whose code alone says what they serve). ``load=True`` loads every
    plugin first, as ``webproviders providers`` does, to show the ones that fail.
    """
    return get_registry(config).list_providers(load)
