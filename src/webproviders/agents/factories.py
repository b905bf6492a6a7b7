"""``websearch(query)`` and ``webread(url)``: the two one-argument tools many agents expect.

Both are thin async adapters over dispatch, configured with ``config=``: a
:class:`WebToolConfig` (``provider``, ``api_key`` with ``${ENV}`` interpolation, ``tags``, ...),
a mapping of its fields, or a library :class:`~webproviders.config.Config` on its own. An
unknown field is an error. They always return a string:
a markdown list of results, a page as markdown, or a readable error line. They never raise
for anything the model or the provider does wrong.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import Field, SecretStr, field_validator

from ..config import MAX_TIMEOUT, Config, ProviderSettings, Section, default_config, interpolate
from ..errors import InvalidInputError
from ..validate import MAX_LIMIT, MIN_LIMIT, check_url
from .formatting import format_results
from .tools import BACKEND_PATTERN, DEFAULT_MAX_CHARS, host_config, host_tags, invalid_call

WebSearch = Callable[[str], Awaitable[str]]
WebRead = Callable[[str], Awaitable[str]]


class WebToolConfig(Section):
    """How a websearch / webread tool reaches the web.

    ``provider`` names the backend (omit it to use the library's configuration and
    auto-detection); ``api_key`` and ``base_url`` override that provider's settings and may
    be written as ``${ENV_VAR}``. ``config`` is the library configuration to start from;
    ``tags`` label every call (per-tag budgets, the usage ledger). As a config
    :class:`~webproviders.config.Section`, it refuses unknown fields, never quotes a refused
    value (it may be the key) and masks URL credentials in its repr (``base_url`` keeps them).
    """

    provider: str | None = Field(default=None, pattern=BACKEND_PATTERN)
    api_key: SecretStr | None = None
    base_url: str | None = None
    max_results: int = Field(default=5, ge=MIN_LIMIT, le=MAX_LIMIT)
    max_chars: int = Field(default=DEFAULT_MAX_CHARS, ge=1)
    timeout: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT)
    config: Config | None = None
    tags: dict[str, str | int | float | bool] | None = None

    @field_validator("provider", "api_key", "base_url", mode="before")
    @classmethod
    def _interpolate(cls, value: Any) -> Any:
        """``${VAR}`` / ``${VAR:-default}`` from the environment; empty means not set."""
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if isinstance(value, str):
            return interpolate(value).strip() or None
        return value

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return host_tags(value)

    @field_validator("config", mode="before")
    @classmethod
    def _config(cls, value: Any) -> Any:
        return host_config(value)

    @field_validator("api_key", "base_url")
    @classmethod
    def _needs_provider(cls, value: Any, info: Any) -> Any:
        if value is not None and not info.data.get("provider"):
            raise ValueError(f"{info.field_name} needs 'provider' to say which backend it is for")
        return value

    def library_config(self) -> Config:
        """The library configuration these settings produce (``api_key`` / ``base_url`` applied)."""
        base = self.config if self.config is not None else default_config()
        if self.provider is None or (self.api_key is None and self.base_url is None):
            return base
        settings: ProviderSettings = base.provider(self.provider)
        if self.api_key is not None:
            settings = settings.with_key(self.api_key, "the tool's api_key (WebToolConfig)")
        if self.base_url is not None:
            settings = settings.model_copy(update={"base_url": self.base_url})
        web = base.web.model_copy(
            update={"providers": {**base.web.providers, self.provider: settings}}
        )
        return base.model_copy(update={"web": web})


ToolConfig = WebToolConfig | Config | Mapping[str, Any] | None


def _settings(config: ToolConfig) -> WebToolConfig:
    if isinstance(config, WebToolConfig):
        return config
    if isinstance(config, Config):
        return WebToolConfig(config=config)
    if config is not None and not isinstance(config, Mapping):  # a path: dict() said "sequence element #0"
        raise TypeError(
            "config must be a WebToolConfig, a mapping of its fields or a library Config "
            f"(load_config(path) reads a file), not {type(config).__name__}."
        )
    return WebToolConfig.model_validate(dict(config or {}))


#: What each tool does, for agents that read a tool's description from its ``__doc__``. Set
#: by assignment, not as docstrings: ``python -OO`` strips those, leaving the tools unexplained.
WEBSEARCH_DESCRIPTION = "Search the web; returns a numbered markdown list of results with title, URL and snippet."
WEBREAD_DESCRIPTION = "Read one web page (http or https URL); returns its main content as markdown."


def create_websearch_tool(config: ToolConfig = None) -> WebSearch:
    """``await websearch(query)`` → a numbered markdown list of results (or an error line)."""
    from ..dispatch.api import adispatch_search

    settings = _settings(config)
    library = settings.library_config()

    async def websearch(query: str) -> str:
        envelope = await adispatch_search(
            query,
            settings.max_results,
            backend=settings.provider,
            config=library,
            timeout=settings.timeout,
            tags=settings.tags,
        )
        return format_results(envelope, "markdown", settings.max_chars)

    websearch.__doc__ = WEBSEARCH_DESCRIPTION
    return websearch


def create_webread_tool(config: ToolConfig = None) -> WebRead:
    """``await webread(url)`` → the page as markdown (or a readable error line)."""
    from ..dispatch.api import adispatch_extract

    settings = _settings(config)
    library = settings.library_config()

    async def webread(url: str) -> str:
        try:
            check_url(url, single=True)  # one page: several pasted addresses need one call each
        except InvalidInputError as exc:
            return format_results(invalid_call(exc.message), "markdown", settings.max_chars)
        envelope = await adispatch_extract(
            [url], backend=settings.provider, config=library, timeout=settings.timeout, tags=settings.tags
        )
        return format_results(envelope, "markdown", settings.max_chars)

    webread.__doc__ = WEBREAD_DESCRIPTION
    return webread
