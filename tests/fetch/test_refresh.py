"""Which ``<meta http-equiv="refresh">`` a reader follows: the ones a browser follows at once.

Through a fetch, ``test_extract`` follows moved pages and leaves reloading news pages alone;
here each way a refresh is written has its case, read as the WHATWG refresh steps read it.
"""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from webproviders.fetching.refresh import refresh_target

PAGE = "https://example.org/story"


def target(content: str, *, around: str = "{}") -> str | None:
    tag = around.format(f"<meta http-equiv='refresh' content='{content}'>")
    return refresh_target(lxml_html.fromstring(f"<html><head>{tag}</head><body><p>Story.</p></body></html>"), PAGE, PAGE)


@pytest.mark.parametrize(
    "content",
    ['0; url=/next', '0;URL="/next"', "2, /next", "1 url=/next", ".5; url=/next", '0; url = "/next" then words'],
)
def test_a_refresh_a_browser_follows_at_once(content: str) -> None:
    assert target(content) == "https://example.org/next"


@pytest.mark.parametrize(
    "content",
    [
        "300; url=/",  # a news page reloading itself every five minutes
        "[30]=http://microsoft.com/pagename.htm",  # no time first: browsers ignore it
        "5url=/next",  # nothing between the time and the address
        "url=/next",
        "0",  # the page itself, again
        "0; url=/story#top",
    ],
)
def test_a_refresh_that_is_no_redirect(content: str) -> None:
    assert target(content) is None


def test_a_refresh_is_read_against_the_pages_base_address() -> None:
    """A browser reads a refresh's address, as every relative address on the page, against
    its ``<base href>``: followed against the page's own, it read another page."""
    page = lxml_html.fromstring(
        "<html><head><base href='/static/v2/'><meta http-equiv='refresh' content='0; url=target.html'></head>"
        "<body><p>Moved.</p></body></html>"
    )
    assert refresh_target(page, PAGE, "https://example.org/static/v2/") == "https://example.org/static/v2/target.html"


def test_a_refresh_for_readers_without_scripts_is_not_followed() -> None:
    assert target("0; url=/enable-javascript", around="<noscript>{}</noscript>") is None


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("1" * 200_000 + "x", None),
        ("0" + " " * 200_000 + "/next", "https://example.org/next"),
        ("0; url=/a" + " " * 20_000 + "b", "https://example.org/a" + " " * 20_000 + "b"),
    ],
    ids=["digits", "spaces-before-address", "spaces-in-address"],
)
def test_a_long_refresh_is_read_in_one_pass(content: str, expected: str | None) -> None:
    """The pattern had parts that could match the same characters: a long run of digits or
    spaces was tried in every split of it (20,000 spaces in an address took 0.8 s, 200,000 over a minute)."""
    assert target(content) == expected
