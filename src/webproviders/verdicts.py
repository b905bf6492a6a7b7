"""What a vendor classifier returns once the vendor's own codes are read, in one wording.

A classifier first checks what only its vendor says (error codes, quota markers, a
"no results" body); after that the status decides, and these helpers word the common cases
the same way for every vendor, quoting the vendor's own text (``said``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .dependable.retry_after import retry_after_from_headers
from .errors import (
    AuthError,
    BadGatewayError,
    InvalidInputError,
    ProviderError,
    RateLimitedError,
    WebProviderError,
)

if TYPE_CHECKING:
    import httpx


def key_or_rate_error(
    vendor: str, provider: str, response: httpx.Response, said: str, key_env: str
) -> WebProviderError | None:
    """401/403: the key was refused; 429: rate limited, with ``retry_after``; otherwise None."""
    status = response.status_code
    if status in (401, 403):
        return AuthError(
            f"{vendor} refused the API key (HTTP {status}): {said} Check {key_env} "
            f"(or web.providers.{provider}.api_key).",
            provider=provider,
        )
    if status == 429:
        return RateLimitedError(
            f"{vendor} is rate limiting requests: {said}",
            provider=provider,
            retry_after=retry_after_from_headers(response.headers),
        )
    return None


def request_error(vendor: str, provider: str, status: int, said: str) -> WebProviderError:
    """5xx: the vendor failed; another 4xx: it rejected the request; below 400: it said no."""
    if status >= 500:
        return BadGatewayError(
            f"{vendor} failed on its side (HTTP {status}): {said}", provider=provider
        )
    if status >= 400:
        return InvalidInputError(
            f"{vendor} rejected the request (HTTP {status}): {said}", provider=provider
        )
    return ProviderError(f"{vendor} answered with an error: {said}", provider=provider)
