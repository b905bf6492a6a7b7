"""Sync and async providers, called by sync and async dispatch, also inside a running loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from webproviders import adispatch_extract, adispatch_search, dispatch_extract, dispatch_search
from webproviders.registry.providers import get_registry


def _stable(envelope: dict[str, Any]) -> dict[str, Any]:
    """The envelope without timings (which differ run to run)."""
    meta = dict(envelope["meta"])
    meta.pop("latency_ms")
    meta["attempts"] = [{k: v for k, v in a.items() if k != "latency_ms"} for a in meta["attempts"]]
    return {**envelope, "meta": meta}


@pytest.fixture
def config(pair_config: Any) -> Any:
    return pair_config


def _expected(backend: str) -> dict[str, Any]:
    return {
        "success": True,
        "data": {
            "web": [
                {"title": "First", "url": "https://one.example/a", "description": "alpha", "position": 1},
                {"title": "Second", "url": "https://two.example/b", "description": "beta", "position": 2},
            ]
        },
        "provider": backend,
        "meta": {
            "requested_backend": backend,
            "served_by": backend,
            "attempts": [{"provider": backend, "outcome": "ok"}],
        },
    }


@pytest.mark.parametrize("backend", ["sync-search", "async-search"])
def test_all_four_combinations_return_the_same_envelope(config: Any, backend: str) -> None:
    from_sync = dispatch_search("q", 5, backend=backend, config=config)
    from_async = asyncio.run(adispatch_search("q", 5, backend=backend, config=config))

    async def sync_inside_loop() -> dict[str, Any]:
        return dispatch_search("q", 5, backend=backend, config=config)

    from_sync_in_loop = asyncio.run(sync_inside_loop())
    box: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: box.setdefault("r", dispatch_search("q", 5, backend=backend, config=config)))
    thread.start()
    thread.join()

    expected = _expected(backend)
    for envelope in (from_sync, from_async, from_sync_in_loop, box["r"]):
        assert _stable(envelope) == expected


@pytest.mark.parametrize("backend", ["sync-search", "async-search"])
def test_extract_sync_and_async_agree(config: Any, backend: str) -> None:
    urls = ["https://a.example/1", "https://b.example/2"]
    sync = dispatch_extract(urls, backend=backend, config=config)
    asynchronous = asyncio.run(adispatch_extract(urls, backend=backend, config=config))
    assert _stable(sync) == _stable(asynchronous)
    assert [page["url"] for page in sync["data"]] == urls
    assert sync["data"][0]["content"] == "body of https://a.example/1"


def test_many_concurrent_async_calls_share_one_loop(config: Any) -> None:
    async def many() -> list[dict[str, Any]]:
        return await asyncio.gather(
            *(adispatch_search(f"q{i}", 2, backend="async-search", config=config) for i in range(30))
        )

    results = asyncio.run(many())
    assert all(r["success"] and len(r["data"]["web"]) == 2 for r in results)


def test_deadline_abandons_a_hanging_sync_provider(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin(
        "slow",
        """
        import time
        from webproviders import WebSearchProvider

        class Slow(WebSearchProvider):
            name = "slow"
            def is_available(self):
                return True
            def search(self, query, limit=5, **options):
                time.sleep(5)
                return []

        class SlowAsync(WebSearchProvider):
            name = "slow-async"
            def is_available(self):
                return True
            async def search(self, query, limit=5, **options):
                import asyncio
                await asyncio.sleep(5)
                return []

        def register(ctx):
            ctx.register_web_search_provider(Slow())
            ctx.register_web_search_provider(SlowAsync())
        """,
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["slow"]})
    get_registry(config).ready_for_dispatch(None)  # the 0.2 s are the provider's, not the plugin's loading
    for backend in ("slow", "slow-async"):
        envelope = dispatch_search("q", backend=backend, config=config, timeout=0.2)
        assert envelope["success"] is False
        assert envelope["error_code"] == "timeout"
        assert envelope["retryable"] is True
        assert backend in envelope["error"]


def test_config_timeout_is_the_default_deadline(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin(
        "slow2",
        """
        import asyncio
        from webproviders import WebSearchProvider

        class SlowAsync(WebSearchProvider):
            name = "slow2"
            def is_available(self):
                return True
            async def search(self, query, limit=5, **options):
                await asyncio.sleep(5)
                return []

        def register(ctx):
            ctx.register_web_search_provider(SlowAsync())
        """,
    )
    config = make_config(web={"timeout": 0.2}, plugins={"paths": [str(root)], "enabled": ["slow2"]})
    envelope = asyncio.run(adispatch_search("q", backend="slow2", config=config))
    assert envelope["error_code"] == "timeout"
