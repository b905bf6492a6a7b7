"""Errors: one class per envelope error code, and how anything that fails becomes one.

Providers may raise these instead of building failure dicts; the dispatcher turns any of
them into a failure envelope. Every class knows its ``code`` and whether trying again (or
failing over to another provider) can help (``retryable``).

Besides the hierarchy this module holds the one table of what an HTTP status from a vendor
means (:func:`error_for_status`), worded the same way for every vendor; vendor classifiers
decide first only what their API says differently. :func:`to_provider_error` maps anything a
provider raises (httpx errors, JSON errors, timeouts) to the hierarchy. Every message and
detail is scrubbed of secrets (:mod:`.redact`) when the error is made, so its ``message``,
``str()`` and ``repr()`` and every envelope built from it are clean whoever raised it.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any, ClassVar, Literal
from urllib.parse import urlsplit

from .redact import scrub
from .retry_after import (
    MAX_QUOTA_RESET,
    MAX_RETRY_AFTER,
    clamp_retry_after,
    retry_after_from_headers,
    retry_after_header,
)
from .surrogates import sound

if TYPE_CHECKING:
    import ssl

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
    "budget_store_unavailable",
]

ERROR_CODES: tuple[str, ...] = ErrorCode.__args__  # type: ignore[attr-defined]


class WebProviderError(Exception):
    """Base class: a failure with an envelope ``code`` and a sentence a person can act on."""

    code: ClassVar[str] = "provider_error"
    retryable: ClassVar[bool] = False
    #: The per-URL failures behind a call-level error (an extract or crawl that read no page);
    #: they go to the failure envelope's ``meta.failures``.
    failures: list[dict[str, Any]] | None = None
    #: The dispatch hook that raised it in the provider's stead (a policy's refusal), if any.
    hook: str | None = None
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
        # Text an envelope holds: masked, and UTF-8 whatever it quotes (a backend name read
        # from a variable holding a byte that is not UTF-8 is a lone surrogate).
        message = sound(scrub(str(message)))
        super().__init__(message)
        self.message = message
        #: Scrubbed too: a name no provider has may be anything (a key set where a backend
        #: name was meant), and it goes into the envelope beside the sentence that names it.
        self.provider = sound(scrub(provider)) if provider else provider
        self.detail = sound(scrub(detail)) if detail else detail
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


class PluginRaised(Exception):
    """Carries what provider code raised that must not travel as itself: ``SystemExit``,
    ``KeyboardInterrupt`` or a plugin's own ``BaseException`` would end the caller's program
    (or an MCP server) instead of one call, and ``StopIteration`` cannot pass through an
    asyncio future. :func:`to_provider_error` maps it as the exception it carries."""

    def __init__(self, raised: BaseException) -> None:
        super().__init__(raised)
        self.raised = raised


class BudgetExceededError(WebProviderError):
    """The call would take spending over a configured ``web.budget``; nothing was sent."""

    code = "budget_exceeded"
    #: Whether requests still under way may hold some of the room it lacks (a shared counter
    #: does not tell, so it may): they give back what they do not cost when they end.
    held: bool = False


class BudgetStoreUnavailableError(WebProviderError):
    """The shared store that keeps budget counters did not answer, so a priced request could
    not be checked against its budget and was not sent (``web.budget.on_store_error: refuse``)."""

    code = "budget_store_unavailable"
    retryable = True


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
        BudgetStoreUnavailableError,
    )
}


def error_for_code(code: str, message: str, **kwargs: Any) -> WebProviderError:
    """Build the exception that belongs to an envelope ``code``."""
    return ERROR_CLASSES.get(code, ProviderError)(message, **kwargs)


def is_retryable(code: str) -> bool:
    """Whether a failure with this code can succeed on a later try or another provider."""
    return ERROR_CLASSES.get(code, ProviderError).retryable


# -- what a vendor said ------------------------------------------------------------------

#: Longest vendor message quoted in an error sentence.
_QUOTE_CHARS = 300
#: Characters of a vendor's text read to quote it: many times the quote, so that a secret
#: starting within the quote is whole in what is scrubbed. Scrubbed whole, an error body of
#: 30 MB held the caller's event loop 3.5 s, to be cut to one line.
QUOTE_READ = 16_384
_LAST_WORD = re.compile(r"\S*\Z")
_BAD_KEY = re.compile(
    r"api[ _-]?key|unauthori[sz]ed|invalid (?:auth|token|credential)|authenticat", re.IGNORECASE
)
_OUT_OF_CREDITS = re.compile(
    r"insufficient (?:credit|balance|funds)|out of credits|not enough credits|credit limit",
    re.IGNORECASE,
)


def quote(text: Any) -> str:
    """A vendor's own error text, fit to quote in a sentence: scrubbed of secrets, shortened."""
    raw = str(text or "")
    if len(raw) > QUOTE_READ:  # the word cut at the end goes: it may be part of a secret
        raw = _LAST_WORD.sub("", raw[:QUOTE_READ])
    clean = " ".join(scrub(sound(raw)).split())
    return clean if len(clean) <= _QUOTE_CHARS else clean[: _QUOTE_CHARS - 1] + "…"


