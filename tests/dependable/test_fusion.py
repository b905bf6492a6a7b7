"""Reciprocal rank fusion across providers, and the canonical URL it de-duplicates on."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from webproviders import adispatch_search, dispatch_extract, dispatch_search
from webproviders.dependable.fusion import same_page_key
from webproviders.errors import AuthError, NetworkError

from .conftest import SleepLog, build_config, provider, state

A = [
    {"title": "Shared one", "url": "https://Example.com:443/one/?utm_source=a#top", "description": "short"},
    {"title": "Only A", "url": "https://a.example/only", "description": "from a"},
    {"title": "Shared two", "url": "https://example.com/two", "description": "two from a"},
]
B = [
    {"title": "Shared two (b)", "url": "https://example.com/two/", "description": "two from b"},
    {"title": "Shared one (b)", "url": "https://example.com/one", "description": "a much longer description"},
    {"title": "Only B", "url": "https://b.example/only", "description": "from b"},
]
C = [
    {"title": "Shared one (c)", "url": "http://example.com/one?fbclid=xyz", "description": "c"},
    {"title": "Only C", "url": "https://c.example/only", "description": "from c"},
]


def _fused_config(**web: Any) -> Any:
    config = build_config(search_backend={"fuse": ["fake-a", "fake-b", "fake-c"]}, **web)
    provider(config, "fake-a").hits = A
    provider(config, "fake-b").hits = B
    provider(config, "fake-c").hits = C
    state(config).sleep = SleepLog()
    return config


def test_fusion_orders_by_reciprocal_rank_and_merges_duplicates() -> None:
    config = _fused_config()
    envelope = dispatch_search("q", limit=10, config=config)
    assert envelope["success"] is True
    assert envelope["provider"] == "fuse"
    assert envelope["meta"]["fused"] == ["fake-a", "fake-b", "fake-c"]
    hits = envelope["data"]["web"]
    # http://example.com/one differs in scheme: a different page for fusion purposes.
    assert [h["title"] for h in hits] == [
        "Shared one",  # a#1 + b#2
        "Shared two (b)",  # a#3 + b#1, titled by its best-placed copy
        "Shared one (c)",
        "Only A",
        "Only C",
        "Only B",
    ]
    assert [h["position"] for h in hits] == [1, 2, 3, 4, 5, 6]
    top = hits[0]
    assert top["providers"] == ["fake-a", "fake-b"]
    assert top["url"] == "https://Example.com:443/one/?utm_source=a#top"  # the best-placed copy's URL
    assert top["description"] == "a much longer description"  # the fuller snippet wins
    assert top["fusion_score"] == pytest.approx(1 / 61 + 1 / 62, abs=1e-6)
    assert hits[1]["providers"] == ["fake-b", "fake-a"]  # best rank first
    assert hits[1]["title"] == "Shared two (b)"


def test_fusion_caps_to_limit() -> None:
    config = _fused_config()
    hits = dispatch_search("q", limit=2, config=config)["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2]


def test_fusion_succeeds_when_one_provider_fails() -> None:
    config = _fused_config(retry={"max_retries": 0})
    provider(config, "fake-b").script = [NetworkError("down")]
    envelope = dispatch_search("q", limit=10, config=config)
    assert envelope["success"] is True
    assert envelope["meta"]["fused"] == ["fake-a", "fake-c"]
    failed = [a for a in envelope["meta"]["attempts"] if a["outcome"] == "error"]
    assert failed == [{"provider": "fake-b", "outcome": "error", "latency_ms": failed[0]["latency_ms"], "error_code": "network_error"}]
    assert all("fake-b" not in h["providers"] for h in envelope["data"]["web"])


def test_a_member_whose_credentials_are_rejected_is_logged_naming_it(caplog: pytest.LogCaptureFixture) -> None:
    """A chain logs a provider that rejects its key (a wrong key needs a person); a fusion let it
    drop out unsaid, answering from the others call after call, the log silent."""
    config = _fused_config(retry={"max_retries": 0})
    provider(config, "fake-b").script = [AuthError("rejected")]
    with caplog.at_level(logging.WARNING, logger="webproviders.dispatch"):
        envelope = dispatch_search("q", limit=10, config=config)
    assert envelope["success"] is True and envelope["meta"]["fused"] == ["fake-a", "fake-c"]
    assert [r.getMessage() for r in caplog.records if "credentials" in r.getMessage()] == [
        "Provider 'fake-b' rejected its credentials; the others are fused without it."
    ]


def test_a_provider_that_found_nothing_is_not_said_to_have_contributed() -> None:
    config = _fused_config()
    provider(config, "fake-b").script = [[]]
    envelope = dispatch_search("q", limit=10, config=config)
    assert envelope["success"] is True
    assert envelope["meta"]["fused"] == ["fake-a", "fake-c"]
    empty = {a["provider"]: a.get("empty", False) for a in envelope["meta"]["attempts"]}
    assert empty == {"fake-a": False, "fake-b": True, "fake-c": False}
    assert all("fake-b" not in h["providers"] for h in envelope["data"]["web"])


def test_fusion_fails_only_when_every_provider_fails() -> None:
    config = _fused_config(retry={"max_retries": 0})
    for name in ("fake-a", "fake-b", "fake-c"):
        provider(config, name).script = [NetworkError(f"{name} down")]
    envelope = dispatch_search("q", config=config)
    assert envelope["success"] is False
    assert envelope["error_code"] == "network_error"
    assert len(envelope["meta"]["attempts"]) == 3


def test_mode_fuse_on_a_call_fuses_the_resolved_chain_async() -> None:
    config = _fused_config()
    envelope = asyncio.run(
        adispatch_search("q", limit=10, backend=["fake-a", "fake-b"], mode="fuse", config=config)
    )
    assert envelope["provider"] == "fuse"
    assert envelope["data"]["web"][0]["providers"] == ["fake-a", "fake-b"]


def test_providers_are_queried_concurrently() -> None:
    """Each fake waits for the other two to have started: sequential calls would time out."""
    config = _fused_config()
    barrier = threading.Barrier(3, timeout=5)

    def wait_for_all(hits: list[dict[str, Any]]) -> Any:
        return lambda query: (barrier.wait(), hits)[1]

    for name, hits in (("fake-a", A), ("fake-b", B), ("fake-c", C)):
        provider(config, name).script = [wait_for_all(hits)]
    envelope = dispatch_search("q", limit=10, config=config)
    assert envelope["meta"]["fused"] == ["fake-a", "fake-b", "fake-c"]


def test_mode_chain_overrides_a_fuse_config() -> None:
    config = _fused_config()
    envelope = dispatch_search("q", mode="chain", config=config)
    assert envelope["provider"] == "fake-a"


def test_mode_chain_overrides_a_fuse_config_of_one_provider() -> None:
    """``{fuse: [fake-a]}`` (one capable provider, or a name given twice) stayed a fusion under
    ``mode="chain"``: ``provider`` said ``fuse`` and every hit carried ``fusion_score``."""
    config = build_config(search_backend={"fuse": ["fake-a"]})
    envelope = dispatch_search("q", mode="chain", config=config)
    assert (envelope["provider"], envelope["meta"]["served_by"]) == ("fake-a", "fake-a")
    assert all("fusion_score" not in hit and "providers" not in hit for hit in envelope["data"]["web"])


def test_fuse_config_runs_extract_as_a_chain() -> None:
    config = build_config(backend={"fuse": ["fake-a", "fake-b"]})
    envelope = dispatch_extract("https://example.com/", config=config)
    assert envelope["provider"] == "fake-a"


def test_mode_fuse_is_refused_for_extract_and_bad_modes() -> None:
    config = _fused_config()
    assert dispatch_extract("https://example.com/", backend="fake-a", mode="fuse", config=config)["error_code"] == (
        "invalid_input"
    )
    assert dispatch_search("q", mode="merge", config=config)["error_code"] == "invalid_input"


@pytest.mark.parametrize("mode", [["fuse"], {"fuse": True}], ids=["list", "dict"])
@pytest.mark.parametrize("backend", [None, "fake-a"])
def test_a_mode_that_is_no_text_is_invalid_input(mode: Any, backend: str | None) -> None:
    """Before, a list or a dict (no key for the kept plans) failed as ``provider_error``: "The
    provider failed: TypeError: unhashable type", though no provider was asked."""
    envelope = dispatch_search("q", backend=backend, mode=mode, config=_fused_config())
    assert envelope["error_code"] == "invalid_input", envelope
    assert envelope["error"] == f"mode must be 'chain' or 'fuse', not {mode!r}."


