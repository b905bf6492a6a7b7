"""Fixtures for the safe-fetching layer and the ``http`` provider.

A real HTTP server on 127.0.0.1 serves the test site; a second one is the canary that no
refused URL may ever reach. No test touches DNS: test names (``site.test``, ``rebind.test``
…) mean what :data:`TEST_NAMES` says, answered by ``socket.getaddrinfo`` itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from webproviders.config import Config, config_from_dict

from .fetch_site import CanaryServer, SiteServer, serve

PUBLIC = "93.184.216.34"  # a public address; tests only use it where no connection follows

#: What the test names mean (answered by ``socket.getaddrinfo``, see ``tests/conftest.py``);
#: a list of answers is handed out one lookup at a time.
TEST_NAMES: dict[str, list[list[str]]] = {
    "site.test": [["127.0.0.1"]],
    "www.site.test": [["127.0.0.1"]],
    "moved.site.test": [["127.0.0.1"]],
    "blog.site.test": [["127.0.0.1"]],
    "delay.site.test": [["127.0.0.1"]],
    "gz.site.test": [["127.0.0.1"]],
    "gzbomb.site.test": [["127.0.0.1"]],
    "nomap.site.test": [["127.0.0.1"]],
    "bigmap.site.test": [["127.0.0.1"]],
    "relmap.site.test": [["127.0.0.1"]],
    "tmplmap.site.test": [["127.0.0.1"]],
    "slowmap.site.test": [["127.0.0.1"]],
    "slowmaps.site.test": [["127.0.0.1"]],
    "hugemap.site.test": [["127.0.0.1"]],
    "wideindex.site.test": [["127.0.0.1"]],
    "loopmap.site.test": [["127.0.0.1"]],
    "loopbots.site.test": [["127.0.0.1"]],
    "busybots.site.test": [["127.0.0.1"]],
    "bigbots.site.test": [["127.0.0.1"]],
    "slowbots.site.test": [["127.0.0.1"]],
    "badloc.site.test": [["127.0.0.1"]],
    "relloc.site.test": [["127.0.0.1"]],
    "xn--mnchen-3ya.site.test": [["127.0.0.1"]],  # münchen.site.test
    "other.test": [["127.0.0.1"]],
    "a.hosts.test": [["127.0.0.1"]],
    "b.hosts.test": [["127.0.0.1"]],
    "c.hosts.test": [["127.0.0.1"]],
    "internal.test": [["127.0.0.1"]],
    "private.test": [["10.0.0.5"]],
    "cgnat.test": [["100.64.12.1"]],
    "linklocal.test": [["169.254.10.10"]],
    "metadata-alias.test": [["169.254.169.254"]],
    "v6loop.test": [["::1"]],
    "mapped.test": [["::ffff:127.0.0.1"]],
    "nat64.test": [["64:ff9b::7f00:1"]],
    "mixed.test": [[PUBLIC, "127.0.0.1"]],
    "public.test": [[PUBLIC]],
    # DNS rebinding: a public answer first, the loopback for any later lookup.
    "rebind.test": [[PUBLIC], ["127.0.0.1"]],
    # The same on the site's address: the first answer may be fetched (with the opt-in),
    # a later one is a metadata address that nothing may reach.
    "rebind-site.test": [["127.0.0.1"], ["169.254.169.254"]],
}


@pytest.fixture(scope="session")
def site() -> Iterator[SiteServer]:
    server = SiteServer()
    serve(server)
    yield server
    server.stopping.set()
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def canary_server() -> Iterator[CanaryServer]:
    server = CanaryServer()
    serve(server)
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def canary(canary_server: CanaryServer) -> Iterator[CanaryServer]:
    """The canary, with an assertion after the test that nothing reached it."""
    canary_server.hits.clear()
    yield canary_server
    assert canary_server.hits == [], f"a refused URL reached the internal service: {canary_server.hits}"


@pytest.fixture(autouse=True)
def fake_dns(dns: Any) -> Any:
    """The test names, in this test's DNS."""
    dns.table.update({name: [list(answer) for answer in answers] for name, answers in TEST_NAMES.items()})
    return dns


@pytest.fixture(autouse=True)
def _fresh_site(site: SiteServer) -> None:
    site.reset()


@pytest.fixture
def config_for() -> Callable[..., Config]:
    """``config_for(allow_private_networks=True, providers={"http": {...}})`` -> Config."""

    def build(providers: dict[str, Any] | None = None, **web: Any) -> Config:
        tree: dict[str, Any] = {"web": {**web, "providers": providers or {}}}
        return config_from_dict(tree, source="<test>")

    return build


@pytest.fixture
def local(config_for: Callable[..., Config]) -> Config:
    """A config that may reach the test server on 127.0.0.1."""
    return config_for(allow_private_networks=True)


@pytest.fixture
def stalled_proxy(http_server: Any) -> Iterator[int]:
    """The port of a forward proxy on 127.0.0.1 that takes each ``CONNECT`` and never opens
    its tunnel (let go when the test ends)."""
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_CONNECT(self) -> None:
            release.wait(30)
            self.close_connection = True

        def log_message(self, *args: Any) -> None:
            pass

    yield http_server(Handler).server_address[1]
    release.set()
