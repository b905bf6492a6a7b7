"""An extract or crawl that read no page is a failure; some pages read is a success that
counts its failures; a malformed URL fails only its own item."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_crawl, dispatch_extract
from webproviders.config import Config
from webproviders.models import FailureEnvelope, PagesEnvelope

FIRECRAWL = "https://api.firecrawl.dev/v2/scrape"
#: Firecrawl's documented error body, as its API sends it with a 5xx.
FIRECRAWL_DOWN = {"success": False, "error": "An unexpected error occurred on the server."}


def test_every_url_missing_is_a_not_found_failure_with_each_url_in_meta(site: Any, local: Config) -> None:
    urls = [site.url("/missing"), site.url("/missing?again=1")]
    envelope = dispatch_extract(urls, backend="http", config=local)

    assert envelope["success"] is False
    assert envelope["error_code"] == "not_found" and envelope["retryable"] is False
    assert envelope["provider"] == "http"
    assert "None of the 2 URLs could be read (2 not_found)" in envelope["error"]
    assert [f["url"] for f in envelope["meta"]["failures"]] == urls
    assert {f["error_code"] for f in envelope["meta"]["failures"]} == {"not_found"}
    assert envelope["meta"]["failed"] == 2
    assert [a["outcome"] for a in envelope["meta"]["attempts"]] == ["error"]
    FailureEnvelope.model_validate(envelope)


def test_the_most_telling_code_speaks_for_the_call(site: Any, local: Config) -> None:
    """A wall (another backend may read it) says more than a missing page."""
    urls = [site.url("/missing"), site.url("/forbidden")]
    envelope = dispatch_extract(urls, backend="http", config=local)
    assert envelope["error_code"] == "blocked" and envelope["retryable"] is True
    assert "(1 blocked, 1 not_found)" in envelope["error"]
    assert site.url("/forbidden") in envelope["error"]


def test_a_transient_failure_of_every_url_is_retried(site: Any, local: Config) -> None:
    envelope = dispatch_extract(site.url("/unavailable"), backend="http", config=local)
    assert envelope["error_code"] == "bad_gateway"
    assert site.paths().count("/unavailable") == 3  # the first try and web.retry's two retries
    assert [a.get("retry", 0) for a in envelope["meta"]["attempts"]] == [0, 1, 2]


def test_a_walled_page_keeps_its_detail_on_the_item_the_failures_and_the_call(site: Any, local: Config) -> None:
    walled = site.url("/forbidden")
    envelope = dispatch_extract(walled, backend="http", config=local)
    assert envelope["error_code"] == "blocked" and envelope["detail"] == "http_403"
    assert envelope["meta"]["failures"][0]["detail"] == "http_403"
    FailureEnvelope.model_validate(envelope)

    envelope = dispatch_extract([walled, site.url("/articles/caching")], backend="http", config=local)
    assert envelope["data"][0]["detail"] == "http_403"
    PagesEnvelope.model_validate(envelope)


def test_a_rate_limited_page_gives_its_retry_after_and_is_not_tried_again_sooner(site: Any, local: Config) -> None:
    """/busy asks for 7 s; a 3 s call has no time to wait that long, so it is not retried."""
    envelope = dispatch_extract(site.url("/busy"), backend="http", config=local, timeout=3)
    assert envelope["error_code"] == "rate_limited" and envelope["retry_after"] == 7
    assert envelope["meta"]["failures"][0]["retry_after"] == 7
    assert site.paths().count("/busy") == 1 and len(envelope["meta"]["attempts"]) == 1
    # One site's 429 does not hold the provider back for other pages.
    assert dispatch_extract(site.url("/articles/caching"), backend="http", config=local, timeout=3)["success"] is True


def test_a_rate_limited_page_with_a_reset_in_epoch_milliseconds_gives_that_wait(site: Any, local: Config) -> None:
    """``X-RateLimit-Reset: 1764400000000`` (an epoch in milliseconds) was read as an epoch in
    seconds 55,000 years away: an hour's wait, the most any answer may impose."""
    envelope = dispatch_extract(
        site.url("/busy?after=none&reset=epoch-ms%2B600&reset_header=X-RateLimit-Reset"), backend="http", config=local
    )
    assert envelope["error_code"] == "rate_limited" and 500 < envelope["retry_after"] <= 600


def test_a_page_that_fails_with_500_is_not_retried(site: Any, local: Config) -> None:
    envelope = dispatch_extract(site.url("/error"), backend="http", config=local)
    assert envelope["error_code"] == "bad_gateway"
    assert site.paths().count("/error") == 1 and len(envelope["meta"]["attempts"]) == 1


def test_failures_are_not_cached_and_do_not_cool_the_provider_down(site: Any, local: Config) -> None:
    for _ in range(7):  # more than web.health.failures (5)
        assert dispatch_extract(site.url("/missing"), backend="http", config=local)["success"] is False
    assert site.paths().count("/missing") == 7
    envelope = dispatch_extract(site.url("/articles/caching"), backend="http", config=local)
    assert envelope["success"] is True and "Caching" in envelope["data"][0]["title"]


