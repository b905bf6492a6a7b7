"""The plugin author's toolkit: base classes and helpers any provider may use.

Built-in plugins import only from ``webproviders`` and ``webproviders.kit``, so everything a
built-in provider uses is here for third-party ones too (docs/writing-a-plugin.md). Names
load on first use: a plugin may import base classes at module level while listing stays
cheap, but should import HTTP and fetching helpers inside the methods that call them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_getattr

_EXPORTS = {
    # base classes
    "VendorProvider": "kit.vendor",
    "endpoint_problem": "kit.vendor",
    "SDKProvider": "kit.sdk",
    "import_packages": "kit.sdk",
    "import_off_loop": "offloop",
    "on_own_loop": "kit.ownloop",
    "within": "asynctimeout",
    "HTMLSearchProvider": "kit.htmlsearch",
    "check_page_status": "kit.htmlsearch",
    "page_text": "kit.htmlsearch",
    # manifest ranks (auto-detect bands)
    "PRIORITY_KEYED": "manifest",
    "PRIORITY_SELF_HOSTED": "manifest",
    "PRIORITY_KEYLESS": "manifest",
    # calling a vendor API on the shared HTTP stack
    "user_agent": "config",
    "proxy_problem": "config",
    "spelled": "config",
    "shared_proxy": "vendorhttp.proxies",
    "Classifier": "responses",
    "get_client": "kit.http",
    "request_json": "kit.http",
    "read_response": "responses",
    "aread_response": "responses",
    "answer_list": "responses",
    "answer_objects": "responses",
    "answer_texts": "responses",
    "sdk_client": "kit.sdkhttp",
    "hand_client": "kit.sdkhttp",
    "ResponseLog": "kit.sdkhttp",
    "response_error": "kit.sdkhttp",
    "transport_error": "kit.sdkhttp",
    # reading a vendor's failures
    "error_for_status": "errors",
    "proxy_refused": "errors",
    "proxy_auth_error": "errors",
    "proxy_error": "errors",
    "socks_handshake_error": "errors",
    "to_provider_error": "errors",
    "quote": "errors",
    "said": "errors",
    "mentions_bad_key": "errors",
    "mentions_no_credit": "errors",
    "retry_after_from_headers": "retry_after",
    "parse_retry_after": "retry_after",
    "warn_unknown": "validate",
    "check_kinds": "validate",
    "TEXT": "validate",
    "TEXTS": "validate",
    "WHOLE": "validate",
    "NUMBER": "validate",
    "SWITCH": "validate",
    "LIST": "validate",
    "SWITCH_OR_TEXT": "validate",
    # building results
    "page_error": "envelope",
    "is_http_url": "urls",
    "host_of": "urls",
    "url_key": "urls",
    "site_query": "kit.query",
    "capped_count": "kit.count",
    "later_page": "kit.paging",
    "language_code": "kit.language",
    "duckduckgo_query": "kit.duckduckgo",
    "duckduckgo_region": "kit.duckduckgo",
    "GOOGLE_SAFE": "kit.google",
    "GOOGLE_TBS": "kit.google",
    "GOOGLE_GL": "kit.google",
    "GOOGLE_HL": "kit.google",
    "google_country": "kit.google",
    "google_interface_language": "kit.google",
    "google_language": "kit.google",
    "google_locale_params": "kit.google",
    "google_organic_hit": "kit.google",
    "google_results_envelope": "kit.google",
    # extract over several URLs
    "fetch_each": "kit.batch",
    "gather_or_cancel": "kit.batch",
    "per_url_error": "kit.batch",
    "settle": "kit.batch",
    "one_item_per_url": "kit.batch",
    "say_empty_pages": "kit.batch",
    "unread_by_deadline": "kit.batch",
    "Pacer": "kit.pacing",
    # safe fetching of URLs that arrive at run time
    "AddressPolicy": "fetching.urlsafety",
    "check_destination_resolved": "fetching.urlsafety",
    "fetch": "fetching.fetch",
    "status_error": "fetching.fetch",
    "cut_short_at": "fetching.fetch",
    "FetchLimits": "fetching.options",
    "time_budget": "fetching.options",
    "EXTRACT_OPTIONS": "fetching.options",
    "CRAWL_OPTIONS": "fetching.options",
    "PageOptions": "fetching.options",
    "render": "fetching.pages",
    "HostLimiter": "fetching.politeness",
    "HostPaused": "fetching.politeness",
    "HostPaced": "fetching.politeness",
    "Crawler": "fetching.crawler",
    "CrawlOptions": "fetching.crawler",
    "worker_environment": "fetching.extractpool",
    "truncate": "envelope",
    "canonicalize": "urls",
    # the page index (what the local provider searches)
    "open_store": "index.stores",
    "PageStore": "index.pages",
    "IndexedPage": "index.pages",
    "Hit": "index.pages",
    "Filters": "index.pages",
    "iso_utc": "index.pages",
    "index_envelope": "index.autofill",
    # secrets: logging with them scrubbed, and one a plugin reads itself made known
    "get_logger": "redact",
    "mask_url": "redact",
    "remember": "redact",
    "url_credentials": "redact",
}

__all__ = list(_EXPORTS)

__getattr__ = lazy_getattr(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from ..asynctimeout import within
    from ..config import proxy_problem, spelled, user_agent
    from ..envelope import page_error, truncate
    from ..errors import (
        error_for_status,
        mentions_bad_key,
        mentions_no_credit,
        proxy_auth_error,
        proxy_error,
        proxy_refused,
        quote,
        said,
        socks_handshake_error,
        to_provider_error,
    )
    from ..fetching.crawler import Crawler, CrawlOptions
    from ..fetching.extractpool import worker_environment
    from ..fetching.fetch import cut_short_at, fetch, status_error
    from ..fetching.options import (
        CRAWL_OPTIONS,
        EXTRACT_OPTIONS,
        FetchLimits,
        PageOptions,
        time_budget,
    )
    from ..fetching.pages import render
    from ..fetching.politeness import HostLimiter, HostPaced, HostPaused
    from ..fetching.urlsafety import AddressPolicy, check_destination_resolved
    from ..index.autofill import index_envelope
    from ..index.pages import Filters, Hit, IndexedPage, PageStore, iso_utc
    from ..index.stores import open_store
    from ..manifest import PRIORITY_KEYED, PRIORITY_KEYLESS, PRIORITY_SELF_HOSTED
    from ..offloop import import_off_loop
    from ..redact import get_logger, mask_url, remember, url_credentials
    from ..responses import (
        Classifier,
        answer_list,
        answer_objects,
        answer_texts,
        aread_response,
        read_response,
    )
    from ..retry_after import parse_retry_after, retry_after_from_headers
    from ..urls import canonicalize, host_of, is_http_url, url_key
    from ..validate import (
        LIST,
        NUMBER,
        SWITCH,
        SWITCH_OR_TEXT,
        TEXT,
        TEXTS,
        WHOLE,
        check_kinds,
        warn_unknown,
    )
    from ..vendorhttp.proxies import shared_proxy
    from .batch import (
        fetch_each,
        gather_or_cancel,
        one_item_per_url,
        per_url_error,
        say_empty_pages,
        settle,
        unread_by_deadline,
    )
    from .count import capped_count
    from .duckduckgo import duckduckgo_query, duckduckgo_region
    from .google import (
        GOOGLE_GL,
        GOOGLE_HL,
        GOOGLE_SAFE,
        GOOGLE_TBS,
        google_country,
        google_interface_language,
        google_language,
        google_locale_params,
        google_organic_hit,
        google_results_envelope,
    )
    from .htmlsearch import HTMLSearchProvider, check_page_status, page_text
    from .http import get_client, request_json
    from .language import language_code
    from .ownloop import on_own_loop
    from .pacing import Pacer
    from .paging import later_page
    from .query import site_query
    from .sdk import SDKProvider, import_packages
    from .sdkhttp import ResponseLog, hand_client, response_error, sdk_client, transport_error
    from .vendor import VendorProvider, endpoint_problem