#: Longest error sentence an envelope carries: a plugin's exception (or a failed item it
#: wrote) may hold megabytes of text, a dumped response, which would reach the model whole
#: and be scrubbed whole first.
MESSAGE_CHARS = 4_000


def bounded(text: str) -> str:
    """``text`` held to :data:`MESSAGE_CHARS`, saying how much was left out; the word cut at
    the end goes, as it may be the start of a secret that the scrub would no longer know."""
    if len(text) <= MESSAGE_CHARS:
        return text
    kept = _LAST_WORD.sub("", text[:MESSAGE_CHARS]).rstrip()
    return f"{kept} … ({len(text) - len(kept):,} more characters left out)"


def said(message: str) -> str:
    """``: <vendor text>.`` to end one of our sentences with, or just the full stop."""
    if not message:
        return "."
    return f": {message}" + ("" if message.endswith((".", "!", "?", "…")) else ".")


def mentions_bad_key(text: str) -> bool:
    """Whether a vendor message is about the API key (some vendors say so with a 400 or 422)."""
    return bool(_BAD_KEY.search(text or ""))


def mentions_no_credit(text: str) -> bool:
    """Whether a vendor message says the account has no credit left, whatever the status."""
    return bool(_OUT_OF_CREDITS.search(text or ""))


# -- the status table ---------------------------------------------------------------------

#: What an HTTP status from a vendor API means, for every vendor. 5xx is ``bad_gateway``;
#: a status not listed here is ``provider_error``.
STATUS_ERRORS: dict[int, type[WebProviderError]] = {
    400: InvalidInputError,
    401: AuthError,
    402: QuotaExceededError,
    403: AuthError,
    404: NotConfiguredError,
    405: NotConfiguredError,
    408: WebTimeoutError,
    409: InvalidInputError,
    413: InvalidInputError,
    414: InvalidInputError,
    415: InvalidInputError,
    422: InvalidInputError,
    429: RateLimitedError,
}

#: The one wording per error class: ``who`` is the vendor, ``tail`` ends the sentence with
#: what the vendor said.
_WORDING: dict[type[WebProviderError], str] = {
    AuthError: "{who} rejected the API key (HTTP {status}){tail}",
    QuotaExceededError: "{who} says the account is out of credits (HTTP {status}){tail}",
    RateLimitedError: "{who} is rate limiting requests (HTTP {status}){tail}",
    BadGatewayError: "{who} failed on its side (HTTP {status}){tail} Try again later.",
    InvalidInputError: "{who} rejected the request (HTTP {status}){tail}",
    WebTimeoutError: "{who} timed out on this request (HTTP {status}){tail}",
    ProviderError: "{who} answered HTTP {status}{tail}",
    NotConfiguredError: "{who} has no such API at the address it was sent to (HTTP {status}){tail}",
}

#: Why a 404 or 405 is the set-up's to fix, not the caller's: a vendor API has a fixed
#: address per call, so the address (a base URL) is wrong, or the vendor moved the API.
_NO_SUCH_API_HINT = (
    "Check that {where} is the address of the vendor's API (with the default address, the vendor "
    "may have moved it)."
)


#: What makes a request's URL too long for a vendor (HTTP 414): a query, or the domain
#: filters written into it, sent in the URL of a GET.
_TOO_LONG_HINT = "Its URL was longer than {who} takes: shorten the query, or pass fewer domains."


