"""Extraction by page type: what a forum thread, a documentation page, a service page, a
collection and a page with closed panels keep, on pages written for the purpose; how a page's
type is told; and the page text without its furniture that stands in for a page of many parts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from lxml import html as lxml_html

from webproviders import dispatch_extract
from webproviders.config import Config
from webproviders.fetching.extraction import html_document
from webproviders.fetching.mdtidy import tidy_markdown
from webproviders.fetching.pagetext import page_text
from webproviders.fetching.pagetype import page_type

from .fetch_site import PLANNER_FEATURES, PLANNER_STORY, PRINCIPLES

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
        (ld({"@type": "Service", "name": "Email marketing"}), "https://e.org/email-marketing", "service"),
        (ld({"@type": "SoftwareApplication", "name": "Notes"}), "https://e.org/notes", "service"),
        (ld({"@type": ["Product", "SoftwareApplication"], "name": "Notes"}), "https://e.org/notes", "product"),
        # documentation sites state a plain Article on every page: the address says more
        (ld({"@type": "Article", "headline": "Install"}), "https://docs.e.org/guide/install", "documentation"),
        (ld({"@type": "Article", "headline": "Install"}), "https://e.org/docs/install", "documentation"),
        (ld({"@type": "Article", "headline": "Bridge"}), "https://e.org/2024/05/bridge", "article"),
        ("<script type='application/ld+json'>{not json</script>", "https://e.org/2024/05/news", "article"),
        # nested past the JSON parser's recursion limit: before, the whole extraction failed
        ("<script type='application/ld+json'>" + "[" * 100_000 + "</script>" + ld({"@type": "Product", "name": "Tent"}),
         "https://e.org/x", "product"),
        ("", "https://www.e.org/", "article"),  # a front page that states nothing (docs/performance.md)
    ],
)
def test_page_type_from_structured_data_and_address(head: str, url: str, kind: str) -> None:
    assert kind_of(shell("<p>Text.</p>", head=head), url) == kind


# -- what each type keeps -----------------------------------------------------------------------


def test_every_post_of_a_forum_thread_is_kept() -> None:
    """Forum software marks replies up as comments, outside the first post's container:
    article extraction would keep the question and drop every answer."""
    question = (
        f"{POSTS[0]} The case is a mid-tower with three front fans, two of them are quiet and only the "
        "lowest one makes the noise, mostly after the machine has been running for an hour or so."
    )
    replies = "".join(
        f'<li class="comment" id="comment-{n}"><div class="comment-author"><a href="/members/user{n}">user{n}</a>'
        f' said:</div><div class="comment-content"><p>{text}</p></div></li>'
        for n, text in enumerate(POSTS[1:])
    )
    head = ld({"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Front fan rattles"})
    page = shell(
        f'<div class="thread"><article class="post-content"><h1>Front fan rattles</h1><p>{question}</p></article></div>'
        f'<section id="comments" class="comments-area"><h3>3 replies</h3><ol class="commentlist">{replies}</ol></section>',
        head=head,
    )
    document = html_document(page, "https://forum.example.org/topic/188682-front-fan/")
    assert document.metadata["page_type"] == "forum"
    assert all(post in document.content for post in POSTS)
    assert "All rights reserved" not in document.content


WORDS = ("fan", "screw", "panel", "case", "noise", "speed", "batch", "support", "driver", "board", "cable", "power")


def comment_thread(count: int, words: int) -> tuple[list[str], str]:
    """``count`` readers' comments of about ``words`` words each, distinct, and their markup."""
    texts = [
        " ".join(f"{WORDS[(n * 7 + i * 3) % len(WORDS)]}{n}x{i}" for i in range(words)).capitalize() + "."
        for n in range(count)
    ]
    items = "".join(
        f'<li class="comment" id="c-{n}"><div class="comment-byline"><a href="/u/reader{n}">reader{n}</a> 2 hours ago</div>'
        f'<div class="comment-text"><p>{text}</p></div></li>'
        for n, text in enumerate(texts)
    )
    return texts, f'<section id="comments"><ol class="comment-tree">{items}</ol></section>'