def test_some_pages_read_is_a_success_counting_the_failures(site: Any, local: Config) -> None:
    urls = [site.url("/missing"), site.url("/articles/caching")]
    envelope = dispatch_extract(urls, backend="http", config=local)
    assert envelope["success"] is True
    assert envelope["meta"]["failed"] == 1
    assert [p.get("error_code") for p in envelope["data"]] == ["not_found", None]
    PagesEnvelope.model_validate(envelope)


def test_a_malformed_url_fails_only_its_own_item(site: Any, local: Config) -> None:
    urls = [site.url("/articles/caching"), "ftp://files.example/a", site.url("/articles/retries")]
    envelope = dispatch_extract(urls, backend="http", config=local)

    assert envelope["success"] is True and envelope["meta"]["failed"] == 1
    assert [p["url"] for p in envelope["data"]] == urls
    bad = envelope["data"][1]
    assert bad["error_code"] == "invalid_input" and "not an http:// or https:// address" in bad["error"]
    assert "Retries without outages" in envelope["data"][2]["content"]


@pytest.mark.parametrize("between", [" ", ", ", "\n", "\t"])
def test_several_urls_in_one_string_are_refused_before_any_request(
    between: str, site: Any, local: Config
) -> None:
    """Pasted together, they were fetched as one URL: "not found", or "unsafe" with a line break."""
    pasted = site.url("/articles/caching") + between + site.url("/articles/retries")
    for given in (pasted, [pasted]):
        envelope = dispatch_extract(given, backend="http", config=local)
        assert envelope["error_code"] == "invalid_input"
        assert f"The URL {pasted!r} holds several addresses; give each URL on its own" in envelope["error"]
    crawl = dispatch_crawl(pasted, backend="http", config=local)
    assert crawl["error_code"] == "invalid_input"
    assert crawl["error"].endswith("holds several addresses; this takes one URL: make one call per address.")
    assert site.paths() == []
    one = site.url("/articles/caching") + "?next=" + site.url("/articles/retries")
    assert dispatch_extract(one, backend="http", config=local)["success"] is True


def test_a_malformed_url_is_listed_among_the_failures_of_a_failed_call(site: Any, local: Config) -> None:
    urls = ["not a url", site.url("/missing")]
    envelope = dispatch_extract(urls, backend="http", config=local)
    assert envelope["error_code"] == "not_found"
    assert [(f["url"], f["error_code"]) for f in envelope["meta"]["failures"]] == [
        ("not a url", "invalid_input"),
        (site.url("/missing"), "not_found"),
    ]
    assert envelope["meta"]["failed"] == 2


@pytest.mark.parametrize(
    ("urls", "message"),
    [
        (["ftp://a.example/"], "The URL 'ftp://a.example/' is not an http:// or https:// address."),
        (["ftp://a.example/", 7], "None of the 2 URLs is usable: The URL 'ftp://a.example/' is not"),
    ],
)
def test_a_batch_of_only_malformed_urls_is_refused_before_any_request(
    urls: list[Any], message: str, site: Any, local: Config
) -> None:
    envelope = dispatch_extract(urls, backend="http", config=local)
    assert envelope["error_code"] == "invalid_input"
    assert envelope["error"].startswith(message)
    assert envelope["meta"]["attempts"] == []


def test_an_auto_detected_keyless_chain_keeps_page_failures_with_the_local_fetcher(
    site: Any, local: Config
) -> None:
    """``http -> jina`` stands by for an http that cannot run; a missing page is not sent on."""
    urls = [site.url("/missing"), site.url("/articles/caching")]
    for asked in (urls[:1], urls):
        envelope = dispatch_extract(asked, config=local)  # conftest refuses any non-loopback request
        assert {a["provider"] for a in envelope["meta"]["attempts"]} == {"http"}
    assert envelope["success"] is True and envelope["data"][0]["error_code"] == "not_found"


def test_a_crawl_whose_seed_is_missing_is_a_failure(site: Any, local: Config) -> None:
    envelope = dispatch_crawl(site.url("/missing"), backend="http", config=local)
    assert envelope["success"] is False and envelope["error_code"] == "not_found"
    assert envelope["meta"]["failures"][0]["url"] == site.url("/missing")


def _firecrawl_config(config_for: Any, monkeypatch: pytest.MonkeyPatch) -> Config:
    monkeypatch.setenv("FIRECRAWL_API_KEY", "fc-0123456789abcdef-testkey")
    return config_for(allow_private_networks=True, retry={"max_retries": 1, "backoff": 0})


