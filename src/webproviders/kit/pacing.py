"""Requests a provider method sends beyond its first, each taking a slot of its request budget.

The dispatcher takes one slot of the provider's ``rate_limit`` before calling it: enough for a
method that sends one request. One that sends a request per URL or per batch of URLs (a
reader, a scraper) has each further request wait for a slot of its own, as the vendor counts
them; a URL whose request finds no slot before the deadline is not asked for, and becomes a
``rate_limited`` item, while the pages already read are kept.
"""

from __future__ import annotations

from ..context import next_request_slot
from ..dependable.retry import MIN_REQUEST_TIME


class Pacer:
    """The slots of one method's requests: the first is the dispatcher's, each later one its own."""

    __slots__ = ("_asked",)

    def __init__(self) -> None:
        self._asked = 0

    async def slot(self, left: float | None) -> None:
        """Before a request that has ``left`` seconds to be sent and answered (None: until the
        call's deadline). Raises the budget's ``rate_limited`` (or ``timeout``) error when its
        slot comes too late for the request to be answered."""
        self._asked += 1
        if self._asked > 1:
            await next_request_slot(None if left is None else left - MIN_REQUEST_TIME)
