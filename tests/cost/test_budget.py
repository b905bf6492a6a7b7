"""Budgets: a call that would go over one is refused before anything is sent; chains move on."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from webproviders import (
    adispatch_search,
    dispatch_crawl,
    dispatch_extract,
    dispatch_search,
    usage_summary,
)
from webproviders.accounting.usage import UsageRecord
from webproviders.accounting.usage.spool import spool
from webproviders.accounting.usage.sqlite_store import SQLiteUsage
from webproviders.errors import WebTimeoutError
from webproviders.index.pages import IndexedPage
from webproviders.index.stores import open_store

from .conftest import PLUGINS, cost_config, scripted

WORKER = Path(__file__).parent / "budget_worker.py"


def test_a_call_over_the_daily_budget_is_refused_before_any_request() -> None:
    config = cost_config(budget={"daily_usd": 0.005})
    assert dispatch_search("first", backend="priced", config=config)["success"] is True
    refused = dispatch_search("second", backend="priced", config=config)
    assert refused["success"] is False
    assert refused["error_code"] == "budget_exceeded" and refused["retryable"] is False
    assert "daily budget ($0.005, web.budget.daily_usd)" in refused["error"]
    assert "$0.0040 is already spent" in refused["error"] and "resets at" in refused["error"]
    assert scripted(config, "priced").calls == 1
    assert refused["meta"]["attempts"] == [
        {"provider": "priced", "outcome": "skipped", "error_code": "budget_exceeded", "reason": refused["error"]}
    ]
    assert "cost" not in refused["meta"]


def test_a_chain_moves_on_to_a_free_provider_when_the_budget_is_spent() -> None:
    config = cost_config(search_backend=["priced", "free"], budget={"daily_usd": 0.005})
    assert dispatch_search("first", config=config)["meta"]["served_by"] == "priced"
    second = dispatch_search("second", config=config)
    assert second["success"] is True and second["meta"]["served_by"] == "free"
    assert [(a["provider"], a["outcome"], a.get("error_code")) for a in second["meta"]["attempts"]] == [
        ("priced", "skipped", "budget_exceeded"),
        ("free", "ok", None),
    ]
    assert scripted(config, "priced").calls == 1


def test_free_providers_are_never_refused() -> None:
    config = cost_config(budget={"daily_usd": 0.0})
    assert dispatch_search("x", backend="free", config=config)["success"] is True
    assert dispatch_search("y", backend="priced", config=config)["error_code"] == "budget_exceeded"


def test_a_provider_budget_caps_that_provider_only() -> None:
    config = cost_config(budget={"per_provider": {"pricey": {"daily_usd": 0.01}}})
    refused = dispatch_search("a", backend="pricey", config=config)
    assert refused["error_code"] == "budget_exceeded" and "for provider pricey" in refused["error"]
    assert "web.budget.per_provider.pricey.daily_usd" in refused["error"]
    assert dispatch_search("b", backend="priced", config=config)["success"] is True


def test_a_provider_cap_under_a_name_no_provider_has_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A cap under "Pricey" (for pricey) was listed as set and never applied: every call went
    through, and nothing said so."""
    config = cost_config(budget={"per_provider": {"Pricey": {"daily_usd": 0.01}}})
    with caplog.at_level("WARNING", logger="webproviders.accounting.budget"):
        assert dispatch_search("a", backend="pricey", config=config)["success"] is True
    assert "web.budget.per_provider.Pricey names no installed provider (did you mean 'pricey'?)" in caplog.text

    file = tmp_path / "config.yaml"
    document = {"web": {"budget": {"per_provider": {"Pricey": {"daily_usd": 0.01}}}},
                "plugins": {"paths": [str(Path(__file__).parent / "plugins")], "enabled": ["priced"]}}
    file.write_text(json.dumps(document), encoding="utf-8")
    shown = subprocess.run([sys.executable, "-m", "webproviders.cli", "--config", str(file), "config"],
                           capture_output=True, text=True, timeout=60, env={**os.environ, "NO_COLOR": "1"})
    assert shown.returncode == 3, shown.stderr
    assert "error: web.budget.per_provider.Pricey names no installed provider (did you mean 'pricey'?)" in shown.stderr


