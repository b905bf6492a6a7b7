"""A base for keyless providers that read a search engine's own HTML results page.

Such a provider is a browser-like client of the site, so it shares the ``http`` provider's
network settings (the pooled client applies ``web.proxy`` and ``web.user_agent``) and its
timeout, and it reads an error status as the site's wall: 403 and 429 mean the site limits
automated searches from this address (``blocked``), not that a key is wrong.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import BadGatewayError, BlockedError, ProviderError
from ..retry_after import retry_after_from_headers
from .vendor import VendorProvider

if TYPE_CHECKING:
    import httpx


class HTMLSearchProvider(VendorProvider):
    """No key, the shared client, and the ``http`` provider's timeout as fallback."""

    default_timeout = 15.0
    needs_key = False

    def timeout(self) -> float:
        """Own ``timeout``, else the ``http`` provider's per-page ``url_timeout`` or ``timeout``."""
        http = self.config.provider("http")
        shared = http.option("url_timeout") or http.timeout
        return float(self.settings.timeout or shared or self.default_timeout)

    def client(self) -> httpx.AsyncClient:
        """The shared pooled client; the HTTP stack loads on first search, not at listing."""
        from .http import get_client

        return get_client(self.config)


def check_page_status(response: httpx.Response, site: str, what: str = "the search") -> None:
    """Raise for answers that are not a results page: access walls and outages.

    ``site`` names the engine in the message; ``what`` is the request it answered.
    """
    status = response.status_code
    if status in (403, 429):
        raise BlockedError(
            f"{site} refused the search (HTTP {status}); it limits automated searches per "
            "address, so wait or use another backend.",
            detail=f"http_{status}",
            retry_after=retry_after_from_headers(response.headers) if status == 429 else None,
            status_code=status,
        )
    if status >= 500:
        raise BadGatewayError(
            f"{site} failed on its side (HTTP {status}); try again later.", status_code=status
        )
    if status >= 400:
        raise ProviderError(f"{site} answered HTTP {status} to {what}.", status_code=status)
