"""Run in a separate OS process by the multi-process tests: ``python worker.py '<json>'``.

The job's ``section`` is the ``web.providers.local`` section of the index to use.
``"fill"``: waits for the other workers (the ``start_together`` fixture), then
adds ``count`` pages one write at a time through ``index_urls`` (the ``stub`` backend, so
nothing leaves the machine), searching the same index through dispatch after every write;
prints one JSON line with what it saw. ``"add"``: waits likewise, then writes its
``pages`` (``[url, title, content]``) straight to the store ``batch`` at a time; prints how
many it wrote. ``"lock"`` (SQLite): fills the file, then holds an exclusive lock on it until
a line arrives on stdin (prints ``locked`` once it holds it): no other connection can read
it meanwhile.
"""

from __future__ import annotations

import gc
import json
import sqlite3
import sys
import threading
import time

from webproviders import dispatch_search, index_urls
from webproviders.config import config_from_dict
from webproviders.index.pages import IndexedPage
from webproviders.index.stores import open_store


def wait_for_the_others() -> None:
    """Say this process is ready, then sleep until the moment the test sends once all are."""
    print("ready", flush=True)
    time.sleep(max(0.0, float(sys.stdin.readline()) - time.time()))


def fill(job: dict, config: object) -> None:
    wait_for_the_others()
    indexed = searched = 0
    errors = []
    for i in range(job["count"]):
        result = index_urls(f"https://{job['prefix']}.example.com/page-{i}", backend="stub", config=config)
        if result["success"] and result["data"]["indexed"]:
            indexed += 1
        else:
            errors.append(result.get("error") or result["data"]["failed"])
        envelope = dispatch_search("offline content", 50, backend="local", config=config)
        if envelope["success"]:
            searched += 1
        else:
            errors.append(envelope["error"])
    print(json.dumps({"indexed": indexed, "searched": searched, "errors": errors}))


def add(job: dict, config: object) -> None:
    store = open_store(config)
    pages = [IndexedPage(url, title, content, time.time(), "worker") for url, title, content in job["pages"]]
    wait_for_the_others()
    written = 0
    for i in range(0, len(pages), job["batch"]):
        written += store.add(pages[i:i + job["batch"]])
    print(json.dumps({"written": written}))


def hold_lock(path: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA locking_mode = EXCLUSIVE")
    conn.execute("BEGIN EXCLUSIVE")
    conn.execute("UPDATE pages SET provider = provider")
    print("locked", flush=True)
    sys.stdin.readline()
    conn.execute("ROLLBACK")
    conn.close()


def main() -> None:
    job = json.loads(sys.argv[1])
    config = config_from_dict({"web": {"cache": False, "providers": {"local": job["section"]}}})
    if job["mode"] == "fill":
        fill(job, config)
    elif job["mode"] == "add":
        add(job, config)
    else:
        # Filled from a thread that then ends, so this process keeps no connection open: an
        # exclusive lock in WAL mode needs to be the only connection.
        filler = threading.Thread(target=index_urls, args=("https://locked.example.com/",),
                                  kwargs={"backend": "stub", "config": config})
        filler.start()
        filler.join()
        gc.collect()
        hold_lock(job["section"]["path"])


if __name__ == "__main__":
    main()
