"""Sync calls from short-lived threads (a server that starts a thread per request).

Each thread's sync calls run on that thread's own event loop, which holds three descriptors
and the connections of its HTTP clients. Once the thread has ended, they must be given back
without waiting for the cyclic garbage collector, which a busy process may not run for a
long time: else a thread-per-request server runs out of descriptors. Run in a fresh process
with the collector off, against real servers on loopback: a page for the ``http`` fetcher,
a SearXNG-shaped answer for a raw-HTTP vendor, both keeping connections alive.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from webproviders import dispatch_search
from webproviders.config import config_from_dict

_SCRIPT = """
import gc, json, os, threading, time, warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

gc.disable()
warnings.simplefilter("error", ResourceWarning)
from webproviders import dispatch_extract, dispatch_search
from webproviders.config import config_from_dict

PAGE = b"<html><head><title>T</title></head><body><article><p>" + b"Some words of text. " * 40 + b"</p></article></body></html>"
ANSWER = json.dumps({"results": [{"url": "https://a.example/", "title": "A", "content": "a"}]}).encode()

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # connections stay open between requests
    def do_GET(self):
        search = self.path.startswith("/search")
        body = ANSWER if search else PAGE
        self.send_response(200)
        self.send_header("Content-Type", "application/json" if search else "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{server.server_port}"
config = config_from_dict({
    "web": {"allowed_hosts": ["127.0.0.1"], "usage": False, "providers": {"searxng": {"base_url": base}}},
})

def work():
    page = dispatch_extract([base + "/page"], backend="http", config=config, timeout=10)
    hits = dispatch_search("q", backend="searxng", config=config, timeout=10)
    assert page["success"] and hits["success"], (page, hits)

def descriptors():
    return len(os.listdir("/proc/self/fd"))

work()
before = descriptors()
for _ in range(40):
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
for _ in range(100):  # the ended threads' loops are closed in the background
    if descriptors() - before <= 6:
        break
    time.sleep(0.05)
print(json.dumps({"before": before, "after": descriptors()}))
"""


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="descriptors are counted in /proc")
def test_the_loops_of_ended_threads_give_their_descriptors_back(tmp_path: Path) -> None:
    script = tmp_path / "threads.py"
    script.write_text(textwrap.dedent(_SCRIPT))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    counts = json.loads(done.stdout.splitlines()[-1])
    # 40 ended threads held 3 descriptors of their loop and 2 connections each; what is
    # left is at most the last thread's, not yet swept.
    assert counts["after"] - counts["before"] <= 6, counts
    assert "ResourceWarning" not in done.stderr, done.stderr[-3000:]


def test_threads_starting_together_each_get_an_envelope() -> None:
    """Threads that start at once each make their loop and sweep the ended ones: every call
    still returns its envelope (none may take another's loop, or raise)."""
    config = config_from_dict({"web": {"usage": False, "cache": False}}, source="<test>")
    envelopes: list[dict[str, object]] = []
    raised: list[BaseException] = []

    def call() -> None:
        try:
            envelopes.append(dispatch_search("q", backend="stub", config=config))
        except BaseException as exc:  # noqa: BLE001 - what the test is looking for
            raised.append(exc)

    for _ in range(15):
        threads = [threading.Thread(target=call) for _ in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert raised == []
    assert len(envelopes) == 300 and all(envelope["success"] for envelope in envelopes)


_OUT_OF_DESCRIPTORS = """
import json, os, threading
from webproviders import dispatch_search

dispatch_search("warm", 2, backend="stub")  # everything a stub call imports is loaded
answers = []

def call():
    try:
        answers.append(dispatch_search("x", 2, backend="stub"))
    except BaseException as exc:
        answers.append({"raised": repr(exc)})

held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
thread = threading.Thread(target=call)  # its loop needs descriptors there are none of
thread.start()
thread.join()
for fd in held:
    os.close(fd)
thread = threading.Thread(target=call)
thread.start()
thread.join()
print(json.dumps(answers))
"""


def test_a_thread_that_gets_no_event_loop_answers_with_an_envelope() -> None:
    """A thread-per-request server at its limit on open files: the call that cannot make its
    thread's loop says so in its envelope instead of raising, and the next one works."""
    done = subprocess.run(
        [sys.executable, "-c", _OUT_OF_DESCRIPTORS], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-3000:]
    starved, later = json.loads(done.stdout)
    assert starved.get("error_code") == "provider_error", starved
    assert "ulimit -n" in starved["error"] and starved["provider"] is None
    assert later["success"], later
