"""The name a mistyped one was likely meant to be, for the sentences that name the mistake."""

from __future__ import annotations

from collections.abc import Iterable


def closest(name: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` a single typo away from ``name`` (``tavilly`` for ``tavily``), if any."""
    import difflib  # here: only a name that matches nothing needs it

    found = difflib.get_close_matches(name, sorted(names), n=1, cutoff=0.8)
    return found[0] if found else None


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """`` Did you mean 'tavily'?`` for a name one typo away from one of ``names``, else ``""``."""
    close = closest(name, names)
    return f" Did you mean '{close}'?" if close else ""