def test_a_link_aggregators_thread_keeps_its_discussion() -> None:
    """A thread on a link aggregator states no kind and its address names none: read as an
    article, its text was the title and a byline, and every comment, its content, was dropped."""
    texts, comments = comment_thread(60, 25)
    page = shell(
        '<div class="story"><h1><a href="https://blog.example.com/goals-2024">Project goals for 2024</a></h1>'
        '<p>blog.example.com via scvalex 1 year ago | 60 comments</p></div>' + comments
    )
    assert kind_of(page, "https://links.example.org/s/dwip3v/project_goals_for_2024") == "article"
    document = html_document(page, "https://links.example.org/s/dwip3v/project_goals_for_2024")
    assert document.metadata["page_type"] == "forum"  # how it was read
    assert all(text in document.content for text in texts)
    assert "All rights reserved" not in document.content


def test_a_news_article_with_a_long_comment_section_keeps_only_the_article() -> None:
    """Readers' comments under an article are not its content (annotated sets leave them out),
    even when there are many: only comments that dwarf the text make a page a discussion."""
    paragraphs = [
        f"{name} matters in every report. {text} Auditors check it paragraph {n} of the annual review, "
        f"and the board signs off on it once the figures for quarter {n} are final and published."
        for n, (name, text) in enumerate(PRINCIPLES * 3)
    ]
    texts, comments = comment_thread(60, 25)  # five times the article's words
    head = '<meta property="article:published_time" content="2024-05-02T10:00:00Z">'
    body = "".join(f"<p>{paragraph}</p>" for paragraph in paragraphs)
    page = shell(f"<article><h1>Why the books balance</h1>{body}</article>{comments}", head=head)
    document = html_document(page, "https://news.example.org/2024/05/02/why-the-books-balance")
    assert all(paragraph in document.content for paragraph in paragraphs)
    assert not any(text in document.content for text in texts)
    assert document.metadata["page_type"] == "article"


def test_documentation_keeps_code_blocks_tables_and_inline_code_readable() -> None:
    """Code stays code, and a reference table reads as the names it shows (documentation is
    taken without links, which would wrap every cell in link syntax)."""
    functions = "".join(
        f'<tr><td><a href="/3/library/logging.html#logging.{name}"><code>logging.{name}()</code></a></td>'
        f"<td>Logs a message with level {name.upper()} on the root logger.</td></tr>"
        for name in ("debug", "warning")
    )
    steps = (
        "<p>Create a logger with <code>logger =\nlogging.getLogger(__name__)</code>, and then call its methods "
        "whenever something worth recording happens in the program.</p>"
        "<pre><code>import logging\nlogging.warning('Watch out!')\n</code></pre>"
        "<p>The message is printed on the console, because the default level of the root logger is WARNING "
        "and warnings are at that level.</p>"
        "<table><tr><th>Level</th><th>Value</th></tr><tr><td>DEBUG</td><td>10</td></tr>"
        "<tr><td>WARNING</td><td>30</td></tr></table>"
        f"<p>Each level has a function of its own:</p><table><tr><th>Function</th><th>Use</th></tr>{functions}</table>"
    )
    page = shell(f"<main><article><h1>Logging HOWTO</h1>{steps}</article></main>")
    document = html_document(page, "https://docs.example.org/3/howto/logging.html")
    assert document.metadata["page_type"] == "documentation"
    content = document.content
    assert "`logger = logging.getLogger(__name__)`, and then call" in content
    assert "```\nimport logging\nlogging.warning('Watch out!')\n```" in content
    assert "| DEBUG | 10 |" in content
    assert "| `logging.debug()` | Logs a message with level DEBUG on the root logger. |" in content


def test_article_hidden_until_a_script_shows_it_is_read() -> None:
    body = " ".join(POSTS)
    page = shell(f"<main><div hidden><article><h1>Case review</h1><p>{body}</p><p>{body}</p></article></div>"
                 "<div hidden><p>Your session has expired, please sign in again.</p></div></main>")
    content = html_document(page, "https://example.org/2024/case-review").content
    assert POSTS[0] in content
    assert "session has expired" not in content



def test_content_hidden_until_a_script_shows_it_is_read_beside_a_large_script() -> None:
    """A page streamed by its framework: the content arrives in a hidden element that a script
    moves into place, beside the page's data in a script many times the text's size. Most of
    the text a reader sees is the hidden element, whatever the scripts hold."""
    body = " ".join(POSTS)
    data = json.dumps({"props": {"posts": [{"id": n, "text": body} for n in range(20)]}})
    page = shell(
        f'<main><div id="loading">Loading…</div></main><div hidden id="S:0"><article><h1>Case review</h1>'
        f"<p>{body}</p><p>{body}</p></article></div>"
        f'<script id="__NEXT_DATA__" type="application/json">{data}</script>'
    )
    content = html_document(page, "https://example.org/2024/case-review").content
    assert POSTS[0] in content and POSTS[3] in content

