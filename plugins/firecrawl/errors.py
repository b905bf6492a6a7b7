"""Reading Firecrawl's failures by status and body.

Firecrawl answers ``{"success": false, "error": "<message>", "code"?: "...", "details"?: ...}``:
401 for a bad or missing token, 402 when credits run out, 403 for a website it will not
scrape, 408 for a scrape that timed out, 429 with "please retry after 42s" in the message
(the self-hosted server sets no ``Retry-After``), 5xx for its own failures. The SDK's
``FirecrawlError`` carries the response, so status, headers and body are read here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from webproviders import (
    InvalidInputError,
    ParseError,
    ProviderError,
    UnsupportedError,
    WebProviderError,
)
from webproviders.kit import (
    error_for_status,
    mentions_bad_key,
    quote,
    said,
    to_provider_error,
)

if TYPE_CHECKING:
    import httpx


NAME = "firecrawl"
_RETRY_AFTER = re.compile(r"retry after (\d+(?:\.\d+)?)\s*s", re.IGNORECASE)
#: Errors about the account or the whole request, not one URL: an extract stops on them
#: instead of listing them per URL.
ACCOUNT_CODES = frozenset({"auth_error", "quota_exceeded", "rate_limited", "not_configured", "invalid_input"})


#: Problems of a refused request body named at most (each a field and what is wrong with it).
_MOST_DETAILS = 3


def _detail(problem: Any) -> str:
    """One entry of a 400's ``details`` (a zod issue): ``tbs: Invalid tbs value``."""
    if not isinstance(problem, Mapping) or not problem.get("message"):
        return ""
    path = problem.get("path")
    where = ".".join(str(part) for part in path) if isinstance(path, list) else ""
    return f"{where}: {problem['message']}" if where else str(problem["message"])


def vendor_message(body: Any) -> str:
    """Firecrawl's ``error`` (or ``message``), with the fields its ``details`` name: a 400
    says only "Invalid request body" and lists what is wrong there."""
    if not isinstance(body, Mapping):
        return ""
    text = str(body.get("error") or body.get("message") or "")
    details = body.get("details")
    named = [_detail(p) for p in details[:_MOST_DETAILS]] if isinstance(details, list) else []
    named = [n for n in named if n]
    return quote(f"{text.rstrip('.')} ({'; '.join(named)})" if named else text)


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Firecrawl's in-band errors and its 403 for sites; the status table decides the rest."""
    status = response.status_code
    message = vendor_message(body)
    if status < 300:
        if isinstance(body, Mapping) and body.get("success") is False:
            return ProviderError(f"Firecrawl answered HTTP {status} with an error{said(message)}")
        if body is not None and not isinstance(body, Mapping):
            return ParseError(f"Firecrawl answered HTTP {status} with JSON that is not an object.")
        return None
    # Its own 403 is JSON; a web page with a 403 came from something in front of the API.
    if status == 403 and isinstance(body, Mapping) and not mentions_bad_key(message):
        return UnsupportedError(f"Firecrawl will not fetch this website (HTTP 403){said(message)}")
    match = _RETRY_AFTER.search(message)
    return error_for_status(
        status,
        NAME,
        response.headers,
        vendor="Firecrawl",
        message=message,
        retry_after=float(match.group(1)) if match else None,
    )


def refuses_only_the_url(exc: BaseException) -> bool:
    """Whether Firecrawl refused a request for its URL alone (a 400 whose ``details`` name only
    ``url``, such as a host without a top-level domain): in an extract that is the URL's
    failure, not one that should cost the other URLs their pages."""
    import httpx  # loaded on a failure path only; listing providers stays light

    response = getattr(exc, "response", None)
    if not isinstance(response, httpx.Response) or response.status_code != 400:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    details = body.get("details") if isinstance(body, Mapping) else None
    return (
        isinstance(details, list)
        and bool(details)
        and all(
            isinstance(p, Mapping) and isinstance(p.get("path"), list) and p["path"][:1] == ["url"]
            for p in details
        )
    )


def _refusal(exc: ValueError) -> str:
    """What the SDK said of the argument it refused: the first problem pydantic found, or its text."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        return f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))
    return str(exc)


def failure(
    exc: BaseException, answered: bool = True, last: httpx.Response | None = None
) -> WebProviderError:
    """Our error for an exception the SDK raised, read from its response when it has one.

    ``answered``: whether Firecrawl had answered anything in this call. The SDK checks the
    arguments it is given (a negative ``wait_for``, a ``proxy`` it does not know) with
    ``ValueError`` before it sends anything: without an answer that is the caller's
    mistake, not JSON of the wrong shape. ``last``: the answer the SDK last read, for a call
    that sends one request at a time (a crawl), whose ``FirecrawlError`` does not carry it
    (``{}`` raised "Unknown error occurred", read as Firecrawl reporting an error)."""
    from firecrawl.v2.utils.error_handler import FirecrawlError

    # Loaded with the SDK, off the event loop; a search (raw HTTP) has no need of it.
    from webproviders.kit import read_response, transport_error

    own = transport_error(exc)
    if own is not None:
        return own
    response = getattr(exc, "response", None)
    import httpx  # loaded on a failure path only; listing providers stays light

    if not isinstance(response, httpx.Response) and isinstance(exc, FirecrawlError):
        response = last
    if isinstance(response, httpx.Response):
        body, error = read_response(response, NAME, classify)
        if error is not None:
            return error
        # every answer it documents says "success": true, or false and why
        if response.is_success and not (isinstance(body, Mapping) and "success" in body):
            return ParseError(
                f"Firecrawl answered HTTP {response.status_code} without its 'success' flag; "
                "the answer is not in the shape it documents.",
                provider=NAME,
            )
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):  # a body that is no JSON at all
        return to_provider_error(exc, NAME)
    if isinstance(exc, ValueError) and not answered:
        return InvalidInputError(
            f"Firecrawl's SDK refused this request before sending it{said(quote(_refusal(exc)))}",
            provider=NAME,
        )
    if isinstance(exc, (ValueError, KeyError, TypeError, AttributeError)):
        return ParseError(
            "Firecrawl answered with JSON that does not have the documented shape.", provider=NAME
        )
    if isinstance(exc, FirecrawlError):
        return ProviderError(f"Firecrawl reported an error{said(quote(str(exc)))}", provider=NAME)
    return to_provider_error(exc, NAME)
