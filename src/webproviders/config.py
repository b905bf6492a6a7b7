"""Configuration: ``config.yaml`` validated with pydantic, ``${VAR}`` interpolation, env overrides.

A :class:`Config` can be passed to every dispatch call; :func:`default_config` loads one
lazily, once, for callers that do not care.
"""

# No ``from __future__ import annotations`` here: pydantic reads these annotations when the
# module is imported, and as strings each would be compiled first (milliseconds at start-up).

import functools
import math
import os
import re
import stat
import sys
import threading
import types
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar
from urllib.parse import SplitResult, urlsplit

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import core_schema

from ._lazy import lazy_getattr
from ._version import __version__
from .homedir import expand_user, require_home, xdg_file
from .pydanticplugins import look_up_plugins
from .redact import dsn_password, get_logger, remember, scrub, url_credentials
from .surrogates import is_sound
from .useryaml import MERGE_TAG, NotAName, TooLarge, YAMLShapeError, compose, read_bytes

look_up_plugins()  # before the first model: another package's broken entry points fail it

if TYPE_CHECKING:
    from .price import PriceSheet
    from .sections import (
        BudgetSettings,
        CacheSettings,
        ExtractionSettings,
        HealthSettings,
        LocalIndexSettings,
        McpSettings,
        RateLimitSettings,
        RetrySettings,
        UsageSettings,
    )

#: The models of sections a process may never use, by name (``Lazy["CacheSettings"]``), and
#: the module under ``webproviders`` that defines each: imported when a config gives such a
#: section or one is first read. ``from webproviders.config import CacheSettings`` works too.
_LAZY_MODELS = {
    "PriceSheet": "price",
    **dict.fromkeys(
        [
            "CacheTTL",
            "CacheSettings",
            "RateLimitSettings",
            "HealthSettings",
            "RetrySettings",
            "BudgetLimits",
            "BudgetSettings",
            "UsageSettings",
            "LocalIndexSettings",
            "ExtractionSettings",
            "McpUser",
            "McpSettings",
        ],
        "sections",
    ),
}

__getattr__ = lazy_getattr(globals(), _LAZY_MODELS)

log = get_logger("webproviders.config")

CONFIG_ENV = "WEBPROVIDERS_CONFIG"


def default_config_file() -> Path:
    """``$XDG_CONFIG_HOME/webproviders/config.yaml`` (``~/.config`` when it is unset): read at
    each load, as the data files under ``$XDG_DATA_HOME`` are; the variable was ignored, and a
    config written where the user's other tools keep theirs was never read."""
    return xdg_file("XDG_CONFIG_HOME", "~/.config", "config.yaml")


def default_plugin_dir() -> Path:
    """``$XDG_CONFIG_HOME/webproviders/plugins`` (``~/.config`` when it is unset)."""
    return xdg_file("XDG_CONFIG_HOME", "~/.config", "plugins")


#: The most bytes one vendor answer may have, compressed or decoded, unless
#: ``web.providers.<name>.max_response_bytes`` says otherwise.
VENDOR_MAX_BYTES = 32 * 1024 * 1024
#: What an HTTP header's value may hold, as the HTTP client sends it: tab and printable ASCII.
HEADER_TEXT = re.compile(r"[\t\x20-\x7e]*")
#: Proxy URLs the HTTP client sends through (``web.proxy``).
PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")
#: Why a SOCKS proxy cannot be used (httpx speaks SOCKS through the optional socksio).
SOCKS_MISSING = "a SOCKS proxy needs the socksio package: pip install 'webproviders[socks]'"


#: What no URL may hold: control characters. The URL parser drops tabs and line breaks
#: without a word, so a check of its parts passed a URL the HTTP client then refused.
_NOT_IN_A_URL = re.compile(r"[\x00-\x1f\x7f]")


def setting_url(value: str, what: str) -> SplitResult:
    """``value`` split, with its port read; a ``ValueError`` naming ``what`` when either fails,
    worded without the URL (a setting's URL may hold a password)."""
    if _NOT_IN_A_URL.search(value):
        raise ValueError(
            f"{what} holds a line break, a tab or another control character, which no URL may (a value "
            "read from a file may end with its line break)"
        )
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - reading it checks it: a port that is not a number raises
    except ValueError as exc:
        raise ValueError(f"{what} cannot be read as a URL ({_why_unreadable(str(exc), value)})") from None
    return parts


def _why_unreadable(message: str, value: str) -> str:
    """What is wrong with a URL, in our words: the URL library's quote the part it could not
    read, which may be a password (one holding a ``/`` ends the host early)."""
    if message.startswith("Port out of range"):
        return "its port is outside 0 to 65535"
    if message.startswith("Port could not be cast"):
        if "@" in value:
            return (
                "its port is not a number; a '/', '?' or '#' in a user name or password must be "
                "written %2F, %3F, %23"
            )
        return "its port is not a number"
    if "IPv6" in message or "IPv4" in message:
        return "its host in [ ] is not an IP address"
    return "it is not a URL"


def endpoint_problem(url: str, where: str) -> str | None:
    """Why no request can go to ``url`` (set at ``where``: a setting or a variable), worded
    without it; None when it is an ``http(s)`` URL with a host."""
    if not is_sound(url):  # a variable holding a byte that is not UTF-8
        return f"{where} holds a character that is not text (a byte that is not UTF-8?); set it again"
    try:
        parts = setting_url(url, where)
    except ValueError as exc:
        return str(exc)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        # ``localhost:8888``, ``searx.internal/``: typed as a browser takes it
        missing = "" if "://" in url else ": it has no scheme, so write http:// or https:// before its host"
        return f"{where} is not an http:// or https:// URL with a host{missing}"
    return None


def unsendable_key(keys: list[str], where: str) -> str | None:
    """Why a key (set at ``where``) cannot be sent, worded without it; None when every key can.
    A key travels in a header or the URL, which take printable ASCII: a typographic quote or a
    non-breaking space pasted with it would fail every request as the vendor's fault."""
    if all(HEADER_TEXT.fullmatch(key) for key in keys):
        return None
    return (
        f"an API key in {where} holds a character a request cannot carry (a typographic quote or a "
        "non-breaking space, pasted with it?); type it again"
    )


