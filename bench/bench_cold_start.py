"""Cold start: ``import webproviders; list_providers()`` against the floor of its own deps.

Run: python bench/bench_cold_start.py [--runs 20]
Target: at most 1.6 x the floor (``import httpx, pydantic, yaml, pluggy``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

FLOOR = "import httpx, pydantic, yaml, pluggy"
OURS = "import webproviders; webproviders.list_providers()"
#: Bytecode is written on the warm-up run, as pip compiles an installed package: with
#: PYTHONDONTWRITEBYTECODE set, our modules would be compiled on every run while the
#: floor's dependencies load from their compiled files, and the two would not compare.
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _once(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, env=ENV)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    _once(OURS), _once(FLOOR)  # warm the OS file cache and .pyc files
    floor, ours = [], []
    for _ in range(args.runs):  # interleaved, so machine noise hits both alike
        floor.append(_once(FLOOR))
        ours.append(_once(OURS))
    f, o = statistics.median(floor), statistics.median(ours)
    providers = subprocess.run(
        [sys.executable, "-c", "import webproviders; print(len(webproviders.list_providers()))"],
        check=True, capture_output=True, text=True, env=ENV,
    ).stdout.strip()
    print(f"providers listed:              {providers}")
    print(f"floor  ({FLOOR}): median {f * 1000:.1f} ms")
    print(f"ours   ({OURS}): median {o * 1000:.1f} ms")
    print(f"ratio: {o / f:.2f} x (target <= 1.6)")


if __name__ == "__main__":
    main()