#: Why a redirect from a vendor's API is an error: a call is never sent on to another
#: address (its key would go with it), and an API that redirects is usually the wrong URL.
_REDIRECT_HINT = "API calls do not follow redirects: check that {where} is the address of the vendor's API."

#: Where a proxy's settings live, for sentences about a proxy that refused a request.
PROXY_SETTINGS = "web.proxy, or HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY"


def proxy_auth_error(
    who: str, provider: str | None, tail: str = ".", settings: str = PROXY_SETTINGS, refusal: str = "HTTP 407"
) -> AuthError:
    """HTTP 407, which only a proxy sends: its credentials are missing or wrong, whichever
    vendor or page was asked (not retried: the same request would be refused again). A SOCKS
    proxy's refusal of them (``refusal`` says how it came) is the same failure, and carries the
    same status, so that it is kept from the vendor's health and keys as a 407 is."""
    return AuthError(
        f"A proxy on the way to {who} refused the request for want of valid credentials ({refusal}){tail} Put "
        f"its user name and password in its URL, before the host, in {settings}, or correct the ones there.",
        provider=provider,
        status_code=407,
    )


#: ``detail`` of a call or attempt that could not run for want of a thread: this process is
#: at its limit of threads or memory, which says nothing of the provider.
NO_THREAD = "no_thread"
#: ``detail`` of a timeout spent waiting for one of the connections a vendor client may open,
#: all in use by this process's other requests: the request was never sent.
NO_CONNECTION = "no_connection"
#: ``detail`` of a timeout spent waiting for a provider's code (its SDK, the HTTP stack) to
#: load, on its first use in this process: the request was never sent, or sent late.
LOADING = "loading"
#: What is wrong and what to do when the process has no room for a call.
AT_PROCESS_LIMIT = (
    "the process is at its limit of open files (ulimit -n), threads or memory: "
    "make fewer calls at once, or raise the limit."
)
#: What is wrong and what to do when no thread could start because the interpreter is exiting:
#: Python 3.12.0 to 3.12.2 start none once the main thread has returned, in the threads it
#: still waits for and in atexit handlers alike (CPython gh-113964, lifted in 3.12.3).
AT_SHUTDOWN = (
    "the interpreter is exiting, and Python 3.12.0 to 3.12.2 start no thread once its main thread "
    "has returned: finish the calls before the main thread returns (join the threads that make "
    "them), or use Python 3.12.3 or later."
)


def no_room(exc: BaseException) -> str:
    """Why a call found no thread or event loop to run on, and what to do about it."""
    return AT_SHUTDOWN if "at interpreter shutdown" in str(exc) else AT_PROCESS_LIMIT


#: What to do when a certificate cannot be verified through a proxy: trust the CA it signs with.
_TRUST_THE_PROXY_CA = (
    "A proxy that inspects TLS presents its own certificate: trust its CA with SSL_CERT_FILE or SSL_CERT_DIR."
)
#: ``detail`` of a certificate whose issuer this machine does not trust (a self-signed or
#: internal CA, a proxy that inspects TLS): fixed here, by trusting the CA, so a TLS failure
#: with it is not counted against the provider.
UNTRUSTED_CERTIFICATE = "untrusted_certificate"
#: ``detail`` of a certificate that is wrong in itself (expired, for another host name): the
#: server's to fix, so it counts against the provider.
INVALID_CERTIFICATE = "invalid_certificate"
#: The ``detail`` of a refused certificate, either way: not retried, since the same
#: handshake would be refused again (a chain still moves on).
CERTIFICATE_DETAILS = frozenset({UNTRUSTED_CERTIFICATE, INVALID_CERTIFICATE})
#: OpenSSL verify results that mean "issuer unknown here" rather than "certificate wrong".
_UNKNOWN_ISSUER = frozenset({2, 18, 19, 20, 21})


