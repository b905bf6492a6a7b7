"""Jina's JSON envelopes: hits, reader pages, and its error bodies.

Jina answers ``{"code", "status", "data", "meta"}``; an error has ``"data": null`` plus
``name`` (the error class), a five-digit ``status`` whose first three digits are the HTTP
status, and ``message`` / ``readableMessage``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    BadGatewayError,
    BlockedError,
    NotFoundError,
    ParseError,
    ProviderError,
    QuotaExceededError,
    TooLargeError,
    WebProviderError,
    warn,
)
from webproviders.kit import answer_objects, error_for_status

if TYPE_CHECKING:
    import httpx

PROVIDER = "jina"
_AUTH_NAMES = {"AuthenticationRequiredError", "AuthenticationFailedError", "EmailUnverifiedError"}
_QUOTA_NAMES = {
    "InsufficientBalanceError",
    "InsufficientCreditsError",
    "FreeFeatureLimitError",
    "BudgetExceededError",
}

#: Errors about one page whatever their status: ``OperationNotAllowedError`` is a 403 for a URL
#: Jina failed on too often (not the key), ``DataStreamBrokenError`` a 400 for a file it could
#: not read (not a bad request).
_PAGE_NAMES = {"AssertionFailureError", "OperationNotAllowedError", "DataStreamBrokenError"}


#: How the reader says, in ``data.warning``, that the page itself answered an error status
#: (its answer is still HTTP 200, with the error page's text as ``content``).
_TARGET_ERROR = re.compile(r"Target URL returned error (\d{3})")
#: How the reader says the page is a CAPTCHA or bot-check wall ("This page maybe requiring
#: CAPTCHA, please make sure you are authorized to access this page."), also on HTTP 200.
_CAPTCHA = re.compile(r"requiring CAPTCHA", re.IGNORECASE)
#: How Jina's search says it found nothing (an ``AssertionFailureError``, HTTP 422).
_NO_RESULTS = "No search results"


class NoResults(ProviderError):
    """Search found nothing: Jina reports that as a 422 ``AssertionFailureError``."""


class PageFailed(ProviderError):
    """The reader could not load or convert one page (per-URL, not a provider failure)."""


def _http_status(body: Mapping[str, Any], response: httpx.Response) -> int:
    status = body.get("status")
    if isinstance(status, int) and status >= 10000:
        return status // 100
    code = body.get("code")
    return code if isinstance(code, int) else response.status_code


def _message(body: Mapping[str, Any]) -> str:
    for key in ("readableMessage", "message"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return "no message"


def classify(response: httpx.Response, body: Any) -> WebProviderError | None:
    """Map a Jina error body (any status, also a 200 whose ``code`` is an error) to our errors."""
    if not isinstance(body, Mapping) or body.get("data") is not None:
        return None
    status = _http_status(body, response)
    if status < 400:
        return None
    name = str(body.get("name") or "")
    text = _message(body)
    if name in _AUTH_NAMES:
        return AuthError(f"Jina refused the request ({name}): {text}", provider=PROVIDER)
    if name in _QUOTA_NAMES:
        return QuotaExceededError(
            f"Jina says the account is out of tokens ({name}): {text}", provider=PROVIDER
        )
    if name == "TargetFileTooLargeError" or status == 413:  # the page, not the request
        return TooLargeError(f"The page is larger than Jina's reader reads: {text}", provider=PROVIDER)
    if name in _PAGE_NAMES or status == 422:
        return PageFailed(f"Jina could not load the page: {text}", provider=PROVIDER)
    if name == "SecurityCompromiseError" or status == 451:
        return BlockedError(
            f"Jina refuses to fetch this address: {text}",
            provider=PROVIDER,
            detail=f"http_{status}",
        )
    wait = body.get("retryAfter")
    return error_for_status(
        429 if name == "RateLimitTriggeredError" else status,
        PROVIDER,
        response.headers,
        vendor="Jina",
        # ``readableMessage`` already begins with the error's name.
        message=f"{name}: {text}" if name and not text.startswith(name) else text,
        retry_after=float(wait) if isinstance(wait, (int, float)) else None,
    )


def classify_search(response: httpx.Response, body: Any) -> WebProviderError | None:
    """As :func:`classify`, but "No search results" is an empty answer, not a failure. Jina's
    search answers its other failures with a 422 too (``DownstreamServiceFailureError``
    "Search(web) failed", "No provider can do web search atm."): an outage, not "0 results"."""
    error = classify(response, body)
    if not isinstance(error, PageFailed):
        return error
    text = _message(body)
    if _NO_RESULTS in text:
        return NoResults(error.message, provider=PROVIDER)
    return BadGatewayError(f"Jina's search failed on its side: {text}", provider=PROVIDER)


def _published(value: Any) -> str | None:
    """Jina dates come as ISO strings, as Google's text or (a page's own meta tag) as an HTTP
    date: an absolute one ("Oct 1, 2026") is made ISO, a relative one ("3 days ago") is no
    date (it is wrong once stored), so None."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    for fmt in ("%b %d, %Y", "%B %d, %Y", "%d %b %Y"):
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    try:
        datetime.fromisoformat(text.removesuffix("Z") + ("+00:00" if text.endswith("Z") else ""))
    except ValueError:
        try:
            return parsedate_to_datetime(text).isoformat()
        except (TypeError, ValueError, IndexError):
            return None
    return text


