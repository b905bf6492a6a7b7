"""Brave's error bodies and rate-limit headers, mapped to our error classes.

Brave answers a bad key with HTTP 422 ``SUBSCRIPTION_TOKEN_INVALID`` (not 401), and both
"too fast" and "monthly quota used up" with HTTP 429 (``RATE_LIMITED`` / ``QUOTA_LIMITED``).
Its reference shows ``"errors": [...]`` while live answers carry one ``"error"`` object; both
are read. ``X-RateLimit-Reset: 1, 1419704`` lists seconds until each window (per second,
per month) resets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    WebProviderError,
)
from webproviders.kit import error_for_status, parse_retry_after, retry_after_from_headers

if TYPE_CHECKING:
    import httpx

_PLANS_URL = "https://api-dashboard.search.brave.com/"


def error_object(body: Any) -> dict[str, Any] | None:
    """The error object of a Brave ``ErrorResponse`` (either shape), or None."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict):
        return error
    errors = body.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        return errors[0]
    if body.get("type") == "ErrorResponse":
        return {}
    return None


def _problems(error: dict[str, Any]) -> list[dict[str, Any]]:
    meta = error.get("meta")
    problems = meta.get("errors") if isinstance(meta, dict) else None
    return [p for p in problems or [] if isinstance(p, dict)]


def _detail(error: dict[str, Any]) -> str:
    parts = [str(error["detail"]).rstrip(".")] if error.get("detail") else []
    for problem in _problems(error):
        where = ".".join(str(part) for part in problem.get("loc") or [])
        message = str(problem.get("msg") or "").rstrip(".")
        if message:
            parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts) or "no detail given"


def _missing_token(error: dict[str, Any]) -> bool:
    return any(
        "x-subscription-token" in [str(part).lower() for part in problem.get("loc") or []]
        for problem in _problems(error)
    )


def _windows(headers: httpx.Headers, name: str) -> list[float]:
    values = []
    for part in (headers.get(name) or "").split(","):
        try:
            values.append(float(part.strip()))
        except ValueError:
            continue
    return values


def limit_error(name: str, headers: httpx.Headers, code: str) -> WebProviderError:
    """A 429: the per-second rate (retry soon) or the monthly quota (wait for the reset)."""
    resets = _windows(headers, "x-ratelimit-reset")
    remaining = _windows(headers, "x-ratelimit-remaining")
    monthly_spent = len(remaining) > 1 and remaining[-1] <= 0
    if code == "QUOTA_LIMITED" or (code != "RATE_LIMITED" and monthly_spent):
        reset = resets[-1] if len(resets) > 1 else None
        when = f" It resets in about {reset / 86400:.1f} days." if reset else ""
        return QuotaExceededError(
            f"{name}: the plan's monthly request quota is used up (QUOTA_LIMITED).{when} "
            f"Upgrade the plan at {_PLANS_URL} or use another backend.",
            provider=name,
            retry_after=reset,
        )
    retry_after = parse_retry_after(headers.get("retry-after"))
    if retry_after is None:
        exhausted = [reset for reset, left in zip(resets, remaining, strict=False) if left <= 0]
        retry_after = min(exhausted) if exhausted else retry_after_from_headers(headers)
    when = f" Retry after {retry_after:.0f} s." if retry_after is not None else ""
    return RateLimitedError(
        f"{name} is rate limiting requests: the plan's requests per second are used up.{when}",
        provider=name,
        retry_after=retry_after,
    )


def classify(name: str, response: httpx.Response, body: Any) -> WebProviderError | None:
    """Brave-specific verdicts; the status table decides the rest."""
    error = error_object(body)
    code = str((error or {}).get("code") or "")
    if response.status_code == 429 or code in ("RATE_LIMITED", "QUOTA_LIMITED"):
        return limit_error(name, response.headers, code)
    if error is None:
        return None
    if code == "SUBSCRIPTION_TOKEN_INVALID" or _missing_token(error):
        return AuthError(f"{name} rejected the API key ({code or 'token missing'}).", provider=name)
    if code == "SUBSCRIPTION_NOT_FOUND":
        return AuthError(
            f"{name}: the API key has no active subscription (SUBSCRIPTION_NOT_FOUND); "
            f"subscribe to the Search plan at {_PLANS_URL}.",
            provider=name,
        )
    if code == "OPTION_NOT_IN_PLAN":
        return AuthError(
            f"{name}: the key's plan does not include this request (OPTION_NOT_IN_PLAN: "
            f"{_detail(error)}); web search needs a key from the Search plan.",
            provider=name,
        )
    status = response.status_code
    if status < 400:
        return ProviderError(
            f"{name} answered HTTP {status} with an error ({code or 'no code'}): "
            f"{_detail(error)}.",
            provider=name,
        )
    detail = f"{code}: {_detail(error)}" if code else _detail(error)
    return error_for_status(status, name, response.headers, message=detail)
