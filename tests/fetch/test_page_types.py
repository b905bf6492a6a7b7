"""Extraction by page type: what a forum thread, a documentation page and a hidden page keep,
on small pages written for the purpose; and how a page's type is told."""

from __future__ import annotations

import json

import pytest
from lxml import html as lxml_html

from webproviders.fetching.extraction import html_document
from webproviders.fetching.mdtidy import tidy_markdown
from webproviders.fetching.pagetype import page_type

POSTS = [
    "I bought the new case last week and the front fan rattles at low speed, has anyone else seen this?",
    "Mine did the same until I tightened the four screws behind the front panel, it has been silent since.",
    "Support told me the rattle is a known batch problem and sent a replacement fan within three days.",
    "Thanks everyone, tightening the screws fixed it for me too, no need to wait for a new fan after all.",
]


def shell(body: str, *, head: str = "") -> str:
    return f"""<!doctype html><html lang="en"><head><title>Page</title>{head}</head><body>
<header><nav><a href="/">Home</a> <a href="/forums">Forums</a> <a href="/help">Help</a></nav></header>
{body}
<footer><p>Copyright Example Community. All rights reserved.</p><a href="/privacy">Privacy</a></footer></body></html>"""


def ld(value: dict[str, object]) -> str:
    return f'<script type="application/ld+json">{json.dumps(value)}</script>'


def kind_of(page: str, url: str = "https://example.org/page") -> str:
    return page_type(lxml_html.fromstring(page), url)


# -- telling the type -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "url", "kind"),
    [
        (ld({"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Fan"}), "https://e.org/x", "forum"),
        (ld({"@context": "https://schema.org", "@graph": [{"@type": "QAPage"}]}), "https://e.org/x", "forum"),
        (ld({"@type": ["Product"], "name": "Tent"}), "https://e.org/x", "product"),
        (ld({"@type": "ItemList", "itemListElement": [{"@type": "Product"}, {"@type": "Product"}, {"@type": "Product"}]}),
         "https://e.org/x", "collection"),
        ('<meta property="og:type" content="product.group">', "https://e.org/x", "collection"),
        ('<meta property="og:type" content="article">', "https://e.org/docs/install", "documentation"),
        ("", "https://docs.example.org/guide/start", "documentation"),
        ("", "https://e.org/threads/fan-rattles.1234/", "forum"),
        ("", "https://e.org/collections/tents", "collection"),
        (ld({"@type": "FAQPage", "mainEntity": [{"@type": "Question", "name": "Why?"}]}), "https://e.org/pricing", "article"),
        ("<script type='application/ld+json'>{not json</script>", "https://e.org/2024/05/news", "article"),
    ],
)
def test_page_type_from_structured_data_and_address(head: str, url: str, kind: str) -> None:
    assert kind_of(shell("<p>Text.</p>", head=head), url) == kind


# -- what each type keeps -----------------------------------------------------------------------


def test_every_post_of_a_forum_thread_is_kept() -> None:
    """Forum software marks posts up as comments, which article extraction leaves out."""
    replies = "".join(
        f'<li class="comment" id="comment-{n}"><div class="comment-author">user{n}</div>'
        f'<div class="comment-content"><p>{text}</p></div></li>'
        for n, text in enumerate(POSTS[1:])
    )
    head = ld({"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Front fan rattles"})
    page = shell(
        f'<main><article class="post"><h1>Front fan rattles</h1><p>{POSTS[0]}</p>'
        f'<div id="comments" class="comments-area"><h3>3 replies</h3><ol class="comment-list">{replies}</ol></div>'
        "</article></main>",
        head=head,
    )
    document = html_document(page, "https://forum.example.org/topic/188682-front-fan/")
    assert document.metadata["page_type"] == "forum"
    assert all(post in document.content for post in POSTS)
    assert "All rights reserved" not in document.content


def test_documentation_keeps_code_blocks_and_inline_code_readable() -> None:
    steps = (
        "<p>Create a logger with <code>logger =\nlogging.getLogger(__name__)</code>, and then call its methods "
        "whenever something worth recording happens in the program.</p>"
        "<pre><code>import logging\nlogging.warning('Watch out!')\n</code></pre>"
        "<p>The message is printed on the console, because the default level of the root logger is WARNING "
        "and warnings are at that level.</p>"
        "<table><tr><th>Level</th><th>Value</th></tr><tr><td>DEBUG</td><td>10</td></tr>"
        "<tr><td>WARNING</td><td>30</td></tr></table>"
    )
    page = shell(f"<main><article><h1>Logging HOWTO</h1>{steps}</article></main>")
    document = html_document(page, "https://docs.example.org/3/howto/logging.html")
    assert document.metadata["page_type"] == "documentation"
    content = document.content
    assert "`logger = logging.getLogger(__name__)`, and then call" in content
    assert "```\nimport logging\nlogging.warning('Watch out!')\n```" in content
    assert "| DEBUG | 10 |" in content


def test_article_hidden_until_a_script_shows_it_is_read() -> None:
    body = " ".join(POSTS)
    page = shell(f"<main><div hidden><article><h1>Case review</h1><p>{body}</p><p>{body}</p></article></div>"
                 "<div hidden><p>Your session has expired, please sign in again.</p></div></main>")
    content = html_document(page, "https://example.org/2024/case-review").content
    assert POSTS[0] in content
    assert "session has expired" not in content


# -- the markdown repair ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("broken", "repaired"),
    [
        ("Call it via ```\nlogger =\nlogging.getLogger(name)\n```\n, then log.", "Call it via `logger = logging.getLogger(name)`, then log."),
        ("1. Chapter\n          [About version control](https://e.org/a)", "1. Chapter\n[About version control](https://e.org/a)"),
        ("Example:\n\n```\n    indented = True\n```\nDone.", "Example:\n\n```\n    indented = True\n```\nDone."),
        ("- item\n    - nested item", "- item\n    - nested item"),
    ],
)
def test_tidy_markdown(broken: str, repaired: str) -> None:
    assert tidy_markdown(broken) == repaired
