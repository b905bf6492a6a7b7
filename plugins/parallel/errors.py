"""Reading Parallel's failures by status and body.

Parallel answers ``{"type": "error", "error": {"ref_id", "message", "detail"}}`` with the usual
statuses. Its SDK (Stainless-generated) raises ``APIStatusError`` subclasses that carry the
response, so status, headers and body are read here; its own retries are turned off
because the dispatcher retries.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders import (
    BlockedError,
    NetworkError,
    NotFoundError,
    ParseError,
    ProviderError,
    WebProviderError,
    WebTimeoutError,
)
from webproviders.kit import (
    error_for_status,
    quote,
    response_error,
    said,
    to_provider_error,
    transport_error,
)

if TYPE_CHECKING:
    import httpx


NAME = "parallel"


def vendor_message(body: Any) -> str:
    if not isinstance(body, Mapping):
        return ""
    error = body.get("error")
    if isinstance(error, Mapping):
        return quote(error.get("message") or "")
    return quote(error or body.get("message") or "")


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Parallel's in-band errors; the status table decides the rest."""
    status = response.status_code
    message = vendor_message(body)
    if status < 300:
        if isinstance(body, Mapping) and body.get("type") == "error":
            return ProviderError(f"Parallel answered HTTP {status} with an error{said(message)}")
        if body is not None and not isinstance(body, Mapping):
            return ParseError(f"Parallel answered HTTP {status} with JSON that is not an object.")
        return None
    return error_for_status(status, NAME, response.headers, vendor="Parallel", message=message)


def failure(exc: BaseException, last: httpx.Response | None = None) -> WebProviderError:
    """Our error for an exception the SDK raised, read from its response when it has one, or
    else from ``last``, the response it failed on (an answer its JSON reader refused raises a
    bare ``ValueError``); or the library's own, when the transport refused the answer or cut
    it off."""
    import parallel

    own = transport_error(exc)
    if own is not None:
        return own

    response = getattr(exc, "response", None)
    import httpx  # loaded on a failure path only; listing providers stays light

    if not isinstance(response, httpx.Response):
        response = last
    if isinstance(response, httpx.Response):
        error = response_error(response, NAME, classify)
        if error is not None:
            return error
    if isinstance(exc, parallel.APITimeoutError):
        return WebTimeoutError("Parallel did not answer in time.", provider=NAME)
    if isinstance(exc, parallel.APIConnectionError):
        # The SDK's wrapper says no more than this; the httpx error it wraps says why (a
        # proxy that refused the tunnel, a refused connection, a name that does not resolve).
        cause = exc.__cause__
        if isinstance(cause, httpx.HTTPError):
            return to_provider_error(cause, NAME)
        return NetworkError("Parallel could not be reached.", provider=NAME)
    if isinstance(exc, (parallel.APIResponseValidationError, KeyError, TypeError, AttributeError)):
        return ParseError(
            "Parallel answered with JSON that does not have the documented shape.", provider=NAME
        )
    return to_provider_error(exc, NAME)


def url_error(error_type: str, http_status: int | None, content: str | None) -> WebProviderError:
    """The error for one URL that ``/v1/extract`` could not read (an item of ``errors``)."""
    where = f" (HTTP {http_status}, {error_type})" if http_status else f" ({error_type})"
    if "timeout" in error_type:
        return WebTimeoutError(f"Parallel timed out reading this page{where}.", provider=NAME)
    if http_status in (404, 410):
        return NotFoundError(f"Parallel found no page at this URL{where}.", provider=NAME)
    if http_status in (401, 403, 429):
        return BlockedError(
            f"The site refused Parallel's fetch{where}.",
            provider=NAME,
            detail=f"http_{http_status}",
        )
    return ProviderError(
        f"Parallel could not read this page{where}{said(quote(content))}", provider=NAME
    )
