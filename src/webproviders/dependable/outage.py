"""Warning about a shared store that fails, at most once a minute, so an outage does not flood the log."""

from __future__ import annotations

import logging
import time

from ..redact import scrub


class OutageLog:
    """Logs ``message`` (with ``{error}`` filled in, scrubbed) no more often than ``every`` seconds."""

    def __init__(self, log: logging.Logger, message: str, every: float = 60.0) -> None:
        self._log = log
        self._message = message
        self._every = every
        self._last = float("-inf")

    def warn(self, exc: BaseException) -> None:
        now = time.monotonic()
        if now - self._last > self._every:
            self._last = now
            self._log.warning(self._message.format(error=f"{type(exc).__name__}: {scrub(str(exc))}"))
