"""What plugin and vendor code prints, sent to stderr while stdout carries answers.

A plugin's ``print`` or an SDK's progress lines went into the output a program reads: the
JSON of ``--json``, or the MCP stdio wire, where anything but a protocol message breaks the
client's session.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def prints_aside() -> Iterator[None]:
    """While it is open, ``sys.stdout`` is ``sys.stderr``; on leaving, what was already
    buffered for the real stdout is flushed (to where fd 1 points then), not left to be
    written later into the answer."""
    real = sys.stdout
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if real is not None:
            with contextlib.suppress(Exception):  # a closed or broken stdout has nothing to keep
                real.flush()
