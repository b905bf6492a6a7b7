"""Which providers are failing right now, so routing can leave them alone for a while.

A provider that fails ``failures`` calls within ``window`` seconds, runs out of quota, or
answers 429 without saying for how long (a 429 *with* ``Retry-After`` pauses it in the rate
limiter instead), cools down: chains and fusion skip it without spending a request on it. When the cool-down
ends, one call is let through (half-open): success closes the circuit, failure re-opens it
at once. A failure that belongs to the request rather than the provider (the caller's bad
input, a 4xx other than one about credentials) never counts: one caller's mistake must not
cool a provider down for everyone. State is per registry, in process, guarded by a thread
lock (dispatch runs on many loops and threads).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import (
    LOADING,
    NO_CONNECTION,
    NO_THREAD,
    PROXY_DENIED,
    PROXY_UNREACHABLE,
    UNTRUSTED_CERTIFICATE,
    WebProviderError,
)

#: Failures that say something about the provider (not about the caller's input or config).
COUNTED_CODES = frozenset(
    {"network_error", "timeout", "bad_gateway", "blocked", "parse_error", "provider_error", "auth_error"}
)
#: 4xx statuses that speak of the provider or its credentials, whatever was asked; any other
#: 4xx answers this request only (a value the vendor refused, a query too long for its URL),
#: so it never cools the provider down for every other caller. Not 407: only a proxy on this
#: side sends it (its own credentials), and the vendor never saw the request.
PROVIDER_SIDE_4XX = frozenset({401, 403, 408})


#: ``detail`` of a timeout that came from the call's deadline before the provider had the
#: time it is given (its own ``timeout``, else ``web.timeout``): a caller's short ``timeout=``,
#: or what an earlier member of a chain left. It says nothing of the provider.
CALL_DEADLINE = "call_deadline"
#: ``detail`` values of failures that belong to this machine's setup, not to the provider: a
#: certificate whose issuer is not trusted here is fixed here (SSL_CERT_FILE / SSL_CERT_DIR),
#: a process at its limit of threads has no room for any provider's call, and a request that
#: waited for a connection its other requests held, or for the provider's code to load, was
#: never sent; a proxy that took no connection, or refused the tunnel by its own policy, never
#: let the request reach the provider.
ENVIRONMENT_DETAILS = frozenset(
    {CALL_DEADLINE, UNTRUSTED_CERTIFICATE, NO_THREAD, NO_CONNECTION, LOADING, PROXY_UNREACHABLE, PROXY_DENIED}
)
#: The share of that time an attempt must have had for its timeout to count against the
#: provider (a call spends a little of its deadline before the attempt starts).
GIVEN_SHARE = 0.9


def says_nothing_about_health(error: WebProviderError) -> bool:
    """Whether a failure belongs to the request (the caller's input) or to this machine's
    setup, not to the provider."""
    if error.code not in COUNTED_CODES or error.detail in ENVIRONMENT_DETAILS:
        return True
    status = error.status_code
    return status is not None and 400 <= status < 500 and status not in PROVIDER_SIDE_4XX
#: How long a half-open probe may stay unanswered before another caller may probe.
PROBE_TIMEOUT = 60.0


@dataclass
class Cooling:
    """Why and until when a provider is being left alone."""

    code: str
    seconds_left: float
    reason: str


@dataclass
class _State:
    failures: deque[float] = field(default_factory=deque)
    until: float = 0.0
    code: str = ""
    reason: str = ""
    probe_started: float | None = None
    half_open: bool = False


class HealthBoard:
    """Failure counts and cool-downs per provider name."""

    def __init__(
        self,
        failures: int = 5,
        window: float = 60.0,
        cooldown: float = 30.0,
        rate_limit_cooldown: float = 5.0,
        quota_cooldown: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failures = failures
        self.window = window
        self.cooldown = cooldown
        self.rate_limit_cooldown = rate_limit_cooldown
        self.quota_cooldown = quota_cooldown
        self.clock = clock
        self._states: dict[str, _State] = {}
        self._lock = threading.Lock()

    def cooling(self, name: str) -> Cooling | None:
        """None when ``name`` may be tried now (which may claim the half-open probe)."""
        if name not in self._states:  # the common case, without taking the lock
            return None
        with self._lock:
            state = self._states.get(name)
            if state is None or not state.until:
                return None
            now = self.clock()
            if now < state.until:
                return Cooling(state.code, state.until - now, state.reason)
            if state.probe_started is not None and now - state.probe_started < PROBE_TIMEOUT:
                return Cooling(state.code, 0.0, f"{state.reason}; a trial call is under way")
            state.probe_started, state.half_open = now, True
            return None

    def succeeded(self, name: str) -> None:
        if name in self._states:
            with self._lock:
                self._states.pop(name, None)

    def failed(self, name: str, error: WebProviderError) -> None:
        """Count a failed call; open the circuit when it is one too many (or out of quota)."""
        if error.code == "rate_limited" and error.retry_after is None:
            self._cool(name, self.rate_limit_cooldown, error.code, "it answered 429 without Retry-After")
            return
        if error.code == "quota_exceeded":
            self._cool(name, self.quota_cooldown, error.code, "it is out of quota")
            return
        if says_nothing_about_health(error):
            self.end_trial(name)
            return
        with self._lock:
            now = self.clock()
            state = self._states.setdefault(name, _State())
            if state.half_open:
                self._open(state, now, self.cooldown, error.code, "its trial call failed")
                return
            state.failures.append(now)
            while state.failures and now - state.failures[0] > self.window:
                state.failures.popleft()
            if len(state.failures) >= self.failures:
                count = len(state.failures)
                reason = f"{count} failure{'' if count == 1 else 's'} within {self.window:g} s"
                self._open(state, now, self.cooldown, error.code, reason)

    def end_trial(self, name: str) -> None:
        """A trial call ended in a way that says nothing about health (or sent nothing): let
        the next one try."""
        if name in self._states:
            with self._lock:
                state = self._states.get(name)
                if state is not None:
                    state.probe_started = None

    def _cool(self, name: str, seconds: float, code: str, reason: str) -> None:
        with self._lock:
            self._open(self._states.setdefault(name, _State()), self.clock(), seconds, code, reason)

    def _open(self, state: _State, now: float, seconds: float, code: str, reason: str) -> None:
        state.until, state.code, state.reason = now + seconds, code, reason
        state.failures.clear()
        state.probe_started, state.half_open = None, False
