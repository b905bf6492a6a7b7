"""Brave's error bodies and rate-limit headers, mapped to our error classes.

Brave answers a bad key with HTTP 422 ``SUBSCRIPTION_TOKEN_INVALID`` (not 401), and both
"too fast" and "monthly quota used up" with HTTP 429 (``RATE_LIMITED`` / ``QUOTA_LIMITED``).
Its reference shows ``"errors": [...]`` while live answers carry one ``"error"`` object; both
are read. The ``X-RateLimit-*`` headers carry two comma-separated windows (per second, per
month; ``X-RateLimit-Policy: 1;w=1, 2000;w=2592000`` names their lengths), and a 429 body's
``error.meta`` counts ``rate_limit`` / ``rate_current`` and ``quota_limit`` / ``quota_current``.
A monthly cap of 0 means "no cap" (Brave's paid Search plan reports ``50, 0``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from webproviders import (
    AuthError,
    ProviderError,
    QuotaExceededError,
    RateLimitedError,
    WebProviderError,
)
from webproviders.kit import (
    error_for_status,
    parse_retry_after,
    quote,
    retry_after_from_headers,
    said,
)

if TYPE_CHECKING:
    import httpx

_PLANS_URL = "https://api-dashboard.search.brave.com/"
_POLICY_WINDOW = re.compile(r"w=(\d+(?:\.\d+)?)")
#: The usage counters in a 429 body's ``error.meta``.
_COUNTERS = ("rate_limit", "rate_current", "quota_limit", "quota_current")


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
    return [p for p in problems if isinstance(p, dict)] if isinstance(problems, list) else []


def _loc(problem: dict[str, Any]) -> list[Any]:
    """Where a validation problem is (``["query", "q"]``); anything but a list says nowhere."""
    loc = problem.get("loc")
    return loc if isinstance(loc, list) else []


def _detail(error: dict[str, Any]) -> str:
    parts = [str(error["detail"]).rstrip(".")] if error.get("detail") else []
    for problem in _problems(error):
        where = ".".join(str(part) for part in _loc(problem))
        message = str(problem.get("msg") or "").rstrip(".")
        if message:
            parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts) or "no detail given"


def _missing_token(error: dict[str, Any]) -> bool:
    return any(
        "x-subscription-token" in [str(part).lower() for part in _loc(problem)]
        for problem in _problems(error)
    )


@dataclass
class Window:
    """One rate-limit window from Brave's headers: its length, cap, what is left, the reset."""

    seconds: float | None = None
    limit: float | None = None
    remaining: float | None = None
    reset: float | None = None

    def spent(self) -> bool:
        """Nothing left of a window that has a cap (a cap of 0 means "no cap" to Brave)."""
        capped = self.limit is None or self.limit > 0
        return capped and self.remaining is not None and self.remaining <= 0


def _numbers(value: str | None) -> list[float | None]:
    numbers: list[float | None] = []
    for part in (value or "").split(","):
        try:
            numbers.append(float(part.strip()))
        except ValueError:
            numbers.append(None)
    return numbers


def _window_lengths(policy: str | None) -> list[float | None]:
    """``1;w=1, 15000;w=2592000`` -> ``[1, 2592000]``."""
    lengths: list[float | None] = []
    for part in (policy or "").split(","):
        match = _POLICY_WINDOW.search(part)
        lengths.append(float(match.group(1)) if match else None)
    return lengths


def windows(headers: httpx.Headers) -> tuple[Window, Window | None]:
    """The short (per-second) window and, when Brave sent two, the long (monthly) one.

    The ``X-RateLimit-Policy`` window lengths say which is which; without them, Brave's
    documented order (per second, then per month) is trusted.
    """
    columns = [
        _numbers(headers.get("x-ratelimit-limit")),
        _numbers(headers.get("x-ratelimit-remaining")),
        _numbers(headers.get("x-ratelimit-reset")),
        _window_lengths(headers.get("x-ratelimit-policy")),
    ]
    count = max(len(column) for column in columns)

    def window(index: int) -> Window:
        limit, remaining, reset, seconds = (
            column[index] if index < len(column) else None for column in columns
        )
        return Window(seconds=seconds, limit=limit, remaining=remaining, reset=reset)

    found = [window(index) for index in range(count)]
    if all(w.seconds is not None for w in found) and count > 1:
        found.sort(key=lambda w: w.seconds or 0.0)
    return found[0], (found[-1] if count > 1 else None)


