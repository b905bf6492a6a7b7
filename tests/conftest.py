"""Shared fixtures: isolated configs, plugin-module access, no stray environment."""

from __future__ import annotations

import contextlib
import datetime
import importlib
import ipaddress
import json
import os
import shutil
import signal
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from webproviders.config import Config, config_from_dict
from webproviders.registry.providers import clear_registry_cache, get_registry

#: Environment variables that would change which backend is chosen or which key is used.
_ISOLATED_PREFIXES = ("WEB_", "WEBPROVIDERS_", "SEARXNG_")
_ISOLATED_SUFFIXES = ("_API_KEY", "_API_URL", "_BASE_URL", "_CSE_ID", "_TIMEOUT_MS", "_TOP_K_DEFAULT")
#: Proxy settings would send loopback test traffic elsewhere.
_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test sees the developer's keys, config file, user plugins or usage ledger."""
    for name in list(os.environ):
        if name.startswith(_ISOLATED_PREFIXES) or name.endswith(_ISOLATED_SUFFIXES):
            monkeypatch.delenv(name, raising=False)
        if name.upper() in _PROXY_VARIABLES:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)  # the usage ledger goes under that HOME
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)  # and the config file and user plugins
    yield
    clear_registry_cache()


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler, even when the tests run as a background job that inherited
    SIGINT ignored (Python then installs none, and an interrupt is dropped)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def make_config() -> Any:
    """Build a validated Config from keyword sections: ``make_config(web={...}, plugins={...})``."""

    def build(**sections: Any) -> Config:
        return config_from_dict(sections, source="<test>")

    return build


@pytest.fixture
def plugin_module() -> Any:
    """Import a built-in plugin's module (or a submodule) by folder name, for unit tests."""

    def load(folder: str, submodule: str | None = None) -> Any:
        registry = get_registry(config_from_dict({}, source="<test>"))
        # Its code is imported on first use; load it here, so a test needs no other first.
        registry.load(next(r for r in registry.plugins if r.source == "built-in" and Path(r.location).name == folder))
        name = f"_webproviders_plugins.builtin.{folder.replace('-', '_')}"
        return importlib.import_module(f"{name}.{submodule}" if submodule else name)

    return load


_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


class DNS:
    """What host names mean in one test, answered where the system resolver is asked.

    ``socket.getaddrinfo`` itself answers from :attr:`table` (name -> list of answers, handed
    out one lookup at a time, the last one repeating), so the library's own resolver runs
    unchanged. A name not in the table that is not a loopback name fails loudly, as on a
    machine without DNS. :attr:`lookups` counts every name looked up (address literals are
    not lookups); :attr:`unreachable` lists the non-loopback addresses a connection was
    refused to.
    """

    def __init__(self) -> None:
        self.table: dict[str, list[list[str]]] = {}
        self.lookups: Counter[str] = Counter()
        self.unreachable: list[object] = []
        #: Undeclared names fail as where no DNS server answers (``EAI_AGAIN``, a sandbox
        #: without DNS) rather than as names that do not exist (``EAI_NONAME``).
        self.no_server = False
        #: Set: a lookup of an undeclared name waits for it, as where the DNS server's answers
        #: never come (a firewall dropping them); the test's end sets it.
        self.silent: threading.Event | None = None

    def answer(self, host: str, *addresses: str) -> None:
        """``host`` resolves to ``addresses`` from now on."""
        self.table[host] = [list(addresses)]

    def resolve(self, host: str, port: object, family: int, type_: int) -> list[tuple[Any, ...]] | None:
        """The ``getaddrinfo`` answer for a declared name; None for names left to the system."""
        name = host.lower().rstrip(".")
        self.lookups[name] += 1
        answers = self.table.get(name)
        if answers is None:
            if _loopback(name):
                return None
            if self.silent is not None:
                self.silent.wait(30)
            code = socket.EAI_AGAIN if self.no_server or self.silent else socket.EAI_NONAME
            raise socket.gaierror(code, f"test tried to look up {host!r}: only loopback names are allowed")
        addresses = answers.pop(0) if len(answers) > 1 else answers[0]
        number = int(str(port)) if str(port).isdigit() else 0
        kind = type_ or socket.SOCK_STREAM
        infos = [
            (socket.AF_INET6, kind, socket.IPPROTO_TCP, "", (address, number, 0, 0))
            if ":" in address
            else (socket.AF_INET, kind, socket.IPPROTO_TCP, "", (address, number))
            for address in addresses
        ]
        return [info for info in infos if family in (0, info[0])]


