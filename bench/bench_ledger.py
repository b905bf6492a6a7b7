"""The usage ledger's two costs on their own: a call's hand-off and the writer's work per row.

Run: python bench/bench_ledger.py [--rows 1000] [--runs 15]

The hand-off is ``Ledger.record`` of one unpriced row, timed in blocks of ``--rows`` with the
spool flushed between blocks (untimed); the writer is ``SQLiteUsage.append`` of a batch of
``--rows`` rows, timed as CPU of the calling thread (its SQLite work included). Both are the
best of ``--runs`` blocks, in one thread, so other work on the machine disturbs them little;
:mod:`bench_dispatch` measures what they add to a call end to end.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        os.environ["XDG_DATA_HOME"] = directory  # the rows go here, not to yours
        from webproviders.accounting.usage import Ledger, UsageRecord
        from webproviders.accounting.usage.spool import spool
        from webproviders.accounting.usage.sqlite_store import SQLiteUsage
        from webproviders.config import config_from_dict

        ledger = Ledger(config_from_dict({}, source="bench").web.usage)
        rows = [
            UsageRecord(time.time() + n / 1e6, "stub", "search", "ok", 1.0, "request", 0.0, False, 0.5, {"user": "bench"})
            for n in range(args.rows)
        ]
        hand_off = writer = float("inf")
        store = SQLiteUsage(Path(directory) / "writer.sqlite3", retention_days=30)
        store.append(rows[:1])
        for _ in range(args.runs):
            started = time.perf_counter()
            for row in rows:
                ledger.record(row)
            hand_off = min(hand_off, (time.perf_counter() - started) / args.rows * 1e6)
            spool.flush()
            cpu = time.thread_time()
            store.append(rows)
            writer = min(writer, (time.thread_time() - cpu) / args.rows * 1e6)
        store.close()
    print(f"rows per block: {args.rows}, best of {args.runs} blocks")
    print(f"  hand-off (Ledger.record):         {hand_off:6.2f} us/row")
    print(f"  writer (SQLiteUsage.append), CPU: {writer:6.2f} us/row")


if __name__ == "__main__":
    main()
