"""The first vendor call of a new config (a tenant's, an MCP client's keys).

Run: python bench/bench_new_config.py [--configs 25]

Each of ``--configs`` fresh configs makes one ``searxng`` search to a closed loopback port
(``network_error`` at once), so what is timed is what a config's first call sets up: its
registry, its vendor client, and the certificates that client trusts. Printed: the median
and best of the calls. Uses only the public API, so ``PYTHONPATH=<older>/src`` measures an
older version.
"""

from __future__ import annotations

import argparse
import statistics
import time

from webproviders import dispatch_search
from webproviders.config import config_from_dict


def first_call() -> float:
    config = config_from_dict(
        {"web": {"retry": {"max_retries": 0}, "providers": {"searxng": {"base_url": "http://127.0.0.1:9"}}}},
        source="bench",
    )
    started = time.perf_counter()
    dispatch_search("q", backend="searxng", config=config, cache=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--configs", type=int, default=25)
    args = parser.parse_args()
    first_call()  # the process's first call imports the HTTP stack
    took = [first_call() for _ in range(args.configs)]
    print(f"first call of a new config: median {statistics.median(took) * 1e3:.1f} ms, best {min(took) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
