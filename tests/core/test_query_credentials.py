"""Credentials in a query: masked in log lines, error sentences and the URLs an envelope gives back.

A loopback server plays Google Programmable Search (its key goes in the ``key`` parameter)
and a site whose pages a caller asks for with a credential in their query (``?secret=``,
``?session=``, ``?api_key=``). httpx's own ``HTTP Request: GET ...`` lines, the error
sentences and the envelope are searched for the values.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from webproviders import dispatch_extract, dispatch_search
from webproviders.agents.hermes import hermes_pages
from webproviders.config import config_from_dict
from webproviders.redact import scrub

GOOGLE_KEY = "AIzaSyTestKey0123456789abcdefghij"
#: Values of credential-named parameters a caller's URLs carry, by name.
CALLER_VALUES = {
    "secret": "secret-val-4711",
    "session": "session-val-4712",
    "sessionid": "sessionid-val-4713",
    "access_token": "access-val-4714",
    "api_key": "apikey-val-4715",
    "password": "password-val-4716",
    "sig": "sig-val-4717",
}
GOOGLE_BODY = {
    "kind": "customsearch#search",
    "searchInformation": {"totalResults": "1"},
    "items": [
        {
            "kind": "customsearch#result",
            "title": "Example",
            "link": "https://example.org/a",
            "displayLink": "example.org",
            "snippet": "An example page.",
        }
    ],
}
PAGE = b"<html><head><title>Page</title></head><body><p>Some text of the page to read.</p></body></html>"


class Site(BaseHTTPRequestHandler):
    """``/customsearch/v1`` answers as Google does (a gateway asked with a ``?token=`` refuses
    it); ``/bykey`` as its ``api_key`` says, ``/fail...`` with a 500; anything else a page."""

    queries: list[str] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if "token" in parse_qs(urlsplit(self.path).query):
            # a gateway in front of Google, refusing its token and quoting it without its name
            token = parse_qs(urlsplit(self.path).query)["token"][0]
            error = {"code": 403, "message": f"gateway token {token} is not valid", "status": "PERMISSION_DENIED"}
            self.answer(403, json.dumps({"error": error}).encode(), "application/json")
        elif path == "/customsearch/v1":
            Site.queries.append(parse_qs(urlsplit(self.path).query)["q"][0])
            self.answer(200, json.dumps(GOOGLE_BODY).encode(), "application/json")
        elif path == "/bykey":  # the key picks the answer: a 404 for one, a 500 for another
            gone = "gone" in parse_qs(urlsplit(self.path).query)["api_key"][0]
            self.answer(404 if gone else 500, b"Not Found" if gone else b"Internal Server Error", "text/plain")
        elif path.startswith("/fail"):
            self.answer(500, b"Internal Server Error", "text/plain")
        elif path == "/echo":  # a page naming the URL it was asked by as its canonical one
            link = f'<link rel="canonical" href="http://{self.headers["Host"]}{self.path}">'
            self.answer(200, PAGE.replace(b"</title>", b"</title>" + link.encode()), "text/html; charset=utf-8")
        else:
            self.answer(200, PAGE, "text/html; charset=utf-8")

    def answer(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _config(site: str) -> Any:
    return config_from_dict(
        {
            "web": {
                "allow_private_networks": True,
                "cache": False,
                "providers": {"google-cse": {"api_key": GOOGLE_KEY, "cx": "engine-1", "base_url": site}},
            }
        },
        source="<test>",
    )


def _records(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("name", sorted(CALLER_VALUES))
def test_every_credential_named_query_value_is_masked_in_text(name: str) -> None:
    value = CALLER_VALUES[name]
    assert scrub(f"GET https://h.example/p?q=1&{name}={value}&x=2") == f"GET https://h.example/p?q=1&{name}=***&x=2"


def test_a_caller_s_url_credentials_are_masked_in_httpx_lines_and_the_envelope(
    site: str, caplog: pytest.LogCaptureFixture
) -> None:
    """httpx logs every request (``HTTP Request: GET <url>``) at INFO: its ``?secret=`` and
    ``?session=`` showed whole there, beside an ``api_key`` it masked; and the envelope gave
    the URL back whole although its error sentences mask it."""
    query = "&".join(f"{name}={value}" for name, value in CALLER_VALUES.items())
    urls = [f"{site}/page?lang=en&{query}", f"{site}/fail?{query}"]
    with caplog.at_level(logging.DEBUG):
        envelope = dispatch_extract(urls, backend="http", config=_config(site), timeout=20)
    assert envelope["success"] is True, envelope
    assert "HTTP Request: GET" in _records(caplog)
    text = _records(caplog) + json.dumps(envelope)
    assert [value for value in CALLER_VALUES.values() if value in text] == []
    masked = "&".join(f"{name}=***" for name in CALLER_VALUES)
    # one item per URL, in order, each URL as asked but for its credentials
    assert [item["url"] for item in envelope["data"]] == [f"{site}/page?lang=en&{masked}", f"{site}/fail?{masked}"]
    assert envelope["data"][0]["metadata"]["final_url"] == f"{site}/page?lang=en&{masked}"
    assert envelope["data"][1]["error_code"] == "bad_gateway"


def test_a_canonical_link_echoing_the_caller_s_credential_is_masked(site: str) -> None:
    """Many sites write the URL they were asked by into ``<link rel=canonical>``: the
    envelope masked ``url`` and ``final_url`` but gave ``metadata.canonical_url`` whole."""
    envelope = dispatch_extract([f"{site}/echo?api_key=apikey-val-4715"], backend="http", config=_config(site), timeout=20)
    assert envelope["success"] is True, envelope
    assert envelope["data"][0]["metadata"]["canonical_url"] == f"{site}/echo?api_key=***"
    assert "apikey-val-4715" not in json.dumps(envelope)


def test_a_batch_that_read_nothing_names_its_first_url_and_keeps_the_colon(site: str) -> None:
    """The sentence of a batch that read no page quotes its most telling URL, then a colon:
    a masked query value at the end of that URL took the colon with it."""
    urls = [f"{site}/fail-a?api_key={CALLER_VALUES['api_key']}", f"{site}/fail-b?session={CALLER_VALUES['session']}"]
    envelope = dispatch_extract(urls, backend="http", config=_config(site), timeout=20)
    assert envelope["success"] is False
    assert f"; {site}/fail-a?api_key=***: {site}/fail-a?api_key=*** failed" in envelope["error"], envelope["error"]
    assert [f["url"] for f in envelope["meta"]["failures"]] == [f"{site}/fail-a?api_key=***", f"{site}/fail-b?session=***"]
    assert CALLER_VALUES["api_key"] not in json.dumps(envelope)
    # Hermes' pages still find each URL's own sentence in the failures
    pages = hermes_pages(envelope, urls)
    assert [page["url"] for page in pages] == [f"{site}/fail-a?api_key=***", f"{site}/fail-b?session=***"]
    assert all("failed on its side" in page["error"] for page in pages), pages


def test_a_credential_written_in_a_search_query_is_masked_in_the_log_but_sent_as_asked(
    site: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A query holding ``token=...`` went into httpx's log line percent-encoded
    (``q=...token%3D...``), where no pattern looked; the vendor still gets the query as asked."""
    query = "status page token=tok-val-4721 api_key=apikey-val-4722"
    Site.queries.clear()
    with caplog.at_level(logging.DEBUG):
        envelope = dispatch_search(query, backend="google-cse", config=_config(site), timeout=20)
    assert envelope["success"] is True, envelope
    assert Site.queries == [query]
    lines = _records(caplog)
    assert "customsearch/v1?" in lines
    assert "tok-val-4721" not in lines and "apikey-val-4722" not in lines and GOOGLE_KEY not in lines, lines
    assert "token%3D***" in lines and "&key=***" in lines


