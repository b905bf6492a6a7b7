"""webproviders: search, extract and crawl the web through any backend, one envelope.

Heavy modules load on first use: ``import webproviders`` stays cheap for agent CLIs. Every
public name is listed once, in ``_EXPORTS`` (name -> module); ``__all__`` is derived from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_getattr
from ._version import __version__

_EXPORTS = {
    # dispatch
    "dispatch_search": "dispatch.api",
    "dispatch_extract": "dispatch.api",
    "dispatch_crawl": "dispatch.api",
    "adispatch_search": "dispatch.api",
    "adispatch_extract": "dispatch.api",
    "adispatch_crawl": "dispatch.api",
    # the vendor HTTP clients the library keeps open between calls
    "close": "vendorhttp.clients",
    "aclose": "vendorhttp.clients",
    "http_clients": "dispatch.state",
    # the local index
    "index_urls": "index.api",
    # providers and plugins
    "list_providers": "registry.providers",
    "get_registry": "registry.providers",
    "WebSearchProvider": "provider",
    "VendorProvider": "kit.vendor",
    "PluginContext": "registry.registration",
    "hookimpl": "registry.hookspecs",
    "warn": "context",
    "remaining_time": "context",
    "next_request_slot": "context",
    "report_usage": "context",
    # configuration
    "Config": "config",
    "ConfigError": "config",
    "ProviderSettings": "config",
    "load_config": "config",
    # cost accounting
    "usage_summary": "accounting.usage.report",
    # the envelope, typed
    "SearchHit": "models",
    "Page": "models",
    "SearchEnvelope": "models",
    "PagesEnvelope": "models",
    "FailureEnvelope": "models",
    # errors: one class per envelope error code
    "WebProviderError": "errors",
    "InvalidInputError": "errors",
    "NotConfiguredError": "errors",
    "UnsupportedError": "errors",
    "AuthError": "errors",
    "RateLimitedError": "errors",
    "QuotaExceededError": "errors",
    "WebTimeoutError": "errors",
    "NetworkError": "errors",
    "BlockedError": "errors",
    "ParseError": "errors",
    "BadGatewayError": "errors",
    "UnsafeURLError": "errors",
    "TooLargeError": "errors",
    "ProviderError": "errors",
    "NotFoundError": "errors",
    "BudgetExceededError": "errors",
    "BudgetStoreUnavailableError": "errors",
    # agent tools
    "format_results": "agents.formatting",
    "run_tool": "agents.tools",
    "arun_tool": "agents.tools",
    "create_websearch_tool": "agents.factories",
    "create_webread_tool": "agents.factories",
    "WebToolConfig": "agents.factories",
}

__all__ = ["__version__", *_EXPORTS]

__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from .accounting.usage.report import usage_summary
    from .agents.factories import WebToolConfig, create_webread_tool, create_websearch_tool
    from .agents.formatting import format_results
    from .agents.tools import arun_tool, run_tool
    from .config import Config, ConfigError, ProviderSettings, load_config
    from .context import next_request_slot, remaining_time, report_usage, warn
    from .dispatch.api import (
        adispatch_crawl,
        adispatch_extract,
        adispatch_search,
        dispatch_crawl,
        dispatch_extract,
        dispatch_search,
    )
    from .dispatch.state import http_clients
    from .errors import (
        AuthError,
        BadGatewayError,
        BlockedError,
        BudgetExceededError,
        BudgetStoreUnavailableError,
        InvalidInputError,
        NetworkError,
        NotConfiguredError,
        NotFoundError,
        ParseError,
        ProviderError,
        QuotaExceededError,
        RateLimitedError,
        TooLargeError,
        UnsafeURLError,
        UnsupportedError,
        WebProviderError,
        WebTimeoutError,
    )
    from .index.api import index_urls
    from .kit.vendor import VendorProvider
    from .models import FailureEnvelope, Page, PagesEnvelope, SearchEnvelope, SearchHit
    from .provider import WebSearchProvider
    from .registry.hookspecs import hookimpl
    from .registry.providers import get_registry, list_providers
    from .registry.registration import PluginContext
    from .vendorhttp.clients import aclose, close
