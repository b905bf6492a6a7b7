"""Golden envelopes and the normalisation of what providers return."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from webproviders import dispatch_crawl, dispatch_extract, dispatch_search
from webproviders.envelope import MAX_HIT_CHARS, normalise_pages, normalise_search
from webproviders.errors import ParseError, RateLimitedError
from webproviders.models import FailureEnvelope, PagesEnvelope, SearchEnvelope


def _without_timings(envelope: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in envelope["meta"].items() if k != "latency_ms"}
    meta["attempts"] = [{k: v for k, v in a.items() if k != "latency_ms"} for a in meta["attempts"]]
    return {**envelope, "meta": meta}


def test_search_golden(make_config: Any) -> None:
    envelope = dispatch_search("Golden Query", 2, backend="stub", config=make_config())
    assert _without_timings(envelope) == {
        "success": True,
        "data": {
            "web": [
                {
                    "title": "Golden Query — result 1",
                    "url": "https://stub.example.com/golden-query/6221de0d3d52/1",
                    "description": "Stub result 1 for 'Golden Query' (6221de0d3d52).",
                    "position": 1,
                },
                {
                    "title": "Golden Query — result 2",
                    "url": "https://stub.example.com/golden-query/6221de0d3d52/2",
                    "description": "Stub result 2 for 'Golden Query' (6221de0d3d52).",
                    "position": 2,
                },
            ]
        },
        "provider": "stub",
        "meta": {
            "requested_backend": "stub",
            "served_by": "stub",
            "attempts": [{"provider": "stub", "outcome": "ok"}],
            "warnings": [
                "These are offline placeholder results from the stub backend, not from the web: "
                "no real backend is configured for this call."
            ],
        },
    }
    SearchEnvelope.model_validate(envelope)


def test_extract_golden_with_one_failed_url(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin(
        "partial",
        """
        from webproviders import WebSearchProvider
        from webproviders.envelope import page_error
        from webproviders.errors import BlockedError

        class Partial(WebSearchProvider):
            name = "partial"
            def is_available(self):
                return True
            def supports_extract(self):
                return True
            def extract(self, urls, **kwargs):
                ok = {"url": urls[0], "title": "Ok", "content": "# Ok\\n\\ntext", "raw_content": "Ok text",
                      "metadata": {"status_code": 200}}
                return [ok, page_error(urls[1], BlockedError("The site shows a CAPTCHA.", detail="captcha_required"))]

        def register(ctx):
            ctx.register_web_search_provider(Partial(), manifest={"fetch": "none"})
        """,
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["partial"]})
    envelope = dispatch_extract(["https://ok.example/", "https://walled.example/"], backend="partial", config=config)
    assert _without_timings(envelope) == {
        "success": True,
        "data": [
            {
                "url": "https://ok.example/",
                "title": "Ok",
                "content": "# Ok\n\ntext",
                "raw_content": "Ok text",
                "metadata": {"status_code": 200},
            },
            {
                "url": "https://walled.example/",
                "title": "",
                "content": "",
                "raw_content": None,
                "metadata": {},
                "error": "The site shows a CAPTCHA.",
                "error_code": "blocked",
                "detail": "captcha_required",
            },
        ],
        "provider": "partial",
        "meta": {
            "requested_backend": "partial",
            "served_by": "partial",
            "attempts": [{"provider": "partial", "outcome": "ok"}],
            "failed": 1,
        },
    }
    PagesEnvelope.model_validate(envelope)


def test_crawl_golden(make_config: Any) -> None:
    envelope = dispatch_crawl("https://docs.example/", backend="stub", config=make_config(), max_pages=2)
    pages = envelope["data"]
    assert [p["url"] for p in pages] == ["https://docs.example/", "https://docs.example/page-1"]
    assert [p["metadata"]["depth"] for p in pages] == [0, 1]
    assert set(pages[0]) == {"url", "title", "content", "raw_content", "metadata"}
    PagesEnvelope.model_validate(envelope)


def test_stub_crawl_holds_a_large_max_pages_to_its_cap(make_config: Any) -> None:
    """A max_pages past the stub's ten pages gets ten, as docs/providers/stub-ddgs.md says, not the default three."""
    envelope = dispatch_crawl("https://docs.example/", backend="stub", config=make_config(), max_pages=20)
    pages = envelope["data"]
    assert len(pages) == 10
    assert pages[-1]["url"] == "https://docs.example/page-9"


