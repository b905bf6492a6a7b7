"""Cache keys: capability, provider, its set-up and normalised arguments, hashed; never a secret.

Whitespace in a query is collapsed and option order does not matter; options whose name is
a credential (``api_key``, ``token``) are left out, so two callers with different keys share
answers and no key ever reaches the store. A provider's set-up (its ``base_url``, a vendor
option such as Google's ``cx``) is part of the key: configs sharing one SQLite file or Redis
with the same provider pointed elsewhere must not be served each other's answers. So are the
settings every request of a provider goes out with (``web.user_agent``), the cap every extract's
and crawl's pages are cut to (``web.max_response_bytes``) and, where it reads pages on this
machine, the ``web.extraction`` limits that decide a page's text and what the URL screen lets
through (``web.allow_private_networks``, ``web.allowed_hosts``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ...redact import holds_secret, mask_userinfo

if TYPE_CHECKING:
    from ...config import Config, ProviderSettings
    from ...manifest import Capability, EnvVar, ProviderManifest

#: Option names that are a credential as a whole (``api_key``, ``x-api-key``, ``access_token``),
#: not names that merely contain such a word: ``max_tokens`` or ``include_cookies`` change the
#: answer, and leaving them out would serve one caller's answer for another's options.
_SECRET_NAME = re.compile(
    r"(?i)^(?:x[-_])?(?:api[-_]?key|key|(?:access[-_]|auth[-_]|bearer[-_]|api[-_])?token|(?:client[-_])?secret"
    r"|password|passwd|authorization|cookies?|credentials?)$"
)
#: One encoder for every key (``json.dumps`` with options builds a new one per call).
_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr).encode


#: ``web.providers.<name>`` keys that change how a provider is called, not what it answers.
_HOW_CALLED = frozenset({"api_key", "timeout", "rate_limit", "max_retries", "backoff", "price", "max_response_bytes"})
#: ``web.extraction`` keys that say where and how many workers extract, not what a page's text is.
_HOW_EXTRACTED = frozenset({"workers", "python"})


#: Options whose case means nothing: ISO 3166 country codes and BCP 47 language tags are
#: case-insensitive, and providers send them in the case their vendor takes (``US``, ``en``).
_CASELESS = ("country", "lang")


def _public(options: dict[str, Any]) -> dict[str, Any]:
    """The options that shape an answer, as a key sees them: no credential, and a code's case
    folded, so ``country="us"`` and ``"US"`` (the same request) share one entry."""
    if not options:
        return options
    found = {k: v for k, v in options.items() if not _SECRET_NAME.match(k)}
    for name in _CASELESS:
        if isinstance(found.get(name), str):
            found[name] = found[name].lower()
    return found


def _without_secrets(value: Any) -> Any:
    """``value`` with every mapping's credential-named keys left out (``headers.x-api-key``)."""
    if isinstance(value, dict):
        return {k: _without_secrets(v) for k, v in value.items() if not (isinstance(k, str) and _SECRET_NAME.match(k))}
    if isinstance(value, list):
        return [_without_secrets(v) for v in value]
    return value


def settings_setup(settings: ProviderSettings) -> dict[str, Any]:
    """The part of ``web.providers.<name>`` that can change a provider's answers: all of it
    but credentials and how dispatch calls it (timeouts, retries, budgets, prices)."""
    found: dict[str, Any] = _without_secrets(settings.model_dump(exclude=_HOW_CALLED, exclude_none=True))
    return found


