"""Which proxy a vendor request goes through: ``web.proxy``, else the proxy environment, and
never one for a host ``NO_PROXY`` names.

``NO_PROXY`` is read as curl and requests read it: a host name (which also covers its
subdomains; a leading ``.`` or ``*.`` changes nothing), an IP address, a CIDR range
(``10.0.0.0/8``, ``fd00::/8``; it matches a URL whose host is an address in it, names are
not resolved), an optional ``:port``, or ``*`` for every host. Names are compared in their
ASCII (IDNA) form without a trailing dot, so ``xn--bcher-kva.example`` and ``bücher.example``
are one host, as they are to DNS. httpx reads the same variable
but drops CIDR ranges, and its mount patterns cannot express one, so the choice is made here;
the proxying itself (``CONNECT`` tunnels, SOCKS, proxy credentials) is httpx's.
"""

from __future__ import annotations

import ipaddress
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import idna

from ..redact import remember, url_credentials

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
#: The port a URL without one is reached on.
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class NoProxy:
    """A parsed ``NO_PROXY``: names (with an optional port) and address ranges."""

    everything: bool = False
    names: tuple[tuple[str, int | None], ...] = ()
    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, text: str) -> NoProxy:
        names: list[tuple[str, int | None]] = []
        networks: list[Network] = []
        for raw in text.replace(" ", ",").split(","):
            entry = raw.strip().lower()
            if not entry:
                continue
            if entry == "*":
                return cls(everything=True)
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
                continue
            except ValueError:
                pass
            name, port = _split_port(entry)
            name = _comparable(name.lstrip("*").lstrip("."))
            if name:
                names.append((name, port))
        return cls(names=tuple(names), networks=tuple(networks))

    def matches(self, host: str, port: int | None) -> bool:
        """Whether a request to ``host:port`` goes direct."""
        if self.everything:
            return True
        host = _comparable(host)
        if self.networks:
            try:
                address = ipaddress.ip_address(host)
            except ValueError:
                pass
            else:
                if any(address in network for network in self.networks):
                    return True
        return any(
            (host == name or host.endswith("." + name)) and (wanted is None or wanted == port)
            for name, wanted in self.names
        )


def _comparable(name: str) -> str:
    """A host name as DNS compares it: lower case, no trailing dot, in its ASCII (IDNA) form
    (a name that is not valid IDNA is left as it is)."""
    name = name.lower().rstrip(".")
    if name.isascii():
        return name
    try:
        return idna.encode(name, uts46=True).decode("ascii")
    except idna.IDNAError:
        return name


def _split_port(entry: str) -> tuple[str, int | None]:
    """``host:port`` into its parts (an IPv6 address without a port keeps its colons)."""
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        port = rest.lstrip(":")
        return host, int(port) if port.isdigit() else None
    host, colon, port = entry.rpartition(":")
    if colon and port.isdigit() and ":" not in host:
        return host, int(port)
    return entry, None


def _with_scheme(url: str) -> str:
    """A proxy given as ``host:port`` is an HTTP proxy, as curl and httpx read it."""
    return url if "://" in url else f"http://{url}"


@dataclass(frozen=True)
class ProxyRoutes:
    """The proxy for each URL scheme, and the hosts that go direct."""

    proxies: Mapping[str, str]
    bypass: NoProxy

    @classmethod
    def build(cls, configured: str | None, environment: Mapping[str, str]) -> ProxyRoutes:
        """``configured`` (``web.proxy``) for every scheme, else ``HTTP_PROXY`` / ``HTTPS_PROXY``
        / ``ALL_PROXY`` from ``environment`` (:func:`read_environment`); ``NO_PROXY`` applies to
        either, as it does for curl."""
        if configured:
            proxies = {"http": _with_scheme(configured), "https": _with_scheme(configured)}
        else:
            proxies = {
                scheme: _with_scheme(chosen)
                for scheme in ("http", "https")
                if (chosen := environment.get(scheme) or environment.get("all"))
            }
        for proxy in proxies.values():  # a password from the environment is known nowhere else
            remember(*url_credentials(proxy))
        return cls(proxies, NoProxy.parse(environment.get("no", "")))

    def proxy_for(self, scheme: str, host: str, port: int | None) -> str | None:
        """The proxy URL a request to ``scheme://host:port`` goes through, or None for direct."""
        proxy = self.proxies.get(scheme)
        # A URL on its scheme's own port carries none (httpx gives None), where NO_PROXY's
        # "host:443" names it: the entry must still spare it, or the key crosses the proxy.
        if proxy is None or self.bypass.matches(host, port if port is not None else _DEFAULT_PORTS.get(scheme)):
            return None
        return proxy


def shared_proxy(configured: str | None, hosts: Iterable[str], scheme: str = "https") -> str | None:
    """The one proxy of an HTTP client that is not httpx and reaches all of ``hosts`` (ddgs's):
    chosen by the rule every vendor request follows, and handed to it, rather than left to
    that client's own reading of the environment (which may let ``HTTPS_PROXY`` win over
    ``https_proxy``). None, for direct, only when ``NO_PROXY`` spares every one of ``hosts``."""
    routes = ProxyRoutes.build(configured, read_environment())
    return next((proxy for host in hosts if (proxy := routes.proxy_for(scheme, host, None))), None)


def read_environment() -> dict[str, str]:
    """``*_proxy`` variables by scheme (``no`` for ``NO_PROXY``), lower-case names winning, as
    the standard library reads them (``HTTP_PROXY`` is ignored in a CGI request)."""
    return urllib.request.getproxies_environment()


__all__ = ["NoProxy", "ProxyRoutes", "read_environment", "shared_proxy"]
