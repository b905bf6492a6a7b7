"""What every keyed vendor does alike: quote a plain-text error body, send web.user_agent.

Gateways, proxies and some vendors answer an error with plain text ("upstream connect error",
"Too Many Requests") instead of their JSON error object. The keyed vendors are read from the
plugin manifests, so a vendor added later is covered without touching this file.
"""

from __future__ import annotations

from typing import Any

import pytest
import respx

from webproviders import dispatch_extract, dispatch_search
from webproviders.config import Config
from webproviders.registry.providers import get_registry

from .helpers import assert_failure, assert_no_secret

KEY = "plain-text-test-key-0123456789abcdef"
#: Values for the ``web.providers.<name>`` keys a manifest's env vars stand in for.
SETTING_VALUES = {
    "api_key": KEY,
    "base_url": "http://127.0.0.1:8888",
    "cx": "017576662512468239146:omuauf_lfve",
}


def _keyed_vendors() -> list[str]:
    """Providers whose manifest takes an API key and that search a vendor (not an offline index)."""
    registry = get_registry(Config())
    return [
        entry.manifest.name
        for entry in registry.entries()
        if any(var.config_key == "api_key" for var in entry.manifest.env)
        and entry.manifest.tag != "offline"
        and "search" in entry.manifest.capabilities
    ]


def _config(name: str, **web: Any) -> Config:
    registry = get_registry(Config())
    entry = registry.get(name)
    assert entry is not None
    settings = {
        var.config_key: SETTING_VALUES[var.config_key]
        for var in entry.manifest.env
        if var.config_key in SETTING_VALUES
    }
    return Config.model_validate(
        {"web": {"retry": {"max_retries": 0}, "cache": False, "providers": {name: settings}, **web}}
    )


KEYED = _keyed_vendors()


def test_the_keyed_vendors_are_found() -> None:
    assert {"brave", "tavily", "exa", "firecrawl", "parallel", "serpapi"} <= set(KEYED)


@pytest.mark.parametrize("name", KEYED)
@pytest.mark.parametrize(
    ("status", "text", "code"),
    [
        (429, "Too Many Requests: slow down and retry in a moment", "rate_limited"),
        (503, "upstream connect error or disconnect/reset before headers", "bad_gateway"),
        (401, f"Unauthorized: the key {KEY} is not valid", "auth_error"),
    ],
    ids=["429", "503", "401"],
)
def test_plain_text_error_body_is_quoted(name: str, status: int, text: str, code: str) -> None:
    with respx.mock(assert_all_called=False) as router:
        route = router.route().respond(
            status, text=text, headers={"Content-Type": "text/plain; charset=utf-8"}
        )
        envelope = dispatch_search("plain text errors", backend=name, config=_config(name))
    assert route.called
    assert_failure(envelope, code)
    assert_no_secret(envelope, KEY)
    expected = text.replace(KEY, "***")
    assert f'"{expected}"' in envelope["error"], envelope["error"]


@pytest.mark.parametrize("name", KEYED)
def test_a_503_with_retry_after_is_not_asked_again_before_then(name: str) -> None:
    """Down for two minutes, the vendor says: the call was retried at once and did not say
    when to come back (a 429's Retry-After was read, a 503's was not)."""
    config = _config(name, retry={"max_retries": 2, "backoff": 0.01})
    with respx.mock(assert_all_called=False) as router:
        route = router.route().respond(
            503,
            text="Service Unavailable: down for maintenance",
            headers={"Content-Type": "text/plain", "Retry-After": "120"},
        )
        envelope = dispatch_search("maintenance", backend=name, config=config, timeout=5)
    assert_failure(envelope, "bad_gateway")
    assert envelope["retry_after"] == 120
    assert "Retry after 120 s." in envelope["error"], envelope["error"]
    assert route.call_count == 1


@pytest.mark.parametrize("name", KEYED)
def test_a_503_s_rate_limit_headers_do_not_hold_its_retry(name: str) -> None:
    """Rate-limit reset headers, which some vendors send on every answer, say when a request
    budget refills, not when an outage ends: a 503 carrying only them is retried as before."""
    config = _config(name, retry={"max_retries": 1, "backoff": 0.01})
    with respx.mock(assert_all_called=False) as router:
        route = router.route().respond(
            503,
            text="Service Unavailable",
            headers={"Content-Type": "text/plain", "x-ratelimit-reset-requests": "6m0s"},
        )
        envelope = dispatch_search("overloaded", backend=name, config=config, timeout=5)
    assert_failure(envelope, "bad_gateway")
    assert envelope.get("retry_after") is None
    assert route.call_count == 2


def test_an_html_error_page_is_not_quoted() -> None:
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>"
    with respx.mock(assert_all_called=False) as router:
        router.route().respond(502, text=page, headers={"Content-Type": "text/html"})
        envelope = dispatch_search("html error", backend="serper", config=_config("serper"))
    assert_failure(envelope, "bad_gateway")
    assert "<html>" not in envelope["error"] and "The response said" not in envelope["error"]


@pytest.mark.parametrize("name", KEYED)
def test_requests_carry_the_configured_user_agent(name: str) -> None:
    config = _config(name, user_agent="ExampleAgent/2.0")
    with respx.mock(assert_all_called=False) as router:
        route = router.route().respond(503, text="down for maintenance")
        dispatch_search("user agent", backend=name, config=config)
    assert route.called
    assert {call.request.headers["user-agent"] for call in route.calls} == {"ExampleAgent/2.0"}


@pytest.mark.parametrize("name", KEYED)
def test_an_option_the_vendor_does_not_read_is_named(name: str) -> None:
    """A typo (serper's ``locaton=``) did nothing unsaid on the raw-HTTP vendors, while the
    SDK vendors named it; every keyed vendor names it now."""
    with respx.mock(assert_all_called=False) as router:
        router.route().respond(503, text="down for maintenance")
        envelope = dispatch_search("q", backend=name, config=_config(name), colour="blue")
    said = f"{name} ignored the option(s) colour: it does not know them."
    assert said in envelope["meta"].get("warnings", []), envelope["meta"]


@pytest.mark.parametrize(
    ("name", "option"),
    [("bocha", "summary"), ("you", "include_news"), ("jina", "include_content"), ("linkup", "render_js")],
)
def test_a_switch_given_as_text_is_refused_before_sending(name: str, option: str) -> None:
    """They were read with ``bool()``, and ``bool("false")`` is True: ``render_js="false"``
    turned Linkup's JavaScript rendering on (five times the price), ``include_content="false"``
    had Jina read the page of every hit."""
    with respx.mock(assert_all_called=False) as router:
        route = router.route().respond(200, json={})
        if name == "linkup":
            envelope = dispatch_extract(["https://example.com"], backend=name, config=_config(name), render_js="false")
        else:
            envelope = dispatch_search("q", backend=name, config=_config(name), **{option: "false"})
    assert envelope["error_code"] == "invalid_input", envelope
    assert envelope["error"] == f"{name}'s option {option} must be true or false, not str."
    assert route.call_count == 0
