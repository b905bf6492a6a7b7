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
