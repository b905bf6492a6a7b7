"""Configuration: ``config.yaml`` validated with pydantic, ``${VAR}`` interpolation, env overrides.

A :class:`Config` can be passed to every dispatch call; :func:`default_config` loads one
lazily, once, for callers that do not care.
"""

# No ``from __future__ import annotations`` here: pydantic reads these annotations when the
# module is imported, and as strings each would be compiled first (milliseconds at start-up).

import functools
import importlib
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    WrapSerializer,
    WrapValidator,
    field_validator,
    model_validator,
)

from ._version import __version__
from .redact import get_logger, scrub, url_credentials

if TYPE_CHECKING:
    from .price import PriceSheet
else:
    PriceSheet = "price:PriceSheet"  # imported when a config first sets a price (see Lazy)

log = get_logger("webproviders.config")

CONFIG_ENV = "WEBPROVIDERS_CONFIG"
DEFAULT_CONFIG_PATH = Path("~/.config/webproviders/config.yaml")
DEFAULT_PLUGIN_DIR = Path("~/.config/webproviders/plugins")

#: A backend choice: one name, an ordered fallback chain, or ``{"fuse": [...]}``.
BackendSpec = str | list[str] | dict[str, list[str]]


class ConfigError(ValueError):
    """A config file or value is wrong; the message names the key (and the file)."""


class Section(BaseModel):
    """What every config model shares: finite numbers only (``inf`` and ``NaN`` are refused
    with the key named), no value echoed in a validation error (it may be a key), and reprs
    with secrets and URL credentials masked."""

    #: Validators are built on first use: a config that sets nothing needs none.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, hide_input_in_errors=True, defer_build=True)

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            yield name, scrub(value) if isinstance(value, str) else value


class LazySection(Section):
    """A section of a feature a process may never use (the cache, budgets, the MCP server):
    its validator is built the first time a config gives it, and a config that leaves it out
    gets its defaults without one (:data:`Lazy`), outside its parent's validator. So what
    is off costs nothing at import."""


S = TypeVar("S", bound=BaseModel)


class _Given:
    """Validates a lazy section with its model when the config gives it (a model, or
    ``"module:Name"`` under ``webproviders`` for one imported only then)."""

    def __init__(self, model: type[BaseModel] | str) -> None:
        self._model = model

    @property
    def model(self) -> type[BaseModel]:
        if isinstance(self._model, str):
            module, name = self._model.split(":")
            self._model = getattr(importlib.import_module(f"webproviders.{module}"), name)
        return self._model  # type: ignore[return-value]

    def __call__(self, value: Any, handler: Any) -> Any:
        model = self.model
        return value if isinstance(value, model) else model.model_validate(value)

    @staticmethod
    def dump(value: Any, handler: Any) -> Any:
        """Serialised as its model (built first, if it never was)."""
        if isinstance(value, BaseModel) and not type(value).__pydantic_complete__:
            type(value).model_rebuild()
        return handler(value)


if TYPE_CHECKING:
    Lazy = Annotated[S, "lazy"]
else:

    class Lazy:
        """``Lazy[Model]``: a field holding a :class:`LazySection`, outside its parent's schema."""

        def __class_getitem__(cls, model: type[BaseModel] | str) -> Any:
            given = _Given(model)
            return Annotated[Any, WrapValidator(given), WrapSerializer(_Given.dump), given]


def section(model: type[LazySection]) -> Any:
    """The default of a ``Lazy[model]`` field: the model's defaults, built without validation."""
    return Field(default_factory=model.model_construct)


def _section_model(field: Any) -> type[BaseModel] | None:
    """The model of a config section field (eager or lazy), else None."""
    annotation = field.annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((item.model for item in field.metadata if isinstance(item, _Given)), None)