def test_a_provider_cap_under_a_misspelt_name_names_the_provider_meant(caplog: pytest.LogCaptureFixture) -> None:
    """cost-and-usage.md: the error comes "with the name it probably meant"; a typo
    (``pricy``) was reported with no name at all, only a case slip (``Pricey``) with one."""
    config = cost_config(budget={"per_provider": {"pricy": {"daily_usd": 0.01}}})
    with caplog.at_level("WARNING", logger="webproviders.accounting.budget"):
        assert dispatch_search("a", backend="pricey", config=config)["success"] is True
    assert "web.budget.per_provider.pricy names no installed provider (did you mean 'pricey'?)" in caplog.text


def test_a_tag_cap_under_a_name_no_call_can_give_is_refused_when_the_config_loads() -> None:
    from webproviders.config import ConfigError

    with pytest.raises(ConfigError, match="'web.budget.per_tag': 'bad name!' is no tag name a call can give"):
        cost_config(budget={"per_tag": {"bad name!": {"daily_usd": 0.01}}})


def test_a_tag_budget_applies_to_each_value_of_the_tag() -> None:
    config = cost_config(budget={"per_tag": {"user": {"daily_usd": 0.006}}})
    assert dispatch_search("a", backend="priced", config=config, tags={"user": "alice"})["success"] is True
    refused = dispatch_search("b", backend="priced", config=config, tags={"user": "alice"})
    assert refused["error_code"] == "budget_exceeded" and "for user=alice" in refused["error"]
    assert dispatch_search("c", backend="priced", config=config, tags={"user": "bob"})["success"] is True
    assert dispatch_search("d", backend="priced", config=config, tags={"team": "x"})["success"] is True
    assert dispatch_search("e", backend="priced", config=config)["success"] is True


def test_a_monthly_budget_is_checked_too() -> None:
    config = cost_config(budget={"monthly_usd": 0.004})
    assert dispatch_search("a", backend="priced", config=config)["success"] is True
    refused = dispatch_search("b", backend="priced", config=config)
    assert "monthly budget" in refused["error"] and "web.budget.monthly_usd" in refused["error"]


def test_the_reservation_is_corrected_to_what_the_request_really_cost() -> None:
    config = cost_config(budget={"daily_usd": 0.24})
    scripted(config, "pricey").steps = [{"usd": 0.2}]
    assert dispatch_search("a", backend="pricey", config=config)["meta"]["cost"]["usd"] == 0.2
    # 0.2 really spent + 0.05 estimated is over 0.24 (the estimate alone would have left room).
    assert dispatch_search("b", backend="pricey", config=config)["error_code"] == "budget_exceeded"

    cheaper = cost_config(budget={"daily_usd": 0.01}, usage=False)  # no ledger: starts from zero
    urls = ["https://a.example/1", "https://a.example/2", "https://a.example/3"]
    assert dispatch_extract(urls, backend="priced", config=cheaper)["meta"]["cost"]["usd"] == 0.004
    # 0.006 was reserved for three URLs, 0.004 was spent: 0.004 + 0.006 still fits in 0.01.
    assert dispatch_extract(urls, backend="priced", config=cheaper)["success"] is True


def test_an_extract_chain_estimates_only_the_urls_it_passes_on(tmp_path: Path) -> None:
    """The index holds 9 of 10 URLs, so priced is asked for one ($0.002): it was estimated
    (and, timing out, charged) for all ten, and a $0.005 budget refused it."""
    config = cost_config(
        budget={"daily_usd": 0.005},
        usage=False,
        retry={"max_retries": 0},
        providers={"local": {"path": str(tmp_path / "index.sqlite3")}},
    )
    urls = [f"https://docs.example/p{n}" for n in range(10)]
    open_store(config).add([IndexedPage(url, "t", f"text of {url}", time.time(), "http") for url in urls[:9]])
    priced = scripted(config, "priced")
    priced.steps = [WebTimeoutError("slow", provider="priced")]
    envelope = dispatch_extract(urls, backend=["local", "priced"], config=config)
    attempts = [(a["provider"], a["outcome"], a.get("error_code")) for a in envelope["meta"]["attempts"]]
    assert attempts == [("local", "ok", None), ("priced", "error", "timeout")]
    assert envelope["meta"]["attempts"][1]["cost"] == {"usd": 0.002, "units": 1, "unit": "url", "estimated": True}