def _meta_number(meta: dict[str, Any], key: str) -> float | None:
    value = meta.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _counters(error: dict[str, Any] | None) -> dict[str, float | None]:
    """``rate_limit``, ``rate_current``, ``quota_limit``, ``quota_current`` of the error's meta."""
    meta = (error or {}).get("meta")
    meta = meta if isinstance(meta, dict) else {}
    return {key: _meta_number(meta, key) for key in _COUNTERS}


def _used_up(limit: float | None, current: float | None) -> bool:
    """A counter at its cap; a cap of 0 is no cap (Brave's paid Search plan reports that)."""
    return limit is not None and limit > 0 and current is not None and current >= limit


def _count(n: float) -> str:
    return f"{n:,.0f}"


def _said_429(code: str) -> str:
    return f"HTTP 429, {code}" if code else "HTTP 429"


def limit_error(
    name: str, headers: httpx.Headers, error: dict[str, Any] | None
) -> WebProviderError:
    """A 429: the monthly quota (``quota_exceeded``, waiting seconds will not help) when the
    body's code, its quota counters or the monthly header window say so; otherwise a rate
    limit, with ``retry_after`` from ``Retry-After`` or the spent short window's reset."""
    code = str((error or {}).get("code") or "")
    counters = _counters(error)
    short, monthly = windows(headers)
    if (
        code == "QUOTA_LIMITED"
        or _used_up(counters["quota_limit"], counters["quota_current"])
        or (monthly is not None and monthly.spent())
    ):
        return _quota_error(name, code, counters, monthly)
    retry_after = parse_retry_after(headers.get("retry-after"))
    if retry_after is None:
        retry_after = short.reset if short.reset is not None else retry_after_from_headers(headers)
    when = f" Retry after {retry_after:.0f} s." if retry_after is not None else ""
    per_window = _rate_used_up(short, counters)
    if per_window:
        message = (
            f"{name} is rate limiting requests: the plan's {per_window} are used up "
            f"({_said_429(code)})."
        )
    else:
        detail = quote((error or {}).get("detail"))
        message = f"{name} is rate limiting requests ({_said_429(code)}){said(detail)}"
    return RateLimitedError(message + when, provider=name, retry_after=retry_after)


def _rate_used_up(short: Window, counters: dict[str, float | None]) -> str:
    """The spent short window as "1 request(s) per second"; "" when it is not evidently spent."""
    limit = counters["rate_limit"] if counters["rate_limit"] is not None else short.limit
    spent = _used_up(counters["rate_limit"], counters["rate_current"]) or short.spent()
    if not spent:
        return ""
    span = "second" if short.seconds in (None, 1.0) else f"{short.seconds:.0f} s"
    return f"{_count(limit)} request(s) per {span}" if limit else f"requests per {span}"


def _quota_error(
    name: str, code: str, counters: dict[str, float | None], monthly: Window | None
) -> QuotaExceededError:
    cap = counters["quota_limit"] or (monthly.limit if monthly is not None else None)
    used = f" ({_count(cap)} requests)" if cap else ""
    reset = monthly.reset if monthly is not None else None
    when = f" It resets in about {reset / 86400:.1f} days." if reset else ""
    return QuotaExceededError(
        f"{name}: the plan's monthly request quota{used} is used up ({_said_429(code)}).{when} "
        f"Upgrade the plan at {_PLANS_URL} or use another backend.",
        provider=name,
        retry_after=reset,
    )


def classify(name: str, response: httpx.Response, body: Any) -> WebProviderError | None:
    """Brave-specific verdicts; the status table decides the rest."""
    error = error_object(body)
    code = str((error or {}).get("code") or "")
    if response.status_code == 429 or code in ("RATE_LIMITED", "QUOTA_LIMITED"):
        return limit_error(name, response.headers, error)
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