_dns = DNS()


@pytest.fixture(autouse=True)
def dns() -> Iterator[DNS]:
    """This test's DNS: nothing but loopback names resolves until the test declares a name."""
    global _dns
    _dns = DNS()
    yield _dns
    if _dns.silent is not None:
        _dns.silent.set()  # lets the lookups still waiting end


def _loopback(host: object) -> bool:
    import ipaddress

    if not isinstance(host, str):
        return False
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _address_literal(host: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return True


@pytest.fixture(autouse=True, scope="session")
def _no_internet() -> Iterator[None]:
    """No test may reach beyond this machine: non-loopback connects and lookups fail loudly.

    Lookups go through the current test's :class:`DNS`.
    """
    real_connect, real_connect_ex, real_getaddrinfo = (
        socket.socket.connect,
        socket.socket.connect_ex,
        socket.getaddrinfo,
    )

    def guard(address: object) -> None:
        if isinstance(address, tuple) and not _loopback(address[0]):
            _dns.unreachable.append(address[0])
            raise OSError(f"test tried to reach {address!r}: only loopback addresses are allowed")

    def connect(self: socket.socket, address: object) -> None:
        guard(address)
        return real_connect(self, address)  # type: ignore[arg-type]

    def connect_ex(self: socket.socket, address: object) -> int:
        guard(address)
        return real_connect_ex(self, address)  # type: ignore[arg-type]

    def getaddrinfo(host: object, port: object = None, family: int = 0, type: int = 0, *args: object, **kwargs: object) -> object:
        name = host.decode("ascii") if isinstance(host, bytes) else host
        if isinstance(name, str) and not _address_literal(name):
            answer = _dns.resolve(name, port, family, type)
            if answer is not None:
                return answer
        return real_getaddrinfo(host, port, family, type, *args, **kwargs)  # type: ignore[arg-type]

    _guards.update(connect=connect, connect_ex=connect_ex, getaddrinfo=getaddrinfo)
    _put_guards()
    try:
        yield
    finally:
        _guards.clear()
        socket.socket.connect, socket.socket.connect_ex = real_connect, real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo  # type: ignore[assignment]


#: The guarded ``connect``, ``connect_ex`` and ``getaddrinfo`` of :func:`_no_internet`.
_guards: dict[str, Callable[..., Any]] = {}


def _put_guards() -> None:
    socket.socket.connect = _guards["connect"]  # type: ignore[method-assign]
    socket.socket.connect_ex = _guards["connect_ex"]  # type: ignore[method-assign]
    socket.getaddrinfo = _guards["getaddrinfo"]  # type: ignore[assignment]


@pytest.fixture(autouse=True)
def _guards_in_place(_no_internet: None) -> None:
    """The guards again before each test: another installed pytest plugin may put the real
    functions back (pytest-socket, which langchain-tests brings, does so before every test, and
    the tests then reached any address unseen)."""
    _put_guards()


@pytest.fixture
def run_script(tmp_path: Path) -> Callable[..., dict[str, Any]]:
    """``run_script(source, *args)``: ``source`` run as a script in a fresh interpreter (its data
    and config under ``tmp_path``), and the JSON object its last line of output prints. A
    process's first call is measured so."""

    def run(source: str, *args: str) -> dict[str, Any]:
        script = tmp_path / "script.py"
        script.write_text(source, encoding="utf-8")
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
        done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=60, env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return answer

    return run


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_redis(directory: Path, *options: str, port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """A real ``redis-server`` on a free loopback port (or ``port``), in ``directory``:
    ``(process, url)`` (``options``: more of its command-line settings)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server); .ci/run installs it")
    port = port or _free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
         "--save", "", "--appendonly", "no", "--protected-mode", "yes", *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # One try per ping: the client's own retries (with back-off) made 200 pings of a server
    # that had exited take ten minutes.
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
    ends = time.monotonic() + 15
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if process.poll() is not None or time.monotonic() > ends:
                process.kill()
                pytest.fail(f"redis-server did not start on port {port} (exit status {process.poll()})")
            time.sleep(0.025)
    client.close()
    return process, f"redis://127.0.0.1:{port}/0"


@pytest.fixture
def start_together() -> Iterator[Callable[..., list[subprocess.Popen[str]]]]:
    """Start worker processes that begin their work at one moment, once every one is ready.

    A start time fixed a few seconds ahead fails on a loaded machine, where one interpreter
    can take longer than that to import the library and the others finish first. Each
    worker prints ``ready`` and waits for the moment on its stdin (``wait_for_the_others``
    in the worker scripts); more ``Popen`` keywords (``env``, ``stderr``) are passed on.
    """
    started: list[subprocess.Popen[str]] = []

    def start(commands: list[list[str]], **popen: Any) -> list[subprocess.Popen[str]]:
        for command in commands:
            started.append(subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, **popen))
        processes = started[-len(commands):]
        for process in processes:
            assert process.stdout is not None and process.stdout.readline().strip() == "ready", "a worker ended early"
        at = time.time() + 0.2
        for process in processes:
            assert process.stdin is not None
            process.stdin.write(f"{at}\n")
            process.stdin.close()
            process.stdin = None  # ``communicate`` then waits for stdout alone
        return processes

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``redis-server`` on a free loopback port, in a temporary directory."""
    process, url = _start_redis(tmp_path_factory.mktemp("redis"))
    yield url
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def cluster_redis(tmp_path: Path) -> Iterator[str]:
    """A ``redis-server`` in cluster mode, serving every slot itself: a cluster of one node."""
    port = _free_port()
    while port > 65535 - 10000:  # its cluster bus listens on the port + 10000
        port = _free_port()
    options = ("--cluster-enabled", "yes", "--cluster-config-file", str(tmp_path / "nodes.conf"))
    process, url = _start_redis(tmp_path, *options, port=port)
    import redis

    client = redis.Redis.from_url(url)
    client.execute_command("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
    for _ in range(400):  # the node takes a moment to call its cluster up
        if client.cluster("info")["cluster_state"] == "ok":
            break
        time.sleep(0.025)
    client.close()
    yield url
    process.kill()
    process.wait()


@pytest.fixture
def freezable_redis(tmp_path: Path) -> Iterator[tuple[str, Callable[[], None]]]:
    """A redis-server of the test's own, and a function that freezes it (SIGSTOP).

    Teardown sends SIGCONT before stopping it, so nothing is left frozen.
    """
    import signal

    process, url = _start_redis(tmp_path)
    try:
        yield url, lambda: os.kill(process.pid, signal.SIGSTOP)
    finally:
        os.kill(process.pid, signal.SIGCONT)
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def exit_after_a_freeze() -> Callable[..., tuple[float, str]]:
    """``run(code, argument, freeze, timeout)``: a ``python -c code argument`` process that
    prints ``ready``, waits for a line, makes a call and prints ``True``; ``freeze()`` (which
    returns what thaws) runs between the two. Gives the seconds from the line to the
    process's end, and its stderr: what a process whose store froze costs at exit."""

    def run(code: str, argument: str, freeze: Callable[[], Callable[[], None]], timeout: float) -> tuple[float, str]:
        import sys

        child = subprocess.Popen([sys.executable, "-c", code, argument], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdin is not None
        thaw: Callable[[], None] | None = None
        try:
            assert child.stdout.readline().strip() == "ready"
            thaw = freeze()
            started = time.monotonic()
            child.stdin.write("\n")
            child.stdin.flush()
            assert child.stdout.readline().strip() == "True"
            _, errors = child.communicate(timeout=timeout)
            return time.monotonic() - started, errors
        finally:
            if thaw is not None:
                thaw()
            if child.poll() is None:
                child.kill()
                child.wait()

    return run


@pytest.fixture
def namespace() -> str:
    """A Redis key prefix of this test's own."""
    return f"t{uuid.uuid4().hex[:12]}"


class _LoopbackServer(ThreadingHTTPServer):
    """A test server that takes a client's whole pool of connections at once: with the
    default backlog of 5, connections past it wait for their SYN to be sent again (1, 2, 4,
    8 s), and on a busy machine 100 of them had not all arrived after 20 s."""

    request_queue_size = 128


class _TLSServer(_LoopbackServer):
    """An HTTPS server: each connection is wrapped; the handshake runs in its handler thread."""

    def __init__(self, tls: ssl.SSLContext, handler: type[BaseHTTPRequestHandler]) -> None:
        self.tls = tls
        super().__init__(("127.0.0.1", 0), handler)

    def get_request(self) -> Any:
        sock, address = super().get_request()
        return self.tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that refuses the certificate is what some tests expect


@pytest.fixture
def serve() -> Iterator[Callable[[Any], Any]]:
    """``serve(server)`` runs a built loopback server in a thread and returns it; each is shut
    at teardown.

    ``shutdown()`` waits for the serving loop to look again: at the default half-second poll
    that was half a second of every test's teardown.
    """
    servers: list[ThreadingHTTPServer] = []

    def start(server: Any) -> Any:
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def http_server(serve: Callable[[Any], Any]) -> Iterator[Callable[..., ThreadingHTTPServer]]:
    """Start real HTTP servers on 127.0.0.1: ``http_server(Handler)`` returns one, serving
    (``tls=`` a server-side ``ssl.SSLContext`` makes it HTTPS).

    ``released`` (set at teardown, before the servers shut) frees handlers a test left
    waiting on it, so no request thread outlives the test.
    """
    released = threading.Event()

    def start(handler: type[BaseHTTPRequestHandler], tls: ssl.SSLContext | None = None) -> ThreadingHTTPServer:
        server = _LoopbackServer(("127.0.0.1", 0), handler) if tls is None else _TLSServer(tls, handler)
        server.daemon_threads = True
        server.released = released  # type: ignore[attr-defined]
        return serve(server)  # type: ignore[no-any-return]

    yield start
    released.set()


def _subject_name(x509: Any, name: str) -> Any:
    """The certificate's subject alternative name: an IP address (``127.0.0.1``) or a host name."""
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


@pytest.fixture
def certificate(tmp_path: Path) -> Callable[[str], tuple[Path, Path]]:
    """``certificate("host.test")`` writes a self-signed certificate for that name (or address)
    and its key."""
    pytest.importorskip("cryptography")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    def make(name: str) -> tuple[Path, Path]:
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([_subject_name(x509, name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256())
        )
        cert_path, key_path = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(
            key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        )
        return cert_path, key_path

    return make


@pytest.fixture
def tunnel_proxy(http_server: Callable[..., ThreadingHTTPServer]) -> Callable[[int, list[str]], ThreadingHTTPServer]:
    """``tunnel_proxy(upstream_port, asked)``: a forward proxy for ``CONNECT`` on loopback, as a
    corporate proxy tunnels HTTPS. It records each target in ``asked`` and pipes the bytes to
    ``upstream_port`` on 127.0.0.1, whatever name was asked for."""

    def start(upstream_port: int, asked: list[str]) -> ThreadingHTTPServer:
        class Tunnel(BaseHTTPRequestHandler):
            def do_CONNECT(self) -> None:
                asked.append(self.path)
                upstream = socket.create_connection(("127.0.0.1", upstream_port))
                self.send_response(200, "Connection established")
                self.end_headers()
                back = threading.Thread(target=_pump, args=(upstream, self.connection), daemon=True)
                back.start()
                _pump(self.connection, upstream)
                back.join(5)
                upstream.close()
                self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        return http_server(Tunnel)

    return start


class _SocksRefusingLogin(socketserver.StreamRequestHandler):
    """A SOCKS5 proxy that wants a user name and password and refuses every one (RFC 1929),
    recording the user names it was offered in ``server.logins``."""

    server: Any

    def handle(self) -> None:
        _version, count = self.rfile.read(2)
        self.rfile.read(count)  # the methods offered
        self.wfile.write(b"\x05\x02")  # user name and password, whatever was offered
        if self.rfile.read(1) != b"\x01":
            return  # the client offered no credentials, and gives up
        user = self.rfile.read(self.rfile.read(1)[0])
        self.rfile.read(self.rfile.read(1)[0])
        self.server.logins.append(user.decode())
        self.wfile.write(b"\x01\x01")  # refused


def _take_request(handler: socketserver.StreamRequestHandler) -> None:
    """A SOCKS5 client's greeting answered (no login) and its request read, whatever host it
    names: what is left is the proxy's answer to it."""
    _version, count = handler.rfile.read(2)
    handler.rfile.read(count)
    handler.wfile.write(b"\x05\x00")  # no login
    _version, _command, _reserved, kind = handler.rfile.read(4)
    handler.rfile.read(handler.rfile.read(1)[0] if kind == 3 else {1: 4, 4: 16}[kind])
    handler.rfile.read(2)  # the port


class _SocksUnreachable(socketserver.StreamRequestHandler):
    """A SOCKS5 proxy that takes the client in, then cannot reach any host it is asked for."""

    def handle(self) -> None:
        _take_request(self)
        self.wfile.write(b"\x05\x04\x00\x01\x00\x00\x00\x00\x00\x00")  # host unreachable


class _SocksTunnel(socketserver.StreamRequestHandler):
    """A SOCKS5 proxy that takes any client in and pipes it to ``server.upstream`` on
    127.0.0.1, whatever host it was asked for."""

    server: Any

    def handle(self) -> None:
        _take_request(self)
        upstream = socket.create_connection(("127.0.0.1", self.server.upstream))
        self.wfile.write(b"\x05\x00\x00\x01\x7f\x00\x00\x01\x00\x00")  # connected
        back = threading.Thread(target=_pump, args=(upstream, self.connection), daemon=True)
        back.start()
        _pump(self.connection, upstream)
        back.join(5)
        upstream.close()


class _SocksSilent(socketserver.StreamRequestHandler):
    """A SOCKS5 proxy that takes the connection and never answers the client's greeting (a
    stuck one), until the client hangs up."""

    def handle(self) -> None:
        while self.request.recv(4096):
            pass


class _NotSocks(socketserver.StreamRequestHandler):
    """An HTTP proxy's port given as a SOCKS5 proxy: the greeting is no request it can read,
    and it says so in HTTP before hanging up."""

    def handle(self) -> None:
        self.request.recv(4096)
        self.wfile.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


@pytest.fixture
def socks_proxy(serve: Callable[[Any], Any]) -> Callable[[str], Any]:
    """``socks_proxy("refusing_login")`` (user names offered in ``.logins``),
    ``socks_proxy("unreachable")``, ``socks_proxy("silent")`` or ``socks_proxy("not_socks")``:
    a SOCKS5 proxy on 127.0.0.1 that fails that way (or no SOCKS proxy at all), serving;
    ``socks_proxy("tunnel")`` one that works, to the port its ``.upstream`` is set to."""
    handlers = {
        "refusing_login": _SocksRefusingLogin,
        "unreachable": _SocksUnreachable,
        "silent": _SocksSilent,
        "not_socks": _NotSocks,
        "tunnel": _SocksTunnel,
    }

    def start(kind: str) -> Any:
        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handlers[kind])
        server.daemon_threads = True
        server.logins = []  # type: ignore[attr-defined]
        return serve(server)

    return start


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until it ends, then end ``sink``'s writing half."""
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