def test_failure_golden(write_plugin: Any, make_config: Any) -> None:
    root = write_plugin(
        "limited",
        """
        from webproviders import WebSearchProvider
        from webproviders.errors import RateLimitedError

        class Limited(WebSearchProvider):
            name = "limited"
            def is_available(self):
                return True
            def search(self, query, limit=5, **options):
                raise RateLimitedError("limited is rate limiting requests (HTTP 429).", retry_after=7)

        def register(ctx):
            ctx.register_web_search_provider(Limited())
        """,
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["limited"]}, web={"providers": {"limited": {"max_retries": 0}}})
    envelope = dispatch_search("q", backend="limited", config=config)
    stable = _without_timings(envelope)
    assert {k: stable[k] for k in ("success", "error", "error_code", "retryable", "retry_after", "provider")} == {
        "success": False,
        "error": "limited is rate limiting requests (HTTP 429).",
        "error_code": "rate_limited",
        "retryable": True,
        "retry_after": 7,
        "provider": "limited",
    }
    assert stable["meta"]["served_by"] is None
    assert stable["meta"]["attempts"][0]["error_code"] == "rate_limited"
    FailureEnvelope.model_validate(envelope)


class Hit(BaseModel):
    title: str
    link: str
    snippet: str


@pytest.mark.parametrize(
    "raw",
    [
        {"success": True, "data": {"web": [{"title": "A", "url": "https://a.example/", "description": "d"}]}},
        {"web": [{"title": "A", "href": "https://a.example/", "body": "d"}]},
        [{"name": "A", "link": "https://a.example/", "content": "d"}],
        [Hit(title="A", link="https://a.example/", snippet="d")],
        [{"title": "  A \n", "uri": " https://a.example/ ", "text": " d "}],
    ],
)
def test_accepted_provider_shapes_normalise_alike(raw: Any) -> None:
    hits, _ = normalise_search(raw, 5)
    assert hits == [{"title": "A", "url": "https://a.example/", "description": "d", "position": 1}]


def test_filtering_dedup_cap_and_positions() -> None:
    raw = [
        {"title": "ftp", "url": "ftp://x.example/"},
        {"title": "rel", "url": "/relative"},
        {"title": "one", "url": "https://1.example/", "score": 0.9, "published_at": "2026-01-02"},
        {"title": "one again", "url": "https://1.example/"},
        {"title": "two", "url": "HTTP://2.example/"},
        {"title": "three", "url": "https://3.example/"},
        "not a dict",
        None,
    ]
    hits, _ = normalise_search(raw, 2)
    assert [(h["title"], h["position"]) for h in hits] == [("one", 1), ("two", 2)]
    assert hits[0]["score"] == 0.9 and hits[0]["published_at"] == "2026-01-02"


def test_a_missing_title_stays_empty_rather_than_becoming_the_url() -> None:
    raw = [{"title": None, "url": "https://a.example/"}, {"url": "https://b.example/"}]
    hits, _ = normalise_search(raw, 5)
    assert [h["title"] for h in hits] == ["", ""]


def test_failure_envelope_from_a_provider_becomes_an_error() -> None:
    with pytest.raises(RateLimitedError):
        normalise_search({"success": False, "error": "slow down", "error_code": "rate_limited"}, 5)


def test_garbage_shapes_are_parse_errors() -> None:
    with pytest.raises(ParseError):
        normalise_search({"web": "nope"}, 5)
    with pytest.raises(ParseError):
        normalise_pages(42)


def test_a_shape_not_understood_is_named_with_what_to_return_instead() -> None:
    """A plugin whose search is a generator (``yield`` per hit) was told only "an unrecognised
    shape", which names neither what it returned nor what it should."""
    hits = ({"title": "t", "url": f"https://a.example/{i}"} for i in range(2))
    with pytest.raises(ParseError) as refused:
        normalise_search(hits, 5)
    assert refused.value.message == (
        "The provider returned search results in an unrecognised shape (generator); "
        "return a list of results or {'web': [...]}."
    )
    with pytest.raises(ParseError, match=r"pages in an unrecognised shape \(int\); return a list of pages"):
        normalise_pages(42)


def test_pages_accept_markdown_key_and_single_mapping() -> None:
    pages, _ = normalise_pages({"url": "https://p.example/", "markdown": "# T", "title": "T"})
    assert pages == [{"url": "https://p.example/", "title": "T", "content": "# T", "raw_content": None, "metadata": {}}]


_ODD_META = """
from webproviders import WebSearchProvider


class OddMeta(WebSearchProvider):
    name = "odd-meta"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        meta = {"score": float("nan"), "handle": object(), "raw": b"x", "ids": {1}, "kept": [1, "a", None]}
        return {"web": [{"title": "t", "url": "https://odd.example/"}], "meta": meta}
"""


