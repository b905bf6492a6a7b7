"""Helpers for core tests: user plugin folders and installed entry points written on the fly."""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml


@pytest.fixture
def write_plugin(tmp_path: Path) -> Any:
    """Write ``<tmp>/plugins/<name>/`` with a manifest and code; returns the plugins dir."""
    root = tmp_path / "plugins"
    root.mkdir(exist_ok=True)

    def write(name: str, code: str, providers: list[dict[str, Any]] | None = None) -> Path:
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        manifest = {"name": name, "kind": "backend", "providers": providers or []}
        (folder / "plugin.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
        (folder / "__init__.py").write_text(textwrap.dedent(code), encoding="utf-8")
        return root

    return write


#: A sync provider ``stuck`` whose search waits, with no timeout, until a file exists.
_STUCK_CODE = """
import os
import time

from webproviders import WebSearchProvider


class Stuck(WebSearchProvider):
    name = "stuck"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        while not os.path.exists(os.environ["STUCK_RELEASE"]):  # a read without a timeout
            time.sleep(0.05)
        return []
"""


@pytest.fixture
def stuck_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """The code of the ``stuck`` provider (a plugin adds its ``register``), and the file whose
    creation lets its calls return."""
    release = tmp_path / "release"
    monkeypatch.setenv("STUCK_RELEASE", str(release))
    return _STUCK_CODE, release


_PROVIDERS_CODE = '''
import asyncio
from webproviders import WebSearchProvider

HITS = [
    {"title": " First ", "href": "https://one.example/a", "snippet": "alpha"},
    {"title": "Second", "link": "https://two.example/b", "body": "beta"},
    {"title": "dup", "url": "https://one.example/a", "description": "again"},
    {"title": "Bad", "url": "javascript:alert(1)", "description": "dropped"},
]


class SyncSearch(WebSearchProvider):
    name = "sync-search"

    def is_available(self):
        return True

    def supports_extract(self):
        return True

    def search(self, query, limit=5, **options):
        return list(HITS)

    def extract(self, urls, **kwargs):
        return [{"url": u, "title": "T", "content": "body of " + u} for u in urls]


class AsyncSearch(WebSearchProvider):
    name = "async-search"

    def is_available(self):
        return True

    def supports_extract(self):
        return True

    async def search(self, query, limit=5, **options):
        await asyncio.sleep(0)
        return {"web": list(HITS)}

    async def extract(self, urls, **kwargs):
        await asyncio.sleep(0)
        return [{"url": u, "title": "T", "content": "body of " + u} for u in urls]


def register(ctx):
    ctx.register_web_search_provider(SyncSearch(), manifest={"fetch": "none"})
    ctx.register_web_search_provider(AsyncSearch(), manifest={"fetch": "none"})
'''


@pytest.fixture
def pair_config(write_plugin: Any, make_config: Any) -> Any:
    """A config with a user plugin registering ``sync-search`` and ``async-search``."""
    root = write_plugin("pair", _PROVIDERS_CODE)
    # No cache: these tests compare repeated identical calls, which a cache would answer.
    return make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["pair"]})


@pytest.fixture
def install_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Install a package ``<package>`` with ``code`` as its ``__init__`` and a ``webproviders``
    entry point named ``name``, as pip would (a ``.dist-info`` on ``sys.path``)."""
    site = tmp_path / "site"

    def install(name: str, package: str, code: str) -> None:
        folder = site / package
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text(textwrap.dedent(code), encoding="utf-8")
        dist = site / f"{package}-1.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {package.replace('_', '-')}\nVersion: 1.0\n"
        )
        (dist / "entry_points.txt").write_text(f"[webproviders]\n{name} = {package}\n")
        monkeypatch.syspath_prepend(str(site))
        importlib.invalidate_caches()

    return install


@pytest.fixture
def ticking() -> Any:
    """``await ticking(awaitable)``: its result, the seconds it took, and how many times a
    task ticking every 10 ms ran meanwhile (none, when something held the event loop)."""
    import asyncio
    import time

    async def run(awaitable: Any) -> tuple[Any, float, int]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.ensure_future(tick())
        started = time.monotonic()
        try:
            result = await awaitable
        finally:
            ticker.cancel()
        return result, time.monotonic() - started, ticks

    return run
