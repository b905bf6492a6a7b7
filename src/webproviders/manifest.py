"""``plugin.yaml``: what a plugin folder declares before any of its code runs.

The registry reads manifests to list providers, say whether each can run (and why not) and
rank them for auto-detection, without importing the plugins' code: a plugin that declares
its providers and hooks is imported when one of them is first used.
"""

# No ``from __future__ import annotations`` here: pydantic reads these annotations when the
# module is imported, and as strings each would be compiled first (milliseconds at start-up).

import contextlib
import datetime
import importlib.util
import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from . import useryaml
from .pydanticplugins import look_up_plugins

look_up_plugins()  # before the first model: another package's broken entry points fail it

if TYPE_CHECKING:
    from .config import ProviderSettings
    from .price import PriceSheet

Capability = Literal["search", "extract", "crawl"]
CAPABILITIES: tuple[Capability, ...] = ("search", "extract", "crawl")
#: The capabilities that read pages at URLs a caller gives.
Fetching = Literal["extract", "crawl"]
#: Where a provider's extract or crawl fetches the page: on this machine (``local``), on
#: the vendor's servers (``vendor``), or nowhere (``none``: computed, or read from an index).
FetchPlace = Literal["local", "vendor", "none"]
#: The dispatch hooks a plugin may implement besides ``register``.
Hook = Literal["before_dispatch", "after_dispatch"]

#: Auto-detect bands: keyed vendors first, then self-hosted URLs, then keyless backends.
PRIORITY_KEYED = 20
PRIORITY_SELF_HOSTED = 50
PRIORITY_KEYLESS = 80

#: A variable's name as a shell can set it (``export ACME_API_KEY=...``).
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_env_name(name: str) -> str:
    """A name with a space or ``=`` no shell can set: the provider stayed unavailable, saying
    to set a variable no one could. Not quoted back: it may be the key itself, written there."""
    if not _ENV_NAME.fullmatch(name):
        raise ValueError(
            "should be an environment variable's name: letters, digits and '_', not starting with a digit "
            "(such as ACME_API_KEY), not the value it holds"
        )
    return name


#: A key of ``web.providers.<name>`` as a config file writes it (``api_key``, ``base_url``),
#: and as a setting's dotted path names it (``hooks_when``).
_CONFIG_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _check_config_key(key: str) -> str:
    """A key no config file writes (``not a key``) stood in for nothing, and the sentence
    saying what to set named it all the same."""
    if not _CONFIG_KEY.fullmatch(key):
        raise ValueError(
            "should be a key of web.providers.<name> as a config file writes it: letters, digits, '_' and "
            f"'-', starting with a letter or '_' (such as api_key or base_url), not {key!r}"
        )
    return key


EnvName = Annotated[str, AfterValidator(_check_env_name)]
ConfigKey = Annotated[str, AfterValidator(_check_config_key)]


class EnvVar(BaseModel):
    """A credential or setting read from the environment."""

    model_config = ConfigDict(extra="forbid")

    key: EnvName
    prompt: str = ""
    url: str = ""
    #: Other names accepted for the same value (``SEARXNG_BASE_URL`` for ``SEARXNG_URL``).
    aliases: list[EnvName] = []
    #: Needed for the provider to be available (unless the config section provides it).
    required: bool = True
    #: Whether the value is a secret to scrub from error text and logs.
    secret: bool = True
    #: The ``web.providers.<name>`` key that can stand in for this variable.
    config_key: ConfigKey | None = "api_key"
    #: A ``web.providers.<name>`` key (``base_url``) whose being set, in the config or in the
    #: variable declared for it, makes this one unneeded: a self-hosted instance needs no key.
    required_unless: ConfigKey | None = None
    #: Capabilities that need this value though the provider serves its others without it
    #: (jina's search needs its key, its reader does not): listed as unavailable while it is unset.
    needed_for: list[Capability] = []

    def names(self) -> list[str]:
        return [self.key, *self.aliases]

    def value(self, environ: os._Environ[str] | dict[str, str] | None = None) -> str | None:
        env = os.environ if environ is None else environ
        for name in self.names():
            found = (env.get(name) or "").strip()
            if found:
                return found
        return None


