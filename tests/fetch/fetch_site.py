"""A small, realistic web site served by a real HTTP server on 127.0.0.1, and a canary.

Article pages carry navigation, a cookie banner, a sidebar and a footer around the main
text, the way real sites do; other paths cover robots.txt, a sitemap, redirects (also to
internal addresses), a windows-1252 page declared only in a meta tag, a 20 MB body, a slow
page, a PNG, a PDF, a 404 and a 500.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import lzma
import random
import re
import struct
import threading
import time
import zlib
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

NAV = """
<header class="site-header">
  <div class="cookie-banner">We use cookies to improve your experience. <a href="/cookies">Cookie settings</a> <button>Accept all</button></div>
  <nav class="main-nav"><ul>
    <li><a href="/">Home</a></li><li><a href="/articles/caching">Caching</a></li>
    <li><a href="/articles/retries">Retries</a></li><li><a href="/docs/">Documentation</a></li>
    <li><a href="/about">About us</a></li><li><a href="/careers">Careers</a></li>
    <li><a href="/contact">Contact sales</a></li><li><a href="/pricing">Pricing plans</a></li>
  </ul></nav>
</header>
"""

FOOTER = """
<aside class="sidebar"><h3>Popular this week</h3><ul>
  <li><a href="/articles/retries">Why your retries make outages worse</a></li>
  <li><a href="/docs/a">Getting started in five minutes</a></li>
  <li><a href="/newsletter">Subscribe to our newsletter for weekly tips</a></li></ul></aside>
<footer class="site-footer"><p>Copyright 2024 Example Corp. All rights reserved.</p>
  <p><a href="/privacy">Privacy policy</a> | <a href="/terms">Terms of service</a> | <a href="/imprint">Imprint</a></p></footer>
"""


def page(title: str, body: str, *, head: str = "", lang: str = "en") -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"><title>{title} | Example Engineering Blog</title>'
        f"{head}</head><body>{NAV}<main>{body}</main>{FOOTER}</body></html>"
    )


CACHING = page(
    "Caching in practice",
    """
<article>
<h1>Caching in practice</h1>
<p class="byline">By Jane Doe, March 5, 2024</p>
<p>Caching keeps recently used answers close to the code that needs them, so that repeated
requests are served in microseconds instead of milliseconds. This article walks through the
decisions that matter when you add a cache to a real service.</p>
<h2>Choosing what to cache</h2>
<p>Start with the answers that are expensive to compute and cheap to store. A product page that
joins six tables is a good candidate; a user's shopping basket, which changes every few seconds,
usually is not. Measure the hit ratio before and after: a cache that rarely hits only adds latency.</p>
<ul><li>Expensive queries with stable answers</li><li>Rendered fragments shared by many users</li>
<li>Responses from slow third-party services</li></ul>
<h2>Expiry and invalidation</h2>
<p>Every entry needs a time to live. Short lifetimes bound how stale an answer can be; explicit
invalidation after a write keeps hot entries fresh. See <a href="/articles/retries">the retry guide</a>
for what happens when the cache itself is down, and the <a href="https://external.example/ttl">external
TTL reference</a> for typical values.</p>
<pre><code>def get_product(product_id):
    cached = cache.get(product_id)
    if cached is None:
        cached = load_product(product_id)
        cache.set(product_id, cached, ttl=60)
    return cached
</code></pre>
<table><tr><th>Layer</th><th>Typical TTL</th></tr><tr><td>CDN</td><td>5 minutes</td></tr>
<tr><td>Application</td><td>60 seconds</td></tr></table>
<p>With these rules in place the cache becomes a dependable part of the system rather than a
source of mysterious stale data.</p>
</article>
""",
    head='<meta name="description" content="How to add a cache to a service without stale data.">'
    '<meta name="author" content="Jane Doe"><link rel="canonical" href="/articles/caching">'
    '<meta property="article:published_time" content="2024-03-05T09:00:00Z">'
    '<meta property="og:site_name" content="Example Engineering">',
)

RETRIES = page(
    "Retries without outages",
    """
<article><h1>Retries without outages</h1>
<p>Retrying a failed request feels safe, but a fleet of clients retrying at once can keep a
struggling service down for hours. Exponential backoff with jitter spreads the retries out so the
service has room to recover.</p>
<p>Cap the number of attempts, and make every retried operation idempotent, so that a request that
did succeed the first time does no harm when it arrives again. Read the
<a href="/docs/deep/c">deep dive on idempotency keys</a> for the details.</p>
<p>Finally, watch the retry rate itself: a sudden rise is often the first sign of trouble upstream.</p>
</article>""",
)

DOCS_INDEX = page(
    "Documentation",
    """<h1>Documentation</h1><p>Everything you need to run the service in production is collected
on these pages, from the first install to tuning for heavy traffic.</p>
<ul><li><a href="/docs/a">Getting started</a></li><li><a href="/docs/b">Configuration reference</a></li>
<li><a href="/readme.md">The read-me file</a></li></ul>""",
)
DOCS_A = page("Getting started", "<article><h1>Getting started</h1><p>Install the package, write a small configuration file and start the server; the whole process takes about five minutes on a fresh machine.</p></article>")
DOCS_B = page(
    "Configuration reference",
    '<article><h1>Configuration reference</h1><p>Every setting has a sensible default; the ones you will change first are the listen address and the cache size. See <a href="/docs/deep/c">the advanced notes</a>.</p></article>',
)
DOCS_C = page("Advanced notes", "<article><h1>Advanced notes</h1><p>Idempotency keys let a server recognise a repeated request and answer it from the record of the first attempt instead of doing the work twice.</p></article>")
ORPHAN = page("Orphan page", "<article><h1>Orphan page</h1><p>This page is listed in the sitemap but no other page links to it, which is how sitemap seeding is noticed.</p></article>")
SECRET = page("Private area", "<article><h1>Private area</h1><p>The private area holds internal planning notes that robots are asked not to crawl.</p></article>")
NOFOLLOW = page(
    "Do not follow",
    '<article><h1>Do not follow</h1><p>This page asks robots not to follow its links, and a polite crawler leaves them alone.</p><p><a href="/docs/a">Getting started</a></p></article>',
    head='<meta name="robots" content="nofollow">',
)

PRINCIPLES = [
    ("Regularity", "Regularity is defined as conformity to enforced rules and laws."),
    ("Consistency", "Accountants apply the same methods and procedures from one period to the next."),
    ("Sincerity", "The accounts reflect in good faith the reality of the company's financial status."),
    ("Prudence", "Income is recorded when it is earned and losses as soon as they are likely."),
]


def widget_page(head: str = "") -> str:
    """A service page from a site builder: every heading and text block in its own layout row,
    no ``<main>``, no stated type; the list of principles is what the page offers."""

    def row(inner: str) -> str:
        return ('<div class="row-fluid-wrapper"><div class="row-fluid"><div class="span12 widget-span">'
                f'<div class="cell-wrapper">{inner}</div></div></div></div>')

    principles = "".join(f"<li><strong>Principle of {name}:</strong> {text}</li>" for name, text in PRINCIPLES)
    rows = "".join([
        row("<h2>Accounting best practices for your business</h2>"),
        row("<p>Financial accounting information must be assembled and reported objectively. When you rely on our "
            "outsourced accounting service, you have the right to be assured that your figures are free from bias and "
            "inconsistency, whether deliberate or not, and that they follow the accepted principles.</p>"
            "<p>Every report we prepare states whether the information in the statements complies with them.</p>"
            f"<p><strong>The principles we follow:</strong></p><ul>{principles}</ul>"),
        row("<h2>Why choose us</h2>"),
        row("<p>We coordinate with your bank and your tax adviser and prepare monthly statements that your board can "
            "read in ten minutes, with a call each month to walk through the figures.</p>"),
    ])
    return f"""<!doctype html><html lang="en"><head><title>GAAP compliance</title>{head}</head><body>