def test_fused_pieces_are_cached_per_provider() -> None:
    config = _fused_config()
    dispatch_search("q", limit=10, config=config)
    again = dispatch_search("q", limit=10, config=config)
    assert again["meta"]["cached"] is True
    assert [provider(config, n).calls for n in ("fake-a", "fake-b", "fake-c")] == [1, 1, 1]


def test_a_fused_answer_with_a_member_asked_afresh_that_failed_is_not_said_to_be_cached() -> None:
    """Two members cached, the third asked again and failing: the call said ``cached: true``
    beside that request's attempt (and its cost, when priced), as if nothing had been asked."""
    config = _fused_config(retry={"max_retries": 0})
    provider(config, "fake-c").script = [NetworkError("down")]
    first = dispatch_search("q", limit=10, config=config)
    assert first["meta"]["fused"] == ["fake-a", "fake-b"] and "cached" not in first["meta"]
    provider(config, "fake-c").script = [NetworkError("down")]
    again = dispatch_search("q", limit=10, config=config)
    assert again["data"] == first["data"]
    assert sorted((a["provider"], a.get("cached", False)) for a in again["meta"]["attempts"]) == [
        ("fake-a", True),
        ("fake-b", True),
        ("fake-c", False),
    ]
    assert "cached" not in again["meta"]
    assert provider(config, "fake-c").calls == 2


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("HTTPS://Example.COM/a", "https://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com/a/", "https://example.com/a"),
        ("https://example.com/a#section", "https://example.com/a"),
        ("https://example.com/a?utm_source=x&utm_medium=y", "https://example.com/a"),
        ("https://example.com/a?b=2&gclid=1&a=1", "https://example.com/a?a=1&b=2"),
        ("https://example.com", "https://example.com/"),
        ("https://en.wikipedia.org/wiki/Caf%C3%A9", "https://en.wikipedia.org/wiki/Café"),
        ("https://en.wikipedia.org/wiki/Caf%c3%a9", "https://en.wikipedia.org/wiki/Caf%C3%A9"),
        ("https://example.com/%7Euser/", "https://example.com/~user"),
    ],
)
def test_fusion_treats_spellings_of_one_page_alike(left: str, right: str) -> None:
    assert same_page_key(left) == same_page_key(right)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("https://example.com/a", "http://example.com/a"),
        ("https://example.com/A", "https://example.com/a"),
        ("https://example.com:8443/a", "https://example.com/a"),
        ("https://www.example.com/a", "https://example.com/a"),
        ("https://example.com/a?id=1", "https://example.com/a?id=2"),
        ("https://example.com/a%2Fb", "https://example.com/a/b"),
    ],
)
def test_fusion_keeps_different_pages_apart(left: str, right: str) -> None:
    assert same_page_key(left) != same_page_key(right)


