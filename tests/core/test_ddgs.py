"""The keyless ``ddgs`` provider, end to end: the real ddgs package in its worker process,
talking through ``web.proxy`` to a loopback proxy that answers for html.duckduckgo.com with
saved DuckDuckGo pages (over TLS, with a test CA the worker trusts through SSL_CERT_FILE).
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from webproviders import dispatch_search
from webproviders.envelope import MAX_HIT_CHARS

pytest.importorskip("ddgs")
PAGES = Path(__file__).parent.parent / "vendors_keyless_google" / "pages"
HOST = "html.duckduckgo.com"


def _ca_and_leaf(directory: Path, host: str) -> tuple[Path, Path, Path]:
    """A test CA (``ca.pem``) and a certificate it signed for ``host`` (rustls refuses a CA as a leaf)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "webproviders test CA")])

    def certificate(subject: Any, public_key: Any, ca: bool) -> Any:
        builder = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(ca_name)
            .public_key(public_key)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        return builder.sign(ca_key, hashes.SHA256())

    ca = certificate(ca_name, ca_key.public_key(), True)
    leaf = certificate(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]), key.public_key(), False)
    paths = directory / "ca.pem", directory / "leaf.pem", directory / "leaf.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return paths


@dataclass
class Proxy:
    """A loopback HTTP proxy that terminates TLS for ``HOST`` and answers with ``page``.

    ``mode``: ``answer`` (the page), ``hang`` (accept, then never answer), ``refuse``
    (answer CONNECT with 502), ``echo`` (with 403, quoting the credentials sent), ``credentials``
    (answer it with 407), ``endless`` (a page that never ends). ``forms`` holds the form of each search it saw,
    ``times`` when each request (its ``CONNECT``) arrived (``time.monotonic()``).
    """

    url: str
    page: str = "ddg_results.html"
    mode: str = "answer"
    forms: list[dict[str, str]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)


@pytest.fixture
def proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Proxy]:
    ca, leaf, key = _ca_and_leaf(tmp_path, HOST)
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(leaf, key)
    listener = socket.create_server(("127.0.0.1", 0))
    state = Proxy(f"http://127.0.0.1:{listener.getsockname()[1]}")
    stop = threading.Event()
    held: list[socket.socket] = []

    def handle(conn: socket.socket) -> None:
        with conn:
            head = _read_head(conn)
            state.times.append(time.monotonic())
            if state.mode == "hang" or not head:
                held.append(conn)
                stop.wait()
                return
            if state.mode == "refuse":
                conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                return
            if state.mode == "echo":  # a refusal quoting the credentials it was sent
                sent = re.search(rb"(?im)^proxy-authorization:\s*basic\s+(\S+)", head)
                basic = sent.group(1) if sent else b"-"
                quoted = base64.b64decode(basic) if sent else b"-"
                conn.sendall(b"HTTP/1.1 403 Denied " + quoted + b" (Basic " + basic + b")\r\nContent-Length: 0\r\n\r\n")
                return
            if state.mode == "credentials":
                conn.sendall(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\n"
                    b"Content-Length: 0\r\n\r\n"
                )
                return
            if state.mode == "endless":
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                with tls.wrap_socket(conn, server_side=True) as inner:
                    _read_head(inner)
                    inner.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n")
                    chunk = b"%x\r\n%s\r\n" % (1 << 20, b"<p>" + b"x" * ((1 << 20) - 3))
                    with contextlib.suppress(OSError):
                        while not stop.is_set():
                            inner.sendall(chunk)
                return
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            with tls.wrap_socket(conn, server_side=True) as inner:
                request = _read_head(inner)
                length = int(re.search(rb"(?im)^content-length:\s*(\d+)", request).group(1))  # type: ignore[union-attr]
                body = request.split(b"\r\n\r\n", 1)[1]
                while len(body) < length:
                    body += inner.recv(65536)
                state.forms.append({k: v[0] for k, v in parse_qs(body.decode(), keep_blank_values=True).items()})
                page = (PAGES / state.page).read_bytes()
                inner.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\n"
                    + f"Content-Length: {len(page)}\r\nConnection: close\r\n\r\n".encode()
                    + page
                )

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    yield state
    stop.set()
    listener.close()