<div class="header"><a href="/">Home</a> <a href="/services">Services</a> <a href="/contact">Contact</a></div>
<div class="body-container">{rows}</div>
<div class="footer"><p>Copyright Example Accounting.</p></div></body></html>"""


SERVICE_UNDATED = widget_page()
SERVICE_DATED = widget_page('<meta property="article:published_time" content="2024-05-02T10:00:00Z">')

#: A product's features, each a card with a heading and a line, side by side.
PLANNER_FEATURES = [
    ("Plan your week in minutes", "Drag tasks onto any day of the calendar and the planner moves the rest of your week around them."),
    ("Share lists with your team", "Invite colleagues to a shared list, assign each task to one person and see who finished what."),
    ("Reminders that find you", "Get a reminder on your phone, your watch or your desktop at the moment a task is due."),
    ("Works offline", "Every change you make on a plane or in a tunnel is kept on your device and sent once you are back online."),
    ("Bring your calendar", "Connect the calendars you already use and see meetings and tasks side by side, coloured by project."),
    ("Private by design", "Your lists are encrypted on your device before they reach the servers, where nobody can read them."),
    ("Templates for every team", "Start from a board made for sales, support, hiring or events and change it to fit the way you work."),
    ("Recurring tasks", "Set a task to come back every Monday, every month or every second Friday and never write it again."),
    ("Comments on every task", "Talk about the work where it lives, with files, mentions and a history of every change."),
    ("Focus mode", "Hide everything but today's tasks and a timer, and let the planner hold your notifications until you are done."),
    ("Reports for managers", "See how much each project moved this week and which tasks have waited longest, without asking anyone."),
    ("Import in one click", "Bring your lists from spreadsheets and other planners with their due dates, owners and comments intact."),
]
#: A customer story, the one part of the features page that is written like an article.
PLANNER_STORY = [
    "Northwind's support team of forty moved from spreadsheets to the planner in a single weekend, and by the end of "
    "the first month every open ticket had an owner and a due date that the whole team could see.",
    "Their lead says the biggest change was not speed but calm: nobody asks any more who is handling what, because the "
    "answer is on the shared board, and the weekly status meeting was cancelled for good.",
    "A year on, the team closes tickets in half the time it took before, and two other departments have asked to join.",
]


def features_page(head: str = "") -> str:
    """A product's features page: a hero, a dozen feature cards side by side and a customer
    story in an ``<article>``, which is the block trafilatura takes for the main text."""
    cards = "".join(f'<div class="feature"><div class="card"><h2>{title}</h2><p>{text}</p></div></div>'
                    for title, text in PLANNER_FEATURES)
    story = "<article class='story'><h3>Customer story</h3>" + "".join(f"<p>{p}</p>" for p in PLANNER_STORY) + "</article>"
    return f"""<!doctype html><html lang="en"><head><title>Planner features</title>{head}</head><body>
<header><nav><ul><li><a href="/">Home</a></li><li><a href="/pricing">Pricing</a></li></ul></nav></header>
<div class="page"><div class="hero"><h1>The planner for busy teams</h1><p>One place for every task, list and
reminder your team has, on every device you own, free for up to five people.</p></div>{cards}{story}</div>
<footer><p>Copyright Example Planner.</p></footer></body></html>"""


FEATURES_UNDATED = features_page()
FEATURES_DATED = features_page('<meta property="article:published_time" content="2024-05-02T10:00:00Z">')

#: A shop's product page: its price and stock stated in JSON-LD (in a ``@graph`` beside the
#: breadcrumbs, as shop themes write it), the visible price built by a script.
TENT = page(
    "Trail Tent 2P",
    """<article><h1>Trail Tent 2P</h1>
<p>A two-person tent for three seasons: it pitches in four minutes, weighs 1.9 kg packed and
stands through wind that flattens domes twice its weight. The fly and the inner tent pitch
together, so the inner stays dry when you set up in the rain.</p>
<p class="price" data-sku="TT-2"></p><script>document.querySelector('.price').textContent = '€249'</script>
<h2>Reviews</h2><p>Rated 4.6 of 5 by 1,234 campers.</p></article>""",
    head='<script type="application/ld+json">'
    + json.dumps({
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "BreadcrumbList", "itemListElement": [{"@type": "ListItem", "position": 1, "name": "Tents"}]},
            {"@type": "Product", "name": "Trail Tent 2P", "brand": {"@type": "Brand", "name": "Acme Outdoor"},
             "sku": "TT-2", "gtin13": "4006381333931",
             "offers": {"@type": "Offer", "price": 249.0, "priceCurrency": "EUR",
                        "availability": "https://schema.org/InStock"},
             "aggregateRating": {"@type": "AggregateRating", "ratingValue": 4.6, "reviewCount": 1234}},
        ],
    })
    + "</script>",
)
#: The tent's page as an app-built shop serves it: ahead of its text, its scripts' state (about
#: 300 KB of JSON), a stylesheet, SVG icons and build comments, with the JSON-LD among them.
TENT_APP = TENT.replace(
    "</head>",
    '<script id="__NEXT_DATA__" type="application/json">'
    + json.dumps({"props": {"reviews": [{"id": n, "text": f"review {n} of the tent"} for n in range(8_000)]}})
    + "</script><style>" + "".join(f".c{n}{{margin:{n}px}}" for n in range(3_000)) + "</style><!-- build 7f3a -->"
    + "</head>",
).replace(
    "<main>",
    "".join(f'<svg viewBox="0 0 24 24"><path d="M{n} 0L{n} 24Z"/></svg><!-- icon {n} -->' for n in range(400)) + "<main>",
)
#: An older shop theme's product page, stated in microdata: a review beside it is an item of
#: its own, whose name is not the product's.
LAMP = page(
    "Desk lamp",
    """<div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Lumo Desk Lamp</h1>
