"""A caller's bad input is ``invalid_input`` before any provider is asked, and never cools a
provider down for everyone else (a loopback SearXNG answering the way the real one does)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from webproviders import dispatch_search
from webproviders.validate import MAX_DOMAINS

from .bodies import SEARX_SUCCESS


class Searxng(BaseHTTPRequestHandler):
    """A SearXNG instance: 400 for a language it does not know, 414 for a query too long for its
    URL, 502 for ``down``, results otherwise (the same on every page, so a search that reads
    its second page stops there). ``seen`` counts the requests that arrived."""

    seen: list[dict[str, list[str]]] = []

    def do_GET(self) -> None:
        params = parse_qs(urlsplit(self.path).query)
        type(self).seen.append(params)
        if params.get("language", ["en"])[0].startswith("xx"):
            self.answer(400, {"error": f'Invalid value "{params["language"][0]}" for parameter language'})
        elif len(self.path) > 1500:
            self.answer(414, None)
        elif params["q"][0] == "down":
            self.answer(502, None)
        else:
            self.answer(200, SEARX_SUCCESS)

    def answer(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode() if body is not None else b"<html><body>Error</body></html>"
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if body is not None else "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def searxng(http_server: Callable[..., Any], make_config: Any) -> Any:
    Searxng.seen = []
    port = http_server(Searxng).server_address[1]
    return make_config(
        web={
            "search_backend": "searxng",
            "cache": False,
            "retry": {"max_retries": 0},
            "health": {"failures": 3},
            "providers": {"searxng": {"base_url": f"http://127.0.0.1:{port}"}},
        }
    )


class ArrayLike:
    """Compares as an array does: ``==`` answers something whose truth cannot be told."""

    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> Any:
        return self

    def __bool__(self) -> bool:
        raise ValueError("The truth value of an array with more than one element is ambiguous.")


class OddName(str):
    """A str subclass whose own methods fail: a caller's class, never called by the check."""

    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compared")

    def strip(self, chars: str | None = None) -> str:
        raise RuntimeError("stripped")


@pytest.mark.parametrize(
    ("backend", "said"),
    [
        (123, "not int"),
        (ArrayLike(), "not ArrayLike"),  # was provider_error: "The provider failed: ValueError: ..."
        (b"stub", "not bytes"),
        (1.5, "not float"),
        ({"fuse": "stub"}, "list of provider names, not str"),
        ({"fuse": []}, "non-empty list of provider names"),
        ({"chain": ["stub"]}, "it has the key(s) 'chain'"),
        (["stub", 7], "item 2 is int"),
        ([None], "item 1 is NoneType"),
        (" , ", "names no provider"),
        ([], "backend=[] names no provider: list at least one"),  # a list that came out empty
        ((), "backend=() names no provider"),
        (["x" * 65], "item 1 is not a provider name"),
    ],
)
def test_a_backend_of_the_wrong_shape_is_invalid_input_that_names_it(make_config: Any, backend: Any, said: str) -> None:
    envelope = dispatch_search("q", backend=backend, config=make_config())
    assert envelope["success"] is False and envelope["error_code"] == "invalid_input", envelope
    assert said in envelope["error"] and envelope["meta"]["attempts"] == []
    json.dumps(envelope)  # whatever came in, the envelope stays JSON


@pytest.mark.parametrize("backend", ["stub", " stub ", ["stub"], ("stub",), {"fuse": ["stub"]}, "stub,stub"])
def test_every_documented_backend_form_still_works(make_config: Any, backend: Any) -> None:
    envelope = dispatch_search("q", backend=backend, config=make_config())
    assert envelope["success"] is True, envelope