def test_a_page_two_providers_spell_with_and_without_percent_escapes_is_one_hit() -> None:
    """One engine sends ``/wiki/Caf%C3%A9``, another ``/wiki/Café``: before, the page was two
    hits, each scored as one provider's alone."""
    config = build_config(search_backend={"fuse": ["fake-a", "fake-b"]})
    provider(config, "fake-a").hits = [
        {"title": "Café - Wikipedia", "url": "https://en.wikipedia.org/wiki/Caf%C3%A9", "description": "A café is"},
        {"title": "Only A", "url": "https://a.example/only", "description": "from a"},
    ]
    provider(config, "fake-b").hits = [
        {"title": "Café", "url": "https://en.wikipedia.org/wiki/Café", "description": "A café"},
        {"title": "Only B", "url": "https://b.example/only", "description": "from b"},
    ]
    hits = dispatch_search("cafe", limit=10, config=config)["data"]["web"]
    assert [(hit["title"], hit["providers"]) for hit in hits] == [
        ("Café - Wikipedia", ["fake-a", "fake-b"]),
        ("Only A", ["fake-a"]),
        ("Only B", ["fake-b"]),
    ]
    assert [hit["position"] for hit in hits] == [1, 2, 3]


def test_a_provider_named_twice_is_asked_paid_and_fused_once() -> None:
    """``{fuse: [fake-a, fake-b, fake-a]}`` (a composed ``${PRIMARY},fake-b,fake-a``): before,
    fake-a was asked twice and its list fused twice, each hit scored as if two providers agreed."""
    config = build_config(search_backend={"fuse": ["fake-a", "fake-b", "fake-a"]})
    provider(config, "fake-a").hits = A
    provider(config, "fake-b").hits = B
    envelope = dispatch_search("q", limit=10, config=config)
    assert envelope["success"] is True
    assert envelope["meta"]["fused"] == ["fake-a", "fake-b"]
    assert [a["provider"] for a in envelope["meta"]["attempts"]].count("fake-a") == 1
    assert provider(config, "fake-a").calls == 1
    assert all(len(set(hit["providers"])) == len(hit["providers"]) for hit in envelope["data"]["web"])


def test_a_provider_named_twice_in_a_chain_is_asked_once() -> None:
    config = build_config(retry={"max_retries": 0})
    provider(config, "fake-a").script = [NetworkError("down"), NetworkError("down")]
    envelope = dispatch_search("q", backend=["fake-a", "fake-a", "fake-b"], config=config)
    assert envelope["provider"] == "fake-b"
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [("fake-a", "error"), ("fake-b", "ok")]
    assert provider(config, "fake-a").calls == 1
