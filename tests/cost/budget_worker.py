"""Run in a separate OS process by the shared-budget test: ``python budget_worker.py '<json>'``.

It loads the priced providers with the given ``web`` settings, waits for the
other workers (the ``start_together`` fixture), makes ``calls`` searches as fast as it can
and prints one JSON line: how many were served and how many refused, by error code.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from webproviders import dispatch_search
from webproviders.config import config_from_dict


def wait_for_the_others() -> None:
    """Say this process is ready, then sleep until the moment the test sends once all are."""
    print("ready", flush=True)
    time.sleep(max(0.0, float(sys.stdin.readline()) - time.time()))


def main() -> None:
    job = json.loads(sys.argv[1])
    plugins = str(Path(__file__).parent / "plugins")
    config = config_from_dict({"web": job["web"], "plugins": {"paths": [plugins], "enabled": ["priced"]}})
    dispatch_search("warm-up", backend="free", config=config)
    wait_for_the_others()
    served, refused = 0, {}
    for n in range(job["calls"]):
        envelope = dispatch_search(f"{job['name']} {n}", backend="priced", config=config)
        if envelope["success"]:
            served += 1
        else:
            refused[envelope["error_code"]] = refused.get(envelope["error_code"], 0) + 1
    print(json.dumps({"served": served, "refused": refused}))


if __name__ == "__main__":
    main()
