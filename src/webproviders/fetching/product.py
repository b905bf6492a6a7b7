"""What a product page states about its product: name, brand, codes, price, availability, rating.

A shop states these in schema.org markup for search engines (JSON-LD, or microdata on older
themes), often more exactly than its visible text, which may build the price with a script.
They are read from that markup only, never guessed from the text, and given as the page
states them (a price is the text ``"19.99"``, its currency a separate ``"USD"``), so that a
reader or a model can quote them. Every value is one line of at most :data:`MAX_FACT_CHARS`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from .pagetype import PRODUCTS, json_ld, stated_items, types_of

#: A stated value longer than this is cut (a name or a brand is a line, not a page).
MAX_FACT_CHARS = 200
#: Properties read at most in one microdata item (a page can hold thousands).
_MAX_PROPS = 500
#: Nesting of microdata items followed (the product, its offer, the offer's price specification).
_MAX_DEPTH = 3
_SPACE = re.compile(r"\s+")
#: Where a tag keeps its microdata value when it has no ``content`` attribute.
_VALUE_ATTRIBUTE = {"meta": "content", "a": "href", "link": "href", "area": "href", "img": "src", "source": "src",
                    "time": "datetime", "data": "value", "meter": "value"}
_GTINS = ("gtin", "gtin13", "gtin12", "gtin14", "gtin8")


def product_facts(tree: Any) -> dict[str, str]:
    """The facts the page's first stated product gives (JSON-LD first, then microdata); empty
    when it states none, or one with neither a name nor a price."""
    item = next(_json_ld_products(tree), None)
    if item is None:
        item = _microdata_product(tree)
    facts = _facts(item) if item is not None else {}
    return facts if "name" in facts or "price" in facts or "low_price" in facts else {}


def _json_ld_products(tree: Any) -> Iterator[dict[str, Any]]:
    for block in json_ld(tree):
        for item in stated_items(block):
            if not PRODUCTS.isdisjoint(types_of(item)):
                yield item


def _facts(item: dict[str, Any]) -> dict[str, str]:
    facts: dict[str, str] = {}

    def put(key: str, value: Any) -> None:
        text = _text(value)
        if text and key not in facts:
            facts[key] = text

    put("name", item.get("name"))
    brand = _first(item.get("brand"))
    put("brand", brand.get("name") if isinstance(brand, dict) else brand)
    for key in ("sku", "mpn"):
        put(key, item.get(key))
    for key in _GTINS:
        put("gtin", item.get(key))
    offer = _offer(item)
    if offer is not None:
        spec = _first(offer.get("priceSpecification"))
        spec = spec if isinstance(spec, dict) else {}
        put("price", offer.get("price"))
        put("price", spec.get("price"))
        put("low_price", offer.get("lowPrice"))
        put("high_price", offer.get("highPrice"))
        put("currency", offer.get("priceCurrency"))
        put("currency", spec.get("priceCurrency"))
        availability = _text(offer.get("availability"))
        put("availability", availability.rstrip("/").rsplit("/", 1)[-1])  # https://schema.org/InStock
    rating = _first(item.get("aggregateRating"))
    if isinstance(rating, dict):
        put("rating", rating.get("ratingValue"))
        put("review_count", rating.get("reviewCount"))
        put("review_count", rating.get("ratingCount"))
    return facts


def _offer(item: dict[str, Any]) -> dict[str, Any] | None:
    """The item's first offer with a price; for a group of variants without one, its first
    variant's. An aggregate offer is one (its low and high prices)."""
    candidates = [*_list(item.get("offers"))]  # a copy: the page's own list is left as it was
    for variant in _list(item.get("hasVariant"))[:20]:
        if isinstance(variant, dict):
            candidates += _list(variant.get("offers"))
    offers = [offer for offer in candidates[:50] if isinstance(offer, dict)]
    priced = (offer for offer in offers if any(key in offer for key in ("price", "lowPrice", "priceSpecification")))
    return next(priced, offers[0] if offers else None)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


def _first(value: Any) -> Any:
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _text(value: Any) -> str:
    """A stated value as one line of text; a number in its shortest form (``8700.0`` as ``8700``)."""
    if isinstance(value, bool):
        return ""
    if isinstance(value, float):
        if not math.isfinite(value):
            return ""
        value = int(value) if value.is_integer() else repr(value)
    if isinstance(value, int):
        value = str(value)  # a 300-digit integer (1e300 written out) is cut as text is
    if not isinstance(value, str):
        return ""
    text = _SPACE.sub(" ", value).strip()
    return text if len(text) <= MAX_FACT_CHARS else text[: MAX_FACT_CHARS - 1].rstrip() + "…"


def _microdata_product(tree: Any) -> dict[str, Any] | None:
    for element in tree.iterfind(".//*[@itemtype]"):
        if element.get("itemscope") is None:
            continue
        names = {kind.rstrip("/").rsplit("/", 1)[-1].lower() for kind in (element.get("itemtype") or "").split()}
        if not PRODUCTS.isdisjoint(names):
            return _microdata_item(element, 0)
    return None


def _microdata_item(scope: Any, depth: int) -> dict[str, Any]:
    """A microdata item's properties: each ``itemprop`` below ``scope`` and outside any item
    nested in it, its value an item of its own when it opens one (an offer, a brand, a rating)."""
    properties: dict[str, Any] = {}
    waiting, read = list(reversed(scope)), 0
    while waiting and read < _MAX_PROPS:
        element = waiting.pop()
        names, opens = element.get("itemprop"), element.get("itemscope") is not None
        if names:
            read += 1
            if opens:
                value: Any = _microdata_item(element, depth + 1) if depth < _MAX_DEPTH else None
            else:
                value = _microdata_value(element)
            for name in names.split():
                properties.setdefault(name, value)
        if not opens:  # a nested item's properties are its own
            waiting.extend(reversed(element))
    return properties


def _microdata_value(element: Any) -> str:
    content = element.get("content")
    if content is not None:
        return content
    attribute = _VALUE_ATTRIBUTE.get(element.tag if isinstance(element.tag, str) else "")
    if attribute is not None and element.get(attribute) is not None:
        return element.get(attribute)
    return element.text_content()
