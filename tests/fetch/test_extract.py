"""The ``http`` provider's extract, through dispatch, against the real local site."""

from __future__ import annotations

import asyncio
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from webproviders import adispatch_extract, dispatch_extract
from webproviders.config import Config, config_from_dict


def extract(urls: Any, config: Config, **kwargs: Any) -> dict[str, Any]:
    envelope = dispatch_extract(urls, backend="http", config=config, **kwargs)
    assert envelope["success"] is True, envelope
    assert envelope["provider"] == "http"
    return envelope


def unread(urls: Any, config: Config, **kwargs: Any) -> dict[str, Any]:
    """An extract that read no page: a failure whose per-URL details are in ``meta.failures``."""
    envelope = dispatch_extract(urls, backend="http", config=config, **kwargs)
    assert envelope["success"] is False, envelope
    assert envelope["provider"] == "http"
    assert [f["error_code"] for f in envelope["meta"]["failures"]] and envelope["meta"]["failed"] == len(
        envelope["meta"]["failures"]
    )
    return envelope


def test_article_text_is_kept_and_boilerplate_dropped(site: Any, local: Config) -> None:
    [page] = extract(site.url("/articles/caching"), local)["data"]
    content = page["content"]
    assert page["title"] == "Caching in practice"
    assert content.startswith("# Caching in practice")
    assert "Caching keeps recently used answers close" in content
    assert "## Expiry and invalidation" in content
    assert "- Expensive queries with stable answers" in content
    assert "```" in content and "cache.set(product_id, cached, ttl=60)" in content
    assert "| CDN | 5 minutes |" in content
    assert f"[the retry guide]({site.url('/articles/retries')})" in content
    for boilerplate in ("We use cookies", "Contact sales", "Popular this week", "All rights reserved", "Privacy policy"):
        assert boilerplate not in content


def test_metadata(site: Any, local: Config) -> None:
    [page] = extract(site.url("/redirect/article"), local)["data"]
    meta = page["metadata"]
    assert page["url"] == site.url("/redirect/article")
    assert meta["final_url"] == site.url("/articles/caching")
    assert meta["status_code"] == 200
    assert meta["content_type"] == "text/html"
    assert meta["description"] == "How to add a cache to a service without stale data."
    assert meta["author"] == "Jane Doe"
    assert meta["date"] == "2024-03-05"
    assert meta["site_name"] == "Example Engineering"
    assert meta["language"] == "en"
    assert meta["canonical_url"] == site.url("/articles/caching")


def test_windows_1252_declared_only_in_a_meta_tag(site: Any, local: Config) -> None:
    [page] = extract(site.url("/articles/encoding"), local)["data"]
    assert page["title"].startswith("Caf\u00e9 cr\u00e8me")
    assert "co\u00fbte 3 \u20ac au comptoir" in page["content"]
    assert "\u201cmerci\u201d" in page["content"]
    assert page["metadata"]["encoding"] == "cp1252"
    assert page["metadata"]["language"] == "fr"


def test_plain_text_markdown_and_json(site: Any, local: Config) -> None:
    text, markdown, data = extract([site.url("/notes.txt"), site.url("/readme.md"), site.url("/data.json")], local)["data"]
    assert text["content"] == "Plain notes.\nLine two with caf\u00e9."
    assert markdown["content"] == "# Read me\n\nThis file is *markdown* and passes through. See [the orphan](/orphan)."
    assert markdown["title"] == "Read me"
    assert data["content"] == '```json\n{\n  "name": "example",\n  "items": [\n    1,\n    2,\n    3\n  ]\n}\n```'
    [plain_json] = extract(site.url("/data.json"), local, format="text")["data"]
    assert plain_json["content"].startswith('{\n  "name": "example"')


def test_text_served_under_an_application_type_is_read_not_refused(site: Any, local: Config) -> None:
    """A YAML OpenAPI spec (``application/x-yaml``) and older servers' JavaScript were
    ``unsupported``, "not a page with text"."""
    spec, script = extract([site.url("/openapi.yaml"), site.url("/legacy.js")], local)["data"]
    assert spec["content"] == "openapi: 3.1.0\ninfo:\n  title: Orders API"
    assert spec["metadata"]["content_type"] == "application/x-yaml"
    assert script["content"] == "var answer = 42;"


def test_binary_bytes_served_as_text_are_named_so(site: Any, local: Config) -> None:
    """The refusal said the file "is text/plain, not a page with text", which contradicts itself."""
    envelope = unread(site.url("/dump.txt"), local)
    assert envelope["error_code"] == "unsupported"
    assert "is served as text/plain, but its bytes are binary" in envelope["error"], envelope["error"]


def test_a_page_served_as_a_pdf_that_is_none_is_not_said_to_be_binary(site: Any, local: Config) -> None:
    """A sign-in page sent under the PDF's type was refused as "its bytes are binary (NUL or
    control bytes), not text": they are HTML, and what is wrong is that they are no PDF."""
    envelope = unread(site.url("/reports/annual.pdf"), local)
    assert envelope["error_code"] == "unsupported"
    assert "is served as application/pdf, but its bytes are not a PDF (no %PDF- header)" in envelope["error"]
    assert "binary" not in envelope["error"], envelope["error"]


def test_a_page_in_a_coding_not_decoded_here_names_it(site: Any, local: Config) -> None:
    """Its bytes, still in ``xz``, were only said to be binary (NUL or control bytes)."""
    envelope = unread(site.url("/page.xz"), local)
    assert envelope["error_code"] == "unsupported"
    assert "its Content-Encoding, 'xz', is not one decoded here" in envelope["error"], envelope["error"]


def test_a_drawing_is_not_said_to_hold_binary_bytes(site: Any, local: Config) -> None:
    """An SVG image was refused as "served as image/svg+xml, but its bytes are binary (NUL or
    control bytes)": its bytes are XML text, and it is refused for being an image."""
    envelope = unread(site.url("/logo.svg"), local)
    assert envelope["error_code"] == "unsupported"
    assert "is image/svg+xml, not a page with text" in envelope["error"], envelope["error"]


