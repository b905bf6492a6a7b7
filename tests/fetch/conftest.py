"""Fixtures for the safe-fetching layer and the ``http`` provider.

A real HTTP server on 127.0.0.1 serves the test site; a second one is the canary that no
refused URL may ever reach. Every test runs with a fake resolver, so no test touches DNS:
test names (``site.test``, ``rebind.test`` …) mean what the table in :class:`FakeDNS` says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from webproviders.config import Config, config_from_dict
from webproviders.errors import NetworkError
from webproviders.fetching.urlsafety import override_resolver

from .fetch_site import CanaryServer, SiteServer, serve

PUBLIC = "93.184.216.34"  # a public address; tests only use it where no connection follows


class FakeDNS:
    """Names to addresses; a list of answers per name is handed out one call at a time."""

    def __init__(self) -> None:
        self.table: dict[str, list[list[str]]] = {
            "localhost": [["127.0.0.1"]],
            "site.test": [["127.0.0.1"]],
            "www.site.test": [["127.0.0.1"]],
            "blog.site.test": [["127.0.0.1"]],
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
            # DNS rebinding: a public answer for the check, then the loopback for the connection.
            "rebind.test": [[PUBLIC], ["127.0.0.1"]],
        }
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        answers = self.table.get(host)
        if answers is None:
            raise NetworkError(f"Could not resolve the host name '{host}' (test resolver).")
        return answers.pop(0) if len(answers) > 1 else answers[0]


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
def fake_dns() -> Iterator[FakeDNS]:
    dns = FakeDNS()
    with override_resolver(dns):
        yield dns


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
