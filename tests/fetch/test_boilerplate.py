"""What the markdown of an article keeps and leaves out, on small pages written for the purpose."""

from __future__ import annotations

import time

import pytest
from lxml import html as lxml_html

from webproviders.fetching.boilerplate import drop_teaser_links, drop_unrendered, join_split_body
from webproviders.fetching.extraction import html_document

PAGE_URL = "https://news.example.org/2024/05/bridge-repairs"

BODY = [
    "Traffic will be diverted through the north road, adding about ten minutes to most journeys across the river.",
    "The repairs cost four million and include new steel cables, a widened footpath and lighting along the span.",
    "Engineers found corrosion in the cables last winter, after a routine inspection of the bridge by divers.",
    "Residents can comment on the plans until the end of the month at the town hall or on the council website.",
]
LEAD = "The council voted on Tuesday to close the old bridge for repairs that will last two full years."


def page(article: str, *, head: str = "", after: str = "") -> str:
    return f"""<!doctype html><html lang="en"><head><title>Bridge to close</title>{head}</head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>
<main><article>{article}</article>{after}</main>
<footer><p>All rights reserved.</p></footer></body></html>"""


def paragraphs(texts: list[str]) -> str:
    return "".join(f"<p>{text}</p>" for text in texts)


def markdown(html: str) -> str:
    return html_document(html, PAGE_URL).content


# -- comments --------------------------------------------------------------------------------


def test_comment_section_is_left_out() -> None:
    comments = """<div id="comments" class="comments-area"><h3>3 comments</h3><ol class="comment-list">
<li class="comment"><div class="comment-author">Ann</div><div class="comment-content">
<p>About time they fixed that bridge, it has been shaking for years whenever a lorry goes over it.</p></div></li>
<li class="comment"><div class="comment-author">Bob</div><div class="comment-content">
<p>Ten minutes is optimistic, the north road is already jammed every single morning of the week.</p></div></li>
</ol></div>"""
    content = markdown(page(f"<h1>Bridge to close</h1>{paragraphs(BODY)}{comments}"))
    assert all(text in content for text in BODY)
    assert "shaking for years" not in content
    assert "already jammed" not in content


# -- links to other articles -------------------------------------------------------------------


def test_read_also_line_inside_the_article_is_dropped() -> None:
    teaser = '<p><strong>Read also:</strong> <a href="/2024/04/ferry-timetable">New ferry timetable starts in June</a></p>'
    content = markdown(page(f"<h1>Bridge to close</h1>{paragraphs(BODY[:2])}{teaser}{paragraphs(BODY[2:])}"))
    assert "ferry timetable" not in content.lower()
    assert all(text in content for text in BODY)


def test_list_of_links_to_other_articles_is_dropped() -> None:
    related = """<h2>More from the council</h2><ul>
<li><a href="https://news.example.org/2024/04/budget">Council agrees budget for the coming year</a></li>
<li><a href="https://www.news.example.org/2024/03/parking">Parking charges to rise in the town centre</a></li>
<li><a href="/2024/02/library">Library to open on Sundays from March</a></li></ul>"""
    content = markdown(page(f"<h1>Bridge to close</h1>{paragraphs(BODY)}{related}"))
    for headline in ("agrees budget", "Parking charges", "open on Sundays"):
        assert headline not in content
    assert all(text in content for text in BODY)


def test_links_that_belong_to_the_article_are_kept() -> None:
    sources = (
        '<p>Source: <a href="https://gov.example.com/bridges/report">National bridge survey</a></p>'
        '<p>The <a href="/2024/01/inspection">January inspection</a> found the worst damage near the east pier.</p>'
    )
    content = markdown(page(f"<h1>Bridge to close</h1>{paragraphs(BODY)}{sources}"))
    assert "[National bridge survey](https://gov.example.com/bridges/report)" in content
    assert "[January inspection](https://news.example.org/2024/01/inspection)" in content


@pytest.mark.parametrize(
    "teaser",
    [
        "Read also: [Ferry timetable changes](https://news.example.org/2024/04/ferry)",
        "**Lesen Sie auch:** [Neuer Fahrplan für die Fähre](/2024/04/faehre)",
        "*Read more*: [Ferry timetable changes](/2024/04/ferry)",
        "[Ferry timetable changes](https://www.news.example.org/2024/04/ferry)",
        "- [Ferry timetable changes](/2024/04/ferry)\n- [Parking charges rise](/2024/03/parking)",
        "» [Ferry timetable changes](/2024/04/ferry)",
    ],
)
def test_teaser_blocks_are_removed(teaser: str) -> None:
    before, after = "First paragraph of the story.", "Last paragraph of the story."
    assert drop_teaser_links(f"{before}\n\n{teaser}\n\n{after}", PAGE_URL) == f"{before}\n\n{after}"


