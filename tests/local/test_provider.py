"""The ``local`` provider through dispatch: the envelope, filters, extract, failures."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from webproviders import dispatch_extract, dispatch_search, list_providers
from webproviders.config import Config
from webproviders.dispatch.plan import resolve
from webproviders.index.stores import open_store
from webproviders.redact import scrub
from webproviders.registry.providers import get_registry

from .conftest import SQLITE_ONLY, page, spoil

WORKER = Path(__file__).parent / "worker.py"
RETRIES = "https://docs.example.com/guide/retries"


def test_search_returns_the_usual_envelope(filled: Config) -> None:
    envelope = dispatch_search("how do I configure retries?", 2, backend="local", config=filled)
    assert envelope["success"] is True, envelope
    assert envelope["provider"] == "local"
    first, second = envelope["data"]["web"]
    assert first["url"] == RETRIES and first["position"] == 1 and second["position"] == 2
    assert first["title"] == "Configuring retries"
    assert "**configure** **retries**" in first["description"]
    assert first["score"] > second["score"]
    assert first["published_at"] == "2026-01-10"
    assert first["source_provider"] == "http"
    assert first["fetched_at"].endswith("Z")
    assert "published_at" not in second
    assert "warnings" not in envelope["meta"]


def test_a_page_held_under_a_credential_url_is_shown_with_it_masked(index_config: Config) -> None:
    """Pages whose URL carries a credential are no longer indexed, but an index filled before
    (or by a script's ``store.add``) holds them, and every search's hit showed the key whole,
    to every caller, as did the ``canonical_url`` of an extract of it."""
    signed = "https://reports.example.com/q3?lang=en&api_key=apikey-val-4715"
    open_store(index_config).add([page(signed, "Quarterly report", "Revenue grew in the third quarter.")])
    found = dispatch_search("quarterly revenue", backend="local", config=index_config)
    assert [hit["url"] for hit in found["data"]["web"]] == ["https://reports.example.com/q3?lang=en&api_key=***"]
    read = dispatch_extract([signed], backend="local", config=index_config)
    assert read["data"][0]["metadata"]["canonical_url"] == "https://reports.example.com/q3?lang=en&api_key=***"
    assert "apikey-val-4715" not in json.dumps(found) + json.dumps(read)


def test_search_honours_domains_and_time_range(filled: Config) -> None:
    recent = dispatch_search("retries", 10, backend="local", config=filled, time_range="month")
    assert {hit["url"] for hit in recent["data"]["web"]} == {RETRIES, "https://docs.example.com/guide/cache"}
    only_blog = dispatch_search("retries", 10, backend="local", config=filled, include_domains=["example.org"])
    assert [hit["url"] for hit in only_blog["data"]["web"]] == ["https://blog.example.org/posts/outages"]
    not_docs = dispatch_search("retries", 10, backend="local", config=filled, exclude_domains=["docs.example.com"])
    assert [hit["url"] for hit in not_docs["data"]["web"]] == ["https://blog.example.org/posts/outages"]
    assert "warnings" not in recent["meta"]


def test_options_it_cannot_honour_are_named(filled: Config) -> None:
    envelope = dispatch_search("retries", backend="local", config=filled, country="de", safe_search="strict")
    assert envelope["success"] is True
    assert envelope["meta"]["warnings"] == ["local does not support country, safe_search; ignored."]


def test_options_it_does_not_know_are_named(filled: Config) -> None:
    """``offset=10`` gave the first hits again, and a misspelt filter filtered nothing, unsaid."""
    envelope = dispatch_search("retries", 2, backend="local", config=filled, offset=10, include_domain=["example.org"])
    assert envelope["success"] is True and len(envelope["data"]["web"]) == 2
    assert envelope["meta"]["warnings"] == ["local ignored the option(s) include_domain, offset: it does not know them."]


_OFFLINE_SCRIPT = """
import json, sys, time
from webproviders import dispatch_extract, dispatch_search
from webproviders.config import config_from_dict
from webproviders.index.pages import IndexedPage
from webproviders.index.stores import open_store
config = config_from_dict({"web": {"providers": {"local": {"path": sys.argv[1]}}}})
open_store(config).add([IndexedPage("https://docs.example.com/a", "Retries", "How to configure retries.", time.time())])
found = dispatch_search("retries", backend="local", config=config)["success"]
read = dispatch_extract(["https://docs.example.com/a"], backend="local", config=config, format="text")["success"]
stack = sorted({name.split(".")[0] for name in sys.modules} & {"httpx", "httpcore", "h2", "anyio", "trafilatura", "lxml"})
print(json.dumps({"found": found, "read": read, "stack": stack}))
"""


def test_a_search_and_an_extract_load_no_http_stack(run_script: Any, tmp_path: Path) -> None:
    """The index reads pages from a file: its first call loaded httpx and the page renderer (348
    modules, 1 s; 4 s in each of 8 workers starting at once, past a 5 s search's deadline)."""
    answer = run_script(_OFFLINE_SCRIPT, str(tmp_path / "index.sqlite3"))
    assert answer == {"found": True, "read": True, "stack": []}


def test_an_index_never_filled_is_an_empty_success_that_says_why(index_config: Config) -> None:
    """An agent told nothing would take the empty answer for "no page matches"."""
    envelope = dispatch_search("anything at all", backend="local", config=index_config)
    assert envelope["success"] is True and envelope["data"]["web"] == []
    location = scrub(open_store(index_config).location)
    assert envelope["meta"]["warnings"] == [
        f"The local index ({location}) holds no pages yet, so nothing can match: pages are added by "
        "extracts and crawls with web.local.index: true, or by: webproviders index URL."
    ]


def test_a_question_of_punctuation_alone_says_it_held_no_word(filled: Config) -> None:
    """``*`` or ``""`` was an empty success saying nothing, read as "no page matches"."""
    for query in ("*", "-", '""', "+++ ---", "___"):
        envelope = dispatch_search(query, backend="local", config=filled)
        assert envelope["success"] is True and envelope["data"]["web"] == []
        assert envelope["meta"]["warnings"] == [
            f"The query {query!r} holds no word to search for: the local index matches words (letters "
            "or digits), and punctuation and operators are not searched; ask with words."
        ]
    assert dispatch_search("* retries", backend="local", config=filled)["data"]["web"]


def test_an_index_whose_every_page_went_says_so_as_one_never_filled_does(filled: Config) -> None:
    """Pruned or removed to nothing, it answered an empty success that said nothing, read as
    "no page matches", where an index never filled said that it held no pages."""
    store = open_store(filled)
    assert store.prune(time.time() + 60) == 4
    envelope = dispatch_search("retries", backend="local", config=filled)
    assert envelope["success"] is True and envelope["data"]["web"] == []
    assert envelope["meta"]["warnings"] == [
        f"The local index ({scrub(store.location)}) holds no pages (every page was removed or pruned), so "
        "nothing can match: pages are added by extracts and crawls with web.local.index: true, or by: "
        "webproviders index URL."
    ]


def test_a_filled_index_that_matches_nothing_says_nothing_more(filled: Config) -> None:
    envelope = dispatch_search("zebra xylophone", backend="local", config=filled)
    assert envelope["success"] is True and envelope["data"]["web"] == []
    assert "warnings" not in envelope["meta"]


def test_answers_are_never_served_from_the_answer_cache(make_index_config: Any) -> None:
    config = make_index_config(cache={"backend": "memory"})
    first = dispatch_search("zebra", backend="local", config=config)
    assert first["data"]["web"] == []
    open_store(config).add([page("https://zoo.example.com/zebra", "Zebra", "The zebra has stripes.")])
    second = dispatch_search("zebra", backend="local", config=config)
    assert [hit["url"] for hit in second["data"]["web"]] == ["https://zoo.example.com/zebra"]
    assert "cached" not in second["meta"]


def test_extract_returns_stored_pages_and_not_found(filled: Config) -> None:
    missing = "https://docs.example.com/guide/unknown"
    envelope = dispatch_extract([RETRIES + "?utm_source=feed", missing], backend="local", config=filled)
    assert envelope["success"] is True
    hit, miss = envelope["data"]
    assert hit["url"] == RETRIES + "?utm_source=feed"  # the URL as asked
    assert hit["title"] == "Configuring retries"
    assert hit["content"].startswith("# Configuring retries")
    assert hit["metadata"]["canonical_url"] == RETRIES
    assert hit["metadata"]["published_at"] == "2026-01-10"
    assert hit["metadata"]["source_provider"] == "http"
    assert miss["url"] == missing
    assert miss["error_code"] == "not_found"
    assert "not in the local index" in miss["error"] and "[local, http]" in miss["error"]


def test_extract_honours_max_chars(filled: Config) -> None:
    envelope = dispatch_extract(RETRIES, backend="local", config=filled, max_chars=30, format="text")
    [item] = envelope["data"]
    assert len(item["content"]) <= 30
    assert item["metadata"]["truncated"] is True and item["metadata"]["content_chars"] > 30
    assert envelope["meta"]["warnings"] == ["local stores pages as markdown; format='text' is ignored."]


def test_bad_extract_options_are_invalid_input(filled: Config) -> None:
    envelope = dispatch_extract(RETRIES, backend="local", config=filled, max_chars=0)
    assert envelope["success"] is False and envelope["error_code"] == "invalid_input"


def test_local_is_listed_ready_but_never_auto_detected(make_config: Any) -> None:
    config = make_config()
    row = next(row for row in list_providers(config) if row["name"] == "local")
    assert row["available"] is True and row["capabilities"] == ["search", "extract"]
    assert row["auto_detect"] is False
    registry = get_registry(config)
    assert "local" not in resolve("search", None, registry).candidates
    assert "local" not in resolve("extract", None, registry).candidates


def test_something_else_where_the_index_should_be_is_a_clear_failure(index_config: Config) -> None:
    refusal = spoil(index_config)
    location = scrub(open_store(index_config).location)  # a DSN's user name is masked, as any URL's
    for envelope in (
        dispatch_search("retries", backend="local", config=index_config),
        dispatch_extract(RETRIES, backend="local", config=index_config),
    ):
        assert envelope["success"] is False
        assert envelope["error_code"] == "not_configured"
        assert location in envelope["error"] and refusal in envelope["error"]


@SQLITE_ONLY
def test_a_damaged_file_says_what_to_do(index_config: Config) -> None:
    spoil(index_config)
    envelope = dispatch_search("retries", backend="local", config=index_config)
    assert "move it away or delete it" in envelope["error"]


def test_an_unusable_index_leaves_the_other_backends_working(index_config: Config) -> None:
    spoil(index_config)
    fused = dispatch_search("retries", backend={"fuse": ["local", "stub"]}, config=index_config)
    assert fused["success"] is True and fused["meta"]["fused"] == ["stub"]
    assert any(a["provider"] == "local" and a.get("error_code") == "not_configured" for a in fused["meta"]["attempts"])
    chained = dispatch_extract(RETRIES, backend=["local", "stub"], config=index_config)
    assert chained["success"] is True and chained["provider"] == "stub"
    assert [a["provider"] for a in chained["meta"]["attempts"]] == ["local", "stub"]


@SQLITE_ONLY
def test_a_file_locked_by_another_process_is_a_retryable_timeout(
    index_config: Config, index_section: dict[str, Any]
) -> None:
    path = open_store(index_config).location
    job = {"mode": "lock", "section": index_section}
    holder = subprocess.Popen([sys.executable, str(WORKER), json.dumps(job)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        envelope = dispatch_search("locked", backend="local", config=index_config)
        assert envelope["success"] is False, envelope
        assert envelope["error_code"] == "timeout" and envelope["retryable"] is True
        assert path in envelope["error"] and "locked" in envelope["error"]
        fused = dispatch_search("locked", backend={"fuse": ["local", "stub"]}, config=index_config)
        assert fused["success"] is True and fused["meta"]["fused"] == ["stub"]
    finally:
        holder.communicate("done\n", timeout=30)
    assert holder.returncode == 0
    after = dispatch_search("locked", backend="local", config=index_config)
    assert [hit["url"] for hit in after["data"]["web"]] == ["https://locked.example.com/"]


def test_two_processes_index_and_search_one_index(
    index_config: Config, index_section: dict[str, Any], start_together: Any
) -> None:
    jobs = [{"mode": "fill", "section": index_section, "prefix": prefix, "count": 25} for prefix in ("one", "two")]
    workers = start_together([[sys.executable, str(WORKER), json.dumps(job)] for job in jobs])
    reports = []
    for worker in workers:
        out, _ = worker.communicate(timeout=120)
        assert worker.returncode == 0
        reports.append(json.loads(out.strip().splitlines()[-1]))
    assert reports == [{"indexed": 25, "searched": 25, "errors": []}] * 2
    stats = open_store(index_config).stats()
    assert stats["pages"] == 50 and stats["providers"] == {"stub": 50}
    envelope = dispatch_search("offline content", 50, backend="local", config=index_config)
    hosts = {hit["url"].split("/")[2] for hit in envelope["data"]["web"]}
    assert hosts == {"one.example.com", "two.example.com"}
