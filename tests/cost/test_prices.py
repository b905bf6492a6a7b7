"""Prices: list prices from plugin.yaml, the operator's override, and who pays nothing."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from webproviders import list_providers
from webproviders.accounting.prices import tariff_for
from webproviders.config import ConfigError
from webproviders.registry.providers import get_registry

from .conftest import cost_config


def _tariff(config: Any, name: str) -> Any:
    registry = get_registry(config)
    entry = registry.get(name)
    return tariff_for(entry.manifest, config.provider(name))


def test_every_keyed_builtin_provider_declares_a_dated_price_with_its_source(make_config: Any) -> None:
    registry = get_registry(make_config())
    keyed = [
        row["name"] for row in list_providers(make_config())
        if row["source"] == "built-in" and any(var.secret for var in registry.get(row["name"]).manifest.env)
    ]
    free_plans = {"brave-free", "searxng", "local"}  # a free plan; self-hosted servers' optional tokens
    for name in keyed:
        price = registry.get(name).manifest.price_sheet()
        if name in free_plans:
            assert price is None, name
            continue
        assert price is not None, f"{name} has no price in its plugin.yaml"
        assert isinstance(price.as_of, datetime.date) and price.source.startswith("https://"), name
        assert any(price.entry(c) and price.entry(c).usd > 0 for c in ("search", "extract", "crawl")), name


def test_keyless_and_self_hosted_builtin_providers_cost_nothing(make_config: Any) -> None:
    registry = get_registry(make_config())
    for name in ("ddgs", "ddg_html", "baidu_html", "http", "searxng", "crawl4ai", "stub", "local"):
        assert registry.get(name).manifest.price is None, name


def test_a_provider_used_without_its_key_is_free_and_with_it_is_priced(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _tariff(cost_config(), "keyed").free
    monkeypatch.setenv("KEYED_FAKE_API_KEY", "k-123456")
    assert _tariff(cost_config(), "keyed").rate("search").usd == 0.01
    assert _tariff(cost_config(providers={"keyed": {"api_key": "k-654321"}}), "keyed").rate("search").usd == 0.01


def test_a_self_hosted_instance_is_free_even_with_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYED_FAKE_API_KEY", "k-123456")
    assert _tariff(cost_config(providers={"keyed": {"base_url": "http://127.0.0.1:9"}}), "keyed").free
    monkeypatch.setenv("KEYED_FAKE_URL", "http://127.0.0.1:9")
    assert _tariff(cost_config(), "keyed").free


def test_the_operators_price_overrides_the_list_price_per_capability() -> None:
    config = cost_config(providers={"priced": {"price": {"search": {"usd": 0.001}}}})
    tariff = _tariff(config, "priced")
    assert tariff.rate("search").usd == 0.001 and tariff.rate("search").per == "request"
    assert tariff.rate("extract").usd == 0.002  # not overridden: the list price stays


def test_an_operators_price_for_one_capability_leaves_a_self_hosted_or_keyless_setup_free_for_the_others(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A self-hosted firecrawl priced by its operator per crawled page was charged Firecrawl's
    list price for every search and scrape (and its reported credits at Firecrawl's rate);
    jina's keyless reader, given a price for search, was charged the list price per URL."""
    monkeypatch.setenv("FIRECRAWL_API_KEY", "fc-123456")
    own = {"crawl": {"usd": 0.0001, "per": "page"}}
    hosted = _tariff(make_config(web={"providers": {"firecrawl": {"base_url": "http://127.0.0.1:3002", "price": own}}}), "firecrawl")
    assert hosted.rate("crawl").usd == 0.0001
    assert (hosted.rate("search").usd, hosted.rate("extract").usd, hosted.credit_usd) == (0.0, 0.0, None)
    monkeypatch.delenv("JINA_API_KEY", raising=False)
    keyless = _tariff(make_config(web={"providers": {"jina": {"price": {"search": {"usd": 0.0002}}}}}), "jina")
    assert keyless.rate("search").usd == 0.0002 and keyless.rate("extract").usd == 0.0
    # With its key, and not self-hosted, what the operator left out keeps the list price.
    keyed = _tariff(make_config(web={"providers": {"firecrawl": {"price": own}}}), "firecrawl")
    assert keyed.rate("search").usd == 0.01066 and keyed.credit_usd == 0.00533


@pytest.mark.parametrize("free", [0, False, "free"])
def test_price_zero_makes_a_provider_free(free: Any) -> None:
    assert _tariff(cost_config(providers={"priced": {"price": free}}), "priced").free


def test_a_bad_price_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError, match=r"web\.providers\.priced\.price\.search\.usd"):
        cost_config(providers={"priced": {"price": {"search": {"usd": -1}}}})
    with pytest.raises(ConfigError, match=r"web\.providers\.priced\.price\.search\.per"):
        cost_config(providers={"priced": {"price": {"search": {"usd": 1, "per": "token"}}}})
