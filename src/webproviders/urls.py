"""URL helpers, in one place: what counts as a web address, its host and site, and its spellings.

:func:`canonicalize` gives one spelling per page, so a crawler fetches each page once: the
fragment goes, the host is lower-cased, a default port is dropped, an empty path becomes
``/``, and common tracking parameters (``utm_*``, ``gclid``, ``fbclid``, …) and session ids
(``;jsessionid=``, ``PHPSESSID``) are removed.
Everything else, including the order of the remaining parameters, is kept: some sites
depend on it. :func:`page_identity` goes one step further, to compare pages only (the
crawler's and the page index's one page per URL): spellings that RFC 3986 calls equal
(``%7e``, ``%7E`` and ``~``) are one page, though each is requested as it was written.
Which addresses a fetch may reach is a different question, answered by
:mod:`webproviders.fetching.urlsafety`.
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Any
from urllib.parse import SplitResult, quote, unquote_plus, urljoin, urlsplit, urlunsplit

#: The longest URL taken: one a caller gives, and one a crawl finds on a page or in a sitemap.
#: A longer link is a trap or junk (a query that grows on every page), and 5,000 links under
#: a long ``<base href>`` would otherwise hold gigabytes.
MAX_URL_CHARS = 2_048
_DEFAULT_PORTS = {"http": 80, "https": 443}
TRACKING_PARAMS = frozenset(
    {
        "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "fbclid", "msclkid", "yclid", "twclid",
        "ttclid", "li_fat_id", "igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi",
        "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "wickedid", "srsltid",
    }
)
_TRACKING_PREFIXES = ("utm_", "pk_", "piwik_", "matomo_", "hsa_")
#: Session ids a server writes into its links for a client without cookies, as a crawler is:
#: a new one on every visit puts each page under endless URLs (Java's ``;jsessionid=`` path
#: parameter, PHP's and ColdFusion's query parameters, and those of the shop software that
#: writes its own: osCommerce's ``osCsid``, Zen Cart's ``zenid``).
SESSION_PARAMS = frozenset({"jsessionid", "phpsessid", "aspsessionid", "cfid", "cftoken", "oscsid", "zenid"})
_PATH_SESSION = re.compile(r";(?:jsessionid|phpsessid)=[^;/]*", re.IGNORECASE)
#: A ``.`` or ``..`` path segment (RFC 3986 §5.2.4).
_DOT_SEGMENT = re.compile(r"/\.\.?(?:/|$)")
_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
#: RFC 3986 §2.3: percent-encoding one of these changes nothing.
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
#: Characters a path or a query keeps as they are (RFC 3986 reserved ones, and escapes).
_PATH_SAFE = "/:@!$&'()*+,;=%"
_QUERY_SAFE = _PATH_SAFE + "?"
#: A URL with nothing :func:`page_identity` would change (no escape, nothing to escape).
_ONE_SPELLING = re.compile(r"[A-Za-z0-9\-._~/:@!$&'()*+,;=?]*")


def is_tracking(name: str) -> bool:
    """Whether a query parameter says who sent the reader or which session it is, not which page."""
    key = name.lower()
    return key in TRACKING_PARAMS or key in SESSION_PARAMS or key.startswith(_TRACKING_PREFIXES)


def canonicalize(url: str) -> str:
    """The canonical spelling of an absolute http(s) URL (the input itself if it is not one)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return url
    host = parts.hostname.rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if "@" in parts.netloc:  # kept so the safety check still sees (and refuses) it
        netloc = parts.netloc.rsplit("@", 1)[0] + "@" + netloc
    path = _without_dot_segments(_PATH_SESSION.sub("", parts.path)) or "/"
    return urlunsplit((scheme, netloc, path, _untracked(parts.query), ""))


def _without_dot_segments(path: str) -> str:
    """``path`` with its ``.`` and ``..`` segments resolved (``/a/../b`` is ``/b``), as browsers
    go and httpx sends it: an absolute link keeps them as a template joined its parts."""
    if not _DOT_SEGMENT.search(path) or path.startswith("//"):  # ``//`` would be read as a host
        return path
    return urlsplit(urljoin("http://host/", path)).path


def page_identity(url: str) -> str:
    """What every spelling of one page shares, to tell pages apart (never to request one):
    ``url`` (a canonical URL) with one spelling of percent-escapes, as RFC 3986 §6.2.2 gives
    it: escapes of unreserved characters (letters, digits, ``-._~``) decoded, the others in
    upper case, and characters that must be escaped (non-ASCII, spaces) escaped as UTF-8. So
    ``/a%2fb`` and ``/a%2Fb``, ``/%7Eu`` and ``/~u``, ``/caf%c3%a9`` and ``/café`` are each
    one page. Servers are sent the spelling they linked to."""
    if _ONE_SPELLING.fullmatch(url):
        return url  # most links: splitting and joining them would change nothing
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.scheme not in _DEFAULT_PORTS:
        return url
    path, query = _escapes(parts.path, _PATH_SAFE), _escapes(parts.query, _QUERY_SAFE)
    return urlunsplit((parts.scheme, parts.netloc, path, query, ""))


def pattern_spelling(pattern: str) -> str:
    """``pattern`` (a URL, or a path and query, with wildcards) in the spelling of
    :func:`page_identity`, to be matched against it: ``/wiki/Café*`` and ``/wiki/Caf%c3%a9*``
    name the same links, whichever way a page spells them."""
    return _escapes(pattern, _QUERY_SAFE)