class ProviderSettings(Section):
    """``web.providers.<name>``: shared keys plus any vendor-specific ones (kept as extras)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    api_key: SecretStr | list[SecretStr] | None = None
    base_url: str | None = None
    timeout: float | None = Field(default=None, gt=0)
    #: Request budget (``"1/s"``, ``"100/min"``; ``off`` drops the manifest's default).
    rate_limit: str | bool | None = None
    #: Retries of transient failures for this provider (overrides ``web.retry.max_retries``).
    max_retries: int | None = Field(default=None, ge=0, le=10)
    #: First retry wait in seconds, doubled each time (overrides ``web.retry.backoff``).
    backoff: float | None = Field(default=None, ge=0)
    #: Your plan's prices, over the manifest's list prices (``0`` makes the provider free).
    price: Lazy[PriceSheet] | None = None
    #: Cap on one vendor answer, compressed and decoded bytes alike (``too_large`` beyond);
    #: unset, the vendor default of ``webproviders.vendorhttp.clients.DEFAULT_MAX_BYTES`` (32 MiB).
    max_response_bytes: int | None = Field(default=None, gt=0)

    @field_validator("rate_limit")
    @classmethod
    def _check_rate_limit(cls, value: str | bool | None) -> str | bool | None:
        from .dependable.ratelimit.spec import rate_or_none

        rate_or_none(value)
        return value

    def api_keys(self) -> list[str]:
        """Every configured key, in order (a single key is a one-item list)."""
        raw = self.api_key
        if raw is None:
            return []
        items = raw if isinstance(raw, list) else [raw]
        keys: list[str] = []
        for item in items:
            keys.extend(part.strip() for part in item.get_secret_value().split(","))
        return [k for k in keys if k]

    def option(self, key: str, default: Any = None) -> Any:
        """A vendor-specific key (``model``, ``search_depth``, ...)."""
        return (self.model_extra or {}).get(key, default)


@functools.lru_cache(maxsize=1)
def _no_settings() -> ProviderSettings:
    """The settings of a provider without a section (shared: settings are read-only)."""
    return ProviderSettings.model_construct()


class PluginSettings(Section):
    enabled: list[str] = []
    disabled: list[str] = []
    paths: list[str] = []
    #: Seconds a plugin's ``register()`` may run before the plugin is recorded as failed and skipped.
    register_timeout: float = Field(default=5.0, gt=0, le=300)
    #: Seconds a provider's ``is_available()`` may run before the provider is skipped as unavailable.
    availability_timeout: float = Field(default=1.0, gt=0, le=60)


class CacheTTL(LazySection):
    """Seconds an answer stays cached, per capability (0 = not cached)."""

    search: float = Field(default=3600.0, ge=0)
    extract: float = Field(default=86400.0, ge=0)
    crawl: float = Field(default=0.0, ge=0)


class CacheSettings(LazySection):
    """``web.cache``: where answers are cached (``web.cache: false`` turns caching off)."""

    enabled: bool = True
    backend: Literal["memory", "sqlite", "redis"] = "memory"
    #: Redis URL for the ``redis`` backend (``redis://host:6379/0``).
    url: str | None = None
    #: SQLite file for the ``sqlite`` backend (default ``~/.cache/webproviders/cache.sqlite3``).
    path: str | None = None
    ttl: CacheTTL = section(CacheTTL)
    #: Entries kept by the memory LRU and the SQLite file.
    max_entries: int = Field(default=10_000, gt=0)
    #: Key prefix in a shared Redis.
    namespace: str = "webproviders"
    #: Seconds one SQLite or Redis operation may take before the call goes on without the cache.
    timeout: float = Field(default=1.0, gt=0, le=60)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return {"enabled": value}
        if isinstance(value, dict) and value.get("url") and "backend" not in value:
            return {**value, "backend": "redis"}
        return value

    @model_validator(mode="after")
    def _check_backend(self) -> "CacheSettings":
        if self.backend == "redis" and not self.url:
            raise ValueError("the redis cache backend needs web.cache.url (redis://host:6379/0)")
        return self


class RateLimitSettings(LazySection):
    """``web.rate_limit``: where request budgets are kept (this process, or a shared Redis)."""

    url: str | None = None
    namespace: str = "webproviders"
    #: Seconds one Redis operation may take before the call falls back to this process's budget.
    timeout: float = Field(default=1.0, gt=0, le=60)


class HealthSettings(LazySection):
    """``web.health``: when a failing provider is left alone, and for how long."""

    #: Failed calls within ``window`` seconds that start a cool-down.
    failures: int = Field(default=5, ge=1)
    window: float = Field(default=60.0, gt=0)
    #: Seconds a provider is skipped after too many failures.
    cooldown: float = Field(default=30.0, ge=0)
    #: Seconds after a 429 that gave no Retry-After.
    rate_limit_cooldown: float = Field(default=5.0, ge=0)
    #: Seconds after an out-of-quota answer.
    quota_cooldown: float = Field(default=3600.0, ge=0)


class RetrySettings(LazySection):
    """``web.retry``: retries of transient failures (per provider: ``max_retries``, ``backoff``)."""

    max_retries: int = Field(default=2, ge=0, le=10)
    backoff: float = Field(default=0.25, ge=0)
    max_backoff: float = Field(default=8.0, ge=0)


class BudgetLimits(LazySection):
    """A spending cap per UTC day and per UTC month, in dollars (either may be left out)."""

    daily_usd: float | None = Field(default=None, ge=0)
    monthly_usd: float | None = Field(default=None, ge=0)


class BudgetSettings(BudgetLimits):
    """``web.budget``: caps over all calls, per provider and per tag value."""

    per_provider: dict[str, BudgetLimits] = {}
    #: Caps for each value of a tag: ``{user: {daily_usd: 0.5}}`` gives every user $0.50 a day.
    per_tag: dict[str, BudgetLimits] = {}
    #: Seconds one operation on the store that holds spending (the shared counters in
    #: ``web.rate_limit.url``) may take before the store counts as unavailable.
    timeout: float = Field(default=1.0, gt=0, le=60)
    #: What a priced request does while that store (or the usage ledger a process's counters
    #: start from) is unavailable: ``refuse`` it (``budget_store_unavailable``; a chain moves
    #: on to a free provider), or let this process's own counters decide (``local``).
    on_store_error: Literal["refuse", "local"] = "refuse"
    #: Budget counters one process keeps (per period, scope and tag value); beyond it the
    #: least recently used is dropped and starts again from the usage ledger when it comes back.
    max_counters: int = Field(default=10_000, ge=100)

    def active(self) -> bool:
        """Whether any cap is set."""
        scopes = [self, *self.per_provider.values(), *self.per_tag.values()]
        return any(s.daily_usd is not None or s.monthly_usd is not None for s in scopes)


class UsageSettings(LazySection):
    """``web.usage``: the ledger of requests that reached a vendor (``web.usage: false`` turns it off)."""

    enabled: bool = True
    #: ``redis://host:6379/0`` for a ledger shared by a fleet, or ``sqlite:///path/usage.sqlite3``.
    url: str | None = None
    #: SQLite file (default ``$XDG_DATA_HOME/webproviders/usage.sqlite3``).
    path: str | None = None
    #: Also keep the query (or URLs) of each request; off by default.
    record_queries: bool = False
    #: Days a row is kept (at least 32, so a monthly budget can be rebuilt from the ledger).
    retention_days: int = Field(default=400, ge=32)
    #: Key prefix in a shared Redis.
    namespace: str = "webproviders"
    #: Seconds one ledger operation may take (a write of a batch of rows, a running total
    #: read when a budget counter starts) before the ledger counts as unavailable.
    timeout: float = Field(default=2.0, gt=0, le=60)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return {"enabled": value} if isinstance(value, bool) else value

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value and not value.startswith(("redis://", "rediss://", "unix://", "sqlite:///")):
            raise ValueError("the usage ledger URL must start with redis://, rediss://, unix:// or sqlite:///")
        return value or None


class LocalIndexSettings(LazySection):
    """``web.local``: filling the local page index (where it lives: ``web.providers.local``)."""

    #: Add the pages of every successful extract and crawl, from any backend, to the index.
    index: bool = False


class ExtractionSettings(LazySection):
    """``web.extraction``: the worker processes that turn fetched pages into text, and their limits."""

    #: Worker processes, each extracting one page at a time (shared by every call in the process).
    workers: int = Field(default=2, ge=1, le=32)
    #: CPU seconds one page may use before its worker is stopped (the URL gets ``timeout``).
    cpu_timeout: float = Field(default=10.0, ge=1.0, le=600.0)
    #: HTML beyond this many characters is cut off before it is parsed.
    max_html_chars: int = Field(default=2_000_000, gt=0)
    #: A parsed page with more elements than this gets its plain text instead of trafilatura's
    #: main-content selection, whose cost grows with the element count.
    max_html_elements: int = Field(default=50_000, gt=0)
    #: PDF pages read at most.
    max_pdf_pages: int = Field(default=100, gt=0)
    #: Address space one worker may use, in MiB: a page that needs more gets ``too_large``.
    max_memory_mb: int = Field(default=1024, ge=256)


class WebSettings(Section):
    backend: BackendSpec | None = None
    search_backend: BackendSpec | None = None
    extract_backend: BackendSpec | None = None
    crawl_backend: BackendSpec | None = None
    timeout: float = Field(default=30.0, gt=0)
    on_unsupported: Literal["warn", "error"] = "warn"
    user_agent: str | None = None
    proxy: str | None = None
    allow_private_networks: bool = False
    allowed_hosts: list[str] = []
    max_response_bytes: int = Field(default=5_000_000, gt=0)
    providers: dict[str, ProviderSettings] = {}
    cache: Lazy[CacheSettings] = section(CacheSettings)
    rate_limit: Lazy[RateLimitSettings] = section(RateLimitSettings)
    health: Lazy[HealthSettings] = section(HealthSettings)
    retry: Lazy[RetrySettings] = section(RetrySettings)
    budget: Lazy[BudgetSettings] = section(BudgetSettings)
    usage: Lazy[UsageSettings] = section(UsageSettings)
    local: Lazy[LocalIndexSettings] = section(LocalIndexSettings)
    extraction: Lazy[ExtractionSettings] = section(ExtractionSettings)
    #: In a chain, an empty result list moves on to the next provider too.
    failover_on_empty: bool = False
    #: Seconds of silence after which a chain also starts its next provider (a hedge); off when unset.
    hedge_after: float | None = Field(default=None, gt=0, allow_inf_nan=False)

    @field_validator("providers", mode="before")
    @classmethod
    def _empty_sections(cls, value: Any) -> Any:
        """A provider section with only comments under it parses as null: treat it as empty."""
        if isinstance(value, dict):
            return {name: {} if section is None else section for name, section in value.items()}
        return value

    @field_validator("hedge_after", mode="before")
    @classmethod
    def _check_hedge_after(cls, value: Any) -> Any:
        if isinstance(value, bool):  # pydantic reports only a ValueError as a config error
            raise ValueError("hedge_after is a number of seconds above 0, not true or false")  # noqa: TRY004
        return value

    @field_validator("backend", "search_backend", "extract_backend", "crawl_backend")
    @classmethod
    def _check_backend(cls, value: BackendSpec | None) -> BackendSpec | None:
        if isinstance(value, dict):
            if set(value) != {"fuse"}:
                raise ValueError("a mapping backend must be {fuse: [name, ...]}")
            if not value["fuse"]:
                raise ValueError("fuse needs at least one provider name")
        if isinstance(value, list) and not value:
            raise ValueError("a backend list needs at least one provider name")
        return value


class McpUser(LazySection):
    """One user of the MCP HTTP server: the bearer token that identifies them, written in
    the config (``${VAR}`` from the environment) or read from ``token_file``."""

    token: SecretStr | None = None
    token_file: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        """``alice: ${ALICE_MCP_TOKEN}`` is ``alice: {token: ${ALICE_MCP_TOKEN}}``."""
        return {"token": value} if isinstance(value, (str, SecretStr)) else value

    @model_validator(mode="after")
    def _one_source(self) -> "McpUser":
        if (self.token is None) == (self.token_file is None):
            raise ValueError("give a user exactly one of token or token_file")
        return self


class McpSettings(LazySection):
    """``mcp``: settings of the ``webproviders mcp`` server."""

    #: Bearer token the HTTP transport requires (``$WEBPROVIDERS_MCP_TOKEN`` wins when set);
    #: a caller with it is no one in particular (its calls carry no user tag).
    token: SecretStr | None = None
    #: User ids and their tokens: a caller's token says who they are, and every call they
    #: make is tagged ``{user_tag: <user id>}`` (per-user budgets, ``usage --by tag:user``).
    users: dict[str, McpUser] = {}
    user_tag: str = Field(default="user", pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
    #: Whether a client may send its own vendor keys (``X-Webproviders-Key-<provider>``
    #: headers), used for its calls only.
    user_keys: bool = False

    @field_validator("users")
    @classmethod
    def _user_ids(cls, value: dict[str, McpUser]) -> dict[str, McpUser]:
        for user in value:
            if not 1 <= len(str(user)) <= 200:
                raise ValueError(f"a user id must be 1 to 200 characters long, not {user!r}")
        return value


class Config(Section):
    """The whole configuration. Build one with :func:`load_config` or directly."""

    web: WebSettings = Field(default_factory=WebSettings.model_construct)
    plugins: PluginSettings = Field(default_factory=PluginSettings.model_construct)
    mcp: Lazy[McpSettings] = section(McpSettings)
    #: Where this config came from (a path, or None for defaults / code).
    source: str | None = Field(default=None, exclude=True)

    def provider(self, name: str) -> ProviderSettings:
        """Settings for one provider (empty settings when the section is absent)."""
        return self.web.providers.get(name) or _no_settings()

    def secrets(self) -> list[str]:
        """Every secret in this config, for scrubbing: API keys, the MCP token, and the
        credentials of every URL (``base_url``, store URLs, the proxy: ``user:password@``)."""
        web = self.web
        found = [key for settings in web.providers.values() for key in settings.api_keys()]
        if self.mcp.token is not None:
            found.append(self.mcp.token.get_secret_value())
        found.extend(user.token.get_secret_value() for user in self.mcp.users.values() if user.token is not None)
        urls = [web.proxy, web.cache.url, web.rate_limit.url, web.usage.url]
        for settings in web.providers.values():
            urls.append(settings.base_url)
            urls.extend((settings.model_extra or {}).values())
        for url in urls:
            found.extend(url_credentials(url))
        return [value for value in found if value]

    def __hash__(self) -> int:
        return id(self)


def user_agent(config: Config | None) -> str:
    """The User-Agent every request sends: ``web.user_agent``, else ``webproviders/<version>``."""
    configured = config.web.user_agent if config is not None else None
    return configured or f"webproviders/{__version__}"


#: ``${VAR}`` or ``${VAR:-default}`` (a pattern, compiled by :mod:`re` on first use, not at import).
_VAR = r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}"


def interpolate(value: Any, environ: dict[str, str] | os._Environ[str] | None = None) -> Any:
    """Replace ``${VAR}`` and ``${VAR:-default}`` in every string of a parsed YAML tree.

    An unset variable without a default becomes the empty string, which every key treats as
    "not set".
    """
    env = os.environ if environ is None else environ
    if isinstance(value, str):
        return re.sub(_VAR, lambda m: env.get(m.group(1)) or (m.group(2) or ""), value)
    if isinstance(value, list):
        return [interpolate(item, env) for item in value]
    if isinstance(value, dict):
        return {key: interpolate(item, env) for key, item in value.items()}
    return value


#: Environment variables that override a ``web`` key (a comma-separated value is a chain).
ENV_OVERRIDES = {
    "WEB_BACKEND": "backend",
    "WEB_SEARCH_BACKEND": "search_backend",
    "WEB_EXTRACT_BACKEND": "extract_backend",
    "WEB_CRAWL_BACKEND": "crawl_backend",
}


#: ``WEB_ALLOW_PRIVATE_NETWORKS``: fetches from untrusted input may reach private addresses.
ALLOW_PRIVATE_ENV = "WEB_ALLOW_PRIVATE_NETWORKS"
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _apply_env_overrides(data: dict[str, Any], environ: dict[str, str] | os._Environ[str]) -> None:
    web = data.setdefault("web", {}) if isinstance(data.get("web", {}), dict) else None
    if web is None:
        return
    for var, key in ENV_OVERRIDES.items():
        raw = (environ.get(var) or "").strip()
        if raw:
            names = [part.strip() for part in raw.split(",") if part.strip()]
            web[key] = names[0] if len(names) == 1 else names
    timeout = (environ.get("WEB_TIMEOUT") or "").strip()
    if timeout:
        web["timeout"] = timeout
    private = (environ.get(ALLOW_PRIVATE_ENV) or "").strip().lower()
    if private:
        if private not in _TRUE + _FALSE:
            raise ConfigError(
                f"{ALLOW_PRIVATE_ENV} must be one of {', '.join(_TRUE + _FALSE)}, not {private!r}."
            )
        web["allow_private_networks"] = private in _TRUE


def _warn_unknown_keys(data: Any, model: type[BaseModel], where: str, source: str) -> dict[str, Any]:
    """Drop and warn about keys a model does not know, recursively; returns the cleaned tree."""
    if not isinstance(data, dict):
        return data
    cleaned: dict[str, Any] = {}
    for key, value in data.items():
        field = model.model_fields.get(key)
        path = f"{where}.{key}" if where else str(key)
        if field is None or key == "source":
            log.warning("Unknown config key '%s' in %s is ignored.", path, source)
            continue
        nested = _section_model(field)
        if nested is not None:
            if value is None:  # a section with only comments under it: the defaults
                continue
            value = _warn_unknown_keys(value, nested, path, source)
        cleaned[key] = value
    return cleaned


def _format_validation_error(exc: ValidationError, source: str) -> str:
    problems = []
    for err in exc.errors():
        key = ".".join(str(part) for part in err["loc"])
        problems.append(f"'{key}': {err['msg']}")
    return f"Invalid configuration in {source}: " + "; ".join(problems)


def _nothing_set(tree: dict[str, Any]) -> bool:
    """Whether a config tree sets nothing (only empty sections): its config is the defaults,
    built without validating (defaults are valid), so a process without a config file
    builds no validator at start."""
    return all(type(value) is dict and not value for value in tree.values())


def _defaults(tree: dict[str, Any]) -> Config:
    """The config of a tree that sets nothing, as validating it would build it."""
    given = {key: _section_model(Config.model_fields[key]).model_construct() for key in tree}  # type: ignore[union-attr]
    return Config.model_construct(**given)


def config_from_dict(
    data: dict[str, Any] | None,
    *,
    source: str = "<dict>",
    environ: dict[str, str] | os._Environ[str] | None = None,
) -> Config:
    """Validate a parsed config tree (interpolation and env overrides applied here)."""
    env = os.environ if environ is None else environ
    tree = interpolate(dict(data or {}), env)
    if not isinstance(tree, dict):
        raise ConfigError(f"Invalid configuration in {source}: the top level must be a mapping.")
    _apply_env_overrides(tree, env)
    tree = _warn_unknown_keys(tree, Config, "", source)
    try:
        config = _defaults(tree) if _nothing_set(tree) else Config.model_validate(tree)
    except ValidationError as exc:
        raise ConfigError(_format_validation_error(exc, source)) from None
    config.source = source
    return config


def config_path(path: str | os.PathLike[str] | None = None) -> Path | None:
    """The file that would be loaded: explicit path, ``$WEBPROVIDERS_CONFIG``, or the default."""
    if path is not None:
        return Path(path).expanduser()
    env_path = os.environ.get(CONFIG_ENV)
    if env_path:
        return Path(env_path).expanduser()
    default = DEFAULT_CONFIG_PATH.expanduser()
    return default if default.is_file() else None


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Load and validate a config file; no file at all means defaults (plus env overrides)."""
    file = config_path(path)
    if file is None:
        return config_from_dict({}, source="defaults")
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot read config file {file}: {exc.strerror}.") from None
    data = _parse_yaml(text, file) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"Invalid configuration in {file}: the top level must be a mapping.")
    return config_from_dict(data, source=str(file))


