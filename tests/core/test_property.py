"""Whatever callers pass and providers return, dispatch answers with a valid envelope."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webproviders import dispatch_extract, dispatch_search
from webproviders.models import FailureEnvelope, PagesEnvelope, SearchEnvelope

CHAOS = """
import json
from webproviders import WebSearchProvider

class Chaos(WebSearchProvider):
    name = "chaos"
    runs_inline = True
    def is_available(self):
        return True
    def supports_extract(self):
        return True
    def _reply(self, payload):
        value = json.loads(payload)
        if isinstance(value, dict) and value.get("raise"):
            raise RuntimeError(value["raise"])
        return value
    def search(self, query, limit=5, **options):
        return self._reply(options.get("payload", "[]"))
    def extract(self, urls, **kwargs):
        return self._reply(kwargs.get("payload", "[]"))

def register(ctx):
    ctx.register_web_search_provider(Chaos())
"""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
url_like = st.one_of(
    st.sampled_from(["https://a.example/", "http://b.example/x?y=1", "ftp://c/", "", "javascript:x", "https://"]),
    st.text(max_size=30),
)
hit = st.fixed_dictionaries(
    {},
    optional={
        "title": json_values,
        "url": url_like,
        "href": url_like,
        "description": json_values,
        "snippet": json_values,
        "extra": json_values,
    },
)
provider_return = st.one_of(
    json_values,
    st.lists(hit, max_size=8),
    st.fixed_dictionaries({"web": st.lists(hit, max_size=8)}),
    st.fixed_dictionaries(
        {"success": st.booleans(), "data": st.lists(hit, max_size=4), "error": json_values},
        optional={"error_code": json_values, "detail": json_values, "retry_after": json_values},
    ),
    st.fixed_dictionaries({"raise": st.text(min_size=1, max_size=20)}),
)


@pytest.fixture
def chaos_config(write_plugin: Any, make_config: Any) -> Any:
    root = write_plugin("chaos", CHAOS)
    return make_config(plugins={"paths": [str(root)], "enabled": ["chaos"]})


def _valid(envelope: dict[str, Any], model: Any) -> None:
    json.dumps(envelope)
    if envelope["success"]:
        model.model_validate(envelope)
    else:
        FailureEnvelope.model_validate(envelope)
        assert envelope["error"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    query=st.one_of(st.text(max_size=40), st.integers(), st.none(), st.just(" " * 3), st.text(min_size=2001, max_size=2002)),
    limit=st.one_of(st.integers(-5, 60), st.booleans(), st.floats(), st.text(max_size=3)),
    payload=provider_return,
)
def test_search_never_raises(chaos_config: Any, query: Any, limit: Any, payload: Any) -> None:
    envelope = dispatch_search(query, limit, backend="chaos", config=chaos_config, payload=json.dumps(payload))
    _valid(envelope, SearchEnvelope)
    if envelope["success"]:
        hits = envelope["data"]["web"]
        assert len(hits) <= limit
        assert [h["position"] for h in hits] == list(range(1, len(hits) + 1))
        assert all(h["url"].lower().startswith(("http://", "https://")) for h in hits)
        assert len({h["url"] for h in hits}) == len(hits)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    urls=st.one_of(url_like, st.lists(url_like, max_size=22), st.integers(), st.none()),
    payload=provider_return,
)
def test_extract_never_raises(chaos_config: Any, urls: Any, payload: Any) -> None:
    envelope = dispatch_extract(urls, backend="chaos", config=chaos_config, payload=json.dumps(payload))
    _valid(envelope, PagesEnvelope)


@pytest.mark.parametrize("query", ["caf\ud800 menu", "\udfff", "emoji half \ud83d"])
def test_a_lone_surrogate_in_a_query_is_invalid_input(chaos_config: Any, query: str) -> None:
    envelope = dispatch_search(query, backend="chaos", config=chaos_config, payload="[]")
    assert envelope["error_code"] == "invalid_input", envelope
    assert "lone surrogate" in envelope["error"]
    json.dumps(envelope).encode("utf-8")  # the sentence itself is valid text
    whole = dispatch_search("caf\U0001f600 menu", backend="chaos", config=chaos_config, payload="[]")
    assert whole["success"] is True


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"include_text": ["caf\udce9"]}, "not valid Unicode"),
        ({"filters": {"site": {"name": "\ud800"}}}, "not valid Unicode"),
        ({"type": "\ud800"}, "not valid Unicode"),
        ({"self": "x"}, "'self'"),
    ],
)
def test_an_option_no_provider_can_take_is_the_callers_mistake(
    write_plugin: Any, make_config: Any, options: dict[str, Any], said: str
) -> None:
    """The provider failed as it built its request (a lone surrogate in UTF-8) or was called
    (a second ``self``), a failure counted against it: five such calls cooled Exa down for
    every caller. Refused before any provider is asked, it is nobody's failure but the call's."""
    root = write_plugin("chaos", CHAOS)
    config = make_config(plugins={"paths": [str(root)], "enabled": ["chaos"]}, web={"health": {"failures": 1}})
    envelope = dispatch_search("q", backend="chaos", config=config, **options)
    assert envelope["error_code"] == "invalid_input" and said in envelope["error"], envelope
    assert envelope["meta"]["attempts"] == []
    json.dumps(envelope, allow_nan=False).encode("utf-8")
    assert dispatch_search("q", backend="chaos", config=config, payload="[]")["success"] is True  # not cooling down


@pytest.mark.parametrize(
    ("argument", "value"),
    [("limit", "x" * 100_000), ("timeout", "x" * 100_000), ("mode", "x" * 100_000), ("time_range", "x" * 100_000), ("cache", 10**5000)],
    ids=["limit", "timeout", "mode", "time_range", "cache"],
)
def test_a_refused_value_is_quoted_short(chaos_config: Any, argument: str, value: Any) -> None:
    """An agent reads the sentence: a megabyte passed as ``limit=`` came back whole in it, and
    an int of thousands of digits (which refuses to be written out) failed the call as ours."""
    envelope = dispatch_search("q", backend="chaos", config=chaos_config, **{argument: value})
    assert envelope["error_code"] == "invalid_input" and len(envelope["error"]) < 200, envelope["error"][:300]


@pytest.mark.parametrize(
    "backend",
    [{"fuse": [b"stub"]}, {"fuse": [float("nan")]}, "\ud800", ["stub", "\udcff"], "y" * 100_000],
    ids=["fuse-bytes", "fuse-nan", "surrogate", "list-surrogate", "long"],
)
def test_meta_repeats_any_backend_argument_as_json_text(chaos_config: Any, backend: Any) -> None:
    envelope = dispatch_search("q", backend=backend, config=chaos_config)
    assert not envelope["success"]
    assert len(json.dumps(envelope, allow_nan=False).encode("utf-8")) < 2_000


def test_a_backend_name_read_as_a_lone_surrogate_is_said_in_utf8(make_config: Any) -> None:
    """``WEB_BACKEND`` holding a byte that is not UTF-8 (read as a lone surrogate) named an
    unknown backend in a sentence no UTF-8 encoder took."""
    config = make_config(web={"search_backend": ["x\udcff"]})
    envelope = dispatch_search("q", config=config)
    assert envelope["error_code"] == "not_configured" and "x\ufffd" in envelope["error"], envelope
    json.dumps(envelope).encode("utf-8")


def test_a_lone_surrogate_in_a_url_is_invalid_input(chaos_config: Any) -> None:
    envelope = dispatch_extract(["https://a.example/\ud800"], backend="chaos", config=chaos_config)
    assert envelope["error_code"] == "invalid_input" and "lone surrogate" in envelope["error"]


@pytest.mark.parametrize("url", ["https://[site-url]/post", "http://[127.0.0.1]/", "http://[v1]/"])
def test_brackets_around_anything_but_an_ipv6_address_are_invalid_input_on_every_python(
    chaos_config: Any, url: str
) -> None:
    """Python 3.10's URL parser read a template's unfilled ``https://[site-url]/`` as the host
    ``site-url`` (a crawl looked it up and warned of it; a caller's such URL was ``unsafe_url``
    at fetch time); 3.11 and newer refuse it. Every version now refuses it as 3.11 does."""
    from webproviders.urls import host_of, join_url

    envelope = dispatch_extract([url], backend="chaos", config=chaos_config)
    assert envelope["error_code"] == "invalid_input", envelope
    assert join_url("https://a.example/robots.txt", url) is None and host_of(url) == ""
    assert join_url("https://a.example/", "http://[::1]:8080/x") == "http://[::1]:8080/x"
    assert host_of("http://[v1.fe]/") == "v1.fe"