def proxy_problem(value: str, *, speaks_socks: bool = False) -> str | None:
    """Why no request could go through the proxy URL ``value``, worded without it (it may
    hold a password); None when it can be used. Read for ``web.proxy`` as the config loads
    and for a proxy from the environment as a request first takes it. ``speaks_socks``: the
    client has SOCKS of its own (ddgs's), so it needs no socksio."""
    if not is_sound(value):  # a variable set from a file in another encoding: no request can carry it
        return "the proxy holds a character that is not text (a byte that is not UTF-8?); set it again"
    if value.strip(" ") != value:  # the URL parser drops a leading space; the HTTP client refuses it
        return "the proxy begins or ends with a space, which no URL may (a value copied with the space around it?)"
    try:
        parts = setting_url(value, "the proxy")
    except ValueError as exc:
        return str(exc)
    if parts.scheme not in PROXY_SCHEMES or not parts.hostname:
        # ``proxy.corp:3128``, as HTTPS_PROXY may be written (the HTTP client reads that as http://)
        missing = "" if "://" in value else ": it has no scheme, so write http:// before its host"
        return f"the proxy must be an http://, https://, socks5:// or socks5h:// URL with a host{missing}"
    if parts.scheme.startswith("socks") and not speaks_socks:
        from importlib.util import find_spec

        if find_spec("socksio") is None:
            return SOCKS_MISSING
    return None


#: A backend choice: one name, an ordered fallback chain, or ``{"fuse": [...]}``.
BackendSpec = str | list[str] | dict[str, list[str]]


def backend_names(spec: BackendSpec) -> list[str]:
    """The provider names a backend choice lists, in order. A string is split at its commas:
    ``search_backend: ${CHAIN}`` with ``CHAIN=brave,ddgs`` is a chain, as the variable
    ``WEB_SEARCH_BACKEND=brave,ddgs`` is."""
    if isinstance(spec, dict):
        return [str(n).strip() for n in spec.get("fuse", [])]
    if isinstance(spec, str):
        return [part.strip() for part in spec.split(",") if part.strip()]
    return [str(n).strip() for n in spec]


#: The longest deadline a call may have, in seconds (``web.timeout``, a call's ``timeout``).
MAX_TIMEOUT = 3600


class ConfigError(ValueError):
    """A config file or value is wrong; the message names the key (and the file)."""