@pytest.mark.parametrize("backend", [OddName("stub"), [OddName("stub")], {"fuse": [OddName("stub")]}, OddName("nosuch")])
def test_a_name_of_a_str_subclass_is_read_as_its_text(make_config: Any, backend: Any) -> None:
    """A str subclass (a StrEnum member, a caller's own class) is the text it holds: one whose
    ``__eq__`` raised escaped ``dispatch_search`` as that exception."""
    envelope = dispatch_search("q", backend=backend, config=make_config())
    json.dumps(envelope)
    if envelope["success"] is False:
        assert envelope["error_code"] == "invalid_input" and "Unknown backend 'nosuch'" in envelope["error"]
    else:
        assert envelope["provider"] == "fuse" if isinstance(backend, dict) else envelope["provider"] == "stub"


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"lang": "ü"}, "lang must be a code such as 'en' or 'pt-BR'"),
        ({"lang": "en\r\nX-Evil: 1"}, "lang must be a code"),
        ({"lang": 5}, "not int"),
        ({"lang": ["en"]}, "not list"),
        ({"country": "usa!"}, "country must be a code such as 'us' or 'de'"),
        ({"country": "日本"}, "country must be a code"),
        ({"country": True}, "not bool"),
        ({"country": "xyz"}, "country 'xyz' is not an ISO 3166-1 country code"),
        # was provider_error, "The provider failed: ValueError: The truth value ... is ambiguous."
        ({"time_range": ArrayLike()}, "time_range must be one of day, week, month, year; got"),
        ({"safe_search": ArrayLike()}, "safe_search must be one of off, moderate, strict; got"),
    ],
)
def test_a_bad_lang_or_country_never_reaches_the_provider(searxng: Any, options: dict[str, Any], said: str) -> None:
    envelope = dispatch_search("q", config=searxng, **options)
    assert envelope["error_code"] == "invalid_input" and said in envelope["error"], envelope
    assert Searxng.seen == []


@pytest.mark.parametrize("options", [{"lang": "pt-BR"}, {"lang": "es-419"}, {"lang": "zh_Hans_CN"}, {"country": "DE"}])
def test_real_codes_pass(searxng: Any, options: dict[str, Any]) -> None:
    assert dispatch_search("q", config=searxng, **options)["success"] is True


@pytest.mark.parametrize(
    ("query", "options", "code"),
    [("q", {"lang": "xx"}, "invalid_input"), ("word " * 400, {}, "invalid_input")],
    ids=["unknown-language-400", "query-too-long-414"],
)
def test_a_vendor_refusing_one_callers_input_does_not_cool_it_down_for_others(
    searxng: Any, query: str, options: dict[str, Any], code: str
) -> None:
    for _ in range(5):  # more than health.failures
        assert dispatch_search(query, config=searxng, **options)["error_code"] == code
    served = dispatch_search("python", config=searxng)
    assert served["success"] is True, served
    assert len(Searxng.seen) == 7  # its five refusals, and the two pages of the search served


def test_the_provider_failing_on_its_side_still_cools_it_down(searxng: Any) -> None:
    for _ in range(3):
        assert dispatch_search("down", config=searxng)["error_code"] == "bad_gateway"
    cooling = dispatch_search("python", config=searxng)
    assert cooling["error_code"] == "bad_gateway" and "cooling down" in cooling["error"]
    assert len(Searxng.seen) == 3


@pytest.mark.parametrize(
    "domains",
    [
        ["exa mple.com"], ["docs.python.org", "http://user:secret@example.com/"], ["*"], ["https://"], ["-x.com"],
        ["a" * 64 + ".com"], [".".join(["abc"] * 70)],  # a label, or a name, longer than DNS allows
    ],
)
def test_a_domain_filter_that_names_no_site_never_reaches_the_provider(searxng: Any, domains: list[str]) -> None:
    envelope = dispatch_search("q", config=searxng, include_domains=domains)
    assert envelope["error_code"] == "invalid_input", envelope
    assert f"include_domains item {len(domains)} is not a domain name" in envelope["error"]
    assert "secret" not in envelope["error"]
    assert Searxng.seen == []


