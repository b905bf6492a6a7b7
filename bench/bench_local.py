"""The local page index, both stores: indexing speed, search latency, ranking quality.

Run:
    python bench/bench_local.py [--stores sqlite,postgres] [--pages 10000,100000] [--queries 1000]
                                [--batch 50] [--dsn DSN] [--judged DIR] [--skip-speed]

Targets: indexing at least 300 pages/s from one process into either store; search p50 at most
5 ms (SQLite) and 10 ms with p99 at most 50 ms (PostgreSQL) at 100k pages; ranking on the judged
set at least as good as SQLite FTS5's BM25.

**Speed.** Pages are generated like English text: about 400 words each, nearly half of them
common function words ("the", "of", ...), the rest from a 20,000-word vocabulary drawn with a
Zipf distribution (a few content words are in most pages, most are rare); a five-word title;
hosts spread over 200 sites. Questions hold two or three content words of rank 20 to 5,000
(log-uniform, so some are in a third of all pages, most in a few percent) wrapped in question
words ("how do I ..."). Indexing is timed in batches of ``--batch`` pages (an extract call adds
up to 20, a crawl more); searches through the store, and through ``dispatch_search``.

**Ranking.** ``--judged`` is a folder holding the Cranfield collection (``cran.all.1400``,
``cran.qry``, ``cranqrel``: 1,400 aeronautics abstracts, 225 questions in plain English, graded
judgements), which many information retrieval course repositories carry; it is not shipped
here. Each abstract is indexed as a page (title and text) and each question asked for 10 hits;
MRR@10 (relevant: grades 1 to 4) and nDCG@10 (gain 5 - grade) are reported for the SQLite
store, the PostgreSQL store, and the other ways to rank in PostgreSQL that were tried:
``websearch_to_tsquery`` with ``ts_rank``; the same falling back to any word (OR) when every
word (AND) finds too little; ``ts_rank_cd`` over the store's bounded candidates; and the
``rum`` extension's ranked index scan, when the server has it (Debian: postgresql-15-rum).

Without ``--dsn`` a throwaway PostgreSQL server is started (tests/local/pg_server.py). The
machine may be shared: each latency is also given in ``u``, the time a fixed piece of
pure-Python work took while the searches ran (a quiet 2-core VM here: about 2.5 ms), so
figures from a busy run can be compared with a quiet one.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from webproviders import dispatch_search
from webproviders.config import Config, config_from_dict
from webproviders.index.pages import Filters, IndexedPage
from webproviders.index.question import STOP_WORDS, question_terms
from webproviders.index.stores import close_stores, open_store

VOCABULARY = 20_000
SYLLABLES = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
OPENERS = ["how do I", "what is the", "why does", "where can I find", "", "configure"]
ROOT = Path(__file__).resolve().parents[1]


# -- synthetic pages ----------------------------------------------------------------------

def vocabulary(rng: random.Random) -> list[str]:
    """Made-up content words, in a random order (the order is their frequency rank)."""
    words: set[str] = set()
    while len(words) < VOCABULARY:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    ranked = sorted(words)
    rng.shuffle(ranked)
    return ranked


def zipf_picker(rng: random.Random, words: list[str]) -> list[str]:
    """A list to sample from in which word i appears about 1/(i+1) as often as the first,
    nearly half of it common function words."""
    weights = [1.0 / (i + 1) for i in range(len(words))]
    return rng.choices(words, weights, k=220_000) + rng.choices(sorted(STOP_WORDS), k=180_000)


def make_question(rng: random.Random, words: list[str]) -> str:
    content = [words[int(math.exp(rng.uniform(math.log(20), math.log(5000))))] for _ in range(rng.randint(2, 3))]
    return f"{rng.choice(OPENERS)} {' '.join(content)}?".strip()


def make_pages(count: int, rng: random.Random, pool: list[str]) -> list[IndexedPage]:
    now = time.time()
    pages = []
    for i in range(count):
        body = [" ".join(rng.choices(pool, k=rng.randint(8, 20))) + "." for _ in range(rng.randint(20, 40))]
        title = " ".join(w for w in rng.choices(pool, k=8) if w not in STOP_WORDS)[:60].capitalize()
        url = f"https://site{i % 200}.example.com/docs/{i}"
        pages.append(IndexedPage(url, title, f"# {title}\n\n" + "\n\n".join(body), now - rng.random() * 90 * 86_400,
                                 "http", language="en"))
    return pages


def calibration_ms() -> float:
    """A fixed piece of pure-Python work, timed: what a millisecond is worth on the machine
    right now (it is shared, so figures are also given as multiples of this)."""
    started = time.perf_counter()
    sum(i * i for i in range(50_000))
    return (time.perf_counter() - started) * 1000


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# -- stores -------------------------------------------------------------------------------

def pg_server_module() -> Any:
    spec = importlib.util.spec_from_file_location("pg_server", ROOT / "tests" / "local" / "pg_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def store_config(kind: str, folder: Path, dsn: str, name: str) -> Config:
    """A config for a fresh index: a new file, or a new schema."""
    section: dict[str, Any] = {"path": str(folder / f"{name}.sqlite3")} if kind == "sqlite" else {
        "dsn": dsn, "schema": name, "timeout": 30}
    return config_from_dict({"web": {"cache": False, "providers": {"local": section}}})


def speed(kind: str, config: Config, pages: list[IndexedPage], questions: list[str], batch: int) -> dict[str, float]:
    store = open_store(config)
    started = time.perf_counter()
    for i in range(0, len(pages), batch):
        store.add(pages[i:i + batch])
    elapsed = time.perf_counter() - started
    for question in questions[:50]:  # warm caches and connections
        store.search(question, 5, Filters())
    direct, hits, calibration = [], 0, []
    for n, question in enumerate(questions):
        if n % 20 == 0:
            calibration.append(calibration_ms())
        t0 = time.perf_counter()
        hits += len(store.search(question, 5, Filters()))
        direct.append((time.perf_counter() - t0) * 1000)
    dispatched = []
    for question in questions[: len(questions) // 2]:
        t0 = time.perf_counter()
        envelope = dispatch_search(question, 5, backend="local", config=config)
        dispatched.append((time.perf_counter() - t0) * 1000)
        assert envelope["success"], envelope
    filtered = []
    for question in questions[:200]:
        t0 = time.perf_counter()
        store.search(question, 5, Filters(include_domains=("site7.example.com",), fetched_after=time.time() - 30 * 86_400))
        filtered.append((time.perf_counter() - t0) * 1000)
    return {
        "pages/s": len(pages) / elapsed, "hits": hits / len(questions),
        "p50": statistics.median(direct), "p99": percentile(direct, 0.99),
        "dispatch p50": statistics.median(dispatched), "dispatch p99": percentile(dispatched, 0.99),
        "filtered p50": statistics.median(filtered), "filtered p99": percentile(filtered, 0.99),
        "bytes": store.stats()["bytes"], "calibration": statistics.median(calibration),
    }


# -- the judged set -----------------------------------------------------------------------

def cranfield_fields(text: str) -> list[dict[str, str]]:
    """Records of a Cranfield file: ``.I id`` then ``.X`` fields."""
    records: list[dict[str, str]] = []
    field = ""
    for line in text.splitlines():
        if line.startswith(".I "):
            records.append({"I": line[3:].strip()})
            field = ""
        elif re.fullmatch(r"\.[A-Z]", line.strip()):
            field = line.strip()[1]
            records[-1][field] = ""
        elif records and field:
            records[-1][field] += line + "\n"
    return records


def judged_set(folder: Path) -> tuple[list[IndexedPage], list[str], list[dict[int, int]]]:
    """Pages, questions, and per question the relevance grade of each judged page (number)."""
    docs = cranfield_fields((folder / "cran.all.1400").read_text(encoding="utf-8", errors="replace"))
    pages = [IndexedPage(f"https://cranfield.example.org/{int(d['I'])}", " ".join(d.get("T", "").split()),
                         d.get("W", "").strip(), 0.0, "cranfield", language="en") for d in docs]
    questions = [" ".join(q.get("W", "").split()) for q in cranfield_fields(
        (folder / "cran.qry").read_text(encoding="utf-8", errors="replace"))]
    grades: list[dict[int, int]] = [{} for _ in questions]
    for line in (folder / "cranqrel").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3 and 1 <= int(parts[0]) <= len(questions) and 1 <= int(parts[2]) <= 4:
            grades[int(parts[0]) - 1][int(parts[1])] = int(parts[2])  # queries are numbered in file order
    return pages, questions, grades


def quality(search: Callable[[str], list[str]], questions: list[str], grades: list[dict[int, int]]) -> tuple[float, float]:
    """MRR@10 and nDCG@10 over the questions that have judged relevant pages."""
    rr, ndcg = [], []
    for question, judged in zip(questions, grades, strict=True):
        if not judged:
            continue
        ranked = [int(url.rsplit("/", 1)[1]) for url in search(question)][:10]
        rr.append(next((1 / (i + 1) for i, doc in enumerate(ranked) if doc in judged), 0.0))
        dcg = sum((5 - judged[doc]) / math.log2(i + 2) for i, doc in enumerate(ranked) if doc in judged)
        ideal = sorted((5 - g for g in judged.values()), reverse=True)[:10]
        ndcg.append(dcg / sum(g / math.log2(i + 2) for i, g in enumerate(ideal)))
    return statistics.mean(rr), statistics.mean(ndcg)


def postgres_alternatives(config: Config) -> tuple[dict[str, Callable[[str], list[str]]], list[bool]]:
    """The other ways to rank in PostgreSQL, over the store's own tables; and, filled as they
    run, whether ``websearch_to_tsquery`` found nothing, per question."""
    from webproviders.index.pg_store import _TERMS, _and, _Question

    store: Any = open_store(config)
    schema = config.provider("local").option("schema")

    empty: list[bool] = []  # per question asked with websearch_to_tsquery: whether it found nothing

    def run(sql: str, *params: Any) -> list[str]:
        with store._connection(create=False) as conn:
            return [row[0] for row in conn.execute(sql.replace("{s}", schema), params).fetchall()]

    def question(text: str) -> Any:
        with store._connection(create=False) as conn:
            return _Question(conn.execute(store._sql(_TERMS), {"terms": question_terms(text)}).fetchall())

    def websearch_ts_rank(text: str) -> list[str]:
        found = run("SELECT url FROM {s}.pages, websearch_to_tsquery('english', %s) q WHERE search @@ q "
                    "ORDER BY ts_rank(search, q) DESC LIMIT 10", text)
        empty.append(not found)
        return found

    def and_then_or_ts_rank(text: str) -> list[str]:
        q = question(text)
        found = run("SELECT url FROM {s}.pages WHERE search @@ %s::tsquery "
                    "ORDER BY ts_rank(search, %s::tsquery) DESC LIMIT 10", _and(list(q.terms.values())), q.every)
        if len(found) < 10:
            found += [url for url in run("SELECT url FROM {s}.pages WHERE search @@ %s::tsquery "
                                         "ORDER BY ts_rank(search, %s::tsquery) DESC LIMIT 10", q.every, q.every)
                      if url not in found]
        return found[:10]

    def ts_rank_cd_bounded(text: str) -> list[str]:
        q = question(text)
        first, then = q.candidates()
        return run("SELECT url FROM ((SELECT url, search FROM {s}.pages WHERE search @@ %s::tsquery LIMIT 400) "
                   "UNION (SELECT url, search FROM {s}.pages WHERE search @@ %s::tsquery LIMIT 400)) c "
                   "ORDER BY ts_rank_cd(search, %s::tsquery, 1) DESC LIMIT 10", first, then, q.every)

    ways: dict[str, Callable[[str], list[str]]] = {
        "postgres websearch_to_tsquery + ts_rank": websearch_ts_rank,
        "postgres AND, then OR + ts_rank": and_then_or_ts_rank,
        "postgres ts_rank_cd, bounded candidates": ts_rank_cd_bounded,
    }
    with store._connection(create=False) as conn:
        has_rum = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'rum'").fetchone()
        if has_rum:
            conn.execute("CREATE EXTENSION IF NOT EXISTS rum")
            conn.execute(store._sql("CREATE INDEX IF NOT EXISTS pages_rum ON {s}.pages USING rum (search rum_tsvector_ops)"))

            def rum(text: str) -> list[str]:
                return run("SELECT url FROM {s}.pages WHERE search @@ %s::tsquery ORDER BY search <=> %s::tsquery LIMIT 10",
                           question(text).every, question(text).every)

            ways["postgres rum <=> (any word)"] = rum
    return ways, empty


def ranking(stores: list[str], folder: Path, dsn: str, work: Path) -> None:
    pages, questions, grades = judged_set(folder)
    print(f"\njudged set: {len(pages)} pages, {sum(1 for g in grades if g)} judged questions (Cranfield)")
    for kind in stores:
        config = store_config(kind, work, dsn, "judged")
        open_store(config).add(pages)
        ways = {f"{kind} store (BM25)": lambda q, c=config: [h.page.url for h in open_store(c).search(q, 10, Filters())]}
        empty: list[bool] = []
        if kind == "postgres":
            others, empty = postgres_alternatives(config)
            ways.update(others)
        for name, search in ways.items():
            mrr, ndcg = quality(search, questions, grades)
            print(f"  {name:<44} MRR@10 {mrr:.3f}   nDCG@10 {ndcg:.3f}")
        if empty:
            print(f"  websearch_to_tsquery found nothing for {sum(empty)} of {len(empty)} questions")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--pages", default="10000,100000")
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--dsn", help="a PostgreSQL database to use (default: start a throwaway server)")
    parser.add_argument("--judged", type=Path, help="folder of the Cranfield collection, for ranking quality")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    stores = args.stores.split(",")
    server = None
    dsn = args.dsn or ""
    if "postgres" in stores and not dsn:
        server = pg_server_module().PostgresServer()
        server.start()
        dsn = server.dsn
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start (shared)")
    try:
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            if not args.skip_speed:
                rng = random.Random(14)
                words = vocabulary(rng)
                pool = zipf_picker(rng, words)
                questions = [make_question(rng, words) for _ in range(args.queries)]
                for count in (int(n) for n in args.pages.split(",")):
                    pages = make_pages(count, random.Random(count), pool)
                    for kind in stores:
                        figures = speed(kind, store_config(kind, work, dsn, f"speed{count}"), pages, questions, args.batch)
                        print(f"{kind:>8} {count:>7,} pages: indexed {figures['pages/s']:,.0f} pages/s "
                              f"(batches of {args.batch}), {figures['bytes'] / 1e6:.0f} MB, {figures['hits']:.1f} hits")
                        unit = figures["calibration"]
                        for label in ("", "dispatch ", "filtered "):
                            p50, p99 = figures[label + "p50"], figures[label + "p99"]
                            print(f"{'':>24}{label or 'store '}search p50 {p50:6.2f} ms ({p50 / unit:4.2f} u)   "
                                  f"p99 {p99:6.2f} ms ({p99 / unit:5.2f} u)")
                        print(f"{'':>24}u = {unit:.2f} ms (the calibration loop while searching), "
                              f"load average now {os.getloadavg()[0]:.1f}")
                        close_stores()
            if args.judged:
                ranking(stores, args.judged, dsn, work)
    finally:
        close_stores()
        if server is not None:
            server.remove()


if __name__ == "__main__":
    sys.exit(main())
