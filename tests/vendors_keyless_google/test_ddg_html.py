"""ddg_html: DuckDuckGo's HTML endpoint, against saved result pages."""

from __future__ import annotations

import asyncio
import base64
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
import respx

from webproviders import adispatch_search, dispatch_search
from webproviders.config import config_from_dict

URL = "https://html.duckduckgo.com/html/"


def _form(request: httpx.Request) -> dict[str, str]:
    return {
        key: values[0]
        for key, values in parse_qs(request.content.decode(), keep_blank_values=True).items()
    }


def test_results_page_becomes_hits(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(
            200, text=page("ddg_results.html"), headers={"Content-Type": "text/html; charset=UTF-8"}
        )
        envelope = dispatch_search("rust async await", 5, backend="ddg_html", config=cfg())
    assert envelope["success"] is True and envelope["provider"] == "ddg_html"
    hits = envelope["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2, 3, 4, 5]
    assert hits[0]["url"] == "https://doc.rust-lang.org/book/ch17-00-async-await.html"
    assert hits[0]["title"].startswith("Fundamentals of Asynchronous Programming")
    assert hits[0]["description"].startswith("Learn how async and await work in Rust")
    assert hits[0]["published_at"] == "2025-12-30T00:00:00"
    assert "published_at" not in hits[1]
    assert "Rust's asynchronous runtime model" in hits[2]["description"]


def test_form_and_shared_network_settings(cfg, page):
    config = cfg(web={"user_agent": "ExampleAgent/2.0", "providers": {"http": {"timeout": 7}}})
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, text=page("ddg_results.html"))
        dispatch_search("rust async await", 3, backend="ddg_html", config=config)
    request = route.calls.last.request
    assert _form(request) == {"q": "rust async await", "b": ""}
    assert request.headers["User-Agent"] == "ExampleAgent/2.0"
    assert request.headers["Referer"] == "https://html.duckduckgo.com/"
    assert request.extensions["timeout"]["read"] == 7


def _ddg_with_bangs(page_text: str):
    """DuckDuckGo's answer to the form: a word starting with ``!`` is a bang, answered with a
    303 to that site's own search (``!w`` Wikipedia); a quoted one is searched as a word."""

    def answer(request: httpx.Request) -> httpx.Response:
        if any(word.startswith("!") for word in _form(request)["q"].split()):
            return httpx.Response(303, headers={"Location": "https://en.wikipedia.org/wiki/Special:Search?search=rust"})
        return httpx.Response(200, text=page_text, headers={"Content-Type": "text/html; charset=utf-8"})

    return answer


@pytest.mark.parametrize("query", ["rust async !w", "!g rust async", "rust ! async"])
def test_a_bang_in_the_query_is_searched_not_followed_to_another_site(cfg, page, dns, query):
    """A bang makes DuckDuckGo redirect the search to another site, which was then fetched from
    this machine with the query and read as a page of DuckDuckGo's (parse_error), or failed to
    resolve (network_error): quoted, it is searched as a word."""
    dns.answer("en.wikipedia.org", "93.184.216.34")
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).mock(side_effect=_ddg_with_bangs(page("ddg_results.html")))
        elsewhere = mock.get(host="en.wikipedia.org").respond(200, text="<html><body>Wikipedia</body></html>")
        envelope = dispatch_search(query, 3, backend="ddg_html", config=cfg())
    assert envelope["success"] is True and envelope["data"]["web"], envelope
    assert not elsewhere.called
    bang = next(word for word in query.split() if word.startswith("!"))
    assert f"'{bang}'" in _form(route.calls.last.request)["q"].split()


def test_a_leading_backslash_is_searched_not_followed_to_the_first_result(cfg, page, dns):
    """``\\word`` first in a query is DuckDuckGo's "I'm feeling ducky": a redirect to its first
    result's page, which was fetched and read as a results page (parse_error). In double quotes
    it is searched."""
    dns.answer("www.latex-project.org", "93.184.216.34")

    def answer(request: httpx.Request) -> httpx.Response:
        if _form(request)["q"].lstrip().startswith("\\"):
            return httpx.Response(303, headers={"Location": "https://www.latex-project.org/help/documentation/"})
        return httpx.Response(200, text=page("ddg_results.html"), headers={"Content-Type": "text/html; charset=utf-8"})

    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).mock(side_effect=answer)
        first_result = mock.get(host="www.latex-project.org").respond(200, text="<html><body>LaTeX</body></html>")
        envelope = dispatch_search("\\frac latex", 3, backend="ddg_html", config=cfg())
    assert envelope["success"] is True and envelope["data"]["web"], envelope
    assert not first_result.called
    assert _form(route.calls.last.request)["q"] == '"\\frac" latex'


