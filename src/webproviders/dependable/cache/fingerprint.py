"""Cache keys: capability, provider and normalised arguments, hashed; never a secret.

Whitespace in a query is collapsed and option order does not matter; options whose name is
a credential (``api_key``, ``token``) are left out, so two callers with different keys share
answers and no key ever reaches the store.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

#: Option names that are a credential as a whole (``api_key``, ``x-api-key``, ``access_token``),
#: not names that merely contain such a word: ``max_tokens`` or ``include_cookies`` change the
#: answer, and leaving them out would serve one caller's answer for another's options.
_SECRET_NAME = re.compile(
    r"(?i)^(?:x[-_])?(?:api[-_]?key|key|(?:access[-_]|auth[-_]|bearer[-_]|api[-_])?token|(?:client[-_])?secret"
    r"|password|passwd|authorization|cookies?|credentials?)$"
)
#: One encoder for every key (``json.dumps`` with options builds a new one per call).
_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr).encode


def _public(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if not _SECRET_NAME.match(k)} if options else options


def cache_key(capability: str, provider: str, arguments: dict[str, Any]) -> str:
    """A stable hex digest for one provider answering one set of arguments."""
    if capability == "search":
        subject: Any = [" ".join(arguments["query"].split()), arguments["limit"]]
    elif capability == "extract":
        subject = arguments["urls"]
    else:
        subject = arguments["url"]
    payload = _encode([capability, provider, subject, _public(arguments["options"])])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
