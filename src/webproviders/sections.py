"""The config sections of features a process may never use: the cache, rate limits, health,
retries, budgets, the usage ledger, the local index, extraction, the MCP server.

:mod:`webproviders.config` names them by string (``Lazy["CacheSettings"]``), so this module
loads only when a config gives one of them or one is first read: a process that lists
providers with the defaults defines none of these models.
"""

# No ``from __future__ import annotations`` here: pydantic reads these annotations when the
# module is imported, and as strings each would be compiled first.

import re
from typing import Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator

from .config import SWITCH_OFF, SWITCH_ON, LazySection, setting_url
from .redact import scrub

#: What a Redis client reads: ``redis://`` and ``rediss://`` (TLS) addresses, ``unix://`` sockets.
REDIS_SCHEMES = ("redis", "rediss", "unix")


def redis_url(value: str | None, what: str) -> str | None:
    """``value`` if a Redis client can read it; otherwise an error that says what is wrong
    without the URL itself (it may hold a password). Checked when the config loads, so a typo
    (or a missing client package) is a config error rather than a failure of every call that
    uses the store."""
    if not value:
        return None
    parts = setting_url(value, what)
    if parts.scheme not in REDIS_SCHEMES:
        raise ValueError(f"{what} must start with redis://, rediss:// or unix:// (redis://host:6379/0)")
    if parts.scheme == "unix" and not parts.path:
        raise ValueError(f"{what} names no socket (unix:///path/to/redis.sock)")
    from importlib.util import find_spec

    if find_spec("redis") is None:
        raise ValueError(f"{what} needs the redis package: pip install 'webproviders[redis]'")
    import redis

    try:  # reads the URL's settings (?socket_timeout=, ?db=) as the stores' client will; no connection
        # A connection object is made, not opened: TLS settings (?ssl_cert_reqs=) are read only then.
        redis.ConnectionPool.from_url(value).make_connection()
    except (ValueError, redis.RedisError) as exc:  # the client's words name the setting, never its value
        raise ValueError(f"{what} has a setting the Redis client cannot read ({scrub(str(exc))})") from None
    except TypeError as exc:  # a setting this kind of connection has no parameter for (?ssl_cert_reqs= on redis://)
        name = re.search(r"argument '([^']+)'", str(exc))
        hint = " (TLS settings take a rediss:// address)" if name and name[1].startswith("ssl") else ""
        raise ValueError(
            f"{what} has a setting the Redis client does not take at a {parts.scheme}:// address: "
            f"{name[1] if name else scrub(str(exc))}{hint}"
        ) from None
    return value


def switch_or_settings(value: Any, model: type) -> Any:
    """A section that ``true``/``false`` turns on or off: a boolean becomes ``{enabled: …}``,
    and a value that is neither that nor a mapping is refused naming both forms. ``${VAR}``
    always gives text: ``cache: ${CACHE}`` reads ``false``, ``off``, ``0`` as a plain switch
    does, and an unset variable (the empty string) as not set, the defaults."""
    if isinstance(value, str):
        word = value.strip().lower()
        if not word:
            return {}
        if word in SWITCH_ON + SWITCH_OFF:
            return {"enabled": word in SWITCH_ON}
    if isinstance(value, bool):
        return {"enabled": value}
    if not isinstance(value, (dict, model)):
        raise ValueError(  # noqa: TRY004 - pydantic reports a ValueError as the key's problem
            "should be true, false or a mapping of settings (key: value lines indented beneath it)"
        )
    return value


class CacheTTL(LazySection):
    """Seconds an answer stays cached, per capability (0 = not cached)."""

    search: float = Field(default=3600.0, ge=0)
    extract: float = Field(default=86400.0, ge=0)
    crawl: float = Field(default=0.0, ge=0)


def file_path(value: str | None) -> str | None:
    """``value``, refused when it holds a NUL, which no file's path can: checked when the config
    loads, else every call went on without the store, warning ``embedded null byte``."""
    if value and "\x00" in value:
        raise ValueError("a file's path cannot hold a NUL character (\\0); write the file's path")
    return value


class CacheSettings(LazySection):
    """``web.cache``: where answers are cached (``web.cache: false`` turns caching off)."""

    enabled: bool = True
    backend: Literal["memory", "sqlite", "redis"] = "memory"
    #: Redis URL for the ``redis`` backend (``redis://host:6379/0``).
    url: str | None = None
    #: SQLite file for the ``sqlite`` backend (default ``~/.cache/webproviders/cache.sqlite3``).
    path: str | None = None
    ttl: CacheTTL = Field(default_factory=CacheTTL.model_construct)
    #: Entries kept by the memory LRU and the SQLite file.
    max_entries: int = Field(default=10_000, gt=0)
    #: MiB the memory LRU's answers may take together, and the SQLite file's (one extract
    #: answer can weigh megabytes).
    max_mb: float = Field(default=256.0, gt=0)
    #: Key prefix in a shared Redis.
    namespace: str = "webproviders"
    #: Seconds one SQLite or Redis operation may take before the call goes on without the cache.
    timeout: float = Field(default=1.0, gt=0, le=60)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        value = switch_or_settings(value, cls)
        if isinstance(value, dict) and "backend" not in value:
            if value.get("url"):
                return {**value, "backend": "redis"}
            if value.get("path"):  # as a url alone selects redis: a file is not kept in memory
                return {**value, "backend": "sqlite"}
        return value

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        return redis_url(value, "the cache URL")

    @field_validator("path")
    @classmethod
    def _check_path(cls, value: str | None) -> str | None:
        return file_path(value)

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

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        return redis_url(value, "the rate limit URL")


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

    @field_validator("per_tag")
    @classmethod
    def _check_tag_names(cls, value: dict[str, BudgetLimits]) -> dict[str, BudgetLimits]:
        from .accounting.tags import TAG_NAME, TAG_NAME_RULE

        refused = [name for name in value if not TAG_NAME.match(name)]
        if refused:  # no call can carry such a tag, so its cap would never apply
            raise ValueError(f"{', '.join(map(repr, refused))} is no tag name a call can give; use {TAG_NAME_RULE}")
        return value

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
        return switch_or_settings(value, cls)

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value and value.startswith("sqlite:///"):
            if value == "sqlite:///" or value.endswith("/"):
                raise ValueError("the usage ledger URL names no file (sqlite:///path/to/usage.sqlite3)")
            return file_path(value)
        if value and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("the usage ledger URL must start with redis://, rediss://, unix:// or sqlite:///")
        return redis_url(value, "the usage ledger URL")

    @field_validator("path")
    @classmethod
    def _check_path(cls, value: str | None) -> str | None:
        return file_path(value)


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
    #: The Python interpreter the workers run, with webproviders and its dependencies
    #: importable; unset, this process's own (``sys.executable``). Set it where this process
    #: is not a plain interpreter: a frozen application, or a server that embeds Python (uWSGI).
    python: str | None = None


class McpUser(LazySection):
    """One user of the MCP HTTP server: the bearer token that identifies them, written in
    the config (``${VAR}`` from the environment) or read from ``token_file``."""

    token: SecretStr | None = None
    token_file: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        """``alice: ${ALICE_MCP_TOKEN}`` is ``alice: {token: ${ALICE_MCP_TOKEN}}``."""
        if isinstance(value, (str, SecretStr)):
            return {"token": value}
        if not isinstance(value, (dict, cls)):
            raise ValueError("should be the user's token (text) or a mapping with token or token_file")  # noqa: TRY004
        return value

    @field_validator("token_file")
    @classmethod
    def _check_token_file(cls, value: str | None) -> str | None:
        return file_path(value)

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