def test_a_crawl_is_estimated_from_its_max_pages() -> None:
    config = cost_config(budget={"daily_usd": 0.01}, usage=False)
    refused = dispatch_crawl("https://a.example/", backend="priced", config=config, max_pages=50)
    assert refused["error_code"] == "budget_exceeded" and "about $0.0500" in refused["error"]
    crawled = dispatch_crawl("https://a.example/", backend="priced", config=config, max_pages=5)
    assert crawled["success"] is True and crawled["meta"]["cost"]["usd"] == 0.003  # three pages came back


def test_a_crawl_is_estimated_from_its_limit_alias_too() -> None:
    """``limit`` is ``max_pages`` for every crawler, but the estimate read only ``max_pages``:
    a 50-page crawl was reserved as 25 and sent past a budget that could not pay for it."""
    config = cost_config(budget={"daily_usd": 0.03}, usage=False)
    refused = dispatch_crawl("https://a.example/", backend="priced", config=config, limit=50)
    assert refused["error_code"] == "budget_exceeded" and "about $0.0500" in refused["error"]


@pytest.mark.parametrize("max_pages", ["50", 50.0])
def test_a_crawl_is_estimated_from_its_sections_max_pages_written_as_its_crawler_reads_it(max_pages: Any) -> None:
    """``max_pages: ${PAGES}`` gives text, which crawlers read as a number: the estimate took
    only a whole number, so a 50-page crawl was reserved as 25 and sent past a budget that
    could not pay for it."""
    config = cost_config(budget={"daily_usd": 0.03}, usage=False, providers={"priced": {"max_pages": max_pages}})
    refused = dispatch_crawl("https://a.example/", backend="priced", config=config)
    assert refused["error_code"] == "budget_exceeded" and "about $0.0500" in refused["error"]


def test_a_new_process_starts_from_what_the_ledger_recorded(tmp_path: Path) -> None:
    web = {"budget": {"daily_usd": 0.01}, "usage": {"path": str(tmp_path / "usage.sqlite3")}}
    first = cost_config(**web)
    assert dispatch_search("a", backend="priced", config=first)["success"] is True
    assert dispatch_search("b", backend="priced", config=first)["success"] is True
    restarted = cost_config(**web)  # a fresh registry: its counters start from the ledger, not zero
    assert dispatch_search("c", backend="priced", config=restarted)["error_code"] == "budget_exceeded"


def test_configs_of_one_process_that_share_a_ledger_share_its_budgets(tmp_path: Path) -> None:
    """The same settings loaded twice in one process (two ``load_config`` calls, a tool built
    from its own copy) spend against one cap: each counted only its own spending, and two
    configs took a $0.02 budget to $0.04."""
    web = {"budget": {"daily_usd": 0.02}, "usage": {"path": str(tmp_path / "usage.sqlite3")}}
    first, second = cost_config(**web), cost_config(**web)
    served = [
        dispatch_search(f"q {n}", backend="priced", config=config)["success"]
        for n in range(6)
        for config in (first, second)
    ]
    assert served.count(True) == 5  # $0.004 each
    assert usage_summary("1d", config=first)["total"]["usd"] == 0.02


def test_configs_naming_one_ledger_file_in_different_ways_share_its_budgets(tmp_path: Path) -> None:
    """``<dir>/usage.sqlite3``, ``<dir>/./usage.sqlite3`` and a link to the folder name one file,
    yet each config counted only its own spending: three configs took a $0.008 budget to $0.024."""
    (tmp_path / "link").symlink_to(tmp_path / "data", target_is_directory=True)
    paths = [tmp_path / "data" / "usage.sqlite3", tmp_path / "data" / "." / "usage.sqlite3", tmp_path / "link" / "usage.sqlite3"]
    configs = [cost_config(budget={"daily_usd": 0.008}, usage={"path": str(path)}) for path in paths]
    served = [dispatch_search(f"q {n}", backend="priced", config=config)["success"] for n, config in enumerate(configs)]
    assert served == [True, True, False]  # $0.004 each
    assert sum(scripted(config, "priced").calls for config in configs) == 2