def _data(body: Any, kind: type) -> Any:
    if not isinstance(body, Mapping) or not isinstance(body.get("data"), kind):
        what = "list" if kind is list else "object"  # in JSON's words, not Python's (``Mapping``)
        raise ParseError(f"Jina answered without the expected 'data' {what}.", provider=PROVIDER)
    return body["data"]


def parse_hits(body: Any, with_content: bool) -> list[dict[str, Any]]:
    """Search hits from ``data``; the page markdown becomes ``raw_content`` when asked for,
    unless the reader says the page was a CAPTCHA wall or an error status (its ``warning``,
    as in extract): that text is not the page, so the hit comes without it, and a warning."""
    hits: list[dict[str, Any]] = []
    unread = 0
    for item in answer_objects(_data(body, list), "data", "Jina", PROVIDER):
        hit: dict[str, Any] = {
            "title": item.get("title") or "",
            "url": item.get("url") or "",
            "description": item.get("description") or "",
        }
        date = item.get("date") or item.get("publishedTime")
        published = _published(date)
        if published:
            hit["published_at"] = published
        elif isinstance(date, str) and date.strip():
            hit["date"] = date.strip()  # Google's own words ("3 days ago"), as serper keeps them
        if with_content and isinstance(item.get("content"), str):
            if _target_failure(item.get("warning")) is None:
                hit["raw_content"] = item["content"]
            else:
                unread += 1
        hits.append(hit)
    if unread:
        warn(
            f"jina's reader met a CAPTCHA wall or an error status on {unread} of the result pages; "
            "they come without raw_content."
        )
    return hits


def _target_failure(warning: Any) -> WebProviderError | None:
    """The error for a page that answered the reader with an error status or a CAPTCHA wall
    (``blocked`` / ``captcha_required``, as the ``http`` provider says of a bot challenge: the
    wall's text is not the page), or None."""
    if not isinstance(warning, str):
        return None
    found = _TARGET_ERROR.search(warning)
    status = int(found.group(1)) if found else 0
    if _CAPTCHA.search(warning):
        answered = f" (HTTP {status})" if status else ""
        return BlockedError(
            f"The site answered Jina's reader with a CAPTCHA or bot check{answered} instead of "
            f"the page ({warning.strip()}); a browser-based backend may read it.",
            provider=PROVIDER,
            detail="captcha_required",
        )
    if status < 400:
        return None
    said = f"The site answered HTTP {status} to Jina's reader ({warning.strip()})."
    if status in (404, 410):
        return NotFoundError(said, provider=PROVIDER)
    if status in (401, 403, 429, 451):
        return BlockedError(said, provider=PROVIDER, detail=f"http_{status}")
    return PageFailed(said, provider=PROVIDER)


def parse_page(body: Any, requested_url: str) -> dict[str, Any]:
    """One reader page; the requested URL stays ``url`` (the final one goes to metadata).
    A page that answered an error status is that URL's error, not its error page's text."""
    data = _data(body, Mapping)
    failure = _target_failure(data.get("warning"))
    if failure is not None:
        raise failure
    content = data.get("content")
    if not isinstance(content, str) or not content.strip():
        raise PageFailed("Jina returned no content for this page.", provider=PROVIDER)
    metadata: dict[str, Any] = {}
    if isinstance(data.get("metadata"), Mapping):
        metadata.update(data["metadata"])
    if data.get("description"):
        metadata["description"] = data["description"]
    published = _published(data.get("publishedTime"))
    if published:
        metadata["published_at"] = published
    final_url = data.get("url")
    if isinstance(final_url, str) and final_url and final_url != requested_url:
        metadata["final_url"] = final_url
    return {
        "url": requested_url,
        "title": data.get("title") or "",
        "content": content,
        "raw_content": None,
        "metadata": metadata,
    }