@pytest.mark.parametrize(
    "block",
    [
        "[Save the ferry petition](https://petitions.example.net/save-the-ferry)",
        "Source: [National bridge survey](https://gov.example.com/bridges/report)",
        "[Repair plan](https://news.example.org/files/repair-plan.pdf)",
        "Write to [the editor](mailto:letters@news.example.org)",
        "The [January inspection](/2024/01/inspection) found the worst damage near the east pier.",
        "According to the engineers who wrote it: [the report](/2024/01/report)",
        "- [Ferry timetable changes](/2024/04/ferry)\n- Timetables are printed at the harbour office",
        "## [Ferry timetable changes](/2024/04/ferry) and more",
        "#### Boats leave earlier from June\n[Ferry timetable changes](/2024/04/ferry)",
        "[Ferry timetable changes](/2024/04/ferry)\n#### Boats leave earlier\n#### Timetables at the harbour",
        "- [Ferry report](https://gov.example.com/ferry)\n  #### What the ministry found",
    ],
)
def test_blocks_that_are_not_teasers_stay(block: str) -> None:
    text = f"{BODY[0]}\n\n{block}\n\n{BODY[1]}"
    assert drop_teaser_links(text, PAGE_URL) == text


CARD = """<li><a href="{href}" class="thumbnail"><figure><img src="/img/{n}.jpg" alt=""></figure></a>
<div class="headlines"><h3><a href="{href}">{title}</a></h3><h4 class="subline">{standfirst}</h4></div></li>"""
#: The same card as a template engine indents it: trafilatura then writes the standfirst on a line of its own.
INDENTED_CARD = """<li>
        <a href="{href}" class="thumbnail"><figure><img src="/img/{n}.jpg" alt=""></figure></a>
        <div class="headlines">
            <h3>
                <a href="{href}">
                    {title}
                </a>
            </h3>
            <h4 class="subline">{standfirst}</h4>
        </div>
    </li>"""


@pytest.mark.parametrize("card", [CARD, INDENTED_CARD])
def test_cards_of_linked_headlines_with_their_standfirsts_are_dropped(card: str) -> None:
    cards = (
        '<div class="latest-news"><div class="card-title"><span>Our latest stories</span></div><ul>'
        + card.format(n=1, href="/2024/04/ferry", title="Ferry timetable changes", standfirst="Boats leave earlier from the first of June")
        + card.format(n=2, href="/2024/03/parking", title="Parking charges rise", standfirst="The town centre costs more from April on")
        + "</ul></div>"
    )
    content = markdown(page(f"<h1>Bridge to close</h1>{paragraphs(BODY)}{cards}"))
    for text in ("Ferry timetable", "Boats leave earlier", "Parking charges", "costs more from April"):
        assert text not in content
    assert all(text in content for text in BODY)


@pytest.mark.parametrize(
    "cards",
    [
        "- \n    [Ferry timetable changes](/2024/04/ferry)\n    #### Boats leave earlier from June\n- \n"
        "    [Parking charges rise](/2024/03/parking)\n    #### The town centre costs more",
        "[Ferry timetable changes](/2024/04/ferry)\n#### Boats leave earlier from June",
    ],
)
def test_teaser_followed_by_its_standfirst_heading_is_removed(cards: str) -> None:
    before, after = BODY[0], BODY[1]
    assert drop_teaser_links(f"{before}\n\n{cards}\n\n{after}", PAGE_URL) == f"{before}\n\n{after}"


def test_heading_or_label_that_only_introduced_teasers_goes_with_them() -> None:
    story = f"{BODY[0]}\n\n## Background\n\n{BODY[1]}"
    related = "## Related articles\n\n- [Ferry timetable changes](/2024/04/ferry)\n- [Parking charges rise](/2024/03/parking)"
    label = "You may also like:\n\n[Library opens on Sundays](/2024/02/library)"
    assert drop_teaser_links(f"{story}\n\n{related}\n\n{label}", PAGE_URL) == story


def test_page_that_is_mostly_links_to_its_site_keeps_them() -> None:
    index = "# All stories\n\n" + "\n".join(f"- [Story number {n} about the town]({PAGE_URL}/{n})" for n in range(8))
    assert drop_teaser_links(index, PAGE_URL) == index