def test_a_query_longer_than_duckduckgo_takes_is_invalid_input_and_never_sent(cfg, page):
    """DuckDuckGo answers no query over 499 characters (searches with one time out instead),
    which counted against ddg_html's health and was retried; a long query is the caller's to
    shorten. The domain filters count, as they go into the query."""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, text=page("ddg_results.html"))
        longest = dispatch_search("a" * 499, 3, backend="ddg_html", config=cfg())
        assert longest["success"] is True, longest
        envelopes = [
            dispatch_search("a" * 500, 3, backend="ddg_html", config=cfg()),
            dispatch_search("a" * 480, 3, backend="ddg_html", config=cfg(), include_domains=["docs.python.org"]),
        ]
    assert route.call_count == 1
    for envelope in envelopes:
        assert envelope["success"] is False and envelope["error_code"] == "invalid_input", envelope
        assert "at most 499 characters" in envelope["error"]


def test_a_results_page_over_its_cap_is_too_large_unparsed(cfg, page):
    """A results page is tens of kilobytes; one of megabytes (parsed, some twenty times its
    size in memory, and seconds of the caller's loop) is refused at its cap, which
    ``max_response_bytes`` raises."""
    real = page("ddg_results.html")
    padded = real.replace("</body>", "<div>" + "<p>filler</p>" * 200_000 + "</div></body>")
    assert len(padded.encode()) > 2_000_000
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, text=padded, headers={"Content-Type": "text/html; charset=UTF-8"})
        refused = dispatch_search("rust async await", 5, backend="ddg_html", config=cfg())
        raised = cfg(web={"providers": {"ddg_html": {"max_response_bytes": 4_000_000}}})
        read = dispatch_search("rust async await", 5, backend="ddg_html", config=raised)
    assert refused["error_code"] == "too_large"
    assert "web.providers.ddg_html.max_response_bytes" in refused["error"]
    assert read["success"] and read["data"]["web"][0]["url"] == "https://doc.rust-lang.org/book/ch17-00-async-await.html"


def test_own_timeout_beats_the_http_provider_one(cfg, page):
    config = cfg(web={"providers": {"http": {"timeout": 7}, "ddg_html": {"timeout": 4}}})
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, text=page("ddg_results.html"))
        dispatch_search("rust", 3, backend="ddg_html", config=config)
    assert route.calls.last.request.extensions["timeout"]["read"] == 4


def test_common_options_map_to_form_fields(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, text=page("ddg_results.html"))
        envelope = dispatch_search(
            "rust async",
            5,
            backend="ddg_html",
            config=cfg(),
            time_range="week",
            safe_search="strict",
            country="CH",
            lang="fr",
            include_domains=["rust-lang.org", "tokio.rs"],
            exclude_domains=["reddit.com"],
        )
    assert envelope["success"] is True
    assert "warnings" not in envelope["meta"]
    form = _form(route.calls.last.request)
    assert form["df"] == "w"
    assert form["kp"] == "1"
    assert form["kl"] == "ch-fr"
    assert form["q"] == "rust async (site:rust-lang.org OR site:tokio.rs) -site:reddit.com"


def test_safe_search_off_and_moderate(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, text=page("ddg_results.html"))
        dispatch_search("q", 3, backend="ddg_html", config=cfg(), safe_search="off")
        off = _form(route.calls.last.request)
        dispatch_search("q", 3, backend="ddg_html", config=cfg(), safe_search="moderate")
        moderate = _form(route.calls.last.request)
    assert off["kp"] == "-2" and moderate["kp"] == "-1"


def test_region_table(plugin_module):
    form = plugin_module("ddg_html", "form")
    assert form.region("gb", None) == "uk-en"
    assert form.region("es", None) == "es-es"
    assert form.region("ca", "fr") == "ca-fr"
    assert form.region("tw", "zh") == "tw-tzh"
    assert form.region(None, "ja") == "jp-jp"
    assert form.region(None, "de") == "de-de"
    # Traditional Chinese without a region: the mainland's cn-zh region is simplified Chinese.
    assert form.region(None, "zh-Hant") == "tw-tzh"
    assert form.region(None, "zh-Hans") == "cn-zh"
    assert form.region(None, None) is None


