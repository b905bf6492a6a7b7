"""Which URLs and addresses a fetch from untrusted input may reach.

URLs an agent fetches often come from a model or from a page, so by default nothing that
points inside the machine or its network is fetched: loopback, private, link-local, CGNAT,
multicast, reserved and unspecified addresses, IPv6 forms that embed one of those, cloud
metadata endpoints, and numeric host spellings that hide an address. ``allow_private_networks``
and ``allowed_hosts`` lift the network refusal for intranet use; metadata stays refused.

Names are resolved through a swappable resolver (:func:`override_resolver`), so tests and
embedders decide what a name means without touching DNS. See docs/security.md.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import NetworkError, UnsafeURLError
from ..urls import shorten

if TYPE_CHECKING:
    import httpx

    from ..config import Config

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: ``async (host, port) -> [address, ...]``: what a name means right now.
Resolver = Callable[[str, int], Awaitable[list[str]]]

SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}

#: Cloud instance-metadata endpoints: refused even when private networks are allowed.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OCI, DigitalOcean, OpenStack
        "169.254.170.2",  # AWS ECS task metadata
        "169.254.170.23",  # AWS EKS pod identity
        "169.254.169.123",  # AWS time sync
        "100.100.100.200",  # Alibaba Cloud
        "fd00:ec2::254",  # AWS IMDS over IPv6
        "fd00:ec2::23",  # AWS EKS pod identity over IPv6
    )
)
METADATA_NAMES = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "metadata.azure.internal",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.tencentyun.com",
        "metadata.platformequinix.com",
        "metadata.packet.net",
    }
)

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})

#: Ranges a private-network opt-in may reach (with the reason shown when refused).
_PRIVATE_RANGES: tuple[tuple[str, str], ...] = (
    ("127.0.0.0/8", "a loopback address"),
    ("::1/128", "a loopback address"),
    ("10.0.0.0/8", "a private address"),
    ("172.16.0.0/12", "a private address"),
    ("192.168.0.0/16", "a private address"),
    ("fc00::/7", "a private (unique local) address"),
    ("fec0::/10", "a private (site local) address"),
    ("169.254.0.0/16", "a link-local address"),
    ("fe80::/10", "a link-local address"),
    ("100.64.0.0/10", "a carrier-grade NAT (shared) address"),
)
#: Ranges no setting opens (no web server lives there, or they alias the machine itself).
_NEVER_RANGES: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", "an unspecified address"),
    ("::/128", "an unspecified address"),
    ("224.0.0.0/4", "a multicast address"),
    ("ff00::/8", "a multicast address"),
    ("255.255.255.255/32", "the broadcast address"),
    ("240.0.0.0/4", "a reserved address"),
)
_PRIVATE = tuple((ipaddress.ip_network(n), why) for n, why in _PRIVATE_RANGES)
_NEVER = tuple((ipaddress.ip_network(n), why) for n, why in _NEVER_RANGES)

_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_TEREDO = ipaddress.ip_network("2001::/32")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")

_HOST_LABELS = re.compile(r"^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
_DOTTED_QUAD = re.compile(r"^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$")


@dataclass(frozen=True)
class AddressPolicy:
    """What the network check lets through: the opt-ins from ``web.*``."""

    allow_private: bool = False
    allowed_hosts: frozenset[str] = frozenset()

    @classmethod
    def from_config(cls, config: Config | None) -> AddressPolicy:
        if config is None:
            return cls()
        hosts = frozenset(_clean_host(h) for h in config.web.allowed_hosts if h.strip())
        return cls(config.web.allow_private_networks, hosts)

    def host_allowed(self, host: str) -> bool:
        """True when ``host`` is allow-listed (exact name or address, or ``*.suffix``)."""
        name = _clean_host(host)
        for entry in self.allowed_hosts:
            if entry == name:
                return True
            if entry.startswith("*.") and name.endswith(entry[1:]):
                return True
        return False


@dataclass(frozen=True)
class Target:
    """A URL that passed the checks that need no DNS: what will be connected to."""

    url: httpx.URL
    scheme: str
    host: str
    port: int
    #: The address itself when the host is an IP literal.
    address: IPAddress | None


def _clean_host(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host.rstrip(".")


def _refuse(url: str, why: str) -> UnsafeURLError:
    return UnsafeURLError(f"Refused to fetch {shorten(url)}: {why}.", detail=why)


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, 6to4, NAT64, Teredo)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    value = int(address)
    if address in _IPV4_TRANSLATED:
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if any(address in net for net in _NAT64):
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if address in _SIX_TO_FOUR:
        return address.sixtofour
    if address in _TEREDO:
        return address.teredo[1] if address.teredo else None
    if address in _IPV4_COMPATIBLE and value > 1:
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    return None


def address_problem(address: IPAddress, policy: AddressPolicy, *, allow_listed: bool = False) -> str | None:
    """Why connecting to ``address`` is refused under ``policy``, or None when it is fine."""
    if address in METADATA_ADDRESSES:
        return f"{address} is a cloud metadata address"
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id:
            return "an IPv6 address with a zone index"
        inner = embedded_ipv4(address)
        if inner is not None:
            problem = address_problem(inner, policy, allow_listed=allow_listed)
            if problem is not None:
                return f"{address} embeds {inner}: {problem}"
    for network, why in _NEVER:
        if address in network:
            return f"{address} is {why}"
    for network, why in _PRIVATE:
        if address in network:
            if policy.allow_private or allow_listed:
                return None
            return (
                f"{address} is {why} (set web.allow_private_networks or list the host in "
                "web.allowed_hosts to allow it)"
            )
    if not address.is_global and not (policy.allow_private or allow_listed):
        return f"{address} is a reserved or non-public address"
    return None


def _numeric_spelling(host: str) -> bool:
    """A host an address parser would read as IPv4 although it is not a plain dotted quad."""
    labels = host.split(".")
    return bool(_NUMERIC_LABEL.match(labels[-1])) and not _DOTTED_QUAD.match(host)


def check_destination(url: str | httpx.URL, policy: AddressPolicy) -> Target:
    """Every check that needs no DNS; raises :class:`UnsafeURLError`.

    The same parsed ``httpx.URL`` is later used for the request, so what was checked is
    exactly what is fetched.
    """
    import httpx  # the URL parser the request will use; loaded on first check, not at listing

    text = str(url)
    try:
        parsed = url if isinstance(url, httpx.URL) else httpx.URL(text)
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        raise _refuse(text, f"the URL cannot be parsed safely ({exc})") from None
    scheme = parsed.scheme.lower()
    if scheme not in SCHEMES:
        raise _refuse(text, f"only http and https URLs are fetched, not {scheme or 'a relative URL'}")
    if parsed.userinfo:
        raise _refuse(text, "the URL carries a user name or password before the host")
    try:
        raw_host = parsed.raw_host.decode("ascii")
    except UnicodeDecodeError:
        raise _refuse(text, "the host name is not plain ASCII") from None
    host = _clean_host(raw_host)
    if not host:
        raise _refuse(text, "the URL has no host")
    port = parsed.port or DEFAULT_PORTS[scheme]
    allow_listed = policy.host_allowed(host)
    try:
        address: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is None and "%" in host:
        raise _refuse(text, "the host contains an escape or a zone index")
    if address is not None:
        problem = address_problem(address, policy, allow_listed=allow_listed)
        if problem:
            raise _refuse(text, problem)
        return Target(parsed, scheme, host, port, address)
    if not _HOST_LABELS.match(host):
        raise _refuse(text, f"'{host}' is not a valid host name")
    if _numeric_spelling(host):
        raise _refuse(text, f"'{host}' is a numeric spelling of an address (decimal, octal, hex or short form)")
    if host in METADATA_NAMES:
        raise _refuse(text, f"'{host}' is a cloud metadata host name")
    if (host in _LOOPBACK_NAMES or host.endswith(".localhost")) and not (
        policy.allow_private or allow_listed
    ):
        raise _refuse(
            text,
            f"'{host}' names this machine (set web.allow_private_networks or list the host in "
            "web.allowed_hosts to allow it)",
        )
    return Target(parsed, scheme, host, port, None)


async def system_resolver(host: str, port: int) -> list[str]:
    """Every address the operating system gives for ``host`` (TCP)."""
    import asyncio  # here, not at import: listing providers stays light

    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise NetworkError(f"Could not resolve the host name '{host}': {exc}.") from None
    seen: list[str] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = str(sockaddr[0])
        if address not in seen:
            seen.append(address)
    return seen


_resolver: Resolver = system_resolver


def get_resolver() -> Resolver:
    """The resolver in force (the system one unless overridden)."""
    return _resolver


def set_resolver(resolver: Resolver | None) -> None:
    """Use ``resolver`` for every safe fetch in this process (None restores the system one)."""
    global _resolver
    _resolver = resolver or system_resolver


@contextmanager
def override_resolver(resolver: Resolver) -> Iterator[None]:
    """Use ``resolver`` inside a ``with`` block (tests, embedders with their own DNS)."""
    previous = _resolver
    set_resolver(resolver)
    try:
        yield
    finally:
        set_resolver(previous)


async def resolve_checked(host: str, port: int, policy: AddressPolicy, *, url: str | None = None) -> list[str]:
    """Resolve ``host`` and check every answer; returns the vetted addresses, in order.

    One refused answer refuses the host: a connection may pick any of them.
    """
    name = _clean_host(host)
    allow_listed = policy.host_allowed(name)
    try:
        literal: IPAddress | None = ipaddress.ip_address(name)
    except ValueError:
        literal = None
    shown = url or f"{name}:{port}"
    if literal is not None:
        answers = [str(literal)]
    else:
        if name in METADATA_NAMES:
            raise _refuse(shown, f"'{name}' is a cloud metadata host name")
        answers = await get_resolver()(name, port)
    if not answers:
        raise NetworkError(f"The host name '{name}' resolved to no address.")
    vetted: list[str] = []
    for answer in answers:
        try:
            address = ipaddress.ip_address(answer)
        except ValueError:
            raise _refuse(shown, f"'{name}' resolved to '{answer}', which is not an address") from None
        problem = address_problem(address, policy, allow_listed=allow_listed)
        if problem:
            raise _refuse(shown, problem if literal is not None else f"'{name}' resolves to a refused address: {problem}")
        vetted.append(str(address))
    return vetted


async def check_destination_resolved(url: str | httpx.URL, policy: AddressPolicy) -> Target:
    """:func:`check_destination` plus the DNS check: every address the host resolves to must pass."""
    target = check_destination(url, policy)
    await resolve_checked(target.host, target.port, policy, url=str(target.url))
    return target
