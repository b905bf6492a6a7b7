"""A throwaway PostgreSQL server on a free loopback port, for the tests and bench/bench_local.py.

``initdb`` into a fresh folder, then ``pg_ctl start`` listening on 127.0.0.1 only (and a
socket in that folder), with fsync off: nothing here must outlive a crash of the machine,
but a commit still reaches the operating system before it is acknowledged, so a server
stopped hard keeps what it acknowledged. PostgreSQL
refuses to run as root, so as root the binaries run as the ``postgres`` user (``runuser``)
in a folder that user owns. No pytest in here: the benchmark uses it too.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

#: Where Debian's ``postgresql`` packages put the server binaries (``<version>/bin``).
DEBIAN_BINARIES = Path("/usr/lib/postgresql")
SERVICE_USER = "postgres"


def binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (the newest Debian version, else PATH)."""
    versions = sorted(
        (folder for folder in DEBIAN_BINARIES.glob("*/bin") if (folder / "pg_ctl").exists()),
        key=lambda folder: int(folder.parent.name) if folder.parent.name.isdigit() else 0,
    )
    if versions:
        return versions[-1]
    found = shutil.which("pg_ctl")
    return Path(found).parent if found and shutil.which("initdb") else None


def missing() -> str | None:
    """Why no server can be started here, or None."""
    if binaries() is None:
        return "PostgreSQL is not installed (apt-get install postgresql); .ci/run installs it"
    if os.geteuid() == 0 and (shutil.which("runuser") is None or _no_user()):
        return f"running as root needs runuser and a {SERVICE_USER!r} user to start PostgreSQL"
    return None


def _no_user() -> bool:
    import pwd

    try:
        pwd.getpwnam(SERVICE_USER)
    except KeyError:
        return True
    return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """One server in its own folder; :meth:`start` and :meth:`stop` may be called again."""

    def __init__(self, max_connections: int = 200) -> None:
        bin_dir = binaries()
        if bin_dir is None:
            raise RuntimeError(missing())
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="webproviders-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.max_connections = max_connections
        if os.geteuid() == 0:
            shutil.chown(self.root, SERVICE_USER)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
                  "--locale=C.UTF-8", "--no-sync")

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", SERVICE_USER, "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres connect_timeout=5"

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   f"-c max_connections={self.max_connections}")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-t", "60", "-o", options,
                  "start")

    def stop(self, mode: str = "fast") -> None:
        """``fast`` ends sessions cleanly; ``immediate`` is a crash (recovery runs on start)."""
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "60", "-m", mode, "stop")

    def remove(self) -> None:
        """Stop the server if it runs, and delete its folder."""
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass  # not running
        shutil.rmtree(self.root, ignore_errors=True)


class FreezingProxy:
    """A loopback TCP proxy to a server, whose connection stops answering (as a host that hangs,
    or a firewall that drops replies) once its client sends bytes holding :attr:`trigger`: from
    then on nothing is passed either way, and the sockets stay open."""

    def __init__(self, port: int) -> None:
        self.port_to = port
        self.trigger: bytes | None = None
        self.frozen = 0  #: connections that froze so far
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def dsn(self, server: PostgresServer) -> str:
        return server.dsn.replace(f"port={server.port}", f"port={self.port}")

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.port_to))
            self._held += [client, upstream]
            stop = threading.Event()
            threading.Thread(target=self._pump, args=(client, upstream, stop, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, stop, False), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, stop: threading.Event, asks: bool) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if asks and self.trigger is not None and self.trigger in data and not stop.is_set():
                self.frozen += 1
                stop.set()
            if not data or stop.is_set():
                if not data:
                    return
                continue  # frozen: read and drop, answer nothing
            try:
                target.sendall(data)
            except OSError:
                return

    def close(self) -> None:
        self._listener.close()
        for sock in self._held:
            sock.close()
