"""Later pages of a search a vendor serves in pages (Google's ten results at a time).

The first page is the answer; each later one only adds to it. So a later page that fails,
or that would run past the call's deadline, ends the paging with the pages already read
(and paid for) instead of failing the call, and ``meta.warnings`` says why the answer is
shorter than asked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ..asynctimeout import timeout
from ..context import next_request_slot, note_later_failure, remaining_time, warn
from ..dependable.retry import MIN_REQUEST_TIME
from ..errors import BudgetExceededError, BudgetStoreUnavailableError, WebProviderError

T = TypeVar("T")

#: Seconds a later page leaves for the rest of the call (its answer normalised, cached, recorded).
SPARE = 0.5


async def later_page(name: str, read: int, fetch: Callable[[], Awaitable[T]]) -> T | None:
    """``fetch()``'s page, or None with a warning when it failed or did not come in time;
    ``read`` is how many results the pages before it gave. Each page is a request the vendor
    counts, so it first takes its own slot of the provider's request budget (``rate_limit``),
    waited for only while the page can still be read, and the vendor bills it, so its cost
    must fit in the spending budgets (``web.budget``)."""
    left = remaining_time()
    try:
        if left is None:
            return await fetch()
        if left <= SPARE:
            raise asyncio.TimeoutError
        async with timeout(left - SPARE):
            try:
                await next_request_slot(left - SPARE - MIN_REQUEST_TIME)
            except BudgetExceededError as exc:
                reason = f"its cost was not within the spending budget ({exc})"
            except BudgetStoreUnavailableError as exc:
                reason = f"its cost could not be checked against the spending budget ({exc})"
            except WebProviderError as exc:
                reason = f"the provider's request budget had no slot for it in time ({exc})"
            else:
                return await fetch()
    except asyncio.TimeoutError:  # its own class before 3.11, the builtin one since
        reason = "there was no time left before the call's deadline"
    except WebProviderError as exc:
        note_later_failure(exc)  # a 429's Retry-After holds the provider back all the same
        reason = f"it failed ({exc.code}: {exc})"
    warn(f"{name}: the next page of results was not read, as {reason}; the answer holds the {read} results of the pages before it.", partial=True)
    return None
