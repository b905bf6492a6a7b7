"""How text, questions, URLs and snippets are handled the same way by every store."""

from __future__ import annotations

import pytest

from webproviders.index.language import page_language
from webproviders.index.pages import IndexedPage, page_url
from webproviders.index.question import question_terms
from webproviders.index.snippets import END, START, snippet
from webproviders.index.text import SEGMENT, shown, stored, token_count


def marked(text: str, *words: str) -> str:
    for word in words:
        text = text.replace(word, f"{START}{word}{END}")
    return text


def test_cjk_text_is_kept_one_character_a_word_and_shown_as_given() -> None:
    text = "Tokyo 東京都 and 서울 too"
    assert stored(text) == f"Tokyo 東{SEGMENT}京{SEGMENT}都 and 서{SEGMENT}울 too"
    assert shown(stored(text)) == text
    assert stored(f"a{SEGMENT}b") == "ab"  # a separator in page text is not kept
    assert token_count("Tokyo 東京都 and max_retries") == 6


def test_words_and_digits_touching_cjk_text_and_the_marks_among_it_are_set_apart() -> None:
    text = "Python入門、2024年。iPhone用 人々 〆切 〇"
    s = SEGMENT
    assert stored(text) == f"Python{s}入{s}門、2024{s}年。iPhone{s}用 人{s}々 〆{s}切 〇"
    assert shown(stored(text)) == text and stored(stored(text)) == stored(text)
    assert token_count(text) == 12


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("how do I configure retries?", ["configure", "retries"]),
        ('the "Exact, phrase" matters', ["Exact phrase", "matters"]),
        ("what is it", ["what", "is", "it"]),
        ("東京 tower", [f"東{SEGMENT}京", "tower"]),
        ("Python入門 人々", [f"Python{SEGMENT}入{SEGMENT}門", f"人{SEGMENT}々"]),
        ("Retries retries RETRIES", ["Retries"]),  # the stores fold case themselves
        ("कोलकाता हिन्दी", ["कोलकाता", "हिन्दी"]),  # vowel signs are part of a word
        ("İstanbul", ["İstanbul"]),  # not lowered to "i̇stanbul", an i and a combining dot
        ("re\u0301sume\u0301", ["r\u00e9sum\u00e9"]),  # read composed, as pages are written
        ("-x AND y*", ["x", "y"]),
        ("?!", []),
    ],
)
def test_questions_become_terms(question: str, terms: list[str]) -> None:
    assert question_terms(question) == terms


@pytest.mark.parametrize(
    "spelling",
    [
        "https://Docs.Example.com:443/caf%c3%a9/%7Euser?q=a%2fb#top",
        "https://docs.example.com/café/~user?q=a%2Fb",
        "https://docs.example.com/caf%C3%A9/~user?q=a%2F%62&utm_source=feed",
    ],
)
def test_one_spelling_of_percent_escapes(spelling: str) -> None:
    assert page_url(spelling) == "https://docs.example.com/caf%C3%A9/~user?q=a%2Fb"


def test_escapes_that_mean_something_else_stay_apart() -> None:
    assert page_url("https://a.example.com/a%2Fb") != page_url("https://a.example.com/a/b")
    assert page_url("https://a.example.com/100%") == "https://a.example.com/100%25"
    assert page_url("https://a.example.com/a b") == "https://a.example.com/a%20b"


def test_a_snippet_is_where_most_different_words_matched() -> None:
    words = " ".join(f"w{i}" for i in range(200))
    text = marked(words, "w10 ", "w150", "w153", "w160")
    line = snippet(text, words=12)
    assert line.startswith("…") and line.endswith("…")
    assert "**w150** w151 w152 **w153**" in line and "w10 " not in line
    assert len(line.strip("…").split()) == 12


def test_a_bold_word_takes_in_the_marks_written_on_its_last_letter() -> None:
    """FTS5 ends a Hindi or Thai word before a vowel sign, which was left outside the bold."""
    assert snippet(f"शहर {START}कोलकात{END}ा है") == "शहर **कोलकाता** है"
    assert snippet(f"{START}ท{END}ี่{START}น{END}ี่ ok") == "**ที่นี่** ok"


def test_a_snippet_of_a_short_page_is_the_page_on_one_line() -> None:
    assert snippet(marked("# Title\n\nSome  text\nwith retries.", "retries")) == "# Title Some text with **retries**."


def test_matches_in_code_bold_the_whole_code_span() -> None:
    text = marked("Set `max_retries` or ``a `tick` retries`` and retries.", "retries")
    assert snippet(text) == "Set **`max_retries`** or **``a `tick` retries``** and **retries**."


def test_a_long_code_block_cut_by_the_snippet_keeps_plain_bold() -> None:
    code = "```\n" + " ".join(f"line{i}" for i in range(100)) + " retries here " + " ".join(f"x{i}" for i in range(100)) + "\n```"
    line = snippet(marked(code, "retries"), words=10)
    assert "**retries**" in line and "```" not in line


def test_matched_cjk_characters_are_one_bold_run() -> None:
    text = f"見{SEGMENT}{START}東{END}{SEGMENT}{START}京{END}{SEGMENT}都"
    assert snippet(text) == "見**東京**都"


@pytest.mark.parametrize(
    ("content", "declared", "language"),
    [
        ("Set the retries and the backoff of the client to what is needed for this service.", None, "en"),
        ("Die Wiederholungen werden mit der Einstellung gesetzt, und das ist nicht schwer für den Betrieb.", None, "de"),
        ("Les tentatives sont réglées dans la configuration et le client est prêt pour le service.", None, "fr"),
        ("東京都に住んでいます", None, None),
        ("zyx qwv plo", None, None),
        ("anything", "pt-BR", "pt"),
    ],
)
def test_a_pages_language(content: str, declared: str | None, language: str | None) -> None:
    assert page_language(IndexedPage("https://a.example.com/", "T", content, 0.0, language=declared)) == language
