"""Which URLs and addresses a fetch from untrusted input may reach.

URLs an agent fetches often come from a model or from a page, so by default nothing that
points inside the machine or its network is fetched: every address class in
:data:`ADDRESS_TABLE` (loopback, private, link-local, CGNAT, multicast, reserved,
documentation, benchmarking and unspecified ranges, cloud metadata endpoints), IPv6 forms
that embed one of those, and numeric host spellings that hide an address.
``allow_private_networks`` and ``allowed_hosts`` lift the network refusal for intranet use;
metadata and the never-routable ranges stay refused.

Names are resolved through a swappable resolver (:func:`override_resolver`), so embedders
decide what a name means, and at most once per host within a :func:`resolution_scope` (one
dispatch call, one fetch, one crawl): every later check and the connection itself use that
same answer, so nothing can change it in between. See docs/security.md.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Literal, NamedTuple
from urllib.parse import urlsplit

from ..errors import NetworkError, UnsafeURLError, WebProviderError
from ..urls import shorten

if TYPE_CHECKING:
    import asyncio

    import httpx

    from ..config import Config
    from ..pools import LazyPool

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: ``async (host, port) -> [address, ...]``: what a name means right now.
Resolver = Callable[[str, int], Awaitable[list[str]]]

SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}

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

Kind = Literal["metadata", "never", "private"]


class AddressRange(NamedTuple):
    """One row of :data:`ADDRESS_TABLE`: a network, how it is treated, and where that comes from.

    ``metadata`` is refused whatever the settings; ``never`` too (no web server lives there,
    or it aliases the machine); ``private`` is refused unless ``web.allow_private_networks``
    is on or the host is in ``web.allowed_hosts``.
    """

    network: ipaddress.IPv4Network | ipaddress.IPv6Network
    kind: Kind
    what: str
    source: str


def _table(*rows: tuple[str, Kind, str, str]) -> tuple[AddressRange, ...]:
    order = {"metadata": 0, "never": 1, "private": 2}
    ranges = [AddressRange(ipaddress.ip_network(net), kind, what, source) for net, kind, what, source in rows]
    # Metadata first: its hosts sit inside link-local and private ranges.
    return tuple(sorted(ranges, key=lambda r: order[r.kind]))


#: Every address class the URL check knows, in one place (docs/security.md prints it).
#: Anything else that Python's ``ipaddress`` does not call globally reachable is treated
#: as ``private`` too.
ADDRESS_TABLE: tuple[AddressRange, ...] = _table(
    # -- cloud metadata services: instance credentials, the most valuable SSRF target
    ("169.254.169.254/32", "metadata", "a cloud metadata address (AWS, GCP, Azure, OCI, DigitalOcean, OpenStack)",
     "AWS EC2 docs: Instance metadata service; GCP, Azure IMDS docs"),
    ("169.254.170.2/32", "metadata", "a cloud metadata address (AWS ECS task metadata)",
     "AWS ECS docs: Task metadata endpoint"),
    ("169.254.170.23/32", "metadata", "a cloud metadata address (AWS EKS Pod Identity)",
     "AWS EKS docs: Pod Identity agent"),
    ("169.254.169.123/32", "metadata", "a cloud metadata address (AWS Time Sync)",
     "AWS EC2 docs: Amazon Time Sync Service"),
    ("169.254.0.23/32", "metadata", "a cloud metadata address (Tencent Cloud)",
     "Tencent Cloud docs: Instance metadata (metadata.tencentyun.com)"),
    ("169.254.42.42/32", "metadata", "a cloud metadata address (Scaleway)",
     "Scaleway docs: Instance metadata API"),
    ("100.100.100.200/32", "metadata", "a cloud metadata address (Alibaba Cloud)",
     "Alibaba Cloud ECS docs: Instance metadata"),
    ("168.63.129.16/32", "metadata", "a cloud metadata address (Azure WireServer)",
     "Microsoft Learn: What is IP address 168.63.129.16?"),
    ("192.0.0.192/32", "metadata", "a cloud metadata address (Oracle Cloud Classic)",
     "Oracle Cloud docs: Retrieving instance metadata (Classic)"),
    ("fd00:ec2::254/128", "metadata", "a cloud metadata address (AWS IMDS over IPv6)",
     "AWS EC2 docs: Instance metadata service, IPv6 endpoint"),
    ("fd00:ec2::23/128", "metadata", "a cloud metadata address (AWS EKS Pod Identity over IPv6)",
     "AWS EKS docs: Pod Identity agent"),
    ("fd00:42::42/128", "metadata", "a cloud metadata address (Scaleway over IPv6)",
     "Scaleway docs: Instance metadata API"),
    ("fd20:ce::254/128", "metadata", "a cloud metadata address (Google Cloud over IPv6)",
     "Google Cloud docs: About VM metadata, IPv6 metadata server"),
    ("fe80::a9fe:a9fe/128", "metadata", "a cloud metadata address (OpenStack over IPv6)",
     "OpenStack Nova docs: Metadata service (Victoria and later)"),
    # -- no web server lives here, or the address aliases the machine itself
    ("0.0.0.0/8", "never", "an unspecified address", "RFC 791 §3.2; RFC 1122 §3.2.1.3"),
    ("::/128", "never", "an unspecified address", "RFC 4291 §2.5.2"),
    ("192.0.0.0/24", "never", "an IETF protocol assignment address", "RFC 6890 §2.2.2"),
    ("192.0.2.0/24", "never", "a documentation address (TEST-NET-1)", "RFC 5737"),
    ("198.51.100.0/24", "never", "a documentation address (TEST-NET-2)", "RFC 5737"),
    ("203.0.113.0/24", "never", "a documentation address (TEST-NET-3)", "RFC 5737"),
    ("198.18.0.0/15", "never", "a benchmarking address", "RFC 2544 §C.2.2; RFC 6815"),
    ("192.88.99.0/24", "never", "a deprecated 6to4 relay anycast address", "RFC 7526"),
    ("224.0.0.0/4", "never", "a multicast address", "RFC 5771"),
    ("255.255.255.255/32", "never", "the broadcast address", "RFC 919; RFC 8190"),
    ("240.0.0.0/4", "never", "a reserved address", "RFC 1112 §4"),
    ("100::/64", "never", "a discard-only address", "RFC 6666"),
    ("2001:2::/48", "never", "a benchmarking address", "RFC 5180"),
    ("2001:10::/28", "never", "a deprecated ORCHID address", "RFC 4843"),
    ("2001:20::/28", "never", "an ORCHIDv2 address", "RFC 7343"),
    ("2001:db8::/32", "never", "a documentation address", "RFC 3849"),
    ("3fff::/20", "never", "a documentation address", "RFC 9637"),
    ("ff00::/8", "never", "a multicast address", "RFC 4291 §2.7"),
    # -- the machine and its networks: opened by web.allow_private_networks / web.allowed_hosts
    ("127.0.0.0/8", "private", "a loopback address", "RFC 1122 §3.2.1.3"),
    ("::1/128", "private", "a loopback address", "RFC 4291 §2.5.3"),
    ("10.0.0.0/8", "private", "a private address", "RFC 1918"),
    ("172.16.0.0/12", "private", "a private address", "RFC 1918"),
    ("192.168.0.0/16", "private", "a private address", "RFC 1918"),
    ("fc00::/7", "private", "a private (unique local) address", "RFC 4193"),
    ("fec0::/10", "private", "a private (site local) address", "RFC 3879"),
    ("169.254.0.0/16", "private", "a link-local address", "RFC 3927"),
    ("fe80::/10", "private", "a link-local address", "RFC 4291 §2.5.6"),
    ("100.64.0.0/10", "private", "a carrier-grade NAT (shared) address", "RFC 6598"),
    ("64:ff9b:1::/48", "private", "a local-use NAT64 address", "RFC 8215"),
)

_NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
#: Where RFC 6052 §2.2 puts the IPv4 address for each prefix length (bit ranges of the
#: IPv6 address, bits 64-71 being the reserved "u" octet).
_RFC6052_LAYOUTS: dict[int, tuple[tuple[int, int], ...]] = {
    48: ((48, 64), (72, 88)),
    56: ((56, 64), (72, 96)),
    64: ((72, 104),),
    96: ((96, 128),),
}
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_TEREDO = ipaddress.ip_network("2001::/32")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")

_HOST_LABELS = re.compile(r"^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
_DOTTED_QUAD = re.compile(r"^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$")


class AddressPolicy(NamedTuple):
    """What the network check lets through: the opt-ins from ``web.*``."""

    allow_private: bool = False
    allowed_hosts: frozenset[str] = frozenset()
    #: Fetches go through ``web.proxy``, which resolves names itself.
    proxy: bool = False
    #: ``web.proxy_resolves_names``: a public-looking name that does not resolve here is left
    #: to the proxy.
    proxy_resolves_names: bool = False
    #: A service on the operator's network fetches (a self-hosted vendor), not this library:
    #: no proxy setting of ours changes what it can reach, so a failed lookup names none.
    service: bool = False

    @classmethod
    def from_config(cls, config: Config | None) -> AddressPolicy:
        """The policy for fetches this library makes, through ``web.proxy`` when one is set."""
        if config is None:
            return cls()
        web = config.web
        hosts = frozenset(_clean_host(h) for h in web.allowed_hosts if h.strip())
        proxy = bool(web.proxy)
        return cls(web.allow_private_networks, hosts, proxy, proxy and web.proxy_resolves_names)

    @classmethod
    def for_service(cls, config: Config | None) -> AddressPolicy:
        """The policy for URLs handed to a service on the operator's network (a self-hosted
        vendor): it resolves and fetches them inside that network, not through ``web.proxy``,
        so every name must resolve here and none is left to the proxy."""
        return cls.from_config(config)._replace(proxy=False, proxy_resolves_names=False, service=True)

    def host_allowed(self, host: str) -> bool:
        """True when ``host`` is allow-listed (exact name or address, or ``*.suffix``)."""
        name = _clean_host(host)
        for entry in self.allowed_hosts:
            if entry == name:
                return True
            if entry.startswith("*.") and name.endswith(entry[1:]):
                return True
        return False


def allowed_host_problem(entry: str) -> str | None:
    """Why a ``web.allowed_hosts`` entry can never match a URL's host, or None when it can: a
    host name, an address, or ``*.`` and a name. Matched as written, a URL, a port or a range
    would open nothing while a refusal told its user to list the host there."""
    host = _clean_host(entry)
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    if _HOST_LABELS.match(host.removeprefix("*.")):
        return None
    if not host.isascii():
        return "an international name is matched in its ASCII form: write it as xn--..."
    if "/" in host:
        return ("a URL or an address range matches no host: write the host alone (wiki.corp.example), an address, "
                "or *.corp.example; web.allow_private_networks opens every private range")
    if ":" in host:
        return "a port matches no host: write the host alone, and every port of it is allowed"
    return "it is not a host name, an address or *. and a domain (*.corp.example)"


class Target(NamedTuple):
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
    """The IPv4 address an IPv6 address carries (mapped, compatible, 6to4, NAT64, Teredo).

    Local-use NAT64 (``64:ff9b:1::/48``) is not decoded here: where its IPv4 address sits
    depends on the operator's prefix length (see :func:`nat64_local_readings`).
    """
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    value = int(address)
    if address in _IPV4_TRANSLATED or address in _NAT64_WELL_KNOWN:
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if address in _SIX_TO_FOUR:
        return address.sixtofour
    if address in _TEREDO:
        return address.teredo[1] if address.teredo else None
    if address in _IPV4_COMPATIBLE and value > 1:
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    return None


def nat64_local_readings(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Every IPv4 address a local-use NAT64 address could embed (RFC 6052 layouts /48 to /96)."""
    value = int(address)
    readings: list[ipaddress.IPv4Address] = []
    for length, spans in _RFC6052_LAYOUTS.items():
        if length < 96 and (value >> 56) & 0xFF:  # bits 64-71, the "u" octet, must be zero
            continue
        bits = 0
        for first, last in spans:
            width = last - first
            bits = (bits << width) | ((value >> (128 - last)) & ((1 << width) - 1))
        readings.append(ipaddress.IPv4Address(bits))
    return readings