def test_a_provider_s_own_meta_keeps_the_envelope_json(write_plugin: Any, make_config: Any) -> None:
    """A provider's ``meta`` went into the envelope as it was: a NaN or an object there made the
    envelope something ``json.dumps`` refuses (``webproviders search --json`` then failed)."""
    root = write_plugin("odd-meta", _ODD_META + "\n\ndef register(ctx):\n    ctx.register_web_search_provider(OddMeta())\n")
    config = make_config(plugins={"paths": [str(root)], "enabled": ["odd-meta"]})
    envelope = dispatch_search("q", backend="odd-meta", config=config)
    assert envelope["success"] is True
    json.dumps(envelope, allow_nan=False)
    assert envelope["meta"]["kept"] == [1, "a", None]
    assert not {"score", "handle", "raw", "ids"} & envelope["meta"].keys()


def test_text_handed_on_as_bytes_is_read_as_utf8() -> None:
    """A provider that hands on a body undecoded (``response.content``) once gave the caller
    its Python repr, ``b'caf\\\\xc3\\\\xa9'``, as the page's text."""
    pages, _ = normalise_pages([{"url": b"https://p.example/", "title": b"Caf\xc3\xa9", "content": b"caf\xc3\xa9 \xff"}])
    assert pages[0]["url"] == "https://p.example/"
    assert (pages[0]["title"], pages[0]["content"]) == ("Café", "café \ufffd")
    hits, _ = normalise_search([{"url": "https://s.example/", "title": b"Caf\xc3\xa9"}], 5)
    assert hits[0]["title"] == "Café"


_LISTS = """
from webproviders import WebSearchProvider

ANSWERS = {
    "urls": ["https://a.example/", "https://b.example/"],
    "nested": [[{"title": "t", "url": "https://a.example/"}]],
    "unlinked": [{"title": "t", "permalink": "https://a.example/"}],
    "scripts": [{"title": "t", "url": "javascript:alert(1)"}],
}


class Lists(WebSearchProvider):
    name = "lists"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        return ANSWERS[query]


def register(ctx):
    ctx.register_web_search_provider(Lists(), manifest={"fetch": "none"})
"""


def test_a_list_holding_no_result_is_a_parse_error_not_an_empty_success(
    write_plugin: Any, make_config: Any
) -> None:
    """A search that returned URLs as strings (or results without a URL) answered a success
    with no hit: the caller saw "nothing found", a chain did not move on, and the author of the
    plugin was told nothing. Results whose URL is not http(s) are still dropped on purpose."""
    root = write_plugin("lists", _LISTS)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["lists"]})
    answers = {q: dispatch_search(q, backend="lists", config=config) for q in ("urls", "nested", "unlinked", "scripts")}
    assert answers["urls"]["error_code"] == "parse_error"
    assert answers["urls"]["error"] == (
        "The provider returned search results in an unrecognised shape (a list of str); return a list "
        "of results, each a mapping with a 'url' (or 'href', 'link', 'uri'), 'title' and 'description'."
    )
    assert "(a list of list)" in answers["nested"]["error"]
    assert answers["unlinked"]["error"] == (
        "The provider returned search results none of which has a URL as text (1 item(s), a list of dict), so "
        "none can be given; a provider returns a list of results, each a mapping with a 'url' (or 'href', 'link', "
        "'uri'), 'title' and 'description'."
    )
    assert answers["scripts"]["success"] is True and answers["scripts"]["data"]["web"] == []


_UNAWAITED = """
import asyncio
from webproviders import WebSearchProvider


async def _hits():
    await asyncio.sleep(0)
    return [{"title": "t", "url": "https://a.example/"}]


class Unawaited(WebSearchProvider):
    name = "unawaited"

    def is_available(self):
        return True

    async def search(self, query, limit=5, **options):
        return _hits()  # the await forgotten


def register(ctx):
    ctx.register_web_search_provider(Unawaited(), manifest={"fetch": "none"})
"""


def test_an_async_search_that_returns_a_coroutine_says_to_await_it(
    write_plugin: Any, make_config: Any, recwarn: pytest.WarningsRecorder
) -> None:
    """An ``async def`` that returns another coroutine (``return fetch()``) was "an unrecognised
    shape (coroutine)", and the coroutine, never awaited, warned when collected."""
    import gc

    root = write_plugin("unawaited", _UNAWAITED)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["unawaited"]})
    envelope = dispatch_search("q", backend="unawaited", config=config)
    assert (envelope["error_code"], envelope["error"]) == (
        "parse_error",
        "The provider returned search results as a coroutine it did not await; await it and return its result.",
    )
    gc.collect()
    assert not [w for w in recwarn if "was never awaited" in str(w.message)]


