"""Results of other threads' work reach an event loop's waiters with one wake-up per burst."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any

from webproviders.handback import awaitable


class CountingLoop(asyncio.SelectorEventLoop):
    """An event loop that counts the wake-ups other threads ask of it."""

    def __init__(self) -> None:
        super().__init__()
        self.wakeups = 0

    def call_soon_threadsafe(self, *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is not threading.main_thread():
            self.wakeups += 1
        return super().call_soon_threadsafe(*args, **kwargs)


def run(main: Any) -> tuple[Any, int]:
    loop = CountingLoop()
    try:
        return loop.run_until_complete(main()), loop.wakeups
    finally:
        loop.close()


def test_a_thousand_results_set_together_wake_the_loop_once() -> None:
    """A store thread answering a batch woke the loop once per caller, each wake-up a socket
    write that handed the interpreter back: beside a busy loop, setting a thousand results
    took up to 1.2 s, past the store's deadline."""
    works: list[Future[int]] = [Future() for _ in range(1000)]
    ready = threading.Event()

    def answer_all() -> None:
        ready.wait()
        for n, work in enumerate(works):
            work.set_result(n)

    async def main() -> list[int]:
        waiters = [awaitable(work) for work in works]
        thread = threading.Thread(target=answer_all)
        thread.start()
        ready.set()
        thread.join()  # every result is set before the loop runs again
        return list(await asyncio.gather(*waiters))

    results, wakeups = run(main)
    assert results == list(range(1000))
    assert wakeups == 1


def test_errors_and_cancellations_reach_their_waiters() -> None:
    failing: Future[int] = Future()
    cancelled: Future[int] = Future()

    async def main() -> list[str]:
        waiters = [awaitable(failing), awaitable(cancelled)]
        failing.set_exception(ConnectionError("refused"))
        cancelled.cancel()
        outcomes = await asyncio.gather(*waiters, return_exceptions=True)
        return [type(outcome).__name__ for outcome in outcomes]

    assert run(main)[0] == ["ConnectionError", "CancelledError"]


def test_a_waiter_that_stops_waiting_cancels_work_not_yet_started() -> None:
    """As with ``asyncio.wrap_future``: a caller past its deadline leaves nothing queued."""
    queued: Future[int] = Future()

    async def main() -> bool:
        waiter = awaitable(queued)
        try:
            await asyncio.wait_for(waiter, 0.01)
        except asyncio.TimeoutError:
            pass
        await asyncio.sleep(0)  # the waiter's own callbacks run
        return queued.cancelled()

    assert run(main)[0] is True


def test_work_finishing_after_its_loop_closed_raises_nothing_in_its_thread() -> None:
    late: Future[int] = Future()

    async def main() -> None:
        awaitable(late)

    run(main)
    late.set_result(1)  # the loop is closed: nobody is left to wait, and the thread goes on
