"""A process forked after the library was used calls again like a fresh one (a real subprocess).

A pre-fork server (gunicorn, a ``multiprocessing`` pool with ``fork``) imports and warms the
library in the parent, then forks its workers. The parent's worker threads, event loops and
ledger thread do not exist in the child: a child that handed work to them would wait for
threads that are not there, and every call would time out (a plugin's ``is_available()``
would seem to hang, and the provider be skipped). Rows the parent had queued but not written
are the parent's: a child that wrote them too would count them twice.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

PLUGINS = Path(__file__).parents[1] / "cost" / "plugins"
#: A generous bound on the whole script; each call in it has a deadline of 3 s.
BOUND = 60.0


def _run(
    script: str, tmp_path: Path, *arguments: str, flags: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``script`` run to its end in a fresh interpreter (with ``flags``), its home in
    ``tmp_path`` and ``env`` added; asserted to have succeeded."""
    path = tmp_path / "script.py"
    path.write_text(script)
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **(env or {})}
    if "PYTHONPATH" in os.environ:  # the code under test, wherever this run takes it from
        environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
    done = subprocess.run(
        [sys.executable, *flags, str(path), *arguments], capture_output=True, text=True, timeout=BOUND, env=environment
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


_SCRIPT = """
import os, sys, time
from webproviders import dispatch_search
from webproviders.accounting.usage.spool import spool
from webproviders.config import config_from_dict

config = config_from_dict({{
    "web": {{"retry": {{"backoff": 0.0}}, "budget": {{"daily_usd": 10}}}},
    "plugins": {{"paths": [{plugins!r}], "enabled": ["priced"]}},
}})

def call(query):
    envelope = dispatch_search(query, backend="priced", config=config, timeout=3)
    assert envelope["success"] and envelope["meta"]["served_by"] == "priced", envelope
    assert [a["outcome"] for a in envelope["meta"]["attempts"]] == ["ok"], envelope

for query in ("parent one", "parent two"):
    call(query)
time.sleep(0.2)  # the parent's worker threads are idle, ready for the next call
pid = os.fork()
if pid == 0:
    code = 1
    try:
        call("child one")
        call("child two")
        code = 0 if spool.flush(3) else 2
    finally:
        os._exit(code)
_, status = os.waitpid(pid, 0)
call("parent three")
assert spool.flush(3)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no os.fork here")
def test_a_forked_child_calls_again_and_its_usage_is_counted_once(tmp_path: Path) -> None:
    rows = _ledger_after(_SCRIPT, tmp_path)
    assert rows == [("priced", "ok")] * 5  # three calls of the parent, two of the child, each once


def _ledger_after(script: str, tmp_path: Path, *arguments: str) -> list[tuple[str, str]]:
    """The usage ledger's rows once ``script`` has run in a fresh process and succeeded."""
    _run(textwrap.dedent(script.format(plugins=str(PLUGINS))), tmp_path, *arguments, env={"XDG_DATA_HOME": str(tmp_path / "data")})
    ledger = sqlite3.connect(tmp_path / "data" / "webproviders" / "usage.sqlite3")
    try:
        return ledger.execute("SELECT provider, outcome FROM usage").fetchall()
    finally:
        ledger.close()


_MULTIPROCESSING_SCRIPT = """
import multiprocessing, sys
from webproviders import dispatch_search
from webproviders.accounting.usage.spool import spool
from webproviders.config import config_from_dict

config = config_from_dict({{"plugins": {{"paths": [{plugins!r}], "enabled": ["priced"]}}}})

def call(query):
    envelope = dispatch_search(query, backend="priced", config=config, timeout=3)
    assert envelope["success"], envelope

def child():
    call("child one")
    call("child two")  # and return at once: the child leaves through os._exit

if __name__ == "__main__":
    call("parent")
    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    process.join(30)
    assert spool.flush(3)
    sys.exit(process.exitcode)
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no os.fork here")
def test_a_multiprocessing_child_s_last_calls_reach_the_ledger(tmp_path: Path) -> None:
    """A ``multiprocessing`` child ends with ``os._exit``, which skips ``atexit``: rows its
    last calls queued must still be written, or its spending goes uncounted."""
    assert _ledger_after(_MULTIPROCESSING_SCRIPT, tmp_path) == [("priced", "ok")] * 3


_POOL_SCRIPT = """
import multiprocessing, sys

def call(query):
    from webproviders import dispatch_search  # the worker is the first to load the library
    from webproviders.config import config_from_dict

    config = config_from_dict({{"plugins": {{"paths": [{plugins!r}], "enabled": ["priced"]}}}})
    envelope = dispatch_search(query, backend="priced", config=config, timeout=3)
    assert envelope["success"], envelope

if __name__ == "__main__":
    with multiprocessing.get_context(sys.argv[1]).Pool(1) as pool:
        pool.map(call, ["one", "two"])
        pool.close()
        pool.join()
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_a_pool_worker_that_loads_the_library_itself_writes_its_last_rows(tmp_path: Path, method: str) -> None:
    """Pool workers often import the library in their task, not the parent before the fork:
    such a worker also leaves through ``os._exit``, and the rows of its last call must be
    written all the same. Before, only a child whose parent had loaded the library flushed."""
    assert _ledger_after(_POOL_SCRIPT, tmp_path, method) == [("priced", "ok")] * 2


_EPOLL_SCRIPT = """
import gc, os, sys, time
from webproviders import dispatch_search
from webproviders.config import config_from_dict
from webproviders.registry.providers import get_registry

config = config_from_dict({{
    "web": {{"cache": False, "usage": False}},
    "plugins": {{"paths": [{plugins!r}], "enabled": ["hedgers"]}},
}})

def call(query):
    started = time.monotonic()
    envelope = dispatch_search(query, backend="sync-1", config=config, timeout=10)
    assert envelope["success"], envelope
    return time.monotonic() - started

call("warm")
get_registry(config).get("sync-1").provider.delay = 0.2  # the loop sleeps until its thread answers
pid = os.fork()
if pid == 0:
    gc.collect()  # frees what the child let go of, as any child that goes on working does
    os._exit(0)
os.waitpid(pid, 0)
print(call("after the child"))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_a_child_leaves_the_parent_s_loop_awake(tmp_path: Path) -> None:
    """The child inherits the parent's event loops, whose epoll set it shares: a child that
    closed them (freeing them does) took the parent's wake-up descriptor out of that set, and
    the parent's next call slept through its worker thread's answer until its deadline."""
    done = _run(_EPOLL_SCRIPT.format(plugins=str(Path(__file__).parents[1] / "dependable" / "plugins")), tmp_path)
    assert float(done.stdout.split()[-1]) < 5.0  # half its deadline: it did not sleep through


_MID_BUILD_SCRIPT = """
import os, sys, threading, time
from pathlib import Path
from webproviders import dispatch_search
from webproviders.config import config_from_dict

plugin = Path({folder!r}) / "slow-start"
plugin.mkdir(parents=True)
(plugin / "plugin.yaml").write_text("name: slow-start\\nkind: backend\\n")
started = plugin.parent / "started"
(plugin / "__init__.py").write_text(
    "import pathlib, time\\n"
    "def register(ctx):\\n"
    f"    pathlib.Path({{str(started)!r}}).touch()\\n"
    "    time.sleep(1)\\n"
)
config = config_from_dict({{
    "web": {{"cache": False, "usage": False}},
    "plugins": {{"paths": [str(plugin.parent)], "enabled": ["slow-start", "stub"]}},
}})
warming = threading.Thread(target=dispatch_search, args=("warm",), kwargs={{"backend": "stub", "config": config}})
warming.start()  # an application warming the library up in the background as it starts
while not started.exists():
    time.sleep(0.01)
pid = os.fork()  # while the registry is being built on the warming thread
if pid == 0:
    envelope = dispatch_search("child", backend="stub", config=config, timeout=10)
    os._exit(0 if envelope["success"] else 1)
_, status = os.waitpid(pid, 0)
warming.join()
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_a_child_forked_while_plugins_load_loads_them_itself(tmp_path: Path) -> None:
    """The build the child inherited runs on a thread of the parent's: waiting for it, every
    call of the child with that config timed out, for as long as the child lived."""
    _run(_MID_BUILD_SCRIPT.format(folder=str(tmp_path / "plugins")), tmp_path)


_HUNG_SCRIPT = """
import asyncio, os, sys
from pathlib import Path
from webproviders import adispatch_search, dispatch_search
from webproviders.config import config_from_dict

config = config_from_dict({{
    "web": {{"cache": False, "usage": False, "retry": {{"max_retries": 0}}, "health": {{"failures": 1000}}}},
    "plugins": {{"paths": [{plugins!r}], "enabled": ["stuck-one"]}},
}})

async def hang():  # eight calls whose threads stay stuck in the provider past their deadlines
    return await asyncio.gather(*(adispatch_search(f"q{{i}}", backend="stuck", config=config, timeout=0.5) for i in range(8)))

asyncio.run(hang())
pid = os.fork()
if pid == 0:
    Path(os.environ["STUCK_RELEASE"]).touch()  # the provider answers at once now
    envelope = dispatch_search("child", backend="stuck", config=config, timeout=5)
    os._exit(0 if envelope["success"] else 1)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_a_child_does_not_inherit_the_parent_s_hung_calls(
    tmp_path: Path, write_plugin: Any, stuck_provider: tuple[str, Path]
) -> None:
    """The parent's stuck calls run on its threads, which the child does not have: counted in
    the child, they never returned, and the provider was refused there for good ("stuck has
    8 calls still running past their deadlines")."""
    code, release = stuck_provider
    plugins = write_plugin("stuck-one", code + "\n\ndef register(ctx):\n    ctx.register_web_search_provider(Stuck())\n")
    try:
        _run(_HUNG_SCRIPT.format(plugins=str(plugins)), tmp_path, env={"STUCK_RELEASE": str(release)})
    finally:
        release.touch()


#: The two scripts below fork once a thread of theirs is blocked reading ``fifo``.
_FORK_WHILE_FIFO_READ = """while True:  # until that thread reads the FIFO: a writer opens only once a reader waits
    try:
        writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        break
    except OSError:
        time.sleep(0.01)
time.sleep(0.2)
pid = os.fork()
"""
#: The parent's side of the two scripts below: the child's call must return within 20 s.
_WAIT_FOR_CHILD = """given_up = time.monotonic() + 20
while os.waitpid(pid, os.WNOHANG) == (0, 0):
    if time.monotonic() > given_up:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        print(json.dumps([False, "the child's call had not returned after 20 s", 20]), flush=True)
        break
    time.sleep(0.05)
"""


#: A thread makes the first vendor client, reading the CA bundle (a FIFO that answers only when
#: the script writes to it), as the main thread forks; the child then makes a call of its own.
_CLIENT_BEING_MADE_SCRIPT = (
    """
import json, os, sys, threading, time, warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import certifi

warnings.simplefilter("ignore", DeprecationWarning)  # fork() with threads: the point here
fifo = sys.argv[1]
os.mkfifo(fifo)
os.environ["SSL_CERT_FILE"] = fifo

from webproviders import dispatch_search
from webproviders.config import config_from_dict

ANSWER = json.dumps({"results": [{"url": "https://a.example/", "title": "A", "content": "a"}]}).encode()

class Vendor(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)
    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Vendor)
threading.Thread(target=server.serve_forever, daemon=True).start()
config = config_from_dict({"web": {"usage": False, "cache": False, "providers": {
    "searxng": {"base_url": f"http://127.0.0.1:{server.server_address[1]}"}}}})

first = threading.Thread(target=dispatch_search, args=("first",), kwargs={"backend": "searxng", "config": config, "timeout": 30})
first.start()
"""
    + _FORK_WHILE_FIFO_READ
    + """if pid == 0:
    os.close(writer)
    os.environ["SSL_CERT_FILE"] = certifi.where()
    started = time.monotonic()
    answer = dispatch_search("child", backend="searxng", config=config, timeout=5)
    print(json.dumps([answer["success"], answer.get("error"), round(time.monotonic() - started, 2)]), flush=True)
    os._exit(0)
"""
    + _WAIT_FOR_CHILD
    + """with open(certifi.where(), "rb") as bundle:
    os.set_blocking(writer, True)
    os.write(writer, bundle.read())
os.close(writer)
first.join()
"""
)


#: A thread loads the default config (its file a FIFO that answers only when the script writes
#: to it) as the main thread forks; the child then makes a call of its own with the default config.
_CONFIG_BEING_READ_SCRIPT = (
    """
import json, os, sys, threading, time, warnings

warnings.simplefilter("ignore", DeprecationWarning)  # fork() with threads: the point here
fifo = sys.argv[1]
os.mkfifo(fifo)
os.environ["WEBPROVIDERS_CONFIG"] = fifo

from webproviders import dispatch_search

first = threading.Thread(target=dispatch_search, args=("first",), kwargs={"backend": "stub", "timeout": 30})
first.start()
"""
    + _FORK_WHILE_FIFO_READ
    + """if pid == 0:
    os.close(writer)
    del os.environ["WEBPROVIDERS_CONFIG"]
    started = time.monotonic()
    answer = dispatch_search("child", backend="stub", timeout=5)
    print(json.dumps([answer["success"], answer.get("error"), round(time.monotonic() - started, 2)]), flush=True)
    os._exit(0)
"""
    + _WAIT_FOR_CHILD
    + """os.set_blocking(writer, True)
os.write(writer, b"web: {usage: false}")
os.close(writer)
first.join()
"""
)


def _child_s_call(script: str, tmp_path: Path) -> tuple[bool, str | None]:
    """Whether the child's call in ``script`` succeeded, and its error."""
    done = _run(script, tmp_path, str(tmp_path / "blocks.fifo"))
    success, error, _seconds = json.loads(done.stdout)
    return success, error


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
@pytest.mark.parametrize("script", [_CLIENT_BEING_MADE_SCRIPT, _CONFIG_BEING_READ_SCRIPT], ids=["vendor client", "config"])
def test_a_child_forked_while_a_thread_holds_a_lock_calls_by_its_deadline(script: str, tmp_path: Path) -> None:
    """A lock the parent's thread held as it read a file (the CA bundle for its first vendor
    client, the default config) stayed held in the child, where no thread would let go of it:
    the child's call waited on it for good."""
    success, error = _child_s_call(script, tmp_path)
    assert success, error


_IN_FLIGHT_SCRIPT = """
import os, sys, threading, time
from webproviders import dispatch_search
from webproviders.config import config_from_dict
from webproviders.registry.providers import get_registry

config = config_from_dict({{
    "web": {{"retry": {{"backoff": 0.0}}, "budget": {{"daily_usd": 0.006}}}},
    "plugins": {{"paths": [{plugins!r}], "enabled": ["priced"]}},
}})
priced = get_registry(config).get("priced").provider
priced.steps = [1.0]  # the parent's request takes a second
out = threading.Thread(target=dispatch_search, args=("parent",), kwargs={{"backend": "priced", "config": config}})
out.start()
while not priced.calls:  # its $0.004 is reserved, not spent
    time.sleep(0.01)
pid = os.fork()
if pid == 0:
    refused = dispatch_search("child", backend="priced", config=config, timeout=3)
    said = refused.get("error", "")
    os._exit(0 if refused.get("error_code") == "budget_exceeded" and "in this process" not in said else 1)
out.join()
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no os.fork here")
def test_a_child_does_not_count_the_parent_s_requests_under_way_as_its_own(tmp_path: Path) -> None:
    """A budget refusal tells what requests under way in this process reserved from what is
    spent; a child forked while the parent's request was out said that request was its own,
    still under way, for the rest of the day."""
    assert _ledger_after(_IN_FLIGHT_SCRIPT, tmp_path) == [("priced", "ok")]


#: A page served on 127.0.0.1 by a thread of the script (``server``), for the scripts below.
_PAGE_SERVER = """
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from webproviders import dispatch_extract
from webproviders.config import config_from_dict

PAGE = b"<html><head><title>T</title></head><body><article><p>" + b"Some words of text. " * 40 + b"</p></article></body></html>"

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)
    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
"""

_EXTRACTION_WORKERS_SCRIPT = _PAGE_SERVER + """
import os, sys
page = f"http://127.0.0.1:{server.server_port}/page"
config = config_from_dict({"web": {"allowed_hosts": ["127.0.0.1"], "usage": False}})

def extract():
    envelope = dispatch_extract([page], backend="http", config=config, timeout=20)
    assert envelope["success"], envelope

extract()  # the parent's extraction worker runs, idle, as the process forks
pid = os.fork()
if pid == 0:
    code = 1
    try:
        extract()
        code = 0
    finally:
        os._exit(code)
_, status = os.waitpid(pid, 0)
extract()
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_a_child_leaves_the_parent_s_extraction_workers_without_a_warning(tmp_path: Path) -> None:
    """A forked child drops the parent's extraction workers and starts its own; each dropped
    one, a process still running (the parent's), printed a ResourceWarning in every child."""
    done = _run(
        _EXTRACTION_WORKERS_SCRIPT, tmp_path, flags=("-X", "dev", "-W", "error::ResourceWarning"),
        env={"XDG_DATA_HOME": str(tmp_path / "data")},
    )
    assert "ResourceWarning" not in done.stderr, done.stderr[-3000:]


_INDEX_WRITE_SCRIPT = _PAGE_SERVER + """
import os, sqlite3, sys, time
from webproviders.index import autofill
index = sys.argv[1]
holder = sqlite3.connect(index, isolation_level=None)
holder.execute("BEGIN EXCLUSIVE")  # the parent's write waits for it
config = config_from_dict({
    "web": {
        "allowed_hosts": ["127.0.0.1"], "usage": False, "local": {"index": True},
        "providers": {"local": {"path": index, "busy_timeout": 60}},
    },
})
envelope = dispatch_extract([f"http://127.0.0.1:{server.server_port}/page"], backend="http", config=config, timeout=20)
assert envelope["success"], envelope
while autofill.wait_for_writes(0):  # until the page's write is queued
    time.sleep(0.01)
pid = os.fork()
if pid == 0:
    os._exit(0 if autofill.wait_for_writes(5) else 1)  # the child queued none
_, status = os.waitpid(pid, 0)
holder.rollback()
assert autofill.wait_for_writes(60)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_a_child_does_not_wait_for_the_parent_s_index_writes(tmp_path: Path) -> None:
    """Writes to the local index the parent had queued as it forked are its own: the child
    counted them as its, which never ended there, so its exit waited for them and logged
    that they were dropped because the index did not answer."""
    _run(_INDEX_WRITE_SCRIPT, tmp_path, str(tmp_path / "index.sqlite3"), env={"XDG_DATA_HOME": str(tmp_path / "data")})


_IMPORT_UNDER_WAY_SCRIPT = """
import importlib.abc, json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

for name in [name for name in sys.modules if name.split(".")[0] in ("httpx", "httpcore", "h11")]:
    del sys.modules[name]
started, release = threading.Event(), threading.Event()

class SlowDisk(importlib.abc.MetaPathFinder):
    \"\"\"h11's import waits for ``release``, as a cold import on a busy machine takes its time.\"\"\"
    def find_spec(self, name, path=None, target=None):
        if name == "h11":
            started.set()
            release.wait()
        return None

sys.meta_path.insert(0, SlowDisk())
from webproviders import dispatch_search
from webproviders.config import config_from_dict

ANSWER = json.dumps({"results": [{"url": "https://a.example/", "title": "A", "content": "a"}]}).encode()

class Vendor(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)
    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Vendor)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
