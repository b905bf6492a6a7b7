"""The exception hierarchy: one class per envelope error code.

Providers may raise these instead of building failure dicts; the dispatcher turns any of
them into a failure envelope. Every class knows its ``code`` and whether trying again (or
failing over to another provider) can help (``retryable``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from .dependable.retry_after import MAX_QUOTA_RESET, MAX_RETRY_AFTER, clamp_retry_after

ErrorCode = Literal[
    "invalid_input",
    "not_configured",
    "unsupported",
    "auth_error",
    "rate_limited",
    "quota_exceeded",
    "timeout",
    "network_error",
    "blocked",
    "parse_error",
    "bad_gateway",
    "unsafe_url",
    "too_large",
    "not_found",
    "provider_error",
    "budget_exceeded",
]

ERROR_CODES: tuple[str, ...] = ErrorCode.__args__  # type: ignore[attr-defined]


class WebProviderError(Exception):
    """Base class: a failure with an envelope ``code`` and a sentence a person can act on."""

    code: ClassVar[str] = "provider_error"
    retryable: ClassVar[bool] = False
    #: The per-URL failures behind a call-level error (an extract or crawl that read no page);
    #: they go to the failure envelope's ``meta.failures``.
    failures: list[dict[str, Any]] | None = None
    #: The longest ``retry_after`` this error carries (longer values are clamped).
    retry_after_ceiling: ClassVar[float] = MAX_RETRY_AFTER

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        detail: str | None = None,
        retry_after: float | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.detail = detail
        #: Seconds to wait before trying again, clamped to ``0 .. retry_after_ceiling``.
        self.retry_after = clamp_retry_after(retry_after, self.retry_after_ceiling)
        self.status_code = status_code

    def envelope_fields(self) -> dict[str, Any]:
        """The keys this error adds to a failure envelope (besides ``success``)."""
        fields: dict[str, Any] = {
            "error": self.message,
            "error_code": self.code,
            "retryable": self.retryable,
        }
        if self.detail is not None:
            fields["detail"] = self.detail
        if self.retry_after is not None:
            fields["retry_after"] = round(self.retry_after, 3)
        return fields


class InvalidInputError(WebProviderError):
    """The caller's arguments are wrong; no provider can help."""

    code = "invalid_input"


class NotConfiguredError(WebProviderError):
    """A key, URL or package the provider needs is missing."""

    code = "not_configured"


class UnsupportedError(WebProviderError):
    """The provider cannot do what was asked (capability, content type, option)."""

    code = "unsupported"


class AuthError(WebProviderError):
    """The vendor refused the credentials."""

    code = "auth_error"


class RateLimitedError(WebProviderError):
    """Too many requests; ``retry_after`` says when to try again, if the vendor said."""

    code = "rate_limited"
    retryable = True


class QuotaExceededError(WebProviderError):
    """Out of credits or over the plan's cap; waiting seconds will not help."""

    code = "quota_exceeded"
    #: ``retry_after`` is when the quota resets: information for the caller, not a pause.
    retry_after_ceiling = MAX_QUOTA_RESET


class WebTimeoutError(WebProviderError):
    """The call or the vendor ran out of time (named so it does not shadow the builtin)."""

    code = "timeout"
    retryable = True


class NetworkError(WebProviderError):
    """The vendor could not be reached (DNS, connect, reset)."""

    code = "network_error"
    retryable = True


class BlockedError(WebProviderError):
    """A CAPTCHA page or an access wall; ``detail`` names which (``captcha_required``, ``http_403``)."""

    code = "blocked"
    retryable = True


class ParseError(WebProviderError):
    """The vendor answered with something that is not what its API documents."""

    code = "parse_error"
    retryable = True


class BadGatewayError(WebProviderError):
    """The vendor failed on its side (HTTP 5xx)."""

    code = "bad_gateway"
    retryable = True


class UnsafeURLError(WebProviderError):
    """The URL points at a place a fetch from untrusted input must not reach."""

    code = "unsafe_url"


class TooLargeError(WebProviderError):
    """The response is bigger than the configured cap."""

    code = "too_large"


class NotFoundError(WebProviderError):
    """The page asked for is not there: the site answered 404 or 410, or the provider does
    not hold it (a page missing from an index). Another backend may still have a copy."""

    code = "not_found"


class ProviderError(WebProviderError):
    """Anything else that went wrong inside a provider."""

    code = "provider_error"


class BudgetExceededError(WebProviderError):
    """The call would take spending over a configured ``web.budget``; nothing was sent."""

    code = "budget_exceeded"


ERROR_CLASSES: dict[str, type[WebProviderError]] = {
    cls.code: cls
    for cls in (
        InvalidInputError,
        NotConfiguredError,
        UnsupportedError,
        AuthError,
        RateLimitedError,
        QuotaExceededError,
        WebTimeoutError,
        NetworkError,
        BlockedError,
        ParseError,
        BadGatewayError,
        UnsafeURLError,
        TooLargeError,
        NotFoundError,
        ProviderError,
        BudgetExceededError,
    )
}


def error_for_code(code: str, message: str, **kwargs: Any) -> WebProviderError:
    """Build the exception that belongs to an envelope ``code``."""
    return ERROR_CLASSES.get(code, ProviderError)(message, **kwargs)


def is_retryable(code: str) -> bool:
    """Whether a failure with this code can succeed on a later try or another provider."""
    return ERROR_CLASSES.get(code, ProviderError).retryable


__all__ = [
    "ERROR_CLASSES",
    "ERROR_CODES",
    "AuthError",
    "BadGatewayError",
    "BlockedError",
    "BudgetExceededError",
    "ErrorCode",
    "InvalidInputError",
    "NetworkError",
    "NotConfiguredError",
    "NotFoundError",
    "ParseError",
    "ProviderError",
    "QuotaExceededError",
    "RateLimitedError",
    "TooLargeError",
    "UnsafeURLError",
    "UnsupportedError",
    "WebProviderError",
    "WebTimeoutError",
    "error_for_code",
    "is_retryable",
]
