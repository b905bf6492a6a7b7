"""``meta.cost``: what each call spent, summed over retries, chains and fusion; seen by hooks."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from webproviders import dispatch_crawl, dispatch_extract, dispatch_search, usage_summary
from webproviders.config import config_from_dict
from webproviders.dispatch.hung import MAX_HUNG
from webproviders.errors import AuthError, BadGatewayError, ParseError, WebTimeoutError
from webproviders.models import SearchEnvelope
from webproviders.registry.providers import get_registry

from .conftest import PLUGINS, cost_config, scripted

REQUEST = {"usd": 0.004, "units": 1, "unit": "request", "estimated": False}


def test_a_priced_search_carries_its_cost_in_meta_and_in_its_attempt() -> None:
    envelope = dispatch_search("solar panels", backend="priced", config=cost_config())
    assert envelope["success"] is True
    assert envelope["meta"]["cost"] == REQUEST
    assert envelope["meta"]["attempts"][0]["cost"] == REQUEST
    assert SearchEnvelope.model_validate(envelope).meta.cost.usd == 0.004


def test_extract_is_charged_per_url_read_and_crawl_per_page_returned() -> None:
    config = cost_config()
    urls = ["https://a.example/1", "https://a.example/2", "https://a.example/3"]
    extracted = dispatch_extract(urls, backend="priced", config=config)
    assert extracted["success"] is True and sum(1 for page in extracted["data"] if page.get("error")) == 1
    assert extracted["meta"]["cost"] == {"usd": 0.004, "units": 2, "unit": "url", "estimated": False}
    crawled = dispatch_crawl("https://a.example/", backend="priced", config=config)
    assert crawled["meta"]["cost"] == {"usd": 0.003, "units": 3, "unit": "page", "estimated": False}


def test_an_extract_whose_every_page_failed_at_the_vendor_costs_nothing() -> None:
    """The vendor answered URL by URL and read none: nothing to bill, as one page read is
    billed for one URL. Each page's own timeout made it a ``timeout`` of the call, charged
    for every URL as if the request had gone unanswered: more than when one page was read."""
    config = cost_config(retry={"max_retries": 0})
    urls = ["https://a.example/1", "https://a.example/2", "https://a.example/3"]

    def answer(code: str, read: int) -> tuple[list[dict[str, str]]]:
        pages = [{"url": url, "title": "T", "content": f"text of {url}"} for url in urls[:read]]
        return ([*pages, *({"url": url, "error": "it did not load", "error_code": code} for url in urls[read:])],)

    scripted(config, "priced").steps = [answer("timeout", 1), answer("timeout", 0), answer("parse_error", 0)]
    one_read = dispatch_extract(urls, backend="priced", config=config)
    assert one_read["meta"]["cost"] == {"usd": 0.002, "units": 1, "unit": "url", "estimated": False}
    for code in ("timeout", "parse_error"):
        none_read = dispatch_extract(urls, backend="priced", config=config)
        assert none_read["error_code"] == code and none_read["meta"]["failed"] == 3
        assert "cost" not in none_read["meta"] and "cost" not in none_read["meta"]["attempts"][0]


def test_a_call_that_spent_nothing_carries_no_cost() -> None:
    envelope = dispatch_search("solar panels", backend="free", config=cost_config())
    assert envelope["success"] is True
    assert "cost" not in envelope["meta"] and "cost" not in envelope["meta"]["attempts"][0]


def test_a_retry_after_a_timeout_is_paid_again_but_one_after_a_5xx_is_not() -> None:
    config = cost_config()
    scripted(config, "priced").steps = [WebTimeoutError("slow"), None]
    timed_out = dispatch_search("wind", backend="priced", config=config)
    assert [a["outcome"] for a in timed_out["meta"]["attempts"]] == ["error", "ok"]
    assert timed_out["meta"]["cost"] == {"usd": 0.008, "units": 2, "unit": "request", "estimated": True}
    scripted(config, "priced").steps = [BadGatewayError("down", status_code=503), None]
    refused = dispatch_search("tide", backend="priced", config=config)
    assert [a["outcome"] for a in refused["meta"]["attempts"]] == ["error", "ok"]
    assert refused["meta"]["cost"] == REQUEST


def test_a_request_whose_connection_to_the_vendor_never_opened_costs_nothing(dns: Any, tmp_path: Path) -> None:
    """A vendor whose name's lookup never answers (a firewall dropping packets) never got the
    request, timed out or cancelled by a hedge; it was charged its planned units all the same,
    held against budgets and written to the ledger as a request that reached the vendor."""
    dns.silent = threading.Event()
    config = cost_config(
        usage={"path": str(tmp_path / "usage.sqlite3")},
        retry={"max_retries": 0},
        providers={"brave": {"api_key": "k-test-000001"}},
    )
    timed_out = dispatch_search("wind", backend="brave", config=config, timeout=1)
    assert timed_out["error_code"] == "timeout" and "was not open yet" in timed_out["error"], timed_out
    assert "cost" not in timed_out["meta"] and "cost" not in timed_out["meta"]["attempts"][0]
    hedged = dispatch_search("tide", backend=["brave", "stub"], hedge_after=0.3, config=config, timeout=5)
    outcomes = [(a["provider"], a["outcome"]) for a in hedged["meta"]["attempts"]]
    assert outcomes == [("brave", "cancelled"), ("stub", "ok")], hedged
    assert "cost" not in hedged["meta"] and "cost" not in hedged["meta"]["attempts"][0]
    assert [row["key"] for row in usage_summary("1d", config=config)["rows"]] == ["stub"]


def test_a_call_refused_because_the_provider_keeps_hung_threads_costs_nothing(tmp_path: Path) -> None:
    """Once a sync provider keeps MAX_HUNG threads past their deadlines, later calls fail
    with ``timeout`` without reaching it: no request, so no cost, no ledger row, no budget."""
    config = cost_config(
        usage={"path": str(tmp_path / "usage.sqlite3")}, budget={"daily_usd": 1}, retry={"max_retries": 0}
    )
    provider = scripted(config, "priced")
    provider.steps = [1.0] * MAX_HUNG  # each request takes a second; the calls give up sooner
    hung = [dispatch_search(f"hung {n}", backend="priced", config=config, timeout=0.1) for n in range(MAX_HUNG)]
    refused = [dispatch_search(f"refused {n}", backend="priced", config=config, timeout=0.1) for n in range(3)]
    assert provider.calls == MAX_HUNG
    assert all(envelope["meta"]["cost"]["usd"] == 0.004 for envelope in hung)
    assert [envelope["error_code"] for envelope in refused] == ["timeout"] * 3
    assert all("still running past their deadlines" in envelope["error"] for envelope in refused)
    assert [envelope["meta"].get("cost") for envelope in refused] == [None] * 3
    assert [attempt.get("cost") for envelope in refused for attempt in envelope["meta"]["attempts"]] == [None] * 3
    total = usage_summary("1d", config=config)["total"]
    assert (total["requests"], total["usd"]) == (MAX_HUNG, 0.004 * MAX_HUNG)


def test_a_chain_sums_what_every_provider_it_tried_spent() -> None:
    config = cost_config(search_backend=["priced", "pricey"], retry={"max_retries": 0, "backoff": 0})
    scripted(config, "priced").steps = [ParseError("garbled answer")]
    envelope = dispatch_search("geothermal", config=config)
    assert envelope["success"] is True and envelope["meta"]["served_by"] == "pricey"
    assert envelope["meta"]["cost"] == {"usd": 0.054, "units": 2, "unit": "request", "estimated": True}
    assert [a.get("cost", {}).get("usd") for a in envelope["meta"]["attempts"]] == [0.004, 0.05]


def test_fusion_sums_every_provider_it_asked() -> None:
    envelope = dispatch_search("hydro", backend={"fuse": ["priced", "pricey", "free"]}, config=cost_config())
    assert envelope["success"] is True
    assert envelope["meta"]["cost"] == {"usd": 0.054, "units": 3, "unit": "request", "estimated": True}


def test_a_failure_that_spent_says_so() -> None:
    config = cost_config(retry={"max_retries": 0, "backoff": 0})
    scripted(config, "priced").steps = [WebTimeoutError("slow")]
    envelope = dispatch_search("biomass", backend="priced", config=config)
    assert envelope["success"] is False and envelope["error_code"] == "timeout"
    assert envelope["meta"]["cost"] == {"usd": 0.004, "units": 1, "unit": "request", "estimated": True}
    scripted(config, "priced").steps = [AuthError("bad key")]
    refused = dispatch_search("biomass 2", backend="priced", config=config)
    assert refused["error_code"] == "auth_error" and "cost" not in refused["meta"]  # vendors do not bill refusals


def test_a_cached_answer_costs_nothing() -> None:
    config = cost_config(cache={"backend": "memory"})
    first = dispatch_search("fusion power", backend="priced", config=config)
    second = dispatch_search("fusion power", backend="priced", config=config)
    assert first["meta"]["cost"]["usd"] == 0.004
    assert second["meta"].get("cached") is True and "cost" not in second["meta"]


def test_reported_credits_use_the_credit_price_and_reported_dollars_are_taken_as_stated() -> None:
    config = cost_config()
    provider = scripted(config, "pricey")
    provider.steps = [{"units": 3, "unit": "credit"}]
    credits = dispatch_search("batteries", backend="pricey", config=config)
    assert credits["meta"]["cost"] == {"usd": 0.03, "units": 3, "unit": "credit", "estimated": True}
    provider.steps = [{"usd": 0.0123}]
    stated = dispatch_search("batteries 2", backend="pricey", config=config)
    assert stated["meta"]["cost"] == {"usd": 0.0123, "units": 1, "unit": "request", "estimated": False}
    provider.steps = [{"units": -1, "usd": float("nan")}]  # nonsense is ignored: the list price applies
    listed = dispatch_search("batteries 3", backend="pricey", config=config)
    assert listed["meta"]["cost"]["usd"] == 0.05


def test_reports_beyond_any_float_are_ignored_and_the_answer_kept(tmp_path: Path) -> None:
    """A 400-digit figure raised OverflowError in the provider (its answer lost as a
    provider_error), and reports summing to infinity failed the call and lost its ledger row."""
    config = cost_config(usage={"path": str(tmp_path / "usage.sqlite3")}, budget={"daily_usd": 5})
    provider = scripted(config, "pricey")
    provider.steps = [{"units": 10**400}, {"usd": 10**400}, [{"usd": 1e308}, {"usd": 1e308}]]
    for n in range(3):
        envelope = dispatch_search(f"batteries {n}", backend="pricey", config=config)
        assert envelope["success"] is True, envelope.get("error")
        assert envelope["meta"]["cost"]["usd"] == 0.05  # the list price, as for any nonsense
    assert usage_summary("1d", config=config)["total"]["usd"] == 0.15


def test_a_tag_no_store_can_hold_is_refused_and_other_callers_keep_their_ledger_and_budget(
    tmp_path: Path,
) -> None:
    """A lone surrogate in one caller's tag failed the ledger batch it was in (others' rows
    lost) and the ledger was skipped, so every other caller's priced call was refused with
    budget_store_unavailable; a 5,000-digit number failed as provider_error."""
    config = cost_config(
        usage={"path": str(tmp_path / "usage.sqlite3")}, budget={"per_tag": {"user": {"daily_usd": 1}}}
    )
    assert dispatch_search("warm", backend="priced", config=config, tags={"user": "bob"})["success"] is True
    for value in ("caf\udce9", 10**5000):
        refused = dispatch_search("q", backend="priced", config=config, tags={"user": value})
        assert refused["error_code"] == "invalid_input" and "tag 'user'" in refused["error"]
    assert scripted(config, "priced").calls == 1
    other = dispatch_search("q", backend="priced", config=config, tags={"user": "alice"})
    assert other["success"] is True and "warnings" not in other["meta"]
    assert [row["key"] for row in usage_summary("1d", by="tag:user", config=config)["rows"]] == ["alice", "bob"]


def test_a_reported_unit_with_a_lone_surrogate_is_recorded(tmp_path: Path) -> None:
    """A unit named from a vendor's text (``"\\udced"`` in its JSON) failed the ledger batch
    holding its row, and the rows of every other call in it."""
    config = cost_config(usage={"path": str(tmp_path / "usage.sqlite3")})
    scripted(config, "pricey").steps = [{"units": 2, "unit": "cr\udcedits"}]
    assert dispatch_search("a", backend="pricey", config=config)["success"] is True
    assert dispatch_search("b", backend="priced", config=config)["success"] is True
    units = usage_summary("1d", config=config)["total"]["units"]
    assert units == {"cr\ufffdits": 2, "request": 1}


def test_tags_are_not_passed_to_the_provider() -> None:
    config = cost_config()
    dispatch_search("heat pumps", backend="priced", config=config, tags={"user": "alice"}, safe_search="strict")
    assert scripted(config, "priced").seen[-1] == {"safe_search": "strict"}


def test_bad_tags_are_invalid_input_before_anything_is_sent() -> None:
    config = cost_config()
    for tags in ({"user": ["a"]}, {"no spaces": "x"}, "user=alice", {"user": ""}, {"user\n": "x"}):
        envelope = dispatch_search("x", backend="priced", config=config, tags=tags)
        assert envelope["error_code"] == "invalid_input" and "tag" in envelope["error"]
    assert scripted(config, "priced").calls == 0


def test_after_dispatch_receives_the_cost() -> None:
    config = config_from_dict(
        {"web": {"cache": False}, "plugins": {"paths": [str(PLUGINS)], "enabled": ["priced", "spend_log"]}}
    )
    dispatch_search("tidal", backend="priced", config=config)
    dispatch_search("tidal", backend="free", config=config)
    dispatch_search("x", backend="priced", config=config, limit=0)
    seen = next(p for p in get_registry(config).hooks.get_plugins() if hasattr(p, "SEEN")).SEEN
    assert seen[-3] == ("search", REQUEST, REQUEST)
    assert seen[-2] == ("search", {"usd": 0.0, "units": 1, "unit": "request", "estimated": False}, None)
    assert seen[-1] == ("search", None, None)  # refused before any provider was tried
