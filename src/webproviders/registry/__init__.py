"""How providers get in: plugin discovery and loading, hook specs, providers by name."""

from .providers import Registry, get_registry, list_providers

__all__ = ["Registry", "get_registry", "list_providers"]