def certificate_error(exc: BaseException, failing: str, host: str, provider: str | None = None,
                      through_proxy: str | None = None) -> NetworkError | None:
    """The error for a connection that failed because ``host``'s certificate was refused, or
    None when it failed otherwise. ``failing`` begins the sentence ("x could not be reached").

    Its ``detail`` says whose it is to fix (see :data:`UNTRUSTED_CERTIFICATE`); either way
    the same request would be refused again, so it is not one to retry."""
    failed = _tls_failure(exc)
    if failed is None or not isinstance(failed, sys.modules["ssl"].SSLCertVerificationError):
        return None
    reason = ": ".join(part for part in (failed.reason, failed.verify_message) if part) or str(failed)
    whose = f"{host} (or of the https:// proxy itself)" if through_proxy == "https" else host
    untrusted = failed.verify_code in _UNKNOWN_ISSUER
    if untrusted and through_proxy:
        advice = _TRUST_THE_PROXY_CA
    elif untrusted:
        advice = "If it should be trusted (an internal CA, a proxy that inspects TLS), trust its CA with SSL_CERT_FILE or SSL_CERT_DIR."
    else:
        advice = ("The certificate itself is wrong, so trying again will not help "
                  "(the CAs trusted are SSL_CERT_FILE's or SSL_CERT_DIR's when set, else certifi's).")
    return NetworkError(
        f"{failing}: the TLS certificate of {whose} could not be verified ({reason}). {advice}",
        provider=provider,
        detail=UNTRUSTED_CERTIFICATE if untrusted else INVALID_CERTIFICATE,
    )


#: ``detail`` of an ``https://`` address whose server answered the TLS handshake in plain HTTP:
#: no TLS there at all (an http-only service, a port given the wrong scheme), every time.
NO_TLS = "no_tls"
#: How OpenSSL words a handshake answered with something other than TLS, such as an HTTP
#: answer: "wrong version number", and "record layer failure" in its later versions.
_NOT_TLS_REASONS = frozenset({"WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE"})


def plain_http_error(exc: BaseException, failing: str, where: str, provider: str | None = None) -> NetworkError | None:
    """The error for a TLS handshake that ``where`` (``host:port``) answered with no TLS at all,
    or None when the connection failed otherwise. ``failing`` begins the sentence."""
    failed = _tls_failure(exc)
    if failed is None or failed.reason not in _NOT_TLS_REASONS:
        return None
    return NetworkError(
        f"{failing}: {where} answered the TLS handshake with something else ({failed.reason}), most often "
        "plain HTTP: the service there does not speak https. Its http:// address may be the one to ask for.",
        provider=provider,
        detail=NO_TLS,
    )


#: ``detail`` of a request whose proxy took no connection: nothing reached the provider, and
#: the fix is this machine's (start the proxy, or correct its address).
PROXY_UNREACHABLE = "proxy_unreachable"
#: ``detail`` of a tunnel the proxy refused to open with a 4xx of its own (its policy on
#: destinations, most often): the provider was never asked.
PROXY_DENIED = "proxy_denied"


def proxy_address(proxy: str) -> str:
    """Where a proxy listens, as a sentence names it (``host:port``, ``[v6]:port``), without
    its credentials."""
    parts = urlsplit(proxy)
    port = parts.port or {"https": 443, "socks5": 1080, "socks5h": 1080}.get(parts.scheme, 80)
    host = parts.hostname or ""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def proxy_refused(proxy: str, who: str, exc: BaseException, provider: str | None = None,
                  settings: str = PROXY_SETTINGS, host: str | None = None) -> NetworkError:
    """A request went to a proxy that took no connection: say which (never its credentials),
    since the address that could not be reached is the proxy's, not ``who``'s.

    httpx calls a TLS failure inside a tunnel the proxy did open a ``ConnectError`` too: then
    the proxy took the connection, and the sentence says what failed on ``host`` (``who``'s
    host name) instead, most often a certificate signed by a TLS-inspecting proxy's own CA."""
    parts = urlsplit(proxy)
    host_name = parts.hostname or ""
    address = proxy_address(proxy)
    failed = _tls_failure(exc)
    if failed is not None:
        through = f"{who} could not be reached through the proxy at {address}"
        refused = certificate_error(exc, through, host or who, provider, through_proxy=parts.scheme)
        if refused is not None:
            return refused
        return NetworkError(
            f"{through}: the TLS handshake with {host or who} failed ({failed.reason or failed}). "
            f"Check the proxy in {settings}.",
            provider=provider,
        )
    unresolved = lookup_failure(exc)
    if unresolved is not None:
        return NetworkError(
            f"{who} could not be reached: the proxy's name, {host_name}, does not resolve on this machine "
            f"({unresolved}). Check the proxy's address in {settings}.",
            provider=provider,
            detail=PROXY_UNREACHABLE,
        )
    return NetworkError(
        f"{who} could not be reached: the proxy at {address} did not take the connection "
        f"({type(exc).__name__}). Check that it runs, or the proxy in {settings}.",
        provider=provider,
        detail=PROXY_UNREACHABLE,
    )


