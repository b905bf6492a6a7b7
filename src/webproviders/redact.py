"""Keeping secrets out of error text, log records and reprs.

Secrets are known two ways: values remembered from config and providers, and the current
values of environment variables that manifests mark as secret. Credential-shaped fragments
(``Authorization: Bearer ...``, ``api_key=...``) are masked whatever their value.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable

MASK = "***"
_MIN_SECRET_LEN = 4

_known: set[str] = set()
_env_names: set[str] = set()
_lock = threading.Lock()

_CREDENTIAL_PATTERNS = (
    re.compile(r"(?i)(authorization\s*[:=]\s*['\"]?(?:bearer|bot|basic|token)?\s*)[^\s'\",;]+"),
    re.compile(r"(?i)((?:x-subscription-token|x-api-key|api-key)\s*[:=]\s*['\"]?)[^\s'\",;]+"),
    re.compile(r"(?i)([?&](?:api_key|apikey|key|token|access_token|auth)=)[^&\s'\"]+"),
    re.compile(r"(?i)(['\"](?:api_key|apikey|token|x-api-key)['\"]\s*:\s*['\"])[^'\"]+"),
)


def remember(*secrets: str | None) -> None:
    """Add values to scrub from now on (a provider's key once it has read it)."""
    with _lock:
        _known.update(s for s in secrets if s and len(s) >= _MIN_SECRET_LEN)


def watch_env(*names: str) -> None:
    """Scrub the current value of these environment variables, whatever it becomes."""
    with _lock:
        _env_names.update(names)


def current_secrets(extra: Iterable[str] = ()) -> list[str]:
    """Every secret to scrub now, longest first (so a key that contains another is masked whole)."""
    values = set(_known) | {s for s in extra if s and len(s) >= _MIN_SECRET_LEN}
    for name in list(_env_names):
        value = os.environ.get(name)
        if value:
            values.update(p.strip() for p in value.split(",") if len(p.strip()) >= _MIN_SECRET_LEN)
    return sorted(values, key=len, reverse=True)


def scrub(text: str, extra: Iterable[str] = ()) -> str:
    """``text`` with every known secret and credential-shaped fragment masked."""
    if not text:
        return text
    for secret in current_secrets(extra):
        if secret in text:
            text = text.replace(secret, MASK)
    for pattern in _CREDENTIAL_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + MASK, text)
    return text


class ScrubFilter(logging.Filter):
    """A logging filter that scrubs the formatted message of every record it sees."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string is the caller's problem
            return True
        cleaned = scrub(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def install_log_filter(logger: logging.Logger) -> None:
    """Attach :class:`ScrubFilter` to ``logger`` once."""
    if not any(isinstance(f, ScrubFilter) for f in logger.filters):
        logger.addFilter(ScrubFilter())


#: Third-party loggers that may print request URLs (with key query parameters) or headers.
_THIRD_PARTY_LOGGERS = ("httpx", "httpcore")


def get_logger(name: str) -> logging.Logger:
    """A logger whose records are scrubbed (and httpx's too, which logs request URLs)."""
    logger = logging.getLogger(name)
    install_log_filter(logger)
    for other in _THIRD_PARTY_LOGGERS:
        install_log_filter(logging.getLogger(other))
    return logger
