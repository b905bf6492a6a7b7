"""Reading Exa's failures by status and body.

Exa answers ``{"requestId", "error": "<message>", "tag": "<MACHINE_TAG>"}``. The SDK turns
every status of 400 and above into a plain ``ValueError`` carrying the body, without the
headers, so the provider keeps the last response itself (an httpx response hook on the
SDK's own client) and reads status, tag and ``Retry-After`` here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    BlockedError,
    NotFoundError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    UnsupportedError,
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

NAME = "exa"
QUOTA_TAGS = frozenset({"NO_MORE_CREDITS", "API_KEY_BUDGET_EXCEEDED", "INSUFFICIENT_CREDITS"})
#: ``/contents`` tags of a page not read in time: the site's slowness, or the
#: ``livecrawlTimeout`` the request set.
TIMEOUT_TAGS = frozenset({"CRAWL_TIMEOUT", "CRAWL_LIVECRAWL_TIMEOUT"})
#: ``/contents`` tag naming the status the site answered, ``httpStatusCode`` being optional.
_HTTP_TAG = re.compile(r"CRAWL_HTTP_(\d{3})")
#: 403 tags about the content asked for, not about the key.
CONTENT_TAGS = frozenset({"ROBOTS_FILTER_FAILED", "PROHIBITED_CONTENT", "CONTENT_FILTER_ERROR"})


def _fields(body: Any) -> tuple[str, str]:
    """``(message, tag)`` of an Exa error body."""
    if not isinstance(body, Mapping):
        return "", ""
    error = body.get("error")
    message = error.get("message") if isinstance(error, Mapping) else error
    tag = body.get("tag")
    return quote(message or ""), tag if isinstance(tag, str) else ""


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Exa's verdict from its tag; the status table decides the rest."""
    status = response.status_code
    message, tag = _fields(body)
    text = f"{tag}: {message}" if tag and message else tag or message
    if 200 <= status < 300:  # any success status: an error in its body, or no answer at all
        if isinstance(body, Mapping) and "results" not in body and body.get("error"):
            return ProviderError(f"Exa answered with an error{said(text)}")
        if body is not None and not isinstance(body, Mapping):
            return ParseError(f"Exa answered HTTP {status} with JSON that is not an object.")
        return None
    where = f"(HTTP {status}){said(text)}"
    if tag in QUOTA_TAGS:
        return QuotaExceededError(
            f"Exa says the account is out of credits or over its budget {where} "
            "Add credits at https://dashboard.exa.ai/."
        )
    if tag == "INVALID_API_KEY":
        return AuthError(f"Exa rejected the API key {where}")
    if tag == "FEATURE_DISABLED":
        return UnsupportedError(f"Exa has not enabled this feature for the account {where}")
    if tag == "NUM_RESULTS_EXCEEDED":  # the plan's cap on results, not a mistake of the caller's
        return UnsupportedError(
            f"Exa's plan for this key returns fewer results than the limit asked for {where} "
            "Ask for a smaller limit, or raise the plan at https://dashboard.exa.ai/."
        )
    if tag in CONTENT_TAGS:
        return BlockedError(f"Exa refused to fetch this content {where}", detail="http_403")
    if status == 422:  # Exa's "well-formed, but a URL could not be fetched" (/contents)
        return ProviderError(f"Exa could not fetch or read the page(s) asked for {where}")
    return error_for_status(status, NAME, response.headers, vendor="Exa", message=text)


def failure(exc: BaseException, response: httpx.Response | None) -> WebProviderError:
    """Our error for an exception the SDK raised, read from the last response when there is one
    (or the library's own, when the transport refused the answer or cut it off)."""
    own = transport_error(exc)
    if own is not None:
        return own
    if response is not None:
        error = response_error(response, NAME, classify)
        if error is not None:
            return error
    if isinstance(exc, (KeyError, TypeError, AttributeError)):
        return ParseError(
            "Exa answered with JSON that does not have the documented shape.", provider=NAME
        )
    return to_provider_error(exc, NAME)


def _tagged_status(tag: str | None) -> int | None:
    """The site's status a ``CRAWL_HTTP_{status}`` tag names (``CRAWL_HTTP_403``), or None."""
    match = _HTTP_TAG.fullmatch(tag or "")
    return int(match.group(1)) if match else None


def status_error(tag: str | None, http_status: int | None) -> WebProviderError:
    """The error for one URL that ``/contents`` could not read."""
    http_status = http_status or _tagged_status(tag)
    where = f" (HTTP {http_status}, {tag})" if http_status else f" ({tag})" if tag else ""
    if tag in TIMEOUT_TAGS or http_status == 408:
        return WebTimeoutError(f"Exa timed out reading this page{where}.", provider=NAME)
    if tag == "SOURCE_NOT_AVAILABLE" or http_status in (401, 403, 429):
        return BlockedError(
            f"The site refused Exa's crawler{where}.",
            provider=NAME,
            detail=f"http_{http_status or 403}",
        )
    if tag == "CRAWL_NOT_FOUND" or http_status in (404, 410):
        return NotFoundError(f"Exa found no page at this URL{where}.", provider=NAME)
    return ProviderError(f"Exa could not read this page{where}.", provider=NAME)
