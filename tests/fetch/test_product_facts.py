"""A product page's stated facts (``metadata.product``): read from a shop's JSON-LD or
microdata, served by a local site and read through the ``http`` provider, and shown to a
model beside the page's text."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from lxml import html as lxml_html

from webproviders import dispatch_extract
from webproviders.agents.formatting import format_results
from webproviders.config import Config
from webproviders.fetching.extraction import html_document
from webproviders.fetching.product import MAX_FACT_CHARS, product_facts


def ld(*values: object) -> str:
    return "".join(f'<script type="application/ld+json">{json.dumps(value)}</script>' for value in values)


def facts(head: str = "", body: str = "<p>Text.</p>") -> dict[str, str]:
    return product_facts(lxml_html.fromstring(f"<html><head>{head}</head><body>{body}</body></html>"))


def test_a_shops_product_pages_state_their_price_stock_and_rating(site: Any, local: Config) -> None:
    urls = [site.url("/products/trail-tent"), site.url("/products/desk-lamp"), site.url("/articles/caching")]
    envelope = dispatch_extract(urls, backend="http", config=local, timeout=60)
    assert envelope["success"] is True, envelope
    tent, lamp, article = envelope["data"]
    assert tent["metadata"]["page_type"] == "product"
    assert tent["metadata"]["product"] == {
        "name": "Trail Tent 2P", "brand": "Acme Outdoor", "sku": "TT-2", "gtin": "4006381333931",
        "price": "249", "currency": "EUR", "availability": "InStock", "rating": "4.6", "review_count": "1234",
    }
    assert "pitches in four minutes" in tent["content"]  # the text is read as before
    assert lamp["metadata"]["product"] == {
        "name": "Lumo Desk Lamp", "brand": "Lumo", "price": "39.50", "currency": "USD", "availability": "OutOfStock",
    }
    assert "product" not in article["metadata"]
    shown = format_results(envelope, style="markdown")
    assert "Product: Trail Tent 2P · by Acme Outdoor · 249 EUR · InStock · rated 4.6 (1234 reviews)" in shown
    assert "Product: Lumo Desk Lamp · by Lumo · 39.50 USD · OutOfStock" in shown
    assert shown.count("Product:") == 2


def test_a_shop_page_over_the_html_budget_keeps_its_text_and_its_stated_facts(
    site: Any, config_for: Callable[..., Config]
) -> None:
    """An app-built shop page carries hundreds of KB of script state, styles, icons and comments
    before its text. Cut at the HTML budget as it came, it kept only its head: the description
    and the price were lost. Those parts are set aside first, the JSON-LD kept."""
    config = config_for(allow_private_networks=True, extraction={"max_html_chars": 100_000})
    envelope = dispatch_extract(site.url("/products/trail-tent-app"), backend="http", config=config)
    assert envelope["success"] is True, envelope
    [tent] = envelope["data"]
    assert "pitches in four minutes" in tent["content"] and "Rated 4.6 of 5" in tent["content"]
    assert "review 7999" not in tent["content"] and "margin" not in tent["content"]
    assert tent["metadata"]["product"]["price"] == "249" and tent["metadata"]["page_type"] == "product"
    assert "html_truncated" not in tent["metadata"] and "warnings" not in envelope["meta"]


def test_an_aggregate_offer_gives_its_price_range() -> None:
    offer = {"@type": "AggregateOffer", "lowPrice": "2.98", "highPrice": "79.98", "priceCurrency": "GBP", "offerCount": 3}
    assert facts(ld({"@type": "Product", "name": "Sunflower seeds", "offers": offer})) == {
        "name": "Sunflower seeds", "low_price": "2.98", "high_price": "79.98", "currency": "GBP",
    }


def test_a_group_of_variants_gives_its_first_priced_variant() -> None:
    group = {
        "@type": "ProductGroup", "name": "Wool Runner", "brand": "Allbirds",
        "hasVariant": [
            {"@type": "Product", "name": "Wool Runner 9", "offers": {"@type": "Offer", "availability": "SoldOut"}},
            {"@type": "Product", "name": "Wool Runner 10",
             "offers": [{"@type": "Offer", "price": "110.00", "priceCurrency": "USD", "availability": "http://schema.org/InStock"}]},
        ],
    }
    assert facts(ld(group)) == {
        "name": "Wool Runner", "brand": "Allbirds", "price": "110.00", "currency": "USD", "availability": "InStock",
    }


def test_a_price_specification_stands_in_for_a_missing_price() -> None:
    offer = {"@type": "Offer", "priceSpecification": {"@type": "UnitPriceSpecification", "price": 12.5, "priceCurrency": "CHF"}}
    assert facts(ld({"@type": "Product", "name": "Chocolate", "offers": offer})) == {
        "name": "Chocolate", "price": "12.5", "currency": "CHF",
    }


def test_values_that_are_not_facts_are_left_out_and_long_ones_cut() -> None:
    item = {
        "@type": "Product", "name": "  A\n  very   long name " + "x" * 500, "sku": True, "mpn": ["M-1"],
        "offers": {"@type": "Offer", "price": float("nan"), "priceCurrency": {"code": "USD"}},
        "aggregateRating": {"ratingValue": 5, "ratingCount": "76"},
    }
    found = facts(ld(item))
    assert found["name"].startswith("A very long name x") and found["name"].endswith("…")
    assert len(found["name"]) == MAX_FACT_CHARS
    assert found == {"name": found["name"], "rating": "5", "review_count": "76"}


def test_what_the_page_states_first_wins_and_broken_markup_is_passed_over() -> None:
    head = "<script type='application/ld+json'>{not json</script>" + ld(
        {"@type": "Organization", "name": "Shop"}, {"@type": ["Product", "Thing"], "name": "Kettle", "offers": {"price": "30"}},
        {"@type": "Product", "name": "Cup"},
    )
    assert facts(head) == {"name": "Kettle", "price": "30"}
    # JSON-LD first; microdata when the page states its product only there
    microdata = '<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Teapot</span></div>'
    assert facts(ld({"@type": "Product", "name": "Kettle"}), microdata) == {"name": "Kettle"}
    assert facts("", microdata) == {"name": "Teapot"}


@pytest.mark.parametrize(
    "head",
    [
        "",
        ld({"@type": "Article", "headline": "Tents compared", "offers": {"price": "10"}}),
        ld({"@type": "Product", "description": "Neither a name nor a price."}),
    ],
)
def test_a_page_without_a_named_or_priced_product_states_none(head: str) -> None:
    assert facts(head) == {}


def test_only_a_page_read_as_a_product_carries_its_facts() -> None:
    product = ld({"@type": "Product", "name": "Tent", "offers": {"price": "249"}})
    body = "<article><h1>Tent</h1><p>" + "A tent for three seasons that pitches in four minutes. " * 8 + "</p></article>"
    page = f"<html><head>{product}</head><body>{body}</body></html>"
    assert html_document(page, "https://shop.example/tent").metadata["product"] == {"name": "Tent", "price": "249"}
    # three stated products make a collection: none of them is the page's
    grid = ld(*({"@type": "Product", "name": f"Tent {n}"} for n in range(3)))
    assert "product" not in html_document(f"<html><head>{grid}</head><body>{body}</body></html>", "https://shop.example/tents").metadata


def test_microdata_reads_each_property_from_its_own_item() -> None:
    body = """<div itemscope itemtype="https://schema.org/Product">
<meta itemprop="sku" content="L-1"><a itemprop="url" href="/lamp">Lamp</a>
<span itemprop="name">Lamp</span>
<div itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating">
  <span itemprop="ratingValue">4.1</span> from <span itemprop="reviewCount">87</span> reviews
  <div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Not this lamp</span></div></div>
<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
  <span itemprop="price">19.00</span><meta itemprop="priceCurrency" content="EUR"></div></div>"""
    assert facts("", body) == {
        "name": "Lamp", "sku": "L-1", "price": "19.00", "currency": "EUR", "rating": "4.1", "review_count": "87",
    }