FEATURES = [
    ("Send campaigns that land", "Write once and reach every inbox, with templates that look right on any screen."),
    ("Automate the follow-up", "Welcome series, abandoned carts and birthday notes go out on their own."),
    ("Know what works", "Open rates, clicks and sales per campaign, side by side in one report."),
    ("Grow your audience", "Sign-up forms and landing pages that feed straight into your lists."),
    ("Switch in an afternoon", "Import contacts and templates from your old tool with guided migration."),
    ("Send text messages too", "Reach customers by SMS from the same lists, with the same reports."),
    ("Test before you send", "Try two subject lines on a slice of your list and send the winner to the rest."),
    ("Help when you need it", "Chat with a person any time of day, on every plan, in six languages."),
]
TESTIMONIAL = (
    "<blockquote><p>We moved our shop newsletter over in a week and doubled the number of repeat orders within "
    "three months, mostly thanks to the automated follow-up emails that now go out without anyone on the team "
    "having to remember them, and the reports finally tell us which products people click on.</p><p>Before that "
    "we spent every Friday afternoon copying addresses between spreadsheets and guessing what to send next.</p>"
    "</blockquote><p>Dana Reyes, owner of a small tea shop</p>"
)


def test_service_page_keeps_every_section() -> None:
    """A service page is a hero and many short feature sections beside one long testimonial:
    trafilatura keeps the testimonial alone, the page's text keeps them all."""
    sections = "".join(
        f'<section class="feature"><h2>{title}</h2><p>{text}</p><a href="/features/{n}">Learn more</a></section>'
        for n, (title, text) in enumerate(FEATURES)
    )
    hero = ('<section class="hero"><h1>Email marketing for growing shops</h1><p>Everything you need to reach '
            'customers, in one place.</p><a class="button" href="/signup">Start free</a></section>')
    head = ld({"@context": "https://schema.org", "@type": "Service", "name": "Email marketing"})
    page = shell(f'<main>{hero}{sections}<section class="story">{TESTIMONIAL}</section></main>', head=head)
    document = html_document(page, "https://www.example.com/email-marketing")
    assert document.metadata["page_type"] == "service"
    content = document.content
    assert all(f"## {title}\n\n{text}" in content for title, text in FEATURES)
    assert content.startswith("# Email marketing for growing shops")
    assert "Dana Reyes" in content
    assert "Privacy" not in content and "All rights reserved" not in content  # footer
    assert "Forums" not in content  # navigation


TENTS = [
    ("Ridge 2", "A two-person backpacking tent with two doors and a freestanding frame."),
    ("Dome 4", "Room for four, stands up in five minutes, and sheds rain with a full-coverage fly."),
    ("Summit Bivy", "A one-person shelter for alpine starts, under a kilo with its poles."),
    ("Family Cabin 6", "Tall walls, a room divider and a porch for muddy boots."),
    ("Trail Tarp", "A flat tarp with twelve tie-outs that pitches with trekking poles."),
    ("Canopy Shelter", "Shade for the beach or the campsite, with sand pockets on every leg."),
    ("Hammock Tent", "Sleep off the ground between two trees, with a bug net and a rain fly."),
    ("Winter Dome 3", "Four-season fabric and snow flaps for nights on the glacier."),
    ("Pop-up Festival", "Throw it in the air and it stands; folds back into a flat disc."),
    ("Ultralight 1", "Single wall, one pole, and it packs down to the size of a water bottle."),
    ("Basecamp 8", "A group tent with three rooms and a vestibule big enough for a table."),
    ("Beach Pod", "A quick sun shelter with a floor and vents on both sides."),
]


