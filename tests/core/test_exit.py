"""A call abandoned at its deadline never holds the process open after it (a real subprocess).

A sync provider stuck in a read without a timeout, or a name lookup on a resolver that never
answers (a server whose configured nameserver is unreachable: the operating system's resolver
then waits its own timeouts, 10 s and more), is abandoned when the call's deadline passes.
The thread it is stuck in must not keep the script, ``asyncio.run`` or the ``webproviders``
command waiting at exit for as long as the stuck work lasts. Each process here would hang
for ``STUCK`` seconds if it did; the bound checked is generous.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

#: How long the stuck work would last; a process that waits for it fails the test.
STUCK = 300
#: What a process that does not wait for it may take, start-up and the deadline included.
BOUND = 30.0

_STUCK_PROVIDER = f"""
import time
from webproviders import WebSearchProvider

class Stuck(WebSearchProvider):
    name = "stuck"
    def is_available(self):
        return True
    def search(self, query, limit=5, **options):
        time.sleep({STUCK})
        return []

def register(ctx):
    ctx.register_web_search_provider(Stuck())
"""

#: The operating system's resolver with a nameserver that never answers (in the child only).
_SILENT_RESOLVER = f"""
import socket, time

def _silent(*args, **kwargs):
    time.sleep({STUCK})
    raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

socket.getaddrinfo = _silent
"""


def _finishes(args: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    result = subprocess.run(
        args, capture_output=True, text=True, timeout=STUCK - 60, env={**os.environ, **(env or {})}
    )
    return result, time.monotonic() - started


def _script(tmp_path: Path, body: str, prelude: str = "") -> list[str]:
    path = tmp_path / "script.py"
    path.write_text(prelude + textwrap.dedent(body), encoding="utf-8")
    return [sys.executable, str(path)]


@pytest.fixture
def stuck_config(write_plugin: Any, tmp_path: Path) -> Path:
    root = write_plugin("stuck", _STUCK_PROVIDER, [{"name": "stuck", "capabilities": ["search"], "fetch": "none"}])
    path = tmp_path / "config.yaml"
    path.write_text(f"web: {{cache: false, usage: false}}\nplugins: {{paths: ['{root}'], enabled: [stuck]}}\n")
    return path


@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_stuck_sync_provider_does_not_hold_the_script_open(stuck_config: Path, tmp_path: Path, how: str) -> None:
    call = (
        "dispatch_search('q', backend='stuck', config=config, timeout=0.5)"
        if how == "sync"
        else "asyncio.run(adispatch_search('q', backend='stuck', config=config, timeout=0.5))"
    )
    result, took = _finishes(_script(tmp_path, f"""
        import asyncio
        from webproviders import adispatch_search, dispatch_search, load_config
        config = load_config({str(stuck_config)!r})
        print({call}["error_code"])
    """))
    assert result.stdout.strip() == "timeout", result.stderr
    assert took < BOUND


def test_a_stuck_sync_provider_does_not_hold_the_command_open(stuck_config: Path) -> None:
    result, took = _finishes(
        [sys.executable, "-m", "webproviders.cli", "--config", str(stuck_config), "search", "q", "--backend", "stuck"],
        env={"WEB_TIMEOUT": "0.5"},
    )
    assert result.returncode == 6 and "[timeout]" in result.stderr
    assert took < BOUND


@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_lookup_the_resolver_never_answers_does_not_hold_the_script_open(tmp_path: Path, how: str) -> None:
    extract = "dispatch_extract(['http://site.test/'], backend='http', config=config, timeout=0.5)"
    if how == "async":
        extract = f"asyncio.run(a{extract})"
    result, took = _finishes(_script(tmp_path, f"""
        import asyncio
        from webproviders import adispatch_extract, dispatch_extract, dispatch_search
        from webproviders.config import config_from_dict
        config = config_from_dict({{"web": {{"cache": False, "usage": False, "providers": {{
            "brave": {{"api_key": "test-key-123", "base_url": "http://vendor.test:9"}}}}}}}})
        print({extract}["error_code"])
        print(dispatch_search("q", backend="brave", config=config, timeout=0.5)["error_code"])
    """, prelude=_SILENT_RESOLVER))
    assert result.stdout.split() == ["timeout", "timeout"], result.stderr
    assert took < BOUND


_CALLS_AT_SHUTDOWN = """
import gzip, json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from webproviders import dispatch_extract, dispatch_search
from webproviders.config import config_from_dict

# Text that does not shrink much: its gzip body is over the size that is decoded in a thread.
PAGE = gzip.compress(("<html><body><article><p>" + os.urandom(3000).hex() + "</p></article></body></html>").encode())

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)
    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
config = config_from_dict({"web": {
    "allowed_hosts": ["127.0.0.1"], "usage": False,
    "cache": {"backend": "sqlite", "path": sys.argv[1]},
    "providers": {"http": {"respect_robots": False}},
}})

def late():
    threading.main_thread().join()  # the interpreter is shutting down, this thread still runs
    answers = [
        dispatch_extract(f"http://127.0.0.1:{server.server_address[1]}/page", backend="http", config=config, timeout=10),
        dispatch_search("a query", backend="stub", config=config, timeout=10),
    ]
    print(json.dumps([[a["success"], a.get("error"), [w for w in a["meta"].get("warnings", []) if "cache" in w]]
                      for a in answers]))

threading.Thread(target=late).start()
"""


#: Python 3.12.0 to 3.12.2 start no thread once the main thread has returned (CPython gh-113964).
NO_THREADS_AT_EXIT = (3, 12, 0) <= sys.version_info[:3] < (3, 12, 3)


@pytest.mark.skipif(NO_THREADS_AT_EXIT, reason="this Python starts no thread once the main thread has returned")
def test_calls_in_another_thread_work_as_the_interpreter_shuts_down(tmp_path: Path) -> None:
    """A script whose main thread returns while its other threads still call (the interpreter
    joins them): the library's pools took no more work then, as ``ThreadPoolExecutor`` does
    not, and a compressed page failed as the provider's error, the cache as failing."""
    result, _ = _finishes([*_script(tmp_path, _CALLS_AT_SHUTDOWN), str(tmp_path / "cache.sqlite3")])
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout) == [[True, None, []], [True, None, []]], result.stderr[-3000:]


@pytest.mark.skipif(not NO_THREADS_AT_EXIT, reason="threads start while the interpreter waits for others")
def test_a_call_that_finds_no_thread_as_the_interpreter_exits_says_so(tmp_path: Path) -> None:
    """Where Python refuses the call its threads, the sentence says why and what to do: before,
    it blamed the process's limits of open files and threads, which were nowhere near."""
    result, _ = _finishes([*_script(tmp_path, _CALLS_AT_SHUTDOWN), str(tmp_path / "cache.sqlite3")])
    assert result.returncode == 0, result.stderr[-3000:]
    for success, error, _warnings in json.loads(result.stdout):
        assert success is False, error
        assert "Python 3.12.0 to 3.12.2 start no thread once its main thread has returned" in error, error
        assert "ulimit" not in error, error
