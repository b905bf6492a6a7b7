"""When to try the same provider again, and how long to wait first.

Only transient failures are retried: a network error, a timeout, an upstream 502/503/504 and
a rate limit. A failure that would only happen again is not: an answer over its size cap
(``too_large`` is not a transient code), a timeout that cut off a vendor's answer while it
was still arriving (a vendor that drips its answer drips it again) and a page that used up
its CPU time (both marked on the attempt's record, :class:`webproviders.context.Attempt`). Waits grow exponentially with jitter, follow the vendor's ``Retry-After`` when it
gave one, and never reach past the call's deadline: a wait that would is not taken, and the
failure is returned at once. Nor is a failure tried again with less time left than the try
that met it took: the retry would be cut off at the deadline (and charged), and the call would
report that ``timeout`` instead of what the vendor answered.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from ..errors import WebProviderError

#: Error codes worth a second try at the same provider.
RETRY_CODES = frozenset({"network_error", "timeout", "bad_gateway", "rate_limited"})
#: Upstream statuses of ``bad_gateway`` that are transient (a 500 usually is not).
RETRY_STATUSES = frozenset({502, 503, 504})
#: Time kept free before the deadline for the retried request itself.
MIN_REQUEST_TIME = 0.05


class RetryPolicy(NamedTuple):
    """``max_retries`` extra tries, waiting ``backoff * 2**n`` (jittered, capped) before each."""

    max_retries: int = 2
    backoff: float = 0.25
    max_backoff: float = 8.0

    def retryable(self, error: WebProviderError) -> bool:
        if error.code not in RETRY_CODES:
            return False
        return error.code != "bad_gateway" or error.status_code in (None, *RETRY_STATUSES)

    def delay(
        self, retry: int, error: WebProviderError, remaining: float, *, repeating: bool = False, took: float = 0.0
    ) -> float | None:
        """Seconds to wait before retry number ``retry`` (0-based), or None to give up now.

        ``repeating``: the attempt met a failure that would only happen again
        (:class:`webproviders.context.Attempt`), so it is not retried whatever its code.
        ``took``: seconds the failed try ran; no failure is tried again in less time than
        that (a try that used up the call's time would only run out of it again, sooner, and a
        slow answer would not arrive in time either).
        """
        if repeating or retry >= self.max_retries or not self.retryable(error):
            return None
        step = min(self.max_backoff, self.backoff * (2**retry))
        wait = random.uniform(step / 2, step) if step > 0 else 0.0
        if error.retry_after is not None:
            wait = max(wait, float(error.retry_after))
        if wait + MIN_REQUEST_TIME >= remaining:
            return None
        if remaining - wait < took:
            return None
        return wait