def test_unknown_region_is_a_warning_not_a_guess(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, text=page("ddg_results.html"))
        envelope = dispatch_search("q", 3, backend="ddg_html", config=cfg(), country="zz")
    assert envelope["success"] is True
    assert "kl" not in _form(route.calls.last.request)
    assert any("no DuckDuckGo region for country 'zz'" in w for w in envelope["meta"]["warnings"])


def test_ads_are_dropped_and_redirect_links_decoded(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, text=page("ddg_ads_redirects.html"))
        envelope = dispatch_search("running shoes", 10, backend="ddg_html", config=cfg())
    urls = [hit["url"] for hit in envelope["data"]["web"]]
    assert urls == [
        "https://www.runnersworld.com/gear/a20856623/best-running-shoes/?utm_source=ddg&page=2",
        "https://en.wikipedia.org/wiki/Sneakers",
        "https://www.rei.com/learn/expert-advice/running-shoes.html",
    ]
    assert not any(
        "Sale" in hit["title"] or "TrailGear" in hit["title"] for hit in envelope["data"]["web"]
    )
    assert envelope["data"]["web"][2]["description"].startswith("Learn how to choose running shoes")


def test_result_url_decoding(plugin_module):
    parse = plugin_module("ddg_html", "parse")
    assert (
        parse.result_url("//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&rut=ab")
        == "https://example.com/a?b=1"
    )
    assert (
        parse.result_url("/l/?uddg=https%3A%2F%2Fexample.org%2F&rut=cd") == "https://example.org/"
    )
    assert parse.result_url("https://duckduckgo.com/y.js?ad_domain=x.example&u3=abc") is None
    assert parse.result_url("https://example.net/page") == "https://example.net/page"


def test_page_without_organic_results_is_an_empty_success(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, text=page("ddg_no_results.html"))
        envelope = dispatch_search("qzxv flurbnog wexlotrime", 5, backend="ddg_html", config=cfg())
    assert envelope["success"] is True
    assert envelope["data"]["web"] == []


def test_no_results_page_eof_entry_is_not_a_hit(plugin_module, page):
    parse = plugin_module("ddg_html", "parse")
    result = parse.parse_page(page("ddg_no_results.html"))
    assert (result.hits, result.next_form) == ([], None)
    assert parse.is_search_handoff("http://www.google.com/search?hl=en&q=qzxv")
    assert parse.is_search_handoff("https://google.co.uk/search?q=qzxv")
    assert not parse.is_search_handoff("https://support.google.com/websearch/answer/134479")
    assert not parse.is_search_handoff("https://www.googleblog.com/search?q=x")


def test_paging_into_a_no_results_page_adds_no_hit(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL)
        route.side_effect = [
            httpx.Response(200, text=page("ddg_results.html")),
            httpx.Response(200, text=page("ddg_no_results.html")),
        ]
        envelope = dispatch_search("rust async await", 10, backend="ddg_html", config=cfg())
    assert route.call_count == 2
    urls = [hit["url"] for hit in envelope["data"]["web"]]
    assert len(urls) == 5
    assert not any("google.com" in url for url in urls)


def test_each_later_page_takes_a_slot_of_the_request_budget(cfg, page):
    """DuckDuckGo challenges bursts: the next page waits for its own slot of the budget (1/s by
    default). With one a minute it is not asked for, and the first page's hits come back with
    the reason. Before, every page of a call went out under the call's one slot."""
    config = cfg(web={"providers": {"ddg_html": {"rate_limit": "1/min"}}})
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, text=page("ddg_results.html"))
        envelope = dispatch_search("rust async await", 10, backend="ddg_html", config=config, timeout=3)
    assert envelope["success"] is True, envelope
    assert route.call_count == 1 and len(envelope["data"]["web"]) == 5
    [said] = envelope["meta"]["warnings"]
    assert "request budget had no slot for it in time" in said and "(1/min)" in said


@pytest.mark.parametrize("status", [200, 202])
def test_a_challenged_later_page_keeps_the_hits_read(cfg, page, status):
    """A challenge on the second page ends the paging; the first page's hits are the answer,
    said to be partial, as every paged provider's are. Before, the whole call failed
    ``blocked`` with five hits in hand."""
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL)
        route.side_effect = [
            httpx.Response(200, text=page("ddg_results.html")),
            httpx.Response(status, text=page("ddg_anomaly.html")),
        ]
        envelope = dispatch_search("rust async await", 10, backend="ddg_html", config=cfg())
    assert envelope["success"] is True, envelope
    assert route.call_count == 2 and len(envelope["data"]["web"]) == 5
    [said] = envelope["meta"]["warnings"]
    assert "the next page of results was not read, as it failed (blocked" in said


