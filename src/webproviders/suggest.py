"""The name a mistyped one was likely meant to be, for the sentences that name the mistake."""

from __future__ import annotations

from collections.abc import Iterable


def closest(name: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` a single typo away from ``name`` (``tavilly`` for ``tavily``), or the
    only one that is ``name`` with a suffix (``daily_usd`` for ``daily``), if any."""
    import difflib  # here: only a name that matches nothing needs it

    names = sorted(names)
    found = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
    if found:
        return found[0]
    # a name without its unit (``daily`` for ``daily_usd``, ``retention`` for ``retention_days``)
    completed = [known for known in names if known.startswith(f"{name}_")]
    return completed[0] if len(completed) == 1 else None


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """`` Did you mean 'tavily'?`` for a name one typo away from one of ``names``, else ``""``."""
    close = closest(name, names)
    return f" Did you mean '{close}'?" if close else ""