def test_html_served_without_a_content_type_is_read_as_a_browser_renders_it(site: Any, local: Config) -> None:
    [page] = extract(site.url("/untyped"), local)["data"]
    assert page["metadata"]["content_type"] == "text/html"
    assert "Served with no type at all." in page["content"]
    assert "<script>" not in page["content"] and "var page" not in page["content"]


@pytest.mark.parametrize("path", ["/two-types", "/any-type"])
def test_a_page_whose_content_type_a_browser_reads_is_read_as_a_page(path: str, site: Any, local: Config) -> None:
    """Two Content-Type headers came as one value that named no type (``text/html,
    text/html; charset=utf-8``), and ``*/*`` none either: the page came back as its markup,
    or as unsupported. Browsers take the last type given, and sniff the bytes when none is."""
    [page] = extract(site.url(path), local)["data"]
    assert page["title"] == "Getting started"
    assert page["content"].startswith("# Getting started") and "<" not in page["content"]


def test_xhtml_served_as_xml_is_read_as_a_page(site: Any, local: Config) -> None:
    [page] = extract(site.url("/xhtml-as-xml"), local)["data"]
    assert "Rendered as a page by browsers." in page["content"]
    assert "<p>" not in page["content"] and page["title"] == "Served as XML"


def test_pdf_is_read_as_text(site: Any, local: Config) -> None:
    pytest.importorskip("pypdf")
    labelled, octet = extract([site.url("/doc.pdf"), site.url("/report")], local)["data"]
    for page in (labelled, octet):
        assert "revenue grew by twelve percent" in page["content"]
        assert page["title"] == "Quarterly report"
        assert page["metadata"]["content_type"] == "application/pdf"
        assert page["metadata"]["pages"] == 1


def test_a_part_of_a_page_never_asked_for_is_said_to_be_a_part(site: Any, local: Config) -> None:
    """No Range is sent; a 206 came back as the page, only its status code telling otherwise."""
    envelope = extract(site.url("/partial"), local)
    assert envelope["data"][0]["metadata"]["status_code"] == 206
    [warning] = envelope["meta"]["warnings"]
    assert "206 Partial Content" in warning and "only part of the page" in warning


def test_a_part_of_a_page_is_not_kept_in_the_cache_as_the_page(site: Any, local: Config) -> None:
    """A cache's mistake passes; kept for a day, the part was every later call's answer."""
    first, again = extract(site.url("/partial"), local), extract(site.url("/partial"), local)
    assert "cached" not in again["meta"] and site.paths() == ["/partial", "/partial"]
    assert again["data"][0]["content"] == first["data"][0]["content"]


@pytest.mark.parametrize("path", ["/generated.pdf", "/generated"])
def test_a_pdf_after_a_stray_line_break_is_read_as_a_pdf(path: str, site: Any, local: Config) -> None:
    """PDF readers find the header in the first KiB. Labelled a PDF, it was ``unsupported`` ("not
    a page with text"); as application/octet-stream, its source came back as the text."""
    pytest.importorskip("pypdf")
    [page] = extract(site.url(path), local)["data"]
    assert page["content"] == "Quarterly report: revenue grew by twelve percent."
    assert page["metadata"]["content_type"] == "application/pdf"


def test_a_pdf_with_no_text_says_so(site: Any, local: Config) -> None:
    """A scanned document's pages are images: it came back as an empty content, nothing said."""
    pytest.importorskip("pypdf")
    envelope = extract(site.url("/scan.pdf"), local)
    assert envelope["data"][0]["content"] == "" and envelope["data"][0]["metadata"]["pages"] == 2
    [warning] = envelope["meta"]["warnings"]
    assert "PDF whose pages read hold no text" in warning and "scanned" in warning


