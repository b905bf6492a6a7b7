"""The HTML budget (``web.extraction.max_html_chars``): a page over it loses its scripts,
styles, drawings and comments before any of its text, and is read in one pass whatever it holds.

Through a fetch, the shop page of ``test_product_facts`` shows the same; these pages are
written out here so that each rule of what a browser shows has its own case.
"""

from __future__ import annotations

import pytest

from webproviders.fetching.extraction import html_document
from webproviders.fetching.htmlbudget import fit_html

PADDING = 20_000


def over_budget(html: str) -> str:
    """``html`` read under a budget it exceeds by :data:`PADDING` characters of script."""
    padded = html.replace("</head>", "<script>" + "x" * PADDING + "</script></head>")
    text, cut = fit_html(padded, len(padded) - PADDING // 2)
    assert not cut
    return text


def test_a_page_within_the_budget_is_parsed_as_it_came() -> None:
    html = "<html><head><script>var a = 1;</script></head><body><p>Text</p><!-- note --></body></html>"
    assert fit_html(html, len(html)) == (html, False)


def test_a_page_over_the_budget_keeps_its_text_and_its_json_ld() -> None:
    html = (
        '<html><head><script type="application/ld+json">{"@type": "Product", "name": "Tent"}</script>'
        "<style>p { color: red }</style><!-- <script>in a comment</script> --></head>"
        '<body><svg viewBox="0 0 8 8"><text>icon label</text></svg><p>First paragraph.</p>'
        "<SCRIPT type=module>render()</Script ><p>Second paragraph.</p></body></html>"
    )
    text = over_budget(html)
    assert "First paragraph." in text and "Second paragraph." in text
    assert '{"@type": "Product", "name": "Tent"}' in text
    for hidden in ("color: red", "in a comment", "icon label", "render()", "xxxx"):
        assert hidden not in text


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ('<p>Before.</p><svg class="icon"/><p>After a self-closed icon.</p>', "After a self-closed icon."),
        ("<p>Before.</p><svg><p>After a drawing never closed.</p>", "After a drawing never closed."),
        ("<p>Before.</p><!--><p>After an empty comment.</p><!-- -->", "After an empty comment."),
        ("<p>Before.</p><script-loader><p>Inside a custom element.</p></script-loader>", "Inside a custom element."),
        ("<p>Before.</p><stylesheet-list><p>In another one.</p></stylesheet-list>", "In another one."),
    ],
)
def test_text_a_browser_shows_is_kept(body: str, shown: str) -> None:
    text = over_budget(f"<html><head></head><body>{body}</body></html>")
    assert shown in text and "Before." in text


def test_a_script_never_closed_runs_to_the_end_as_in_a_browser() -> None:
    text = over_budget("<html><head></head><body><p>Shown.</p><script>state = {<p>Not shown.</p></body></html>")
    assert "Shown." in text and "Not shown." not in text


def test_a_page_still_over_the_budget_is_cut_and_says_so() -> None:
    html = "<html><body>" + "<p>Paragraph of text.</p>" * 1_000 + "<script>x</script></body></html>"
    text, cut = fit_html(html, 10_000)
    assert cut and len(text) == 10_000 and text.startswith("<html><body><p>Paragraph of text.</p>")


@pytest.mark.parametrize(
    "hostile",
    ["<svg>" * 300_000, "<!--" * 300_000, "<script>" * 300_000, "<svg/>" * 200_000, "<!-->" * 200_000],
)
def test_a_page_of_unclosed_openings_is_read_in_one_pass(hostile: str) -> None:
    """Each opening searched the rest of the page for its end: 300,000 unclosed ``<svg>`` took
    minutes. One search per kind of element now; the page is then cut as any other."""
    text, _ = fit_html("<p>Lead.</p>" + hostile, 1_000)
    assert text.startswith("<p>Lead.</p>") and len(text) <= 1_000


def test_the_page_read_over_the_budget_is_the_page_read_whole() -> None:
    """What is set aside is what extraction leaves out anyway: the text is the same."""
    paragraphs = "".join(f"<p>Paragraph {n} of the story, with enough words to count as text.</p>" for n in range(30))
    html = (
        "<html><head><title>Story</title><script>" + "var s = 1;" * 5_000 + "</script><style>a{}</style></head>"
        f"<body><svg><path d='M0 0'/></svg><article><h1>Story</h1>{paragraphs}</article><!-- end --></body></html>"
    )
    lean, cut = fit_html(html, 10_000)
    assert not cut
    assert html_document(lean, "https://example.org/story").content == html_document(html, "https://example.org/story").content