def test_collection_keeps_its_items_and_leaves_out_the_filter_panel() -> None:
    """A category page: a filter panel, a grid of item cards (each one link) and a buying guide
    below. trafilatura takes the cards for link boilerplate and keeps the guide alone; the page's
    text keeps every card's name and blurb."""
    cards = "".join(
        f'<div class="product-card"><a href="/products/{n}"><h3>{name}</h3><p>{blurb}</p>'
        f'<span class="price">${100 + 10 * n}.00</span></a><button>Add to cart</button></div>'
        for n, (name, blurb) in enumerate(TENTS)
    )
    brands = "".join(f'<label><input type="checkbox" name="brand"> {brand} (12)</label>'
                     for brand in ("Northwind", "Alpinist", "Campfire"))
    filters = f'<aside class="filters"><h2>Filter</h2><form><fieldset><legend>Brand</legend>{brands}</fieldset></form></aside>'
    guide = (
        '<section class="guide"><h2>Choosing a tent</h2><p>The right tent depends on where you camp and how you '
        "travel. Backpackers count every gram and favour light shelters with few poles, while families driving to "
        "a campsite can bring tall cabins with room to stand, a porch and a divider between sleeping areas.</p>"
        "<p>Look at the weather you expect as well: a full-coverage fly and a bathtub floor keep the rain out, and "
        "mesh panels keep the air moving on warm nights.</p></section>"
    )
    page = shell(f'<main><h1>Tents</h1>{filters}<div class="product-grid">{cards}</div>{guide}</main>')
    document = html_document(page, "https://shop.example.org/collections/tents")
    assert document.metadata["page_type"] == "collection"
    content = document.content
    assert all(f"### {name}\n\n{blurb}" in content for name, blurb in TENTS)
    assert "$150.00" in content and "Choosing a tent" in content
    assert "Northwind" not in content and "Add to cart" not in content


HOMES = [
    ("2 Elm Court", "a three-bedroom ranch on a quiet cul-de-sac, with a new roof, a fenced yard and a two-car garage."),
    ("118 Pyramid Way", "a renovated townhouse near the lake trail, with an open kitchen, two baths and a private patio."),
    ("57 Sierra Vista Drive", "a hillside home with mountain views from every room, solar panels and a finished basement."),
    ("940 Prater Lane", "a starter home close to the schools and the park, with hardwood floors and a sunny breakfast nook."),
]
NEARBY = ["Reno", "Sun Valley", "Spanish Springs", "Verdi", "Fernley", "Carson City", "Dayton", "Minden", "Gardnerville",
          "Truckee", "Incline Village", "Washoe Valley", "Cold Springs", "Lemmon Valley", "Silver Springs", "Fallon",
          "Virginia City", "Stead", "Golden Valley", "Wadsworth"]
ZIPS = ["89431", "89434", "89436", "89441", "89502", "89506", "89509", "89511", "89521", "89523", "89501", "89503"]
HOME_TYPES = ["Condos", "Townhouses", "Land", "Multi-family", "New construction", "Open houses", "Price reduced",
              "Luxury", "Pool", "Waterfront", "Single-story", "Fixer-upper", "55+ communities"]


def test_collection_whose_main_text_the_baseline_confirms_keeps_it_without_the_link_lists() -> None:
    """A city's homes for sale: an introduction and every listing in paragraphs, which
    trafilatura keeps, then long lists of links to other searches. The page's text is more
    than twice as long, but trafilatura's baseline finds as many words as its main text: the
    main text is the content, and the link lists stay out."""
    listings = "".join(f'<div class="home"><p><b>{address}</b>: {text}</p></div>' for address, text in HOMES)
    intro = ("<p>Sparks sits just east of Reno along the Truckee River, and its neighbourhoods range from older "
             "ranch homes near Victorian Square to new subdivisions in the foothills to the north.</p>")
    searches = "".join(
        f'<div class="links"><h4>{heading}</h4><ul>'
        + "".join(f'<li><a href="/{word.lower().replace(" ", "-")}">{word} homes for sale</a></li>' for word in words)
        + "</ul></div>"
        for heading, words in (("Nearby cities", NEARBY), ("Zip codes", ZIPS), ("Home types", HOME_TYPES))
    )
    head = ld({"@context": "https://schema.org", "@type": "CollectionPage", "name": "Sparks homes"})
    page = shell(f'<div class="content"><h1>Sparks, NV homes for sale</h1>{intro}<div class="results">{listings}'
                 f"</div></div>{searches}", head=head)
    document = html_document(page, "https://homes.example.org/city/sparks-nv")
    assert document.metadata["page_type"] == "collection"
    content = document.content
    assert all(address in content and text in content for address, text in HOMES)
    assert "Victorian Square" in content
    assert "Nearby cities" not in content and "Fernley homes for sale" not in content and "89509" not in content


