"""Running a vendor SDK on the library's HTTP clients, and reading the response it failed on.

An SDK that takes an ``httpx.AsyncClient`` gets one from :func:`sdk_client`: headers and a
base URL of its own (an SDK may write its key into the client's headers, so it is never the
shared client itself), its requests sent through the provider's shared transport, so they
get the same proxy settings, body cap and deadline as every other vendor request, and
``web.user_agent``. An SDK that makes its client itself gets one the same way through
:func:`hand_client`. The transport's own failures (``too_large``, a cut answer) come back
out of an SDK wrapped in its exceptions; :func:`transport_error` finds them.
:class:`ResponseLog` keeps the last response an SDK saw, and :func:`response_error` reads it
the way :func:`~webproviders.kit.http.request_json` reads one, so SDK vendors' errors map like
the rest.
"""

from __future__ import annotations

from typing import Any

import httpx

from ..config import Config
from ..errors import ProviderError, WebProviderError, error_for_status
from ..responses import Classifier, read_response
from ..vendorhttp.clients import DEFAULT_TIMEOUT, ClientSpec, current
from ..vendorhttp.transport import VendorTransport
from ..vendorhttp.urlauth import URLCredentials

#: Marks an attribute an SDK does not have.
_MISSING: Any = object()


class _Borrowed(httpx.AsyncBaseTransport):
    """The provider's shared transport, lent to one SDK client; closing the client leaves it open.

    Every request carries ``web.user_agent``, also when the SDK writes its own
    ``User-Agent`` (Stainless-generated SDKs do), as every other provider's requests do. A
    redirect is refused here, as for raw-HTTP vendors: an SDK would follow it with the key,
    or read its empty body as a success.
    """

    def __init__(self, lender: VendorTransport, agent: str, provider: str | None) -> None:
        self._lender = lender
        self._agent = agent
        self._provider = provider

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["User-Agent"] = self._agent
        response = await self._lender.handle_async_request(request)
        if 300 <= response.status_code < 400:
            await response.aclose()
            raise error_for_status(response.status_code, self._provider, response.headers)
        return response

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
    provider: str | None = None,
    base_url: str = "",
    headers: httpx.Headers | dict[str, str] | None = None,
    timeout: float | None = None,
    log: ResponseLog | None = None,
) -> httpx.AsyncClient:
    """A client for one SDK call, on ``provider``'s shared transport (its body cap applies).

    ``trust_env`` is off: the transport already applies the proxy settings.
    """
    spec = ClientSpec.of(config, provider)
    own = httpx.Headers(headers)
    own["User-Agent"] = spec.user_agent
    return httpx.AsyncClient(
        transport=_Borrowed(current().transport(spec), spec.user_agent, provider),
        base_url=base_url,
        headers=own,
        timeout=timeout if timeout is not None else DEFAULT_TIMEOUT,
        trust_env=False,
        auth=URLCredentials(provider),
        event_hooks={"response": [log]} if log is not None else None,
    )


async def hand_client(
    sdk: Any,
    path: str,
    config: Config | None,
    *,
    provider: str,
    timeout: float | None = None,
    log: ResponseLog | None = None,
) -> httpx.AsyncClient:
    """Put an :func:`sdk_client` where an SDK that takes no client keeps the one it made itself.

    ``path`` is the dotted attribute holding that ``httpx.AsyncClient`` (or None until the SDK
    makes it). The replacement keeps that client's base URL and headers (an SDK may have
    written its key there), and the SDK's own client is closed unused. Should a release of the
    SDK keep its client elsewhere, this fails loudly rather than letting requests bypass the
    library's caps and proxy settings. The caller closes the returned client.
    """
    *parents, name = path.split(".")
    holder = sdk
    for part in parents:
        holder = getattr(holder, part, _MISSING)
    theirs = getattr(holder, name, _MISSING)
    if theirs is _MISSING or not (theirs is None or isinstance(theirs, httpx.AsyncClient)):
        raise ProviderError(
            f"The installed {type(sdk).__module__.split('.')[0]} SDK no longer keeps its HTTP client "
            f"at {type(sdk).__name__}.{path}; {provider} cannot route it through the library's "
            "client (caps, proxy settings, deadline) and will not run without it.",
            provider=provider,
        )
    ours = sdk_client(
        config,
        provider=provider,
        base_url=str(theirs.base_url) if theirs is not None else "",
        headers=theirs.headers if theirs is not None else None,
        timeout=timeout,
        log=log,
    )
    setattr(holder, name, ours)
    if theirs is not None:
        await theirs.aclose()
    return ours


def transport_error(exc: BaseException) -> WebProviderError | None:
    """The library's own error behind an SDK's exception (the transport refused an answer or
    cut it off; the SDK wrapped that in its own exception), if there is one."""
    seen: set[int] = set()
    current_exc: BaseException | None = exc
    while current_exc is not None and id(current_exc) not in seen:
        if isinstance(current_exc, WebProviderError):
            return current_exc
        seen.add(id(current_exc))
        current_exc = current_exc.__cause__ or current_exc.__context__
    return None


def response_error(
    response: httpx.Response, provider: str, classify: Classifier | None = None
) -> WebProviderError | None:
    """What a vendor response means as an error, or None when it is a well-formed success:
    read exactly as :func:`~webproviders.kit.http.request_json` reads one."""
    return read_response(response, provider, classify)[1]


__all__ = ["ResponseLog", "hand_client", "response_error", "sdk_client", "transport_error"]