@pytest.mark.parametrize("written", ["python.org, docs.python.org", "python.org docs.python.org", "python.org;docs.python.org"])
def test_several_domains_written_into_one_string_are_named_as_a_list(searxng: Any, written: str) -> None:
    """A model writes a list as one string: the refusal shows the list it meant, to send instead."""
    envelope = dispatch_search("q", config=searxng, include_domains=["pypi.org", written])
    assert envelope["error"] == (
        "include_domains item 2 holds several domain names; give each as its own list item: "
        "['python.org', 'docs.python.org']."
    )
    assert Searxng.seen == []


def test_a_url_pasted_as_a_domain_filter_filters_by_its_site(searxng: Any) -> None:
    """Agents paste addresses where a domain goes; the vendor gets the site, not a scheme."""
    envelope = dispatch_search(
        "q", config=searxng, include_domains=["https://Docs.Python.org/3/Library/", ".gov"],
        exclude_domains="HTTP://Spam.Example/",
    )
    assert envelope["success"] is True, envelope
    sent = Searxng.seen[0]["q"][0]
    assert "site:docs.python.org/3/Library" in sent and "site:.gov" in sent and "-site:spam.example" in sent
    assert "://" not in sent


@pytest.mark.parametrize(
    "domains",
    [[f"site{n}.a-rather-long-domain-name.example.org" for n in range(MAX_DOMAINS)], ["example.org/" + "x" * 70_000]],
    ids=["many-domains", "one-huge-filter"],  # a name longer than DNS allows is no domain (above)
)
def test_domain_filters_too_long_for_a_url_are_the_callers_mistake(searxng: Any, domains: list[str]) -> None:
    """httpx refuses to send a URL that long; that is this call's input, not the provider failing."""
    for _ in range(5):  # more than health.failures
        envelope = dispatch_search("q", config=searxng, include_domains=domains)
        assert envelope["error_code"] == "invalid_input", envelope
        assert "include_domains / exclude_domains" in envelope["error"]
    served = dispatch_search("python", config=searxng)
    assert served["success"] is True, served
    assert len(Searxng.seen) == 2  # the two pages of the search served, none of the refused ones


@pytest.mark.parametrize("option", ["include_domains", "exclude_domains"])
def test_more_domains_than_any_vendor_takes_are_refused_at_once(searxng: Any, option: str) -> None:
    """A million domains took 5-8 s to check, on the caller's loop, before any answer."""
    domains = [f"site{n}.example" for n in range(1_000_000)]
    started = time.monotonic()
    for _ in range(5):  # more than health.failures
        envelope = dispatch_search("q", config=searxng, **{option: domains})
        assert envelope["error_code"] == "invalid_input", envelope
        assert envelope["error"] == (
            f"{option} lists 1,000,000 domains; at most {MAX_DOMAINS:,} are taken (no search vendor takes "
            "more): keep the sites that matter most, or leave the filter out."
        )
    assert time.monotonic() - started < 5
    assert Searxng.seen == []
    assert dispatch_search("python", config=searxng)["success"] is True


@pytest.mark.parametrize("query", ["\x00", "\u200b", "\ufeff", "\u200b \u200d\u2060", "\x07\t\x1b"])
def test_a_query_with_no_character_to_search_for_never_reaches_the_provider(searxng: Any, query: str) -> None:
    """A query of control or invisible characters only (a NUL, a zero-width space, a stray
    byte-order mark) passed the empty-query check, which strips whitespace only, and was sent."""
    envelope = dispatch_search(query, config=searxng)
    assert envelope["error_code"] == "invalid_input", envelope
    assert envelope["error"].startswith("The query has no character to search for"), envelope
    assert Searxng.seen == []


def test_a_query_with_an_invisible_character_among_its_words_is_searched(searxng: Any) -> None:
    assert dispatch_search("python\u200basyncio", config=searxng)["success"] is True