def test_closed_tab_and_accordion_panels_are_kept_and_other_hidden_text_is_not() -> None:
    """A reader opens a tab or an accordion panel (its button names it in ``aria-controls``);
    a hidden message nothing opens is not page text."""
    questions = [
        ("Can I cancel at any time?", "Yes, cancel from your account page and you are not billed again."),
        ("Do you offer refunds?", "Within thirty days of purchase we refund the full price, no questions asked."),
        ("Is there a student discount?", "Students get half off every plan with a valid university email address."),
    ]
    faq = "".join(
        f'<div class="accordion__item"><h3><button aria-expanded="false" aria-controls="faq-{n}">{question}</button></h3>'
        f'<div id="faq-{n}" class="accordion__panel" hidden><p>{answer}</p></div></div>'
        for n, (question, answer) in enumerate(questions)
    )
    intro = " ".join(text for _, text in FEATURES)
    page = shell(f'<main><article><h1>Plans and pricing</h1><p>{intro}</p><h2>Questions</h2>{faq}'
                 '<div hidden><p>Your session has expired, please sign in again.</p></div></article></main>')
    content = html_document(page, "https://www.example.com/2024/plans-and-pricing").content
    assert all(answer in content for _, answer in questions)
    assert "session has expired" not in content



def test_undated_page_that_states_no_type_keeps_its_lists(site: Any, local: Config) -> None:
    """An undated page that states no kind is often a service or a listing built from many
    blocks: trafilatura's recall reading keeps the list its default drops. A dated article keeps
    the default reading, whose precision serves articles."""
    urls = [site.url("/services/gaap-compliance"), site.url("/2024/05/gaap-compliance")]
    envelope = dispatch_extract(urls, backend="http", config=local, timeout=60)
    assert envelope["success"] is True, envelope
    undated, dated = (item["content"] for item in envelope["data"])
    for name, text in PRINCIPLES:
        assert f"- **Principle of {name}:** {text}" in undated
    assert "monthly statements" in undated and "assembled and reported objectively" in undated
    assert "Contact" not in undated  # the header's links
    assert "assembled and reported objectively" in dated
    assert "Principle of" not in dated


def test_undated_page_of_sections_is_read_whole(site: Any, local: Config) -> None:
    """An undated features page stating no kind: a hero, a dozen cards side by side and a
    customer story in an ``<article>``, which trafilatura keeps alone (a fifth of the page).
    The page's own text stands in, every card with its heading, the menus and footer still
    out. The same page with a date is read as an article: the story alone."""
    urls = [site.url("/features"), site.url("/2024/05/features")]
    envelope = dispatch_extract(urls, backend="http", config=local, timeout=60)
    assert envelope["success"] is True, envelope
    undated, dated = (item["content"] for item in envelope["data"])
    for title, text in PLANNER_FEATURES:
        assert f"## {title}" in undated and text in undated
    assert "# The planner for busy teams" in undated and PLANNER_STORY[0] in undated
    assert "Pricing" not in undated and "Copyright" not in undated
    assert PLANNER_STORY[0] in dated
    assert not any(text in dated for _, text in PLANNER_FEATURES)


HEADLINES = "".join(
    f"<li><a href='/news/{n}'>Story {n} about the harbour, the schools and the weather this week</a></li>"
    for n in range(40)
)
COMMENTS = "".join(
    f"<div class='comment' id='comment-{n}'><p class='comment-author'>Reader {n}</p><div class='comment-body'>"
    "<p>Lovely write-up, we did the same walk in May and loved every day of it.</p></div></div>"
    for n in range(20)
)


@pytest.mark.parametrize(
    ("title", "story", "beside", "url", "left_out"),
    [
        pytest.param(
            "Rail yard to become a park",
            [
                "The city council voted on Tuesday to turn the old rail yard into a park, ending a decade of "
                "arguments over whether the land should hold offices, homes or trees.",
                "Work on the first section, a meadow along the river, begins in the spring, and the council expects "
                "the whole park to open within four years if the state grant arrives on time.",
                "Residents who had campaigned for the park filled the chamber and applauded when the vote was read out.",
            ],
            f"<div class='more'><h2>More news</h2><ul>{HEADLINES}</ul></div>",
            "https://news.example.com/rail-yard-park",
            ("Story 7 about the harbour", "More news"),
            id="beside-a-list-of-headlines",
        ),
        pytest.param(
            "Three days on the coast path",
            [
                "We spent the long weekend walking the coast path from the lighthouse to the old harbour, about "
                "forty kilometres in three easy days.",
                "The first day was the hardest, with steep steps down to every cove, but the views from the headland "
                "made up for each one of them.",
                "On the last morning the fog lifted just as we reached the harbour, and we ate breakfast on the wall.",
            ],
            f"<div class='comments'><h2>Comments</h2>{COMMENTS}</div>",
            "https://blog.example.com/coast-path",
            ("Reader 3", "Lovely write-up"),
            id="with-a-comment-section",
        ),
    ],
)
def test_undated_story_keeps_its_article_when_its_page_text_would_bring_teasers_or_comments(
    title: str, story: list[str], beside: str, url: str, left_out: tuple[str, ...]
) -> None:
    """An undated story whose page's text is four to six times the story keeps its article
    when that text is mostly list items (forty other stories' headlines in the page, not in
    its navigation: the teasers a news page carries) or when the page has a comment section
    (twenty readers' comments, 50 or more elements named for comments, which the page text
    would bring)."""
    article = f"<article><h1>{title}</h1>" + "".join(f"<p>{p}</p>" for p in story) + "</article>"
    document = html_document(shell(f"<div class='page'>{article}{beside}</div>"), url)
    assert document.metadata["date"] is None and document.metadata["page_type"] == "article"
    assert all(paragraph in document.content for paragraph in story)
    assert not any(text in document.content for text in left_out)


