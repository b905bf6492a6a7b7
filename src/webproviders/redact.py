"""Keeping secrets out of everything that leaves the library: error text, logs, reprs, data.

Secrets are known two ways: values remembered from config and providers (API keys, tokens,
the password of a URL's ``user:password@``), and the current values of environment
variables that manifests mark as secret. Each is masked in every form it travels in: raw,
percent-encoded, JSON- or repr-escaped (a key holding CR/LF shows up as ``\\r\\n``), as a
Basic credential, and as the masked echo some vendors send back (``Incorrect API key
provided: ba***na``). Credential-shaped fragments (``Authorization: Bearer ...``,
``api_key=...``, a URL's ``user:password@``) are masked whatever their value.

:func:`scrub` is the one pass for text a person or a model reads (error sentences,
warnings, log records); :func:`scrub_data` masks only the known secrets inside a provider's
answer (so a page that quotes an ``Authorization:`` header keeps its text).
:func:`install_log_filters` puts the same pass on the loggers of the HTTP stack and the
vendor SDKs by name, so nothing is imported to do it.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import logging
import os
import re
import threading
import time
from typing import Any
from urllib.parse import quote, quote_plus, unquote, urlsplit

MASK = "***"
_MIN_SECRET_LEN = 4
#: Secrets at least this long are also looked for in a vendor's masked echo (``ba***na``)
#: and in a provider's answer (a shorter one would mangle ordinary words in page text).
_MIN_ECHO_LEN = 8
#: An echo is taken for a key's when it shows at least this many of its characters: with
#: many keys known, some key starts with any letter or two, and ``I... think`` or ``page
#: 2... done`` lost their words to a mask.
_MIN_ECHO_SHOWN = 4
#: Seconds the values of watched environment variables are reused before they are read again
#: (reading them costs more than the rest of a scrub; a key a provider reads is remembered
#: at once anyway).
ENV_EVERY = 1.0

_env_names: set[str] = set()
_url_env_names: set[str] = set()
_lock = threading.Lock()
#: When the watched variables were last read, and the secrets they held then.
_env_read: tuple[float, frozenset[str]] = (float("-inf"), frozenset())

#: Query parameter names whose value is a credential, compared without case: one list for
#: error sentences, log lines (``HTTP Request: GET ...?key=***``) and the URLs an envelope
#: gives back (:func:`mask_url`). Keys as vendors take them in a query (Google's ``key``,
#: SerpAPI's ``api_key``, Azure's ``subscription-key``, GitLab's ``private_token``), OAuth
#: and session tokens, passwords, and the signature of a signed link (S3, Google Cloud
#: Storage, Azure SAS).
CREDENTIAL_QUERY_NAMES = (
    "api_key", "apikey", "api-key", "key", "x-api-key", "subscription-key", "hapikey",
    "token", "access_token", "auth_token", "id_token", "refresh_token", "private_token", "session_token",
    "auth", "password", "passwd", "pwd", "secret", "client_secret", "app_secret", "api_secret", "secret_key",
    "session", "sessionid", "session_id", "jsessionid", "phpsessid",
    "sig", "signature", "x-amz-signature", "x-amz-security-token", "x-amz-credential",
    "x-goog-signature", "x-goog-credential",
)
_CREDENTIAL_NAMES = frozenset(CREDENTIAL_QUERY_NAMES)
#: A credential's value percent-encoded into a query: up to an encoded space or ``&``.
_ENCODED_VALUE = r"(?:(?!%2[06])[^&\s'\"#<>+])+"
#: A credential's value in a query: up to the next parameter, fragment or quote, and not the
#: punctuation after it (``?api_key=XYZ: refused`` keeps its colon).
_QUERY_VALUE = r"[^&\s'\"#<>]*[^&\s'\"#<>:;,.)\]]"


class _Patterns:
    """The scrubber's patterns, compiled the first time something is scrubbed (not at import)."""

    def __init__(self) -> None:
        names = "|".join(re.escape(name) for name in CREDENTIAL_QUERY_NAMES)
        words = "|".join(re.escape(name) for name in CREDENTIAL_QUERY_NAMES if name != "key")
        #: A credential in a URL's query, or in its fragment (OAuth's ``#access_token=``):
        #: everything up to the next parameter, but the punctuation that ends a sentence
        #: (``...?api_key=***: refused``) stays.
        self.query = re.compile(rf"(?i)([?&;#](?:{names})=){_QUERY_VALUE}")
        #: The same in a URL percent-encoded into another one's query (a login page's
        #: ``?next=https%3A%2F%2Fhost%2Fdoc%3Ftoken%3D...``).
        self.nested = re.compile(rf"(?i)((?:%3F|%26|%3B|%23)(?:{names})%3D){_ENCODED_VALUE}")
        self.credentials = (
            # Authorization / Proxy-Authorization headers, also as a JSON key echoed in a body:
            # a scheme this list does not know (ApiKey, SSWS, Negotiate) goes with its credentials,
            re.compile(
                r"(?i)(authorization['\"]?\s*[:=]\s*\[?\s*['\"]?)(?!(?:bearer|bot|basic|token|digest)\b)"
                r"[^\s'\",;\]}]+[ \t]+[^\s'\",;\]}]+"
            ),
            # and a known one is kept before them.
            re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*\[?\s*['\"]?(?:bearer|bot|basic|token|digest)?\s*)[^\s'\",;\]}]+"),
            re.compile(r"(?i)((?:x-subscription-token|x-api-key|api-key|x-goog-api-key)['\"]?\s*[:=]\s*['\"]?)[^\s'\",;}]+"),
            # The value of a cookie a server sets (a session a sign-in link opened), as a header
            # line or as httpcore's DEBUG line writes it: ``(b'Set-Cookie', b'sid=...; Path=/')``.
            re.compile(r"(?i)((?:set-)?cookie['\"]?\s*[:,]\s*b?['\"]?\s*[^=;\s'\"]+=)[^;\s'\"]+"),
            self.query,
            self.nested,
            # The same written as text (a query asked for: ``hello token=...``), also once
            # percent-encoded into a request's query (``q=hello+token%3D...``), but for ``key``,
            # an ordinary word there.
            re.compile(rf"(?i)((?<![\w.-])(?:{words})=){_QUERY_VALUE}"),
            re.compile(rf"(?i)((?:(?<![\w.%-])|(?<=%20))(?:{words})%3D){_ENCODED_VALUE}"),
            # A JSON body echoing the request (``{"session": "..."}``), by the same names.
            re.compile(rf"(?i)(['\"](?:{words})['\"]\s*:\s*['\"])[^'\"]+"),
            # A ``NAME=value`` line of a .env file, pasted where a key was meant (``TAVILY_API_KEY=...``).
            re.compile(
                r"(?i)((?<![A-Za-z0-9])(?:(?:[A-Za-z0-9]+_)*(?:api_key|apikey|secret_key|client_secret|password)"
                r"|(?:[A-Za-z0-9]+_)+token)\s*=\s*)[^\s'\",;&}]*[^\s'\",;&}:.)\]]"
            ),
            re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
        )
        #: ``scheme://user:password@`` (or ``scheme://token@``): everything before the ``@`` goes.
        #: The scheme may follow a digit or ``_`` (an encoded space, ``URL('%20http://…')``).
        self.userinfo = re.compile(r"(?i)(?<![a-z])([a-z][a-z0-9+.\-]*://)[^/?#\s@'\"<>]+@")
        #: A vendor's masked echo of a key: some characters, a run of stars or dots, a few more.
        #: The head runs to 64 characters (``tvly-dev-Ab3xQ7rT0123***9kQz`` shows 21), through
        #: the ``.``, ``/`` and ``+`` a key may hold (``sk.Live/Key+0123***``), and no match
        #: starts inside the run, which would leave the head standing before ``***``.
        self.echo = re.compile(
            r"(?<![\w*•./+-])([\w./+-]{0,64}?)(?:\*{2,}|•{2,}|\.{3,}|…)([\w-]{0,12})(?![\w-])"
        )
        #: ``password=...`` in a libpq ``key=value`` connection string (quoted, or up to a space).
        self.dsn_password = re.compile(r"(?:^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)")
        #: A percent-escape, to write its hex in lower case.
        self.escape = re.compile(r"%[0-9A-F]{2}")
        #: A run of ASCII letters and digits: every form of a secret (percent-encoded,
        #: escaped) keeps such runs of it as they are.
        self.alnum_run = re.compile(r"[A-Za-z0-9]+")
        #: Every run of four ASCII letters or digits in a text (as UTF-8), overlapping.
        self.alnum_window = re.compile(rb"(?=([a-z0-9]{4}))")


@functools.cache
def _patterns() -> _Patterns:
    return _Patterns()


def compile_patterns() -> None:
    """Compile the scrubber's patterns now, off an event loop, rather than when something is
    first scrubbed: on a loop that is every other task held for some milliseconds."""
    _patterns()


def remember(*secrets: str | None) -> None:
    """Add values to scrub from now on (a provider's key once it has read it)."""
    global _known_version
    with _lock:
        for secret in secrets:
            if secret and len(secret) >= _MIN_SECRET_LEN and _known.add(secret):
                _known_version += 1
        while len(_known) > MAX_SECRETS:
            _known.forget_oldest()
            _known_version += 1


def _watch(names: set[str], added: tuple[str, ...]) -> None:
    global _env_read
    with _lock:
        names.update(added)
        _env_read = (float("-inf"), _env_read[1])  # read the variables again at the next scrub


#: The start of a libpq connection string of ``key=value`` pairs (``host=db password=...``).
_CONNINFO = re.compile(r"\s*[A-Za-z_]+\s*=")
#: A user name alone in a URL is taken for a token from this length on: shorter ones are
#: account names (``postgres``), and masking them everywhere would garble ordinary words.
_MIN_TOKEN_USER = 16


def url_credentials(url: Any) -> list[str]:
    """The secrets a URL carries: its ``user:password@`` (as written, decoded, and as Basic
    auth), and long values in its query (a gateway's ``?code=`` or ``?sig=`` token).

    A URL without a scheme (a proxy given as ``user:pw@host:port``) is read as ``http://``;
    a PostgreSQL connection string of ``key=value`` pairs is no URL (:func:`dsn_password` reads
    it): read as one, a password holding ``:`` and ``@`` gave the text between them as a
    secret, and ``password='se:cret@x'`` masked ``cret`` in every sentence.
    A password holding an unencoded ``/``, ``?`` or ``#`` ends the URL's authority early, so
    that no password is found where one was meant (and the rest reads as a bad port): the
    text up to the last ``@`` is then taken for the credentials, as their writer meant them.
    """
    if not isinstance(url, str) or not url:
        return []
    url = url.strip()
    if "://" not in url:
        if "@" not in url or _CONNINFO.match(url):
            return []
        url = "http://" + url
    netloc = query = ""
    user = password = None
    try:
        parts = urlsplit(url)
        netloc, query, user, password = parts.netloc, parts.query, parts.username, parts.password
    except ValueError:
        pass
    found = _query_tokens(query)
    rest = url.split("://", 1)[1]
    if "@" not in netloc and "@" in rest:  # the authority ended before the credentials did
        authority = rest.rsplit("@", 1)[0]
        if ":" in authority and not any(c.isspace() for c in authority):
            user, _, password = authority.partition(":")
    if password:
        found += [password, unquote(password), _basic(unquote(user or ""), unquote(password))]
    elif user and len(unquote(user)) >= _MIN_TOKEN_USER:  # a token written as the user (redis://token@host)
        found += [user, unquote(user), _basic(unquote(user), "")]  # sent as Basic "token:" too
    # a plain user name (postgresql://postgres@host) is no secret; URLs lose it anyway
    return found


def _basic(user: str, password: str) -> str:
    """The credential of the ``Authorization: Basic`` header a URL's userinfo is sent as."""
    import base64  # here: most URLs carry no credentials, and it stays off the import path

    return base64.b64encode(_utf8(f"{user}:{password}")).decode("ascii")


def _query_tokens(query: str) -> list[str]:
    """The values in a URL's query long enough to be tokens (a short one, ``format=json``, is
    a setting, and masking it everywhere would garble ordinary words), and those of its
    credential-named parameters (:data:`CREDENTIAL_QUERY_NAMES`) whatever their length: a
    gateway's ``?token=`` of 8 characters, echoed by it without its name, is still its token."""
    if not query:
        return []
    found: list[str] = []
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        length = len(unquote(value))
        if length >= _MIN_TOKEN_USER or (length and unquote(name).lower() in _CREDENTIAL_NAMES):
            found += [value, unquote(value)]
    return found


def dsn_password(dsn: Any) -> list[str]:
    """The password of a PostgreSQL connection string written as ``key=value`` pairs
    (``host=db password=...``); a URL-shaped one is read by :func:`url_credentials`."""
    if not isinstance(dsn, str) or "password" not in dsn or "://" in dsn:
        return []
    match = _patterns().dsn_password.search(dsn)
    if match is None:
        return []
    value = match.group(1)
    if value.startswith("'"):
        value = re.sub(r"\\(.)", r"\1", value[1:-1])
    return [value]


def watch_env(*names: str) -> None:
    """Scrub the current value of these environment variables, whatever it becomes."""
    _watch(_env_names, names)


def watch_url_env(*names: str) -> None:
    """Scrub the credentials in the URL these environment variables hold (not the whole URL)."""
    _watch(_url_env_names, names)


def _env_secrets() -> frozenset[str]:
    """The secrets the watched environment variables hold (read again every :data:`ENV_EVERY` s)."""
    global _env_read
    read_at, values = _env_read
    now = time.monotonic()
    if now - read_at < ENV_EVERY:
        return values
    found: set[str] = set()
    for name in list(_env_names):
        value = os.environ.get(name)
        if value:
            found.update(part.strip() for part in value.split(","))
    for name in list(_url_env_names):
        found.update(url_credentials(os.environ.get(name)))
    fresh = frozenset(v for v in found if len(v) >= _MIN_SECRET_LEN)
    _env_read = (now, values if fresh == values else fresh)
    return _env_read[1]


def _utf8(text: str) -> bytes:
    """``text`` as bytes, whatever it holds: an environment variable with a byte that is not
    UTF-8 reads as a lone surrogate (``\\udce9``), given back as that byte; any other lone
    surrogate is kept as UTF-8 would write it. Its secret must still be masked, not raise."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _escaped(text: str) -> set[str]:
    """``text`` as JSON and as a Python repr write it (a CR/LF becomes ``\\r\\n``)."""
    import json  # here: needed only once a secret is known

    return {
        json.dumps(text)[1:-1],
        json.dumps(text, ensure_ascii=False)[1:-1],
        repr(text)[1:-1],
        text.encode("unicode_escape").decode("ascii"),
    }


def _forms(secret: str) -> set[str]:
    """The ways ``secret`` can appear in text: raw, percent-encoded (with upper- or lower-case
    hex: .NET's ``UrlEncode`` writes ``%2f``), and escaped once or twice (the repr of an
    exception whose message holds a repr, a JSON body quoted in JSON)."""
    raw = _utf8(secret)
    encoded = {quote(raw, safe=""), quote_plus(raw, safe=""), quote(raw)}
    found = {secret, *encoded, *(_patterns().escape.sub(_lower, form) for form in encoded)}
    once = _escaped(secret)
    found |= once
    for form in once:
        found |= _escaped(form)
    return {form for form in found if len(form) >= _MIN_SECRET_LEN}


def _lower(match: re.Match[str]) -> str:
    return match.group(0).lower()


def _core(secret: str) -> bytes:
    """The longest run of ASCII letters and digits in ``secret``, in lower case: every form of
    it holds that run as it is (or in another case, as a vendor that upper-cases the key it
    quotes sends it), so a text that lacks it (see :func:`_folded`) holds no form of the secret."""
    return max(_patterns().alnum_run.findall(secret), key=len, default="").lower().encode("ascii")


def _folded(text: str) -> bytes:
    """``text`` as UTF-8 with its ASCII letters in lower case: what cores and forms are looked
    for in (a third of the time ``str.lower`` takes over a page that is not all ASCII)."""
    return text.encode("utf-8", "surrogatepass").lower()


@functools.lru_cache(maxsize=256)
def _pattern(secrets: frozenset[str]) -> re.Pattern[str]:
    """One pattern for every form of ``secrets`` (those a text was found to hold), in any
    case, longest first, so a form that contains another wins."""
    forms = {form for secret in secrets for form in _forms(secret)}
    return re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)), re.IGNORECASE)


#: At most this many secrets are remembered (about 500 bytes each for a key of 33
#: characters: 50 MB at most); past it, the one remembered longest ago is forgotten first. The
#: secrets of the config a call uses, and the keys a provider reads, are remembered again at
#: each call, so those in use are not the ones forgotten.
MAX_SECRETS = 100_000
#: Up to this many secrets, a text is searched for the core of each in turn (the fastest for a
#: few); past it, the text's runs of four letters or digits are looked up instead, a cost
#: that grows with the text and not with the number of secrets.
_SCAN_EACH = 256


class _Index:
    """A set of secrets, each found in a text by its core (:func:`_core`) with nothing compiled
    for it: only the forms of the few secrets a text holds are (:func:`_pattern`), so a new
    secret costs as little with thousands known as with none."""

    def __init__(self, secrets: frozenset[str] = frozenset()) -> None:
        #: Each secret's core, or its forms when it has no run of four letters or digits (all
        #: in lower case), in the order the secrets were last remembered.
        self.cores: dict[str, bytes | tuple[bytes, ...]] = {}
        #: Secrets by four characters in a row of their core: any four of it are in a text
        #: that holds it, so each is filed under the four fewest others are (a vendor's fixed
        #: prefix, ``BSA``, would put every key of it under one).
        self.by_four: dict[bytes, list[str]] = {}
        self.four: dict[str, bytes] = {}
        #: The secrets kept by their forms.
        self.bare: dict[str, tuple[bytes, ...]] = {}
        #: The secrets long enough to be recognised in an echo (``ba***na``), sorted, and the
        #: same written backwards, to find those starting or ending with a text by bisection
        #: (in their own case: a head of a letter or two in another would take in the
        #: ``I...`` of ordinary sentences once many keys are known).
        self.heads: list[str] = []
        self.tails: list[str] = []
        for secret in secrets:
            self.add(secret)

    def __len__(self) -> int:
        return len(self.cores)

    def add(self, secret: str) -> bool:
        """Add ``secret`` (or mark it remembered now); whether it is new."""
        if secret in self.cores:
            self.cores[secret] = self.cores.pop(secret)
            return False
        core = _core(secret)
        if len(core) >= _MIN_SECRET_LEN:
            self.cores[secret] = core
            four = min(
                (core[i : i + _MIN_SECRET_LEN] for i in range(len(core) - _MIN_SECRET_LEN + 1)),
                key=lambda four: len(self.by_four.get(four, ())),
            )
            self.four[secret] = four
            self.by_four.setdefault(four, []).append(secret)
        else:
            self.cores[secret] = self.bare[secret] = tuple({_folded(form) for form in _forms(secret)})
        if len(secret) >= _MIN_ECHO_LEN:
            bisect.insort(self.heads, secret)
            bisect.insort(self.tails, secret[::-1])
        return True

    def forget_oldest(self) -> None:
        secret = next(iter(self.cores))
        core = self.cores.pop(secret)
        if isinstance(core, tuple):
            del self.bare[secret]
        else:
            four = self.four.pop(secret)
            same = self.by_four[four]
            same.remove(secret)
            if not same:
                del self.by_four[four]
        for ordered, value in ((self.heads, secret), (self.tails, secret[::-1])):
            at = bisect.bisect_left(ordered, value)
            if at < len(ordered) and ordered[at] == value:
                del ordered[at]

    def found_in(self, text: bytes, lock: threading.Lock | contextlib.nullcontext[None]) -> list[str]:
        """The secrets whose core (or, for a bare one, a form) ``text`` (:func:`_folded`) holds."""
        if len(self.cores) <= _SCAN_EACH:
            with lock:
                pairs = list(self.cores.items())
        else:
            fours = set(_patterns().alnum_window.findall(text))
            with lock:
                pairs = [(s, self.cores[s]) for four in fours if four in self.by_four for s in self.by_four[four]]
                pairs += self.bare.items()
        return [
            secret
            for secret, core in pairs
            if (core in text if isinstance(core, bytes) else any(form in text for form in core))
        ]

    def echoed(self, head: str, tail: str, lock: threading.Lock | contextlib.nullcontext[None]) -> bool:
        """Whether a secret long enough to be echoed starts with ``head`` and ends with ``tail``."""
        ordered, start = (self.heads, head) if head else (self.tails, tail[::-1])
        with lock:
            at = bisect.bisect_left(ordered, start)
            while at < len(ordered) and ordered[at].startswith(start):
                secret = ordered[at] if head else ordered[at][::-1]
                if secret.endswith(tail):
                    return True
                at += 1
        return False


class _Matcher:
    """The known secrets and those of the watched variables, as one scrub sees them."""

    def __init__(self, version: int, env: frozenset[str], env_index: _Index) -> None:
        self.version, self.env, self.env_index = version, env, env_index
        #: Texts scrubbed with these secrets, and what they became (see :func:`scrub`).
        self.scrubbed: dict[str, str] = {}

    def _found_in(self, text: str) -> list[str]:
        folded = _folded(text)
        return _known.found_in(folded, _lock) + self.env_index.found_in(folded, _NO_LOCK)

    def mask(self, text: str) -> str:
        found = self._found_in(text)
        if found:
            text = _pattern(frozenset(found)).sub(MASK, text)
        if (_known.heads or self.env_index.heads) and ("*" in text or "•" in text or "…" in text or "..." in text):
            text = _patterns().echo.sub(self._echo, text)
        return text

    def data_found_in(self, text: str) -> frozenset[str]:
        """The secrets ``text`` may hold that are long enough not to be ordinary words."""
        return frozenset(s for s in self._found_in(text) if len(s) >= _MIN_ECHO_LEN)

    def mask_data(self, text: str) -> str:
        found = self.data_found_in(text)
        return _pattern(found).sub(MASK, text) if found else text

    def _echo(self, match: re.Match[str]) -> str:
        """The echo masked from where a known key's head starts in it: its whole run, or the
        part after a ``.``, ``/`` or ``+`` (``/v1/keys/sk-ab***yz`` keeps ``/v1/keys/``)."""
        head, tail = match.group(1), match.group(2)
        for start in (0, *(i + 1 for i, c in enumerate(head) if c in "./+")):
            part = head[start:]
            if len(part) + len(tail) >= _MIN_ECHO_SHOWN and (
                _known.echoed(part, tail, _lock) or self.env_index.echoed(part, tail, _NO_LOCK)
            ):
                return head[:start] + MASK
        return match.group(0)


#: The remembered secrets (only added to, and forgotten oldest first past :data:`MAX_SECRETS`),
#: changed under :data:`_lock`, and how many times they changed.
_known = _Index()
_known_version = 0
_NO_LOCK = contextlib.nullcontext()
_matcher: _Matcher = _Matcher(0, frozenset(), _Index())


def _current_matcher() -> _Matcher:
    """The matcher of the secrets known now (made again, with nothing compiled, when they change)."""
    global _matcher
    env = _env_secrets()
    matcher = _matcher
    if matcher.env is not env or matcher.version != _known_version:
        env_index = matcher.env_index if matcher.env == env else _Index(env)
        matcher = _matcher = _Matcher(_known_version, env, env_index)
    return matcher


#: Texts up to this long are remembered once scrubbed, for as long as the known secrets stay
#: the same: the same warning or error sentence comes back call after call.
_REMEMBER_CHARS = 500
_REMEMBERED = 1_024


def scrub(text: str) -> str:
    """``text`` with every known secret, URL credential and credential-shaped fragment masked."""
    if not text:
        return text
    matcher = _current_matcher()
    known = matcher.scrubbed
    done = known.get(text)
    if done is not None:
        return done
    clean = mask_userinfo(matcher.mask(text))
    if _may_hold_credentials(clean):
        for pattern in _patterns().credentials:
            clean = pattern.sub(lambda m: m.group(1) + MASK, clean)
    if len(text) <= _REMEMBER_CHARS:
        if len(known) >= _REMEMBERED:
            known.clear()
        known[text] = clean
    return clean


def holds_secret(text: str) -> bool:
    """Whether :func:`scrub` would mask anything in ``text`` (a URL with ``?api_key=`` in it),
    or has: an envelope gives a caller's URL back as ``?api_key=***``, which still names no
    page to keep (the local index reads its pages from envelopes)."""
    if scrub(text) != text:
        return True
    return MASK in text and scrub(text.replace(MASK, _STAND_IN)) != text.replace(MASK, _STAND_IN)


#: What a mask is read as to tell whether it stands for a credential: a value long enough to be one.
_STAND_IN = "x" * _MIN_TOKEN_USER


def _may_hold_credentials(text: str) -> bool:
    """Whether any credential pattern could match: each needs a ``:`` or ``=`` after its
    name, or the word ``bearer``. Most sentences have neither, and listing providers then
    compiles no pattern (a few milliseconds of every start)."""
    return ":" in text or "=" in text or "bearer" in text.lower()


def mask_userinfo(text: str) -> str:
    """``text`` with the ``user:password@`` of every URL in it masked, as :func:`scrub` masks it."""
    if "@" not in text:
        return text
    return _patterns().userinfo.sub(lambda m: m.group(1) + MASK + "@", text)


#: The ``user:password@`` that starts an address written without its scheme (``alice:pw@host/x``).
_SCHEMELESS_USERINFO = re.compile(r"^(\s*)[^\s/?#@:]*:[^\s/?#@]*@")


def mask_url(url: str) -> str:
    """``url`` as an envelope gives it back: its ``user:password@`` (written without a scheme
    too) and the values of its credential-named query parameters
    (:data:`CREDENTIAL_QUERY_NAMES`) masked, the rest as written (a page's link that merely
    quotes a known key is masked by :func:`scrub_data`)."""
    url = mask_userinfo(_SCHEMELESS_USERINFO.sub(lambda m: m.group(1) + MASK + "@", url, count=1))
    if "=" not in url:
        return url
    patterns = _patterns()
    return patterns.nested.sub(_keep_name, patterns.query.sub(_keep_name, url))


def _keep_name(match: re.Match[str]) -> str:
    return match.group(1) + MASK


#: Keys of a provider's answer that hold a sentence about a failure: scrubbed in full.
_SENTENCE_KEYS = frozenset({"error", "detail", "warning", "message"})


def scrub_data(value: Any) -> Any:
    """A provider's answer with the known secrets masked (and its failure sentences in full).

    Returns ``value`` itself when nothing needed masking, so the common case copies nothing:
    its strings are searched in one pass first.
    """
    matcher = _current_matcher()
    if _known.heads or matcher.env_index.heads:
        strings: list[str] = []
        _strings(value, strings)
        joined = "\x00".join(strings)
        if matcher.data_found_in(joined):  # else no string holds a form of one
            return _walk(value, matcher)
    return _scrub_sentences(value)


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for name, item in value.items():
            _strings(name, out)  # a vendor's mapping may be keyed by what it echoes
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def _walk(value: Any, matcher: _Matcher, key: Any = None) -> Any:
    if isinstance(value, str):
        return scrub(value) if key in _SENTENCE_KEYS else matcher.mask_data(value)
    if isinstance(value, dict):
        names = {k: matcher.mask_data(k) if isinstance(k, str) else k for k in value}
        changed = {names[k]: _walk(v, matcher, k) for k, v in value.items()}
        same = all(names[k] is k for k in value) and all(changed[k] is v for k, v in value.items())
        return value if same else changed
    if isinstance(value, list):
        items = [_walk(v, matcher) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def _scrub_sentences(value: Any) -> Any:
    """The failure sentences of a page list (``error``, ``detail``) scrubbed in full."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            clean = _scrub_sentences(item)
            if clean is not item:  # copied only from the first change on
                return [*value[:index], clean, *(_scrub_sentences(v) for v in value[index + 1 :])]
        return value
    if isinstance(value, dict):
        if _SENTENCE_KEYS.isdisjoint(value):
            return value
        clean = {k: scrub(v) if k in _SENTENCE_KEYS and isinstance(v, str) else v for k, v in value.items()}
        return value if all(clean[k] is v for k, v in value.items()) else clean
    return value


class ScrubFilter(logging.Filter):
    """A logging filter that scrubs the formatted message (and traceback) of every record.

    A record whose exception holds a secret keeps only the scrubbed traceback text
    (``exc_text``): the exception itself (``exc_info``) is dropped from it."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string is the caller's problem
            return True
        cleaned = scrub(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info:
            raw = record.exc_text or logging.Formatter().formatException(record.exc_info)
            record.exc_text = scrub(raw)
            if record.exc_text != raw:
                # A formatter that formats the exception itself (JSON loggers, structlog) would
                # show it unscrubbed: only the scrubbed text stays, which every formatter prints.
                record.exc_info = None
        elif record.exc_text:
            record.exc_text = scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = scrub(record.stack_info)
        return True


class _Unbreakable(logging.Logger):
    """A logger of the library's (or of the HTTP stack and SDKs its vendor requests go
    through) whose records never raise into the code that logs: an application's handler
    that raises (its own ``emit``, without the standard handlers' ``handleError``) failed the
    call being logged, blamed on its provider, or stopped a background writer."""

    def callHandlers(self, record: logging.LogRecord) -> None:
        try:
            super().callHandlers(record)
        except Exception:  # noqa: BLE001 - whatever the application's handler raises
            # said as logging says a handler's own failure (on stderr, when raiseExceptions is on)
            with contextlib.suppress(Exception):
                (logging.lastResort or logging.Handler()).handleError(record)


def install_log_filter(logger: logging.Logger) -> None:
    """Attach :class:`ScrubFilter` to ``logger`` once."""
    if not any(isinstance(f, ScrubFilter) for f in logger.filters):
        logger.addFilter(ScrubFilter())


#: Loggers of the HTTP stack and the vendor SDKs that may print URLs (with their
#: credentials), headers or request options. A filter applies only to records logged on its
#: own logger, not to those of its children, so each module's logger is named.
THIRD_PARTY_LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "hpack.hpack",
    "hpack.table",
    "urllib3.connectionpool",
    "openai",
    "openai._base_client",
    "parallel",
    "parallel._base_client",
    "parallel._response",
    "firecrawl",
    "tavily",
    "exa_py",
    "ddgs",
    "ddgs.ddgs",
    "ddgs.base",
    "ddgs.http_client",
    "psycopg",
    "psycopg.pool",
    "redis",
    "crawl4ai",
    # Python's warnings, when logging captures them (``logging.captureWarnings(True)``, as the
    # command does): Exa's SDK repeats the notes of an answer that way, in the vendor's words.
    "py.warnings",
)
_installed = False


def install_log_filters() -> None:
    """Scrub the records of :data:`THIRD_PARTY_LOGGERS` (by name: nothing is imported), and
    keep their handlers from failing the request being logged."""
    global _installed
    if _installed:
        return
    for name in THIRD_PARTY_LOGGERS:
        logger = logging.getLogger(name)
        _make_unbreakable(logger)  # the HTTP stack logs each vendor request the library sends
        install_log_filter(logger)
    _installed = True


def get_logger(name: str) -> logging.Logger:
    """A logger whose records are scrubbed (and the HTTP stack's and vendor SDKs' too), and
    whose handlers cannot fail the code that logs."""
    logger = logging.getLogger(name)
    _make_unbreakable(logger)
    install_log_filter(logger)
    install_log_filters()
    return logger


def _make_unbreakable(logger: logging.Logger) -> None:
    if type(logger) is logging.Logger:  # a logger class the application set up is left as it is
        logger.__class__ = _Unbreakable
