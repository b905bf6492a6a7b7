"""The local page index: filling it with 10,000 pages, then answering 1,000 questions.

Run: python bench/bench_local.py [--pages 10000] [--queries 1000] [--batch 50]
Target: search p50 under 5 ms.

Pages are generated like English text: about 400 words each, nearly half of them common
function words ("the", "of", ...), the rest from a 20,000-word vocabulary drawn with a Zipf
distribution (a few content words are in most pages, most are rare); a five-word title;
hosts spread over 200 sites. Questions hold two or three content words of rank 20 to 5,000
(log-uniform, so some are in a third of all pages, most in a few percent) wrapped in
question words ("how do I ..."). Indexing is timed in batches of ``--batch`` pages (an extract call
adds up to 20, a crawl more); searches are timed through the store and through
``dispatch_search(backend="local")``, which adds the dispatcher and a worker thread.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from webproviders import dispatch_search
from webproviders.config import config_from_dict
from webproviders.index.fts_query import STOP_WORDS
from webproviders.index.pages import Filters, IndexedPage
from webproviders.index.stores import open_store

VOCABULARY = 20_000
SYLLABLES = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
OPENERS = ["how do I", "what is the", "why does", "where can I find", "", "configure"]


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
    function_words = sorted(STOP_WORDS)
    return rng.choices(words, weights, k=220_000) + rng.choices(function_words, k=180_000)


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
        pages.append(IndexedPage(url, title, f"# {title}\n\n" + "\n\n".join(body), now - rng.random() * 90 * 86_400, "http"))
    return pages


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--batch", type=int, default=50)
    args = parser.parse_args()
    rng = random.Random(14)
    words = vocabulary(rng)
    pool = zipf_picker(rng, words)
    pages = make_pages(args.pages, rng, pool)
    questions = [make_question(rng, words) for _ in range(args.queries)]

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "index.sqlite3"
        config = config_from_dict({"web": {"cache": False, "providers": {"local": {"path": str(path)}}}})
        store = open_store(config)
        started = time.perf_counter()
        for i in range(0, len(pages), args.batch):
            store.add(pages[i:i + args.batch])
        elapsed = time.perf_counter() - started
        size = sum(p.stat().st_size for p in Path(folder).iterdir())
        text = sum(len(p.content.encode()) + len(p.title.encode()) for p in pages)
        print(f"indexed {len(pages)} pages in {elapsed:.2f} s: {len(pages) / elapsed:,.0f} pages/s "
              f"(batches of {args.batch})")
        print(f"file: {size / 1e6:.1f} MB (WAL included) for {text / 1e6:.1f} MB of text")

        for question in questions[:50]:  # warm the page cache and the connection
            store.search(question, 5, Filters())
        direct, cpu, hits = [], [], 0
        for question in questions:
            t0, c0 = time.perf_counter(), time.thread_time()
            hits += len(store.search(question, 5, Filters()))
            direct.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
        dispatched = []
        for question in questions:
            t0 = time.perf_counter()
            envelope = dispatch_search(question, 5, backend="local", config=config)
            dispatched.append((time.perf_counter() - t0) * 1000)
            assert envelope["success"], envelope
        filtered = []
        for question in questions[:200]:
            t0 = time.perf_counter()
            store.search(question, 5, Filters(include_domains=("site7.example.com",), fetched_after=time.time() - 30 * 86_400))
            filtered.append((time.perf_counter() - t0) * 1000)
        print(f"{len(questions)} questions, {hits / len(questions):.1f} hits each on average")
        print(f"load average while searching: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        for label, samples in (("store.search", direct), ("store.search, CPU time", cpu),
                               ("dispatch_search(local)", dispatched),
                               ("store.search, domain + time filter", filtered)):
            print(f"  {label:<36} p50 {statistics.median(samples):6.2f} ms   p99 {percentile(samples, 0.99):6.2f} ms")
        verdict = "met" if statistics.median(dispatched) < 5 else "MISSED"
        print(f"target p50 < 5 ms through dispatch: {verdict}")


if __name__ == "__main__":
    main()