def _escapes(part: str, safe: str) -> str:
    """One spelling of a path or query (see :func:`page_identity`)."""
    part = _ESCAPE.sub(_normal_escape, part)
    part = re.sub(r"%(?![0-9A-F]{2})", "%25", part)
    return quote(part, safe=safe)


def _normal_escape(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else "%" + match.group(1).upper()


#: Python codecs of pages whose links' queries browsers send in UTF-8 (see :func:`query_in_encoding`).
_QUERIES_IN_UTF8 = frozenset({"iso2022_kr", "hz"})


def query_in_encoding(url: str, codec: str) -> str:
    """``url`` as a browser requests it from a page in ``codec`` (a Python codec): the
    non-ASCII characters of its query percent-encoded in the page's encoding, not UTF-8 (the
    URL Standard's encoding override), so a site in Shift_JIS reads ``?q=東京`` as it wrote it.
    A character the encoding lacks is sent as ``&#NNNN;``, as browsers send it. A page in
    ISO-2022-KR or HZ, encodings browsers never decode (the standard's "replacement"), sends UTF-8,
    as a browser does from such a page."""
    if codec.startswith("utf") or codec in _QUERIES_IN_UTF8:
        return url
    parts = urlsplit(url)
    if parts.query.isascii():
        return url
    query = _NOT_ASCII.sub(
        lambda run: quote(run.group(), safe="", encoding=codec, errors="xmlcharrefreplace"), parts.query
    )
    return urlunsplit(parts._replace(query=query))


def _untracked(query: str) -> str:
    """``query`` without its tracking parameters, the others kept byte for byte and in order
    (re-encoding them would make ``q=a%20b`` and ``q=a+b`` two spellings of one page)."""
    pieces = query.split("&")
    kept = [piece for piece in pieces if not is_tracking(unquote_plus(piece.split("=", 1)[0]))]
    return query if len(kept) == len(pieces) else "&".join(kept)


def is_http_url(value: Any) -> bool:
    """True for a string that starts with ``http://`` or ``https://`` (any case)."""
    return isinstance(value, str) and value[:8].lower().startswith(("http://", "https://"))


if sys.version_info >= (3, 11):
    split_url = urlsplit
else:
    #: An IPvFuture literal (RFC 3986 §3.2.2), the other thing brackets may hold.
    _IP_FUTURE = re.compile(r"v[0-9A-Fa-f]+\..+\Z")

    def split_url(url: str) -> SplitResult:
        """:func:`urlsplit`, refusing (``ValueError``) brackets around anything but an IPv6
        or IPvFuture address, as Python 3.11 and newer do: 3.10 read a template's unfilled
        ``https://[site-url]/`` as the host ``site-url``, which a crawl then looked up."""
        import ipaddress

        parts = urlsplit(url)
        if "[" in parts.netloc and "]" in parts.netloc:
            inside = parts.netloc.partition("[")[2].partition("]")[0]
            if inside.startswith("v"):
                if not _IP_FUTURE.match(inside):
                    raise ValueError("IPvFuture address is invalid")
            elif not isinstance(ipaddress.ip_address(inside), ipaddress.IPv6Address):
                raise ValueError("An IPv4 address cannot be in brackets")
        return parts


#: What a URL parser strips from both ends of a URL (WHATWG: C0 controls and space), and
#: what it drops wherever it stands (tab and newline).
_C0_OR_SPACE = "".join(map(chr, range(0x21)))
_TAB_OR_NEWLINE = str.maketrans("", "", "\t\n\r")


def as_parsers_read(href: str, base: str) -> str:
    """``href`` as browsers' URL parser reads it on the page at ``base``: C0 controls and spaces
    at its ends and every tab and newline dropped; on an http(s) page a backslash before the
    query is a slash (``sub\\page.html``, ``\\docs\\intro.html``)."""
    href = href.strip(_C0_OR_SPACE).translate(_TAB_OR_NEWLINE)
    if "\\" in href and base[:5].lower() in ("http:", "https"):
        cut = min((at for at in (href.find("?"), href.find("#")) if at >= 0), default=len(href))
        href = href[:cut].replace("\\", "/") + href[cut:]
    return href


def join_url(base: str, href: str) -> str | None:
    """The address ``href`` names on the page at ``base`` (read as :func:`as_parsers_read`
    says); None when it cannot be parsed. Pages hold such links (a template's unfilled
    ``https://[site-url]/``), and browsers pass them by: one must not cost the reader the page."""
    href = as_parsers_read(href, base)
    try:
        url = urljoin(base, href)
        if "[" in url:
            split_url(url)
        return url
    except ValueError:
        return None


def host_of(url: str) -> str:
    """The lower-cased host name of ``url`` without a final dot; empty when it has none or
    cannot be parsed."""
    try:
        return (split_url(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return ""


@functools.lru_cache(maxsize=4096)
def registrable_domain(host: str) -> str:
    """``docs.example.co.uk`` -> ``example.co.uk`` (public suffix list when available)."""
    host = host.lower().rstrip(".")
    if host.replace(".", "").isdigit() or ":" in host:
        return host  # an address is its own "domain"
    try:
        from tld import get_fld

        found = get_fld(host, fix_protocol=True, fail_silently=True)
    except ImportError:
        found = None
    if found:
        return str(found)
    labels = host.split(".")
    return ".".join(labels[-2:]) if len(labels) > 2 else host


def url_key(url: str) -> str:
    """How a vendor's results are matched to the URLs asked for: case and a final ``/`` ignored."""
    return url.strip().rstrip("/").lower()


def shorten(url: str, limit: int = 100) -> str:
    """``url`` cut to ``limit`` characters (ending in ``...``), to quote in a sentence."""
    return url if len(url) <= limit else url[: limit - 3] + "..."
