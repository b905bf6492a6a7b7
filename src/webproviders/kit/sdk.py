"""Providers built on a vendor's own Python SDK.

An SDK is imported on first use only, so :class:`SDKProvider` checks that it is installed
without importing it and names the extra to install when it is not. The small
helpers here turn a vendor's error text into our sentences. Running an SDK on the shared
connection pool, and reading the response it failed on, is in :mod:`webproviders.kit.sdkhttp`
(loaded with the HTTP stack, on first request).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from ..context import remaining_time, warn
from ..manifest import Package
from ..redact import scrub
from ..validate import COMMON_SEARCH_OPTIONS
from .vendor import VendorProvider

#: Longest vendor message quoted in an error sentence.
_QUOTE_CHARS = 300
_BAD_KEY = re.compile(
    r"api[ _-]?key|unauthori[sz]ed|invalid (?:auth|token|credential)|authenticat", re.IGNORECASE
)


class SDKProvider(VendorProvider):
    """A keyed vendor reached through its SDK; available when the SDK and a key are present.

    The SDK is the package the manifest lists (``packages:`` in ``plugin.yaml``); ``sdk_module``
    and ``sdk_pip`` name it for a provider registered without one.
    """

    #: The SDK's top-level module (``tavily``), checked with ``find_spec``.
    sdk_module: ClassVar[str] = ""
    #: What to ``pip install`` for it (``webproviders[tavily]``).
    sdk_pip: ClassVar[str] = ""

    def packages(self) -> list[Package]:
        declared = super().packages()
        if declared or not self.sdk_module:
            return declared
        return [Package(module=self.sdk_module, pip=self.sdk_pip or self.sdk_module)]

    def call_timeout(self) -> float:
        """Seconds for one SDK request: the provider's timeout, cut to what the call has left."""
        left = remaining_time()
        own = self.timeout()
        return own if left is None else max(0.1, min(own, left))


def quote(text: Any) -> str:
    """A vendor's own error text, fit to quote in a sentence: scrubbed of secrets, shortened."""
    clean = " ".join(scrub(str(text or "")).split())
    return clean if len(clean) <= _QUOTE_CHARS else clean[: _QUOTE_CHARS - 1] + "…"


def said(message: str) -> str:
    """``: <vendor text>.`` to end one of our sentences with, or just the full stop."""
    if not message:
        return "."
    return f": {message}" + ("" if message.endswith((".", "!", "?", "…")) else ".")


def mentions_bad_key(text: str) -> bool:
    """Whether a vendor message is about the API key (some vendors say so with a 400 or 422)."""
    return bool(_BAD_KEY.search(text or ""))


def warn_unknown(
    provider: str, options: dict[str, Any], known: frozenset[str], *, search: bool = False
) -> None:
    """Say in ``meta.warnings`` which options were not understood (and so not sent).

    For a search, the common options are left out: the dispatcher already reports those
    the provider does not honour.
    """
    unknown = sorted(set(options) - known - (COMMON_SEARCH_OPTIONS if search else frozenset()))
    if unknown:
        warn(f"{provider} ignored the option(s) {', '.join(unknown)}: it does not know them.")
