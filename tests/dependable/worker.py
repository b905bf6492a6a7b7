"""Run in a separate OS process by the multi-process tests: ``python worker.py '<json>'``.

It builds a config with the scriptable providers plus the given ``web`` settings, waits
for the others when the job says ``together`` (the ``start_together`` fixture), then either searches
once (``"once"``) or keeps searching with fresh queries until ``duration`` has passed
(``"loop"``), each call with a deadline that ends with the run. Prints one JSON line.
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
    config = config_from_dict({"web": job["web"], "plugins": {"paths": [plugins], "enabled": ["fakes"]}})
    dispatch_search("warm-up", backend="stub", config=config, cache=False)
    if job.get("together"):
        wait_for_the_others()
    started = time.time()
    if job["mode"] == "once":
        envelope = dispatch_search(job["query"], backend=job["backend"], config=config)
        print(json.dumps({"success": envelope["success"], "cached": envelope["meta"].get("cached"),
                          "error": envelope.get("error")}))
        return
    end = started + job["duration"]
    sent = refused = 0
    while (left := end - time.time()) > 0.01:
        envelope = dispatch_search(f"{job['query']}-{sent}-{refused}", backend=job["backend"], config=config,
                                   timeout=left, cache=False)
        if envelope["success"]:
            sent += 1
        else:
            refused += 1
            time.sleep(0.02)  # no slot left before the end: do not spin
    print(json.dumps({"sent": sent, "refused": refused}))


if __name__ == "__main__":
    main()