def _read_head(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    return data


@pytest.fixture
def ddgs_config(make_config: Any, proxy: Proxy) -> Callable[..., Any]:
    def build(**settings: Any) -> Any:
        own = {"backend": "duckduckgo", "max_retries": 0, **settings}
        return make_config(web={"proxy": proxy.url, "cache": False, "providers": {"ddgs": own}})

    return build


def worker_processes() -> list[int]:
    """Our live ddgs worker processes (children of this process running the worker script)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and b"ddgs/worker.py" in cmdline:
            found.append(int(entry.name))
    return found


def test_results_are_normalised(proxy: Proxy, ddgs_config: Callable[..., Any]) -> None:
    envelope = dispatch_search("rust async", 5, backend="ddgs", config=ddgs_config(), timeout=20)
    assert envelope["success"] is True, envelope
    hits = {hit["url"]: hit for hit in envelope["data"]["web"]}
    assert [hit["position"] for hit in envelope["data"]["web"]] == list(range(1, len(hits) + 1))
    book = hits["https://doc.rust-lang.org/book/ch17-00-async-await.html"]  # ddgs ranks them its own way
    assert book["title"].startswith("Fundamentals of Asynchronous Programming")
    assert book["description"].startswith("Learn how async and await work in Rust")
    assert proxy.forms[0]["q"] == "rust async"
    assert len(dispatch_search("rust async", 2, backend="ddgs", config=ddgs_config(), timeout=20)["data"]["web"]) == 2


@pytest.mark.parametrize(
    ("query", "sent"),
    [("rust async !w", "rust async '!w'"), ("!g rust async", "'!g' rust async"), ("\\rust async", '"\\rust" async')],
)
def test_a_bang_or_a_leading_backslash_reaches_duckduckgo_quoted(
    proxy: Proxy, ddgs_config: Callable[..., Any], query: str, sent: str
) -> None:
    """ddgs posts the query to DuckDuckGo as given and follows redirects: ``!w`` sent the
    search on to Wikipedia, and a leading ``\\`` to the first result's page, fetched from this
    machine. Quoted (as ``ddg_html`` sends them), DuckDuckGo searches them as words."""
    envelope = dispatch_search(query, 5, backend="ddgs", config=ddgs_config(), timeout=20)
    assert envelope["success"] is True and envelope["data"]["web"], envelope
    assert proxy.forms[0]["q"] == sent


def test_engines_given_as_a_list_are_searched(proxy: Proxy, ddgs_config: Callable[..., Any]) -> None:
    """docs/providers/stub-ddgs.md: ``backend`` is ``auto`` or a list of engines. A YAML list
    reached ddgs as its Python text, ``['duckduckgo']``, which names no engine, so ddgs asked
    every engine it has instead (one connection through the proxy each)."""
    envelope = dispatch_search("rust async", 5, backend="ddgs", config=ddgs_config(backend=["duckduckgo"]), timeout=20)
    assert envelope["success"] is True and envelope["data"]["web"], envelope
    assert len(proxy.times) == 1 and proxy.forms[-1]["q"] == "rust async"


def test_an_engine_ddgs_does_not_have_is_named_in_the_warnings(proxy: Proxy, ddgs_config: Callable[..., Any]) -> None:
    """ddgs has turned Bing and Google off: a backend naming them searched the other engines
    (or every engine, when none was left) and the caller was never told."""
    config = ddgs_config(backend=["duckduckgo", "bing"])
    envelope = dispatch_search("rust async", 5, backend="ddgs", config=config, timeout=20)
    assert envelope["success"] is True and envelope["data"]["web"], envelope
    [warning] = envelope["meta"]["warnings"]
    assert warning.startswith("ddgs has no search engine named bing (web.providers.ddgs.backend)")
    assert "duckduckgo" in warning.split("Its engines:")[1]


def test_a_timeout_under_a_second_is_ddgs_s_timeout_not_zero(proxy: Proxy, ddgs_config: Callable[..., Any]) -> None:
    """ddgs takes its timeout in seconds, fractions too: ``timeout: 0.9`` reached it as 0, with
    which every request it sent timed out at once."""
    envelope = dispatch_search("rust async", 5, backend="ddgs", config=ddgs_config(timeout=0.9), timeout=20)
    assert envelope["success"] is True and envelope["data"]["web"], envelope


def test_a_memory_limit_from_a_variable_is_read_as_its_number(
    proxy: Proxy, ddgs_config: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``max_memory_mb: ${DDGS_MEMORY_MB}`` always gives text: ``'1024'`` made every search
    ``not_configured`` ("it is '1024'")."""
    monkeypatch.setenv("DDGS_MEMORY_MB", "1024")
    envelope = dispatch_search("rust async", 5, backend="ddgs", config=ddgs_config(max_memory_mb="${DDGS_MEMORY_MB}"), timeout=20)
    assert envelope["success"] is True, envelope


def test_common_options_are_mapped(proxy: Proxy, ddgs_config: Callable[..., Any]) -> None:
    envelope = dispatch_search(
        "rust", 3, backend="ddgs", config=ddgs_config(), timeout=20,
        time_range="week", safe_search="strict", country="de", lang="de",
        include_domains=["doc.rust-lang.org"], exclude_domains=["reddit.com"],
    )
    assert envelope["success"] is True and "warnings" not in envelope["meta"]
    form = proxy.forms[0]
    assert form["q"] == "rust site:doc.rust-lang.org -site:reddit.com"
    assert (form["df"], form["l"]) == ("w", "de-de")


def test_no_results_is_an_empty_success_with_a_warning(proxy: Proxy, ddgs_config: Callable[..., Any]) -> None:
    proxy.page = "ddg_anomaly.html"  # the bot check ddgs reports as "No results found."
    envelope = dispatch_search("zzzz", backend="ddgs", config=ddgs_config(), timeout=20)
    assert envelope["success"] is True and envelope["data"]["web"] == []
    assert "rate limits" in envelope["meta"]["warnings"][0]


@pytest.mark.parametrize(("mode", "code"), [("hang", "timeout"), ("refuse", "network_error")])
def test_errors_are_mapped(proxy: Proxy, ddgs_config: Callable[..., Any], mode: str, code: str) -> None:
    proxy.mode = mode
    envelope = dispatch_search("q", backend="ddgs", config=ddgs_config(timeout=1), timeout=20)
    assert envelope["error_code"] == code and envelope["retryable"] is True, envelope


def test_a_proxy_that_will_not_open_the_tunnel_is_said_with_its_answer(
    proxy: Proxy, ddgs_config: Callable[..., Any]
) -> None:
    """It read "ddgs could not get results: RequestError(RequestError('error sending request for
    url (https://...) > proxy CONNECT failed: HTTP/1.1 502 Bad Gateway\\r\\nContent-Length: 0'))"."""
    proxy.mode = "refuse"
    envelope = dispatch_search("q", backend="ddgs", config=ddgs_config(), timeout=20)
    assert envelope["error_code"] == "network_error", envelope
    assert envelope["error"] == (
        "ddgs's search engines could not be reached through the proxy, which answered 502 Bad Gateway. "
        "Check the proxy in web.proxy, or HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY."
    )


@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "DDGS_PROXY"])
def test_a_proxy_from_the_environment_quoting_its_credentials_is_masked(
    proxy: Proxy, make_config: Any, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """ddgs's worker sends through the environment's proxy itself; set just before the call,
    its password (and the Basic credential it becomes) is masked in the proxy's refusal."""
    proxy.mode = "echo"
    monkeypatch.setenv(variable, proxy.url.replace("http://", "http://alice:Env0ProxyPass99@"))
    config = make_config(web={"cache": False, "providers": {"ddgs": {"backend": "duckduckgo", "max_retries": 0}}})
    envelope = dispatch_search("q", backend="ddgs", config=config, timeout=20)
    assert envelope["error_code"] == "network_error", envelope
    assert "which answered 403 Denied alice:*** (Basic ***)" in envelope["error"]
    basic = base64.b64encode(b"alice:Env0ProxyPass99").decode()
    assert "Env0ProxyPass99" not in str(envelope) and basic not in str(envelope)


def test_the_lower_case_proxy_variable_wins_as_for_every_other_vendor(
    proxy: Proxy, make_config: Any, monkeypatch: pytest.MonkeyPatch, tunnel_proxy: Callable[..., Any]
) -> None:
    """With ``https_proxy`` and ``HTTPS_PROXY`` naming two proxies, ddgs's own client sent
    its searches through ``HTTPS_PROXY``, where every other vendor goes through ``https_proxy``."""
    asked: list[str] = []
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    other = tunnel_proxy(closed.getsockname()[1], asked)
    closed.close()
    monkeypatch.setenv("https_proxy", proxy.url)
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{other.server_port}")
    config = make_config(web={"cache": False, "providers": {"ddgs": {"backend": "duckduckgo", "max_retries": 0}}})
    envelope = dispatch_search("rust async", backend="ddgs", config=config, timeout=20)
    assert envelope["success"] is True, envelope
    assert [form["q"] for form in proxy.forms] == ["rust async"] and asked == []


_TWO_SEARCHES = """
import json, sys
from webproviders import dispatch_search
from webproviders.config import config_from_dict
config = config_from_dict({"web": {"proxy": sys.argv[1], "cache": False, "providers": {"ddgs": {
    "backend": "duckduckgo", "max_retries": 0, "rate_limit": "1/s"}}}})
print(json.dumps({"ok": [dispatch_search(q, backend="ddgs", config=config, timeout=20)["success"] for q in ("a", "b")]}))
"""


def test_a_process_s_first_two_searches_reach_the_engine_no_closer_than_its_budget(
    proxy: Proxy, run_script: Callable[..., dict[str, Any]]
) -> None:
    """With ``rate_limit: 1/s``, a fresh process's first two searches reached DuckDuckGo
    0.55-0.85 s apart: starting the first worker, and loading ddgs in it, ran inside the
    first slot."""
    assert run_script(_TWO_SEARCHES, proxy.url) == {"ok": [True, True]}
    first, second = proxy.times
    assert second - first >= 1.0 - 0.05, proxy.times  # the budget's interval, less scheduling jitter


def test_a_proxy_that_refuses_its_credentials_is_named_and_not_held_against_ddgs(
    proxy: Proxy, ddgs_config: Callable[..., Any], make_config: Any
) -> None:
    """A 407 read "ddgs could not get results: RequestError(... proxy CONNECT failed: HTTP/1.1 407
    ...)", a network_error counted against ddgs: five of them cooled it down, and fixing the
    proxy's password left it cooling. It is the proxy's refusal of its own credentials."""
    proxy.mode = "credentials"
    config = make_config(web={
        "proxy": proxy.url.replace("http://", "http://user:Pw0rdSecret@"), "cache": False,
        "health": {"failures": 1}, "providers": {"ddgs": {"backend": "duckduckgo", "max_retries": 0}},
    })
    for _ in range(2):
        envelope = dispatch_search("q", backend="ddgs", config=config, timeout=20)
        assert envelope["error_code"] == "auth_error", envelope
        assert envelope["error"].startswith(
            "A proxy on the way to ddgs's search engines refused the request for want of valid credentials (HTTP 407)."
        )
        assert "in web.proxy, or HTTPS_PROXY" in envelope["error"]
        assert "Pw0rdSecret" not in str(envelope)


def test_results_past_the_answer_cap_are_too_large_and_never_read_whole(
    proxy: Proxy, ddgs_config: Callable[..., Any], tmp_path: Path
) -> None:
    """The worker's answer is read up to the provider's cap: a page whose snippets add up to
    more fails as ``too_large`` (not retried), and the worker holding the rest is killed."""
    page = (PAGES / "ddg_results.html").read_text(encoding="utf-8")
    filler = "Learn how async works. " * 20_000  # about 460 KB in one snippet
    bloated = tmp_path / "ddg_bloated.html"
    bloated.write_text(page.replace("Learn how ", filler, 1), encoding="utf-8")
    proxy.page = str(bloated)
    small = ddgs_config(max_response_bytes=200_000)
    envelope = dispatch_search("rust async", 5, backend="ddgs", config=small, timeout=20)
    assert envelope["error_code"] == "too_large", envelope
    assert "200,000 bytes" in envelope["error"] and "max_response_bytes" in envelope["error"]
    assert envelope["retryable"] is False and len(proxy.forms) == 1
    assert worker_processes() == []
    roomy = dispatch_search("rust async", 5, backend="ddgs", config=ddgs_config(), timeout=20)
    assert roomy["success"] is True, roomy
    # Read whole under the default cap, then held to a hit's text cap like any provider's.
    assert any(0.8 * MAX_HIT_CHARS <= len(hit["description"]) <= MAX_HIT_CHARS for hit in roomy["data"]["web"])


def test_a_page_that_never_ends_stops_at_the_worker_s_memory_limit(
    proxy: Proxy, ddgs_config: Callable[..., Any]
) -> None:
    """An engine that streams its page without end fills the worker's address space, not the
    machine's: the worker ends at ``max_memory_mb`` long before the deadline, and the call
    says ``too_large``, naming the setting."""
    proxy.mode = "endless"
    started = time.monotonic()
    envelope = dispatch_search("q", backend="ddgs", config=ddgs_config(timeout=60, max_memory_mb=512), timeout=30)
    assert envelope["error_code"] == "too_large", envelope
    assert "512 MiB" in envelope["error"] and "max_memory_mb" in envelope["error"]
    assert envelope["retryable"] is False
    assert time.monotonic() - started < 20
    assert worker_processes() == []


def test_a_memory_limit_that_cannot_be_is_named(ddgs_config: Callable[..., Any]) -> None:
    envelope = dispatch_search("q", backend="ddgs", config=ddgs_config(max_memory_mb=64), timeout=5)
    assert envelope["error_code"] == "not_configured", envelope
    assert "max_memory_mb" in envelope["error"] and "384" in envelope["error"]


def test_a_hanging_search_ends_at_the_deadline_and_its_worker_with_it(
    proxy: Proxy, ddgs_config: Callable[..., Any]
) -> None:
    proxy.mode = "hang"
    started = time.monotonic()
    envelope = dispatch_search("q", backend="ddgs", config=ddgs_config(timeout=60), timeout=1.5)
    assert envelope["error_code"] == "timeout"
    assert time.monotonic() - started < 1.5 + 0.5
    assert worker_processes() == []  # killed, not left running until ddgs's own 60 s


def _worker_environment(proxy: Proxy, ddgs_config: Callable[..., Any]) -> list[bytes]:
    """The environment a ddgs worker process starts with (``NAME=value`` entries), read
    from ``/proc`` while a search waits on a proxy that never answers.

    Once read, the worker is killed: the call then ends at once instead of waiting out the
    deadline that only had to be long enough for a worker to start.
    """
    proxy.mode = "hang"
    config = ddgs_config(timeout=60)
    # The call waits on the silent proxy up to its deadline: long enough for a worker to start.
    thread = threading.Thread(target=dispatch_search, args=("q",), kwargs={"backend": "ddgs", "config": config, "timeout": 8})
    thread.start()
    environ = b""
    for _ in range(160):
        pids = worker_processes()
        if pids:
            environ = Path(f"/proc/{pids[0]}/environ").read_bytes()
            with contextlib.suppress(ProcessLookupError):
                os.kill(pids[0], signal.SIGKILL)
            break
        time.sleep(0.05)
    thread.join(30)
    return environ.split(b"\0")


def test_workers_get_no_secrets(
    proxy: Proxy, ddgs_config: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-secret-0123456789")
    environ = b"\0".join(_worker_environment(proxy, ddgs_config))
    assert b"PATH=" in environ and b"SSL_CERT_FILE=" in environ
    assert b"tvly-secret" not in environ and b"TAVILY_API_KEY" not in environ


def test_workers_get_what_the_interpreter_needs_to_start(
    proxy: Proxy, ddgs_config: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A Python whose shared library is found through LD_LIBRARY_PATH (AWS Lambda's) cannot
    start without it: ddgs's workers used to lose it, and every search ended with "the ddgs
    worker ended without answering". They get what the extraction workers get."""
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    monkeypatch.setenv("PYTHONNOUSERSITE", "1")
    environ = _worker_environment(proxy, ddgs_config)
    assert f"LD_LIBRARY_PATH={tmp_path}".encode() in environ
    assert b"PYTHONNOUSERSITE=1" in environ


_HANGING_SCRIPT = """
import json, socket, sys, threading
listener = socket.create_server(("127.0.0.1", 0))
held = []
threading.Thread(target=lambda: [held.append(listener.accept()) for _ in iter(int, 1)], daemon=True).start()
from webproviders import dispatch_search
from webproviders.config import config_from_dict
config = config_from_dict({"web": {"proxy": "http://127.0.0.1:%d" % listener.getsockname()[1],
                                   "providers": {"ddgs": {"timeout": 60, "max_retries": 0}}}})
envelope = dispatch_search("python", backend="ddgs", config=config, timeout=float(sys.argv[1]))
print(json.dumps(envelope))
"""


def test_a_process_whose_search_hung_exits_soon_after_the_deadline(tmp_path: Path) -> None:
    """The whole process, measured from outside: ddgs's threads must not keep it alive."""
    deadline = 2.0
    script = tmp_path / "hang.py"
    script.write_text(_HANGING_SCRIPT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(script), str(deadline)], capture_output=True, text=True, env=env, timeout=120)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["error_code"] == "timeout"
    # Generous for a shared machine (interpreter start and imports included); ddgs's own 60 s
    # timeout is what a process waiting for its threads would take.
    assert elapsed < deadline + 8, elapsed


_NO_RESOLVER_SCRIPT = """
import json, sys
from webproviders import dispatch_search
print(json.dumps(dispatch_search("python", backend="ddgs", timeout=float(sys.argv[1]))))
"""


def _without_network(tmp_path: Path, script: str, argument: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with ``argument`` in a network and mount namespace of its own, with
    loopback up and a ``resolv.conf`` naming a loopback port where nothing listens (a resolver
    configured but not running); the host's network and files are untouched. Skips where
    namespaces cannot be made."""
    (tmp_path / "resolv.conf").write_text("nameserver 127.0.0.9\n", encoding="utf-8")
    path = tmp_path / "search.py"
    path.write_text(script, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    setup = f"ip link set lo up && mount --bind {tmp_path / 'resolv.conf'} /etc/resolv.conf"
    probe = subprocess.run(["unshare", "-rnm", "sh", "-c", setup], capture_output=True, env=env)
    if probe.returncode != 0:
        pytest.skip(f"no network and mount namespaces here: {probe.stderr.decode(errors='replace').strip()}")
    return subprocess.run(
        ["unshare", "-rnm", "sh", "-c", f'{setup} && exec "$0" "$1" "$2"', sys.executable, str(path), argument],
        capture_output=True, text=True, env=env, timeout=120,
    )


def test_a_machine_whose_resolver_refuses_gets_a_network_error_at_once(tmp_path: Path) -> None:
    """A resolver that is configured but not running (``127.0.0.53`` without its daemon, as in
    many containers): ddgs's own resolver would wait out its timeout on every engine, so the
    search used to end only at the call's deadline, as ``timeout``."""
    deadline = 20.0
    started = time.monotonic()
    done = _without_network(tmp_path, _NO_RESOLVER_SCRIPT, str(deadline))
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    envelope = json.loads(done.stdout)
    assert envelope["error_code"] == "network_error", envelope
    assert "do not resolve" in envelope["error"] and "HTTPS_PROXY" in envelope["error"]
    assert elapsed < deadline / 2, elapsed


def test_a_machine_without_dns_whose_no_proxy_spares_the_engines_says_so(tmp_path: Path) -> None:
    """``NO_PROXY=*`` beside a proxy: the search went direct to a resolver that refuses, and
    the sentence asked for a proxy that was set."""
    script = "import os\nos.environ.update(HTTPS_PROXY='http://127.0.0.1:9', NO_PROXY='*')\n" + _NO_RESOLVER_SCRIPT
    done = _without_network(tmp_path, script, "20")
    assert done.returncode == 0, done.stderr
    envelope = json.loads(done.stdout)
    assert envelope["error_code"] == "network_error", envelope
    assert "do not resolve on this machine" in envelope["error"]
    assert envelope["error"].endswith(
        "NO_PROXY names them, so ddgs went direct instead of through the proxy; where only the proxy "
        "reaches the internet, take them out of NO_PROXY."
    ), envelope


_PROXY_VARIABLE_SCRIPT = """
import json, os, sys
from webproviders import dispatch_search
from webproviders.config import config_from_dict
config = config_from_dict({"web": {"cache": False, "providers": {"ddgs": {"max_retries": 0}}}})
envelopes = []
for value in json.loads(sys.argv[1]):
    os.environ["HTTPS_PROXY"] = value
    envelopes.append(dispatch_search("python", backend="ddgs", config=config, timeout=20))
print(json.dumps(envelopes))
"""


def test_a_proxy_variable_no_request_can_use_is_not_configured(tmp_path: Path) -> None:
    """ddgs's HTTP client passes such a variable by without a word and goes direct: a machine
    that reaches out only through its proxy read "ddgs could not get results: DNSError(...)",
    a network_error counted against ddgs (or waited for the deadline), and one that can go
    direct went past the proxy.
    A port that is not a number read "ddgs failed: ValueError: ...", a provider_error.
    Run without a network, so that going direct reaches nothing."""
    values = [
        "http://", "ftp://proxy.corp.example:21", "http://proxy.corp.example:3128\n", "http://proxy.corp.example:abc",
    ]
    done = _without_network(tmp_path, _PROXY_VARIABLE_SCRIPT, json.dumps(values))
    assert done.returncode == 0, done.stderr
    for envelope in json.loads(done.stdout):
        assert envelope["error_code"] == "not_configured", envelope
        assert envelope["error"].startswith("The proxy for ddgs's search engines cannot be used: "), envelope
        assert envelope["error"].endswith("(set web.proxy, or correct DDGS_PROXY / HTTPS_PROXY / ALL_PROXY).")


def test_a_proxy_variable_without_its_scheme_is_named_by_its_address(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``HTTPS_PROXY=127.0.0.1:3128`` is an HTTP proxy to ddgs's client, as to curl; one that
    takes no connection was named "the proxy at :80"."""
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    monkeypatch.setenv("HTTPS_PROXY", f"127.0.0.1:{port}")
    config = make_config(web={"cache": False, "providers": {"ddgs": {"backend": "duckduckgo", "max_retries": 0}}})
    envelope = dispatch_search("q", backend="ddgs", config=config, timeout=20)
    assert envelope["error_code"] == "network_error" and envelope["detail"] == "proxy_unreachable", envelope
    assert envelope["error"].startswith(
        f"ddgs's search engines could not be reached: the proxy at 127.0.0.1:{port} did not take the connection"
    ), envelope


def test_engine_names_are_looked_up_until_one_resolves() -> None:
    worker = _worker_script()
    # Names the IDNA codec refuses fail before any lookup, on every machine.
    refused = worker.unresolvable(("bad..name", "a" * 64 + ".example"))
    assert refused is not None and "bad..name" in refused and "a" * 64 in refused
    assert worker.unresolvable(("bad..name", "localhost")) is None


def _worker_script() -> Any:
    """The ddgs worker script (run as a script by the plugin; it imports ddgs only to search)."""
    import importlib.util

    path = Path(__file__).parents[2] / "plugins" / "ddgs" / "worker.py"
    spec = importlib.util.spec_from_file_location("ddgs_worker_script", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module



@pytest.mark.parametrize(
    ("options", "region"),
    [
        ({"country": "gb", "lang": "en"}, "uk-en"),
        ({"lang": "pt-BR"}, "br-pt"),
        ({"country": "jp"}, "jp-jp"),
    ],
)
def test_country_and_lang_become_one_of_duckduckgos_regions(
    proxy: Proxy, ddgs_config: Callable[..., Any], options: dict[str, Any], region: str
) -> None:
    """ddgs takes DuckDuckGo's region list (and splits a region in two for Google and Bing)."""
    envelope = dispatch_search("rust", 3, backend="ddgs", config=ddgs_config(), timeout=20, **options)
    assert envelope["success"] is True and "warnings" not in envelope["meta"], envelope
    assert proxy.forms[0]["l"] == region


def test_a_proxy_that_takes_no_connection_is_named_not_a_search_engine(make_config: Any) -> None:
    """Every connection goes to the proxy, yet its refusal read as the engine's: "ddgs could not
    get results: ConnectError('error sending request for url (https://search.brave.com/...) >
    Connection refused')", sending the user to look at Brave."""
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    config = make_config(web={
        "proxy": f"http://user:Pw0rdSecret@127.0.0.1:{port}", "cache": False,
        "providers": {"ddgs": {"backend": "duckduckgo", "max_retries": 0}},
    })
    envelope = dispatch_search("q", backend="ddgs", config=config, timeout=20)
    assert envelope["error_code"] == "network_error" and envelope["detail"] == "proxy_unreachable", envelope
    assert envelope["error"].startswith(
        f"ddgs's search engines could not be reached: the proxy at 127.0.0.1:{port} did not take the connection"
    ), envelope
    assert "in web.proxy, or HTTPS_PROXY" in envelope["error"]
    assert "Pw0rdSecret" not in str(envelope)


@pytest.mark.parametrize("credentials", ["office:wrong-pass-0d1e@", ""])
def test_a_socks_proxy_refusing_its_credentials_is_named_and_not_held_against_ddgs(
    credentials: str, make_config: Any, socks_proxy: Callable[[str], Any]
) -> None:
    """As a 407 is. It read "ddgs could not get results: RequestError(... socks5 proxy rejected
    the credentials')" (or "... chose an unexpected authentication method" with none given), a
    network_error counted against ddgs."""
    server = socks_proxy("refusing_login")
    config = make_config(web={
        "proxy": f"socks5h://{credentials}127.0.0.1:{server.server_address[1]}", "cache": False,
        "health": {"failures": 1}, "providers": {"ddgs": {"backend": "duckduckgo", "max_retries": 0}},
    })
    for _ in range(2):
        envelope = dispatch_search("q", backend="ddgs", config=config, timeout=20)
        assert envelope["error_code"] == "auth_error", envelope
        assert envelope["error"].startswith(
            "A proxy on the way to ddgs's search engines refused the request for want of valid credentials "
            "(SOCKS5 user name and password)."
        ), envelope
        assert "wrong-pass-0d1e" not in str(envelope)


_SOCKS5_SCRIPT = """
import json, sys
from webproviders import dispatch_search
from webproviders.config import config_from_dict
config = config_from_dict({"web": {"proxy": sys.argv[1], "cache": False, "providers": {"ddgs": {"max_retries": 0}}}})
print(json.dumps(dispatch_search("python", backend="ddgs", config=config, timeout=20)))
"""


def test_a_socks5_proxy_on_a_machine_without_dns_is_told_to_be_socks5h(tmp_path: Path) -> None:
    """With ``socks5://`` ddgs's HTTP client looks names up itself (the library's own client
    leaves them to the proxy with either scheme): on a machine without DNS it read "ddgs could
    not get results: DNSError(... error resolving for socks proxy > ...)"."""
    done = _without_network(tmp_path, _SOCKS5_SCRIPT, "socks5://127.0.0.1:9")
    assert done.returncode == 0, done.stderr
    envelope = json.loads(done.stdout)
    assert envelope["error_code"] == "network_error", envelope
    assert envelope["error"].startswith(
        "ddgs cannot reach its search engines: with a socks5:// proxy its HTTP client looks their names up on "
        "this machine, where they do not resolve. Write socks5h:// instead"
    ), envelope


def test_a_socks_proxy_that_cannot_reach_the_engines_is_said_with_its_answer(
    make_config: Any, socks_proxy: Callable[[str], Any]
) -> None:
    """As for every other provider. It read "ddgs could not get results: RequestError(... (https://...)
    > error connecting to socks proxy > socks5 proxy connect failed with status 4')"."""
    server = socks_proxy("unreachable")
    config = make_config(web={
        "proxy": f"socks5h://127.0.0.1:{server.server_address[1]}", "cache": False,
        "providers": {"ddgs": {"backend": "duckduckgo", "max_retries": 0}},
    })
    envelope = dispatch_search("q", backend="ddgs", config=config, timeout=20)
    assert envelope["error_code"] == "network_error", envelope
    assert envelope["error"] == (
        "ddgs's search engines could not be reached through the proxy, which answered Proxy Server could not "
        "connect: Host unreachable. Check the proxy in web.proxy, or HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY."
    )


def test_a_socks_address_that_is_no_socks_proxy_is_named_and_not_held_against_ddgs(
    make_config: Any, socks_proxy: Callable[[str], Any]
) -> None:
    """An HTTP proxy's port given as ``socks5h://``: it read "ddgs could not get results:
    RequestError(... > error connecting to socks proxy > socks5 proxy replied with an invalid
    version')", a network_error that cooled ddgs down."""
    server = socks_proxy("not_socks")
    config = make_config(web={
        "proxy": f"socks5h://127.0.0.1:{server.server_address[1]}", "cache": False,
        "health": {"failures": 1}, "providers": {"ddgs": {"backend": "duckduckgo", "max_retries": 0}},
    })
    for _ in range(2):
        envelope = dispatch_search("q", backend="ddgs", config=config, timeout=20)
        assert envelope["error_code"] == "network_error", envelope
        assert envelope["error"].startswith(
            f"ddgs's search engines could not be reached: the proxy at 127.0.0.1:{server.server_address[1]} broke "
            "off its SOCKS5 handshake (socks5 proxy replied with an invalid version)"
        ), envelope