_FORK_SCRIPT = """
import os, signal, sys
from webproviders import dispatch_search
from webproviders.accounting.budget import local
from webproviders.config import config_from_dict

config = config_from_dict({"web": {"budget": {"daily_usd": 1}, "usage": {"path": sys.argv[1]}},
                           "plugins": {"paths": [sys.argv[2]], "enabled": ["priced"]}})
assert dispatch_search("parent", backend="priced", config=config)["success"]
(counters,) = local._by_ledger.values()
counters._lock.acquire()  # as a parent's thread reserving at the moment of the fork
pid = os.fork()
if pid == 0:
    signal.alarm(20)  # a child stuck on the lock ends here, not never
    os._exit(0 if dispatch_search("child", backend="priced", config=config, timeout=3)["success"] else 1)
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


def test_a_child_forked_while_a_budget_counter_was_in_use_can_still_spend(tmp_path: Path) -> None:
    """The lock of the counters a process's configs share, held by a parent's thread at the
    fork, stayed held in the child: its first priced call waited for good."""
    script = [sys.executable, "-c", _FORK_SCRIPT, str(tmp_path / "usage.sqlite3"), str(PLUGINS)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(script, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr


def test_what_a_cancelled_async_call_spent_is_in_the_ledger(tmp_path: Path) -> None:
    """An async caller that cancels its task while the request is out: the request was sent
    and is paid for, so the ledger (which a new process reads its budgets from) records it."""
    web = {"budget": {"daily_usd": 0.006}, "usage": {"path": str(tmp_path / "usage.sqlite3")}}
    first = cost_config(**web)
    scripted_provider = scripted(first, "priced")
    scripted_provider.steps = [2.0]

    async def cancel_midway() -> None:
        task = asyncio.create_task(adispatch_search("slow", backend="priced", config=first, timeout=10))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_midway())
    assert scripted_provider.calls == 1
    assert spool.flush(5)
    restarted = cost_config(**web)  # 0.004 spent by the cancelled call: another 0.004 is over 0.006
    assert dispatch_search("again", backend="priced", config=restarted)["error_code"] == "budget_exceeded"


def test_a_reservation_of_a_call_whose_event_loop_was_closed_mid_call_is_no_longer_held() -> None:
    """An async caller that closes its event loop while a priced request is out leaves no one
    to release that request's reservation: it is no longer held by a request under way, and
    its estimate stays spent (the request went out), where it was held until the process ended."""
    config = cost_config(budget={"daily_usd": 0.006}, usage=False)
    scripted(config, "priced").steps = [1.0]
    loop = asyncio.new_event_loop()
    task = loop.create_task(adispatch_search("slow", backend="priced", config=config, timeout=10))
    loop.run_until_complete(asyncio.sleep(0.3))  # the request is out, $0.004 of $0.006 reserved
    loop.close()
    refused = dispatch_search("again", backend="priced", config=config)
    assert refused["error_code"] == "budget_exceeded", refused
    assert "$0.0040 is already spent" in refused["error"] and "under way" not in refused["error"], refused
    del task
    gc.collect()  # the abandoned call's coroutine is closed: it releases nothing a second time
    assert dispatch_search("still", backend="priced", config=config)["error_code"] == "budget_exceeded"


def test_budgets_in_redis_are_shared_by_every_registry_that_uses_it(redis_server: str, namespace: str) -> None:
    web = {"budget": {"daily_usd": 0.006}, "rate_limit": {"url": redis_server, "namespace": namespace}, "usage": False}
    assert dispatch_search("a", backend="priced", config=cost_config(**web))["success"] is True
    assert dispatch_search("b", backend="priced", config=cost_config(**web))["error_code"] == "budget_exceeded"


def test_an_unreachable_budget_store_refuses_priced_calls_and_a_chain_moves_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from webproviders.dependable.ratelimit.redis_limiter import RedisLimiter  # noqa: F401 - redis installed

    web = {"budget": {"daily_usd": 0.006}, "rate_limit": {"url": "redis://127.0.0.1:1/0"}, "usage": False}
    refused = dispatch_search("a", backend="priced", config=cost_config(**web))
    assert refused["success"] is False and refused["error_code"] == "budget_store_unavailable"
    assert refused["retryable"] is True and "Nothing was sent" in refused["error"]
    assert any(w.startswith("The shared budget store (redis) failed") for w in refused["meta"]["warnings"])

    config = cost_config(search_backend=["priced", "free"], **web)
    served = dispatch_search("b", config=config)
    assert served["success"] is True and served["meta"]["served_by"] == "free"
    assert [(a["provider"], a["outcome"], a.get("error_code")) for a in served["meta"]["attempts"]] == [
        ("priced", "skipped", "budget_store_unavailable"),
        ("free", "ok", None),
    ]
    assert scripted(config, "priced").calls == 0
    assert "budget store (redis)" in caplog.text


def test_a_ledger_that_cannot_be_made_refuses_priced_calls_rather_than_counting_from_zero(tmp_path: Path) -> None:
    """A ledger file that could not be made read as nothing spent: every new process (each
    CLI run, each restarted worker) had the whole cap again, and its rows were lost."""
    (tmp_path / "notes").write_text("x")
    usage = {"path": str(tmp_path / "notes" / "usage.sqlite3")}
    config = cost_config(usage=usage, budget={"daily_usd": 1})
    refused = dispatch_search("a", backend="priced", config=config)
    assert refused["error_code"] == "budget_store_unavailable", refused
    assert "a file stands where one of its folders should be" in refused["error"]
    assert scripted(config, "priced").calls == 0
    local = cost_config(usage=usage, budget={"daily_usd": 1, "on_store_error": "local"})
    assert dispatch_search("b", backend="priced", config=local)["success"] is True


def test_a_ledger_that_does_not_answer_is_waited_for_within_the_budget_timeout(tmp_path: Path) -> None:
    """The ledger a counter starts from was read within web.usage.timeout (here 3 s), though
    web.budget.timeout (0.3 s) is documented to bound it: a call waited ten times as long
    before its refusal."""
    path = tmp_path / "usage.sqlite3"
    store = SQLiteUsage(path, retention_days=400)
    store.append([UsageRecord(time.time(), "priced", "search", "ok", 1.0, "request", 0.004, False, 1.0)])
    store.close()
    holder = sqlite3.connect(path, isolation_level=None)  # another process writing, its lock held
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO usage_totals VALUES ('2000-01', 'all', 0)")
    try:
        config = cost_config(usage={"path": str(path), "timeout": 3}, budget={"daily_usd": 1, "timeout": 0.3})
        refused = dispatch_search("a", backend="priced", config=config)
    finally:
        holder.close()
    assert refused["error_code"] == "budget_store_unavailable", refused
    assert "the usage ledger (sqlite) did not answer within 0.30 s" in refused["error"]
    assert scripted(config, "priced").calls == 0


def test_with_on_store_error_local_an_unreachable_redis_leaves_a_budget_per_process() -> None:
    web = {
        "budget": {"daily_usd": 0.006, "on_store_error": "local"},
        "rate_limit": {"url": "redis://127.0.0.1:1/0"},
        "usage": False,
    }
    config = cost_config(**web)
    first = dispatch_search("a", backend="priced", config=config)
    assert first["success"] is True
    assert any("this process's own counters" in w for w in first["meta"]["warnings"])
    assert dispatch_search("b", backend="priced", config=config)["error_code"] == "budget_exceeded"


def test_two_processes_cannot_both_spend_the_last_cent(
    redis_server: str, namespace: str, tmp_path: Path, start_together: Any
) -> None:
    import redis

    web = {
        "budget": {"daily_usd": 0.01},  # room for two searches at $0.004, not three
        "rate_limit": {"url": redis_server, "namespace": namespace},
        "usage": False,
    }
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    workers = start_together(
        [[sys.executable, str(WORKER), json.dumps({"web": web, "calls": 4, "name": name})] for name in ("one", "two")],
        stderr=subprocess.PIPE, env=env,
    )
    results: list[dict[str, Any]] = []
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert sum(r["served"] for r in results) == 2
    assert sum(r["refused"].get("budget_exceeded", 0) for r in results) == 6
    client = redis.Redis.from_url(redis_server)
    day = time.strftime("%Y-%m-%d", time.gmtime())
    assert int(client.get(f"{namespace}:{{budget}}:{day}:all")) == 8000  # micro-dollars: exactly two searches
    client.close()


def test_a_deadline_too_short_to_send_charges_nothing_and_cools_nothing_down() -> None:
    """A rate-limited provider asked with too little time left to take its slot: nothing is
    sent, so nothing is charged (``meta.cost``, the budget), and the caller's own short
    deadline does not count against the provider's health."""
    config = cost_config(
        budget={"daily_usd": 1}, health={"failures": 2, "window": 60, "cooldown": 30},
        providers={"priced": {"rate_limit": "100/s"}},
    )
    dispatch_search("load the plugin", backend="free", config=config)
    for query in ("short one", "short two"):
        envelope = dispatch_search(query, backend="priced", config=config, timeout=0.04)
        assert envelope["error_code"] == "timeout" and envelope.get("detail") == "call_deadline", envelope
        assert not envelope["meta"].get("cost"), envelope
    assert scripted(config, "priced").calls == 0
    envelope = dispatch_search("in time", backend="priced", config=config)
    assert envelope["success"] is True, envelope  # not cooling down
    assert envelope["meta"]["cost"]["usd"] == pytest.approx(0.004)


