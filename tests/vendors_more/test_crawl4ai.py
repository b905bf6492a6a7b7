"""crawl4ai: extract and crawl through an injected stand-in for the crawl4ai package."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import pytest

from webproviders import dispatch_crawl, dispatch_extract, list_providers

from .fake_crawl4ai import Markdown, Result, Site, page
from .helpers import assert_failure

PRIVATE_NAME = "intranet.example.com"


PUBLIC_NAMES = ("docs.example.com", "example.com", "www.example.com", "gone.example.net", "other.example.org")


@pytest.fixture(autouse=True)
def names(dns: Any) -> Any:
    """The sites' names resolve to a public address; one name points into a private network."""
    for name in PUBLIC_NAMES:
        dns.answer(name, "93.184.216.34")
    dns.answer(PRIVATE_NAME, "10.0.0.7")
    return dns


@pytest.fixture
def install(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``install(site)`` puts the stand-in module where ``import crawl4ai`` finds it."""

    def put(site: Site) -> Site:
        monkeypatch.setitem(sys.modules, "crawl4ai", site.module())
        return site

    return put


SITE = {
    "https://docs.example.com/": page(
        "https://docs.example.com/",
        "Docs home",
        "Welcome.",
        [
            "https://docs.example.com/a",
            "/b",
            "https://docs.example.com/a#section",
            "https://other.example.org/x",
        ],
    ),
    "https://docs.example.com/a": page(
        "https://docs.example.com/a", "Page A", "Alpha.", ["/c", "/"]
    ),
    "https://docs.example.com/b": page("https://docs.example.com/b", "Page B", "Beta."),
    "https://docs.example.com/c": page("https://docs.example.com/c", "Page C", "Gamma.", ["/d"]),
    "https://docs.example.com/d": page("https://docs.example.com/d", "Page D", "Delta."),
}


def test_not_installed_is_unavailable_with_setup_instructions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "crawl4ai", None)  # hidden, whether installed or not
    assert importlib.util.find_spec("crawl4ai") is None
    row = next(r for r in list_providers() if r["name"] == "crawl4ai")
    assert row["available"] is False
    assert "webproviders[crawl4ai]" in row["reason"] and "crawl4ai-setup" in row["reason"]

    envelope = dispatch_extract("https://example.com", backend="crawl4ai")

    assert_failure(envelope, "not_configured")
    assert "crawl4ai-setup" in envelope["error"]


def test_installed_means_available_for_extract_and_crawl(install: Any) -> None:
    install(Site({}))

    row = next(r for r in list_providers() if r["name"] == "crawl4ai")

    assert row["available"] is True
    assert row["capabilities"] == ["extract", "crawl"]


def test_extract_returns_markdown_pages_in_request_order(install: Any, dispatch: Any) -> None:
    site = install(Site(SITE))
    urls = ["https://docs.example.com/a", "https://docs.example.com/b"]

    envelope = dispatch("extract", urls, backend="crawl4ai")

    assert envelope["success"] is True, envelope
    a, b = envelope["data"]
    assert (a["url"], a["title"], a["content"]) == (
        "https://docs.example.com/a",
        "Page A",
        "# Page A\n\nAlpha.",
    )
    assert a["raw_content"] is None
    assert a["metadata"] == {"description": "About Page A", "status_code": 200}
    assert b["title"] == "Page B"
    assert site.batches == [urls]
    [crawler] = site.crawlers
    assert crawler.open is False, "the browser must be closed after the call"
    assert crawler.config.kwargs["headless"] is True


def test_run_config_bypasses_the_cache_and_bounds_page_time(install: Any) -> None:
    site = install(Site(SITE))

    dispatch_extract("https://docs.example.com/a", backend="crawl4ai", timeout=20)

    [config] = site.run_configs
    assert config.kwargs["cache_mode"].name == "BYPASS"
    assert 1000 <= config.kwargs["page_timeout"] <= 18000


def test_page_timeout_comes_from_config(install: Any, make_config: Any) -> None:
    site = install(Site(SITE))
    config = make_config(web={"providers": {"crawl4ai": {"page_timeout": 5}}})

    dispatch_extract("https://docs.example.com/a", backend="crawl4ai", config=config, timeout=60)

    assert site.run_configs[0].kwargs["page_timeout"] == 5000


@pytest.mark.parametrize("value", ["soon", 0, -5])
def test_a_page_timeout_that_is_no_number_of_seconds_is_not_configured(
    install: Any, make_config: Any, value: Any
) -> None:
    """``page_timeout`` is read as every vendor setting is: ``"soon"`` failed the call as the
    browser's ``provider_error``, and 0 reached it as "no timeout at all"."""
    install(Site(SITE))
    config = make_config(web={"providers": {"crawl4ai": {"page_timeout": value}}})
    envelope = dispatch_extract("https://docs.example.com/a", backend="crawl4ai", config=config, timeout=60)
    assert envelope["error_code"] == "not_configured", envelope
    assert "web.providers.crawl4ai.page_timeout" in envelope["error"]


def test_network_settings_reach_the_browser(install: Any, make_config: Any) -> None:
    site = install(Site(SITE))
    config = make_config(
        web={"user_agent": "ExampleBot/1.0", "proxy": "http://proxy.example.net:3128"}
    )

    dispatch_extract("https://docs.example.com/a", backend="crawl4ai", config=config)

    kwargs = site.crawlers[0].config.kwargs
    assert kwargs["user_agent"] == "ExampleBot/1.0"
    assert kwargs["proxy_config"] == {"server": "http://proxy.example.net:3128"}


def test_a_proxy_s_credentials_reach_the_browser_apart_from_its_address(install: Any, make_config: Any) -> None:
    """Playwright takes a proxy's user name and password as fields of their own; in the server
    URL they are refused or dropped, and every page then met the proxy's 407."""
    site = install(Site(SITE))
    config = make_config(web={"proxy": "http://office%40corp:p%3Ass%20w@[fd00::5]:3128"})

    dispatch_extract("https://docs.example.com/a", backend="crawl4ai", config=config)

    assert site.crawlers[0].config.kwargs["proxy_config"] == {
        "server": "http://[fd00::5]:3128",
        "username": "office@corp",
        "password": "p:ss w",
    }


def test_fit_markdown_is_preferred_when_a_filter_made_one(install: Any) -> None:
    result = Result(
        url="https://example.com/",
        markdown=Markdown("# Title\n\nNav Nav Nav\n\nMain text.", fit="# Title\n\nMain text."),
        metadata={"title": "Title"},
        redirected_url="https://www.example.com/",
    )
    install(Site({"https://example.com/": result}))

    [item] = dispatch_extract("https://example.com/", backend="crawl4ai")["data"]

    assert item["content"] == "# Title\n\nMain text."
    assert item["raw_content"] == "# Title\n\nNav Nav Nav\n\nMain text."
    assert item["metadata"]["final_url"] == "https://www.example.com/"


def test_failed_pages_are_items_with_their_cause(install: Any) -> None:
    install(
        Site(
            {
                "https://example.com/ok": page("https://example.com/ok", "OK", "Fine."),
                "https://example.com/wall": Result(
                    url="https://example.com/wall",
                    success=False,
                    status_code=403,
                    error_message="Forbidden",
                ),
                "https://example.com/missing": page(
                    "https://example.com/missing", "Not Found", "No such page.", status_code=404
                ),
                "https://example.com/slow": Result(
                    url="https://example.com/slow",
                    success=False,
                    status_code=None,
                    error_message="Page.goto: Timeout 30000ms exceeded.",
                ),
                "https://example.com/empty": Result(
                    url="https://example.com/empty", markdown=Markdown("  ")
                ),
            }
        )
    )
    urls = [
        "https://example.com/ok",
        "https://example.com/wall",
        "https://example.com/missing",
        "https://example.com/slow",
        "https://gone.example.net/",
        "https://example.com/empty",
    ]

    envelope = dispatch_extract(urls, backend="crawl4ai")

    assert envelope["success"] is True
    items = envelope["data"]
    assert [i.get("error_code") for i in items] == [
        None,
        "blocked",
        "not_found",
        "timeout",
        "network_error",
        "provider_error",
    ]
    assert items[1]["url"] == "https://example.com/wall"
    assert "404" in items[2]["error"]


@pytest.mark.parametrize(
    ("status", "reason", "code"),
    [
        (200, "DataDome captcha", "blocked"),
        (503, "Cloudflare JS challenge", "blocked"),
        (200, "Structural: no <body> tag (1200 bytes)", "provider_error"),
        (503, "HTTP 503 with HTML content (80671 bytes)", "provider_error"),
    ],
)
def test_a_page_crawl4ai_found_to_be_a_bot_challenge_is_blocked(
    install: Any, status: int, reason: str, code: str
) -> None:
    """crawl4ai's anti-bot detector fails a page that is a protection's challenge or block
    page, keeping its status (often 200): that is ``blocked``, as a 403 is, not a provider
    failure. Its guesses that name no protection (a page with little structure, an error
    status with HTML) stay what they were."""
    install(
        Site(
            {
                "https://example.com/guarded": Result(
                    url="https://example.com/guarded",
                    success=False,
                    status_code=status,
                    markdown=Markdown("One moment, please..."),
                    error_message=f"Blocked by anti-bot protection: {reason}",
                )
            }
        )
    )
    envelope = dispatch_extract(["https://example.com/guarded"], backend="crawl4ai")
    assert envelope["success"] is False
    assert envelope["error_code"] == code
    if code == "blocked":
        assert envelope["detail"] == "captcha_required"
        assert reason in envelope["error"]


def test_an_exception_crawl4ai_reports_is_told_without_its_code_context(install: Any) -> None:
    """crawl4ai reports an exception it caught with the place in its code, lines of that code
    and the browser's call log around the error: only the error reaches the caller."""
    report = (
        "Unexpected error in _crawl_web at line 744 in _crawl_web "
        "(/venv/lib/python3.12/site-packages/crawl4ai/async_crawler_strategy.py):\n"
        "Error: Failed on navigating ACS-GOTO:\n"
        "Page.goto: net::ERR_NAME_NOT_RESOLVED at https://example.com/down\n"
        "Call log:\n  - navigating to \"https://example.com/down\", waiting until \"domcontentloaded\"\n"
        "\n\nCode context:\n 739           try:\n 740               response = await page.goto(\n"
        " 741                   url, wait_until=config.wait_until, timeout=config.page_timeout\n"
    )
    install(
        Site(
            {
                "https://example.com/down": Result(
                    url="https://example.com/down", success=False, status_code=None, error_message=report
                )
            }
        )
    )
    envelope = dispatch_extract(["https://example.com/down"], backend="crawl4ai")
    assert envelope["error_code"] == "network_error"
    assert envelope["error"] == (
        "The browser could not reach the page: Failed on navigating ACS-GOTO: "
        "Page.goto: net::ERR_NAME_NOT_RESOLVED at https://example.com/down"
    )


def test_private_targets_never_reach_the_browser(install: Any) -> None:
    site = install(Site(SITE))
    urls = [
        "https://docs.example.com/a",
        "http://127.0.0.1:8080/admin",
        f"https://{PRIVATE_NAME}/wiki",
    ]

    envelope = dispatch_extract(urls, backend="crawl4ai")

    assert [i.get("error_code") for i in envelope["data"]] == [None, "unsafe_url", "unsafe_url"]
    assert site.batches == [["https://docs.example.com/a"]]


def test_private_targets_are_allowed_when_configured(install: Any, make_config: Any) -> None:
    target = f"https://{PRIVATE_NAME}/wiki"
    site = install(Site({target: page(target, "Wiki", "Internal.")}))
    config = make_config(web={"allow_private_networks": True})

    envelope = dispatch_extract(target, backend="crawl4ai", config=config)

    assert envelope["data"][0]["title"] == "Wiki"
    assert site.batches == [[target]]


def test_a_missing_browser_says_to_run_setup(install: Any) -> None:
    install(
        Site(
            SITE,
            launch_error=(
                "BrowserType.launch: Executable doesn't exist at "
                "/root/.cache/ms-playwright/chromium-1148/chrome-linux/chrome\n"
                "Looks like Playwright was just installed or updated. "
                "Please run: playwright install"
            ),
        )
    )

    envelope = dispatch_extract("https://docs.example.com/a", backend="crawl4ai")

    assert_failure(envelope, "not_configured")
    assert "crawl4ai-setup" in envelope["error"]


def test_other_browser_failures_are_provider_errors(install: Any) -> None:
    install(Site(SITE, launch_error="Target page, context or browser has been closed"))

    assert_failure(
        dispatch_extract("https://docs.example.com/a", backend="crawl4ai"), "provider_error"
    )


def test_crawl_walks_same_host_links_breadth_first(install: Any, dispatch: Any) -> None:
    site = install(Site(SITE))

    envelope = dispatch("crawl", "https://docs.example.com/", backend="crawl4ai", max_depth=2)

    assert envelope["success"] is True, envelope
    assert [(p["url"], p["metadata"]["depth"]) for p in envelope["data"]] == [
        ("https://docs.example.com/", 0),
        ("https://docs.example.com/a", 1),
        ("https://docs.example.com/b", 1),
        ("https://docs.example.com/c", 2),
    ]
    assert site.batches == [
        ["https://docs.example.com/"],
        ["https://docs.example.com/a", "https://docs.example.com/b"],
        ["https://docs.example.com/c"],
    ]


def test_crawl_stops_at_max_pages(install: Any) -> None:
    site = install(Site(SITE))

    envelope = dispatch_crawl("https://docs.example.com/", backend="crawl4ai", max_pages=2)

    assert [p["url"] for p in envelope["data"]] == [
        "https://docs.example.com/",
        "https://docs.example.com/a",
    ]
    assert site.batches[-1] == ["https://docs.example.com/a"]


def test_options_the_browser_does_not_read_are_named(install: Any) -> None:
    """A crawl asked to respect robots.txt or stay under a path, or an extract asked for plain
    text, was read without them and without a word; the answer now says what was not applied."""
    install(Site(SITE))

    crawl = dispatch_crawl(
        "https://docs.example.com/", backend="crawl4ai", max_pages=2, respect_robots=True, include=["/a*"]
    )
    extract = dispatch_extract(
        ["https://docs.example.com/a"], backend="crawl4ai", format="text", max_chars=50
    )

    assert crawl["success"] is True and len(crawl["data"]) == 2
    assert crawl["meta"]["warnings"] == [
        "crawl4ai ignored the option(s) include, respect_robots: it does not know them."
    ]
    assert extract["success"] is True
    assert extract["meta"]["warnings"] == ["crawl4ai ignored the option(s) format: it does not know them."]


@pytest.mark.parametrize("options", [{"max_pages": 0}, {"max_pages": "ten"}, {"max_depth": -1}])
def test_crawl_rejects_bad_limits(install: Any, options: dict[str, Any]) -> None:
    site = install(Site(SITE))

    assert_failure(
        dispatch_crawl("https://docs.example.com/", backend="crawl4ai", **options), "invalid_input"
    )
    assert site.crawlers == []


def test_crawl_refuses_a_private_start_url(install: Any) -> None:
    site = install(Site(SITE))

    assert_failure(dispatch_crawl("http://localhost:3000/", backend="crawl4ai"), "unsafe_url")
    assert site.crawlers == []


def test_crawl_hands_the_browser_no_link_that_a_browser_reads_as_another_host(install: Any) -> None:
    """``http://127.0.0.1\\@docs.example.com/`` is on the start URL's host as Python's parser
    reads it, but a browser takes the backslash for a slash and goes to 127.0.0.1: such a link
    went to the browser unchecked. Every link now gets the start URL's screen first."""
    tricks = ["http://127.0.0.1\\@docs.example.com/admin", "//169.254.169.254\\@docs.example.com/latest"]
    start = "https://docs.example.com/"
    site = install(Site({start: page(start, "Docs home", "Welcome.", ["/a", *tricks])}))

    envelope = dispatch_crawl(start, backend="crawl4ai", max_depth=1)

    assert envelope["success"] is True, envelope
    assert site.batches == [[start], ["https://docs.example.com/a"]]


def test_a_page_the_browser_was_redirected_to_inside_is_not_returned(install: Any, dispatch: Any) -> None:
    """The browser follows redirects itself: a public page that redirected it to the metadata
    address had that address's answer returned as the page's content."""
    start, public = "https://docs.example.com/", "https://docs.example.com/a"
    inside = page(start, "Credentials", "AccessKeyId SECRET", ["/a"])
    inside.redirected_url = "http://169.254.169.254/latest/meta-data/"
    moved = page(public, "Moved", "Still public.")
    moved.redirected_url = "https://www.example.com/a"
    install(Site({start: inside, public: moved}))

    extract = dispatch("extract", [start, public], backend="crawl4ai")
    crawl = dispatch("crawl", start, backend="crawl4ai")

    refused, kept = extract["data"]
    assert refused["error_code"] == "unsafe_url"
    assert refused["error"].startswith(f"The browser was redirected from {start}, and its page is not returned:")
    assert "169.254.169.254 is a cloud metadata address" in refused["error"]
    assert kept["title"] == "Moved" and kept["metadata"]["final_url"] == "https://www.example.com/a"
    assert crawl["success"] is False and crawl["error_code"] == "unsafe_url"
    assert "SECRET" not in str(extract) + str(crawl)


def test_a_redirect_inside_is_returned_when_private_networks_are_allowed(install: Any, make_config: Any) -> None:
    start = "https://docs.example.com/"
    wiki = page(start, "Wiki", "Internal.")
    wiki.redirected_url = f"https://{PRIVATE_NAME}/wiki"
    install(Site({start: wiki}))

    envelope = dispatch_extract(start, backend="crawl4ai", config=make_config(web={"allow_private_networks": True}))

    assert envelope["data"][0]["title"] == "Wiki"
    assert envelope["data"][0]["metadata"]["final_url"] == f"https://{PRIVATE_NAME}/wiki"


def test_crawl_returns_pages_so_far_when_the_deadline_nears(install: Any) -> None:
    install(Site(SITE, slow_after=1))

    envelope = dispatch_crawl("https://docs.example.com/", backend="crawl4ai", timeout=3.5)

    assert envelope["success"] is True, envelope
    assert [p["url"] for p in envelope["data"]] == ["https://docs.example.com/"]
    assert any("deadline" in w for w in envelope["meta"]["warnings"])