def _kinds(annotation: Any) -> set[Any]:
    """The types a field's annotation admits (its union's members, ``Annotated`` unwrapped)."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _kinds(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        return {kind for member in typing.get_args(annotation) for kind in _kinds(member)}
    return {annotation}


@functools.cache
def _numbers_only(model: type[BaseModel], name: str) -> bool:
    """Whether ``model.name`` takes a number but not true or false (pydantic reads true as 1)."""
    kinds = _kinds(model.model_fields[name].annotation)
    return bool(kinds & {int, float}) and bool not in kinds


@functools.cache
def _takes_no_text(model: type[BaseModel], name: str) -> bool:
    """Whether ``model.name`` is a value that takes no text (a number, a switch, a choice, a
    list), so that an empty string there can only be an unset ``${VAR}``. (A section given as
    text is a mistake in the file's shape, refused as such.)"""
    field = model.model_fields[name]
    return _section_model(field) is None and not _kinds(field.annotation) & {str, SecretStr}


class _Shown(str):
    """Text a repr shows as it is (already scrubbed), without quotes around it."""

    def __repr__(self) -> str:
        return str(self)


class Section(BaseModel):
    """What every config model shares: finite numbers only (``inf`` and ``NaN`` are refused
    with the key named), no true or false for a number, no value echoed in a validation
    error (it may be a key), and reprs with secrets and URL credentials masked."""

    #: Validators are built on first use: a config that sets nothing needs none.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, hide_input_in_errors=True, defer_build=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_true_or_false_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        """``timeout: yes`` (YAML's true) is a mistake, not one second."""
        if isinstance(value, bool) and info.field_name and _numbers_only(cls, info.field_name):
            raise ValueError("should be a number, not true or false")
        return value

    @model_validator(mode="before")
    @classmethod
    def _empty_is_not_set(cls, data: Any) -> Any:
        """``timeout: ${SECONDS}`` with the variable unset is the empty string, which means not
        set: the key is left out, as if the line were not there (a key that takes text reads
        the empty string itself, as not set or, for a token, as a mistake to refuse)."""
        if type(data) is dict and "" in data.values():
            fields = cls.model_fields
            return {k: v for k, v in data.items() if not (v == "" and k in fields and _takes_no_text(cls, k))}
        return data

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        """``model_dump`` and ``model_dump_json`` show text as the repr does (a base URL's
        ``user:password@`` masked), since configs get logged and dumped; keys are
        ``SecretStr`` already. The attributes keep the real values for the code that connects.
        Written as a core schema, as :class:`_Given` is: ``model_serializer``'s module would
        load at start-up."""
        schema: core_schema.CoreSchema = handler(source)
        # A model validator run after the fields wraps the model (``web.cache``), and a model
        # used twice puts it among definitions: the dump is the outermost's to make.
        outer: Any = schema["schema"] if schema["type"] == "definitions" else schema
        if outer["type"] in ("model", "function-after", "function-before", "function-wrap"):
            outer["serialization"] = core_schema.wrap_serializer_function_ser_schema(
                _dumped_scrubbed, info_arg=False
            )
        return schema

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            if isinstance(value, str):
                yield name, scrub(value)
            elif type(value) in (dict, list):  # a vendor key's headers or tokens: its text scrubbed too
                yield name, _Shown(scrub(repr(value)))
            else:
                yield name, value

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Lazy sections are read through :class:`_ReadOnFirstUse`."""
        super().__pydantic_init_subclass__(**kwargs)
        for name, field in cls.model_fields.items():
            if isinstance(field.default, Unread):
                setattr(cls, name, _ReadOnFirstUse(name))


def _dumped_scrubbed(section: BaseModel, handler: Any) -> Any:
    """A section as dumped, every string in it scrubbed (see ``Section.__get_pydantic_core_schema__``)."""
    return _scrubbed(handler(section))


def _scrubbed(value: Any) -> Any:
    """``value`` (a dumped section) with every string in it scrubbed."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {key: _scrubbed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrubbed(item) for item in value]
    return value


class LazySection(Section):
    """A section of a feature a process may never use (the cache, budgets, the MCP server),
    defined in :mod:`webproviders.sections`: the model is imported and its validator built
    the first time a config gives the section, and a config that leaves it out holds
    :class:`Unread` until the section is first read (:data:`Lazy`). So what is off costs
    nothing at import, nor when providers are listed."""


S = TypeVar("S", bound=BaseModel)


def _lazy_model(name: str) -> type[BaseModel]:
    """A model of :data:`_LAZY_MODELS`, imported on first use."""
    return getattr(sys.modules[__name__], name)  # type: ignore[no-any-return]


class _Given:
    """Validates a lazy section with its model (imported then) when the config gives it,
    and serialises it as that model. Its core schema is written here rather than with
    pydantic's ``WrapValidator``/``WrapSerializer``, whose module would load at start-up."""

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def model(self) -> type[BaseModel]:
        return _lazy_model(self.name)

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_wrap_validator_function(
            self,
            core_schema.any_schema(),
            serialization=core_schema.wrap_serializer_function_ser_schema(_Given.dump, info_arg=False),
        )

    def __call__(self, value: Any, handler: Any) -> Any:
        model = self.model
        return value if isinstance(value, model) else model.model_validate(value)

    @staticmethod
    def dump(value: Any, handler: Any) -> Any:
        """Serialised as its model (built first, if it never was); unread, as its defaults."""
        if isinstance(value, Unread):
            value = value.defaults()
        if isinstance(value, BaseModel) and not type(value).__pydantic_complete__:
            type(value).model_rebuild()
        return handler(value)


class Unread:
    """What a lazy section no config gave holds until it is first read: then its model is
    imported and its defaults built, without validation (defaults are valid). It equals
    those defaults and is dumped as them."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def defaults(self) -> BaseModel:
        return _lazy_model(self.name).model_construct()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Unread):
            return other.name == self.name
        return self.defaults() == other if isinstance(other, BaseModel) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __deepcopy__(self, memo: dict[int, Any]) -> "Unread":
        return self  # it never changes: copies of a config share it

    def __repr__(self) -> str:
        return repr(self.defaults())


_first_read = threading.Lock()


class _ReadOnFirstUse:
    """Put on a model class for each field that may hold :class:`Unread`: the first read
    replaces it with the section's defaults, so every later read gets the same object. A
    data descriptor (it has ``__set__``), so Python asks it before the instance's dict,
    where pydantic keeps field values."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: BaseModel | None, owner: type | None = None) -> Any:
        if instance is None:
            raise AttributeError(self.name)  # as pydantic answers for a field on the class
        value = instance.__dict__[self.name]
        if isinstance(value, Unread):
            built = value.defaults()
            with _first_read:
                value = instance.__dict__[self.name]
                if isinstance(value, Unread):
                    value = instance.__dict__[self.name] = built
        return value

    def __set__(self, instance: BaseModel, value: Any) -> None:
        instance.__dict__[self.name] = value


def _read(model: BaseModel, name: str) -> Any:
    """A lazy section's value, or None while it is unread (its defaults hold no secret)."""
    value = model.__dict__[name]
    return None if isinstance(value, Unread) else value


if TYPE_CHECKING:
    Lazy = Annotated[S, "lazy"]
else:

    class Lazy:
        """``Lazy["Model"]``: a field holding a :class:`LazySection` (a model of
        :data:`_LAZY_MODELS`), outside its parent's schema."""

        def __class_getitem__(cls, name: str) -> Any:
            return Annotated[Any, _Given(name)]


def section(name: str) -> Any:
    """The default of a ``Lazy["name"]`` section: :class:`Unread` until first read."""
    return Field(default=Unread(name))


def _section_model(field: Any) -> type[BaseModel] | None:
    """The model of a config section field (eager or lazy), else None.

    The model's metaclass is asked, not ``type``: on Python 3.10 ``list[str]`` passes
    ``isinstance(..., type)`` and ``issubclass`` then raises (pydantic before 2.11)."""
    annotation = field.annotation
    if isinstance(annotation, type(BaseModel)) and issubclass(annotation, BaseModel):
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
    price: Lazy["PriceSheet"] | None = None
    #: Cap on one vendor answer, compressed and decoded bytes alike (``too_large`` beyond);
    #: unset, :data:`VENDOR_MAX_BYTES`. Read it with :meth:`answer_cap`.
    max_response_bytes: int | None = Field(default=None, gt=0)
    #: Where a key a caller handed over came from (see :meth:`with_key`); None: the config.
    _key_origin: str | None = None
    #: This section's own key (``web.providers.http``), for sentences about its values.
    _section: str = "web.providers.<name>"

    def with_key(self, key: SecretStr, origin: str) -> "ProviderSettings":
        """A copy holding ``key``, which a caller gave (an agent tool's ``api_key``, a client's
        header) rather than the config; ``origin`` names it for the sentence saying it was
        refused, as the configured names (``TAVILY_API_KEY``) are not what that caller set."""
        copy = self.model_copy(update={"api_key": key})
        copy._key_origin = origin
        return copy

    @property
    def key_origin(self) -> str | None:
        """Where the key came from, when a caller gave it (:meth:`with_key`)."""
        return self._key_origin

    def key(self, option: str) -> str:
        """The config key of ``option`` in this section (``web.providers.http.concurrency``)."""
        return f"{self._section}.{option}"

    @field_validator("base_url")
    @classmethod
    def _trimmed(cls, value: str | None) -> str | None:
        """``base_url: ${URL}`` read from a file ends with its line break: not part of the URL."""
        return value.strip() if value is not None else None

    @field_validator("rate_limit")
    @classmethod
    def _check_rate_limit(cls, value: str | bool | None) -> str | bool | None:
        from .dependable.ratelimit.spec import rate_or_none

        if isinstance(value, str) and not value.strip():
            return None  # an unset ${VAR}: not set, so the manifest's budget applies
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
        """A vendor-specific key (``model``, ``search_depth``, ...); ``default`` when it is left
        out or empty, as an unset ``${VAR}`` leaves it: not set, as for every other key."""
        value = (self.model_extra or {}).get(key)
        return default if value is None or value == "" else value

    def number(self, key: str, default: float | None, *, whole: bool = True) -> Any:
        """Vendor key ``key``, a number above 0 (a ``${VAR}``'s text read as one), else
        ``default``. Another value is the set-up's to fix, named by its key: ``int('many')``
        failed the call as the vendor's ``provider_error``, held against its health."""
        value = spelled(self.option(key, default))
        if value is None:
            return None
        if whole and isinstance(value, float) and value.is_integer():
            value = int(value)  # ``3.0`` in YAML is three
        kinds = int if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not 0 < value < math.inf:
            from .errors import NotConfiguredError  # here: only a bad setting needs it

            kind = "a whole number" if whole else "a number"
            raise NotConfiguredError(
                f"{self.key(key)} must be {kind} above 0, not {value!r}.",
                provider=self._section.removeprefix("web.providers."),  # only a section's own value is wrong
            )
        return value

    def answer_cap(self) -> int:
        """The most bytes one answer of this vendor may have, however it arrives."""
        return self.max_response_bytes or VENDOR_MAX_BYTES


@functools.lru_cache(maxsize=1)
def unknown_setting(path: str) -> str | None:
    """Why dotted ``path`` names no setting a config can hold (with the key it was likely meant
    to be), else None. Below ``web.providers.<name>`` every key is a provider's own."""
    model: type[BaseModel] | None = Config
    parts = path.split(".")
    for depth, part in enumerate(parts):
        if model is None:  # below a setting that holds a value, not a section
            return f"'{'.'.join(parts[:depth])}' is a setting, not a section"
        if model is WebSettings and part == "providers":
            return None
        names = [name for name in model.model_fields if name != "source"]  # where it was read from
        if part not in names:
            from .suggest import did_you_mean  # here: only a path that names nothing needs it

            where = ".".join(parts[:depth]) or "the config"
            return f"{where} has no key '{part}'.{did_you_mean(part, names)}"
        model = _section_model(model.model_fields[part])
    return None


@functools.cache
def _no_settings() -> ProviderSettings:
    """The settings of a provider without a section: one instance for all (settings are
    frozen; a key handed over goes on a copy), since listing asks for them 80 times."""
    return ProviderSettings.model_construct()


class PluginSettings(Section):
    enabled: list[str] = []
    disabled: list[str] = []
    paths: list[str] = []
    #: Seconds a plugin's ``register()`` may run before the plugin is recorded as failed and skipped.
    register_timeout: float = Field(default=5.0, gt=0, le=300)
    #: Seconds a provider's ``is_available()`` may run before the provider is skipped as unavailable.
    availability_timeout: float = Field(default=1.0, gt=0, le=60)

    @field_validator("enabled", "disabled")
    @classmethod
    def _no_empty_names(cls, value: list[str]) -> list[str]:
        """An unset ``${VAR}`` names no plugin: it drops out, as from a backend list."""
        return [name for name in value if name.strip()]

    @field_validator("paths")
    @classmethod
    def _no_empty_paths(cls, value: list[str]) -> list[str]:
        """An unset ``${VAR}`` names no folder; as a path it would be the working directory.
        A NUL (``"\\0"`` in YAML) names no folder either: the operating system refuses it,
        which failed every call as a provider's error."""
        if any("\x00" in path for path in value):
            raise ValueError("a folder path cannot hold a NUL character (\\0); write the folder's path")
        return [path for path in value if path.strip()]


class WebSettings(Section):
    backend: BackendSpec | None = None
    search_backend: BackendSpec | None = None
    extract_backend: BackendSpec | None = None
    crawl_backend: BackendSpec | None = None
    timeout: float = Field(default=30.0, gt=0, le=MAX_TIMEOUT)
    on_unsupported: Literal["warn", "error"] = "warn"
    user_agent: str | None = None
    proxy: str | None = None
    #: With ``proxy`` set: a name this machine cannot resolve is left to the proxy to look up
    #: (a machine that reaches the internet only through it), unless it is a private-network name.
    proxy_resolves_names: bool = False
    allow_private_networks: bool = False
    allowed_hosts: list[str] = []
    max_response_bytes: int = Field(default=5_000_000, gt=0)
    providers: dict[str, ProviderSettings] = {}
    cache: Lazy["CacheSettings"] = section("CacheSettings")
    rate_limit: Lazy["RateLimitSettings"] = section("RateLimitSettings")
    health: Lazy["HealthSettings"] = section("HealthSettings")
    retry: Lazy["RetrySettings"] = section("RetrySettings")
    budget: Lazy["BudgetSettings"] = section("BudgetSettings")
    usage: Lazy["UsageSettings"] = section("UsageSettings")
    local: Lazy["LocalIndexSettings"] = section("LocalIndexSettings")
    extraction: Lazy["ExtractionSettings"] = section("ExtractionSettings")
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

    @model_validator(mode="after")
    def _name_sections(self) -> "WebSettings":
        """Each provider section knows its key, so a bad vendor value names where it is set."""
        for name, settings in self.providers.items():
            settings._section = f"web.providers.{name}"
        return self

    @field_validator("user_agent")
    @classmethod
    def _check_user_agent(cls, value: str | None) -> str | None:
        """Sent in every request's header, which takes printable ASCII only: anything else
        would fail each request (as the provider's fault) rather than the config."""
        if value is not None and not HEADER_TEXT.fullmatch(value):
            raise ValueError("the User-Agent must be printable ASCII on one line (letters, digits, spaces, punctuation)")
        return value

    @field_validator("allowed_hosts")
    @classmethod
    def _check_allowed_hosts(cls, value: list[str]) -> list[str]:
        """Each entry as the URL check matches it: one that can match nothing (a URL, a port, a
        range) is a config error, not a refusal that says to list a host already listed."""
        from .fetching.urlsafety import allowed_host_problem  # here: config stays light to import

        for number, entry in enumerate(value, 1):
            problem = allowed_host_problem(entry) if entry.strip() else None
            if problem is not None:
                shown = f"'{entry}'" if "@" not in entry else f"entry {number}"  # user:password@ is not echoed
                raise ValueError(f"{shown} is not a host: {problem}")
        return value

    @field_validator("proxy")
    @classmethod
    def _check_proxy(cls, value: str | None) -> str | None:
        """A proxy every request could be sent through, checked without echoing it (it may
        hold a password): a typo is a config error, not a failure of every later call."""
        value = value.strip() if value is not None else None  # a ${VAR} read from a file: its line break
        problem = proxy_problem(value) if value else None
        if problem is not None:
            raise ValueError(problem)
        return value or None

    @field_validator("backend", "search_backend", "extract_backend", "crawl_backend", mode="before")
    @classmethod
    def _ordered_backend(cls, value: Any) -> Any:
        """A chain is tried in its order: a set (``{"brave", "ddgs"}`` in a dict built in code)
        was taken as a list in the order of its hashes, which changes from one process to the
        next; a YAML ``!!set`` and a call's ``backend=`` set are refused as well."""
        if isinstance(value, (set, frozenset)) or (
            isinstance(value, dict) and isinstance(value.get("fuse"), (set, frozenset))
        ):
            # a ValueError: pydantic reports it as the key's problem
            raise ValueError("a set keeps no order, and a chain is tried in its order: write a list")  # noqa: TRY004
        return value

    @field_validator("backend", "search_backend", "extract_backend", "crawl_backend")
    @classmethod
    def _check_backend(cls, value: BackendSpec | None) -> BackendSpec | None:
        # A name from an unset ${VAR} is not set, as WEB_SEARCH_BACKEND=a,,b drops its empty item;
        # so is a chain of them all unset ("${PRIMARY},${SECONDARY}" is ",").
        if isinstance(value, str) and not backend_names(value):
            return None
        if isinstance(value, list) and value and not all(isinstance(n, str) and n.strip() for n in value):
            value = [n for n in value if not isinstance(n, str) or n.strip()] or None
        if isinstance(value, dict):
            if set(value) != {"fuse"}:
                raise ValueError("a mapping backend must be {fuse: [name, ...]}")
            if not value["fuse"]:
                raise ValueError("fuse needs at least one provider name")
        if isinstance(value, list) and not value:
            raise ValueError("a backend list needs at least one provider name")
        return value


def _nothing() -> None:
    return None


class Attached:
    """What dispatch builds for one config object (its registry), kept on that object so that
    it lives as long as the config does. It is no part of what the config says: copies and
    pickles of the config start without it, and it never makes two configs unequal."""

    __slots__ = ("owner", "value")

    def __init__(self, owner: "Config", value: Any) -> None:
        self.owner = owner  # a shallow copy shares this object: ``owner`` tells it is not its own
        self.value = value

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]

    def __deepcopy__(self, memo: dict[int, Any]) -> None:
        return None

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return _nothing, ()