def test_a_call_waiting_on_an_identical_one_refused_by_its_tag_budget_asks_under_its_own(
    redis_server: str, namespace: str
) -> None:
    """alice is over her budget, bob is not: bob, sharing alice's flight, is answered and
    never hears of alice's budget. The counters are shared (Redis), so alice's check waits
    on the store while bob joins her flight."""
    config = cost_config(
        search_backend="priced",
        cache={"backend": "memory"},
        budget={"per_tag": {"user": {"daily_usd": 0.006}}},
        rate_limit={"url": redis_server, "namespace": namespace},
    )
    assert dispatch_search("spent", config=config, tags={"user": "alice"})["success"] is True

    async def both() -> list[dict[str, Any]]:  # alice leads the flight, bob joins it
        return await asyncio.gather(
            *(adispatch_search("python", config=config, tags={"user": name}) for name in ("alice", "bob"))
        )

    alice, bob = asyncio.run(asyncio.wait_for(both(), 30))
    assert alice["error_code"] == "budget_exceeded" and "user=alice" in alice["error"]
    assert bob["success"] is True, bob
    assert "alice" not in json.dumps(bob)
    assert scripted(config, "priced").calls == 2


def test_a_call_that_read_the_clock_just_before_midnight_leaves_the_new_day_its_own_budgets() -> None:
    """Two threads at midnight: one starts the new day (the remembered budget lists are
    dropped), then the other, whose clock read 23:59:59.999, looks its list up. That list,
    yesterday's, was remembered for the whole new day: its calls were counted on
    yesterday's counter, and refusals said the budget reset at a midnight already past."""
    import calendar

    from webproviders.accounting.budget import Budgets
    from webproviders.errors import BudgetExceededError
    from webproviders.sections import BudgetSettings

    midnight = calendar.timegm((2026, 11, 27, 0, 0, 0))
    now = [midnight]
    budgets = Budgets(BudgetSettings(per_tag={"user": {"daily_usd": 0.01}}), clock=lambda: now[0])

    def reserve(user: str, at: float) -> None:
        now[0] = at
        asyncio.run(budgets.reserve("priced", {"user": user}, 0.01))

    reserve("a", midnight + 0.001)  # the new day's first call
    reserve("b", midnight - 0.001)  # read the clock before it, looked up after it
    reserve("b", midnight + 3600)
    with pytest.raises(BudgetExceededError) as refused:
        reserve("b", midnight + 7200)
    assert "It resets at 2026-11-28 00:00 UTC" in str(refused.value)