<p itemprop="description">A desk lamp with a warm dimmable light and a weighted base that does not tip
when you swing the arm over a drawing board.</p>
<div itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Lumo</span></div>
<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="priceCurrency" content="USD">$</span>
<span itemprop="price" content="39.50">39.50</span><link itemprop="availability" href="https://schema.org/OutOfStock">
<span>Out of stock</span></div>
<div itemscope itemtype="https://schema.org/Review"><span itemprop="name">Bright enough for night work</span></div>
</div>""",
)

#: A board in Shift_JIS whose link carries Japanese in its query, which the site reads as
#: Shift_JIS, as browsers send it from such a page.
BOARD_HTML = (
    '<!DOCTYPE html><html lang="ja"><head><meta charset="shift_jis"><title>掲示板</title></head><body>'
    "<main><article><h1>掲示板</h1><p>東京の話題を集めた掲示板です。下のリンクから検索結果を見てください。"
    "投稿は毎日更新され、地域の行事や交通の情報が寄せられています。</p>"
    '<ul><li><a href="/board/search?q=東京&amp;page=1">東京の検索</a></li></ul></article></main></body></html>'
).encode("cp932")
BOARD_RESULTS_HTML = (
    '<!DOCTYPE html><html lang="ja"><head><meta charset="shift_jis"><title>検索結果</title></head><body>'
    "<main><article><h1>検索結果: 東京</h1><p>東京に関する投稿が三件見つかりました。新しい順に並んでいます。"
    "投稿者の名前を押すと、その人の他の投稿も見られます。</p></article></main></body></html>"
).encode("cp932")

ENCODING_HTML = (
    '<!DOCTYPE html><html lang="fr"><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
    "<title>Caf\u00e9 cr\u00e8me</title></head><body>" + NAV + "<main><article><h1>Caf\u00e9 cr\u00e8me \u2013 \u00e0 la fran\u00e7aise</h1>"
    "<p>Le caf\u00e9 cr\u00e8me co\u00fbte 3\u00a0\u20ac au comptoir, et l\u2019on dit \u201cmerci\u201d en partant. "
    "Ce texte est assez long pour \u00eatre retenu comme contenu principal de la page par l\u2019extracteur.</p>"
    "<p>Les gar\u00e7ons de caf\u00e9 parisiens sont r\u00e9put\u00e9s pour leur efficacit\u00e9 et leur franc-parler l\u00e9gendaire.</p>"
    "</article></main>" + FOOTER + "</body></html>"
).encode("cp1252")


def home(port: int) -> str:
    return page(
        "Example Engineering Blog",
        f"""<h1>Example Engineering Blog</h1>
<p>Notes from the team that runs the example service: caching, retries and how we operate it.</p>
<ul>
<li><a href="/articles/caching">Caching in practice</a></li>
<li><a href="/articles/caching?utm_source=home&amp;utm_medium=list#top">Caching in practice (tracked link)</a></li>
<li><a href="/articles/retries">Retries without outages</a></li>
<li><a href="/docs/">Documentation</a></li>
<li><a href="/private/secret">Private area</a></li>
<li><a href="/nofollow">A page that says nofollow</a></li>
<li><a href="/redirect/article">Caching in practice (old address)</a></li>
<li><a href="/missing">A page that was removed</a></li>
<li><a href="/image.png">Our logo</a></li>
<li><a href="http://blog.site.test:{port}/articles/retries">The same article on our blog host</a></li>
<li><a href="http://other.test:{port}/docs/a">A partner site</a></li>
<li><a href="mailto:team@example.com">Write to us</a></li>
</ul>""",
    )


def sitemap(port: int, host: str) -> bytes:
    base = f"http://{host}"
    urls = ["/", "/articles/caching", "/orphan", "/docs/a"]
    # A page's picture, as image sitemaps list them: an address of no page (a shop's photo).
    photo = f"<image:image><image:loc>{base}/media/photo/1</image:loc></image:image>"
    entries = "".join(f"<url><loc>{base}{u}</loc>{photo if u == '/orphan' else ''}</url>" for u in urls)
    return (
        '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        f'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">{entries}</urlset>'
    ).encode()


#: The sitemap a host's robots.txt names, where it is not /sitemap.xml.
SITEMAPS = {
    "gz.site.test": "/sitemap.xml.gz",
    "gzbomb.site.test": "/sitemap-bomb.xml.gz",
    "nomap.site.test": "/articles/caching",  # a page, not a sitemap
    "bigmap.site.test": "/sitemap-big.xml",
    "loopmap.site.test": "/sitemap-loop.xml",
    "badloc.site.test": "/sitemap-badloc.xml",
    "relloc.site.test": "/maps/index.xml",
    "slowmaps.site.test": "/sitemap-slow-index.xml",
    "hugemap.site.test": "/sitemap-huge.xml",
    "wideindex.site.test": "/sitemap-wide-index.xml",
}


def big_sitemap(host: str) -> bytes:
    """A sitemap of 20,000 pages, as large sites list them (the protocol allows 50,000), and one
    more page after them."""
    listed = [f"/listed/{n}" for n in range(20_000)] + ["/orphan"]
    entries = "".join(f"<url><loc>http://{host}{path}</loc></url>" for path in listed)
    return f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'.encode()


@functools.cache
def huge_sitemap() -> bytes:
    """20 MB of short entries (the protocol allows 50 MB): seconds of parsing."""
    return b"<urlset>" + b"<url><loc>http://x.test/</loc></url>" * 540_000 + b"</urlset>"


@functools.cache
def sitemap_bomb() -> bytes:
    """A gzip file of 16 KB that expands to 16 MB of sitemap."""
    return gzip.compress(b"<urlset>" + b" " * (16 << 20) + b"</urlset>")


#: A robots.txt of the size some large sites serve, each rule a pattern: ``/private/`` among them.
BIG_ROBOTS = ("User-agent: *\nDisallow: /private/\n" + "".join(
    f"Disallow: /archive/{n}/*/print.php$\n" for n in range(20_000))).encode()
ROBOTS = b"""# robots for the example site
User-agent: *
Disallow: /private/
Allow: /private/public

User-agent: BadBot
Disallow: /
"""


def png_bytes() -> bytes:
    """A valid 1x1 PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")


def pdf_bytes(*texts: str) -> bytes:
    """A minimal valid PDF with a title, one page per text (by default one page of a report)."""
    texts = texts or ("Quarterly report: revenue grew by twelve percent.",)
    kids = " ".join(f"{5 + 2 * i} 0 R" for i in range(len(texts)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(texts)} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title (Quarterly report) /Author (Finance team) >>",
    ]
    for number, text in enumerate(texts):
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {6 + 2 * number} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream")
    return pdf_file(objects)