def test_pdf_without_pypdf_is_unsupported(site: Any, local: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # what an installation without it looks like
    envelope = unread(site.url("/doc.pdf"), local)
    assert envelope["error_code"] == "unsupported"
    assert "webproviders[pdf]" in envelope["error"]
    assert envelope["meta"]["failures"] == [
        {"url": site.url("/doc.pdf"), "error": envelope["error"], "error_code": "unsupported"}
    ]


@pytest.mark.parametrize("path", ["/image.png", "/mislabelled", "/download", "/utf16-binary"])
def test_images_and_binaries_are_unsupported(path: str, site: Any, local: Config) -> None:
    """Before, bytes labelled ``charset=utf-16`` were read as that text, a page of random CJK
    characters that was a success."""
    envelope = unread(site.url(path), local)
    assert envelope["error_code"] == "unsupported"
    assert envelope["retryable"] is False


def test_failures_are_per_url_and_order_is_kept(site: Any, local: Config) -> None:
    urls = [
        site.url("/missing"),
        site.url("/articles/caching"),
        site.url("/error"),
        site.url("/forbidden"),
        site.url("/big"),
        site.url("/busy"),
        site.url("/articles/retries"),
    ]
    envelope = extract(urls, local)
    data = envelope["data"]
    assert [page["url"] for page in data] == urls
    assert envelope["meta"]["failed"] == 5
    codes = [page.get("error_code") for page in data]
    assert codes == ["not_found", None, "bad_gateway", "blocked", "too_large", "rate_limited", None]
    assert "Retries without outages" in data[6]["content"]
    assert [page["metadata"].get("status_code") for page in data[:4]] == [404, 200, 500, 403]
    assert all(page["error"] for page in data if page.get("error_code"))


@pytest.mark.parametrize("status", [304, 302])
def test_a_304_or_a_redirect_without_location_is_the_sites_fault_saying_so(
    http_server: Any, local: Config, status: int
) -> None:
    """No request is conditional, and a redirect is followed to its Location: both answers are
    the site's mistake, not a failure of ``http`` (they were ``provider_error``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    url = f"http://127.0.0.1:{http_server(Handler).server_address[1]}/page"
    envelope = dispatch_extract([url], backend="http", config=local)
    failure = envelope["meta"]["failures"][0]
    assert (envelope["error_code"], failure["error_code"]) == ("bad_gateway", "bad_gateway"), envelope
    said = "no If-Modified-Since or If-None-Match" if status == 304 else "a redirect that names no place to go (no Location header)"
    assert failure["error"].startswith(f"{url} answered HTTP {status}") and said in failure["error"], failure


def test_a_page_answering_408_is_asked_again_not_taken_for_a_bad_request(site: Any, local: Config) -> None:
    """408 is the server's wait for a request running out (an idle connection it closed): it was
    ``invalid_input``, "rejected the request", and never asked for again."""
    envelope = extract(site.url("/idle-408"), local)
    assert "Caching keeps recently used answers" in envelope["data"][0]["content"]
    assert site.paths() == ["/idle-408", "/idle-408"]
    [attempt, _retry] = envelope["meta"]["attempts"]
    assert attempt["error_code"] == "timeout"


def test_a_page_answering_503_with_retry_after_is_not_asked_again_before_then(site: Any, local: Config) -> None:
    """Down for an hour, the site says: the call was retried at once, twice, and did not say when to come back."""
    envelope = unread(site.url("/busy?status=503&after=3600"), local)
    assert (envelope["error_code"], envelope["retry_after"]) == ("bad_gateway", 3600)
    assert envelope["error"].endswith("failed on its side (HTTP 503). Retry after 3600 s.")
    assert site.paths() == ["/busy?status=503&after=3600"]


@pytest.mark.parametrize("reset", ["30", "epoch%2B600", "epoch-ms%2B600"])
@pytest.mark.parametrize("header", ["RateLimit-Reset", "X-RateLimit-Reset"])
def test_a_page_answering_503_with_a_rate_limit_reset_alone_says_no_wait(
    site: Any, local: Config, header: str, reset: str
) -> None:
    """A 503's rate-limit reset says when a quota renews, not when the outage ends: it was read
    as the wait ("Retry after 600 s.", an hour for an epoch in milliseconds)."""
    envelope = unread(site.url(f"/busy?status=503&after=none&reset={reset}&reset_header={header}"), local)
    assert envelope["error_code"] == "bad_gateway" and "retry_after" not in envelope
    assert envelope["error"].endswith("failed on its side (HTTP 503).")
    # beside a Retry-After, the wait is the Retry-After's
    envelope = unread(site.url(f"/busy?status=503&after=3600&reset={reset}&reset_header={header}"), local)
    assert envelope["retry_after"] == 3600


def test_duplicate_urls_are_fetched_once(site: Any, local: Config) -> None:
    url = site.url("/articles/retries")
    data = extract([url, url], local)["data"]
    assert len(data) == 2 and data[0]["content"] == data[1]["content"]
    assert site.paths().count("/articles/retries") == 1


def test_slow_url_times_out_alone(site: Any, local: Config) -> None:
    envelope = dispatch_extract(
        [site.url("/slow"), site.url("/articles/caching")], backend="http", config=local, timeout=1.5
    )
    slow, fast = envelope["data"]
    assert slow["error_code"] == "timeout"
    assert "Caching keeps" in fast["content"]


def test_url_timeout_option(site: Any, config_for: Any) -> None:
    config = config_for(allow_private_networks=True, providers={"http": {"url_timeout": 0.3}})
    envelope = unread(site.url("/slow"), config)
    assert envelope["error_code"] == "timeout"


def test_max_chars_truncates_and_says_so(site: Any, local: Config) -> None:
    [full] = extract(site.url("/articles/caching"), local)["data"]
    [short] = extract(site.url("/articles/caching"), local, max_chars=200)["data"]
    assert len(short["content"]) <= 200
    assert full["content"].startswith(short["content"])
    assert short["metadata"]["truncated"] is True
    assert short["metadata"]["content_chars"] == len(full["content"])
    assert "truncated" not in full["metadata"]


def test_include_raw_gives_the_whole_page_text(site: Any, local: Config) -> None:
    [without] = extract(site.url("/articles/caching"), local)["data"]
    [page] = extract(site.url("/articles/caching"), local, include_raw=True)["data"]
    assert without["raw_content"] is None
    raw = page["raw_content"]
    assert "Caching keeps recently used answers close" in raw
    assert "Contact sales" in raw and "All rights reserved" in raw  # before main-content selection
    assert "<" not in raw


def test_text_format_has_no_markdown(site: Any, local: Config) -> None:
    [page] = extract(site.url("/articles/caching"), local, format="text")["data"]
    assert "Caching keeps recently used answers close" in page["content"]
    assert "# Caching" not in page["content"]
    assert "](" not in page["content"]


@pytest.mark.parametrize(
    "options",
    [{"format": "html"}, {"max_chars": 0}, {"max_chars": "10"}, {"include_raw": "yes"}, {"concurrency": 0}],
)
def test_bad_options_are_invalid_input(options: dict[str, Any], site: Any, local: Config) -> None:
    envelope = dispatch_extract(site.url("/articles/caching"), backend="http", config=local, **options)
    assert envelope["success"] is False
    assert envelope["error_code"] == "invalid_input"
    # Nothing was asked (an earlier test's slow request may still land on the shared site).
    assert "/articles/caching" not in site.paths() and "/robots.txt" not in site.paths()


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ({"concurrency": 0}, "web.providers.http.concurrency (in the config) must be a whole number from 1 to 64, not 0."),
        ({"delay": "1s"}, "web.providers.http.delay (in the config) must be a number of seconds of at least 0.0, not '1s'."),
    ],
)
def test_a_bad_option_in_the_config_is_named_by_its_key(
    setting: dict[str, Any], expected: str, site: Any, config_for: Any
) -> None:
    """``concurrency must be a whole number from 1 to 64, not 0`` sent a caller who gave no
    such option looking through the call; the value came from web.providers.http. A call's own
    value wins over it, so the call can still be made."""
    config = config_for(allow_private_networks=True, providers={"http": setting})
    envelope = dispatch_extract(site.url("/articles/caching"), backend="http", config=config)
    assert (envelope["error_code"], envelope["error"]) == ("invalid_input", expected)
    good = {"concurrency": 4, "delay": 0.0}
    assert dispatch_extract(site.url("/articles/caching"), backend="http", config=config, **good)["success"]


def test_an_option_from_an_unset_variable_is_not_set(site: Any) -> None:
    """docs/configuration.md: an unset ``${VAR}`` is the empty string, which every key treats as
    not set. A provider's own keys refused it instead (``concurrency (in the config) must be a
    whole number from 1 to 64, not ''``), failing every extract and crawl."""
    section = {key: f"${{UNSET_{key.upper()}}}" for key in ("concurrency", "delay", "url_timeout", "respect_robots")}
    tree = {"web": {"allow_private_networks": True, "providers": {"http": section}}}
    config = config_from_dict(tree, source="<test>", environ={})
    envelope = dispatch_extract(site.url("/articles/caching"), backend="http", config=config)
    assert envelope["success"], envelope.get("error")


def test_an_option_from_a_variable_is_read_as_the_number_or_switch_it_spells(site: Any) -> None:
    """A ``${VAR}`` always gives text: ``concurrency: ${HTTP_CONCURRENCY:-4}`` was refused as
    ``not '4'`` on every call, where ``web.timeout: ${CALL_TIMEOUT}`` reads its number."""
    section = {"concurrency": "${C:-4}", "delay": "${D}", "url_timeout": "${T}", "respect_robots": "${R}"}
    tree = {"web": {"allow_private_networks": True, "providers": {"http": section}}}
    config = config_from_dict(tree, source="<test>", environ={"D": "0", "T": "10.5", "R": "false"})
    envelope = dispatch_extract(site.url("/articles/caching"), backend="http", config=config)
    assert envelope["success"], envelope.get("error")
    tree["web"]["providers"] = {"http": {"concurrency": "${C}"}}
    bad = config_from_dict(tree, source="<test>", environ={"C": "four"})
    refused = dispatch_extract(site.url("/articles/caching"), backend="http", config=bad)
    assert refused["error"] == "web.providers.http.concurrency (in the config) must be a whole number from 1 to 64, not 'four'."


def test_page_without_main_content_falls_back_to_its_text(site: Any, local: Config) -> None:
    [page] = extract(site.url("/footer-only"), local)["data"]
    assert page["content"] == "Contact us at the main office during weekday hours."
    assert page["metadata"]["extraction"] == "full_text"


def test_a_page_built_by_script_comes_back_empty_with_a_warning_saying_why(site: Any, local: Config) -> None:
    envelope = extract([site.url("/app"), site.url("/articles/caching")], local)
    app, article = envelope["data"]
    assert (app["title"], app["content"]) == ("Dashboard", "")
    assert article["content"].startswith("# Caching in practice")
    [warning] = envelope["meta"]["warnings"]
    assert "no text" in warning and "script" in warning and "crawl4ai" in warning
    assert "warnings" not in extract(site.url("/articles/caching"), local)["meta"]
    again = extract([site.url("/app"), site.url("/articles/caching")], local)
    assert again["meta"]["cached"] is True and again["meta"]["warnings"] == [warning]  # said by a hit too


def test_a_page_whose_only_text_is_its_noscript_notice_warns_as_an_empty_one(site: Any, local: Config) -> None:
    """Before, "You need to enable JavaScript to run this app." came back as the page's text
    with nothing to say it was not; a page with text of its own beside a notice says nothing."""
    envelope = extract(site.url("/app-notice"), local)
    assert envelope["data"][0]["content"] == "You need to enable JavaScript to run this app."
    [warning] = envelope["meta"]["warnings"]
    assert "only what it shows when scripts do not run" in warning and "crawl4ai" in warning
    assert "warnings" not in extract(site.url("/articles/caching"), local)["meta"]


@pytest.mark.parametrize("path", ["/empty", "/empty.json", "/no-content"])
def test_an_empty_body_is_said_to_be_empty_not_built_by_a_script(path: str, site: Any, local: Config) -> None:
    """A browser would show nothing either: pointing the reader at a browser backend misleads.
    Before, an empty body of another type than HTML (a 204, an empty JSON answer) was an empty
    ``content`` with nothing said."""
    envelope = extract(site.url(path), local)
    assert envelope["data"][0]["content"] == ""
    [warning] = envelope["meta"]["warnings"]
    assert "answered with an empty body" in warning and "script" not in warning


def test_a_frameset_page_names_its_frames_and_reads_its_notice_as_text(site: Any, local: Config) -> None:
    """Before, its ``<noframes>`` came back as markup (``<h2>Frame Alert</h2><p>...``), and
    nothing said that the text was in the frames."""
    envelope = extract(site.url("/frames/"), local)
    [item] = envelope["data"]
    assert item["content"].startswith("## Frame Alert\n\nThis document is designed") and "<" not in item["content"]
    assert item["metadata"]["frames"] == [site.url("/docs/a"), site.url("/docs/b")]
    [warning] = envelope["meta"]["warnings"]
    assert "frameset" in warning and site.url("/docs/b") in warning and "script" not in warning


def test_a_meta_refresh_is_followed_as_a_browser_would(site: Any, local: Config) -> None:
    """A moved page that answers 200 with a refresh tag: the reader wants where it goes."""
    urls = [site.url("/refresh/now"), site.url("/refresh/chain"), site.url("/refresh/later"), site.url("/refresh/loop")]
    now, chain, later, loop = extract(urls, local)["data"]
    for item, asked in ((now, urls[0]), (chain, urls[1])):
        assert item["url"] == asked and item["title"] == "Caching in practice"
        assert item["metadata"]["final_url"] == site.url("/articles/caching")
    assert "moved" in later["content"] and "moved" in loop["content"]  # a reload every 5 min is no redirect
    assert site.paths().count("/docs/a") == 0 and site.paths().count("/refresh/loop") == 1


def test_a_refresh_header_is_followed_as_its_meta_tag_is(site: Any, local: Config) -> None:
    """A browser obeys ``Refresh: 0; url=...`` (before the page's own ``<meta>`` refresh): it was
    not read at all, and a moved page answering with the header alone was an empty body."""
    envelope = extract([site.url("/refresh-header/empty"), site.url("/refresh-header/notice")], local)
    for item, path in zip(envelope["data"], ("/refresh-header/empty", "/refresh-header/notice"), strict=True):
        assert item["url"] == site.url(path) and item["title"] == "Caching in practice"
        assert item["metadata"]["final_url"] == site.url("/articles/caching")
    assert "warnings" not in envelope["meta"] and "/docs/a" not in site.paths()


def test_a_page_that_only_sends_its_reader_on_is_not_said_to_be_built_by_a_script(site: Any, local: Config) -> None:
    """A site generator's alias has no text of its own: the page it sends its reader to was
    read, yet the envelope said the page may be built by a script and named browser backends.
    A refresh that is not followed (a loop) is said instead."""
    envelope = extract([site.url("/alias/old"), site.url("/alias/ping")], local)
    moved, loop = envelope["data"]
    assert moved["title"] == "Caching in practice"
    [warning] = envelope["meta"]["warnings"]
    assert "script" not in warning and "refresh" in warning and site.url("/alias/ping") in warning
    assert loop["metadata"]["final_url"] == site.url("/alias/pong")


def test_a_refresh_only_for_readers_without_scripts_is_not_followed(site: Any, local: Config) -> None:
    """``<noscript><meta http-equiv="refresh" ...>`` sends a browser whose scripts are off to a
    "please turn on JavaScript" page; every other browser reads the story. Followed, the extract
    of such a news page was that notice instead of the story."""
    [item] = extract(site.url("/refresh/noscript"), local)["data"]
    assert item["title"] == "Caching in practice" and "Caching in practice" in item["content"]
    assert item["metadata"]["final_url"] == site.url("/refresh/noscript")
    assert site.paths().count("/docs/a") == 0


def test_a_meta_refresh_to_a_private_address_is_refused(site: Any, local: Config) -> None:
    """Each refresh hop is screened as a redirect is."""
    [item] = unread(site.url("/refresh/metadata"), local)["meta"]["failures"]
    assert item["error_code"] == "unsafe_url"


def test_an_rss_feed_reads_as_its_entries_not_its_xml(site: Any, local: Config) -> None:
    """Before, a feed came back as its XML, its posts still escaped HTML (``&lt;p&gt;``)."""
    page = extract(site.url("/feed.xml"), local)["data"][0]
    assert page["title"] == "Café notes"
    assert page["metadata"]["feed"] == "rss" and page["metadata"]["entries"] == 2
    assert page["content"] == (
        "# Café notes\n\nNotes on espresso — weekly\n\n"
        "## [Grinding “fine”](https://blog.example/grinding)\n\nTue, 10 Nov 2026 09:00:00 GMT\n\n"
        "How fine to grind the beans for a 25 s shot.\n\n"
        "## [Descaling](https://blog.example/descaling)\n\n#### Why it matters\n\nScale narrows the boiler's pipes."
    )
    text = extract(site.url("/feed.xml"), local, format="text")["data"][0]["content"]
    assert "Grinding “fine”\nhttps://blog.example/grinding" in text and "#" not in text


def test_an_atom_feed_links_each_entry_to_its_page(site: Any, local: Config) -> None:
    page = extract(site.url("/atom.xml"), local)["data"][0]
    assert page["metadata"]["feed"] == "atom"
    assert "## [Version 2.0](https://example.org/releases/2.0)" in page["content"]
    assert "Faster start-up." in page["content"] and "edit" not in page["content"]


def test_an_rss_1_feed_links_each_entry_to_its_page(site: Any, local: Config) -> None:
    """RSS 1.0 puts its ``<link>`` in the RSS namespace: taken for another vocabulary's, no entry
    of such a feed was linked to its page."""
    page = extract(site.url("/index.rdf"), local)["data"][0]
    assert page["metadata"]["feed"] == "rss"
    assert page["content"] == (
        "# Site news\n\nWhat changed\n\n## [We moved](https://news.example/2026/moved)\n\n2026-11-02\n\n"
        f"## [New hours]({site.url('/2026/hours')})"
    )


def test_an_atom_feed_shows_plain_text_as_it_is_and_html_as_its_text(site: Any, local: Config) -> None:
    """Atom's text is plain unless its ``type`` says HTML (RFC 4287): read as markup, ``Vec<T>``
    came back as ``Vec``, and a title of ``type="html"`` came with its tags."""
    page = extract(site.url("/atom-text.xml"), local)["data"][0]
    assert page["title"] == "Rust notes"
    assert page["content"] == (
        "# Rust notes\n\nWhere a<b holds\n\n## [Generics](https://example.org/generics)\n\n"
        "Use Vec<T> for a list; write <br> to break a line.\n\n"
        "## [A new start](https://example.org/start)\n\nBegin here."
    )


def test_an_atom_entry_whose_content_is_elsewhere_shows_its_summary(site: Any, local: Config) -> None:
    """``<content src="...">`` holds no text, and was read before the summary beside it: the
    entry came back as its title alone."""
    page = extract(site.url("/atom-elsewhere.xml"), local)["data"][0]
    assert page["content"] == "# Talks\n\n## [Slides](https://example.org/slides)\n\nThe talk's slides, in a PDF."


@pytest.mark.parametrize("path", ["/feed.php", "/feed.txt", "/feed.cgi", "/feed.bin"])
def test_a_feed_served_as_a_page_or_as_text_reads_as_its_entries(path: str, site: Any, local: Config) -> None:
    """PHP's default type is text/html: a feed script that sets none came back as the text of
    its elements one per line (links as bare addresses, summaries' markup escaped), and a feed
    served as text/plain as its XML; so did one with no XML declaration served with no type or
    as application/octet-stream."""
    page = extract(site.url(path), local)["data"][0]
    assert page["metadata"]["feed"] == "atom" and page["title"] == "Release notes"
    assert "## [Version 2.0](https://example.org/releases/2.0)" in page["content"]


def test_a_feed_writing_emoji_as_references_to_surrogates_is_read(site: Any, local: Config) -> None:
    """lxml kept ``&#xD83D;&#xDE80;`` as bytes no text could be read from: the whole feed was
    ``provider_error``, "Extraction failed: UnicodeDecodeError"."""
    page = extract(site.url("/emoji.xml"), local)["data"][0]
    assert page["title"] == "Launch 🚀 notes", page
    assert page["content"] == "# Launch 🚀 notes\n\n## Day 😀\n\nA stray half \ufffd here."


def test_a_podcast_feed_links_each_episode_to_its_page_not_its_audio_or_feed(site: Any, local: Config) -> None:
    content = extract(site.url("/podcast.xml"), local)["data"][0]["content"]
    assert content == (
        "# Weekly show\n\n## [Episode 1](https://pod.example/episodes/1)\n\n## Episode 2\n\n"
        f"## [Episode 3]({site.url('/episodes/3')})"
    )


def test_a_hostile_feed_expands_no_entity_and_reads_no_file(site: Any, local: Config) -> None:
    page = extract(site.url("/hostile.xml"), local)["data"][0]
    assert page["content"] == "# Hostile &d;\n\n## [Entry &file;](https://x.example/1)"  # the references, as written


@pytest.mark.parametrize("which", ["canonical", "refresh"])
def test_a_page_naming_an_address_no_parser_reads_is_still_read(which: str, site: Any, local: Config) -> None:
    """A template's unfilled ``https://[site-url]/`` in a canonical link or a refresh failed the whole page with ``provider_error`` ("Extraction failed: ValueError"); browsers
    pass such an address by, and so does the reader."""
    [item] = extract(site.url(f"/placeholder/{which}"), local)["data"]
    assert item["title"] == "Template page" and "still read" in item["content"]
    assert item["metadata"]["final_url"] == site.url(f"/placeholder/{which}")
    assert "canonical_url" not in item["metadata"]


def test_a_canonical_link_or_language_longer_than_any_real_one_is_left_out(site: Any, local: Config) -> None:
    """Both came into ``metadata`` whole, 100,000 characters each beside a short page."""
    [item] = extract(site.url("/oversized-meta"), local)["data"]
    assert "whatever its head says" in item["content"]
    assert "canonical_url" not in item["metadata"] and "language" not in item["metadata"]


def test_a_feed_entry_whose_link_no_parser_reads_is_kept_without_it(site: Any, local: Config) -> None:
    [item] = extract(site.url("/placeholder.xml"), local)["data"]
    assert item["content"] == "# Template feed\n\n## Unlinked entry\n\nIts link was never filled in."


def test_an_option_the_reader_does_not_take_is_named_not_ignored_unsaid(site: Any, local: Config) -> None:
    """Before, ``max_char=100`` (a typo) was dropped without a word and the whole page came back."""
    envelope = extract(site.url("/articles/caching"), local, max_char=100, max_pages=3)
    assert envelope["meta"]["warnings"] == ["http ignored the option(s) max_char, max_pages: it does not know them."]
    assert len(envelope["data"][0]["content"]) > 100
    taken = extract(site.url("/articles/caching"), local, max_chars=100, format="text", include_raw=True,
                    concurrency=2, per_host_concurrency=1, delay=0, url_timeout=5)
    assert "warnings" not in taken["meta"] and len(taken["data"][0]["content"]) <= 100


def test_the_kit_s_option_names_are_those_its_readers_read() -> None:
    """What a provider names as known from the kit stays what the kit reads (a renamed field fails here)."""
    import dataclasses

    from webproviders.kit import (
        CRAWL_OPTIONS,
        EXTRACT_OPTIONS,
        CrawlOptions,
        FetchLimits,
        PageOptions,
    )

    assert set(EXTRACT_OPTIONS) == {*PageOptions._fields, *FetchLimits._fields, "max_chars"}  # the dispatcher's
    crawl_fields = {f.name for f in dataclasses.fields(CrawlOptions)} - {"limits", "page"}
    assert set(CRAWL_OPTIONS) == {*EXTRACT_OPTIONS, *crawl_fields, "limit"}


def test_per_host_and_total_concurrency_hold(site: Any, config_for: Any) -> None:
    config = config_for(allowed_hosts=["*.hosts.test"])
    urls = [f"http://{host}.hosts.test:{site.port}/hold/{i}" for host in "abc" for i in range(4)]
    data = extract(urls, config, concurrency=4, per_host_concurrency=2)["data"]
    assert all("Held page" in page["content"] for page in data)
    assert max(site.peak.values()) == 2
    assert site.peak_total <= 4
    site.reset()
    extract(urls[:4], config, per_host_concurrency=1)
    assert site.peak["a.hosts.test"] == 1


def test_default_per_host_limit_is_two(site: Any, local: Config) -> None:
    extract([site.url(f"/hold/{i}") for i in range(6)], local)
    assert site.peak["127.0.0.1"] == 2


def test_async_twin(site: Any, local: Config) -> None:
    envelope = asyncio.run(adispatch_extract([site.url("/articles/retries")], backend="http", config=local))
    assert envelope["success"] is True
    assert "Exponential backoff with jitter" in envelope["data"][0]["content"]


def test_http_is_the_default_extract_and_crawl_backend(config_for: Any) -> None:
    from webproviders.dispatch.plan import resolve
    from webproviders.registry.providers import get_registry

    registry = get_registry(config_for())
    assert registry.get("http") is not None
    assert resolve("extract", None, registry).candidates[0] == "http"
    assert resolve("crawl", None, registry).candidates == ["http"]


ARTICLES = ["/articles/caching", "/articles/retries", "/articles/encoding", "/docs/a", "/docs/b", "/docs/deep/c"]


def test_many_concurrent_extracts_do_not_crash(site: Any, local: Config) -> None:
    """30 pages through concurrent dispatch calls from threads and one event loop.

    trafilatura crashes the interpreter when run from several threads at once; pages are
    extracted in worker processes, one page per worker at a time, never in this process.
    """
    from webproviders.fetching.extractpool import extraction_pool

    urls = [site.url(ARTICLES[i % len(ARTICLES)]) + f"?copy={i}" for i in range(30)]
    batches = [urls[i:i + 3] for i in range(0, 30, 3)]

    with ThreadPoolExecutor(5) as pool:
        threaded = list(pool.map(lambda batch: dispatch_extract(batch, backend="http", config=local), batches[:5]))

    async def from_one_loop() -> list[dict[str, Any]]:
        return await asyncio.gather(*(adispatch_extract(b, backend="http", config=local) for b in batches[5:]))

    looped = asyncio.run(from_one_loop())
    items = [item for envelope in threaded + looped for item in envelope["data"]]
    assert len(items) == 30
    assert all("error" not in item and len(item["content"]) > 80 for item in items)
    workers = extraction_pool.pids()
    assert 1 <= len(workers) <= local.web.extraction.workers
    assert os.getpid() not in workers


def test_workers_killed_without_waiting_are_reaped_at_exit() -> None:
    """``close(wait=False)`` (the command line's, as its command returns) kills the workers
    and waits for none; the ``close()`` that runs at exit reaps them, so nothing is left of
    them, not even a zombie."""
    from webproviders.fetching.extractpool import ExtractionPool

    pool = ExtractionPool()
    pool.start_early()
    [pid] = pool.pids()
    pool.close(wait=False)
    assert pool.pids() == []
    pool.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


# -- the interpreter the extraction workers run ----------------------------------------------


def test_workers_run_the_interpreter_web_extraction_python_names(
    site: Any, config_for: Any, tmp_path: Any
) -> None:
    """Where this process is not a plain interpreter (a frozen application, uWSGI), the
    workers run the one the config names; here a wrapper that notes each start."""
    started = tmp_path / "started"
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\necho started >> "{started}"\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    config = config_for(allow_private_networks=True, extraction={"python": str(wrapper)})
    [page] = extract(site.url("/articles/caching"), config)["data"]
    assert page["title"] == "Caching in practice"
    assert started.read_text(encoding="utf-8").count("started") >= 1


def test_an_interpreter_that_cannot_run_a_worker_is_named_by_its_setting(
    site: Any, config_for: Any, tmp_path: Any
) -> None:
    """Before, every page failed with "The extraction worker ended unexpectedly (exit status 1)",
    which says nothing of why; the sentence names the setting, never the path."""
    not_python = tmp_path / "not-python"
    not_python.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    not_python.chmod(0o755)
    config = config_for(allow_private_networks=True, extraction={"python": str(not_python)})
    envelope = unread(site.url("/articles/caching"), config)
    [failure] = envelope["meta"]["failures"]
    assert failure["error_code"] == "provider_error", failure
    assert "before it answered a page" in failure["error"], failure
    assert "web.extraction.python must name a Python interpreter" in failure["error"], failure
    assert str(tmp_path) not in failure["error"]


def test_an_interpreter_that_is_not_there_is_named_by_its_setting_not_its_path(
    site: Any, config_for: Any, tmp_path: Any
) -> None:
    """Before, the page was ``provider_error``, "Could not start an extraction worker process:
    [Errno 2] No such file or directory: '/...'": the path, and not the setting that names it."""
    config = config_for(allow_private_networks=True, extraction={"python": str(tmp_path / "no-such-python")})
    envelope = unread(site.url("/articles/caching"), config)
    [failure] = envelope["meta"]["failures"]
    assert failure["error_code"] == "not_configured", failure
    assert failure["error"] == (
        "Could not start an extraction worker process (No such file or directory): web.extraction.python "
        "must name a Python interpreter that can import webproviders."
    )


FROZEN = r"""
import json, subprocess, sys

sys.frozen = True  # as PyInstaller and similar tools set it: the executable is the application
started = []
popen = subprocess.Popen


class Watched(popen):
    def __init__(self, args, *rest, **kwargs):
        started.append(list(args))
        super().__init__(args, *rest, **kwargs)


subprocess.Popen = Watched
from webproviders import dispatch_extract
from webproviders.config import config_from_dict

config = config_from_dict({"web": {"allow_private_networks": True}})
envelope = dispatch_extract(sys.argv[1], backend="http", config=config)
workers = [args for args in started if "-c" in args]
print(json.dumps({"code": envelope.get("error_code"), "error": envelope.get("error"), "workers": len(workers)}))
"""


def test_a_frozen_application_never_starts_itself_as_a_worker(site: Any, tmp_path: Any) -> None:
    """In a frozen application ``sys.executable`` is the application: run as a worker it
    would start the program again. Without web.extraction.python the extract is
    ``not_configured`` and no worker is started."""
    import json
    import subprocess

    script = tmp_path / "frozen.py"
    script.write_text(FROZEN, encoding="utf-8")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, str(script), site.url("/articles/caching")], capture_output=True, text=True, timeout=60, env=env
    )
    assert out.returncode == 0, out.stderr[-2000:]
    answer = json.loads(out.stdout.strip().splitlines()[-1])
    assert answer["code"] == "not_configured", answer
    assert "set web.extraction.python" in answer["error"] and answer["workers"] == 0, answer


def test_a_worker_whose_process_went_away_mid_page_leaves_quietly() -> None:
    """A process that ends while a page is being read (its calls still running on daemon
    threads as it exits) leaves its worker nobody to answer: the worker printed a
    ``BrokenPipeError`` traceback onto the terminal after the program had ended."""
    import pickle
    import socket
    import subprocess
    import time

    from webproviders.fetching.extractpool import WORKER_CODE, worker_environment

    ours, theirs = socket.socketpair()
    with theirs:
        worker = subprocess.Popen(
            [sys.executable, "-c", WORKER_CODE, str(theirs.fileno())], pass_fds=(theirs.fileno(),),
            env=worker_environment(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
    from multiprocessing.connection import Connection

    conn = Connection(ours.detach())
    conn.send_bytes(pickle.dumps((time.sleep, (0.5,), {}, 10.0, 1024, False)))  # a page that takes a while
    conn.close()  # and the process that asked for it ends
    _, errors = worker.communicate(timeout=60)
    assert worker.returncode == 0, errors
    assert b"Traceback" not in errors, errors


@pytest.mark.parametrize("url", ["http://nowhere.invalid/page", "http://127.0.0.1:9/page"], ids=["no-dns", "private"])
@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"format": "html"}, "format must be 'markdown' or 'text', not 'html'."),
        ({"include_raw": "yes"}, "include_raw must be true or false, not 'yes'."),
    ],
)
@pytest.mark.parametrize("capability", ["extract", "crawl"])
def test_a_bad_page_option_is_invalid_input_before_any_url_is_screened(
    config_for: Any, url: str, options: dict[str, Any], said: str, capability: str
) -> None:
    """A caller's bad ``format`` was checked only by the provider, after the URL screen: on a
    machine without DNS it came back as the ``network_error`` of the host's lookup, and for an
    internal address as ``unsafe_url``, neither saying what to change."""
    from webproviders import dispatch_crawl

    call = dispatch_extract if capability == "extract" else dispatch_crawl
    envelope = call(url, backend="http", config=config_for(), **options)
    assert (envelope["error_code"], envelope["error"]) == ("invalid_input", said), envelope