_SLOPPY = '''
from webproviders import WebSearchProvider


class NoReturn(WebSearchProvider):
    name = "noreturn"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        hits = [{"title": "t", "url": "https://t.example/"}]  # and no ``return hits``

    def supports_extract(self):
        return True

    def extract(self, urls, **kwargs):
        pages = [{"url": url, "content": "read"} for url in urls]  # and no ``return pages``

    def supports_crawl(self):
        return True

    def crawl(self, url, **kwargs):
        pages = [{"url": url, "content": "read"}]  # and no ``return pages``


class Many(WebSearchProvider):
    name = "many"

    def is_available(self):
        return True

    def supports_extract(self):
        return True

    def extract(self, urls, **kwargs):
        return [{"url": urls[0], "content": f"copy {n}"} for n in range(100_000)]

    def supports_crawl(self):
        return True

    def crawl(self, url, **kwargs):
        return [{"url": f"{url}{n}", "content": f"page {n}"} for n in range(100_000)]


def register(ctx):
    ctx.register_web_search_provider(NoReturn(), manifest={"capabilities": ["search", "extract", "crawl"], "fetch": "none"})
    ctx.register_web_search_provider(Many(), manifest={"capabilities": ["extract", "crawl"], "fetch": "none"})
'''


def test_a_search_that_returns_none_is_a_parse_error_a_chain_moves_on_from(
    write_plugin: Any, make_config: Any
) -> None:
    """A ``search`` that ends without ``return`` was a success with no hits: cached, and the
    end of a chain, though the provider had said nothing about the query."""
    root = write_plugin("sloppy", _SLOPPY)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["sloppy"]})
    envelope = dispatch_search("q", backend="noreturn", config=config)
    assert (envelope["error_code"], envelope["error"]) == (
        "parse_error",
        "The provider returned None for search results; return a list of results ([] for none).",
    )
    chained = dispatch_search("q", backend=["noreturn", "stub"], config=config)
    assert chained["success"] is True and chained["provider"] == "stub"


def test_an_extract_or_crawl_that_returns_none_is_a_parse_error_saying_what_to_return(
    write_plugin: Any, make_config: Any
) -> None:
    """An ``extract`` that ends without ``return`` read as "returned no page for the URLs asked
    for", a provider_error that named neither the ``None`` nor what to return, as a search's does."""
    root = write_plugin("sloppy", _SLOPPY)
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["sloppy"]})
    said = "The provider returned None for pages; return a list of pages ([] for none)."
    extracted = dispatch_extract(["https://a.example/"], backend="noreturn", config=config)
    assert (extracted["error_code"], extracted["error"]) == ("parse_error", said)
    crawled = dispatch_crawl("https://a.example/", backend="noreturn", config=config)
    assert (crawled["error_code"], crawled["error"]) == ("parse_error", said)


def test_an_extract_answer_is_held_to_one_item_per_url(write_plugin: Any, make_config: Any) -> None:
    """As a crawl is held to its ``max_pages``: 100,000 items for 2 URLs were all returned and cached."""
    root = write_plugin("sloppy", _SLOPPY)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["sloppy"]})
    envelope = dispatch_extract(["https://a.example/", "https://b.example/"], backend="many", config=config)
    assert [page["content"] for page in envelope["data"]] == ["copy 0", "copy 1"]
    assert envelope["meta"]["warnings"] == ["many returned 100000 pages for 2 URLs; the first 2 are kept."]


def test_a_crawl_without_max_pages_is_held_to_the_providers_setting_or_to_what_http_crawls(
    write_plugin: Any, make_config: Any
) -> None:
    """A plugin's crawl of 100,000 pages, asked without ``max_pages``, was returned and cached whole."""
    root = write_plugin("sloppy", _SLOPPY)
    plugins = {"paths": [str(root)], "enabled": ["sloppy"]}
    envelope = dispatch_crawl("https://a.example/", backend="many", config=make_config(plugins=plugins))
    assert [page["content"] for page in envelope["data"]] == [f"page {n}" for n in range(1000)]
    assert envelope["meta"]["warnings"] == [
        "many returned 100000 pages for a crawl without max_pages (pass it for more than 1000); the first 1000 are kept."
    ]
    configured = make_config(plugins=plugins, web={"providers": {"many": {"max_pages": 1500}}})
    assert len(dispatch_crawl("https://a.example/", backend="many", config=configured)["data"]) == 1500