def _check_module(module: str) -> str:
    """A module is looked up by the name Python imports: one written as pip spells the package
    (``acme-sdk``) is never found, so the provider stayed unavailable after it was installed."""
    if not all(part.isidentifier() for part in module.split(".")):
        raise ValueError(
            "should be the name Python imports, as in `import acme_sdk` (dotted names, letters, digits "
            "and '_'), not the name pip installs"
        )
    return module


class Package(BaseModel):
    """An optional Python package the provider imports on first use."""

    model_config = ConfigDict(extra="forbid")

    module: Annotated[str, AfterValidator(_check_module)]
    pip: str
    #: What to do after installing it (``run crawl4ai-setup to install its browser``).
    setup: str = ""
    #: A ``web.providers.<name>`` key (``dsn``) that needs the package: unset, in the config
    #: and in the variable declared for it, the provider runs without it.
    when: ConfigKey | None = None

    def installed(self) -> bool:
        try:
            return importlib.util.find_spec(self.module) is not None
        except (ImportError, ValueError):
            return False


#: At most 64 characters, as long as a ``backend=`` name may be (``validate.MAX_BACKEND_CHARS``):
#: a longer one could not be named, and would go whole into every envelope, span and metric.
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def _check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise ValueError(
            "should be 1 to 64 lowercase letters, digits, '-' or '_', starting with a letter or a digit "
            "(such as 'acme-search')"
        )
    return name


def _check_fetch(value: Any) -> Any:
    """A mapping's wrong key or place, named: the union's own error said only that the value
    should be a place "or a mapping", of a mapping whose key was the mistake."""
    if isinstance(value, dict):
        for key, place in value.items():
            if key not in get_args(Fetching):
                raise ValueError(f"{key!r} is not a key this takes: a place is said for extract and crawl")
            if place not in get_args(FetchPlace):
                raise ValueError(f"the place for {key} should be 'local', 'vendor' or 'none', not {place!r}")
    return value


_SETTING_PATH = re.compile(r"[a-z_]+(\.[A-Za-z0-9_-]+)+")


def _check_setting_path(path: str) -> str:
    """A ``hooks_when`` that names no setting's path, said in words (its pattern's error quoted
    the regular expression)."""
    if not _SETTING_PATH.fullmatch(path):
        raise ValueError(
            f"should be a setting's dotted path, such as web.local.index or web.providers.acme.index, not {path!r}"
        )
    return path


#: A plugin's or a provider's name, as config files and backend lists write it.
Name = Annotated[str, AfterValidator(_check_name)]


def _check_capabilities(capabilities: list[Capability]) -> list[Capability]:
    """A provider that serves nothing is never asked, and was listed as available all the same."""
    if not capabilities:
        raise ValueError("should list what the provider serves: one or more of search, extract and crawl")
    return capabilities


def _check_rank(rank: int) -> int:
    """A negative rank put a plugin ahead of every keyed vendor, outside the bands auto-detection reads."""
    if rank < 0:
        raise ValueError(
            f"should be 0 or more, lower tried first: 20-49 for a keyed vendor, 50-79 self-hosted, "
            f"80-99 keyless; not {rank}"
        )
    return rank


def _check_providers(providers: list["ProviderManifest"]) -> list["ProviderManifest"]:
    """A provider listed twice was recorded as taking its own name, a duplicate of itself."""
    seen: set[str] = set()
    for provider in providers:
        if provider.name in seen:
            raise ValueError(f"lists provider '{provider.name}' twice: list each provider once, by a name of its own")
        seen.add(provider.name)
    return providers


Rank = Annotated[int, AfterValidator(_check_rank)]


