"""Whether the quality benchmark's figure is what a caller gets: every page of a set served by
a server on 127.0.0.1 as it was captured, read through ``dispatch_extract(backend="http")``,
and compared with the benchmark's own reading of the same bytes at the same address.

Run: python bench/bench_extract_path.py [--set wcxb-dev] [--limit N]
Prints how many pages read the same, differently, or failed (with their error codes), and
the first pages that did not read the same. The sets are those of ``bench_extraction_quality.py``.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_extraction_quality as quality
import localsite

from webproviders import dispatch_extract
from webproviders.config import config_from_dict
from webproviders.fetching.charset import decode

#: URLs per call: enough to keep both extraction workers busy.
BATCH = 10


def captured(page: quality.Page) -> tuple[bytes, str]:
    """The page's bytes as they were served, and their type (gzipped pages are stored as UTF-8)."""
    if page.path.suffix == ".gz":
        return gzip.decompress(page.path.read_bytes()), "text/html; charset=utf-8"
    return page.path.read_bytes(), "text/html"


def serve(bodies: dict[str, tuple[bytes, str]]) -> localsite.Server:
    """The pages on 127.0.0.1 at once, each with its own type (the extract benchmarks' server)."""
    server = localsite.Server(("127.0.0.1", 0), localsite.Handler)
    server.latency, server.content_type = 0.0, "text/html"  # type: ignore[attr-defined]
    server.pages = {path: body for path, (body, _) in bodies.items()}  # type: ignore[attr-defined]
    server.types = {path: kind for path, (_, kind) in bodies.items()}
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="wcxb-dev", choices=sorted(quality.SETS))
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages (sorted by key)")
    args = parser.parse_args()
    evalset = quality.SETS[args.set]
    pages = evalset.pages(evalset.cache)[: args.limit]
    bodies = {f"/p/{index}": captured(page) for index, page in enumerate(pages)}
    server = serve(bodies)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    config = config_from_dict({"web": {"allow_private_networks": True, "cache": False, "usage": False}}, source="bench")
    tally: collections.Counter[str] = collections.Counter()
    differing: list[str] = []
    started = time.perf_counter()
    paths = list(bodies)
    for start in range(0, len(paths), BATCH):
        envelope = dispatch_extract([base + path for path in paths[start : start + BATCH]], backend="http",
                                    config=config, timeout=120)
        items = envelope["data"] if envelope["success"] else envelope["meta"].get("failures", [])
        for item in items:
            path = item["url"][len(base):]
            if item.get("error"):
                tally[f"failed ({item.get('error_code')})"] += 1
                differing.append(f"{pages[int(path[3:])].key}: {item['error']}")
                continue
            body, kind = bodies[path]
            expected = quality.ours_markdown(decode(body, kind, "html")[0], item["url"])
            if item["content"].strip() == expected.strip():
                tally["same"] += 1
            else:
                tally["different"] += 1
                differing.append(f"{pages[int(path[3:])].key}: {len(item['content'])} characters, the benchmark's {len(expected)}")
    server.shutdown()
    print(f"{args.set}: {len(pages)} pages in {time.perf_counter() - started:.0f} s: {dict(tally)}")
    for line in differing[:20]:
        print(" ", line)


if __name__ == "__main__":
    main()
