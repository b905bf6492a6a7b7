"""Whether a request sent through a proxy's tunnel still waits for the proxy to open it.

httpcore reports each step of a request through the ``trace`` extension, the ``CONNECT``
it sends an HTTP proxy for an ``https://`` URL included, and the handshake with a SOCKS
proxy (which every request through one makes, ``http://`` or ``https://``). Until the proxy
answers it, the destination has not been reached: a timeout or a dropped connection then is
the proxy's to explain, and the sentence names the proxy, not the vendor or the page.
"""

from __future__ import annotations

import sys
from typing import Any
from urllib.parse import urlsplit

#: httpcore's trace events around a request: its headers sent, the answer's headers read.
_ASKING = "http11.send_request_headers.started"
_ANSWERED = "http11.receive_response_headers.complete"
#: httpcore's trace event of a SOCKS handshake starting (the proxy then opens the tunnel).
_SOCKS_ASKING = "socks.setup_socks5_connection.started"


def tunnelled(proxy: str, scheme: str) -> bool:
    """Whether a request to a ``scheme`` URL through ``proxy`` waits for the proxy to open a
    tunnel first: every request through a SOCKS proxy, an ``https://`` one through an HTTP proxy
    (an ``http://`` one is forwarded)."""
    return scheme == "https" or urlsplit(proxy).scheme.startswith("socks")


def tunnel_news(name: str, info: dict[str, Any]) -> bool | None:
    """What a trace event says of the tunnel: True, ``CONNECT`` sent or the SOCKS handshake
    started (now waiting); False, the tunnel is open (its answer read, or the request itself
    sent on an open one); None, nothing."""
    if name == _SOCKS_ASKING:
        return True
    method = getattr(info.get("request"), "method", None)
    if method is None:
        return None
    if method != b"CONNECT":
        return False
    if name == _ASKING:
        return True
    return False if name == _ANSWERED else None


def no_tunnel(address: str, host: str, settings: str) -> str:
    """The sentence for a tunnel the proxy at ``address`` has not opened to ``host``."""
    return f"the proxy at {address} had not opened its tunnel to {host}. Check the proxy in {settings}."


def dropped_tunnel(address: str, host: str, exc: BaseException, settings: str) -> str:
    """The sentence for a proxy that ended the connection instead of answering ``CONNECT``."""
    return (
        f"{host} could not be reached: the proxy at {address} ended the connection before opening its "
        f"tunnel ({type(exc).__name__}: {exc}). Check the proxy in {settings}."
    )


def broken_handshake(exc: BaseException) -> bool:
    """Whether ``exc`` is socksio's word for a SOCKS proxy that ended the connection in its
    handshake, or answered what no SOCKS5 proxy says (an HTTP proxy's port given as SOCKS):
    httpcore lets it through unwrapped, where it read as the vendor's or the page's failure."""
    socks = sys.modules.get("socksio.exceptions")  # loaded whenever a SOCKS handshake ran
    return socks is not None and isinstance(exc, socks.SOCKSError)


class TunnelWatch:
    """A ``trace`` callback that knows whether a ``CONNECT`` is waiting for its answer, and
    for which host (set by the sender, as one request may be followed by its redirects)."""

    __slots__ = ("host", "waiting")

    def __init__(self) -> None:
        self.host = ""
        self.waiting = False

    async def __call__(self, name: str, info: dict[str, Any]) -> None:
        news = tunnel_news(name, info)
        if news is not None:
            self.waiting = news


__all__ = ["TunnelWatch", "broken_handshake", "dropped_tunnel", "no_tunnel", "tunnel_news", "tunnelled"]