#: How many more values YAML aliases may add to a config than the file itself writes.
MAX_ALIAS_EXPANSION = 10_000
#: The pure-Python loader on purpose: libyaml's composer recurses in C and crashes the
#: process on a deeply nested file, where this one raises RecursionError.
_YAML_LOADER = yaml.SafeLoader
#: A quoted fragment of the file in a YAML message (a tag, an anchor): it may be a key.
_QUOTED = r"'(?!<)[^']{4,}'"


def _parse_yaml(text: str, file: Path) -> Any:
    """Parse a config file, refusing alias bombs before anything is built from them."""
    loader = _YAML_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_aliases(node, file)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise ConfigError(f"Config file {file} is not valid YAML: {_yaml_problem(exc)}.") from None
    except RecursionError:
        raise ConfigError(f"Config file {file} is nested too deeply to be a configuration.") from None
    finally:
        loader.dispose()


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """What is wrong and where, without the excerpt of the file PyYAML prints (it may hold a key)."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return scrub(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    parts = [
        re.sub(_QUOTED, "'***'", text) + (f" (line {mark.line + 1}, column {mark.column + 1})" if mark else "")
        for text, mark in ((exc.context, exc.context_mark), (exc.problem, exc.problem_mark))
        if text
    ]
    return scrub("; ".join(parts) or "a syntax error")


def _check_aliases(root: yaml.Node, file: Path) -> None:
    """Refuse a file whose aliases expand into far more values than it writes (a billion laughs)."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        known = sizes.get(id(node))
        if known is not None:
            return known
        if id(node) in open_nodes:
            raise ConfigError(f"Config file {file} has a YAML alias that refers to its own anchor.")
        open_nodes.add(id(node))
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = node.value
        total = 1 + sum(size(child) for child in children)
        open_nodes.discard(id(node))
        sizes[id(node)] = total
        return total

    added = size(root) - len(sizes)
    if added > MAX_ALIAS_EXPANSION:
        raise ConfigError(
            f"Config file {file} uses YAML aliases that would add {added:,} values to what it writes "
            f"(at most {MAX_ALIAS_EXPANSION:,} are accepted); write the values out instead."
        )


_default: Config | None = None
_default_lock = threading.Lock()


def default_config() -> Config:
    """The process-wide config, loaded on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = load_config()
    return _default


def set_default_config(config: Config | None) -> None:
    """Replace (or with None, forget) the process-wide config."""
    global _default
    _default = config