config = config_from_dict({"web": {"usage": False, "cache": False, "providers": {
    "searxng": {"base_url": f"http://127.0.0.1:{server.server_address[1]}"}}}})

first = threading.Thread(target=dispatch_search, args=("first",), kwargs={"backend": "searxng", "config": config, "timeout": 30})
first.start()
started.wait()  # the HTTP stack is being imported on the library's import thread
threading.Timer(0.5, release.set).start()
pid = os.fork()
if pid == 0:
    answer = dispatch_search("child", backend="searxng", config=config, timeout=5)
    os._exit(0 if answer["success"] else 1)
_, status = os.waitpid(pid, 0)
first.join()
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_a_child_forked_while_the_http_stack_is_imported_calls(tmp_path: Path) -> None:
    """A module being imported on the library's import thread as the process forked kept its
    import lock held in the child, where that thread does not exist: every call of the child
    timed out, saying the HTTP client was still loading. The fork now waits for the import."""
    _run(_IMPORT_UNDER_WAY_SCRIPT, tmp_path)


_SET_UP_UNDER_WAY_SCRIPT = """
import importlib.abc, os, sys, threading

for name in [name for name in sys.modules if name.startswith("opentelemetry")]:
    del sys.modules[name]
import opentelemetry.trace  # an application that sets up tracing imports the API: calls then set theirs up
started, release = threading.Event(), threading.Event()

class SlowDisk(importlib.abc.MetaPathFinder):
    \"\"\"OpenTelemetry's import waits for ``release``, as a cold import on a busy machine takes its time.\"\"\"
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry.metrics":
            started.set()
            release.wait()
        return None

sys.meta_path.insert(0, SlowDisk())
from webproviders import dispatch_search
from webproviders.config import config_from_dict
from webproviders.registry.providers import get_registry

config = config_from_dict({"web": {"usage": False, "cache": False}})
get_registry(config).load_all()  # the plugins' code is loaded: the first call only sets up
first = threading.Thread(target=dispatch_search, args=("first",), kwargs={"backend": "stub", "config": config, "timeout": 30})
first.start()
started.wait()  # the first call's dispatch state is being set up, its telemetry imported
threading.Timer(0.5, release.set).start()
pid = os.fork()
if pid == 0:
    answer = dispatch_search("child", backend="stub", config=config, timeout=5)
    os._exit(0 if answer["success"] else 1)
_, status = os.waitpid(pid, 0)
first.join()
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_a_child_forked_while_a_config_s_first_call_sets_up_calls(tmp_path: Path) -> None:
    """A thread setting up a config's dispatch state (importing OpenTelemetry for it) as the
    process forked held its lock in the child for good: the child's call with that config
    waited on it past its deadline, for ever. The fork now waits for the set-up."""
    pytest.importorskip("opentelemetry.trace")
    _run(_SET_UP_UNDER_WAY_SCRIPT, tmp_path)


_PLUGIN_BEING_IMPORTED_SCRIPT = """
import os, sys, threading, time
from pathlib import Path
from webproviders import dispatch_search
from webproviders.config import config_from_dict

