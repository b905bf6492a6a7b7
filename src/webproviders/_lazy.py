"""Names a package exports but imports only when first used, so importing it stays cheap."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(namespace: dict[str, Any], exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving ``exports`` (name -> module under ``webproviders``).

    The first access imports the module and keeps the value in ``namespace``, so later
    accesses are plain attribute lookups.
    """
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"webproviders.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
