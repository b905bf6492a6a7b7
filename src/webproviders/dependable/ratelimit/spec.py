"""Reading a request budget such as ``"1/s"``, ``"100/min"`` or ``"10/5s"``."""

from __future__ import annotations

import re
from typing import NamedTuple

_UNITS = {
    "ms": 0.001,
    "s": 1.0,
    "sec": 1.0,
    "second": 1.0,
    "m": 60.0,
    "min": 60.0,
    "minute": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "hour": 3600.0,
    "d": 86400.0,
    "day": 86400.0,
}
_SPEC = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)?\s*([a-z]+)\s*$")
#: Spellings that switch a budget off (a manifest default included).
OFF = frozenset({"off", "none", "unlimited", "0"})


#: The most slots a budget keeps track of: a budget of more requests per period is held as
#: this many per the matching share of the period (``5000/day`` as 1000 per 4.8 hours).
MAX_WINDOW_COUNT = 1000


class Rate(NamedTuple):
    """``requests`` per ``period`` seconds: at most that many in any span of that length."""

    requests: float
    period: float
    text: str

    @property
    def window(self) -> tuple[int, float]:
        """``(count, seconds)``: at most ``count`` requests in any ``seconds``. A fractional
        budget (``0.5/s``) is held as whole requests over a longer span (1 per 2 s); a very
        large one as :data:`MAX_WINDOW_COUNT` over its share of the period."""
        count = max(1, min(int(self.requests), MAX_WINDOW_COUNT))
        return count, self.period * count / self.requests


def parse_rate(text: str) -> Rate:
    """Parse a budget; raises ``ValueError`` with the accepted forms on a bad one."""
    match = _SPEC.match(text.lower())
    word = match.group(3) if match else ""
    unit = _UNITS.get(word, _UNITS.get(word[:-1])) if word.endswith("s") else _UNITS.get(word)
    span = float(match.group(2)) if match and match.group(2) else 1.0
    if match is None or unit is None or float(match.group(1)) <= 0 or span <= 0:
        # The value is not repeated: it may come from a ${VAR} holding something else.
        raise ValueError(
            "the rate limit is not understood; write it as requests/period with both above 0, "
            "e.g. '1/s', '100/min', '10/5s', '5000/day' (or 'off')"
        )
    return Rate(float(match.group(1)), span * unit, text.strip())


def rate_or_none(value: str | bool | None) -> Rate | None:
    """A configured budget, or None when it is absent or switched off."""
    if value is None or value is False or (isinstance(value, str) and value.strip().lower() in OFF):
        return None
    if value is True:
        raise ValueError("rate limit 'true' is not a budget; write e.g. '1/s'")
    return parse_rate(value)
