"""webproviders: search, extract and crawl the web through any backend, one envelope.

Heavy modules load on first use: ``import webproviders`` stays cheap for agent CLIs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "dispatch_search": "dispatch",
    "dispatch_extract": "dispatch",
    "dispatch_crawl": "dispatch",
    "adispatch_search": "dispatch",
    "adispatch_extract": "dispatch",
    "adispatch_crawl": "dispatch",
    "list_providers": "registry",
    "get_registry": "registry",
    "Config": "config",
    "ConfigError": "config",
    "load_config": "config",
    "WebSearchProvider": "provider",
    "VendorProvider": "vendor",
    "PluginContext": "plugins",
    "hookimpl": "hookspecs",
    "warn": "context",
    "remaining_time": "context",
    "SearchHit": "models",
    "Page": "models",
    "SearchEnvelope": "models",
    "PagesEnvelope": "models",
    "FailureEnvelope": "models",
    "format_results": "formatting",
    "run_tool": "tools",
    "arun_tool": "tools",
    "create_websearch_tool": "agent_tools",
    "create_webread_tool": "agent_tools",
    "WebToolConfig": "agent_tools",
}

__all__ = [
    "__version__",
    "dispatch_search",
    "dispatch_extract",
    "dispatch_crawl",
    "adispatch_search",
    "adispatch_extract",
    "adispatch_crawl",
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
    from .agent_tools import WebToolConfig, create_webread_tool, create_websearch_tool
    from .config import Config, ConfigError, load_config
    from .context import remaining_time, warn
    from .dispatch import (
        adispatch_crawl,
        adispatch_extract,
        adispatch_search,
        dispatch_crawl,
        dispatch_extract,
        dispatch_search,
    )
    from .formatting import format_results
    from .hookspecs import hookimpl
    from .models import FailureEnvelope, Page, PagesEnvelope, SearchEnvelope, SearchHit
    from .plugins import PluginContext
    from .provider import WebSearchProvider
    from .registry import get_registry, list_providers
    from .vendor import VendorProvider
