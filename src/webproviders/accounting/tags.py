"""Checking the ``tags=`` a caller attaches to a call (user, agent, session ids).

Tags go to the usage ledger and select per-tag budgets; they are never sent to a provider.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import InvalidInputError
from ..validate import encodable

MAX_TAGS = 16
MAX_VALUE_CHARS = 200
#: A tag's name; a per-tag budget (``web.budget.per_tag``) is checked against it when the config loads.
TAG_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}\Z")  # \Z: no trailing newline
#: The smallest integer whose digits are too long for a tag value.
_TOO_LONG = 10**MAX_VALUE_CHARS
TAG_NAME_RULE = "letters, digits, '_', '.' or '-', at most 64 characters, not starting with a digit, '.' or '-'"


def check_tags(tags: Any) -> dict[str, str]:
    """``tags`` as a ``{name: text}`` dict; numbers and booleans become text."""
    if tags is None:
        return {}
    if not isinstance(tags, dict):
        raise InvalidInputError(f"tags must be a mapping such as {{'user': 'alice'}}, not {type(tags).__name__}.")
    if len(tags) > MAX_TAGS:
        raise InvalidInputError(f"tags may hold at most {MAX_TAGS} entries, not {len(tags)}.")
    checked: dict[str, str] = {}
    for name, value in tags.items():
        if not isinstance(name, str) or not TAG_NAME.match(name):
            raise InvalidInputError(f"tag name {name!r} is not allowed; use {TAG_NAME_RULE}.")
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, str):
            # A lone surrogate cannot be stored as UTF-8: the ledger batch and the budget
            # counters holding it failed, and every caller was refused while they were skipped.
            text = encodable(value, f"tag {name!r}")
        elif isinstance(value, int) and abs(value) >= _TOO_LONG:  # str() raises from 4,300 digits on
            raise _too_long(name)
        elif isinstance(value, (int, float)):
            text = str(value)
        else:
            raise InvalidInputError(f"tag {name!r} must be text or a number, not {type(value).__name__}.")
        if not text or len(text) > MAX_VALUE_CHARS:
            raise _too_long(name)
        checked[name] = text
    return checked


def _too_long(name: str) -> InvalidInputError:
    return InvalidInputError(f"tag {name!r} must be 1 to {MAX_VALUE_CHARS} characters long.")