root = Path(sys.argv[1])
plugin = root / "slowimp"
plugin.mkdir(parents=True)
(plugin / "plugin.yaml").write_text(
    "name: slowimp\\nkind: backend\\nhooks: []\\nproviders:\\n  - name: slowimp\\n    capabilities: [search]\\n"
)
started, release = root / "started", root / "release"
(plugin / "__init__.py").write_text(
    "import pathlib, time\\n"
    f"pathlib.Path({str(started)!r}).touch()\\n"
    f"while not pathlib.Path({str(release)!r}).exists():\\n"
    "    time.sleep(0.01)\\n"
    "from webproviders import WebSearchProvider\\n"
    "class Slow(WebSearchProvider):\\n"
    "    name = 'slowimp'\\n"
    "    def is_available(self):\\n"
    "        return True\\n"
    "    def search(self, query, limit=5, **options):\\n"
    "        return [{'title': query, 'url': 'https://slowimp.example/'}]\\n"
    "def register(ctx):\\n"
    "    ctx.register_web_search_provider(Slow())\\n"
)
config = config_from_dict({"web": {"cache": False, "usage": False}, "plugins": {"paths": [str(root)], "enabled": ["slowimp"]}})
first = threading.Thread(target=dispatch_search, args=("first",), kwargs={"backend": "slowimp", "config": config, "timeout": 30})
first.start()
while not started.exists():  # the plugin's module is being imported on its first use
    time.sleep(0.01)
threading.Timer(0.5, release.touch).start()
pid = os.fork()
if pid == 0:
    envelope = dispatch_search("child", backend="slowimp", config=config, timeout=5)
    os._exit(0 if envelope["success"] else 1)
_, status = os.waitpid(pid, 0)
first.join()
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
def test_a_child_forked_while_a_plugin_is_imported_uses_it(tmp_path: Path) -> None:
    """A plugin's module half imported on the parent's thread as the process forked stayed
    half imported in the child: its load there found no register() and failed the plugin for
    good ("failed to load"). The fork now waits for the load."""
    _run(_PLUGIN_BEING_IMPORTED_SCRIPT, tmp_path, str(tmp_path / "plugins"))