class ProviderManifest(BaseModel):
    """One provider a plugin registers."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    display_name: str | None = None
    capabilities: Annotated[list[Capability], AfterValidator(_check_capabilities)] = ["search"]
    env: list[EnvVar] = []
    packages: list[Package] = []
    #: Auto-detect rank: lower is tried first (see the PRIORITY_* bands).
    priority: Rank = PRIORITY_KEYED
    #: The rank once an API key is set, for a provider that also works without one (the
    #: Jina reader ranks as keyless, and in the keyed band with a key).
    keyed_priority: Rank | None = None
    #: False keeps a provider out of auto-detection (it is used only when named).
    auto_detect: bool = True
    #: Default request budget, e.g. ``"1/s"`` (config ``rate_limit`` overrides it).
    rate_limit: str | None = None
    #: Seconds a call to this provider may need (a model that searches and writes, say). A
    #: call with no ``timeout=`` and no ``web.timeout`` set gets this long a deadline.
    timeout: float | None = Field(default=None, gt=0)
    #: List prices per unit, with their date and source (keyed providers; see
    #: docs/cost-and-usage.md), as written: checked by :meth:`price_sheet` when the plugin's
    #: code loads, so that listing providers loads no price schema.
    price: Any = None
    #: The checked ``price``, with the value it was checked from.
    _sheet: tuple[Any, Any] | None = PrivateAttr(default=None)
    #: False keeps this provider's answers out of the answer cache: they are cheaper to
    #: compute than to cache, or change between calls (a local index that is being filled).
    cache: bool = True
    #: True when the vendor answers each account after its own settings (Kagi's blocked and
    #: promoted sites): its answers are cached per set of keys, and never served to a caller
    #: asking with other keys, as every other provider's are.
    answers_per_key: bool = False
    #: Where extract and crawl fetch pages, which decides how their URLs are screened: one
    #: place for both, or one per capability (``{extract: none}``). Undeclared is ``local``,
    #: the strictest screen (docs/security.md).
    fetch: Annotated[FetchPlace | dict[Fetching, FetchPlace], BeforeValidator(_check_fetch)] = "local"
    #: For a ``vendor`` fetch: whether the vendor's software can run on the operator's own
    #: network (Firecrawl, the Jina reader), so an endpoint configured there fetches from it and
    #: is screened as ``local``. False for a vendor that runs only on its own servers: an
    #: endpoint on the operator's network is then a gateway in front of them, and the vendor
    #: still fetches. True unless declared, the stricter reading.
    self_hostable: bool = True
    homepage: str = ""
    #: Short labels a setup wizard shows beside the name ("free", "paid", "keyless").
    badge: str = ""
    tag: str = ""
    #: The keys of ``web.providers.<name>`` this provider reads besides the shared ones
    #: (``model``, ``cx``, ``concurrency``); declared, any other key there is named as doing
    #: nothing (a typo, another provider's key). Undeclared: not checked.
    options: list[ConfigKey] | None = None

    @field_validator("env")
    @classmethod
    def _needed_for_served(cls, env: list[EnvVar], info: ValidationInfo) -> list[EnvVar]:
        """A variable ``needed_for`` a capability the provider does not serve listed it as
        unavailable for that capability, which it never had."""
        served = info.data.get("capabilities")
        for var in env if served is not None else ():
            unserved = [capability for capability in var.needed_for if capability not in served]
            if unserved:
                raise ValueError(
                    f"{var.key} is needed_for {', '.join(unserved)}, which the provider does not serve: list only "
                    f"capabilities it has ({', '.join(served)})"
                )
        return env

    def read_keys(self) -> frozenset[str]:
        """Every provider-specific key this provider reads: its ``options``, the config keys
        its variables stand in for, and ``max_pages`` for a crawl (which the cost of a crawl
        is worked out from, whoever runs it)."""
        keys = {*(self.options or ()), *(var.config_key for var in self.env if var.config_key)}
        if "crawl" in self.capabilities:
            keys.add("max_pages")
        return frozenset(keys)

    def setup_schema(self, display_name: str) -> dict[str, Any]:
        """What :meth:`WebSearchProvider.get_setup_schema` returns for this provider."""
        return {
            "name": display_name,
            "badge": self.badge,
            "tag": self.tag,
            "env_vars": [{"key": var.key, "prompt": var.prompt, "url": var.url} for var in self.env],
        }

    def price_sheet(self) -> "PriceSheet | None":
        """The ``price:`` entry, validated (once); raises :class:`ManifestError` naming the key."""
        if self.price is None:
            return None
        cached = self._sheet
        if cached is not None and cached[0] is self.price:
            return cached[1]  # type: ignore[no-any-return]
        from .price import PriceSheet

        try:
            sheet = PriceSheet.model_validate(self.price)
        except ValidationError as exc:
            raise ManifestError(f"the price of provider '{self.name}' is invalid: {_problems(exc, PriceSheet, 'price')}") from None
        self._sheet = (self.price, sheet)
        return sheet

    def check_rate_limit(self) -> None:
        """Raise :class:`ManifestError` naming a ``rate_limit`` that is no budget (``5 per
        second``): every call to the provider failed on it, saying neither which provider nor
        which key. Checked as the code registers, as ``price`` is, so listing loads no
        rate-limit code."""
        if self.rate_limit is None:
            return
        from .dependable.ratelimit.spec import rate_or_none

        try:
            rate_or_none(self.rate_limit)
        except ValueError as exc:
            raise ManifestError(f"the rate_limit of provider '{self.name}' is invalid: {exc}") from None

    def fetch_place(self, capability: Fetching) -> FetchPlace:
        """Where this provider fetches the pages of ``capability`` (``local`` unless declared)."""
        if isinstance(self.fetch, dict):
            return self.fetch.get(capability, "local")
        return self.fetch

    def configured_endpoints(self, settings: "ProviderSettings") -> list[str]:
        """Every endpoint the operator set for this provider: ``base_url``, ``url`` or any
        ``*_url`` key of ``web.providers.<name>``, and the variables declared for them."""
        found = [settings.base_url, *(value for key, value in (settings.model_extra or {}).items() if _endpoint(key))]
        found += [var.value() for var in self.env if var.config_key and _endpoint(var.config_key)]
        return [value.strip() for value in found if isinstance(value, str) and value.strip()]

    def has_key(self, settings: "ProviderSettings") -> bool:
        """Whether a key is set for it, in the config or the environment (a provider that
        declares no secret variable counts as keyed)."""
        secrets = [var for var in self.env if var.secret]
        if not secrets or settings.api_keys():
            return True
        return any(var.value() is not None for var in secrets)

    def rank(self, settings: "ProviderSettings") -> int:
        """The auto-detect priority that applies now (``keyed_priority`` once a key is set)."""
        if self.keyed_priority is not None and self.has_key(settings):
            return self.keyed_priority
        return self.priority

    def missing(self, settings: "ProviderSettings") -> str | None:
        """Why this provider cannot run, from manifest facts alone; None if nothing is missing.

        A package that is not installed (checked without importing it), or a required
        variable that is neither set nor stood in for by its ``web.providers.<name>`` key.
        """
        present = _present_keys(settings)
        for package in self.packages:
            if package.when is not None and not self._given(package.when, present):
                continue
            if not package.installed():
                then = f", then {package.setup}" if package.setup else ""
                needs = f", which {self._setting(package.when)} needs" if package.when else ""
                return f"the '{package.module}' package is not installed{needs} (pip install '{package.pip}'{then})"
        for var in self.env:
            if not var.required or var.value() is not None or (var.config_key and var.config_key in present):
                continue
            names = f"{' or '.join(var.names())} is not set{self._hint(var.config_key)}"
            if var.required_unless is None:
                return names
            if self._given(var.required_unless, present):
                continue
            return f"{names}, and no self-hosted instance is set ({self._setting(var.required_unless)})"
        return self._unusable(settings)

    def unavailable_for(self, settings: "ProviderSettings") -> dict[str, str]:
        """Why each capability that needs a value not set (``needed_for``) cannot run, by capability."""
        present = _present_keys(settings)
        found: dict[str, str] = {}
        for var in self.env:
            if not var.needed_for or var.value() is not None or (var.config_key and var.config_key in present):
                continue
            for capability in var.needed_for:
                found.setdefault(capability, f"{' or '.join(var.names())} is not set{self._hint(var.config_key)}")
        return found

    def _unusable(self, settings: "ProviderSettings") -> str | None:
        """A key no request can carry, or a base URL no request can go to (in the config, else
        in the first variable declared for it that is set): the operator's to fix, so the
        provider cannot run, as its code would find."""
        from .config import endpoint_problem, unsendable_key

        # a key a caller gave (a client's header, a tool's api_key) is named as what they set
        keys, where = settings.api_keys(), settings.key_origin or f"web.providers.{self.name}.api_key"
        if not keys:
            keys, where = self._from_env("api_key", lambda value: [p.strip() for p in value.split(",") if p.strip()])
        problem = unsendable_key(keys, where) if keys else None
        url, where = (settings.base_url or "").strip(), f"web.providers.{self.name}.base_url"
        if not url:
            found, where = self._from_env("base_url", lambda value: [value.strip()] if value.strip() else [])
            url = found[0] if found else ""
        return problem or (endpoint_problem(url, where) if url else None)

    def _from_env(self, key: str, read: Callable[[str], list[str]]) -> tuple[list[str], str]:
        """What the first variable declared for ``web.providers.<name>.<key>`` that is set
        holds (read by ``read``), and its name."""
        for var in self.env:
            if var.config_key == key:
                for name in var.names():
                    found = read(os.environ.get(name) or "")
                    if found:
                        return found, name
        return [], ""

    def _setting(self, key: str) -> str:
        """Where ``web.providers.<name>.<key>`` is set: the variables declared for it, then the key."""
        where = [n for var in self.env if var.config_key == key for n in var.names()]
        return " or ".join([*where, f"web.providers.{self.name}.{key}"])

    def _given(self, key: str, present: set[str]) -> bool:
        """Whether ``web.providers.<name>.<key>`` is set, in the config or in the variable declared for it."""
        return key in present or any(var.value() is not None for var in self.env if var.config_key == key)

    def _hint(self, config_key: str | None) -> str:
        return f" (or web.providers.{self.name}.{config_key})" if config_key else ""


def _present_keys(settings: "ProviderSettings") -> set[str]:
    """The ``web.providers.<name>`` keys that are set, shared and vendor-specific ones alike."""
    present = {key for key, value in settings if key != "api_key" and value not in (None, "", [])}
    present |= {key for key, value in (settings.model_extra or {}).items() if value}
    if settings.api_keys():  # an empty ``${VAR}`` is no key
        present.add("api_key")
    return present


class PluginManifest(BaseModel):
    """A plugin folder's ``plugin.yaml``."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    kind: Literal["backend"] = "backend"
    description: str = ""
    version: str = "0"
    providers: Annotated[list[ProviderManifest], AfterValidator(_check_providers)] = []
    #: The dispatch hooks its code implements. Declared (``[]`` for none), the plugin is
    #: imported only when one of its providers is first used; left out, it is imported
    #: before the first dispatch, in case it has some.
    hooks: list[Hook] | None = None
    #: The config setting its dispatch hooks serve, as a dotted path (``web.local.index``,
    #: ``web.providers.<name>.<key>``): while it is not true, they are not called and do not
    #: make the plugin load before the first dispatch, so a feature that is off costs nothing.
    hooks_when: Annotated[str, AfterValidator(_check_setting_path)] | None = None