class Config(Section):
    """The whole configuration. Build one with :func:`load_config` or directly."""

    web: WebSettings = Field(default_factory=WebSettings.model_construct)
    plugins: PluginSettings = Field(default_factory=PluginSettings.model_construct)
    mcp: Lazy["McpSettings"] = section("McpSettings")
    #: Where this config came from (a path, or None for defaults / code).
    source: str | None = Field(default=None, exclude=True)
    #: This config's registry (see :func:`webproviders.registry.providers.get_registry`).
    _attached: Attached | None = PrivateAttr(default=None)

    def attached(self) -> Any:
        """What was attached to this very object, or None (a copy has none of its own)."""
        # read from pydantic's store of private values: ``self._attached`` goes through two
        # ``__getattr__`` fallbacks (3 us), and every dispatch asks
        found = self.__pydantic_private__.get("_attached") if self.__pydantic_private__ else None
        return found.value if found is not None and found.owner is self else None

    def attach(self, value: Any) -> None:
        self._attached = Attached(self, value)

    def provider(self, name: str) -> ProviderSettings:
        """Settings for one provider (empty settings when the section is absent)."""
        return self.web.providers.get(name) or _no_settings()

    def setting(self, path: str) -> Any:
        """The value at a dotted ``path`` (``web.local.index``, ``web.providers.acme.flag``),
        None when nothing is set there."""
        value: Any = self
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
            if value is None:
                return None
        return value

    def secrets(self) -> list[str]:
        """Every secret in this config, for scrubbing: API keys, the MCP token, and the
        credentials of every URL (``base_url``, store URLs, the proxy: ``user:password@``)."""
        web = self.web
        found = [key for settings in web.providers.values() for key in settings.api_keys()]
        mcp = _read(self, "mcp")
        if mcp is not None:
            if mcp.token is not None:
                found.append(mcp.token.get_secret_value())
            found.extend(user.token.get_secret_value() for user in mcp.users.values() if user.token is not None)
        urls = [web.proxy, *(getattr(_read(web, name), "url", None) for name in ("cache", "rate_limit", "usage"))]
        for settings in web.providers.values():
            urls.append(settings.base_url)
            urls.extend((settings.model_extra or {}).values())
        for url in urls:
            found.extend(url_credentials(url))
            found.extend(dsn_password(url))
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


