"""A base class for providers that call a keyed HTTP API.

It reads ``web.providers.<name>`` (``api_key``, ``base_url``, ``timeout``) with the
environment as fallback, rotates several keys, and sends requests through the shared
client so errors are mapped the same way for every vendor. Which environment variables hold
the key and the base URL, and whether a key is needed, come from the provider's manifest
(``plugin.yaml``); the class attributes below are the fallback for a provider registered
without those facts. Third-party providers may use it too; nothing here is reserved for
built-in ones.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from .. import redact
from ..config import Config, ProviderSettings, endpoint_problem, unsendable_key
from ..dependable.keyring import AUTH_COOLDOWN, QUOTA_COOLDOWN, KeyRing
from ..errors import AuthError, NotConfiguredError, QuotaExceededError, RateLimitedError
from ..offloop import import_off_loop
from ..provider import WebSearchProvider

if TYPE_CHECKING:
    from ..manifest import EnvVar
    from .http import Classifier

#: What only a proxy answers: its own credentials are missing or wrong, whatever key was sent.
PROXY_AUTH_STATUS = 407

T = TypeVar("T")

#: What a vendor request needs first: httpx and the library's clients on it.
HTTP_STACK = f"{__package__}.http"


class VendorProvider(WebSearchProvider):
    """Settings, keys and requests for a vendor API; subclasses map requests and responses."""

    #: Provider id (``brave``); a subclass may also take it as a constructor argument.
    provider_name: ClassVar[str] = ""
    default_base_url: ClassVar[str] = ""
    #: Seconds for one vendor request when the config sets no ``timeout``.
    default_timeout: ClassVar[float] = 30.0
    #: Query parameter carrying the key, for vendors that take it in the URL (``api_key``);
    #: empty means a header (:meth:`auth_headers`).
    key_param: ClassVar[str] = ""
    #: Fallbacks for a provider whose manifest declares no key variable: the environment
    #: variables holding the API key (first match wins; comma-separated = several keys), the
    #: ones holding the base URL, and whether it works without a key.
    key_env: ClassVar[tuple[str, ...]] = ()
    base_url_env: ClassVar[tuple[str, ...]] = ()
    needs_key: ClassVar[bool] = True
    #: The base URL from the environment last handed to the scrubber (it keeps its
    #: credentials; handing them again is wasted work).
    _remembered_url: str | None = None

    def __init__(self, config: Config, name: str | None = None) -> None:
        self.config = config
        self._name = name or self.provider_name
        self._ring = KeyRing(self._configured_keys())

    @property
    def name(self) -> str:
        return self._name

    @property
    def settings(self) -> ProviderSettings:
        return self.config.provider(self._name)

    def _declared(self, config_key: str) -> list[EnvVar]:
        """The manifest's env vars that stand in for ``web.providers.<name>.<config_key>``."""
        env = self.manifest.env if self.manifest is not None else []
        return [var for var in env if var.config_key == config_key]

    def _var_names(self, config_key: str, fallback: tuple[str, ...]) -> tuple[str, ...]:
        """The variable names for ``config_key``, worked out once per manifest (read per request)."""
        cache: dict[str, tuple[Any, tuple[str, ...]]] = self.__dict__.setdefault("_var_names_cache", {})
        hit = cache.get(config_key)
        if hit is not None and hit[0] is self.manifest:
            return hit[1]
        declared = self._declared(config_key)
        names = tuple(n for var in declared for n in var.names()) if declared else fallback
        cache[config_key] = (self.manifest, names)
        return names

    def key_vars(self) -> tuple[str, ...]:
        """Environment variables that may hold the API key, in the order they are read."""
        return self._var_names("api_key", self.key_env)

    def base_url_vars(self) -> tuple[str, ...]:
        """Environment variables that may hold the base URL, in the order they are read."""
        return self._var_names("base_url", self.base_url_env)

    @property
    def key_required(self) -> bool:
        """Whether the provider needs a key: the manifest's ``required`` flag of its key variable."""
        declared = self._declared("api_key")
        return any(var.required for var in declared) if declared else self.needs_key

    def _configured_keys(self) -> list[str]:
        keys = self.settings.api_keys()
        if not keys:
            for var in self.key_vars():
                value = os.environ.get(var, "")
                keys = [part.strip() for part in value.split(",") if part.strip()]
                if keys:
                    break
        redact.remember(*keys)  # at each call: the keys in use are not those a busy process forgets
        return keys

    def api_keys(self) -> list[str]:
        """Every usable key now (config first, then the environment)."""
        keys = self._configured_keys()
        self._ring.update(keys)
        return keys

    def base_url(self) -> str:
        configured = self.settings.base_url
        if not configured:
            for var in self.base_url_vars():
                value = (os.environ.get(var) or "").strip()
                if value:
                    if value != self._remembered_url:  # a password in it is scrubbed from this request on
                        redact.remember(*redact.url_credentials(value))
                        self._remembered_url = value
                    return value.rstrip("/")
        return (configured or self.default_base_url).rstrip("/")

    def timeout(self) -> float:
        return self.settings.timeout or self.default_timeout

    def base_url_problem(self) -> str | None:
        """What keeps a request from being sent to :meth:`base_url`, worded without the URL
        (it may hold a password); None when it is an ``http(s)`` URL with a host. A typo there
        is the operator's to fix, so it makes the provider unavailable (``not_configured``)
        rather than a failure of every call counted against the vendor's health."""
        return endpoint_problem(self.base_url(), self._source("base_url", bool(self.settings.base_url), self.base_url_vars()))

    def _source(self, config_key: str, configured: bool, names: tuple[str, ...]) -> str:
        """Where a value in use came from, for sentences: the first of ``names`` that is set
        when the config sets none, else ``web.providers.<name>.<config_key>``."""
        if not configured:
            for var in names:
                if (os.environ.get(var) or "").strip():
                    return var
        if config_key == "api_key" and self.settings.key_origin:
            return self.settings.key_origin
        return f"web.providers.{self.name}.{config_key}"

    def key_problem(self) -> str | None:
        """Why a configured key cannot be sent, worded without it; None when every key can.
        A key travels in a header or the URL, which take printable ASCII: a typographic quote
        or a non-breaking space pasted with it would fail every request as the vendor's fault."""
        return unsendable_key(self.api_keys(), self._source("api_key", bool(self.settings.api_keys()), self.key_vars()))

    def is_available(self) -> bool:
        if not self.packages_installed() or (self.key_required and not self.api_keys()):
            return False
        return self.key_problem() is None and self.base_url_problem() is None

    def unavailable_reason(self) -> str | None:
        """A missing package or key, a key that cannot be sent, or a base URL no request can
        go to, worded as the registry words the manifest's facts."""
        for package in self.packages():
            if not package.installed():
                return f"the '{package.module}' package is not installed (pip install '{package.pip}')"
        if self.key_required and not self.api_keys():
            return f"{self._key_names()} is not set (or web.providers.{self.name}.api_key)"
        return self.key_problem() or self.base_url_problem()

    def _key_names(self) -> str:
        return " or ".join(self.key_vars()) or "an API key"

    def auth_headers(self, key: str) -> dict[str, str]:
        """Headers that carry ``key``; the default is a Bearer token (none with ``key_param``)."""
        return {} if self.key_param else {"Authorization": f"Bearer {key}"}

    def auth_params(self, key: str) -> dict[str, str]:
        """Query parameters that carry ``key``: ``key_param`` when the vendor takes it in the URL."""
        return {self.key_param: key} if self.key_param else {}

    async def with_key(self, send: Callable[[str | None], Awaitable[T]]) -> T:
        """Run ``send(key)`` with a key from the ring; a key refused for auth or quota, or
        rate limited (a vendor counts requests per key), rests and the next one is tried: the
        provider is paused only once every key is. ``key`` is None when the provider works
        without one. A proxy's 407 goes up as it is: every key would meet the same proxy, and
        the key is not what it refused."""
        keys = self.api_keys()
        if self.key_required and not keys:
            raise NotConfiguredError(
                f"{self.name} needs {self._key_names()} (or web.providers.{self.name}.api_key).",
                provider=self.name,
            )
        tries = max(1, self._ring.usable()) if keys else 1
        while True:
            key = self._ring.pick()
            tries -= 1
            try:
                return await send(key)
            except RateLimitedError as exc:
                if key is None or tries <= 0:
                    raise
                self._ring.rest(key, exc.retry_after or self.config.web.health.rate_limit_cooldown)
            except (AuthError, QuotaExceededError) as exc:
                if exc.status_code == PROXY_AUTH_STATUS:
                    raise  # the proxy's credentials, not the key: no key rests, none is named
                if key is not None:
                    self._ring.rest(key, AUTH_COOLDOWN if isinstance(exc, AuthError) else QUOTA_COOLDOWN)
                if key is None or tries <= 0:
                    if isinstance(exc, AuthError):
                        self._name_the_key_setting(exc)
                    raise

    def _name_the_key_setting(self, error: AuthError) -> None:
        """End a refused-key message with where the key is set, unless it already says so."""
        names = self.key_vars()
        origin = self.settings.key_origin if self.settings.api_keys() else None
        if origin is None and any(name in error.message for name in names):
            return
        setting = f"web.providers.{self.name}.api_key"
        where = origin or (f"{' or '.join(names)} (or {setting})" if names else setting)
        error.message = f"{error.message.rstrip()} Check {where}."
        error.args = (error.message,)

    async def call_api(
        self,
        method: str,
        path: str,
        *,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        data: Mapping[str, Any] | None = None,
        classify: Classifier | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Call ``base_url + path`` with a key from the ring; a rejected key rests, the next is tried."""
        await import_off_loop(HTTP_STACK)  # the HTTP stack loads on first request, not at listing
        from .http import request_json

        url = path if path.startswith(("http://", "https://")) else self.base_url() + path

        async def send(key: str | None) -> Any:
            return await request_json(
                method,
                url,
                provider=self.name,
                config=self.config,
                headers={**(self.auth_headers(key) if key else {}), **(headers or {})},
                params={**(params or {}), **(self.auth_params(key) if key else {})},
                json=json,
                data=data,
                timeout=timeout or self.timeout(),
                classify=classify,
            )

        return await self.with_key(send)