def socks_handshake_error(proxy: str, who: str, why: str, provider: str | None = None,
                          settings: str = PROXY_SETTINGS) -> NetworkError:
    """A SOCKS proxy that broke off its handshake (``why``, in its client's words): it ended
    the connection, or answered what no SOCKS5 proxy says (an HTTP proxy's port given as SOCKS).
    ``who`` was never reached, so it is no failure of the provider's."""
    return NetworkError(
        f"{who} could not be reached: the proxy at {proxy_address(proxy)} broke off its SOCKS5 handshake "
        f"({why}): it ended the connection, or it is no SOCKS5 proxy (an HTTP proxy's port?). Check the "
        f"proxy in {settings}.",
        provider=provider,
        detail=PROXY_UNREACHABLE,
    )


#: How h11 words an answer whose header section is longer than httpcore reads (100 KiB), and
#: the ``detail`` of the ``too_large`` it is.
HEADERS_TOO_LONG = "Receive buffer too long"
HEADERS = "headers"
#: How h11 words an answer whose connection closed before the end of its body (the length it
#: announced, or the last chunk): the vendor was reached and had begun to answer.
BODY_CUT = "peer closed connection without sending complete message body"


def lookup_failure(exc: BaseException) -> str | None:
    """The resolver's words when a connection failed because a host name did not resolve
    (a machine without DNS of its own); None for any other failure."""
    sockets = sys.modules.get("socket")  # loaded whenever a lookup failed
    seen: BaseException | None = exc
    for _ in range(8):  # httpx's error wraps httpcore's, which wraps the socket's
        if seen is None or sockets is None:
            return None
        if isinstance(seen, sockets.gaierror):
            return seen.strerror or str(seen)
        seen = seen.__cause__ or seen.__context__
    return None


def _request_url(exc: Any) -> Any:
    """The URL of the request an httpx error is about, or None (one made without a request)."""
    try:
        return exc.request.url
    except RuntimeError:  # httpx: "The .request property has not been set."
        return None


def _not_connected(exc: BaseException, url: Any, who: str, provider: str | None) -> NetworkError:
    """A connection that failed, with the address it went to and the setting that names it:
    "could not be reached: ConnectError: All connection attempts failed" said neither, so a
    base_url with the wrong port was hard to tell from a vendor that is down."""
    host = f"[{url.host}]" if ":" in url.host else url.host
    port = url.port or (443 if url.scheme == "https" else 80)
    setting = f"its address in web.providers.{provider}" if provider else "the address it was sent to"
    return NetworkError(
        f"{who} could not be reached at {host}:{port}: {connect_failure(exc)}. Check that it answers "
        f"there, or {setting}.",
        provider=provider,
    )