@pytest.mark.parametrize(
    ("answer", "code", "tries"),
    [
        (httpx.Response(503, json=FIRECRAWL_DOWN), "bad_gateway", 2),  # a 503 is tried again
        (httpx.Response(200, text="<html>upstream proxy error</html>"), "parse_error", 1),
    ],
)
def test_a_vendor_failing_every_url_fails_over_along_a_chain(
    answer: httpx.Response, code: str, tries: int, site: Any, config_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _firecrawl_config(config_for, monkeypatch)
    urls = [site.url("/articles/caching"), site.url("/articles/retries")]
    with respx.mock(assert_all_called=False) as router:
        router.route(host="127.0.0.1").pass_through()
        scrape = router.post(FIRECRAWL).mock(return_value=answer)
        envelope = dispatch_extract(urls, backend=["firecrawl", "http"], config=config)

    assert envelope["success"] is True and envelope["provider"] == "http"
    assert [p["url"] for p in envelope["data"]] == urls and "failed" not in envelope["meta"]
    firecrawl = [a for a in envelope["meta"]["attempts"] if a["provider"] == "firecrawl"]
    assert [a["error_code"] for a in firecrawl] == [code] * tries
    assert scrape.call_count == 2 * tries
    assert [a["outcome"] for a in envelope["meta"]["attempts"]][-1] == "ok"


def test_a_vendor_failing_every_url_alone_is_a_failure_with_the_vendor_reason(
    config_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _firecrawl_config(config_for, monkeypatch)
    with respx.mock() as router:
        router.post(FIRECRAWL).respond(503, json=FIRECRAWL_DOWN)
        envelope = dispatch_extract(["https://public.test/a"], backend="firecrawl", config=config)
    assert envelope["success"] is False and envelope["error_code"] == "bad_gateway"
    assert "An unexpected error occurred on the server." in envelope["error"]
    assert envelope["meta"]["failures"] == [
        {"url": "https://public.test/a", "error": envelope["error"], "error_code": "bad_gateway"}
    ]


def test_the_cli_exits_non_zero_when_no_page_was_read_and_names_each_url(
    site: Any, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from webproviders import cli

    config = tmp_path / "config.yaml"
    config.write_text("web:\n  allow_private_networks: true\n")
    missing, walled = site.url("/missing"), site.url("/forbidden")
    assert cli.main(["--config", str(config), "extract", missing, walled, "--backend", "http"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith("error [blocked]: None of the 2 URLs could be read (1 blocked, 1 not_found)")
    assert lines[1].startswith(f"failed [not_found] {missing}: ")
    assert lines[2].startswith(f"failed [blocked] {walled}: ")

    assert cli.main(["--config", str(config), "extract", missing, site.url("/articles/caching")]) == cli.EXIT_PARTIAL
    out, err = capsys.readouterr()
    assert "Caching keeps recently used answers close" in out and missing not in out
    assert err.startswith(f"failed [not_found] {missing}: ")


def test_malformed_and_unsafe_urls_each_keep_their_place(site: Any, local: Config, config_for: Any) -> None:
    """Malformed (refused by validation) and unsafe (refused by the URL gate) items, in order."""
    config = config_for(allowed_hosts=["site.test"])
    page = site.url("/articles/caching", host="site.test")
    urls = ["ftp://a.example/", "http://private.test/", page, "not a url", "http://169.254.169.254/"]
    envelope = dispatch_extract(urls, backend="http", config=config)
    assert envelope["success"] is True and envelope["meta"]["failed"] == 4
    assert [p["url"] for p in envelope["data"]] == urls
    assert [p.get("error_code") for p in envelope["data"]] == [
        "invalid_input", "unsafe_url", None, "invalid_input", "unsafe_url"
    ]

    refused = dispatch_extract([urls[0], urls[1], urls[4]], backend="http", config=config)
    assert refused["success"] is False and refused["error_code"] == "unsafe_url"
    assert [(f["url"], f["error_code"]) for f in refused["meta"]["failures"]] == [
        (urls[0], "invalid_input"), (urls[1], "unsafe_url"), (urls[4], "unsafe_url")
    ]
    assert refused["meta"]["failed"] == 3 and site.paths() == ["/articles/caching"]


def test_a_url_asked_for_twice_is_read_once_and_answered_in_both_places(site: Any, local: Config) -> None:
    page, other = site.url("/articles/caching"), site.url("/articles/retries")
    urls = ["ftp://a.example/", page, other, page, "not a url", page]
    envelope = dispatch_extract(urls, backend="http", config=local)

    assert envelope["success"] is True and envelope["meta"]["failed"] == 2
    assert [p["url"] for p in envelope["data"]] == urls
    first, again, last = envelope["data"][1], envelope["data"][3], envelope["data"][5]
    assert again == first and last == first and "Caching" in first["title"]
    assert again is not first  # each place holds its own item: changing one leaves the others
    assert site.paths().count("/articles/caching") == 1
    PagesEnvelope.model_validate(envelope)


def test_a_failed_url_asked_for_twice_is_tried_once_and_listed_twice(site: Any, local: Config) -> None:
    missing = site.url("/missing")
    envelope = dispatch_extract([missing, "not a url", missing], backend="http", config=local)
    assert envelope["error_code"] == "not_found"
    assert [(f["url"], f["error_code"]) for f in envelope["meta"]["failures"]] == [
        (missing, "not_found"), ("not a url", "invalid_input"), (missing, "not_found")
    ]
    assert envelope["meta"]["failed"] == 3 and site.paths().count("/missing") == 1
