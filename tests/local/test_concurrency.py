"""Many writers at once, against each store: eight processes index 1,000 distinct pages and
the same overlapping pages while this process searches; every page ends up there once."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from webproviders import dispatch_search
from webproviders.config import Config
from webproviders.index.pages import Filters
from webproviders.index.stores import open_store

from .conftest import counts_are_true

WORKER = Path(__file__).parent / "worker.py"
PROCESSES, DISTINCT, SHARED = 8, 1_000, 40


def contents(n: int) -> str:
    return f"Shared words about the fleet index. Page marker{n} has its own word. " * 3


def test_eight_processes_index_at_once_and_every_page_is_there_once(
    make_index_config: Any, index_section: dict[str, Any], start_together: Any
) -> None:
    section = {**index_section, "busy_timeout": 30} if "path" in index_section else index_section
    config: Config = make_index_config(store=section)
    shared = [[f"https://shared.example.com/{n}", f"Shared {n}", contents(DISTINCT + n)] for n in range(SHARED)]
    jobs = []
    for worker in range(PROCESSES):
        own = range(worker, DISTINCT, PROCESSES)
        pages = [[f"https://w{worker}.example.com/{n}", f"Page {n}", contents(n)] for n in own]
        # Each writer also writes every shared page, interleaved with its own, in its own order.
        mixed = [p for pair in zip(pages, shared[worker:] + shared[:worker], strict=False) for p in pair] + pages[len(shared):]
        jobs.append({"mode": "add", "section": section, "pages": mixed, "batch": 20})
    workers = start_together([[sys.executable, str(WORKER), json.dumps(job)] for job in jobs], stderr=subprocess.PIPE)

    searches = []
    while any(worker.poll() is None for worker in workers):  # searching while they write
        envelope = dispatch_search("fleet index marker7", 10, backend="local", config=config)
        assert envelope["success"] is True, envelope
        searches.append(len(envelope["data"]["web"]))
        time.sleep(0.05)
    for worker, job in zip(workers, jobs, strict=True):
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
        assert json.loads(out.strip().splitlines()[-1]) == {"written": len(job["pages"])}
    assert searches and max(searches) > 0

    store = open_store(config)
    assert store.stats()["pages"] == DISTINCT + SHARED
    every = [f"https://w{n % PROCESSES}.example.com/{n}" for n in range(DISTINCT)] + [s[0] for s in shared]
    found = store.get(every)
    assert len(found) == len(every) == DISTINCT + SHARED
    for n in (0, 7, 513, 999, DISTINCT + 3):
        hits = store.search(f"marker{n}", 5, Filters())
        assert len(hits) == 1 and f"**marker{n}**" in hits[0].snippet
    if "dsn" in section:  # and the page counts BM25 reads agree with the pages
        assert counts_are_true(config)
