"""What kind of page this is, from what the page states about itself and from its address.

Extraction treats kinds differently (:mod:`webproviders.fetching.extraction`): a forum thread
keeps every post, a listing or a collection its items, and a product page states its
product's facts (:mod:`.product`). The signals, strongest first: the schema.org types in the
page's JSON-LD and microdata, its ``og:type``, then its address: a documentation host, words
in its path. Pages
that state nothing are articles, the kind trafilatura is tuned for (``og:type: article`` says
nothing: most sites state it on every page), a site's front page among them: read as a listing,
it lowered the evaluation sets other than the one it was chosen on (docs/performance.md).
The kinds are those of the WCXB benchmark.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any, Literal
from urllib.parse import urlsplit

PageType = Literal["article", "forum", "product", "collection", "listing", "documentation", "service"]

#: schema.org types of one product (or a model, a group of variants, a vehicle).
PRODUCTS = frozenset({"product", "productgroup", "productmodel", "individualproduct", "vehicle", "car"})
#: A page stating this many products is a collection of them.
_MANY_PRODUCTS = 3
#: schema.org types that name a page's kind (the first match in this order wins).
_SCHEMA_TYPES: tuple[tuple[PageType, frozenset[str]], ...] = (
    ("forum", frozenset({"discussionforumposting", "qapage"})),
    ("product", PRODUCTS),
    ("documentation", frozenset({"techarticle", "apireference", "softwaresourcecode"})),
    ("collection", frozenset({"collectionpage", "offercatalog", "searchresultspage"})),
    ("article", frozenset({"article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
                           "opinionnewsarticle", "reviewnewsarticle", "scholarlyarticle", "report", "recipe"})),
    ("service", frozenset({"service", "softwareapplication"})),
)
#: Words in a URL path, matched as whole path segments (or their prefix before a dash).
_URL_WORDS: tuple[tuple[PageType, re.Pattern[str]], ...] = (
    ("forum", re.compile(r"/(?:forums?|threads?|topics?|t|questions|comments|discussions?|community|"
                         r"showthread\.php|viewtopic\.php)(?:/|$|[-.?])", re.IGNORECASE)),
    ("product", re.compile(r"/(?:products?|dp|pdp|itm|item|gp/product|p)/", re.IGNORECASE)),
    ("documentation", re.compile(r"/(?:docs?|documentation|api|reference|manual|learn|guides?|wiki|tutorials?|"
                                 r"howto|handbook|man-pages)(?:/|$)", re.IGNORECASE)),
    ("collection", re.compile(r"/(?:collections?|categor(?:y|ies)|product-category|sub-categories|shop|browse|c|l|"
                              r"cat|catalog|departments?)(?:/|$)", re.IGNORECASE)),
)
#: Host names of documentation sites (``docs.python.org``, ``developer.mozilla.org``).
_DOCS_HOST = re.compile(r"^(?:docs?|developers?|learn|wiki|man7)\.", re.IGNORECASE)
_OG_TYPES: dict[str, PageType] = {"product": "product", "og:product": "product", "product.item": "product",
                                  "product.group": "collection", "product:group": "collection"}
#: JSON-LD blocks read at most (a page can carry hundreds).
_MAX_BLOCKS = 20
_MAX_BLOCK_CHARS = 200_000


def stated_items(value: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every item a JSON-LD value states, outermost first: itself, and what its ``@graph``,
    ``mainEntity`` and ``itemListElement`` hold (nesting and list lengths are bounded)."""
    if depth > 6:
        return
    if isinstance(value, list):
        for item in value[:50]:
            yield from stated_items(item, depth + 1)
    elif isinstance(value, dict):
        yield value
        for key in ("@graph", "mainEntity", "itemListElement"):
            if key in value:
                yield from stated_items(value[key], depth + 1)


def types_of(item: dict[str, Any]) -> list[str]:
    """An item's schema.org types, lower case, without their ``https://schema.org/`` prefix."""
    kind = item.get("@type")
    return [name.rsplit("/", 1)[-1].lower() for name in (kind if isinstance(kind, list) else [kind]) if isinstance(name, str)]


def json_ld(tree: Any) -> list[Any]:
    """The page's JSON-LD blocks that parse (bounded in number and size)."""
    blocks = []
    for script in tree.iterfind(".//script[@type='application/ld+json']"):
        text = (script.text or "").strip()
        if not text or len(text) > _MAX_BLOCK_CHARS:
            continue
        try:
            blocks.append(json.loads(text))
        except (ValueError, RecursionError):  # a block nested past the parser's recursion limit is as unreadable
            continue
        if len(blocks) >= _MAX_BLOCKS:
            break
    return blocks


def stated_types(tree: Any) -> Counter[str]:
    """The schema.org types the page states in JSON-LD or microdata (lower case), counted."""
    types = Counter(name for block in json_ld(tree) for item in stated_items(block) for name in types_of(item))
    for element in tree.iterfind(".//*[@itemtype]"):
        for item in (element.get("itemtype") or "").split():
            types[item.rstrip("/").rsplit("/", 1)[-1].lower()] += 1
    return types


def page_type(tree: Any, url: str) -> PageType:
    """The page's kind (see the module docstring)."""
    types = stated_types(tree)
    if sum(types[name] for name in PRODUCTS) >= _MANY_PRODUCTS:
        return "collection"  # a grid of products, each stating itself
    for kind, names in _SCHEMA_TYPES:
        if not names.isdisjoint(types):
            if kind == "article" and _address_kind(url) == "documentation":
                return "documentation"  # documentation sites state plain Article on every page
            return kind
    og = tree.find(".//meta[@property='og:type']")
    if og is not None and (og.get("content") or "").strip().lower() in _OG_TYPES:
        return _OG_TYPES[(og.get("content") or "").strip().lower()]
    return _address_kind(url) or "article"


def _address_kind(url: str) -> PageType | None:
    """The kind the page's address names (its host or a word of its path), if any."""
    parts = urlsplit(url)
    if _DOCS_HOST.match(parts.hostname or ""):
        return "documentation"
    path = parts.path or "/"
    for kind, words in _URL_WORDS:
        if words.search(path):
            return kind
    return None
