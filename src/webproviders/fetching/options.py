"""Checking the numeric and switch options of extract and crawl calls, and the page options
(:class:`PageOptions`), kept apart from the page renderer so that a provider that fetches
nothing (``local``) reads them without loading the HTTP stack.

A call's own keyword wins, then ``web.providers.<name>.<key>``, then the built-in default;
a bad value from either place is an ``invalid_input`` that names the option (from the
config, by its key: ``web.providers.http.concurrency``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

from ..config import ProviderSettings, spelled
from ..context import remaining_time
from ..errors import InvalidInputError
from ..urls import MAX_URL_CHARS
from ..validate import check_page_options

if TYPE_CHECKING:
    from .extraction import Format


class Setting(str):
    """The config key an option's value came from (``web.providers.http.concurrency``), as
    opposed to a call's keyword: a bad value there is the set-up's to fix."""


def pick(kwargs: dict[str, Any], settings: ProviderSettings, name: str, default: Any) -> tuple[str, Any]:
    """``(where, value)`` for option ``name``: the call's (``name``), the config's (its
    :class:`Setting`), or ``default``."""
    value = kwargs.get(name)
    if value is not None:
        return name, value
    value = settings.option(name)
    if value is not None:
        return Setting(settings.key(name)), spelled(value)
    return name, default


def refused(where: str, sentence: str) -> InvalidInputError:
    """A bad option value, named where it was set: a caller who gave no such option would
    otherwise look for it in the call. Still ``invalid_input`` from the config: a chain does not
    hand the URLs to another backend (a third-party reader) for a typo in this one's section."""
    if isinstance(where, Setting):
        return InvalidInputError(f"{where} (in the config) {sentence}")
    return InvalidInputError(f"{where} {sentence}")


def whole(name: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise refused(name, f"must be a whole number {bounds}, not {value!r}.")
    return value


def seconds(name: str, value: Any, low: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < low:
        raise refused(name, f"must be a number of seconds of at least {low}, not {value!r}.")
    return float(value)


def switch(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise refused(name, f"must be true or false, not {value!r}.")
    return value


#: Patterns an ``include`` or ``exclude`` list may hold. Every link of every page is matched
#: against each, between two looks at the clock: 5,000 held a crawl 4 s past its deadline.
MAX_PATTERNS = 100


def patterns(name: str, value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if items is None:
        return ()
    if not isinstance(items, (list, tuple)) or not all(isinstance(p, str) and p.strip() for p in items):
        raise InvalidInputError(f"{name} must be a list of URL patterns such as ['/docs/*'].")
    if len(items) > MAX_PATTERNS:
        raise InvalidInputError(f"{name} lists {len(items):,} patterns; at most {MAX_PATTERNS} are taken.")
    if any(len(p) > MAX_URL_CHARS for p in items):
        raise InvalidInputError(f"{name} holds a pattern longer than a URL may be ({MAX_URL_CHARS:,} characters).")
    return tuple(p.strip() for p in items)


class FetchLimits(NamedTuple):
    """How hard one call may hit the web: ``concurrency``, ``per_host_concurrency``,
    ``delay`` between requests to one host, and ``url_timeout`` for one URL."""

    concurrency: int = 8
    per_host_concurrency: int = 2
    delay: float = 0.0
    url_timeout: float = 20.0

    @classmethod
    def from_kwargs(cls, kwargs: dict[str, Any], settings: ProviderSettings) -> FetchLimits:
        base = cls()
        return cls(
            concurrency=whole(*pick(kwargs, settings, "concurrency", base.concurrency), 1, 64),
            per_host_concurrency=whole(
                *pick(kwargs, settings, "per_host_concurrency", base.per_host_concurrency), 1, 64
            ),
            delay=seconds(*pick(kwargs, settings, "delay", base.delay)),
            url_timeout=seconds(*pick(kwargs, settings, "url_timeout", base.url_timeout), 0.1),
        )


def time_budget(settings: ProviderSettings) -> float | None:
    """Seconds this call may still spend, leaving a margin to hand back what it has.

    The dispatcher's deadline (and the provider's own ``timeout``) would cancel the call and
    lose every page; stopping a little earlier returns the pages finished so far.
    """
    left = remaining_time()
    if settings.timeout is not None:
        left = settings.timeout if left is None else min(left, settings.timeout)
    if left is None:
        return None
    return max(0.0, left - min(1.0, 0.1 + 0.05 * left))


#: The options an extract through the kit's page reading takes: those
#: :class:`PageOptions` and :class:`FetchLimits` read (a test
#: holds the names to their fields), and ``max_chars``, which the dispatcher applies.
EXTRACT_OPTIONS = frozenset({"format", "include_raw", "max_chars", *FetchLimits._fields})
#: ... and the kit's :class:`~webproviders.fetching.crawler.CrawlOptions` (``limit`` is the
#: alias of ``max_pages`` every crawling backend takes).
CRAWL_OPTIONS = EXTRACT_OPTIONS | {
    "max_depth", "max_pages", "limit", "scope", "include", "exclude", "respect_robots", "use_sitemap", "progress"
}


class PageOptions(NamedTuple):
    """How pages are rendered: the ``format``, ``include_raw`` and ``max_chars`` options.
    The dispatcher cuts every provider's pages to ``max_chars``
    (:func:`webproviders.envelope.normalise_pages`); pages are cut here too, as they are read,
    so that a crawl of a thousand long pages holds their first ``max_chars`` characters only."""

    format: Format = "markdown"
    include_raw: bool = False
    max_chars: int | None = None

    @classmethod
    def from_kwargs(cls, kwargs: dict[str, Any]) -> PageOptions:
        """Validate the page options a caller passed (unknown keys are ignored)."""
        checked = check_page_options(kwargs)
        fmt = str(checked.get("format") or "markdown")
        return cls(fmt, bool(checked.get("include_raw", False)), checked.get("max_chars"))  # type: ignore[arg-type]  # fmt checked