def test_a_failed_item_in_a_provider_s_own_words_is_held_to_the_envelope_s_terms(
    write_plugin: Any, make_config: Any
) -> None:
    """A per-URL failure written by hand (``{"url", "error", "error_code": "acme_down"}``)
    reached the envelope as it was: an ``error_code`` outside the closed set callers switch
    on, a ``detail`` that is a number and a ``retry_after`` of ``"soon"``, which the envelope
    models refused to read; an item with only an ``error_code`` read as a page with no text."""
    root = write_plugin(
        "handmade",
        """
        from webproviders import WebSearchProvider

        class Handmade(WebSearchProvider):
            name = "handmade"
            def is_available(self):
                return True
            def supports_extract(self):
                return True
            def extract(self, urls, **kwargs):
                return [
                    {"url": urls[0], "error": "Acme is rebuilding", "error_code": "acme_down", "detail": 5,
                     "retry_after": "soon"},
                    {"url": urls[1], "error_code": "not_found", "retry_after": 30},
                    {"url": urls[2], "content": "read", "detail": {"took": 3}},
                ]

        def register(ctx):
            ctx.register_web_search_provider(Handmade(), manifest={"fetch": "none"})
        """,
    )
    config = make_config(plugins={"paths": [str(root)], "enabled": ["handmade"]})
    urls = ["https://a.example/", "https://b.example/", "https://c.example/"]
    envelope = dispatch_extract(urls, backend="handmade", config=config)
    PagesEnvelope.model_validate(envelope)
    first, second, third = envelope["data"]
    assert (first["error_code"], first["error"]) == ("provider_error", "Acme is rebuilding")
    assert "detail" not in first and "retry_after" not in first
    assert (second["error_code"], second["retry_after"]) == ("not_found", 30.0)
    assert second["error"] == "The provider reported a failure without a message."
    assert third["content"] == "read" and "detail" not in third and "error" not in third
    assert envelope["meta"]["failed"] == 2


def test_a_provider_s_meta_cannot_write_the_dispatcher_s_keys_and_its_warning_as_text_is_one(
    write_plugin: Any, make_config: Any
) -> None:
    """``{"data": ..., "meta": {"failed": 99, "cost": {"usd": 100}}}`` reached the envelope of
    an extract that read every page, for free; ``"warnings": "check the quota"`` was said a
    character at a time."""
    root = write_plugin(
        "metaed",
        """
        from webproviders import WebSearchProvider

        class Metaed(WebSearchProvider):
            name = "metaed"
            def is_available(self):
                return True
            def supports_extract(self):
                return True
            def extract(self, urls, **kwargs):
                return {
                    "data": [{"url": url, "content": "read"} for url in urls],
                    "meta": {"failed": 99, "failures": [], "cost": {"usd": 100}, "fused": ["metaed"],
                             "warnings": "check the quota", "api_balance": 7},
                }

        def register(ctx):
            ctx.register_web_search_provider(Metaed(), manifest={"fetch": "none"})
        """,
    )
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["metaed"]})
    meta = dispatch_extract(["https://a.example/"], backend="metaed", config=config)["meta"]
    assert not {"failed", "failures", "cost", "fused"} & meta.keys(), meta
    assert meta["warnings"] == ["check the quota"] and meta["api_balance"] == 7


def test_an_item_names_the_provider_that_answered_not_the_one_a_plugin_wrote(
    write_plugin: Any, make_config: Any
) -> None:
    """A plugin's ``"provider": "google"`` on its items reached the envelope as the provider
    that produced them (in a chain too, where every item names the one that did), and the
    page index filed the pages under it."""
    root = write_plugin(
        "relay",
        """
        from webproviders import WebSearchProvider

        class Relay(WebSearchProvider):
            name = "relay"
            def is_available(self):
                return True
            def supports_extract(self):
                return True
            def search(self, query, limit=5, **options):
                return [{"title": "t", "url": "https://r.example/", "provider": "google", "providers": ["google"]}]
            def extract(self, urls, **kwargs):
                return [{"url": url, "content": "read", "provider": "google"} for url in urls]

        def register(ctx):
            ctx.register_web_search_provider(Relay(), manifest={"fetch": "none"})
        """,
    )
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["relay"]})
    hit = dispatch_search("q", backend="relay", config=config)["data"]["web"][0]
    assert "provider" not in hit and "providers" not in hit
    page = dispatch_extract(["https://a.example/"], backend=["relay", "stub"], config=config)["data"][0]
    assert (page["content"], page["provider"]) == ("read", "relay")


