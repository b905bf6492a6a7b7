"""A Firecrawl crawl job: started, polled until it ends or the call's time is nearly up.

A job that is still running when the time is up is cancelled (so it stops spending
credits) and the pages crawled so far are returned, with a warning in ``meta.warnings``.
A status is read with no more documents, and no more of its pages (``next``), than the
crawl's ``limit``: the SDK otherwise follows ``next`` for as long as the server gives one,
holding every page it read, until the deadline.
A poll that fails or hangs past the time kept back ends the call with its error, after the
job is cancelled. If the call itself is cancelled mid-poll, the job is cancelled in the
background.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from typing import Any

from webproviders import ProviderError, report_usage, warn
from webproviders.kit import within

#: Time kept back from the deadline to cancel the job and return: at most this, at most a quarter.
CANCEL_RESERVE = 2.0
#: Jobs being cancelled after their call was cancelled (kept so the tasks are not collected early).
_abandoned: set[asyncio.Task[Any]] = set()


async def _cancel(firecrawl: Any, job_id: str, timeout: float) -> bool:
    """Ask Firecrawl to stop the job; False when that did not work in time."""
    try:
        return bool(await within(firecrawl.cancel_crawl(job_id), timeout))
    except Exception:  # noqa: BLE001 - cancelling is best effort; the pages are still returned
        return False


def _cancel_later(firecrawl: Any, job_id: str) -> None:
    # Outside the call's context: the call is over and its deadline no longer bounds this one
    # request, which has a timeout of its own.
    task = contextvars.Context().run(asyncio.ensure_future, _cancel(firecrawl, job_id, CANCEL_RESERVE * 5))
    _abandoned.add(task)
    task.add_done_callback(_abandoned.discard)


async def _poll(
    firecrawl: Any,
    job_id: str,
    deadline: float,
    reserve: float,
    poll_interval: float,
    request_timeout: float,
    pages: Any,
) -> Any:
    """The job's status once it has ended, or its last status when time is nearly up
    (``pages``: the SDK's ``PaginationConfig`` that bounds one status)."""
    while True:
        # A slow poll must not eat the time kept back for cancelling the job.
        left = deadline - time.monotonic() - reserve
        job = await firecrawl.get_crawl_status(
            job_id, pages, request_timeout=max(0.1, min(request_timeout, left))
        )
        if job.status != "scraping" or deadline - time.monotonic() - poll_interval < reserve:
            return job
        await asyncio.sleep(poll_interval)


async def run(
    firecrawl: Any,
    url: str,
    request: dict[str, Any],
    *,
    budget: float,
    poll_interval: float,
    request_timeout: float,
) -> list[Any]:
    """Start a crawl and poll it; returns the job's documents (all of them, or those so far)."""
    from firecrawl.v2.types import PaginationConfig

    deadline = time.monotonic() + budget
    reserve = min(CANCEL_RESERVE, budget / 4)
    limit = request["limit"]
    pages = PaginationConfig(max_results=limit, max_pages=limit)
    started = await firecrawl.start_crawl(url, **request)
    try:
        job = await _poll(
            firecrawl, started.id, deadline, reserve, poll_interval, request_timeout, pages
        )
    except Exception:
        # A poll failed (or hung until the time kept back): the job must not go on spending
        # credits unwatched, and a sync caller's loop stops as the call ends, so cancel now.
        await _cancel(firecrawl, started.id, max(0.1, deadline - time.monotonic()))
        raise
    except BaseException:
        # The call itself was cancelled: the job is cancelled in the background.
        _cancel_later(firecrawl, started.id)
        raise
    report_usage(getattr(job, "credits_used", None), unit="credit")  # the job's, so far
    if job.status == "completed":
        return list(job.data)
    if job.status in ("failed", "cancelled"):
        return _ended_early(started.id, job)
    stopped = await _cancel(firecrawl, started.id, max(0.1, deadline - time.monotonic()))
    how = "was cancelled" if stopped else "could not be cancelled (it may still be running)"
    warn(
        f"firecrawl crawl job {started.id} did not finish before the call's deadline; "
        f"it {how}, and "
        f"the {len(job.data)} page(s) crawled so far ({job.completed} of {job.total}) are returned.",
        partial=True,
    )
    return list(job.data)


def _ended_early(job_id: str, job: Any) -> list[Any]:
    """A failed or cancelled job: its pages with a warning, or an error when it has none."""
    if not job.data:
        raise ProviderError(
            f"Firecrawl crawl job {job_id} {job.status} without any pages.", provider="firecrawl"
        )
    warn(
        f"firecrawl crawl job {job_id} {job.status} after {len(job.data)} page(s); "
        "those pages are returned.",
        partial=True,
    )
    return list(job.data)