def test_markdown_without_teasers_is_returned_untouched() -> None:
    text = "Intro.\n\n```\nfirst = 1\n   \n\n\nsecond = 2\n```\n\n## Background\n\n[Source](https://gov.example.com/x)"
    assert drop_teaser_links(text, PAGE_URL) is text


# -- structure ------------------------------------------------------------------------------------


def test_headings_lists_tables_and_links_are_kept() -> None:
    article = (
        "<h1>Bridge to close</h1>" + paragraphs(BODY[:2]) + "<h2>What changes for drivers</h2>"
        "<ul><li>Lorries take the ring road from Monday</li><li>Buses stop at the north bank only</li></ul>"
        "<h3>Timeline</h3><ol><li>Scaffolding goes up in June</li><li>Cables are replaced in autumn</li></ol>"
        '<p>The full plan is on the <a href="https://council.example.gov/plans/bridge">council website</a>, with maps.</p>'
        + paragraphs(BODY[2:])
    )
    content = markdown(page(article))
    assert content.startswith("# Bridge to close")
    assert "## What changes for drivers" in content
    assert "### Timeline" in content
    assert "- Lorries take the ring road from Monday\n- Buses stop at the north bank only" in content
    assert "1. Scaffolding goes up in June" in content
    assert "[council website](https://council.example.gov/plans/bridge)" in content
    assert "Home" not in content and "All rights reserved" not in content


# -- an article body split into parts ---------------------------------------------------------

MORE_BODY = [
    "Shops on the bridge street say they expect fewer customers while the footpath is fenced off for the works.",
    "The council has offered them a reduction in business rates for the two years the repairs are planned to last.",
    "A temporary ferry across the river is being considered for cyclists, with a decision due in the autumn.",
    "The bridge was opened in 1932 and carries about twelve thousand vehicles on an ordinary working day.",
]


def split_article(part_class: str, between: str = '<aside class="ad-rail"><p>Advertisement</p></aside>') -> str:
    parts = [paragraphs(BODY[:2] + MORE_BODY[:2]), paragraphs(BODY[2:]), paragraphs(MORE_BODY[2:])]
    chunks = "".join(f'<div class="grid"><div class="body {part_class}">{part}</div>{between}</div>' for part in parts)
    return f'<h1>Bridge to close</h1><div class="article__chunks">{chunks}</div>'


def test_article_body_split_into_several_containers_is_read_whole() -> None:
    content = markdown(page(split_article("article__body")))
    assert all(text in content for text in BODY + MORE_BODY)
    assert content.index(BODY[0]) < content.index(BODY[2]) < content.index(MORE_BODY[3])
    assert "Advertisement" not in content


def test_posts_with_their_own_titles_are_not_joined() -> None:
    import lxml.html

    posts = "".join(
        f'<article class="post"><h2>Post {n}</h2><div class="entry-content">{paragraphs(BODY)}</div></article>'
        for n in range(3)
    )
    tree = lxml.html.fromstring(f"<html><body><main>{posts}</main></body></html>")
    join_split_body(tree)
    assert [len(post.findall(".//p")) for post in tree.iter("article")] == [4, 4, 4]


def test_short_container_named_like_the_body_is_not_joined() -> None:
    import lxml.html

    caption = '<div class="grid"><div class="article-body"><p>Photo: Council press office</p></div></div>'
    tree = lxml.html.fromstring(
        f'<html><body><div class="wrap"><div class="grid"><div class="article-body">{paragraphs(BODY)}</div></div>'
        f"{caption}</div></body></html>"
    )
    join_split_body(tree)
    first, second = tree.find_class("article-body")
    assert len(first) == 4 and second.text_content() == "Photo: Council press office"


def test_a_page_repeating_the_body_name_many_times_is_a_listing_and_stays_as_it_is() -> None:
    """Dozens of untitled containers named like a body: posts of a feed, never one article."""
    import lxml.html

    cards = "".join(
        f'<div class="grid"><div class="post-content">{paragraphs(BODY)}</div></div>' for _ in range(40)
    )
    tree = lxml.html.fromstring(f'<html><body><div class="feed">{cards}</div></body></html>')
    join_split_body(tree)
    assert [len(card.findall("p")) for card in tree.find_class("post-content")] == [4] * 40


# -- the lead paragraph -------------------------------------------------------------------------


def test_lead_in_the_page_header_is_restored_after_the_title() -> None:
    article = f'<header><h1>Bridge to close</h1><p class="news-teaser-text">{LEAD}</p></header>{paragraphs(BODY)}'
    content = markdown(page(article))
    assert content.count(LEAD) == 1
    assert content.index("# Bridge to close") < content.index(LEAD) < content.index(BODY[0])


