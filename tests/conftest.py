"""Shared fixtures: isolated configs, plugin-module access, no stray environment."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from typing import Any

import pytest

from webproviders.config import Config, config_from_dict
from webproviders.registry import clear_registry_cache, get_registry

#: Environment variables that would change which backend is chosen or which key is used.
_ISOLATED_PREFIXES = ("WEB_", "WEBPROVIDERS_", "SEARXNG_")
_ISOLATED_SUFFIXES = ("_API_KEY", "_API_URL", "_BASE_URL", "_CSE_ID", "_TIMEOUT_MS", "_TOP_K_DEFAULT")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test sees the developer's keys, config file or user plugins."""
    for name in list(os.environ):
        if name.startswith(_ISOLATED_PREFIXES) or name.endswith(_ISOLATED_SUFFIXES):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    yield
    clear_registry_cache()


@pytest.fixture
def make_config() -> Any:
    """Build a validated Config from keyword sections: ``make_config(web={...}, plugins={...})``."""

    def build(**sections: Any) -> Config:
        return config_from_dict(sections, source="<test>")

    return build


@pytest.fixture
def plugin_module() -> Any:
    """Import a built-in plugin's module (or a submodule) by folder name, for unit tests."""

    def load(folder: str, submodule: str | None = None) -> Any:
        get_registry(config_from_dict({}, source="<test>"))
        name = f"_webproviders_plugins.builtin.{folder.replace('-', '_')}"
        return importlib.import_module(f"{name}.{submodule}" if submodule else name)

    return load
