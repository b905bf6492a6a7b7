"""The suite's own guard: a test that tries to leave this machine fails instead."""

from __future__ import annotations

import socket

import pytest


def test_non_loopback_lookups_and_connects_are_refused() -> None:
    with pytest.raises(OSError, match="only loopback"):
        socket.getaddrinfo("example.com", 443)
    with socket.socket() as sock, pytest.raises(OSError, match="only loopback"):
        sock.connect(("192.0.2.1", 80))  # TEST-NET-1: refused before any packet is sent


def test_loopback_stays_reachable() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=2):
            pass