def test_lead_shown_from_the_meta_description_is_restored() -> None:
    head = f'<meta name="description" content="{LEAD}">'
    article = f'<h1>Bridge to close</h1><div class="widget-standfirst"><span>{LEAD}</span></div>{paragraphs(BODY)}'
    content = markdown(page(article, head=head))
    assert content.count(LEAD) == 1
    assert content.index(LEAD) < content.index(BODY[0])


def test_description_that_the_page_does_not_show_is_not_added() -> None:
    head = '<meta name="description" content="Everything you need to know about the bridge closure, updated daily by our team.">'
    content = markdown(page(f"<h1>Bridge to close</h1>{paragraphs(BODY)}", head=head))
    assert "Everything you need to know" not in content


def test_relative_links_are_read_against_the_page_and_its_base_address() -> None:
    """trafilatura joins a relative link to the site's root (``install.html`` on
    ``/2024/05/bridge-repairs`` pointed at ``/install.html``); a browser reads it against the
    page, or against its ``<base href>``, as the page's canonical address is read."""
    links = '<p>See <a href="detour.html">the detour</a>, <a href="../maps/">the maps</a> and <a href="?page=2">more</a>.</p>'
    content = markdown(page(f"<h1>Bridge to close</h1>{paragraphs(BODY)}{links}"))
    assert "[the detour](https://news.example.org/2024/05/detour.html)" in content
    assert "[the maps](https://news.example.org/2024/maps/)" in content
    assert "[more](https://news.example.org/2024/05/bridge-repairs?page=2)" in content
    based = page(f"<h1>Bridge to close</h1>{paragraphs(BODY)}{links}", head='<base href="/static/"><link rel="canonical" href="story">')
    document = html_document(based, PAGE_URL)
    assert "[the detour](https://news.example.org/static/detour.html)" in document.content
    assert document.metadata["canonical_url"] == "https://news.example.org/static/story"


def test_lead_whose_markdown_escapes_its_underscores_is_not_repeated() -> None:
    """trafilatura writes the lead's ``snake_case`` as ``snake\\_case``; it was not found
    in the text so, and went in a second time."""
    lead = "Variables are named in snake_case and constants in UPPER_CASE, as the style guide asks."
    head = f'<meta name="description" content="{lead}">'
    content = markdown(page(f"<h1>Bridge to close</h1>{paragraphs([lead, *BODY])}", head=head))
    assert content.count("snake") == 1, content


def test_lead_kept_by_trafilatura_is_not_repeated() -> None:
    head = f'<meta property="og:description" content="{LEAD}">'
    content = markdown(page(f"<h1>Bridge to close</h1>{paragraphs([LEAD, *BODY])}", head=head))
    assert content.count(LEAD) == 1


def test_plain_text_output_gets_the_lead_and_no_markdown() -> None:
    article = f'<header><h1>Bridge to close</h1><p class="news-teaser-text">{LEAD}</p></header>{paragraphs(BODY)}'
    content = html_document(page(article), PAGE_URL, fmt="text").content
    assert content.count(LEAD) == 1
    assert content.index(LEAD) < content.index(BODY[0])
    assert "#" not in content


# -- what is never shown ----------------------------------------------------------------------


def test_template_and_hidden_elements_are_not_page_text() -> None:
    hidden = (
        "<template><p>Subscribe now and read every article of the newspaper for a whole year.</p></template>"
        "<div hidden><p>Your session has expired, please sign in again to keep reading this page.</p></div>"
    )
    content = markdown(page(f"<h1>Bridge to close</h1>{paragraphs(BODY[:2])}{hidden}{paragraphs(BODY[2:])}"))
    assert "Subscribe now" not in content
    assert "session has expired" not in content
    assert all(text in content for text in BODY)


def test_hidden_elements_nested_deep_are_measured_in_one_pass() -> None:
    """Each hidden element's share of the page is read from one walk of the tree: 250 hidden
    elements nested around a megabyte of text take milliseconds, not one walk each."""
    text = "<p>" + "word " * 200 + "</p>"
    tree = lxml_html.fromstring("<html><body>" + "<div hidden>" * 250 + text * 1000 + "</div>" * 250 + "</body></html>")
    started = time.monotonic()
    drop_unrendered(tree)
    assert time.monotonic() - started < 3  # one walk per element: about 15 s here
    assert len(tree.xpath("//div[@hidden]")) == 250  # every one holds the whole page: kept
