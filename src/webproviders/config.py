"""Configuration: ``config.yaml`` validated with pydantic, ``${VAR}`` interpolation, env overrides.

A :class:`Config` can be passed to every dispatch call; :func:`default_config` loads one
lazily, once, for callers that do not care.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from ._version import __version__
from .accounting.prices import PriceSheet
from .redact import get_logger, scrub

log = get_logger("webproviders.config")

CONFIG_ENV = "WEBPROVIDERS_CONFIG"
DEFAULT_CONFIG_PATH = Path("~/.config/webproviders/config.yaml")
DEFAULT_PLUGIN_DIR = Path("~/.config/webproviders/plugins")

#: A backend choice: one name, an ordered fallback chain, or ``{"fuse": [...]}``.
BackendSpec = str | list[str] | dict[str, list[str]]


class ConfigError(ValueError):
    """A config file or value is wrong; the message names the key (and the file)."""


class ProviderSettings(BaseModel):
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
    price: PriceSheet | None = None

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
    return ProviderSettings()


class PluginSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: list[str] = Field(default_factory=list)
    disabled: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    #: Seconds a plugin's ``register()`` may run before the plugin is recorded as failed and skipped.
    register_timeout: float = Field(default=5.0, gt=0, le=300)
    #: Seconds a provider's ``is_available()`` may run before the provider is skipped as unavailable.
    availability_timeout: float = Field(default=1.0, gt=0, le=60)


class CacheTTL(BaseModel):
    """Seconds an answer stays cached, per capability (0 = not cached)."""

    model_config = ConfigDict(extra="forbid")

    search: float = Field(default=3600.0, ge=0)
    extract: float = Field(default=86400.0, ge=0)
    crawl: float = Field(default=0.0, ge=0)


class CacheSettings(BaseModel):
    """``web.cache``: where answers are cached (``web.cache: false`` turns caching off)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    backend: Literal["memory", "sqlite", "redis"] = "memory"
    #: Redis URL for the ``redis`` backend (``redis://host:6379/0``).
    url: str | None = None
    #: SQLite file for the ``sqlite`` backend (default ``~/.cache/webproviders/cache.sqlite3``).
    path: str | None = None
    ttl: CacheTTL = Field(default_factory=CacheTTL)
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
    def _check_backend(self) -> CacheSettings:
        if self.backend == "redis" and not self.url:
            raise ValueError("the redis cache backend needs web.cache.url (redis://host:6379/0)")
        return self