def connect_failure(exc: BaseException) -> str:
    """Why a connection failed, in the system's words (``Connection refused``), from the
    ``OSError`` under httpx's and anyio's wrappers ("All connection attempts failed")."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            break
        if isinstance(seen, OSError) and seen.errno:
            return os.strerror(seen.errno)  # asyncio's own strerror is "Connect call failed (...)"
        seen = seen.__cause__ or seen.__context__
    return f"{type(exc).__name__}: {exc}"


def _tls_failure(exc: BaseException) -> ssl.SSLError | None:
    """The ``ssl.SSLError`` a connection failed on (httpx's error wraps httpcore's, which
    wraps the TLS layer's), or None; an SSL error means ``ssl`` is loaded, so this never loads it."""
    tls = sys.modules.get("ssl")
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None or tls is None:
            return None
        if isinstance(seen, tls.SSLError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


#: How httpx words a SOCKS proxy that wants a user name and password it was not given, or
#: refused the ones it was given (an HTTP proxy answers 407 to both).
_SOCKS_CREDENTIALS = re.compile(r"Requested NO AUTHENTICATION REQUIRED .* but got USERNAME/PASSWORD|Invalid username/password")


def proxy_error(exc: BaseException, who: str, provider: str | None = None,
                settings: str = PROXY_SETTINGS) -> WebProviderError:
    """httpx's ``ProxyError``: the proxy would not open a tunnel to ``who`` ("407 Proxy ...").
    A 5xx may be the destination's (the proxy could not reach it); a 4xx is the proxy's own."""
    status = str(exc)[:3]
    if status == "407":
        return proxy_auth_error(who, provider, settings=settings)
    if _SOCKS_CREDENTIALS.match(str(exc)):
        return proxy_auth_error(who, provider, settings=settings, refusal="SOCKS5 user name and password")
    return NetworkError(
        f"{who} could not be reached through the proxy, which answered {str(exc).rstrip('.')}. "
        f"Check the proxy in {settings}.",
        provider=provider,
        detail=PROXY_DENIED if status.startswith("4") else None,
    )


#: ``error`` of an RFC 9209 ``Proxy-Status`` header: the proxy that sets it answered itself.
_PROXY_STATUS_ERROR = re.compile(r'(?:^|;)\s*error\s*=\s*"?([\w.-]+)', re.IGNORECASE)


def forwarded_refusal(status: int, reason: str, headers: Any, proxy: str, who: str,
                      provider: str | None = None, settings: str = PROXY_SETTINGS) -> NetworkError | None:
    """A plain-HTTP request a forward proxy answered itself with an error of its own, or None.
    Only a proxy's own marks tell its answer from the destination's: Squid's ``X-Squid-Error``
    and ``Proxy-Status`` with an ``error``. Read as the destination's, a proxy's 403 (its
    policy on destinations, most often) was "the API key was rejected", and its 5xx (a name it
    could not resolve, a host it could not connect to) "failed on its side". A 407 is left to
    :func:`proxy_auth_error`."""
    if status < 400 or status == 407:
        return None
    marked = _PROXY_STATUS_ERROR.search(headers.get("proxy-status") or "")
    why = (headers.get("x-squid-error") or "").split(" ", 1)[0] or (marked.group(1) if marked else "")
    if not why:
        return None
    if status >= 500:  # the proxy could not reach it: as a tunnel it could not open, whoever's fault
        return NetworkError(
            f"{who} could not be reached through the proxy at {proxy_address(proxy)}, which answered "
            f"HTTP {status} {reason} itself ({why}). Check the address, or the proxy in {settings}.",
            provider=provider,
        )
    return NetworkError(
        f"{who} could not be reached through the proxy at {proxy_address(proxy)}, which refused the request "
        f"itself (HTTP {status} {reason}, {why}). Check the proxy in "
        f"{settings}, or have the proxy allow {who}.",
        provider=provider,
        detail=PROXY_DENIED,
    )


def status_error_class(status: int, message: str = "") -> type[WebProviderError]:
    """The class :data:`STATUS_ERRORS` gives ``status``, refined by what the vendor said:
    a message about the key makes a 4xx an auth error, one about credit a quota error."""
    if status >= 500:
        return BadGatewayError
    if 400 <= status < 500 and mentions_no_credit(message):
        return QuotaExceededError
    cls = STATUS_ERRORS.get(status, ProviderError)
    if cls is InvalidInputError and mentions_bad_key(message):
        return AuthError
    return cls


def error_for_status(
    status: int,
    provider: str | None,
    headers: Any = None,
    *,
    vendor: str | None = None,
    message: str = "",
    retry_after: float | None = None,
) -> WebProviderError:
    """The error an HTTP status from a vendor API means, in the wording every vendor shares.

    ``vendor`` names the vendor in the sentence (the provider name by default); ``message``
    is the vendor's own explanation, quoted at the end. ``retry_after`` (seconds) is used
    when the headers do not say when to try again (a vendor that says it in the body).
    """
    text = quote(message)
    who = vendor or provider or "The provider"
    if status == 407:
        return proxy_auth_error(who, provider, said(text))
    if status == 403 and not text and _web_page(headers):
        return BlockedError(
            f"{who} answered HTTP 403 with a web page, not an answer of its API: something in front of "
            "it (a firewall or CDN, often blocking this machine's address, or a proxy on the way) refused "
            "the request before the API key was looked at.",
            provider=provider,
            detail="http_403",
            status_code=status,
        )
    cls = status_error_class(status, text)
    sentence = _WORDING[cls].format(who=who, status=status, tail=said(text))
    where = f"web.providers.{provider}.base_url" if provider else "its base URL"
    if 300 <= status < 400:
        sentence += f" {_REDIRECT_HINT.format(where=where)}"
    elif cls is NotConfiguredError:
        sentence += f" {_NO_SUCH_API_HINT.format(where=where)}"
    elif status == 414:
        sentence += f" {_TOO_LONG_HINT.format(who=who)}"
    wait = None
    if cls is RateLimitedError:
        wait = retry_after_from_headers(headers)
        wait = retry_after if wait is None else wait
    elif status == 503:
        # A 503's Retry-After says how long the outage lasts (RFC 9110, 10.2.3): a retry
        # before then is wasted. Its rate-limit reset headers are about another matter.
        wait = retry_after_header(headers)
    if wait:
        sentence = sentence.removesuffix(" Try again later.") + f" Retry after {wait:.0f} s."
    return cls(sentence, provider=provider, retry_after=wait, status_code=status)


def _web_page(headers: Any) -> bool:
    """Whether an answer's headers say its body is an HTML page (an API answers in JSON)."""
    try:
        kind = headers.get("content-type") or headers.get("Content-Type") or "" if headers is not None else ""
    except AttributeError:
        return False
    return "html" in str(kind).lower()


# -- anything a provider raises -------------------------------------------------------------


def exception_text(exc: BaseException) -> str:
    """``str(exc)``, or ``""`` when the exception's own ``__str__`` fails: a plugin's exception
    class may be broken, and describing its failure must not become a failure of our own."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001
        return ""


def to_provider_error(exc: BaseException, provider: str | None) -> WebProviderError:
    """Map an exception to our hierarchy, scrubbing secrets from the message."""
    error = _map(exc, provider)
    if not error.message.strip():  # raised without words: the envelope still holds a sentence
        raised = exc.raised if isinstance(exc, PluginRaised) else exc
        error.message = (
            f"{error.provider or provider or 'The provider'} failed ({error.code}): it raised "
            f"{type(raised).__name__} without a message."
        )
    error.message = scrub(bounded(error.message))
    error.args = (error.message,)
    if error.detail:  # a code such as ``captcha_required``; a plugin's went whole into the envelope
        error.detail = scrub(bounded(error.detail))
    if error.provider is None:
        error.provider = provider
    return error


def _is_asyncio_timeout(exc: BaseException) -> bool:
    """``asyncio.TimeoutError`` (its own class before 3.11) without importing asyncio at start-up."""
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and isinstance(exc, asyncio.TimeoutError)


def _from_httpx(exc: BaseException, who: str, provider: str | None) -> WebProviderError | None:
    """httpx's own errors; an httpx error means httpx is loaded, so this never loads it."""
    httpx = sys.modules.get("httpx")
    if httpx is None:
        return None
    if isinstance(exc, httpx.TimeoutException):
        return WebTimeoutError(f"{who} timed out ({type(exc).__name__}).", provider=provider)
    if isinstance(exc, httpx.HTTPStatusError):
        return error_for_status(exc.response.status_code, provider, exc.response.headers)
    if isinstance(exc, httpx.InvalidURL):  # the call's input made a request too long to send
        return InvalidInputError(
            f"{who} was not asked: this call's request would not be a URL that can be sent ({exc}); "
            "shorten the query, the URLs or the include_domains / exclude_domains lists.",
            provider=provider,
        )
    if isinstance(exc, httpx.ProxyError):
        return proxy_error(exc, who, provider)
    if isinstance(exc, httpx.ConnectError) and _request_url(exc) is not None:
        return _not_connected(exc, _request_url(exc), who, provider)
    if isinstance(exc, httpx.RemoteProtocolError) and str(exc) == HEADERS_TOO_LONG:
        return TooLargeError(  # sent so every time: not retried, as a body too large is not
            f"{who} answered with response headers larger than the 100 KiB that can be read; it would send "
            "them so again.",
            provider=provider,
            detail=HEADERS,
        )
    if isinstance(exc, (httpx.ReadError, httpx.WriteError)) or (  # connected, then the connection broke
        isinstance(exc, httpx.RemoteProtocolError) and str(exc).startswith(BODY_CUT)
    ):
        return NetworkError(
            f"{who} was reached, but the connection broke before its answer was read ({_named(exc)}).",
            provider=provider,
        )
    if isinstance(exc, (httpx.NetworkError, httpx.RemoteProtocolError)):
        return NetworkError(f"{who} could not be reached: {_named(exc)}", provider=provider)
    if isinstance(exc, httpx.DecodingError):
        return ParseError(f"{who} sent a body that could not be decoded: {exc}", provider=provider)
    return None


def _named(exc: BaseException) -> str:
    """``ReadError: [Errno 104] Connection reset by peer``: an httpx error's name and its words,
    or those of the error beneath it when it has none of its own (an async read's reset comes
    up as a bare ``ReadError()``, and the sentence ended in "ReadError: ")."""
    seen: set[int] = set()
    inner: BaseException | None = exc
    while inner is not None and id(inner) not in seen:
        text = exception_text(inner)
        if text:
            return f"{type(exc).__name__}: {text}"
        seen.add(id(inner))
        inner = inner.__cause__ or inner.__context__
    return type(exc).__name__


def _map(exc: BaseException, provider: str | None) -> WebProviderError:
    who = provider or "The provider"
    if isinstance(exc, PluginRaised):
        exc = exc.raised
    if isinstance(exc, WebProviderError):
        if exc.code in ERROR_CODES:
            return exc
        # A plugin's own subclass with a code of its own: callers act on the documented codes only.
        return ProviderError(
            f"{who} failed: {type(exc).__name__} (error code '{exc.code}', which is not one of the library's): "
            f"{exc.message}",
            provider=exc.provider or provider,
            detail=exc.detail,
        )
    if isinstance(exc, NotImplementedError):
        return UnsupportedError(f"{who} does not support this operation.", provider=provider)
    if isinstance(exc, TimeoutError) or _is_asyncio_timeout(exc):
        text = exception_text(exc)  # a socket's "timed out", an SDK's own words
        return WebTimeoutError(f"{who} timed out{': ' + text if text else '.'}", provider=provider)
    mapped = _from_httpx(exc, who, provider)
    if mapped is not None:
        return mapped
    pools = sys.modules.get(f"{__package__}.pools")  # loaded whenever a NoThread exists
    if pools is not None and isinstance(exc, pools.NoThread):
        message = f"{who} could not be called: {exc}; {no_room(exc)}"
        return ProviderError(message, provider=provider, detail=NO_THREAD)
    config = sys.modules.get(f"{__package__}.config")  # loaded whenever a ConfigError exists
    if config is not None and isinstance(exc, config.ConfigError):
        return NotConfiguredError(str(exc), provider=provider)
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
        return ParseError(f"{who} sent a response that is not valid JSON: {exc}", provider=provider)
    if isinstance(exc, RecursionError) and "JSON" in str(exc):
        # json's C decoder, in an SDK reading an answer nested past the recursion limit: the
        # answer cannot be read, as the library's own reading says of it
        return ParseError(f"{who} sent a response nested too deeply to read as JSON.", provider=provider)
    if isinstance(exc, ConnectionError):
        return NetworkError(f"{who} could not be reached: {exc}", provider=provider)
    text = exception_text(exc)
    return ProviderError(f"{who} failed: {type(exc).__name__}{': ' + text if text else ''}", provider=provider)


__all__ = [
    "AT_PROCESS_LIMIT",
    "AT_SHUTDOWN",
    "CERTIFICATE_DETAILS",
    "HEADERS",
    "HEADERS_TOO_LONG",
    "ERROR_CLASSES",
    "ERROR_CODES",
    "INVALID_CERTIFICATE",
    "LOADING",
    "NO_CONNECTION",
    "NO_THREAD",
    "NO_TLS",
    "PROXY_DENIED",
    "PROXY_UNREACHABLE",
    "STATUS_ERRORS",
    "UNTRUSTED_CERTIFICATE",
    "AuthError",
    "BadGatewayError",
    "BlockedError",
    "BudgetExceededError",
    "BudgetStoreUnavailableError",
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
    "certificate_error",
    "error_for_code",
    "error_for_status",
    "is_retryable",
    "lookup_failure",
    "mentions_bad_key",
    "mentions_no_credit",
    "no_room",
    "plain_http_error",
    "quote",
    "said",
    "status_error_class",
    "to_provider_error",
]