# -- the page's text without its furniture ------------------------------------------------------


def test_page_text_leaves_out_navigation_banners_footers_and_overlays() -> None:
    page = shell(
        '<header class="site-header"><a href="/">Example</a><p>Free shipping over $50</p></header>'
        '<div class="cookie-banner"><p>We use cookies to improve your visit.</p><button>Accept</button></div>'
        '<main><h1>Our services</h1><p>We repair bicycles of every make.</p><ul><li>Tune-ups</li><li>Wheel truing</li></ul>'
        "<table><tr><td>Tune-up</td><td>$60</td></tr></table></main>"
        '<div class="site-footer-links"><a href="/jobs">Jobs</a></div>'
    )
    text = page_text(lxml_html.fromstring(page))
    assert text == "# Our services\n\nWe repair bicycles of every make.\n\n- Tune-ups\n\n- Wheel truing\n\nTune-up $60"


def test_page_text_keeps_furniture_that_holds_the_whole_page() -> None:
    """Some sites wrap the whole page in a ``<form>`` (or leave a ``<header>`` unclosed): that is the page."""
    body = " ".join(text for _, text in FEATURES)
    page = shell(f'<form id="aspnetForm"><div class="content"><h1>Opening hours</h1><p>{body}</p></div></form>')
    text = page_text(lxml_html.fromstring(page))
    assert text.startswith("# Opening hours") and FEATURES[-1][1] in text
    assert "Forums" not in text


# -- the markdown repair ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("broken", "repaired"),
    [
        ("Call it via ```\nlogger =\nlogging.getLogger(name)\n```\n, then log.", "Call it via `logger = logging.getLogger(name)`, then log."),
        ("1. Chapter\n          [About version control](https://e.org/a)", "1. Chapter\n[About version control](https://e.org/a)"),
        ("Example:\n\n```\n    indented = True\n```\nDone.", "Example:\n\n```\n    indented = True\n```\nDone."),
        ("- item\n    - nested item", "- item\n    - nested item"),
        # trafilatura fences code holding a ``` line with ````: one block, left as it is
        (
            "Intro.\n\n````\nIn the README:\n```python\n    print(1)\n```\n````\nThen this.\n\n```\n    return 2\n```",
            "Intro.\n\n````\nIn the README:\n```python\n    print(1)\n```\n````\nThen this.\n\n```\n    return 2\n```",
        ),
        # a command wrapped into a list item's text is inline code; the next item stays an item
        ("1. Install it:```\npip install foo\n    --upgrade\n```\n2. Run it.", "1. Install it: `pip install foo --upgrade`\n2. Run it."),
    ],
)
def test_tidy_markdown(broken: str, repaired: str) -> None:
    assert tidy_markdown(broken) == repaired


def test_page_text_escapes_the_pages_own_markup_and_keeps_code_as_it_is() -> None:
    """A page's ``*pro*`` is its words, not emphasis, and ``# of sites`` no heading; a
    ``<pre>`` keeps its lines and indentation (YAML means something else without them)."""
    page = shell(
        "<main><h1>Plans</h1><p>Plan_1 *pro* for [teams]</p><p># of sites is per account</p>"
        "<pre>server:\n    port: 80\n```\n</pre><ul><li>1. first</li></ul></main>"
    )
    text = page_text(lxml_html.fromstring(page))
    assert text == (
        "# Plans\n\nPlan\\_1 \\*pro\\* for \\[teams\\]\n\n\\# of sites is per account\n\n"
        "````\nserver:\n    port: 80\n```\n````\n\n- 1\\. first"
    )
