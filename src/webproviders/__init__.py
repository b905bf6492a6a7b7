"""webproviders: search, extract and crawl the web through any backend, one envelope.

Heavy modules load on first use: ``import webproviders`` stays cheap for agent CLIs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

_EXPORTS = {
    "dispatch_search": "dispatch.api",
    "dispatch_extract": "dispatch.api",
    "dispatch_crawl": "dispatch.api",
    "adispatch_search": "dispatch.api",
    "adispatch_extract": "dispatch.api",
    "adispatch_crawl": "dispatch.api",
    "index_urls": "index.api",
    "list_providers": "registry.providers",
    "get_registry": "registry.providers",
    "Config": "config",
    "ConfigError": "config",
    "load_config": "config",
    "WebSearchProvider": "provider",
    "VendorProvider": "kit.vendor",
    "PluginContext": "registry.loader",
    "hookimpl": "registry.hookspecs",
    "warn": "context",
    "remaining_time": "context",
    "report_usage": "context",
    "usage_summary": "accounting.usage.report",
    "SearchHit": "models",
    "Page": "models",
    "SearchEnvelope": "models",
    "PagesEnvelope": "models",
    "FailureEnvelope": "models",
    "format_results": "agents.formatting",
    "run_tool": "agents.tools",
    "arun_tool": "agents.tools",
    "create_websearch_tool": "agents.factories",
    "create_webread_tool": "agents.factories",
    "WebToolConfig": "agents.factories",
}

__all__ = [
    "__version__",
    "dispatch_search",
    "dispatch_extract",
    "dispatch_crawl",
    "adispatch_search",
    "adispatch_extract",
    "adispatch_crawl",
    "index_urls",
    "list_providers",
    "get_registry",
    "Config",
    "ConfigError",
    "load_config",
    "WebSearchProvider",
    "VendorProvider",
    "PluginContext",
    "hookimpl",
    "warn",
    "remaining_time",
    "report_usage",
    "usage_summary",
    "SearchHit",
    "Page",
    "SearchEnvelope",
    "PagesEnvelope",
    "FailureEnvelope",
    "format_results",
    "run_tool",
    "arun_tool",
    "create_websearch_tool",
    "create_webread_tool",
    "WebToolConfig",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'webproviders' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from .accounting.usage.report import usage_summary
    from .agents.factories import WebToolConfig, create_webread_tool, create_websearch_tool
    from .agents.formatting import format_results
    from .config import Config, ConfigError, load_config
    from .context import remaining_time, report_usage, warn
    from .dispatch.api import (
        adispatch_crawl,
        adispatch_extract,
        adispatch_search,
        dispatch_crawl,
        dispatch_extract,
        dispatch_search,
    )
    from .index.api import index_urls
    from .kit.vendor import VendorProvider
    from .models import FailureEnvelope, Page, PagesEnvelope, SearchEnvelope, SearchHit
    from .provider import WebSearchProvider
    from .registry.hookspecs import hookimpl
    from .registry.loader import PluginContext
    from .registry.providers import get_registry, list_providers