def config_setup(config: Config, manifest: ProviderManifest, capability: Capability) -> dict[str, Any]:
    """What ``config`` sets that can change ``manifest``'s provider's answers for
    ``capability``: its :func:`settings_setup`, a digest of its keys when the vendor answers
    each account after its own settings (``answers_per_key``), ``web.user_agent`` when set (sent with every
    request; a site or a results page may answer another agent otherwise), for an extract or
    crawl the page cap (``web.max_response_bytes``, which every provider's pages are cut to)
    and, for one it fetches on this machine, the ``web.extraction`` limits (a page cut off at
    ``max_html_chars``, a PDF read to ``max_pdf_pages``) and the URL screen's switches."""
    settings = config.provider(manifest.name)
    found = settings_setup(settings)
    if manifest.answers_per_key:  # another account's answer is not this one's
        found["account"] = key_scope("account", settings.api_keys(), manifest.env)
    web = config.web
    if web.user_agent is not None:
        found["web.user_agent"] = web.user_agent
    if capability == "search":
        return found
    # Every provider's pages are cut to it when the call gives no max_chars, wherever they
    # were read: a page one config cut short must not reach a config that keeps it whole.
    found["web.max_response_bytes"] = web.max_response_bytes
    if manifest.fetch_place(capability) == "local":
        found["web.extraction"] = web.extraction.model_dump(exclude=_HOW_EXTRACTED)
        # What the URL screen lets through: a page one config read behind a redirect to a
        # private address, or a crawl's link to one, must not reach a config that forbids it.
        found["web.allow_private_networks"] = web.allow_private_networks
        found["web.allowed_hosts"] = sorted(web.allowed_hosts)
    return found


def provider_setup(settings: dict[str, Any], env: Iterable[EnvVar]) -> str:
    """What a provider is set up with that can change its answers, for :func:`cache_key`:
    ``settings`` (from :func:`config_setup`) and the non-secret variables its manifest
    declares (``SEARXNG_URL``), read now; URL passwords masked. Empty when none is set."""
    setup = dict(settings)
    setup.update((var.key, value) for var in env if not var.secret and (value := var.value()) is not None)
    return mask_userinfo(_encode(setup)) if setup else ""


def key_scope(key: str, keys: Iterable[str], env: Iterable[EnvVar]) -> str:
    """Which keys a provider is asked with (``keys`` from its config, else the secret variables
    its manifest declares), so that a failure one worker met with its keys is shared only with
    workers holding the same (see :mod:`.handover`). A short digest salted with the cache
    ``key``: enough to tell key sets apart, and nothing a key could be matched against in
    another store or log. Empty without keys."""
    found = sorted(keys) or sorted(value for var in env if var.secret and (value := var.value()) is not None)
    if not found:
        return ""
    return hashlib.sha256("\n".join([key, *found]).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _subject(capability: str, arguments: dict[str, Any]) -> Any:
    """What a call asks about: its query and limit, its URLs or its start URL."""
    if capability == "search":
        return [" ".join(arguments["query"].split()), arguments["limit"]]
    if capability == "extract":
        return arguments["urls"]
    return arguments["url"]


def carries_credential(capability: str, arguments: dict[str, Any]) -> bool:
    """Whether a call's URLs (or query) carry a credential, as a log line would mask it (a
    signed link's ``?X-Amz-Signature=``, ``?api_key=``): its answer, which quotes them, is
    then kept out of the cache, a store every process sharing it can read."""
    subject = _subject(capability, arguments)
    if capability == "search":
        subject = subject[0]
    texts = subject if isinstance(subject, list) else [subject]
    return any(holds_secret(text) for text in texts if isinstance(text, str))


def cache_key(capability: str, provider: str, arguments: dict[str, Any], setup: str = "") -> str | None:
    """A stable hex digest for one provider, set up as ``setup`` says, answering one set of
    arguments; None for options no key can be written from (a mapping with keys of mixed types,
    nesting deeper than Python recurses, a value whose ``repr`` fails): that call is not cached,
    as a store that fails is bypassed, rather than failed as the provider's doing."""
    parts = [capability, provider, _subject(capability, arguments), _public(arguments["options"])]
    if setup:  # a provider set up by nothing keeps the key it always had
        parts.append(setup)
    try:
        payload = _encode(parts)
    except Exception:  # noqa: BLE001 - an option's own repr() may raise anything
        return None
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