def test_a_token_in_a_url_s_fragment_is_masked_in_the_envelope(site: str) -> None:
    """OAuth's implicit flow hands its token back in the fragment (``#access_token=``): the
    envelope's URLs mask it there as in the query."""
    url = f"{site}/callback#access_token=frag-val-4731&token_type=bearer"
    envelope = dispatch_extract([url], backend="http", config=_config(site), timeout=20)
    assert envelope["success"] is True, envelope
    assert envelope["data"][0]["url"] == f"{site}/callback#access_token=***&token_type=bearer"
    assert "frag-val-4731" not in json.dumps(envelope)


def test_a_short_token_in_a_configured_url_s_query_is_masked_where_its_gateway_echoes_it(
    site: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A configured URL's query values were taken for secrets from 16 characters on; a
    gateway's ``?token=`` of 8, quoted back without its name, showed whole in the sentence."""
    config = config_from_dict(
        {
            "web": {
                "cache": False,
                "providers": {
                    "google-cse": {"api_key": GOOGLE_KEY, "cx": "engine-1", "base_url": f"{site}/gw?token=tk4741ab"}
                },
            }
        },
        source="<test>",
    )
    with caplog.at_level(logging.DEBUG):
        envelope = dispatch_search("status", backend="google-cse", config=config, timeout=20)
    assert envelope["error_code"] == "auth_error", envelope
    assert "gateway token ***" in envelope["error"], envelope["error"]
    assert "tk4741ab" not in json.dumps(envelope) + _records(caplog)


def test_hermes_pages_of_urls_differing_only_in_a_masked_key_keep_their_own_sentences(site: str) -> None:
    """Two URLs that differ only in their ``?api_key=`` look the same once masked: each
    Hermes page still gets its own URL's sentence and code, in the order asked."""
    urls = [f"{site}/bykey?api_key=gone-4751", f"{site}/bykey?api_key=fail-4752"]
    envelope = dispatch_extract(urls, backend="http", config=_config(site), timeout=20)
    assert envelope["success"] is False, envelope
    assert [f["error_code"] for f in envelope["meta"]["failures"]] == ["not_found", "bad_gateway"]
    pages = hermes_pages(envelope, urls)
    assert [page["error_code"] for page in pages] == ["not_found", "bad_gateway"], pages
    assert [page["url"] for page in pages] == [f"{site}/bykey?api_key=***"] * 2


def test_a_credential_in_a_url_encoded_into_another_s_query_is_masked(
    site: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A login page's ``?next=`` holds the page to go back to, percent-encoded with its own
    query (``%3Ftoken%3D...``): httpx's line and the envelope showed that token whole."""
    url = f"{site}/login?next=https%3A%2F%2Fdocs.example%2Fdoc%3Ftoken%3Dnest-val-4761%26page%3D2"
    with caplog.at_level(logging.DEBUG):
        envelope = dispatch_extract([url], backend="http", config=_config(site), timeout=20)
    assert envelope["success"] is True, envelope
    shown = f"{site}/login?next=https%3A%2F%2Fdocs.example%2Fdoc%3Ftoken%3D***%26page%3D2"
    assert envelope["data"][0]["url"] == shown
    assert "HTTP Request: GET" in _records(caplog)
    assert "nest-val-4761" not in json.dumps(envelope) + _records(caplog)


@pytest.mark.parametrize("capability", ["extract", "crawl"])
def test_the_stub_s_placeholder_never_repeats_a_caller_s_credential(capability: str) -> None:
    """``stub`` wrote the caller's whole URL into its placeholder page, so the ``?api_key=``
    masked in ``url`` stood in clear in ``content`` beside it."""
    from webproviders import dispatch_crawl

    url = "https://reports.example/q3?api_key=Cr3dentialValue77&lang=en"
    if capability == "extract":
        envelope = dispatch_extract(url, backend="stub")
    else:
        envelope = dispatch_crawl(url, backend="stub")
    assert envelope["success"] is True, envelope
    assert "Cr3dentialValue77" not in json.dumps(envelope), envelope
    assert "https://reports.example/q3?api_key=***&lang=en" in envelope["data"][0]["content"]


@pytest.mark.parametrize("name", ["session", "sessionid", "signature", "client_secret", "refresh_token", "passwd"])
def test_a_credential_named_key_of_an_echoed_json_body_is_masked(name: str) -> None:
    """A vendor's error body quoting the request as JSON (``{"session": "..."}``): only six
    names were masked there, not the rest of the list a query's are masked by."""
    text = f'The vendor answered 400: {{"query": "q", "{name}": "s3ssi0nV4lue9", "page": 2}}'
    assert scrub(text) == f'The vendor answered 400: {{"query": "q", "{name}": "***", "page": 2}}'