def _endpoint(key: str) -> bool:
    """Whether a ``web.providers.<name>`` key holds an endpoint URL (``base_url``, ``reader_url``)."""
    return key == "url" or key.endswith("_url")


class ManifestError(ValueError):
    """A ``plugin.yaml`` is missing or invalid."""


def read_manifest(folder: Path) -> PluginManifest:
    """Parse and validate ``folder/plugin.yaml``.

    Parsing YAML is most of the cost of listing providers at start-up (the constructor runs
    in Python), so the parsed file is kept as JSON beside the plugin's bytecode, after the
    very YAML it came from: a changed file is parsed again (a copy of an older version is
    never used: the bytes are compared, no digest is trusted), and the copy is validated as
    the file would be. It is trusted as the bytecode beside it is: whoever may write one may
    write the other.
    """
    path = folder / "plugin.yaml"
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a pipe would hold the reader until written to
            raise ManifestError(f"{path} is not a file; a plugin.yaml is a file of text")
        raw = useryaml.read_bytes(path)
    except OSError as exc:
        raise ManifestError(f"cannot read {path}: {exc.strerror}") from None
    except useryaml.TooLarge as exc:
        # A 60 MB one (a pasted log) cost every listing, CLI start and MCP server start 3 s and 380 MB.
        raise ManifestError(
            f"{path} {exc}; a plugin.yaml declares facts (its providers, their variables and prices), "
            "and every listing and start reads it"
        ) from None
    head = b"%d\n" % len(raw)  # the copy: the YAML's length, the YAML, then its JSON
    stored = _parsed_copy(folder)
    if stored is not None and stored.startswith(head) and stored.startswith(raw, len(head)):
        try:
            return PluginManifest.model_validate_json(stored[len(head) + len(raw) :])
        except ValidationError:
            pass  # written by another version of the models: parse the file
    try:
        data: Any = useryaml.load(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{path} is not UTF-8 text (byte {exc.start + 1} cannot be read); save it as UTF-8") from None
    except yaml.YAMLError as exc:
        # One sentence, as a config file's: a listing shows it on one line.
        from .config import yaml_problem

        raise ManifestError(f"{path} is not valid YAML: {yaml_problem(exc)}") from None
    except useryaml.NotAName as exc:  # as a config file's is: a !!binary value was decoded
        raise ManifestError(f"{path} is invalid: {exc}") from None
    except useryaml.YAMLShapeError as exc:
        raise ManifestError(f"{path} {exc}") from None
    try:
        manifest = PluginManifest.model_validate(data or {})
    except ValidationError as exc:
        raise ManifestError(f"{path} is invalid: {_problems(exc, PluginManifest)}") from None
    _keep_parsed_copy(folder, head + raw, data or {}, manifest)
    return manifest


def _parsed_copy_path(folder: Path) -> Path:
    """Where Python keeps the folder's bytecode (``__pycache__``, or under ``PYTHONPYCACHEPREFIX``)."""
    return Path(importlib.util.cache_from_source(str(folder / "plugin.py"))).with_name("plugin.yaml.json")


def _parsed_copy(folder: Path) -> bytes | None:
    try:
        return _parsed_copy_path(folder).read_bytes()
    except OSError:
        return None


def _keep_parsed_copy(folder: Path, source: bytes, data: Any, manifest: PluginManifest) -> None:
    """Write the parsed file where Python would write bytecode, when it would (not under
    ``PYTHONDONTWRITEBYTECODE``; a folder that cannot be written is left alone). A file whose
    JSON would read differently is not kept (a YAML type JSON lacks; a date is kept as the
    ISO text the price schema reads)."""
    if sys.dont_write_bytecode:
        return
    import json
    import tempfile

    try:
        text = json.dumps(data, default=_iso_date, ensure_ascii=False, separators=(",", ":"))
        if PluginManifest.model_validate_json(text).model_dump(mode="json") != manifest.model_dump(mode="json"):
            return
    except (TypeError, ValueError):
        return
    target = _parsed_copy_path(folder)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".plugin.yaml.")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(source + text.encode("utf-8"))
        os.replace(temporary, target)  # readers see the old copy or the new one, never half
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _iso_date(value: Any) -> str:
    """YAML reads ``2026-11-23`` as a date; JSON keeps it as the text pydantic reads back."""
    if isinstance(value, datetime.date):
        return value.isoformat()
    raise TypeError(type(value).__name__)


def provider_manifest(data: dict[str, Any]) -> ProviderManifest:
    """``data`` as a provider's manifest (what ``register()`` gives and finds), or a
    :class:`ManifestError` naming each wrong key on one line, as a ``plugin.yaml``'s are."""
    try:
        return ProviderManifest.model_validate(data)
    except ValidationError as exc:
        name = data.get("name")
        who = f"'{name if len(name) <= 64 else name[:61] + '...'}'" if isinstance(name, str) else "registered"
        raise ManifestError(f"the manifest of provider {who} is invalid: {_problems(exc, ProviderManifest)}") from None


def _problems(exc: ValidationError, model: type[BaseModel], *prefix: str) -> str:
    """Each validation error as ``'key.path': sentence``."""
    from .validation_problems import problems

    return "; ".join(problems(exc, model, prefix))