def test_an_item_with_an_empty_error_is_a_failed_url_and_one_with_a_null_error_a_page() -> None:
    """``{"url", "error": ""}`` was served as a page read successfully, with no text: the
    ``error`` key marks a failed URL, its words or not. ``"error": None`` (or ``{}``), as a
    model dumped whole writes for a page read, stays a page."""
    pages, _ = normalise_pages(
        [
            {"url": "https://a.example/", "error": ""},
            {"url": "https://b.example/", "content": "read", "error": None},
            {"url": "https://c.example/", "content": "read", "error": {}},
        ]
    )
    failed, *read = pages
    assert (failed["error_code"], failed["error"]) == (
        "provider_error", "The provider reported a failure without a message."
    )
    assert all(page["content"] == "read" and "error" not in page for page in read)


def test_pages_in_a_shape_not_understood_are_a_parse_error_naming_it(write_plugin: Any, make_config: Any) -> None:
    """An extract that returned its pages' markdown as strings (or pages without a URL) read
    as "returned no page for the URLs asked for", a provider_error not tried again, and said
    nothing of the shape, where a search answering so is a parse_error naming it."""
    root = write_plugin(
        "texts",
        """
        from webproviders import WebSearchProvider

        class Texts(WebSearchProvider):
            name = "texts"
            def is_available(self):
                return True
            def supports_extract(self):
                return True
            def extract(self, urls, **kwargs):
                if kwargs.get("format") == "text":
                    return [{"content": "the page"} for url in urls]
                return ["# the page" for url in urls]

        def register(ctx):
            ctx.register_web_search_provider(Texts(), manifest={"fetch": "none"})
        """,
    )
    config = make_config(web={"cache": False}, plugins={"paths": [str(root)], "enabled": ["texts"]})
    strings = dispatch_extract(["https://a.example/"], backend="texts", config=config)
    assert (strings["error_code"], strings["error"]) == (
        "parse_error",
        "The provider returned pages in an unrecognised shape (a list of str); return a list of pages, each a "
        "mapping with a 'url' (or 'href', 'link', 'uri') and its 'content'.",
    )
    unlinked = dispatch_extract(["https://a.example/"], backend="texts", config=config, format="text")
    assert unlinked["error"].startswith("The provider returned pages none of which has a URL as text (1 item(s), a list")


_LONG_HITS = """
from webproviders import WebSearchProvider, warn

BIG = "word " * 4_000_000  # 20 MB of text


class Long(WebSearchProvider):
    name = "long"

    def is_available(self):
        return True

    def search(self, query, limit=5, **options):
        hit = {"url": "https://long.example/", "title": "Long", "description": "short"}
        if query == "meta":
            return {"success": True, "data": {"web": [hit]}, "meta": {"dump": BIG, "request_id": "r1"}}
        if query == "detail":
            return {"success": False, "error": "Blocked.", "error_code": "blocked", "detail": BIG}
        if query == "raised_detail":
            from webproviders.errors import BlockedError

            raise BlockedError("Blocked.", detail=BIG)
        if query == "warn":
            for n in range(1_000):
                warn(f"Result {n} came without a date: " + BIG[: 100 * n])
            return [hit]
        return {
            "description": [{**hit, "description": BIG}],
            "title": [{**hit, "title": BIG}],
            "text_extra": [{**hit, "full_text": BIG, "lang": "en"}],
            "nested_extra": [{**hit, "chunks": [BIG[:1000]] * 20_000, "lang": "en"}],
            "url": [{**hit, "url": "https://long.example/" + "a" * 10_000_000}, {**hit, "url": "https://ok.example/"}],
            "plain_url": [{**hit, "url": "https://long.example/" + "a" * 5_000}, {**hit, "url": "https://ok.example/"}],
            "short": [{**hit, "lang": "en"}],
            "bytes": [{**hit, "title": BIG.encode(), "description": BIG.encode()}],
            "listed": [{**hit, "description": [BIG[:1000]] * 20_000}],
            "bytes_url": [{**hit, "url": b"https://long.example/" + b"a" * 10_000_000}, {**hit, "url": "https://ok.example/"}],
        }[query]


def register(ctx):
    ctx.register_web_search_provider(Long())
"""


@pytest.fixture
def long_hits(write_plugin: Any, make_config: Any) -> Any:
    plugins = write_plugin("long", _LONG_HITS)
    return make_config(web={"cache": False}, plugins={"paths": [str(plugins)], "enabled": ["long"]})