def pdf_file(objects: list[bytes]) -> bytes:
    """A PDF of ``objects`` (numbered from 1; the first the catalog, the fourth the document
    information), with its cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 4 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def aes_pdf_bytes() -> bytes:
    """:func:`pdf_bytes` encrypted with AES-128 under an owner password only: anyone may open it."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes())))
    writer.encrypt(user_password="", owner_password="owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


BIG_SIZE = 20 * 1024 * 1024



#: Feeds as blogs and podcast hosts publish them.
FEED_RSS = """<?xml version="1.0" encoding="windows-1252"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>
<title>Café notes</title><link>https://blog.example/</link><description>Notes on &lt;b&gt;espresso&lt;/b&gt; — weekly</description>
<item><title>Grinding “fine”</title><link>https://blog.example/grinding</link><pubDate>Tue, 10 Nov 2026 09:00:00 GMT</pubDate>
<description>&lt;p&gt;How fine to grind &lt;a href="/beans"&gt;the beans&lt;/a&gt; for a 25 s shot.&lt;/p&gt;</description></item>
<item><title>Descaling</title><link>https://blog.example/descaling</link>
<content:encoded><![CDATA[<h2>Why it matters</h2><p>Scale narrows the boiler's pipes.</p>]]></content:encoded></item>
</channel></rss>"""
FEED_ATOM = """<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Release notes</title>
<entry><title>Version 2.0</title><link rel="edit" href="https://example.org/edit/2"/><link rel="alternate" href="https://example.org/releases/2.0"/>
<updated>2026-11-01T00:00:00Z</updated><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Faster <b>start-up</b>.</p></div></content></entry>
</feed>"""
#: Atom's text constructs as their type says: plain text by default (a code blog's ``Vec<T>``), or escaped HTML.
FEED_ATOM_TEXT = """<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<title type="html">Rust &lt;i&gt;notes&lt;/i&gt;</title><subtitle>Where a&lt;b holds</subtitle>
<entry><title>Generics</title><link href="https://example.org/generics"/>
<summary>Use Vec&lt;T&gt; for a list; write &lt;br&gt; to break a line.</summary></entry>
<entry><title type="html">A &lt;em&gt;new&lt;/em&gt; start</title><link href="https://example.org/start"/>
<content type="html">&lt;p&gt;Begin &lt;b&gt;here&lt;/b&gt;.&lt;/p&gt;</content></entry>
</feed>"""
#: An RSS 1.0 feed, RDF with every element in the RSS namespace, as Slash and older CMSs publish.
FEED_RDF = """<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://news.example/"><title>Site news</title><link>https://news.example/</link><description>What changed</description></channel>
<item rdf:about="https://news.example/2026/moved"><title>We moved</title><link>https://news.example/2026/moved</link><dc:date>2026-11-02</dc:date></item>
<item rdf:about="https://news.example/2026/hours"><title>New hours</title><link>/2026/hours</link></item>
</rdf:RDF>"""
#: An Atom entry whose content is elsewhere (``src``), with the summary the RFC then asks for.
FEED_ATOM_ELSEWHERE = """<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Talks</title>
<entry><title>Slides</title><link href="https://example.org/slides"/><summary>The talk's slides, in a PDF.</summary>
<content type="application/pdf" src="https://example.org/slides.pdf"/></entry>
</feed>"""
FEED_PODCAST = """<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>
<title>Weekly show</title><atom:link href="https://pod.example/feed" rel="self" type="application/rss+xml"/>
<item><title>Episode 1</title><guid isPermaLink="true">https://pod.example/episodes/1</guid>
<enclosure url="https://cdn.pod.example/1.mp3" type="audio/mpeg" length="1"/></item>
<item><title>Episode 2</title><guid isPermaLink="false">pod-2</guid></item>
<item><atom:link href="https://pod.example/self/3" rel="self"/><title>Episode 3</title><link>/episodes/3</link></item>
</channel></rss>"""
#: An address a site's template left unfilled: no URL parser reads a host in brackets that is no IPv6 address.
#: A plain-text book of a mirror's shelf (``/books/``): a megabyte of prose.
BOOK = ("It was a dark and stormy night; the rain fell in torrents.\n" * 18_000).encode()
PLACEHOLDER = "https://[site-url]/post"
FEED_PLACEHOLDER = f"""<?xml version="1.0"?><rss version="2.0"><channel><title>Template feed</title>
<item><title>Unlinked entry</title><link>{PLACEHOLDER}</link><description>Its link was never filled in.</description></item>
</channel></rss>"""
FEED_HOSTILE = """<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY file SYSTEM "file:///etc/hostname">]>
<rss version="2.0"><channel><title>Hostile &d;</title><item><title>Entry &file;</title><link>https://x.example/1</link></item></channel></rss>"""


class SiteServer(ThreadingHTTPServer):
    """The site: records every request (host, path) and how many run at once per host."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), SiteHandler)
        self.port = self.server_address[1]
        self.hits: list[tuple[str, str]] = []
        #: When each of ``hits`` arrived (``time.monotonic()``).
        self.times: list[float] = []
        self.lock = threading.Lock()
        self.active: Counter[str] = Counter()
        self.peak: Counter[str] = Counter()
        self.active_total = 0
        self.peak_total = 0
        self.stopping = threading.Event()
        self.slow_seconds = 10.0
        #: Session ids handed out by /jsp/ pages.
        self.sessions = 0
        #: When /throttled/ last served a page: it answers 429 to one asked for within 0.5 s.
        self.throttled_at = 0.0

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up early (a body cap, a timeout) is expected here

    def reset(self) -> None:
        with self.lock:
            self.throttled_at = 0.0
            self.hits.clear()
            self.times.clear()
            self.peak.clear()
            self.peak_total = 0

    def paths(self) -> list[str]:
        with self.lock:
            return [path for _host, path in self.hits]

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


class SiteHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: SiteServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str, status: int = 302) -> None:
        self._send(status, b"", "", {"Location": location})

    def do_GET(self) -> None:
        server = self.server
        host = (self.headers.get("Host") or "").split(":")[0]
        parts = urlsplit(self.path)
        path = parts.path
        with server.lock:
            server.hits.append((host, self.path))
            server.times.append(time.monotonic())
        try:
            self._route(host, path, parse_qs(parts.query))
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _route(self, host: str, path: str, query: dict[str, list[str]]) -> None:
        server = self.server
        port = server.port
        if host == "moved.site.test":  # a site that moved to site.test, every address with it
            return self._redirect(f"http://site.test:{port}{path}", 301)
        pages = {
            "/": home(port),
            "/articles/caching": CACHING,
            "/articles/retries": RETRIES,
            "/docs/": DOCS_INDEX,
            "/docs/a": DOCS_A,
            "/docs/b": DOCS_B,
            "/docs/deep/c": DOCS_C,
            "/orphan": ORPHAN,
            "/private/secret": SECRET,
            "/nofollow": NOFOLLOW,
            "/services/gaap-compliance": SERVICE_UNDATED,
            "/2024/05/gaap-compliance": SERVICE_DATED,
            "/features": FEATURES_UNDATED,
            "/2024/05/features": FEATURES_DATED,
            "/products/trail-tent": TENT,
            "/products/desk-lamp": LAMP,
            "/products/trail-tent-app": TENT_APP,
        }
        if path in pages:
            return self._send(200, pages[path].encode())
        if path.startswith("/throttled/"):  # a rate limit that says no more than 429 (no Retry-After)
            with server.lock:
                now = time.monotonic()
                too_soon, server.throttled_at = now - server.throttled_at < 0.5, max(now, server.throttled_at)
            if too_soon:
                return self._send(429, b"<h1>Too many requests</h1>")
            pages = "".join(f'<li><a href="/throttled/{n}">Page {n}</a></li>' for n in range(6))
            return self._send(200, f"<html><body><article><h1>Throttled</h1><p>Read slowly, please.</p><ul>{pages}</ul></article></body></html>".encode())
        if path == "/moving/":  # three old addresses of one page, which moved
            old = "".join(f'<li><a href="/moving/old{n}">Old address {n}</a></li>' for n in range(3))
            return self._send(200, page("Moving", f"<article><h1>Moving</h1><p>Links from before the move:</p><ul>{old}</ul></article>").encode())
        if path.startswith("/moving/old"):
            return self._redirect("/moving/new", 301)
        if path == "/moving/new":  # read a while: every redirect to it arrives before it is read
            time.sleep(0.3)
            return self._send(200, page("Moved", "<article><h1>Moved</h1><p>The page that moved.</p></article>").encode())
        if path == "/shoes":  # a shop's filters, as Drupal writes them: ?f[0]=color:red
            if query:
                return self._send(200, page("Shoes", "<article><h1>Red shoes</h1><p>Every red shoe we sell.</p></article>").encode())
            filters = "".join(f'<li><a href="/shoes?f[0]=color:{color}">{color}</a></li>' for color in ("red", "blue"))
            return self._send(200, page("Shoes", f"<article><h1>Shoes</h1><p>Pick a color:</p><ul>{filters}</ul></article>").encode())
        if path == "/books/":  # a mirror's shelf: links to 40 plain-text books
            shelf = "".join(f'<li><a href="/books/{n}.txt">Book {n}</a></li>' for n in range(40))
            return self._send(200, page("Books", f"<article><h1>Books</h1><p>Every book on the shelf, as plain text:</p><ul>{shelf}</ul></article>").encode())
        if path.startswith("/books/"):
            return self._send(200, BOOK, "text/plain; charset=utf-8")
        if path.startswith("/nofollow/"):  # nofollow said in a header, to another crawler, or in a second tag
            says = {
                "header": ({"X-Robots-Tag": "noindex, nofollow"}, ""),
                "header-for-another": ({"X-Robots-Tag": "otherbot: nofollow"}, ""),
                "header-for-us": ({"X-Robots-Tag": "webproviders: noindex, nofollow"}, ""),
                "second-meta": ({}, '<meta name="robots" content="max-image-preview:large"><meta name="robots" content="nofollow">'),
            }
            headers, head = says[path.rsplit("/", 1)[-1]]
            text = '<article><h1>Robots directives</h1><p>This page says in its own way whether its links may be followed: <a href="/docs/a">getting started</a>.</p></article>'
            return self._send(200, page("Robots directives", text, head=head).encode(), headers=headers)
        if path == "/empty":  # a 200 with no body at all
            return self._send(200, b"")
        if path == "/empty.json":  # an API that answers with nothing
            return self._send(200, b"\n", "application/json")
        if path == "/no-content":
            return self._send(204, b"", "")
        if path == "/refresh-header/empty":  # PHP's header("Refresh: 0; url=..."): no body, the header alone
            return self._send(200, b"", headers={"Refresh": "0; url=/articles/caching"})
        if path == "/refresh-header/notice":  # the header beside a notice, and a <meta> one the header comes before
            tag = '<meta http-equiv="refresh" content="0; url=/docs/a">'
            body = page("Moved", "<p>Redirecting you to the article.</p>", head=tag).encode()
            return self._send(200, body, headers={"Refresh": "1;URL='/articles/caching'"})
        if path == "/refresh/noscript":  # a story that sends readers without scripts to a "turn them on" page
            tag = '<noscript><meta http-equiv="refresh" content="0; url=/docs/a"></noscript>'
            return self._send(200, CACHING.replace("</head>", f"{tag}</head>").encode())
        if path.startswith("/refresh/"):  # a page that sends its reader on with <meta http-equiv="refresh">
            refreshes = {
                "now": "0; url=/articles/caching",
                "chain": "0; URL='/refresh/now'",
                "later": "300; url=/docs/a",
                "loop": "0; url=/refresh/loop",
                "metadata": "0; url=http://169.254.169.254/latest/meta-data/",
            }
            tag = f'<meta http-equiv="refresh" content="{refreshes[path.rsplit("/", 1)[-1]]}">'
            return self._send(200, page("Moved", "<p>This page has moved.</p>", head=tag).encode())
        if path == "/unreadable/":  # links to a page that cannot be read here and to no page at all
            links = '<li><a href="/unreadable/page">an old page</a></li><li><a href="/unreadable/logo">our logo</a></li>'
            return self._send(200, page("Unreadable", f"<article><h1>Unreadable</h1><ul>{links}</ul></article>").encode())
        if path == "/unreadable/page":  # a page in a coding no reader decodes any more (and none asked for)
            return self._send(200, b"\x1f\x9d\x90<html>", headers={"Content-Encoding": "compress"})
        if path == "/reports/":  # links to a report whose address now answers with a sign-in page
            links = '<li><a href="/reports/annual.pdf">the annual report</a></li>'
            return self._send(200, page("Reports", f"<article><h1>Reports</h1><ul>{links}</ul></article>").encode())
        if path == "/reports/annual.pdf":  # a sign-in page sent under the PDF's type, as document stores do
            return self._send(200, page("Sign in", "<p>Sign in to download this report.</p>").encode(), "application/pdf")
        if path == "/unreadable/logo":  # an image under an address that does not say so
            return self._send(200, b"\x89PNG\r\n\x1a\n" + bytes(64), "application/octet-stream")
        if path == "/idn/":  # a site under a name outside ASCII, whose links spell its host both ways
            links = "".join(f'<li><a href="http://{name}.site.test:{port}{to}">{to}</a></li>' for name, to in (
                ("münchen", "/docs/a"), ("xn--mnchen-3ya", "/docs/b"), ("münchen", "/docs/b"), ("xn--mnchen-3ya", "/docs/a")))
            return self._send(200, page("Ein Ort", f"<article><h1>Ein Ort</h1><ul>{links}</ul></article>").encode())
        if path.startswith("/alias/"):  # a site generator's alias of a moved page: no body, its target named twice
            target = {"old": "/articles/caching", "ping": "/alias/pong", "pong": "/alias/ping"}[path.rsplit("/", 1)[-1]]
            head = (f'<title>{target}</title><link rel="canonical" href="{target}"><meta name="robots" content="noindex">'
                    f'<meta http-equiv="refresh" content="0; url={target}">')
            return self._send(200, f"<!DOCTYPE html><html><head>{head}</head></html>".encode())
        if path.startswith("/placeholder/"):  # a page whose canonical link, <base> or refresh names no parsable URL
            heads = {
                "canonical": f'<link rel="canonical" href="{PLACEHOLDER}">',
                "base": f'<base href="{PLACEHOLDER}">',
                "script-base": '<base href="javascript:void(0)">',  # no address: browsers read links against the page's
                "refresh": f'<meta http-equiv="refresh" content="0; url={PLACEHOLDER}">',
            }
            text = '<article><h1>Template page</h1><p>A page whose template left an address unfilled is still read: see <a href="/docs/a">getting started</a>.</p></article>'
            return self._send(200, page("Template page", text, head=heads[path.rsplit("/", 1)[-1]]).encode())
        if path == "/frames/":  # an old documentation site: its pages in frames, a notice for browsers without them
            frames = '<frameset cols="20%,80%"><frame src="/docs/a" name="nav"><frame src="../docs/b" name="main"><frame src="about:blank">'
            notice = '<noframes><h2>Frame Alert</h2><p>This document is designed to be viewed using frames. Link to <a href="/docs/b">Non-frame version</a>.</p></noframes>'
            return self._send(200, f"<!DOCTYPE html><html><head><title>API docs</title></head>{frames}{notice}</frameset></html>".encode())
        if path == "/oversized-meta":  # a canonical link and a language no page means, 100 KB each
            head = f'<link rel="canonical" href="/{"c" * 100_000}">'
            text = "<article><h1>Oversized</h1><p>The page itself is short, whatever its head says of it.</p></article>"
            return self._send(200, page("Oversized", text, head=head, lang="x" * 100_000).encode())
        if path == "/spellings/":  # one page linked in three spellings RFC 3986 calls equal, and another
            links = " ".join(
                f'<a href="/spellings/{link}">{n}</a>' for n, link in enumerate(["%7Euser/a%2fb", "~user/a%2Fb", "%7euser/a%2FB"])
            )
            return self._send(200, page("Spellings", f"<article><h1>Spellings</h1><p>A user's pages, linked as they come: {links}.</p></article>").encode())
        if path == "/dots/":  # one page linked in absolute URLs with dot segments, as templates write them
            here = f"http://{self.headers.get('Host')}"
            links = " ".join(
                f'<a href="{link}">{n}</a>'
                for n, link in enumerate([f"{here}/dots/old/../page", f"{here}/dots/./page", "/dots/page", f"{here}/dots/a/./b/../../page"])
            )
            return self._send(200, page("Dots", f"<article><h1>Dots</h1><p>One page, linked as a template joins its paths: {links}.</p></article>").encode())
        if path.startswith("/dots/"):
            return self._send(200, page("The page", f"<article><h1>The page</h1><p>This page was asked for as {path} and is one page however its link was spelled.</p></article>").encode())
        if path.startswith("/spellings/"):
            return self._send(200, page("A user page", f"<article><h1>A user page</h1><p>This page was asked for as {path} and says a little about its user.</p></article>").encode())
        if path == "/slowlinks":
            links = '<a href="/slow?n=1">one</a> <a href="/slow?n=2">two</a> <a href="/docs/a">fast</a>'
            body = f"<html><body><article><h1>Slow links</h1><p>Two of these pages take a long time to answer: {links}.</p></article></body></html>"
            return self._send(200, body.encode())
        if path.startswith("/calendar"):  # an endless site: every day links to the next 200
            day = int(path.rsplit("/", 1)[-1]) if path.count("/") > 1 else 0
            links = " ".join(f'<a href="/calendar/{day + n}">{day + n}</a>' for n in range(1, 201))
            return self._send(200, page(f"Day {day}", f"<article><h1>Day {day}</h1><p>Nothing happens on day {day}, as on most days.</p><p>{links}</p></article>").encode())
        if path.startswith("/facets/"):  # a shop's filter page: 5,000 links, each to another such page
            at = int(path.rsplit("/", 1)[-1]) * 5_000
            links = "".join(f'<a href="/facets/{at + n}?color=red&amp;size={n % 7}">{n}</a> ' for n in range(5_000))
            return self._send(200, page("Filters", f"<article><h1>Filters</h1><p>{links}</p></article>").encode())
        if path.startswith("/jsp/"):  # a Java shop that puts a new session id in every link of a client without cookies
            with server.lock:
                server.sessions += 1
                session = f"{server.sessions:08X}"
            links = " ".join(f'<a href="/jsp/{n};jsessionid={session}?PHPSESSID={session}">page {n}</a>' for n in range(3))
            return self._send(200, page("Shop", f"<article><h1>Shop</h1><p>Our pages: {links}.</p></article>").encode())
        if path == "/grow":  # a trap: each page links to itself with a query twice as long
            grown = query.get("q", ["a"])[0] * 2
            links = f'<a href="/grow?q={grown}">more</a>'
            return self._send(200, page("Grow", f"<article><h1>Grow</h1><p>Each page of this trap: {links}.</p></article>").encode())
        if path == "/spaced-links":  # links written with a raw space: one page of the site, one gone
            links = '<a href="/docs/a">getting started</a> <a href="/gone page">an old page</a>'
            return self._send(200, page("Spaced", f"<article><h1>Spaced</h1><p>See {links}.</p></article>").encode())
        if path == "/long-base":  # relative links under a <base href> longer than any URL taken
            head = f'<base href="/{"b" * 2_100}/">'
            links = '<a href="next">next</a> <a href="/docs/a">getting started</a>'
            return self._send(200, page("Long base", f"<article><h1>Long base</h1><p>{links}.</p></article>", head=head).encode())
        if path == "/moved-links":  # an old address that now redirects into another host's private area
            moved = f"/redirect/to?url=http://other.test:{port}/private/secret"
            links = f'Our <a href="{moved}">planning notes</a> moved; start with <a href="/docs/a">getting started</a>.'
            return self._send(200, f"<html><body><article><h1>Moved links</h1><p>{links}</p></article></body></html>".encode())
        if path == "/sso-links":  # a link that redirects to a sign-in page on the intranet, one with a password
            sso = f"/redirect/to?url=http://private.test:{port}/login"
            signed = f"http://guest:guest@{self.headers.get('Host')}/members"
            links = f'<a href="{sso}">Sign in</a>, <a href="{signed}">enter as a guest</a> or <a href="/docs/a">get started</a>.'
            return self._send(200, f"<html><body><article><h1>Members</h1><p>{links}</p></article></body></html>".encode())
        if path == "/echo-host":
            return self._send(200, page("Host echo", f"<article><h1>Host echo</h1><p>You asked for host {self.headers.get('Host')} and this sentence makes the page long enough to keep.</p></article>").encode())
        if path == "/robots.txt" and host == "delay.site.test":
            return self._send(200, b"User-agent: *\nCrawl-delay: 0.5\n", "text/plain")
        if path == "/robots.txt" and host == "busybots.site.test":  # too many requests: come back in a minute
            return self._send(429, b"Too many requests", "text/plain", {"Retry-After": "60"})
        if path == "/robots.txt" and host == "bigbots.site.test":  # 20,000 rules, 500 KiB: the parse takes a while
            return self._send(200, BIG_ROBOTS, "text/plain")
        if path == "/robots.txt" and host == "loopbots.site.test":  # never arrives
            return self._redirect("/robots.txt")
        if path == "/robots.txt" and host == "slowbots.site.test":  # arrives after the slow page's time
            deadline = time.monotonic() + server.slow_seconds
            while time.monotonic() < deadline and not server.stopping.is_set():
                time.sleep(0.05)
            return self._send(200, b"User-agent: *\nAllow: /\n", "text/plain")
        if path == "/robots.txt" and host == "slowmap.site.test":  # its sitemap waits 10 s
            return self._send(200, b"User-agent: *\nCrawl-delay: 10\n", "text/plain")
        if path == "/robots.txt" and host == "tmplmap.site.test":  # a Sitemap line no URL parser reads, then a good one
            return self._send(200, ROBOTS + f"Sitemap: {PLACEHOLDER}\nSitemap: /sitemap.xml\n".encode(), "text/plain")
        if path == "/robots.txt" and host == "relmap.site.test":  # a path, not the full URL
            return self._send(200, ROBOTS + b"Sitemap: /sitemap.xml\n", "text/plain")
        if path == "/robots.txt":
            listed = SITEMAPS.get(host, "/sitemap.xml")
            return self._send(200, ROBOTS + f"Sitemap: http://{self.headers.get('Host')}{listed}\n".encode(), "text/plain")
        if path == "/sitemap.xml":
            return self._send(200, sitemap(port, self.headers.get("Host") or ""), "application/xml")
        if path == "/sitemap.xml.gz":
            return self._send(200, gzip.compress(sitemap(port, self.headers.get("Host") or "")), "application/x-gzip")
        if path == "/sitemap-loop.xml":  # an index that lists itself (also under fragments), then the real sitemap
            here = f"http://{self.headers.get('Host')}"
            itself = ["/sitemap-loop.xml"] * 5 + [f"/sitemap-loop.xml#{n}" for n in range(10)]
            children = "".join(f"<sitemap><loc>{here}{p}</loc></sitemap>" for p in [*itself, "/sitemap.xml"])
            return self._send(200, f"<sitemapindex>{children}</sitemapindex>".encode(), "application/xml")
        if path == "/sitemap-badloc.xml":  # a <loc> that is no URL before a good one
            here = f"http://{self.headers.get('Host')}"
            entries = f"<url><loc>http://[::1</loc></url><url><loc>{here}/orphan</loc></url>"
            return self._send(200, f"<urlset>{entries}</urlset>".encode(), "application/xml")
        if path == "/maps/index.xml":  # an index and its sitemap listing paths, not full URLs
            return self._send(200, b"<sitemapindex><sitemap><loc>pages.xml</loc></sitemap></sitemapindex>", "application/xml")
        if path == "/maps/pages.xml":
            return self._send(200, b"<urlset><url><loc>/orphan</loc></url></urlset>", "application/xml")
        if path == "/sitemap-slow-index.xml":  # ten sitemaps, each a second and a half in coming
            here = f"http://{self.headers.get('Host')}"
            children = "".join(f"<sitemap><loc>{here}/sitemap-slow.xml?n={n}</loc></sitemap>" for n in range(10))
            return self._send(200, f"<sitemapindex>{children}</sitemapindex>".encode(), "application/xml")
        if path == "/sitemap-slow.xml":
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline and not server.stopping.is_set():
                time.sleep(0.05)
            return self._send(200, sitemap(port, self.headers.get("Host") or ""), "application/xml")
        if path == "/sitemap-wide-index.xml":  # 50,000 sitemaps (the protocol's most), half another site's
            here = f"http://{self.headers.get('Host')}"
            own = (f"<sitemap><loc>{here}/sitemap.xml?n={n}</loc></sitemap>" for n in range(25_000))
            others = (f"<sitemap><loc>http://elsewhere.test/sitemap-{n}.xml</loc></sitemap>" for n in range(25_000))
            children = "".join(item for pair in zip(others, own, strict=True) for item in pair)
            return self._send(200, f"<sitemapindex>{children}</sitemapindex>".encode(), "application/xml")
        if path == "/sitemap-huge.xml":
            return self._send(200, huge_sitemap(), "application/xml")
        if path == "/sitemap-big.xml":
            return self._send(200, big_sitemap(self.headers.get("Host") or ""), "application/xml")
        if path == "/sitemap-bomb.xml.gz":
            return self._send(200, sitemap_bomb(), "application/x-gzip")
        if path == "/board/":
            return self._send(200, BOARD_HTML, "text/html")
        if path == "/board/search":  # the query as Shift_JIS bytes, or the site cannot read it
            if urlsplit(self.path).query == "q=%93%8C%8B%9E&page=1":
                return self._send(200, BOARD_RESULTS_HTML, "text/html")
            return self._send(400, "<p>検索語を読めません。</p>".encode("cp932"), "text/html")
        if path == "/articles/encoding":
            return self._send(200, ENCODING_HTML, "text/html")
        if path == "/notes.txt":
            return self._send(200, "Plain notes.\nLine two with caf\u00e9.\n".encode(), "text/plain; charset=utf-8")
        if path == "/openapi.yaml":  # text under an application/ type, as API servers send their specs
            return self._send(200, b"openapi: 3.1.0\ninfo:\n  title: Orders API\n", "application/x-yaml")
        if path == "/dump.txt":  # a server's text/plain over bytes that are no text
            return self._send(200, bytes(range(32)) * 8, "text/plain")
        if path == "/legacy.js":
            return self._send(200, b"var answer = 42;\n", "application/x-javascript")
        if path == "/readme.md":
            return self._send(200, b"# Read me\n\nThis file is *markdown* and passes through. See [the orphan](/orphan).\n", "text/markdown")
        if path == "/untyped":  # no Content-Type, and the markup starts as many fragments do
            return self._send(200, b"<script>var page = 1;</script><h1>Untyped</h1><p>Served with no type at all.</p>", "")
        if path in ("/two-types", "/any-type"):  # a server and a script both set the type; a type that names none
            types = ("text/html", {"Content-Type": "text/html; charset=utf-8"}) if path == "/two-types" else ("*/*", {})
            return self._send(200, DOCS_A.encode(), types[0], types[1])
        if path == "/xhtml-as-xml":  # XHTML served with an XML type, which browsers render as a page
            xhtml = ('<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
                    "<title>Served as XML</title></head><body><h1>Served as XML</h1><p>Rendered as a page by browsers.</p>"
                    "</body></html>")
            return self._send(200, xhtml.encode(), "application/xml")
        if path == "/data.json":
            return self._send(200, json.dumps({"name": "example", "items": [1, 2, 3]}).encode(), "application/json")
        if path == "/image.png":
            return self._send(200, png_bytes(), "image/png")
        if path == "/page.xz":  # a page in a coding no client here decodes
            return self._send(200, lzma.compress(DOCS_A.encode()), "text/html", headers={"Content-Encoding": "xz"})
        if path == "/logo.svg":  # a drawing: text (XML), but no page
            return self._send(200, b'<svg xmlns="http://www.w3.org/2000/svg"><text>Logo</text></svg>', "image/svg+xml")
        if path == "/mislabelled":
            return self._send(200, png_bytes(), "text/html; charset=utf-8")
        if path == "/download":
            return self._send(200, b"\x00\x01\x02\x03binary\x00data" * 50, "application/octet-stream")
        if path == "/utf16-binary":  # compressed or encrypted bytes, labelled as a page in UTF-16
            return self._send(200, random.Random(7).randbytes(4096), "text/html; charset=utf-16")
        if path == "/partial":  # a cache that answers a request for the whole page with its first part
            whole = DOCS_A.encode()
            return self._send(206, whole[:700], headers={"Content-Range": f"bytes 0-699/{len(whole)}"})
        if path in ("/generated.pdf", "/generated"):  # a script's PDF after a stray line break, labelled or not
            return self._send(200, b"\r\n" + pdf_bytes(), "application/pdf" if path.endswith(".pdf") else "application/octet-stream")
        if path == "/scan.pdf":  # two pages with no text on them, as a scanner's images are
            return self._send(200, pdf_bytes("", ""), "application/pdf")
        if path == "/aes.pdf":  # encrypted with AES and no user password, as PDFs locked against printing are
            return self._send(200, aes_pdf_bytes(), "application/pdf")
        if path == "/doc.pdf":
            return self._send(200, pdf_bytes(), "application/pdf")
        if path == "/misplaced-xref.pdf":  # readable, but its startxref is off, as in many real PDFs
            moved = re.sub(rb"startxref\s+(\d+)", lambda m: b"startxref\n%d" % (int(m[1]) + 7), pdf_bytes())
            return self._send(200, moved, "application/pdf")
        if path == "/report":
            return self._send(200, pdf_bytes(), "application/octet-stream")
        if path == "/missing":
            return self._send(404, page("Not found", "<h1>Not found</h1>").encode())
        if path == "/idle-408":  # a server that had closed the connection it waited on: 408 once, then the page
            if server.paths().count(path) == 1:
                return self._send(408, b"<h1>Request Timeout</h1>", headers={"Connection": "close"})
            return self._send(200, CACHING.encode())
        if path == "/error":
            return self._send(500, b"<h1>Internal Server Error</h1>")
        if path == "/forbidden":
            return self._send(403, b"<h1>Forbidden</h1>")
        if path == "/unavailable":
            return self._send(503, b"<h1>Service Unavailable</h1>")
        if path == "/busy":
            status = int(query.get("status", ["429"])[0])
            waits = {"Retry-After": query.get("after", ["7"])[0]} if query.get("after") != ["none"] else {}
            # a rate-limit reset (?reset=30, or an epoch ?reset=epoch+600 / epoch-ms+600) as many sites
            # send it on every answer, in the header ?reset_header names
            for reset in query.get("reset", []):
                kind, _, ahead = reset.rpartition("+")
                at = {"epoch": time.time() + float(ahead), "epoch-ms": (time.time() + float(ahead)) * 1000}
                waits[query.get("reset_header", ["RateLimit-Reset"])[0]] = str(int(at[kind])) if kind else ahead
            return self._send(status, b"slow down", "text/plain", waits)
        if path == "/busy-links":  # a link to a page answering 429 (or ?status=503), then to pages of the same host
            busy = "/busy?" + "&amp;".join(f"{key}={value[0]}" for key, value in query.items())
            links = f'<a href="{busy}">busy</a>, <a href="/docs/a">a</a> and <a href="/docs/b">b</a>'
            if "spaced" in query:  # and one written with a raw space
                links += ', <a href="/docs/old page">an old page</a>'
            return self._send(200, f"<html><body><article><h1>Busy links</h1><p>{links}.</p></article></body></html>".encode())
        if path == "/app":  # a single-page application: its text arrives by script
            return self._send(200, b'<html><head><title>Dashboard</title></head><body><div id="root"></div>'
                              b'<script src="/static/app.js"></script></body></html>')
        if path == "/app-notice":  # the same, with the notice browsers without scripts show
            return self._send(200, b'<!doctype html><html><head><title>My App</title></head><body>'
                              b'<noscript>You need to enable JavaScript to run this app.</noscript>'
                              b'<div id="root"></div><script src="/static/app.js"></script></body></html>')
        if path == "/feed.xml":  # a blog's RSS, in windows-1252 as the header says, its posts as escaped HTML
            return self._send(200, FEED_RSS.encode("cp1252"), "application/rss+xml; charset=windows-1252")
        if path == "/atom.xml":
            return self._send(200, FEED_ATOM.encode(), "application/atom+xml")
        if path in ("/feed.php", "/feed.txt"):  # a feed script that sets no type of its own, and a feed saved as text
            return self._send(200, FEED_ATOM.encode(), "text/html; charset=UTF-8" if path == "/feed.php" else "text/plain")
        if path in ("/feed.cgi", "/feed.bin"):  # with no XML declaration, and no type or a generic one
            bare = FEED_ATOM.split("?>", 1)[1].encode()
            return self._send(200, bare, "" if path == "/feed.cgi" else "application/octet-stream")
        if path == "/index.rdf":
            return self._send(200, FEED_RDF.encode(), "application/rdf+xml")
        if path == "/atom-elsewhere.xml":
            return self._send(200, FEED_ATOM_ELSEWHERE.encode(), "application/atom+xml")
        if path == "/atom-text.xml":
            return self._send(200, FEED_ATOM_TEXT.encode(), "application/atom+xml")
        if path == "/podcast.xml":
            return self._send(200, FEED_PODCAST.encode(), "application/rss+xml")
        if path == "/emoji.xml":  # emoji as two references, one per half of their UTF-16 pair, as Java writes them
            emoji = ('<?xml version="1.0"?><rss version="2.0"><channel><title>Launch &#xD83D;&#xDE80; notes</title>'
                     "<item><title>Day &#55357;&#56832;</title><description>A stray half &#xDE00; here.</description>"
                     "</item></channel></rss>")
            return self._send(200, emoji.encode(), "application/rss+xml")
        if path == "/placeholder.xml":
            return self._send(200, FEED_PLACEHOLDER.encode(), "application/rss+xml")
        if path == "/hostile.xml":  # entity expansion and an external entity naming a local file
            return self._send(200, FEED_HOSTILE.encode(), "application/rss+xml")
        if path == "/footer-only":
            return self._send(200, b"<html><body><footer><p>Contact us at the main office during weekday hours.</p></footer></body></html>")
        if path == "/redirect/article":
            return self._redirect("/articles/caching", 301)
        if path.startswith("/redirect/chain/"):
            left = int(path.rsplit("/", 1)[1])
            return self._redirect(f"/redirect/chain/{left - 1}" if left > 0 else "/articles/caching")
        if path == "/redirect/loop":
            return self._redirect("/redirect/loop")
        if path == "/redirect/to":
            return self._redirect(query["url"][0])
        if path == "/big":
            return self._big(declared=False)
        if path == "/big-declared":
            return self._big(declared=True)
        if path == "/slow":
            deadline = time.monotonic() + server.slow_seconds
            while time.monotonic() < deadline and not server.stopping.is_set():
                time.sleep(0.05)
            return self._send(200, page("Slow", "<p>Finally.</p>").encode())
        if path.startswith("/hold/"):
            return self._hold(host)
        return self._send(404, b"<h1>Not found</h1>")

    def _big(self, declared: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if declared:
            self.send_header("Content-Length", str(BIG_SIZE))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        chunk = b"<p>" + b"x" * 65530 + b"</p>"
        sent = 0
        while sent < BIG_SIZE and not self.server.stopping.is_set():
            self.wfile.write(chunk)
            sent += len(chunk)

    def _hold(self, host: str) -> None:
        server = self.server
        with server.lock:
            server.active[host] += 1
            server.active_total += 1
            server.peak[host] = max(server.peak[host], server.active[host])
            server.peak_total = max(server.peak_total, server.active_total)
        try:
            time.sleep(0.25)
        finally:
            with server.lock:
                server.active[host] -= 1
                server.active_total -= 1
        self._send(200, page("Held", f"<article><h1>Held page</h1><p>This page took a quarter of a second on {host}, long enough to overlap with others.</p></article>").encode())


class CanaryServer(ThreadingHTTPServer):
    """Stands for an internal service: any request that reaches it is a failed defence."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), CanaryHandler)
        self.port = self.server_address[1]
        self.hits: list[str] = []

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


class CanaryHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: CanaryServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.hits.append(self.path)
        body = b"internal secret"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(server: ThreadingHTTPServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return thread
