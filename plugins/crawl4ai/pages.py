"""Turning crawl4ai ``CrawlResult`` objects into pages, and their failures into our errors.

A result has ``url``, ``success``, ``status_code``, ``error_message``, ``metadata`` (title,
description, og tags...), ``redirected_url`` and ``markdown``: a ``str`` subclass whose
value is the raw markdown, with ``.raw_markdown`` and ``.fit_markdown`` (the latter only
filled when a content filter ran).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webproviders import (
    BlockedError,
    NetworkError,
    NotFoundError,
    ProviderError,
    WebProviderError,
    WebTimeoutError,
)
from webproviders.kit import page_error

PROVIDER = "crawl4ai"
_BLOCKING_STATUSES = {401, 403, 429}
#: How crawl4ai's anti-bot detector words its verdict on a page (it then sets ``success``
#: false and leaves the page's status, often 200), and the verdicts that name no protection
#: (little or no text, an error status with an HTML body): guesses, not a challenge seen.
_ANTI_BOT = "blocked by anti-bot protection:"
_GUESSES = ("structural:", "near-empty content", "http ")


def _challenge(message: str) -> bool:
    """Whether crawl4ai found the page to be a named protection's challenge or block page
    (Cloudflare, Akamai, DataDome, a CAPTCHA...)."""
    lowered = message.lower()
    return lowered.startswith(_ANTI_BOT) and not lowered[len(_ANTI_BOT):].strip().startswith(_GUESSES)


def cause(message: str) -> str:
    """The error in crawl4ai's report of an exception it caught: its report adds where in its
    own code it happened, lines of that code and the browser's call log, none of which says
    what went wrong with the page."""
    _, marker, error = message.partition("\nError: ")
    text = error if marker else message
    for tail in ("\n\nCode context:", "\nCall log:"):
        text = text.split(tail, 1)[0]
    return " ".join(text.split())


def failure(result: Any) -> WebProviderError | None:
    """Why a result is not a usable page, or None when it is."""
    status = getattr(result, "status_code", None)
    message = cause(str(getattr(result, "error_message", None) or ""))
    if getattr(result, "success", False) and not (isinstance(status, int) and status >= 400):
        return None
    if isinstance(status, int) and status in _BLOCKING_STATUSES:
        return BlockedError(
            f"The site refused the browser (HTTP {status}).",
            provider=PROVIDER,
            detail=f"http_{status}",
        )
    if status in (404, 410):
        return NotFoundError(f"The page was not found (HTTP {status}).", provider=PROVIDER, status_code=status)
    if _challenge(message):
        return BlockedError(
            f"The site answered the browser with a bot challenge or block page ({message}).",
            provider=PROVIDER,
            detail="captcha_required",
        )
    if isinstance(status, int) and status >= 400:
        return ProviderError(
            f"The page answered HTTP {status}.", provider=PROVIDER, status_code=status
        )
    lowered = message.lower()
    if "timeout" in lowered or "timed out" in lowered:
        return WebTimeoutError(
            f"The browser timed out loading the page: {message}", provider=PROVIDER
        )
    if "net::err" in lowered:
        return NetworkError(f"The browser could not reach the page: {message}", provider=PROVIDER)
    return ProviderError(
        f"crawl4ai could not read the page: {message or 'no reason given'}", provider=PROVIDER
    )


def _markdown(result: Any) -> tuple[str, str | None]:
    """``(content, raw_content)``: the fitted markdown when a filter made one, else the raw one."""
    markdown = getattr(result, "markdown", None)
    if markdown is None:
        return "", None
    raw = getattr(markdown, "raw_markdown", None)
    raw = raw if isinstance(raw, str) else str(markdown)
    fit = getattr(markdown, "fit_markdown", None)
    if isinstance(fit, str) and fit.strip():
        return fit, raw
    return raw, None


def to_page(result: Any, url: str, **extra_metadata: Any) -> dict[str, Any]:
    """One result as a page item (or a per-URL error item), under the URL that was asked for."""
    error = failure(result)
    if error is not None:
        return page_error(url, error)
    content, raw = _markdown(result)
    if not content.strip():
        return page_error(
            url, ProviderError("crawl4ai found no readable content on the page.", provider=PROVIDER)
        )
    vendor = getattr(result, "metadata", None)
    metadata: dict[str, Any] = dict(vendor) if isinstance(vendor, Mapping) else {}
    title = metadata.pop("title", None) or ""
    status = getattr(result, "status_code", None)
    if isinstance(status, int):
        metadata["status_code"] = status
    final = getattr(result, "redirected_url", None)
    if isinstance(final, str) and final and final != url:
        metadata["final_url"] = final
    metadata.update(extra_metadata)
    return {
        "url": url,
        "title": str(title),
        "content": content,
        "raw_content": raw,
        "metadata": metadata,
    }


def internal_links(result: Any) -> list[str]:
    """The ``href`` of every internal link crawl4ai found on a page."""
    links = getattr(result, "links", None)
    internal = links.get("internal") if isinstance(links, Mapping) else None
    hrefs: list[str] = []
    for link in internal or []:
        href = link.get("href") if isinstance(link, Mapping) else None
        if isinstance(href, str) and href.strip():
            hrefs.append(href.strip())
    return hrefs