@pytest.mark.parametrize("status", [429, 503])
def test_a_host_that_asks_for_a_pause_is_not_asked_again_within_the_batch(
    site: Any, config_for: Any, status: int
) -> None:
    """A 429 or 503 with ``Retry-After`` paused a crawl's host but not an extract's: the
    batch's other pages of that host were requested at once, as if it had not asked."""
    config = config_for(allow_private_networks=True, providers={"http": {"per_host_concurrency": 1}})
    urls = [site.url(f"/busy?status={status}&after=600"), site.url("/articles/caching"), site.url("/articles/retries")]
    envelope = dispatch_extract(urls, backend="http", config=config, timeout=5)
    assert [path.split("?")[0] for path in site.paths()] == ["/busy"], site.paths()
    assert envelope["error_code"] == "rate_limited", envelope  # no page read: the call's failure
    busy, *held = envelope["meta"]["failures"]
    assert busy["retry_after"] == 600
    for item in held:
        assert item["error_code"] == "rate_limited", item
        assert item["error"].startswith(f"{item['url']} was not requested: its host asked for a pause (Retry-After)")
        assert 590 < item["retry_after"] <= 600


def test_pages_whose_turn_under_the_delay_comes_past_the_deadline_are_not_waited_for(
    site: Any, local: Config
) -> None:
    """With 10 s kept between requests to one host and 4 s for the call, the batch's other pages
    of that host waited out the whole deadline, then said only that they timed out."""
    urls = [site.url(path) for path in ("/articles/caching", "/articles/retries", "/docs/")]
    envelope = extract(urls, local, delay=10, per_host_concurrency=1, timeout=4)
    first, *held = envelope["data"]
    assert "error" not in first, first
    for item in held:
        assert item["error_code"] == "timeout", item
        assert item["error"].startswith(f"{item['url']} was not requested: requests to 127.0.0.1 are kept 10 s apart")
    assert [path for path in site.paths() if path != "/robots.txt"] == ["/articles/caching"]