def _held_warning(envelope: dict[str, Any]) -> bool:
    return any("held more text than is kept" in line for line in envelope["meta"].get("warnings", []))


def test_a_plugins_hit_text_handed_on_as_bytes_is_held_as_text_is(long_hits: Any) -> None:
    """Bytes were decoded whole, after the length check: a 20 MB title went into the envelope."""
    envelope = dispatch_search("bytes", backend="long", config=long_hits)
    (hit,) = envelope["data"]["web"]
    assert 80_000 <= len(hit["title"]) <= MAX_HIT_CHARS and 80_000 <= len(hit["description"]) <= MAX_HIT_CHARS
    assert _held_warning(envelope)
    long_url = dispatch_search("bytes_url", backend="long", config=long_hits)
    assert [hit["url"] for hit in long_url["data"]["web"]] == ["https://ok.example/"]


def test_a_plugins_hit_description_that_is_no_text_is_held_as_text_is(long_hits: Any) -> None:
    """A list of snippets given as the description read as its 20 MB rendering, uncut."""
    envelope = dispatch_search("listed", backend="long", config=long_hits)
    (hit,) = envelope["data"]["web"]
    assert len(hit["description"]) <= MAX_HIT_CHARS and _held_warning(envelope)


@pytest.mark.parametrize("field", ["description", "title"])
def test_a_plugins_hit_text_is_cut_at_the_hit_cap(long_hits: Any, field: str) -> None:
    envelope = dispatch_search(field, backend="long", config=long_hits)
    assert envelope["success"] is True, envelope
    (hit,) = envelope["data"]["web"]
    assert 80_000 <= len(hit[field]) <= MAX_HIT_CHARS
    assert hit[field].startswith("word word")
    assert _held_warning(envelope)


def test_a_plugins_hit_extras_are_held_to_the_hit_cap_together(long_hits: Any) -> None:
    text = dispatch_search("text_extra", backend="long", config=long_hits)
    (hit,) = text["data"]["web"]
    assert hit["lang"] == "en" and 80_000 <= len(hit["full_text"]) <= MAX_HIT_CHARS
    assert _held_warning(text)
    nested = dispatch_search("nested_extra", backend="long", config=long_hits)
    (hit,) = nested["data"]["web"]
    assert "chunks" not in hit and hit["lang"] == "en"
    assert len(json.dumps(nested)) < MAX_HIT_CHARS
    assert _held_warning(nested)


@pytest.mark.parametrize("query", ["url", "plain_url"])  # plain_url: a hit of the three keys only, its text short
def test_a_plugins_hit_with_a_url_longer_than_any_url_read_is_left_out(long_hits: Any, query: str) -> None:
    envelope = dispatch_search(query, backend="long", config=long_hits)
    assert [hit["url"] for hit in envelope["data"]["web"]] == ["https://ok.example/"]
    assert envelope["data"]["web"][0]["position"] == 1
    assert _held_warning(envelope)


def test_a_short_hit_is_kept_whole_without_a_warning(long_hits: Any) -> None:
    envelope = dispatch_search("short", backend="long", config=long_hits)
    assert envelope["data"]["web"] == [
        {"title": "Long", "url": "https://long.example/", "description": "short", "position": 1, "lang": "en"}
    ]
    assert not _held_warning(envelope)


def test_a_plugins_meta_over_the_cap_is_left_out_and_said(long_hits: Any) -> None:
    envelope = dispatch_search("meta", backend="long", config=long_hits)
    assert envelope["success"] is True, envelope
    assert "dump" not in envelope["meta"] and "request_id" not in envelope["meta"]
    assert any("meta was larger than 100,000 characters" in line for line in envelope["meta"]["warnings"])
    assert len(json.dumps(envelope)) < 10_000


@pytest.mark.parametrize("query", ["detail", "raised_detail"])
def test_a_plugins_failure_detail_is_held_as_its_sentence_is(long_hits: Any, query: str) -> None:
    """A 20 MB ``detail`` (meant for a code such as ``captcha_required``) went whole into the envelope."""
    envelope = dispatch_search(query, backend="long", config=long_hits)
    assert envelope["error_code"] == "blocked" and envelope["error"] == "Blocked."
    assert envelope["detail"].startswith("word word") and envelope["detail"].endswith("more characters left out)")
    assert len(json.dumps(envelope)) < 10_000


