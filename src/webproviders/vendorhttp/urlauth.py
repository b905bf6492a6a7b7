"""Credentials in a vendor's base URL (``https://user:pass@gateway/``): HTTP Basic auth for a
gateway in front of the vendor, never in place of the vendor's own key.

httpx sends a URL's user name and password as ``Authorization: Basic …``, replacing whatever
``Authorization`` header the request had: a vendor that takes its key there (a Bearer token)
would silently get none, answer 401, and have its key rested and its health counted down.
Both cannot travel in one header, so such a request is refused before it is sent, saying
which setting to change (never the password).
"""

from __future__ import annotations

from collections.abc import Generator

import httpx

from ..errors import NotConfiguredError


class URLCredentials(httpx.Auth):
    """Basic auth from the request URL's userinfo, unless the request carries its own
    ``Authorization`` (the vendor's key): then :class:`NotConfiguredError`."""

    def __init__(self, provider: str | None) -> None:
        self.provider = provider

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        url = request.url
        if not (url.username or url.password):
            yield request
            return
        if "authorization" in request.headers:
            setting = f"web.providers.{self.provider}.base_url" if self.provider else "The base URL"
            raise NotConfiguredError(
                f"{setting} holds a user name and password, which are sent as HTTP Basic auth in the "
                f"Authorization header, where {self.provider or 'this vendor'} sends its API key: the "
                "vendor would get no key. Take them out of the URL, or send the key in another header "
                "where the provider has a setting for it.",
                provider=self.provider,
            )
        yield from httpx.BasicAuth(url.username, url.password).auth_flow(request)


__all__ = ["URLCredentials"]