def test_a_refresh_whose_turn_under_the_delay_comes_past_the_deadline_names_its_target(
    site: Any, local: Config
) -> None:
    """The page was read; the page its refresh sends the reader to was not: the sentence said
    the page itself was not requested, and the call was asked again at once, the host with it."""
    envelope = unread(site.url("/refresh/now"), local, delay=10, timeout=4)
    [item] = envelope["meta"]["failures"]
    assert item["error"].startswith(f"{site.url('/articles/caching')} was not requested: requests to 127.0.0.1"), item
    assert envelope["retry_after"] > 5, envelope
    assert site.paths() == ["/refresh/now"]


def test_each_page_after_the_first_takes_a_slot_of_the_request_budget(site: Any, config_for: Any) -> None:
    """With two requests a minute, the third URL is not asked for but says why, and the pages
    read are kept, as a vendor's reader does. Before, the whole extract took one slot of http's
    rate_limit and fetched every URL at once."""
    config = config_for(allow_private_networks=True, cache=False, providers={"http": {"rate_limit": "2/min"}})
    urls = [site.url(path) for path in ("/articles/caching", "/articles/retries", "/docs/")]
    envelope = dispatch_extract(urls, backend="http", config=config, timeout=5)
    assert envelope["success"] is True, envelope
    read = [page for page in envelope["data"] if "error" not in page]
    [refused] = [page for page in envelope["data"] if "error" in page]
    assert len(read) == 2 and len(site.paths()) == 2
    assert refused["error_code"] == "rate_limited" and refused["retry_after"] > 50
    assert "(2/min)" in refused["error"]