def test_a_plugins_warnings_are_held_in_length_and_number(long_hits: Any) -> None:
    envelope = dispatch_search("warn", backend="long", config=long_hits)
    warnings = envelope["meta"]["warnings"]
    assert len(warnings) == 101 and warnings[-1] == "More warnings were left out (at most 100 are kept)."
    assert all(len(line) <= 4_100 for line in warnings)
    assert warnings[0] == "Result 0 came without a date: "
    assert warnings[99].endswith("more characters left out)")


_LONG_PAGES = """
from webproviders import WebSearchProvider

BIG = "word " * 4_000_000  # 20 MB of text


class LongPages(WebSearchProvider):
    name = "longpages"

    def is_available(self):
        return True

    def supports_extract(self):
        return True

    def supports_crawl(self):
        return True

    def extract(self, urls, **kwargs):
        page = {"url": urls[0], "title": "Long", "content": "short", "metadata": {"lang": "en"}}
        if urls[0].endswith("/short"):
            return [{**page, "raw_content": "short", "score": 1}]
        if urls[0].endswith("/bytes"):
            return [{**page, "title": BIG.encode()}]
        return [{**page, "title": BIG, "content": BIG, "raw_content": BIG, "metadata": {"dump": BIG, "lang": "en"},
                 "html": BIG, "score": 1}]

    def crawl(self, url, **kwargs):
        return [{"url": url, "title": "Seed", "content": BIG}, {"url": url + "a" * 10_000_000, "content": "x"}]


def register(ctx):
    ctx.register_web_search_provider(LongPages(), manifest={"fetch": "none"})
"""


@pytest.fixture
def long_pages(write_plugin: Any, make_config: Any) -> Any:
    plugins = write_plugin("longpages", _LONG_PAGES)
    return make_config(web={"cache": False}, plugins={"paths": [str(plugins)], "enabled": ["longpages"]})


def _pages_held(envelope: dict[str, Any]) -> bool:
    return any("page(s) held more text than is kept" in line for line in envelope["meta"].get("warnings", []))


def test_a_plugins_page_is_held_to_the_response_cap_without_max_chars(long_pages: Any) -> None:
    envelope = dispatch_extract(["https://long.example/"], backend="longpages", config=long_pages)
    assert envelope["success"] is True, envelope
    (page,) = envelope["data"]
    assert 4_000_000 <= len(page["content"]) <= 5_000_000 and page["content"].startswith("word word")
    assert 4_000_000 <= len(page["raw_content"]) <= 5_000_000
    assert page["metadata"]["truncated"] is True and page["metadata"]["content_chars"] == 19_999_999
    assert 80_000 <= len(page["title"]) <= MAX_HIT_CHARS
    assert page["metadata"]["lang"] == "en" and len(page["metadata"]["dump"]) <= MAX_HIT_CHARS
    assert page["score"] == 1 and len(page["html"]) <= MAX_HIT_CHARS
    assert len(json.dumps(envelope)) < 10_500_000
    assert _pages_held(envelope)
    PagesEnvelope.model_validate(envelope)


def test_a_plugins_page_title_handed_on_as_bytes_is_held_as_text_is(long_pages: Any) -> None:
    envelope = dispatch_extract(["https://long.example/bytes"], backend="longpages", config=long_pages)
    (page,) = envelope["data"]
    assert 80_000 <= len(page["title"]) <= MAX_HIT_CHARS and _pages_held(envelope)


def test_a_plugins_crawl_page_with_a_url_longer_than_any_url_read_is_left_out(long_pages: Any) -> None:
    envelope = dispatch_crawl("https://long.example/", backend="longpages", config=long_pages)
    assert [page["url"] for page in envelope["data"]] == ["https://long.example/"]
    assert len(envelope["data"][0]["content"]) <= 5_000_000
    assert _pages_held(envelope)


def test_a_callers_max_chars_decides_a_pages_length(long_pages: Any) -> None:
    envelope = dispatch_extract(["https://long.example/"], backend="longpages", config=long_pages, max_chars=6_000_000)
    (page,) = envelope["data"]
    assert 5_000_000 < len(page["content"]) <= 6_000_000 and page["metadata"]["truncated"] is True


def test_a_short_page_is_kept_whole_without_a_warning(long_pages: Any) -> None:
    envelope = dispatch_extract(["https://long.example/short"], backend="longpages", config=long_pages)
    assert envelope["data"] == [
        {"url": "https://long.example/short", "title": "Long", "content": "short", "raw_content": "short",
         "metadata": {"lang": "en"}, "score": 1}
    ]
    assert not _pages_held(envelope)