class RateLimitSettings(BaseModel):
    """``web.rate_limit``: where request budgets are kept (this process, or a shared Redis)."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = None
    namespace: str = "webproviders"
    #: Seconds one Redis operation may take before the call falls back to this process's budget.
    timeout: float = Field(default=1.0, gt=0, le=60)


class HealthSettings(BaseModel):
    """``web.health``: when a failing provider is left alone, and for how long."""

    model_config = ConfigDict(extra="forbid")

    #: Failed calls within ``window`` seconds that start a cool-down.
    failures: int = Field(default=5, ge=1)
    window: float = Field(default=60.0, gt=0)
    #: Seconds a provider is skipped after too many failures.
    cooldown: float = Field(default=30.0, ge=0)
    #: Seconds after a 429 that gave no Retry-After.
    rate_limit_cooldown: float = Field(default=5.0, ge=0)
    #: Seconds after an out-of-quota answer.
    quota_cooldown: float = Field(default=3600.0, ge=0)


class RetrySettings(BaseModel):
    """``web.retry``: retries of transient failures (per provider: ``max_retries``, ``backoff``)."""

    model_config = ConfigDict(extra="forbid")

    max_retries: int = Field(default=2, ge=0, le=10)
    backoff: float = Field(default=0.25, ge=0)
    max_backoff: float = Field(default=8.0, ge=0)


class BudgetLimits(BaseModel):
    """A spending cap per UTC day and per UTC month, in dollars (either may be left out)."""

    model_config = ConfigDict(extra="forbid")

    daily_usd: float | None = Field(default=None, ge=0)
    monthly_usd: float | None = Field(default=None, ge=0)


class BudgetSettings(BudgetLimits):
    """``web.budget``: caps over all calls, per provider and per tag value."""

    per_provider: dict[str, BudgetLimits] = Field(default_factory=dict)
    #: Caps for each value of a tag: ``{user: {daily_usd: 0.5}}`` gives every user $0.50 a day.
    per_tag: dict[str, BudgetLimits] = Field(default_factory=dict)

    def active(self) -> bool:
        """Whether any cap is set."""
        scopes = [self, *self.per_provider.values(), *self.per_tag.values()]
        return any(s.daily_usd is not None or s.monthly_usd is not None for s in scopes)


class UsageSettings(BaseModel):
    """``web.usage``: the ledger of requests that reached a vendor (``web.usage: false`` turns it off)."""

    model_config = ConfigDict(extra="forbid")

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


class LocalIndexSettings(BaseModel):
    """``web.local``: filling the local page index (where it lives: ``web.providers.local``)."""

    model_config = ConfigDict(extra="forbid")

    #: Add the pages of every successful extract and crawl, from any backend, to the index.
    index: bool = False


class ExtractionSettings(BaseModel):
    """``web.extraction``: the worker processes that turn fetched pages into text, and their limits."""

    model_config = ConfigDict(extra="forbid")

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


class WebSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: BackendSpec | None = None
    search_backend: BackendSpec | None = None
    extract_backend: BackendSpec | None = None
    crawl_backend: BackendSpec | None = None
    timeout: float = Field(default=30.0, gt=0)
    on_unsupported: Literal["warn", "error"] = "warn"
    user_agent: str | None = None
    proxy: str | None = None
    allow_private_networks: bool = False
    allowed_hosts: list[str] = Field(default_factory=list)
    max_response_bytes: int = Field(default=5_000_000, gt=0)
    providers: dict[str, ProviderSettings] = Field(default_factory=dict)
    cache: CacheSettings = Field(default_factory=CacheSettings)
    rate_limit: RateLimitSettings = Field(default_factory=RateLimitSettings)
    health: HealthSettings = Field(default_factory=HealthSettings)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    usage: UsageSettings = Field(default_factory=UsageSettings)
    local: LocalIndexSettings = Field(default_factory=LocalIndexSettings)
    extraction: ExtractionSettings = Field(default_factory=ExtractionSettings)
    #: In a chain, an empty result list moves on to the next provider too.
    failover_on_empty: bool = False

    @field_validator("providers", mode="before")
    @classmethod
    def _empty_sections(cls, value: Any) -> Any:
        """A provider section with only comments under it parses as null: treat it as empty."""
        if isinstance(value, dict):
            return {name: {} if section is None else section for name, section in value.items()}
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


class McpSettings(BaseModel):
    """``mcp``: settings of the ``webproviders mcp`` server."""

    model_config = ConfigDict(extra="forbid")

    #: Bearer token the HTTP transport requires (``$WEBPROVIDERS_MCP_TOKEN`` wins when set).
    token: SecretStr | None = None


class Config(BaseModel):
    """The whole configuration. Build one with :func:`load_config` or directly."""

    model_config = ConfigDict(extra="forbid")

    web: WebSettings = Field(default_factory=WebSettings)
    plugins: PluginSettings = Field(default_factory=PluginSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    #: Where this config came from (a path, or None for defaults / code).
    source: str | None = Field(default=None, exclude=True)

    def provider(self, name: str) -> ProviderSettings:
        """Settings for one provider (empty settings when the section is absent)."""
        return self.web.providers.get(name) or _no_settings()

    def secrets(self) -> list[str]:
        """Every API key in this config, for scrubbing error text."""
        keys = [key for settings in self.web.providers.values() for key in settings.api_keys()]
        token = self.mcp.token.get_secret_value() if self.mcp.token is not None else ""
        return keys + [token] if token else keys

    def __hash__(self) -> int:
        return id(self)


def user_agent(config: Config | None) -> str:
    """The User-Agent every request sends: ``web.user_agent``, else ``webproviders/<version>``."""
    configured = config.web.user_agent if config is not None else None
    return configured or f"webproviders/{__version__}"


_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def interpolate(value: Any, environ: dict[str, str] | os._Environ[str] | None = None) -> Any:
    """Replace ``${VAR}`` and ``${VAR:-default}`` in every string of a parsed YAML tree.

    An unset variable without a default becomes the empty string, which every key treats as
    "not set".
    """
    env = os.environ if environ is None else environ
    if isinstance(value, str):
        return _VAR.sub(lambda m: env.get(m.group(1)) or (m.group(2) or ""), value)
    if isinstance(value, list):
        return [interpolate(item, env) for item in value]
    if isinstance(value, dict):
        return {key: interpolate(item, env) for key, item in value.items()}
    return value


_ENV_OVERRIDES = {
    "WEB_BACKEND": "backend",
    "WEB_SEARCH_BACKEND": "search_backend",
    "WEB_EXTRACT_BACKEND": "extract_backend",
    "WEB_CRAWL_BACKEND": "crawl_backend",
}


def _apply_env_overrides(data: dict[str, Any], environ: dict[str, str] | os._Environ[str]) -> None:
    web = data.setdefault("web", {}) if isinstance(data.get("web", {}), dict) else None
    if web is None:
        return
    for var, key in _ENV_OVERRIDES.items():
        raw = (environ.get(var) or "").strip()
        if raw:
            names = [part.strip() for part in raw.split(",") if part.strip()]
            web[key] = names[0] if len(names) == 1 else names
    timeout = (environ.get("WEB_TIMEOUT") or "").strip()
    if timeout:
        web["timeout"] = timeout


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
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if value is None:  # a section with only comments under it: the defaults
                continue
            value = _warn_unknown_keys(value, annotation, path, source)
        cleaned[key] = value
    return cleaned


def _format_validation_error(exc: ValidationError, source: str) -> str:
    problems = []
    for err in exc.errors():
        key = ".".join(str(part) for part in err["loc"])
        problems.append(f"'{key}': {err['msg']}")
    return f"Invalid configuration in {source}: " + "; ".join(problems)


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
        config = Config.model_validate(tree)
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
_QUOTED = re.compile(r"'(?!<)[^']{4,}'")


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
        _QUOTED.sub("'***'", text) + (f" (line {mark.line + 1}, column {mark.column + 1})" if mark else "")
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
