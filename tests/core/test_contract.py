"""The provider contract: the ABC's required members and capability flags."""

from __future__ import annotations

from typing import Any

import pytest

from webproviders import WebSearchProvider, dispatch_crawl, dispatch_extract


def test_abc_requires_name_and_is_available() -> None:
    class NoName(WebSearchProvider):
        def is_available(self) -> bool:
            return True

    class NoAvailability(WebSearchProvider):
        name = "x"  # type: ignore[assignment]

    with pytest.raises(TypeError):
        NoName()  # type: ignore[abstract]
    with pytest.raises(TypeError):
        NoAvailability()  # type: ignore[abstract]


class SearchOnly(WebSearchProvider):
    @property
    def name(self) -> str:
        return "search-only"

    def is_available(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5, **options: Any) -> list[dict[str, Any]]:
        return []


def test_defaults_and_unsupported_capabilities_raise() -> None:
    provider = SearchOnly()
    assert provider.display_name == "search-only"
    assert provider.capabilities() == ["search"]
    assert provider.get_setup_schema() == {
        "name": "search-only", "badge": "", "tag": "", "env_vars": []
    }
    with pytest.raises(NotImplementedError):
        provider.extract(["https://example.com"])
    with pytest.raises(NotImplementedError):
        provider.crawl("https://example.com")


def test_unsupported_capability_through_dispatch_is_an_envelope(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin(
        "searchonly",
        """
        from webproviders import WebSearchProvider

        class P(WebSearchProvider):
            name = "search-only"
            def is_available(self):
                return True
            def search(self, query, limit=5, **options):
                return []

        def register(ctx):
            ctx.register_web_search_provider(P())
        """,
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["searchonly"]})
    for envelope in (
        dispatch_extract("https://example.com", backend="search-only", config=config),
        dispatch_crawl("https://example.com", backend="search-only", config=config),
    ):
        assert envelope["success"] is False
        assert envelope["error_code"] == "unsupported"
        assert "search-only" in envelope["error"]


def test_provider_repr_shows_only_the_name() -> None:
    assert repr(SearchOnly()) == "<SearchOnly name='search-only'>"