def _row_for(address: IPAddress) -> AddressRange | None:
    for row in ADDRESS_TABLE:
        if row.network.version == address.version and address in row.network:
            return row
    return None


_OPT_IN_HINT = " (set web.allow_private_networks or list the host in web.allowed_hosts to allow it)"


def address_problem(address: IPAddress, policy: AddressPolicy, *, allow_listed: bool = False) -> str | None:
    """Why connecting to ``address`` is refused under ``policy``, or None when it is fine."""
    opened = policy.allow_private or allow_listed
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id:
            return "an IPv6 address with a zone index"
        inner = embedded_ipv4(address)
        if inner is not None:
            problem = address_problem(inner, policy, allow_listed=allow_listed)
            if problem is not None:
                return f"{address} embeds {inner}: {problem}"
        if address in _NAT64_LOCAL:
            for reading in nat64_local_readings(address):
                row = _row_for(reading)
                if row is not None and row.kind == "metadata":
                    return f"{address} may embed {reading}, {row.what}"
    row = _row_for(address)
    if row is not None:
        if row.kind == "private" and opened:
            return None
        return f"{address} is {row.what}" + (_OPT_IN_HINT if row.kind == "private" else "")
    if not address.is_global and not opened:
        return f"{address} is a reserved or non-public address" + _OPT_IN_HINT
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
    if parsed.port is not None and not 0 < parsed.port < 65536:
        raise _refuse(text, f"port {parsed.port} is not one a server can listen on (1 to 65535)")
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


