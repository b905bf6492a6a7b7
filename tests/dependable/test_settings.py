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
