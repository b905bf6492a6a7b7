"""Running a vendor SDK on the shared HTTP stack, and reading the response it failed on.

SDKs that accept an ``httpx.AsyncClient`` get one from :func:`sdk_client`: headers and a
base URL of its own (an SDK may write its key into the client's headers, so it must never
be the shared client itself), connections from the shared pool. :class:`ResponseLog` keeps
the last response an SDK saw, and :func:`response_error` reads it the way
:func:`~webproviders.kit.http.request_json` reads one, so SDK vendors' errors map like the rest.
"""

from __future__ import annotations

import httpx

from ..config import Config, user_agent
from ..errors import WebProviderError
from ..responses import Classifier, read_response
from .http import DEFAULT_TIMEOUT, get_client


class _SharedPool(httpx.AsyncBaseTransport):
    """Sends each request through the shared pooled client; closing it leaves the pool open.

    Every request carries ``web.user_agent``, also when the SDK writes its own
    ``User-Agent`` (Stainless-generated SDKs do), as every other provider's requests do.
    """

    def __init__(self, config: Config | None) -> None:
        self._config = config

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["User-Agent"] = user_agent(self._config)
        return await get_client(self._config).send(request, stream=True)

    async def aclose(self) -> None:
        return None


class ResponseLog:
    """An httpx response hook that keeps the last response, so a failure can be read later."""

    def __init__(self) -> None:
        self.last: httpx.Response | None = None

    async def __call__(self, response: httpx.Response) -> None:
        self.last = response


def sdk_client(
    config: Config | None,
    *,
    base_url: str = "",
    timeout: float | None = None,
    log: ResponseLog | None = None,
) -> httpx.AsyncClient:
    """A client for one SDK call: headers and base URL of its own, connections from the shared pool.

    ``trust_env`` is off because the shared client already applies the proxy settings.
    """
    return httpx.AsyncClient(
        transport=_SharedPool(config),
        base_url=base_url,
        headers={"User-Agent": user_agent(config)},
        timeout=timeout if timeout is not None else DEFAULT_TIMEOUT,
        trust_env=False,
        event_hooks={"response": [log]} if log is not None else None,
    )


def response_error(
    response: httpx.Response, provider: str, classify: Classifier | None = None
) -> WebProviderError | None:
    """What a vendor response means as an error, or None when it is a well-formed success:
    read exactly as :func:`~webproviders.kit.http.request_json` reads one."""
    return read_response(response, provider, classify)[1]