def test_no_results_page_lets_a_chain_fail_over_on_empty(cfg, page):
    config = cfg(web={"search_backend": ["ddg_html", "baidu_html"], "failover_on_empty": True})
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, text=page("ddg_no_results.html"))
        mock.get("https://www.baidu.com/s").respond(200, text=page("baidu_results.html"))
        envelope = dispatch_search("qzxv flurbnog wexlotrime", 3, config=config)
    assert envelope["success"] is True
    assert envelope["provider"] == "baidu_html"
    assert [a["provider"] for a in envelope["meta"]["attempts"]] == ["ddg_html", "baidu_html"]


def test_anomaly_page_is_blocked_captcha(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, text=page("ddg_anomaly.html"))
        envelope = dispatch_search("rust async await", 5, backend="ddg_html", config=cfg())
    assert envelope["success"] is False
    assert envelope["error_code"] == "blocked"
    assert envelope["detail"] == "captcha_required"
    assert envelope["retryable"] is True


def test_http_202_is_blocked_captcha(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(202, text=page("ddg_anomaly.html"))
        envelope = dispatch_search("rust", 5, backend="ddg_html", config=cfg())
    assert (envelope["error_code"], envelope["detail"]) == ("blocked", "captcha_required")
    assert "202" in envelope["error"]


def test_403_is_blocked_http_403(cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(403, text="<html><body>Forbidden</body></html>")
        envelope = dispatch_search("rust", 5, backend="ddg_html", config=cfg())
    assert (envelope["error_code"], envelope["detail"]) == ("blocked", "http_403")


def test_429_is_blocked_http_429_with_retry_after(cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(429, text="Too Many Requests", headers={"Retry-After": "30"})
        envelope = dispatch_search("rust", 5, backend="ddg_html", config=cfg())
    assert (envelope["error_code"], envelope["detail"]) == ("blocked", "http_429")
    assert envelope["retry_after"] == 30


def test_5xx_is_bad_gateway(cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(503, text="<html><body>Service Unavailable</body></html>")
        envelope = dispatch_search("rust", 5, backend="ddg_html", config=cfg())
    assert envelope["error_code"] == "bad_gateway"


def test_a_503_with_retry_after_is_not_asked_again_before_then(cfg):
    """The outage's end was ignored: the call asked twice more within a second, and the next
    call three times again."""
    config = cfg()
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(
            503, text="<html><body>Service Unavailable</body></html>", headers={"Retry-After": "120"}
        )
        envelope = dispatch_search("rust", 5, backend="ddg_html", config=config, timeout=10)
        assert envelope["error_code"] == "bad_gateway" and envelope["retry_after"] == 120
        assert "retry after 120 s" in envelope["error"]
        again = dispatch_search("rust", 5, backend="ddg_html", config=config, timeout=10)
    assert again["error_code"] == "rate_limited" and again["retry_after"] > 100
    assert route.call_count == 1


def test_unrecognised_page_is_a_parse_error_not_an_empty_success(cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(
            200, text="<html><body><div class='new-layout'>Results moved</div></body></html>"
        )
        envelope = dispatch_search("rust", 5, backend="ddg_html", config=cfg())
    assert envelope["success"] is False
    assert envelope["error_code"] == "parse_error"


def test_next_page_form_is_replayed_until_limit(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL)
        route.side_effect = [
            httpx.Response(200, text=page("ddg_results.html")),
            httpx.Response(200, text=page("ddg_results_page2.html")),
        ]
        envelope = dispatch_search(
            "rust async await", 7, backend="ddg_html", config=cfg(), time_range="month"
        )
    assert route.call_count == 2
    second = _form(route.calls[1].request)
    assert second["s"] == "10" and second["vqd"] == "4-112233445566778899001122334455667788"
    assert second["df"] == "m"
    urls = [hit["url"] for hit in envelope["data"]["web"]]
    assert len(urls) == 7 and len(set(urls)) == 7
    assert urls[-2:] == [
        "https://docs.rs/futures/latest/futures/",
        "https://without.boats/blog/why-async-rust/",
    ]


def test_base_url_override_against_a_real_local_server(cfg, page, page_server):
    page_server.body = page("ddg_results.html").encode()
    config = cfg(web={"providers": {"ddg_html": {"base_url": page_server.url}}})
    envelope = dispatch_search("rust async await", 2, backend="ddg_html", config=config)
    assert envelope["success"] is True
    assert [h["position"] for h in envelope["data"]["web"]] == [1, 2]
    method, path, body = page_server.requests[-1]
    assert (method, path) == ("POST", "/html/")
    assert b"q=rust+async+await" in body


def test_async_dispatch(cfg, page):
    async def run() -> dict:
        return await adispatch_search("rust async await", 3, backend="ddg_html", config=cfg())

    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, text=page("ddg_results.html"))
        envelope = asyncio.run(run())
    assert envelope["success"] is True
    assert len(envelope["data"]["web"]) == 3


def test_keyless_and_available_without_configuration(cfg):
    from webproviders import list_providers

    row = next(p for p in list_providers(cfg()) if p["name"] == "ddg_html")
    assert row["available"] is True
    assert 80 <= row["priority"] < 90


def test_a_redesigned_results_page_is_a_parse_error_not_an_empty_success(cfg, page):
    """Result blocks whose title link we no longer read, or a results column holding neither
    results nor the no-results notice, came back as "No results" (success, no hits)."""
    redesigned = page("ddg_results.html").replace("result__a", "result-link")
    bare = "<html><body><div id='links' class='results'></div></body></html>"
    for body, sentence in ((redesigned, "result blocks without the title link"), (bare, "neither results nor")):
        with respx.mock(assert_all_called=False) as mock:
            mock.post(URL).respond(200, text=body, headers={"Content-Type": "text/html; charset=UTF-8"})
            envelope = dispatch_search("rust", 5, backend="ddg_html", config=cfg())
        assert envelope["error_code"] == "parse_error" and sentence in envelope["error"], envelope


def test_a_page_that_names_its_charset_only_in_a_meta_tag_is_read_in_it(cfg, page):
    """httpx read a page without a header charset as UTF-8: "Caf� cr�me"."""
    text = page("ddg_results.html").replace("<head>", '<head><meta charset="windows-1252">', 1)
    text = text.replace("Fundamentals of Asynchronous Programming", "Café crème — naïve", 1)
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, content=text.encode("cp1252", "replace"), headers={"Content-Type": "text/html"})
        envelope = dispatch_search("rust", 1, backend="ddg_html", config=cfg())
    assert envelope["data"]["web"][0]["title"].startswith("Café crème — naïve"), envelope


def test_an_option_it_does_not_read_is_named(cfg, page):
    """``region=`` (a ddgs config key, not a search option) did nothing unsaid."""
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, text=page("ddg_results.html"))
        envelope = dispatch_search("q", 3, backend="ddg_html", config=cfg(), region="de-de")
    assert envelope["success"] is True
    said = "ddg_html ignored the option(s) region: it does not know them."
    assert said in envelope["meta"]["warnings"]


def test_a_gateway_s_password_in_base_url_is_sent_as_basic_auth_and_never_in_the_referer(http_server: Any) -> None:
    seen: list[tuple[str, str | None, str | None]] = []

    class Elsewhere(BaseHTTPRequestHandler):  # another site, which the gateway redirects to
        def do_GET(self) -> None:
            seen.append(("elsewhere", self.headers.get("Referer"), self.headers.get("Authorization")))
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    elsewhere = http_server(Elsewhere).server_address[1]

    class Gateway(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            seen.append(("gateway", self.headers.get("Referer"), self.headers.get("Authorization")))
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{elsewhere}/sign-in")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    gateway = http_server(Gateway).server_address[1]
    config = config_from_dict(
        {
            "web": {
                "allow_private_networks": True,
                "retry": {"max_retries": 0},
                "providers": {"ddg_html": {"base_url": f"http://ddg:gw-pass-0123456789@127.0.0.1:{gateway}"}},
            }
        },
        source="<test>",
    )
    dispatch_search("rust async await", backend="ddg_html", config=config)
    basic = "Basic " + base64.b64encode(b"ddg:gw-pass-0123456789").decode()
    assert seen == [
        ("gateway", f"http://127.0.0.1:{gateway}/", basic),
        ("elsewhere", f"http://127.0.0.1:{gateway}/", None),
    ]
