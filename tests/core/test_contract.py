"""The provider contract: the ABC's required members and capability flags."""

from __future__ import annotations

from typing import Any

import pytest

from webproviders import WebSearchProvider, dispatch_crawl, dispatch_extract, dispatch_search


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


_NO_OPTIONS = """
from webproviders import WebSearchProvider


class Narrow(WebSearchProvider):
    name = "narrow"

    def is_available(self):
        return True

    def search(self, query, limit=5, site=None):  # no **options, unlike the contract
        return [{"title": site or "any", "url": "https://narrow.example/"}]


def register(ctx):
    ctx.register_web_search_provider(Narrow())
"""


def test_an_option_a_method_cannot_take_is_named_not_held_against_the_provider(
    write_plugin: Any, make_config: Any
) -> None:
    """A provider written without ``**options`` raised ``TypeError`` for any option a caller
    added: a ``provider_error``, counted against its health, so that five such calls cooled
    it down for every caller."""
    from webproviders import dispatch_search

    root = write_plugin("narrow", _NO_OPTIONS)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["narrow"]})
    for _ in range(6):
        envelope = dispatch_search("q", backend="narrow", config=config, site="a.example", typo=1)
        assert envelope["success"] is True, envelope["error"]
    assert envelope["data"]["web"][0]["title"] == "a.example"  # the options it takes still reach it
    assert envelope["meta"]["warnings"] == ["narrow ignored the option(s) typo: it does not know them."]


def test_a_plugin_s_megabytes_of_error_text_reach_the_caller_cut_short(write_plugin: Any, make_config: Any) -> None:
    """A provider raising with a dumped response (10 MB), or writing one as a failed item's
    error, put it whole in the envelope: a model-facing failure of megabytes, scrubbed whole
    on the way. The sentence is cut, says how much was left out, and a key cut through at
    the edge is not shown in part."""
    root = write_plugin(
        "chatty",
        """
        from webproviders import WebSearchProvider

        DUMP = "e" * 3_990 + " sk-live-0123456789abcdef " + "x" * 10_000_000

        class P(WebSearchProvider):
            name = "chatty"
            def is_available(self):
                return True
            def supports_extract(self):
                return True
            def search(self, query, limit=5, **options):
                raise RuntimeError(DUMP)
            def extract(self, urls, **kwargs):
                return [{"url": urls[0], "error": DUMP}, {"url": urls[1], "content": "Read.", "title": "t"}]

        def register(ctx):
            ctx.register_web_search_provider(P())
        """,
    )
    config = make_config(
        plugins={"paths": [str(root)], "enabled": ["chatty"]}, web={"cache": False, "allow_private_networks": True}
    )
    searched = dispatch_search("q", backend="chatty", config=config)
    assert searched["error_code"] == "provider_error", searched
    extracted = dispatch_extract(["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"], backend="chatty", config=config)
    assert extracted["success"] is True, extracted
    for error in (searched["error"], extracted["data"][0]["error"]):
        assert len(error) < 4_200, len(error)
        assert error.endswith("more characters left out)"), error[-80:]
        assert "sk-live" not in error and "0123456789abcdef" not in error