#: The threads name lookups run in (made on first lookup).
_lookups: LazyPool | None = None


class NoNameServer(NetworkError):
    """The system resolver got no answer at all (``EAI_AGAIN``): this machine has no DNS it
    can reach, as in a sandbox that reaches out only through a proxy. Not the page's fault."""


async def system_resolver(host: str, port: int) -> list[str]:
    """Every address the operating system gives for ``host`` (TCP).

    The lookup runs in a daemon thread of our own, not in the loop's default executor: a
    resolver that never answers is abandoned at the call's deadline, and its thread must not
    hold up ``asyncio.run`` or the process's exit for the resolver's own timeouts.
    """
    from ..pools import LazyPool  # here, not at import: listing providers stays light

    global _lookups
    if _lookups is None:
        _lookups = LazyPool(16, "webproviders-dns")
    try:
        infos = await _lookups.run(socket.getaddrinfo, host, port, 0, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        failed = NoNameServer if getattr(exc, "errno", None) == socket.EAI_AGAIN else NetworkError
        raise failed(f"Could not resolve the host name '{host}': {exc}.") from None
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


class ResolvedNames:
    """What each host name meant within one scope: resolved once, then the same answer for all.

    Lookups of one name that overlap share one resolution. A name that did not resolve stays
    unresolved for the scope. The answers are raw: every user checks them under its own policy.
    """

    def __init__(self) -> None:
        self._answers: dict[str, list[str] | NetworkError] = {}
        self._pending: dict[str, asyncio.Task[None]] = {}

    async def lookup(self, host: str, port: int) -> list[str]:
        """The addresses ``host`` resolved to in this scope (resolving it now on first use)."""
        import asyncio  # here, not at import: listing providers stays light

        if host not in self._answers:
            task = self._pending.get(host)
            if task is None or task.get_loop() is not asyncio.get_running_loop():
                task = self._pending[host] = asyncio.ensure_future(self._resolve(host, port))
            await asyncio.shield(task)  # a cancelled waiter leaves the lookup to the others
        answer = self._answers[host]
        if isinstance(answer, NetworkError):
            raise type(answer)(answer.message)  # a fresh one per waiter, of the same kind
        return answer

    async def _resolve(self, host: str, port: int) -> None:
        try:
            self._answers[host] = list(await get_resolver()(host, port))
        except NetworkError as exc:
            self._answers[host] = exc
        finally:
            self._pending.pop(host, None)


_scope: ContextVar[ResolvedNames | None] = ContextVar("webproviders_resolved_names", default=None)


@contextmanager
def resolution_scope() -> Iterator[ResolvedNames]:
    """Resolve each name at most once inside the block (joining the enclosing scope, if any)."""
    current = _scope.get()
    if current is not None:
        yield current
        return
    names = ResolvedNames()
    token = _scope.set(names)
    try:
        yield names
    finally:
        _scope.reset(token)


async def resolve_checked(host: str, port: int, policy: AddressPolicy, *, url: str | None = None) -> list[str]:
    """Resolve ``host`` and check every answer; returns the vetted addresses, in order.

    One refused answer refuses the host: a connection may pick any of them. Inside a
    :func:`resolution_scope` the name is resolved once and its answer reused. Empty only
    under ``proxy_resolves_names``, for a name that is the proxy's to resolve (never for a
    :meth:`AddressPolicy.for_service` policy).
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
        names = _scope.get()
        try:
            answers = await (names.lookup(name, port) if names is not None else get_resolver()(name, port))
        except NetworkError as exc:
            if policy.service:
                raise  # the service's caller says why the name had to resolve here
            if not policy.proxy:
                raise _unresolved_without_proxy(exc) from None
            if not policy.proxy_resolves_names:
                raise NetworkError(
                    f"{exc.message} Fetches go through web.proxy: set web.proxy_resolves_names: true "
                    "to let the proxy look up names this machine cannot."
                ) from None
            if private_name(name) and not (policy.allow_private or allow_listed):
                raise NetworkError(
                    f"{exc.message} '{name}' is a private-network name, which is not left to "
                    "web.proxy to resolve (web.allow_private_networks or web.allowed_hosts opens it)."
                ) from None
            return []  # the proxy resolves it; nothing here to check
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


def _unresolved_without_proxy(error: NetworkError) -> NetworkError:
    """``error``, saying why a proxy the environment names was not used: run-time URLs go
    only through ``web.proxy`` (no credential from the environment follows a page's link)."""
    from urllib.request import getproxies_environment  # here: only a failed lookup needs it

    named = sorted({scheme for scheme in getproxies_environment() if scheme in ("http", "https", "all")})
    if not named:
        if isinstance(error, NoNameServer):
            return NetworkError(
                f"{error.message} No DNS server answered this machine; where only a proxy reaches the "
                "internet, set web.proxy (and web.proxy_resolves_names: true)."
            )
        return error
    names = [f"{scheme.upper()}_PROXY" for scheme in named]
    variables = f"{', '.join(names[:-1])} and {names[-1]} are" if len(names) > 1 else f"{names[0]} is"
    return NetworkError(
        f"{error.message} {variables} set, but pages are fetched through web.proxy only: set "
        "web.proxy (and web.proxy_resolves_names: true if this machine has no DNS)."
    )


async def check_destination_resolved(url: str | httpx.URL, policy: AddressPolicy) -> Target:
    """:func:`check_destination` plus the DNS check: every address the host resolves to must pass."""
    target = check_destination(url, policy)
    await resolve_checked(target.host, target.port, policy, url=str(target.url))
    return target


def _check_all(urls: Sequence[str], policy: AddressPolicy) -> tuple[list[WebProviderError | None], dict[int, Target]]:
    """:func:`check_destination` for each URL: the refusals, and the targets of the others by index."""
    problems: list[WebProviderError | None] = []
    targets: dict[int, Target] = {}
    for index, url in enumerate(urls):
        try:
            targets[index] = check_destination(url, policy)
            problems.append(None)
        except UnsafeURLError as exc:
            problems.append(exc)
    return problems, targets


def screen_urls_offline(urls: Sequence[str], policy: AddressPolicy) -> list[WebProviderError | None]:
    """For each URL, why it may not be fetched, or None: every check that needs no DNS."""
    return _check_all(urls, policy)[0]


async def screen_urls(urls: Sequence[str], policy: AddressPolicy) -> list[WebProviderError | None]:
    """For each URL, why it may not be fetched, or None: :func:`check_destination_resolved` for a batch.

    Each distinct host is resolved once, all hosts at the same time. A refusal is
    ``unsafe_url``; a host that does not resolve is ``network_error``.
    """
    import asyncio  # here, not at import: listing providers stays light

    problems, targets = _check_all(urls, policy)
    hosts = list(dict.fromkeys((target.host, target.port) for target in targets.values()))
    outcomes = await asyncio.gather(
        *(resolve_checked(host, port, policy) for host, port in hosts), return_exceptions=True
    )
    by_host = dict(zip(hosts, outcomes, strict=True))
    for index, target in targets.items():
        outcome = by_host[(target.host, target.port)]
        if isinstance(outcome, UnsafeURLError):
            problems[index] = _refuse(urls[index], outcome.detail or outcome.message)
        elif isinstance(outcome, WebProviderError):
            problems[index] = outcome
        elif isinstance(outcome, BaseException):
            raise outcome
    return problems


#: Name suffixes that are never public: special-use names (RFC 6761, RFC 6762, RFC 8375),
#: ICANN's private-use ``.internal`` and names commonly used inside private networks, among
#: them a Kubernetes service's ``<name>.<namespace>.svc`` and Consul's ``.consul``.
PRIVATE_SUFFIXES = (
    "localhost", "localdomain", "local", "internal", "home.arpa", "test", "invalid", "example",
    "lan", "intranet", "corp", "home", "private", "svc", "consul",
)


def on_operator_network(url: str) -> bool:
    """Whether a configured endpoint is on this machine or its network, judged without DNS.

    True for an address that is not public (in any spelling), for ``localhost``, metadata
    names, a single-label name (``firecrawl``, a container's name) and a name under a
    suffix that is never public (:data:`PRIVATE_SUFFIXES`); also for a URL that cannot be
    read, so doubt counts as local. A public-looking name counts as outside.
    """
    try:
        host = _clean_host(urlsplit(url.strip()).hostname or "")
    except ValueError:
        return True
    if not host:
        return True
    try:
        address: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None:
        return address_problem(address, AddressPolicy()) is not None
    return private_name(host)


def private_name(host: str) -> bool:
    """Whether a host name (not an address) can only mean something inside a private network:
    a single label (a container's name), a numeric spelling, a metadata name, or a name under
    a suffix that is never public (:data:`PRIVATE_SUFFIXES`)."""
    if "." not in host or _numeric_spelling(host) or host in METADATA_NAMES:
        return True
    return any(host == suffix or host.endswith("." + suffix) for suffix in PRIVATE_SUFFIXES)
