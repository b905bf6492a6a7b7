"""Config keys of dependable dispatch, and what stays out of ``import webproviders``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from webproviders.config import ConfigError

from .conftest import build_config, state


def test_defaults() -> None:
    web = build_config().web
    assert web.cache.enabled and web.cache.backend == "memory"
    assert (web.cache.ttl.search, web.cache.ttl.extract, web.cache.ttl.crawl) == (3600, 86400, 0)
    assert web.failover_on_empty is False
    assert (web.health.failures, web.health.window, web.health.cooldown) == (5, 60, 30)
    assert web.rate_limit.url is None


def test_cache_url_alone_means_redis_and_redis_needs_a_url() -> None:
    assert build_config(cache={"url": "redis://127.0.0.1:6379/0"}).web.cache.backend == "redis"
    with pytest.raises(ConfigError, match=r"web\.cache"):
        build_config(cache={"backend": "redis"})


@pytest.mark.parametrize("section", ["cache", "rate_limit", "usage"])
def test_a_redis_store_without_the_redis_package_is_a_config_error(
    section: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, a cache or shared rate limiter in Redis without the package failed every call
    as ``provider_error`` (ModuleNotFoundError), and a Redis ledger lost its rows unsaid."""
    monkeypatch.setitem(sys.modules, "redis", None)  # as where it is not installed
    with pytest.raises(ConfigError, match=rf"'web\.{section}\.url'.*pip install 'webproviders\[redis\]'") as raised:
        build_config(**{section: {"url": "redis://:Pw0rdSecret9@127.0.0.1:6379/0"}})
    assert "Pw0rdSecret9" not in str(raised.value)


@pytest.mark.parametrize("section", ["cache", "rate_limit", "usage"])
@pytest.mark.parametrize(("query", "name"), [("socket_timeout=1s", "socket_timeout"), ("db=zero", "db")])
def test_a_redis_url_setting_the_client_cannot_read_is_a_config_error(section: str, query: str, name: str) -> None:
    """The client reads settings from the URL's query; one it cannot read failed every call
    that used the store (``provider_error`` for the cache and the rate limiter)."""
    with pytest.raises(ConfigError, match=rf"'web\.{section}\.url'.*cannot read.*'{name}'") as raised:
        build_config(**{section: {"url": f"redis://:Pw0rdSecret9@127.0.0.1:6379/0?{query}"}})
    assert "Pw0rdSecret9" not in str(raised.value)


def test_per_provider_retry_settings_override_the_shared_ones() -> None:
    config = build_config(retry={"max_retries": 3, "backoff": 0.5}, providers={"fake-a": {"max_retries": 0}})
    assert state(config).retry_policy("fake-a").max_retries == 0
    assert state(config).retry_policy("fake-a").backoff == 0.5
    assert state(config).retry_policy("fake-b").max_retries == 3


@pytest.mark.parametrize("bad", [{"max_retries": -1}, {"backoff": -0.1}, {"max_retries": 11}])
def test_bad_retry_settings_name_the_key(bad: dict[str, float]) -> None:
    with pytest.raises(ConfigError, match=r"web\.providers\.fake-a\."):
        build_config(providers={"fake-a": bad})


def test_import_and_listing_do_not_load_redis_or_sqlite() -> None:
    code = (
        "import sys, webproviders\n"
        "webproviders.list_providers()\n"
        "print(sorted(m for m in ('redis', 'sqlite3', 'webproviders.dependable.cache.redis_backend') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
