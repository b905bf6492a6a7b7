"""What every store does, run against each (SQLite and a real PostgreSQL server): one page per
canonical URL, BM25 ranking, snippets, filters, CJK text, remove, prune and stats."""

from __future__ import annotations

import time
import unicodedata
from typing import Any

import pytest

from webproviders import dispatch_search
from webproviders.config import Config
from webproviders.context import reset_deadline, set_deadline
from webproviders.errors import WebTimeoutError
from webproviders.index.pages import Filters
from webproviders.index.stores import open_store

from .conftest import DAY, DOCS, NOW, created, page


def urls(hits: list[Any]) -> list[str]:
    return [hit.page.url for hit in hits]


def test_pages_are_stored_once_by_canonical_url(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://Docs.Example.com:443/a?utm_source=x#top", "A", "alpha text")])
    store.add([page("https://docs.example.com/a", "A", "alpha text")])
    assert store.stats()["pages"] == 1
    found = store.get(["https://DOCS.example.com/a#elsewhere", "https://docs.example.com/b"])
    assert list(found) == ["https://DOCS.example.com/a#elsewhere"]  # keyed as asked
    assert found["https://DOCS.example.com/a#elsewhere"].url == "https://docs.example.com/a"
    assert found["https://DOCS.example.com/a#elsewhere"].content == "alpha text"


def test_a_percent_encoded_url_is_the_same_page(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://docs.example.com/caf%c3%a9/%7Euser?q=a%2fb", "Café", "coffee")])
    store.add([page("https://docs.example.com/café/~user?q=a%2Fb", "Café", "coffee and cake")])
    assert store.stats()["pages"] == 1
    asked = ["https://docs.example.com/caf%C3%A9/%7euser?q=a%2Fb", "https://docs.example.com/café/~user?q=a%2fb"]
    found = store.get(asked)
    assert set(found) == set(asked)
    assert {p.content for p in found.values()} == {"coffee and cake"}
    assert store.remove(["https://docs.example.com/caf%C3%A9/~user?q=a%2fb"]) == 1


def test_reindexing_a_url_replaces_its_text(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://docs.example.com/a", "Old title", "the zebra section", age_days=3)])
    store.add([page("https://docs.example.com/a", "New title", "the giraffe section")])
    assert urls(store.search("zebra", 5, Filters())) == []
    [hit] = store.search("giraffe", 5, Filters())
    assert hit.page.title == "New title"
    assert hit.page.fetched_at == pytest.approx(NOW)
    assert store.stats()["pages"] == 1


def test_a_copy_read_before_the_held_one_does_not_replace_it(index_config: Config) -> None:
    """Writers race (a long ``index --crawl`` writes its pages after it read them, a fleet's
    workers write in their own time): the last write won, so an older reading replaced a newer
    one and the page's fetch time went back."""
    store = open_store(index_config)
    store.add([page("https://docs.example.com/a", "New title", "the giraffe section", age_days=1)])
    store.add([page("https://docs.example.com/a", "Old title", "the zebra section", age_days=2)])
    assert urls(store.search("zebra", 5, Filters())) == []
    [hit] = store.search("giraffe", 5, Filters())
    assert hit.page.title == "New title" and hit.page.fetched_at == pytest.approx(NOW - DAY)
    assert store.prune(NOW - DAY - 60) == 0


def test_reindexing_unchanged_text_moves_the_fetch_time(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://docs.example.com/a", "Same", "unchanged words", age_days=10)])
    store.add([page("https://docs.example.com/a", "Same", "unchanged words")])
    [hit] = store.search("unchanged", 5, Filters())
    assert hit.page.fetched_at == pytest.approx(NOW)
    assert urls(store.search("unchanged", 5, Filters(fetched_after=NOW - DAY))) == [hit.page.url]


def test_a_page_keeps_its_publication_date_when_a_refetch_lacks_one(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://docs.example.com/a", "A", "words", published_at="2025-02-01")])
    store.add([page("https://docs.example.com/a", "A", "other words")])
    assert store.get(["https://docs.example.com/a"])["https://docs.example.com/a"].published_at == "2025-02-01"


def test_ranking_puts_the_page_about_the_question_first(filled: Config) -> None:
    hits = open_store(filled).search("how do I configure retries?", 5, Filters())
    assert urls(hits)[0] == "https://docs.example.com/guide/retries"
    assert set(urls(hits)) == {
        "https://docs.example.com/guide/retries",
        "https://docs.example.com/guide/cache",  # "retries" in passing (porter stemming)
        "https://blog.example.org/posts/outages",
    }
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert hits[0].score > hits[-1].score


def test_a_title_match_outranks_a_passing_mention(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([
        page("https://a.example.com/1", "Notes", "Many things. " * 20 + "Kubernetes is mentioned once here."),
        page("https://a.example.com/2", "Kubernetes operators", "How operators manage clusters. " * 5),
    ])
    assert urls(store.search("kubernetes", 5, Filters()))[0] == "https://a.example.com/2"


def test_snippets_highlight_the_matched_words(filled: Config) -> None:
    [first, *_] = open_store(filled).search("backoff jitter", 5, Filters())
    assert "**`backoff`**" in first.snippet and "**jitter**" in first.snippet
    assert "\n" not in first.snippet


def test_limit_caps_the_hits(filled: Config) -> None:
    assert len(open_store(filled).search("retries", 1, Filters())) == 1


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (Filters(include_domains=("example.com",)), {"https://docs.example.com/guide/retries", "https://docs.example.com/guide/cache"}),
        (Filters(include_domains=("blog.example.org", "nowhere.test")), {"https://blog.example.org/posts/outages"}),
        (Filters(exclude_domains=("docs.example.com",)), {"https://blog.example.org/posts/outages"}),
        (Filters(include_domains=("ample.com",)), set()),  # a domain is a whole label, not a suffix
        (Filters(fetched_after=NOW - 30 * DAY), {"https://docs.example.com/guide/retries", "https://docs.example.com/guide/cache"}),
    ],
)
def test_filters(filled: Config, filters: Filters, expected: set[str]) -> None:
    assert set(urls(open_store(filled).search("retries", 10, filters))) == expected


def test_a_domain_covers_its_subdomains_at_any_depth_and_no_other_host(index_config: Config) -> None:
    hosts = ["example.com", "docs.example.com", "a.b.example.com", "badexample.com", "example.com.evil.test",
             "example.co"]
    store = open_store(index_config)
    store.add([page(f"https://{host}/p", host, "Retries with backoff.") for host in hosts])

    def found(filters: Filters) -> set[str]:
        return {hit.page.url.split("/")[2] for hit in store.search("retries", 10, filters)}

    assert found(Filters(include_domains=("example.com",))) == {"example.com", "docs.example.com", "a.b.example.com"}
    assert found(Filters(include_domains=("b.example.com", "example.co"))) == {"a.b.example.com", "example.co"}
    assert found(Filters(exclude_domains=("example.com",))) == {"badexample.com", "example.com.evil.test", "example.co"}
    assert found(Filters(include_domains=("example.com",), exclude_domains=("b.example.com",))) == {
        "example.com", "docs.example.com"}


def test_a_filter_of_as_many_domains_as_a_search_takes_is_applied(index_config: Config) -> None:
    """2,000 domains are taken (the most a vendor takes): in the SQLite file a search with
    1,000 of them failed with ``provider_error`` ("Expression tree is too large")."""
    open_store(index_config).add([page("https://docs.example.com/p", "P", "Retries."), page("https://other.org/q", "Q", "Retries.")])
    many = [f"site{n}.example.net" for n in range(1_999)]

    def search(**options: Any) -> list[str]:
        envelope = dispatch_search("retries", backend="local", config=index_config, **options)
        assert envelope["success"] is True, envelope
        return [hit["url"] for hit in envelope["data"]["web"]]

    assert search(include_domains=[*many, "example.com"]) == ["https://docs.example.com/p"]
    assert search(exclude_domains=[*many, "example.com"]) == ["https://other.org/q"]
    assert search(include_domains=many) == []


def test_a_domain_filter_matches_both_idna_spellings_of_a_host(index_config: Config) -> None:
    """Pages keep their host as their URL spelled it, and vendors give either spelling: a
    filter in one spelling missed the pages stored in the other."""
    store = open_store(index_config)
    store.add([page("https://münchen.example/a", "A", "Retries."), page("https://xn--mnchen-3ya.example/b", "B", "Retries."),
               page("https://other.example/c", "C", "Retries.")])
    for domain in ("münchen.example", "XN--MNCHEN-3YA.example"):
        hits = dispatch_search("retries", backend="local", config=index_config, include_domains=[domain])["data"]["web"]
        assert {hit["url"].rsplit("/", 1)[1] for hit in hits} == {"a", "b"}
    hits = dispatch_search("retries", backend="local", config=index_config, exclude_domains=["münchen.example"])
    assert [hit["url"] for hit in hits["data"]["web"]] == ["https://other.example/c"]


def test_domain_filters_in_the_forms_vendors_take_are_not_silently_ignored(index_config: Config) -> None:
    """'*.example.com', '.example.com' and 'docs.example.com/guide' pass the input check, as
    vendors read them; the index matched them against no host: an include found nothing and
    an exclude removed nothing, and neither said so."""
    store = open_store(index_config)
    store.add([page("https://docs.example.com/guide/a", "A", "Retries."), page("https://other.org/b", "B", "Retries.")])

    def search(**options: Any) -> tuple[list[str], list[str]]:
        envelope = dispatch_search("retries", backend="local", config=index_config, **options)
        return [hit["url"] for hit in envelope["data"]["web"]], envelope["meta"].get("warnings", [])

    for form in ("*.example.com", ".example.com"):
        assert search(include_domains=[form]) == (["https://docs.example.com/guide/a"], [])
        assert search(exclude_domains=[form]) == (["https://other.org/b"], [])
    hits, warnings = search(exclude_domains=["docs.example.com/guide"])
    assert hits == ["https://other.org/b"]
    assert warnings == ["The local index filters by domain only: 'docs.example.com/guide' was applied as "
                        "'docs.example.com', all its pages."]


def test_a_domain_filter_with_a_port_is_applied_to_its_host_not_to_no_page(index_config: Config) -> None:
    """'docs.example.com:8443' passes the input check; pages are kept by host without their
    port, so an include found nothing and an exclude removed nothing, unsaid."""
    store = open_store(index_config)
    store.add([page("https://docs.example.com:8443/a", "A", "Retries."), page("https://other.org/b", "B", "Retries.")])
    said = ["The local index filters by domain only: 'docs.example.com:8443' was applied as "
            "'docs.example.com', all its pages."]
    for option, kept in (("include_domains", "https://docs.example.com:8443/a"), ("exclude_domains", "https://other.org/b")):
        envelope = dispatch_search("retries", backend="local", config=index_config, **{option: ["docs.example.com:8443"]})
        assert [hit["url"] for hit in envelope["data"]["web"]] == [kept]
        assert envelope["meta"]["warnings"] == said


def test_time_range_is_measured_on_the_fetch_time() -> None:
    assert Filters.from_options({"time_range": "week"}, now=1_000_000.0).fetched_after == 1_000_000.0 - 7 * DAY
    assert Filters.from_options({}).fetched_after is None


def test_query_syntax_in_a_question_is_plain_words(filled: Config) -> None:
    store = open_store(filled)
    assert store.search('retries AND OR NOT "unterminated', 5, Filters())  # no syntax error
    assert store.search("?!", 5, Filters()) == []


def test_reading_a_missing_index_is_empty_and_creates_nothing(index_config: Config) -> None:
    store = open_store(index_config)
    assert store.search("anything", 5, Filters()) == []
    assert store.get(["https://docs.example.com/"]) == {}
    assert store.remove(["https://docs.example.com/"]) == 0
    assert store.prune(NOW) == 0
    assert store.stats()["pages"] == 0
    assert not created(index_config)


def test_remove_and_prune(filled: Config) -> None:
    store = open_store(filled)
    assert store.remove(["https://docs.example.com/guide/cache#x", "https://unknown.example/"]) == 1
    assert store.prune(NOW - 30 * DAY) == 2  # the 40- and 400-day-old pages
    stats = store.stats()
    assert stats["pages"] == 1
    assert stats["providers"] == {"http": 1}
    assert urls(store.search("outages reference", 5, Filters())) == []


def test_stats(filled: Config) -> None:
    store = open_store(filled)
    stats = store.stats()
    assert stats["location"] == store.location
    assert stats["pages"] == len(DOCS)
    assert stats["bytes"] > 0
    assert stats["oldest"] == pytest.approx(NOW - 400 * DAY)
    assert stats["newest"] == pytest.approx(NOW)
    assert stats["providers"] == {"http": 3, "tavily": 1}




def test_cjk_words_are_found_inside_unspaced_text(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([
        page("https://ja.example.com/tokyo", "東京の天気", "今日は東京都で雨が降っています。明日は晴れるでしょう。"),
        page("https://ja.example.com/kyoto", "京都の寺", "京都には古い寺がたくさんあります。"),
        page("https://zh.example.com/beijing", "北京", "北京是中国的首都。Beijing is the capital."),
    ])
    hits = store.search("東京", 5, Filters())
    assert urls(hits) == ["https://ja.example.com/tokyo"]  # 京都 shares a character, not the word
    assert "**東京**都" in hits[0].snippet and "\x1f" not in hits[0].snippet
    assert urls(store.search("首都 capital", 5, Filters())) == ["https://zh.example.com/beijing"]
    stored = store.get(["https://ja.example.com/tokyo"])["https://ja.example.com/tokyo"]
    assert stored.content == "今日は東京都で雨が降っています。明日は晴れるでしょう。" and stored.title == "東京の天気"


def test_words_and_digits_touching_cjk_text_are_found(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([
        page("https://ja.example.com/python", "Python入門ガイド",
             "このページはPython入門です。2024年に更新。iPhone用アプリ。多くの人々が時々来ます。我们用Python编程。"),
        page("https://ja.example.com/other", "別のページ", "入口と門があります。人が来ます。"),
    ])
    for question in ["Python", "入門", "2024", "iPhone", "人々", "時々", "编程", "Python入門", "2024年"]:
        assert urls(store.search(question, 5, Filters())) == ["https://ja.example.com/python"], question
    assert set(urls(store.search("人", 5, Filters()))) == {"https://ja.example.com/python", "https://ja.example.com/other"}
    [hit] = store.search("Python入門", 5, Filters())
    assert "**Python入門**" in hit.snippet


def test_words_written_with_combining_marks_or_a_dotted_capital_are_found(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([
        page("https://hi.example.com/kolkata", "भारत", "हिन्दी भाषा भारत में बोली जाती है। कोलकाता एक शहर है।"),
        page("https://hi.example.com/delhi", "दिल्ली", "दिल्ली में कई किले हैं, कला और कविता।"),
        page("https://th.example.com/here", "ที่นี่", "ที่นี่ ประเทศไทย"),
        page("https://tr.example.com/istanbul", "İstanbul", "İstanbul is a big city."),
        page("https://fr.example.com/cv", "Résumé", "How to write a résumé."),
    ])
    decomposed = unicodedata.normalize("NFD", "résumé")  # as some keyboards and pasted text give it
    for question, expected in [("कोलकाता", "https://hi.example.com/kolkata"), ("हिन्दी", "https://hi.example.com/kolkata"),
                               ("ที่นี่", "https://th.example.com/here"), ("İstanbul", "https://tr.example.com/istanbul"),
                               ("İSTANBUL", "https://tr.example.com/istanbul"), (decomposed, "https://fr.example.com/cv")]:
        assert urls(store.search(question, 5, Filters())) == [expected], question


def test_a_page_is_read_and_removed_by_either_idna_spelling_of_its_host(index_config: Config) -> None:
    """Vendors and links give a host in either spelling (``münchen.example`` or
    ``xn--mnchen-3ya.example``), and the domain filters took both: an extract of a page held
    under the other spelling answered ``not_found``, and a removal by it removed nothing."""
    store = open_store(index_config)
    store.add([page("https://münchen.example/rathaus", "Rathaus", "Das Rathaus am Marienplatz."),
               page("https://xn--bcher-kva.example/liste", "Liste", "Eine Liste der Bücher.")])
    asked = ["https://xn--mnchen-3ya.example/rathaus", "https://BÜCHER.example/liste"]
    found = store.get(asked)
    assert {url: held.title for url, held in found.items()} == {asked[0]: "Rathaus", asked[1]: "Liste"}
    assert store.remove(["https://bücher.example/liste"]) == 1
    assert list(store.get(asked)) == [asked[0]]


def test_a_page_written_decomposed_is_found_by_a_question_typed_composed(index_config: Config) -> None:
    """Text copied from macOS or a PDF often spells accents and Hangul decomposed (NFD); the
    question is read composed, so in PostgreSQL no question found such a French word, and in
    either store none found such a Korean one (its letters were not kept one a word)."""
    store = open_store(index_config)
    store.add([
        page("https://fr.example.com/cv", "CV", unicodedata.normalize("NFD", "Comment écrire un résumé.")),
        page("https://ko.example.com/seoul", "서울", unicodedata.normalize("NFD", "서울은 한국의 수도입니다.")),
        page("https://ko.example.com/other", "다른", "부산은 바다가 아름답습니다."),
    ])
    for question, expected in [("résumé", "https://fr.example.com/cv"), ("한국", "https://ko.example.com/seoul")]:
        assert urls(store.search(question, 5, Filters())) == [expected], question
    [kept] = store.get(["https://fr.example.com/cv"]).values()
    assert kept.content == "Comment écrire un résumé."  # the same text, composed


def test_thai_lao_khmer_and_myanmar_words_are_found_inside_unspaced_text(index_config: Config) -> None:
    """Written without spaces between words, as Chinese is: a word inside a sentence was never
    found, in either store."""
    store = open_store(index_config)
    store.add([
        page("https://th.example.com/bangkok", "กรุงเทพ", "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย"),
        page("https://th.example.com/other", "อื่น", "ทะเลสวยมากในฤดูร้อน"),
        page("https://km.example.com/a", "ខ្មែរ", "ភាសាខ្មែរជាភាសាផ្លូវការ"),
    ])
    for question, expected in [("ประเทศไทย", "https://th.example.com/bangkok"),
                               ("เมืองหลวง", "https://th.example.com/bangkok"),
                               ("ภาษาไทย", None), ("ខ្មែរ", "https://km.example.com/a")]:
        assert urls(store.search(question, 5, Filters())) == ([expected] if expected else []), question
    [hit] = store.search("เมืองหลวง", 5, Filters())
    assert "**เมืองหลวง**" in hit.snippet and "\x1f" not in hit.snippet
    assert hit.snippet.count("**") == 2  # the word, not each of its letters wherever they are
    [kept] = store.get(["https://th.example.com/bangkok"]).values()
    assert kept.content == "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย"


def test_a_cjk_snippet_bolds_the_word_asked_for_not_each_of_its_characters(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://ja.example.com/a", "天気", "京都は雨。東京都で雨が降っています。京都と東北。")])
    [hit] = store.search("東京", 5, Filters())
    assert hit.snippet == "京都は雨。**東京**都で雨が降っています。京都と東北。"


def test_private_use_characters_in_a_page_are_not_taken_for_match_marks(index_config: Config) -> None:
    """An icon font's U+E000 and U+E001 in page text were the marks around a match: words
    between them were bold, the icons were gone."""
    store = open_store(index_config)
    text = "Menu \ue001 Home \ue000 Settings. Configure retries here \ue000 and backoff \ue001 done."
    store.add([page("https://a.example.com/icons", "Icons", text)])
    [hit] = store.search("retries", 5, Filters())
    assert hit.snippet == text.replace("retries", "**retries**")
    store.add([page("https://a.example.com/marks", "Marks", "control \x1d marks \x1e gone")])
    assert store.get(["https://a.example.com/marks"])["https://a.example.com/marks"].content == "control  marks  gone"


def test_emails_paths_versions_and_urls_in_text_are_found_by_their_words(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([
        page("https://ex.example.com/notes", "Server notes",
             "Write to support@acmewidgets.com for help. Docs at docs.acmewidgets.org, config "
             "/etc/frobnicator/frobnicator.conf. We upgraded to release 3.11.7. Endpoint "
             "https://api.acmewidgets.io/v2/quibble."),
        page("https://ex.example.com/other", "Other notes", "Release notes for 4.12 and nothing else."),
    ])
    for question in ["support@acmewidgets.com", "acmewidgets", "frobnicator.conf", "3.11.7", "quibble",
                     "docs.acmewidgets.org", '"release 3 11 7"']:
        assert urls(store.search(question, 5, Filters())) == ["https://ex.example.com/notes"], question
    [hit] = store.search("frobnicator", 5, Filters())
    assert "/etc/**frobnicator**/**frobnicator**.conf" in hit.snippet and "\x1f" not in hit.snippet


def test_a_match_inside_code_is_bolded_around_the_code_span(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([page("https://docs.example.com/retries", "Retries",
                    "Set `max_retries` to 3. Use ```retry_policy = backoff``` for the rest; retries wait.")])
    [hit] = store.search("retries", 5, Filters())
    assert "**`max_retries`**" in hit.snippet and "max_**" not in hit.snippet
    assert "**retries** wait" in hit.snippet
    [hit] = store.search("backoff", 5, Filters())
    assert "**```retry_policy = backoff```**" in hit.snippet


def test_a_long_page_gets_the_snippet_where_the_words_are(index_config: Config) -> None:
    store = open_store(index_config)
    filler = "Nothing to see in this sentence at all. " * 40
    store.add([page("https://docs.example.com/long", "Long", filler + "The flux capacitor needs plutonium. " + filler)])
    [hit] = store.search("flux capacitor plutonium", 5, Filters())
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert "**flux** **capacitor** needs **plutonium**" in hit.snippet
    assert len(hit.snippet.split()) <= 40


def test_a_snippet_stays_a_line_beside_an_inlined_image_or_a_rule(index_config: Config) -> None:
    """A hit's description is what a model reads: a 20,000-character base64 "word" or a rule of
    dashes next to the match must not become the snippet."""
    store = open_store(index_config)
    blob = "QUJD" * 5000
    store.add([
        page("https://docs.example.com/blob", "Blob", f"zebra ![chart](data:image/png;base64,{blob}) after it"),
        page("https://docs.example.com/rule", "Rule", "zebra " + "- " * 10000 + "tail"),
    ])
    hits = store.search("zebra", 5, Filters())
    assert len(hits) == 2
    for hit in hits:
        assert "**zebra**" in hit.snippet and len(hit.snippet) <= 1_002, (hit.page.url, len(hit.snippet))
    blob_hit = next(hit for hit in hits if hit.page.url.endswith("/blob"))
    assert "after it" in blob_hit.snippet


def test_common_words_do_not_crowd_out_pages_with_the_rare_ones(index_config: Config) -> None:
    """Many pages hold a common word; the page holding the rare word and the common one
    comes first, then the one with the rare word alone."""
    store = open_store(index_config)
    store.add([page(f"https://a.example.com/common-{i}", f"Page {i}", "widget widget widget text") for i in range(30)])
    store.add([page(f"https://a.example.com/other-{i}", f"Other {i}", "unrelated text") for i in range(12)])
    store.add([
        page("https://a.example.com/rare", "Rare", "the sprocket manual page"),
        page("https://a.example.com/both", "Both", "the sprocket widget page"),
    ])
    hits = store.search("widget sprocket", 2, Filters())
    assert urls(hits) == ["https://a.example.com/both", "https://a.example.com/rare"]
    assert len(store.search("widget sprocket", 10, Filters())) == 10


def test_rare_words_outrank_common_ones(index_config: Config) -> None:
    """BM25's inverse document frequency: one rare word beats two common ones."""
    store = open_store(index_config)
    store.add([page(f"https://a.example.com/{i}", f"Notes {i}", "server config server config notes") for i in range(20)])
    store.add([page("https://a.example.com/rare", "Other", "a note about the kerberos ticket")])
    assert urls(store.search("server config kerberos", 1, Filters())) == ["https://a.example.com/rare"]


def test_a_page_in_another_language_is_found_by_its_own_words(index_config: Config) -> None:
    store = open_store(index_config)
    store.add([
        page("https://de.example.com/retries", "Wiederholungen einstellen",
             "Die Wiederholungen werden mit max_retries eingestellt, und das ist für den Betrieb wichtig."),
        page("https://en.example.com/retries", "Configuring retries", "Set max_retries to configure the retries."),
    ])
    assert urls(store.search("wiederholungen", 5, Filters())) == ["https://de.example.com/retries"]
    assert set(urls(store.search("max_retries", 5, Filters()))) == {
        "https://de.example.com/retries", "https://en.example.com/retries"}


def test_a_search_still_running_at_the_calls_deadline_is_stopped_then(index_config: Config) -> None:
    # The dispatcher answers `timeout` at the deadline whatever the store does; a search left
    # running after it held its worker thread (eight such made the provider refused as hung)
    # and its connection for as long as the store took.
    store = open_store(index_config)
    store.add([page(f"https://site{n}.example.com/notes", f"Notes {n}", "common words and more words " * 50 + f"tag{n}")
               for n in range(3000)])
    token = set_deadline(time.monotonic())  # the call's deadline has come
    try:
        with pytest.raises(WebTimeoutError, match="still searching at the call's deadline") as raised:
            store.search("common words", 10, Filters())
        assert raised.value.code == "timeout"
    finally:
        reset_deadline(token)
    assert len(store.search("common words", 10, Filters())) == 10  # the store, and its connection, carry on
    token = set_deadline(time.monotonic() + 60)  # a deadline far off stops nothing
    try:
        assert len(store.search("common words", 10, Filters())) == 10
    finally:
        reset_deadline(token)