#: A value that is a variable as a shell writes it (``$TAVILY_API_KEY``; a ``$`` inside a
#: value may be a password's), or a form of ``${...}`` that :func:`interpolate` does not take
#: (``${KEY:?unset}``, ``${KEY-x}``, ``${KEY`` unclosed).
_UNEXPANDED = r"\s*\$[A-Za-z_][A-Za-z0-9_]*\s*$|.*\$\{(?![A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\})"


def _texts(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Each text value of a parsed tree, with its dotted path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _texts(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _texts(item, f"{path}.{index}")
    elif isinstance(value, str):
        yield path, value


def _warn_variables(value: Any, source: str, lines: dict[str, int], env: Mapping[str, str]) -> None:
    """Each text of the file, in one walk, for the variables in it that will not do what they
    seem to, the key named, never the value: one written in a form the config does not expand
    is sent as written (an API key ``$TAVILY_API_KEY``, refused by the vendor as a wrong key),
    and one not set inside a longer value leaves the rest of it (:func:`_unset_within`)."""
    for path, text in _texts(value):
        if "$" not in text:
            continue
        if re.match(_UNEXPANDED, text, re.DOTALL):
            log.warning(
                "Config key '%s' in %s%s holds a variable written in a form the config does not expand, so it "
                "is used as written: write ${NAME} (or ${NAME:-default}), not $NAME or ${NAME:?...}.",
                path, source, _line_of(lines, path),
            )
        unset = _unset_within(text, env)
        if unset:
            names = [f"${{{name}}}" for name in dict.fromkeys(unset)]
            log.warning(
                "Config key '%s' in %s%s uses %s, which %s not set, so the rest of its value is used "
                "without it: set the variable, or give a default (${NAME:-default}).",
                path, source, _line_of(lines, path), " and ".join(names), "is" if len(names) == 1 else "are",
            )


#: What may stand beside a variable that is a whole item of a value (``${PRIMARY},brave``).
_ITEM_EDGES = ", \t"


def _unset_within(text: str, env: Mapping[str, str]) -> list[str]:
    """The variables not set inside a longer value (``${DATA_DIR}/usage.sqlite3``,
    ``redis://${REDIS_HOST}:6379``), which leave the rest of it: a path at the root of the disk,
    a server on this host. A variable that is the whole value, or a whole item of a list
    (``${PRIMARY},brave``), means "not set" and is not one."""
    unset = []
    for found in re.finditer(_VAR, text) if "${" in text else ():
        if found.group(2) is not None or env.get(found.group(1)):
            continue
        before, after = text[: found.start()], text[found.end():]
        if (before and before[-1] not in _ITEM_EDGES) or (after and after[0] not in _ITEM_EDGES):
            unset.append(found.group(1))
    return unset


#: Environment variables that override a ``web`` key (a comma-separated value is a chain).
ENV_OVERRIDES = {
    "WEB_BACKEND": "backend",
    "WEB_SEARCH_BACKEND": "search_backend",
    "WEB_EXTRACT_BACKEND": "extract_backend",
    "WEB_CRAWL_BACKEND": "crawl_backend",
}


#: ``WEB_ALLOW_PRIVATE_NETWORKS``: fetches from untrusted input may reach private addresses.
ALLOW_PRIVATE_ENV = "WEB_ALLOW_PRIVATE_NETWORKS"
#: How a switch is written in text (an environment variable, a ``${VAR}`` in the file).
SWITCH_ON, SWITCH_OFF = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def spelled(value: Any) -> Any:
    """A provider's own key given as text, as a ``${VAR}`` always gives it, read as the number
    or switch it spells (as YAML reads those words unquoted), for keys that take one; any
    other value as it is."""
    if not isinstance(value, str):
        return value
    word = value.strip()
    for number in (int, float):
        try:
            return number(word)
        except ValueError:
            pass
    lowered = word.lower()
    return True if lowered in SWITCH_ON else False if lowered in SWITCH_OFF else value


def env_backend_names(value: str | None) -> list[str]:
    """The backend names a variable of :data:`ENV_OVERRIDES` holds (``a,,b`` is ``[a, b]``):
    none when it is empty or holds only commas and spaces, which leaves the file's choice."""
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def _apply_env_overrides(data: dict[str, Any], environ: dict[str, str] | os._Environ[str]) -> None:
    web = data.setdefault("web", {}) if isinstance(data.get("web", {}), dict) else None
    if web is None:
        return
    for var, key in ENV_OVERRIDES.items():
        names = env_backend_names(environ.get(var))
        if names:  # only commas or spaces name nothing: not set, as an empty variable is
            web[key] = names[0] if len(names) == 1 else names
    timeout = (environ.get("WEB_TIMEOUT") or "").strip()
    if timeout:
        try:
            seconds = float(timeout)
        except ValueError:
            seconds = math.nan
        if not 0 < seconds <= MAX_TIMEOUT:  # named here: validation would blame the config file
            raise ConfigError(f"WEB_TIMEOUT must be a number of seconds above 0 and at most {MAX_TIMEOUT}, such as 20.")
        web["timeout"] = timeout
    private = (environ.get(ALLOW_PRIVATE_ENV) or "").strip().lower()
    if private:
        if private not in SWITCH_ON + SWITCH_OFF:
            raise ConfigError(
                f"{ALLOW_PRIVATE_ENV} must be one of {', '.join(SWITCH_ON + SWITCH_OFF)}, not {private!r}."
            )
        web["allow_private_networks"] = private in SWITCH_ON


def _warn_unknown_keys(
    data: Any, model: type[BaseModel], where: str, source: str, lines: dict[str, int]
) -> dict[str, Any]:
    """Drop and warn about keys a model does not know, recursively; returns the cleaned tree."""
    if not isinstance(data, dict):
        return data
    cleaned: dict[str, Any] = {}
    for key, value in data.items():
        field = model.model_fields.get(key)
        path = f"{where}.{key}" if where else str(key)
        if field is None or key == "source":
            # here: only a config with a stray key needs it
            from .validation_problems import on_line

            hint = _did_you_mean(key, model) or _placed_elsewhere(str(key), path)
            log.warning("Unknown config key '%s' in %s%s is ignored.%s", path, source, on_line(lines, path), hint)
            continue
        if model is WebSettings and key == "providers" and isinstance(value, dict):
            _warn_near_shared_keys(value, path, source)
        nested = _section_model(field)
        if nested is not None:
            if value is None:  # a section with only comments under it: the defaults
                continue
            value = _warn_unknown_keys(value, nested, path, source, lines)
        cleaned[key] = value
    return cleaned


#: ``web.cache`` keys only one backend reads, by backend.
_CACHE_KEY_OF = {"redis": "url", "sqlite": "path"}


def _warn_unread_store_keys(tree: dict[str, Any], source: str, lines: dict[str, int]) -> None:
    """``web.cache.url`` (or ``path``) beside a ``backend`` that does not read it, or a ``path``
    beside a ``url`` that selects redis (for the cache or the usage ledger): a ``backend:
    memory`` kept from the example while its ``url`` line is uncommented gave a fleet a cache
    per process, without a word."""
    web = tree.get("web")
    if not isinstance(web, dict):
        return
    usage, cache = web.get("usage"), web.get("cache")
    if isinstance(usage, dict) and usage.get("url") and usage.get("path"):  # the url names the ledger
        log.warning(
            "Config key 'web.usage.path' in %s%s is not used: web.usage.url names the ledger. Leave one "
            "of them out (a SQLite file as url is sqlite:///path).",
            source, _line_of(lines, "web.usage.path"),
        )
    if not isinstance(cache, dict):
        return
    if "backend" not in cache and cache.get("url") and cache.get("path"):
        # a url selects redis before a path selects sqlite, so the path alone went unread
        log.warning(
            "Config key 'web.cache.path' in %s%s is not used: web.cache.url selects the redis backend, "
            "and only the sqlite backend reads it. Set backend: sqlite (or leave url out) to use it.",
            source, _line_of(lines, "web.cache.path"),
        )
        return
    backend = cache.get("backend")
    if backend not in ("memory", "sqlite", "redis"):
        return
    for wanted, key in _CACHE_KEY_OF.items():
        if backend != wanted and cache.get(key):
            log.warning(
                "Config key 'web.cache.%s' in %s%s is not used: web.cache.backend is %s, and only the %s "
                "backend reads it. Set backend: %s (or leave backend out) to use it.",
                key, source, _line_of(lines, f"web.cache.{key}"), backend, wanted, wanted,
            )


def _line_of(lines: dict[str, int], key: str) -> str:
    """`` (line N)`` of ``key`` in the file, for a warning (loaded only when one is given)."""
    from .validation_problems import on_line

    return on_line(lines, key)


def _did_you_mean(key: Any, model: type[BaseModel]) -> str:
    """`` Did you mean 'backend'?`` for a key one typo away from one ``model`` knows, else ``""``."""
    from .suggest import did_you_mean

    return did_you_mean(str(key), [name for name in model.model_fields if name != "source"])


def _placed_elsewhere(key: str, path: str) -> str:
    """`` Did you mean 'web.search_backend'?`` for a key written at the wrong level (without
    its ``web:``, or ``plugins:`` indented under ``web:``): the shallowest setting of that name,
    when only one is that shallow; else ``""``."""
    found = sorted((p.count("."), p) for p in _setting_paths(Config, "") if p.rsplit(".", 1)[-1] == key and p != path)
    if not found or (len(found) > 1 and found[0][0] == found[1][0]):
        return ""
    return f" Did you mean '{found[0][1]}'?"


def _setting_paths(model: type[BaseModel], where: str) -> list[str]:
    """The dotted path of every setting below ``model`` (not below ``web.providers``, whose
    keys are each provider's own)."""
    paths = []
    for name, field in model.model_fields.items():
        if name == "source":
            continue
        path = f"{where}.{name}" if where else name
        paths.append(path)
        nested = _section_model(field)
        if nested is not None:
            paths.extend(_setting_paths(nested, path))
    return paths


def _warn_near_shared_keys(sections: dict[Any, Any], where: str, source: str) -> None:
    """A key of ``web.providers.<name>`` is the vendor's own unless it is a typo of a shared
    one (``api_kye``, ``timout``): kept, as vendor keys are, but named, since it does nothing."""
    for name, section in sections.items():
        for key in section if isinstance(section, dict) else ():
            hint = "" if key in ProviderSettings.model_fields else _did_you_mean(key, ProviderSettings)
            if hint:
                log.warning("Config key '%s.%s.%s' in %s is not a setting every provider reads.%s", where, name, key, source, hint)


def _format_validation_error(exc: ValidationError, source: str, lines: dict[str, int]) -> str:
    from .validation_problems import problems

    return f"Invalid configuration in {source}: " + "; ".join(problems(exc, Config, lines=lines))


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
    return _validated(data, source, os.environ if environ is None else environ, {})


def _validated(
    data: dict[str, Any] | None, source: str, env: dict[str, str] | os._Environ[str], lines: dict[str, int]
) -> Config:
    """:func:`config_from_dict`; ``lines`` says where each key of a file is, for the messages."""
    if data is not None and not isinstance(data, Mapping):  # a string, a list of pairs: no config
        raise ConfigError(f"Invalid configuration in {source}: the top level must be a mapping, not {type(data).__name__}.")
    _text_keys(data, "", source)
    _warn_variables(data, source, lines, env)
    tree = interpolate(dict(data or {}), env)
    if not isinstance(tree, dict):
        raise ConfigError(f"Invalid configuration in {source}: the top level must be a mapping.")
    _apply_env_overrides(tree, env)
    tree = _warn_unknown_keys(tree, Config, "", source, lines)
    try:
        config = _defaults(tree) if _nothing_set(tree) else Config.model_validate(tree)
    except ValidationError as exc:
        raise ConfigError(_format_validation_error(exc, source, lines)) from None
    _warn_unread_store_keys(tree, source, lines)
    config.source = source
    remember(*config.secrets())  # masked from now on: in its repr, before any call reads them
    return config


def config_path(path: str | os.PathLike[str] | None = None) -> Path | None:
    """The file that would be loaded: explicit path, ``$WEBPROVIDERS_CONFIG``, or the default."""
    if path is not None:
        return expand_user(path)
    env_path = os.environ.get(CONFIG_ENV)
    if env_path:
        return expand_user(env_path)
    try:
        default = require_home(default_config_file())
    except OSError:  # no home directory, so no config file in it
        return None
    # os.stat, not Path.is_file: from Python 3.14 on, that answers False where this user may not look
    try:
        mode = os.stat(default).st_mode
    except (FileNotFoundError, NotADirectoryError):
        if os.path.lexists(default):
            log.warning("The config file %s is a link to nothing, so it is not read; the defaults are used.", default)
        return None
    except OSError as exc:  # a home this user may not enter (HOME=/root under another user id)
        log.warning(
            "The config file %s cannot be looked at (%s); the defaults are used.", default, exc.strerror
        )
        return None
    if stat.S_ISREG(mode):
        return default
    # a folder (a container's bind mount of a file it lacked), a pipe
    log.warning("The config file %s is not a file, so it is not read; the defaults are used.", default)
    return None


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Load and validate a config file; no file at all means defaults (plus env overrides)."""
    if path is not None and not os.fspath(path).strip():  # Path("") is the working folder
        raise ConfigError(
            "The config file's path is empty, so it names no file; give the file's path "
            "(a variable that is not set gives an empty one)."
        )
    file = config_path(path)
    if file is None:
        return config_from_dict({}, source="defaults")
    try:
        text = read_bytes(file).decode("utf-8")
    except OSError as exc:
        # a path the user did not type names where it came from, else there is nothing to fix
        named = f" (named by ${CONFIG_ENV})" if path is None and os.environ.get(CONFIG_ENV) else ""
        raise ConfigError(f"Cannot read config file {file}{named}: {exc.strerror}.") from None
    except TooLarge as exc:
        raise ConfigError(
            f"Config file {file} {exc}; a config sets a few dozen keys (the commented example is 14 KB): "
            "is it the right file?"
        ) from None
    except UnicodeDecodeError as exc:
        line = exc.object.count(b"\n", 0, exc.start) + 1  # where an editor shows it: a file has lines
        raise ConfigError(
            f"Config file {file} is not UTF-8 text (line {line}: byte {exc.start + 1}, "
            f"0x{exc.object[exc.start]:02X}, cannot be read); save it as UTF-8."
        ) from None
    except ValueError:  # open() refuses a path no file can have, where other mistakes are OSErrors
        held = "a NUL character (\\0)" if "\x00" in str(file) else "text that is not valid Unicode (a lone surrogate)"
        raise ConfigError(
            f"The config file's path {str(file)!r} holds {held}, so it names no file; give the file's path."
        ) from None
    data, lines = _parse_yaml(text, file)
    if not isinstance(data or {}, dict):
        raise ConfigError(f"Invalid configuration in {file}: the top level must be a mapping.")
    return _validated(data, str(file), os.environ, lines)


#: The pure-Python loader on purpose: libyaml's composer recurses in C and crashes the
#: process on a deeply nested file, where this one raises RecursionError.
_YAML_LOADER = yaml.SafeLoader
#: Quoted text in a YAML message, read from the left (``expected ',' or ']', but got ':'``
#: quotes three characters, not the words between them).
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def _parse_yaml(text: str, file: Path) -> tuple[Any, dict[str, int]]:
    """Parse a config file, refusing alias bombs before anything is built from them; with
    the line of each key (:func:`_key_lines`)."""
    try:
        # the reader checks every character as it is made: a NUL (a UTF-16 file without its
        # byte-order mark) raised from here, outside the ConfigError below
        loader = _YAML_LOADER(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"Config file {file} is not valid YAML: {yaml_problem(exc, text)}.") from None
    try:
        node = compose(loader)
        if node is None:
            return None, {}
        lines = _key_lines(node, file)
        return loader.construct_document(node), lines
    except yaml.YAMLError as exc:
        raise ConfigError(f"Config file {file} is not valid YAML: {yaml_problem(exc)}.") from None
    except NotAName as exc:
        raise ConfigError(f"Invalid configuration in {file}: {exc}.") from None
    except YAMLShapeError as exc:
        raise ConfigError(f"Config file {file} {exc}.") from None
    finally:
        loader.dispose()


def yaml_problem(exc: yaml.YAMLError, file_text: str | None = None) -> str:
    """What is wrong and where, on one line, without the excerpt of the file PyYAML prints (it
    may hold a key): for a config file and a ``plugin.yaml`` alike. ``file_text``: the file's, to
    say where a character YAML refuses is."""
    if isinstance(exc, yaml.reader.ReaderError) and isinstance(exc.character, int):
        where = ""
        if file_text is not None:
            line_start = file_text.rfind("\n", 0, exc.position) + 1
            line = file_text.count("\n", 0, exc.position) + 1
            where = f" (line {line}, column {exc.position - line_start + 1})"
        utf16 = " (a file saved as UTF-16 holds many: save it as UTF-8)" if exc.character == 0 else ""
        return f"it holds U+{exc.character:04X}{where}, a character YAML does not allow{utf16}"
    if not isinstance(exc, yaml.MarkedYAMLError):
        return scrub(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    parts = [
        _QUOTED.sub(_masked, text) + (f" (line {mark.line + 1}, column {mark.column + 1})" if mark else "")
        for text, mark in ((exc.context, exc.context_mark), (exc.problem, exc.problem_mark))
        if text
    ]
    if exc.problem and "'\\t'" in exc.problem:  # an editor's tab, which the message alone leaves a puzzle
        parts.append("YAML takes spaces there, not a tab: indent with spaces, and write a space after a colon")
    return scrub("; ".join(parts) or "a syntax error")


def _masked(quoted: re.Match[str]) -> str:
    """A quoted fragment of the file (a tag, an anchor: it may be a key) as ``'***'``; the
    characters PyYAML quotes to say what it expected or found (``','``, ``'<stream end>'``) as they are."""
    text = quoted.group(0)
    return text if len(text) < 6 or text.startswith(("'<", '"<')) else "'***'"


def _text_keys(data: Any, where: str, source: str) -> None:
    """Refuse a key of a config tree that is not text (a dict built in code, or parsed by the
    caller): every key is a name, and another kind was dropped as unknown or taken as the text
    it converts to (``b"brave"`` as ``brave``)."""
    if isinstance(data, dict):
        for key, value in data.items():
            if not isinstance(key, str):
                place = f"under '{where}'" if where else "at the top level"
                raise ConfigError(
                    f"Invalid configuration in {source}: a key {place} is {type(key).__name__}, not text; every key is a name."
                )
            _text_keys(value, f"{where}.{key}" if where else key, source)
    elif isinstance(data, list):
        for index, item in enumerate(data):
            _text_keys(item, f"{where}.{index}", source)


def _key_lines(root: yaml.Node, file: Path) -> dict[str, int]:
    """The line of each key of the file, by its dotted path (``web.providers.brave``), for
    the warnings and errors that name a key. A key a mapping sets twice is named too: YAML
    keeps the last one, so all that the first set (a whole ``web:`` section with its budgets)
    would be dropped without a word.

    A key YAML does not read as text and a value of a type no key takes are refused before
    (:func:`webproviders.useryaml.compose`), as in a ``plugin.yaml``."""
    lines: dict[str, int] = {}
    seen: set[int] = set()

    def walk(node: yaml.Node, where: str) -> None:
        if id(node) in seen:  # an alias's node, walked where its anchor is
            return
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, f"{where}.{index}" if where else str(index))
            return
        if not isinstance(node, yaml.MappingNode):
            return
        here: dict[str, int] = {}  # this mapping's keys: the same path in two mappings is no repeat
        for key, value in node.value:
            line = key.start_mark.line + 1
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            path = f"{where}.{name}" if where else str(name)
            if name is not None and key.tag != MERGE_TAG:
                first = here.setdefault(name, line)
                if first != line:
                    log.warning(
                        "Config key '%s' is set twice in %s (lines %d and %d); only the one on line %d "
                        "is used: merge the two.", path, file, first, line, line
                    )
                here[name] = lines[path] = line
            walk(value, path)

    walk(root, "")
    return lines


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


def loaded_default() -> Config | None:
    """The process-wide config if it is loaded already, else None (loads nothing)."""
    return _default


def _forget_locks() -> None:
    """In a forked child: a parent's thread that was reading the config file as the process
    forked holds these locks in the child for good, and every call of the child with the
    default config waited on them past its deadline. The child reads the file again."""
    global _default_lock, _first_read
    _default_lock = threading.Lock()
    _first_read = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks)


def set_default_config(config: Config | None) -> None:
    """Replace (or with None, forget) the process-wide config."""
    global _default
    _default = config
