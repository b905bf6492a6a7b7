"""Real pages in legacy encodings, served from 127.0.0.1, read as a browser reads them.

Each page is written in its own language and encoded in its encoding; it declares that
encoding in the ``Content-Type`` header, in ``<meta charset>``, in ``<meta http-equiv>``, or
wrongly (UTF-8 bytes labelled as a legacy encoding), or not at all. The extracted text must
hold the page's sentences character for character, including the characters that only the
Windows supersets browsers use for those labels have (cp932's ㈱ ①, cp949's 똠).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from webproviders import dispatch_extract
from webproviders.config import config_from_dict

from .fetch_site import serve

#: (encoding the bytes are in, a paragraph in a language that encoding is used for).
TEXTS: dict[str, tuple[str, str]] = {
    "gb2312": ("gb2312", "北京市今天发布了新的城市规划。规划提出，未来五年将建设更多的公园和图书馆，方便市民的日常生活。"
               "专家认为，这一计划有助于提高城市的宜居水平，也将带动周边地区的发展。"),
    # 镕 and 堃 are in GBK (and GB18030) but not in GB2312: the label means the superset.
    "gbk": ("gbk", "朱镕基和王堃出席了会议。会议讨论了经济发展和环境保护的问题，与会者一致同意加强合作，"
            "共同推动地区的繁荣与稳定。会后双方签署了多项合作协议。"),
    # ㈱ ① ② ③ are NEC extensions: in windows-31J (cp932), not in plain Shift_JIS.
    "shift_jis": ("cp932", "㈱山田商事は新しい工場を建設すると発表しました。計画は①用地の取得、②設備の導入、"
                  "③人材の採用の三段階で進められます。同社の社長は地域経済への貢献を強調しました。"),
    "big5": ("big5hkscs", "台北市立圖書館總館自下個月起，將延長開放時間至晚上十一點，並在週末舉辦親子共讀活動。"
             "館方表示，這項措施是為了回應上班族與學生的需求，讓更多市民能在下班或放學後到館閱讀。"),
    "euc-jp": ("euc_jp", "東京の桜は今年も例年より早く咲き始めました。上野公園には多くの花見客が訪れ、"
               "満開の桜の下で食事や会話を楽しんでいます。気象庁によると、見頃は来週まで続く見込みです。"),
    # 똠 is in windows-949 (cp949), not in plain EUC-KR.
    "euc-kr": ("cp949", "서울시는 올해 새로운 도서관 열 곳을 열 계획이라고 밝혔습니다. 똠양꿍을 파는 식당도 "
               "시장 근처에 새로 문을 열었습니다. 시민들은 더 많은 문화 공간이 생기는 것을 환영했습니다."),
    "windows-1251": ("cp1251", "Московский метрополитен открыл три новые станции на юго-западе города. "
                     "Пассажиры теперь могут добраться до центра быстрее, чем раньше. «Это важный день», — "
                     "сказал мэр на церемонии открытия."),
    "koi8-r": ("koi8_r", "В Санкт-Петербурге прошёл традиционный праздник белых ночей. Тысячи жителей и "
               "гостей города собрались на набережной Невы, чтобы увидеть алые паруса и праздничный салют."),
    "windows-1254": ("cp1254", "İstanbul Büyükşehir Belediyesi, Kağıthane ile havalimanı arasındaki yeni metro hattını "
                     "bugün hizmete açtı. Yolculuk süresi yarım saate düştü. Yolcular ilk gün ücretsiz seyahat etti."),
    # Pages labelled ISO-8859-1 use windows-1252's € and curly quotes: browsers read them so.
    "iso-8859-1": ("cp1252", "Le café coûte désormais 2 € au comptoir. « C’est trop cher », dit un habitué, "
                   "qui vient ici chaque matin depuis vingt ans. Le patron répond que le prix du lait a doublé."),
}


#: Korean in KS X 1001 alone (ISO-2022-KR holds no more): dense with ISO-2022-KR's SO and SI,
#: which switch between Korean and ASCII at every space.
KOREAN = ("대한민국은 민주공화국이다. 대한민국의 주권은 국민에게 있고, 모든 권력은 국민으로부터 나온다. "
          "서울의 도서관은 주말에도 문을 연다.")


#: What is read without chardetng: pages in these encodings, in their own language.
WITHOUT_CHARDETNG = ["gb2312", "gbk", "shift_jis", "big5", "euc-jp", "euc-kr", "windows-1251", "koi8-r", "iso-8859-1"]


def needs_chardetng() -> None:
    """Skip where chardetng is not installed (Python 3.15): what it reads beyond
    :data:`WITHOUT_CHARDETNG` (a page's top-level domain, a short Turkish page) is its own."""
    if importlib.util.find_spec("chardetng_py") is None:
        pytest.skip("chardetng is not installed (it has no wheel for this Python): charset-normalizer detects")


#: NEC row 13 (① ㈱ ㌔, where JIS X 0213 has them too) and two NEC-selected IBM kanji (纊 髙, rows
#: 89 and 92), as EUC-JP and ISO-2022-JP pages written on Windows hold them: browsers read them
#: from the index Shift_JIS shares with those encodings.
JIS_EXTENSIONS = "㈱山田商事は①用地の取得、②設備の導入、③人材の採用の三段階で新工場を建設します。駅から約２㌔、纊髙"
JIS_EXTENSIONS_EUC = JIS_EXTENSIONS[:-2].encode("euc_jis_2004") + b"\xf9\xa1\xfc\xe2"


#: 12 KB of inline script: ASCII that says nothing about the page's encoding.
SCRIPT = "<script>" + "window.dataLayer.push({event: 'page_view', section: 'news'});\n" * 200 + "</script>"


#: 300 KB of it: a head many pages have, past where the body's bytes used to be looked at.
LONG_SCRIPT = SCRIPT * 25
LONG_HEAD_LABELS = ["gbk", "shift_jis", "euc-kr", "windows-1251"]

#: An English shop's paragraph: pages in a legacy encoding often hold more English than their
#: own language, and Shift_JIS writes curly quotes as two bytes the second of which is ASCII.
ENGLISH = ("<p>Our store ships worldwide. Prices include tax; delivery takes three to five days. "
           "Read the reviews below before you buy.</p>") * 4


def symbol(codec: str) -> str:
    """A sign the page's encoding holds, as a script early in a head writes one."""
    return next(sign for sign in "×·«" if sign.encode(codec, errors="ignore"))


def page(title: str, text: str, head: str = "") -> str:
    return (
        f"<!DOCTYPE html><html><head>{head}<title>{title}</title></head><body>"
        f"<nav><a href='/'>Home</a></nav><article><h1>{title}</h1><p>{text}</p><p>{text}</p></article>"
        "<footer>Footer</footer></body></html>"
    )


def build_site() -> dict[str, tuple[bytes, str]]:
    """Path -> (body, Content-Type) for every encoding, declared every way."""
    pages: dict[str, tuple[bytes, str]] = {}
    for label, (codec, text) in TEXTS.items():
        pages[f"/header/{label}"] = (page(label, text).encode(codec), f"text/html; charset={label}")
        pages[f"/meta/{label}"] = (page(label, text, f'<meta charset="{label}">').encode(codec), "text/html")
        equiv = f'<meta http-equiv="Content-Type" content="text/html; charset={label}">'
        pages[f"/equiv/{label}"] = (page(label, text, equiv).encode(codec), "text/html")
        pages[f"/undeclared/{label}"] = (page(label, text).encode(codec), "text/html")
        # UTF-8 bytes labelled as the legacy encoding, in the header and in the page.
        pages[f"/mislabelled-meta/{label}"] = (page(label, text, f'<meta charset="{label}">').encode(), "text/html")
        pages[f"/mislabelled-header/{label}"] = (page(label, text).encode(), f"text/html; charset={label}")
        # The declaration, or the text, after a long inline script in the head (as many pages have).
        late = f'{SCRIPT}<meta charset="{label}">'
        pages[f"/late-meta/{label}"] = (page(label, text, late).encode(codec), "text/html")
        pages[f"/undeclared-after-script/{label}"] = (page(label, text, SCRIPT).encode(codec), "text/html")
        # Legacy bytes behind a server whose header says utf-8 for every page.
        pages[f"/utf8-header/{label}"] = (page(label, text).encode(codec), "text/html; charset=utf-8")
    for label in LONG_HEAD_LABELS:
        codec, text = TEXTS[label]
        long_head = page(label, text, LONG_SCRIPT).encode(codec)
        pages[f"/long-head/undeclared/{label}"] = (long_head, "text/html")
        pages[f"/long-head/utf8-header/{label}"] = (long_head, "text/html; charset=utf-8")
        # One sign in a script at the head's start, then 300 KB of script before the text.
        early = f"<script>var sep = '{symbol(codec)}';</script>{LONG_SCRIPT}"
        pages[f"/long-head/sign-first/{label}"] = (page(label, text, early).encode(codec), "text/html")
    for label, (codec, text) in TEXTS.items():
        mixed = f"<html><head><title>Shop</title></head><body>{ENGLISH}<p>{text}</p>{ENGLISH}</body></html>"
        pages[f"/mostly-english/{label}"] = (mixed.encode(codec), "text/html")
    # EUC-JP whose pairs are half of them valid UTF-8, behind a server's utf-8 for every page.
    japanese = "日本語の文章を書くときは、漢字と平仮名と片仮名を使い分けることが大切です。"
    pages["/utf8-header/half-utf8-euc-jp"] = (page("euc-jp", japanese).encode("euc_jp"), "text/html; charset=utf-8")
    # Detection takes Turkish for Baltic (windows-1257): the page's own declaration says better.
    codec, text = TEXTS["windows-1254"]
    turkish = page("tr", text, '<meta charset="windows-1254">' + LONG_SCRIPT).encode(codec)
    pages["/long-head/utf8-header-meta/windows-1254"] = (turkish, "text/html; charset=utf-8")
    # A mail archive's index in ISO-2022-JP: an escape (ESC) between each run of Japanese and ASCII.
    rows = "".join(f"<li>2024年5月{day}日(水) 第{day}回 会議の議事録</li>" for day in range(1, 29))
    listing = f"<html><head><title>議事録の一覧</title></head><body><h1>議事録の一覧</h1><ul>{rows}</ul></body></html>"
    pages["/iso-2022-jp/listing"] = (listing.encode("iso2022_jp"), "text/html; charset=iso-2022-jp")
    # The same behind a server's own label for every page.
    for label in ("shift_jis", "utf-8"):
        pages[f"/iso-2022-jp/under-{label}"] = (listing.encode("iso2022_jp"), f"text/html; charset={label}")
    # UTF-8 with one stray windows-1252 byte: still UTF-8, or every other character is lost.
    stray = page("stray", TEXTS["windows-1251"][1]).encode().replace(b"</article>", b"\x96</article>")
    pages["/utf8-header/stray-byte"] = (stray, "text/html; charset=utf-8")
    text = TEXTS["gb2312"][1]
    pages["/utf-16/bom"] = (page("utf-16", text).encode("utf-16"), "text/html")
    pages["/utf-16/header-le"] = (page("utf-16", text).encode("utf-16-le"), "text/html; charset=utf-16le")
    pages["/utf-16/header-be"] = (page("utf-16", text).encode("utf-16-be"), "text/html; charset=utf-16be")
    # No byte-order mark, and a label that names no byte order, or the wrong one: the NULs tell it.
    pages["/utf-16/header-utf-16-over-be"] = (page("utf-16", text).encode("utf-16-be"), "text/html; charset=utf-16")
    pages["/utf-16/header-le-over-be"] = (page("utf-16", text).encode("utf-16-be"), "text/html; charset=utf-16le")
    # No byte-order mark and nothing declared: the NULs beside the markup's letters tell the order.
    pages["/utf-16/undeclared-le"] = (page("utf-16", "一" + text).encode("utf-16-le"), "text/html")
    pages["/utf-16/undeclared-be"] = (page("utf-16", "一" + text).encode("utf-16-be"), "text/html")
    # One NUL at the end of a short page: no sign of UTF-16.
    pages["/utf-16/one-nul"] = (b"<b>Hi you</b>\0", "text/html")
    # An old declaration left commented out before the real one: browsers skip comments.
    for label in ("windows-1251", "shift_jis"):
        codec, text = TEXTS[label]
        head = f'<!-- <meta charset="iso-8859-1"> --><meta charset="{label}">'
        pages[f"/commented-meta/{label}"] = (page(label, text, head).encode(codec), "text/html")
    # UTF-8 that declares UTF-16 (as .NET's XML writers do): a declaration read as ASCII is no UTF-16.
    ru = TEXTS["windows-1251"][1]
    feed = (f'<?xml version="1.0" encoding="utf-16"?><rss version="2.0"><channel><title>Новости</title>'
            f"<item><title>Метро</title><link>http://news.test/1</link><description>{ru}</description></item>"
            "</channel></rss>")
    pages["/utf-16-declared/feed"] = (feed.encode(), "application/rss+xml")
    pages["/utf-16-declared/xhtml"] = (('<?xml version="1.0" encoding="UTF-16"?>' + page("xhtml", ru)).encode(),
                                       "application/xhtml+xml")
    # The same from the server's header: its page is UTF-8 all the same, with no NUL beside its markup.
    pages["/utf-16-declared/header"] = (page("header", ru).encode(), "text/html; charset=utf-16")
    # A label no browser knows (Windows' name for Big5): detection, which reads the label as a hint.
    big5 = TEXTS["big5"][1]
    pages["/unknown-label/cp950"] = (page("cp950", big5, '<meta charset="cp950">').encode("big5hkscs"), "text/html")
    jis = b"\x1b$B" + bytes(byte - 0x80 for byte in JIS_EXTENSIONS_EUC) + b"\x1b(B"
    for label, text in (("euc-jp", JIS_EXTENSIONS_EUC), ("iso-2022-jp", jis)):
        pages[f"/jis-extensions/{label}"] = (page(label, "TEXT").encode().replace(b"TEXT", text), f"text/html; charset={label}")
    pages["/jis-extensions/undeclared-iso-2022-jp"] = (page("jis", "TEXT").encode().replace(b"TEXT", jis), "text/html")
    # The encodings the standard's "replacement" labels name, which browsers show as one U+FFFD.
    for how, head, content_type in (("header", "", "text/html; charset=iso-2022-kr"),
                                    ("meta", '<meta charset="csISO2022KR">', "text/html"), ("undeclared", "", "text/html")):
        pages[f"/iso-2022-kr/{how}"] = (page("헌법", KOREAN, head).encode("iso2022_kr"), content_type)
    pages["/iso-2022-kr/plain"] = (KOREAN.encode("iso2022_kr"), "text/plain; charset=iso-2022-kr")
    pages["/hz-gb-2312/header"] = (page("hz", TEXTS["gb2312"][1]).encode("hz"), "text/html; charset=HZ-GB-2312")
    # A 7-bit encoding declared over a page in an 8-bit one (each of its bytes past ASCII was a U+FFFD).
    for label in ("shift_jis", "euc-jp"):
        codec, text = TEXTS[label]
        pages[f"/iso-2022-jp/{label}-body"] = (page(label, text).encode(codec), "text/html; charset=iso-2022-jp")
    return pages


SITE = build_site()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body, content_type = SITE[self.path]
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def extracted() -> Iterator[dict[str, dict[str, Any]]]:
    """Every page of the site, extracted through dispatch (in batches of 20, the call's limit)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    serve(server)
    config = config_from_dict({"web": {"allow_private_networks": True}}, source="<test>")
    base = f"http://127.0.0.1:{server.server_address[1]}"
    paths = list(SITE)
    items: dict[str, dict[str, Any]] = {}
    for at in range(0, len(paths), 20):
        batch = [base + path for path in paths[at : at + 20]]
        envelope = dispatch_extract(batch, backend="http", config=config, timeout=60)
        assert envelope["success"] is True, envelope
        for item in envelope["data"]:
            items[item["url"].removeprefix(base)] = item
    yield items
    server.shutdown()
    server.server_close()


def sentences(text: str) -> list[str]:
    """The paragraph cut at its sentence ends (extraction may wrap lines between them)."""
    for end in "。.":
        text = text.replace(end, end + "\n")
    return [s.strip() for s in text.split("\n") if s.strip()]


@pytest.mark.parametrize("how", ["header", "meta", "equiv", "mislabelled-meta", "mislabelled-header"])
@pytest.mark.parametrize("label", list(TEXTS))
def test_declared_and_mislabelled_pages_read_right(extracted: dict[str, dict[str, Any]], label: str, how: str) -> None:
    item = extracted[f"/{how}/{label}"]
    assert "error" not in item, item
    for sentence in sentences(TEXTS[label][1]):
        assert sentence in item["content"], (label, how, sentence, item["content"][:300])
    assert "\ufffd" not in item["content"]


def test_declared_label_is_decoded_as_its_browser_superset(extracted: dict[str, dict[str, Any]]) -> None:
    codecs = {label: extracted[f"/header/{label}"]["metadata"]["encoding"] for label in TEXTS}
    assert codecs["shift_jis"] == "cp932"
    assert codecs["euc-kr"] == "cp949"
    assert codecs["gb2312"] == codecs["gbk"] == "gb18030"
    assert codecs["iso-8859-1"] == "cp1252"
    assert extracted["/mislabelled-meta/gb2312"]["metadata"]["encoding"] == "utf-8"


@pytest.mark.parametrize("label", ["koi8-u", "KOI8-RU"])
def test_a_koi8_u_page_reads_the_belarusian_letters_browsers_read(label: str) -> None:
    """Browsers' KOI8-U (the WHATWG table, which takes in KOI8-RU) has ў and Ў at 0xAE and
    0xBE, where Python's has box-drawing characters: ``ўсё`` read ``╝сё``."""
    from webproviders.fetching.charset import decode

    body = "Беларуская мова: ".encode("koi8_u") + b"\xae" + "сё добра. ".encode("koi8_u") + b"\xbe" + "зор, ґанок, їжак.".encode("koi8_u")
    assert decode(body, f"text/html; charset={label}", "html") == ("Беларуская мова: ўсё добра. Ўзор, ґанок, їжак.", "koi8-u")


@pytest.mark.parametrize("label", ["gbk", "gb2312", "GB18030"])
def test_the_euro_sign_of_a_gbk_page_is_read_as_browsers_read_it(label: str) -> None:
    """Code page 936 writes € as the single byte 0x80, which browsers' GBK decoder reads and
    Python's gb18030 refuses (it came back as U+FFFD)."""
    from webproviders.fetching.charset import decode

    body = "售价：100".encode("gbk") + b"\x80" + "，包邮。".encode("gbk")
    assert decode(body, f"text/html; charset={label}", "html") == ("售价：100€，包邮。", "gb18030")


@pytest.mark.parametrize("label", list(TEXTS))
def test_a_meta_charset_after_a_long_script_in_the_head_is_read(
    extracted: dict[str, dict[str, Any]], label: str
) -> None:
    item = extracted[f"/late-meta/{label}"]
    for sentence in sentences(TEXTS[label][1]):
        assert sentence in item["content"], (label, sentence, item["content"][:300])


@pytest.mark.parametrize("label", ["gbk", "shift_jis", "euc-jp", "euc-kr", "windows-1251", "koi8-r", "iso-8859-1"])
def test_an_undeclared_page_after_a_long_script_is_detected(extracted: dict[str, dict[str, Any]], label: str) -> None:
    content = extracted[f"/undeclared-after-script/{label}"]["content"]
    assert sentences(TEXTS[label][1])[0] in content, (label, content[:300])


@pytest.mark.parametrize("label", list(TEXTS))
def test_undeclared_pages_are_detected(extracted: dict[str, dict[str, Any]], label: str) -> None:
    if label not in WITHOUT_CHARDETNG:
        needs_chardetng()
    content = extracted[f"/undeclared/{label}"]["content"]
    assert sentences(TEXTS[label][1])[0] in content


@pytest.mark.parametrize("label", ["gbk", "shift_jis", "euc-jp", "euc-kr", "windows-1251", "koi8-r", "iso-8859-1"])
def test_a_page_in_a_legacy_encoding_behind_a_utf8_header_is_detected(
    extracted: dict[str, dict[str, Any]], label: str
) -> None:
    """A server that says utf-8 for every page: such a page came back as U+FFFD marks only."""
    item = extracted[f"/utf8-header/{label}"]
    for sentence in sentences(TEXTS[label][1]):
        assert sentence in item["content"], (label, sentence, item["content"][:300])
    assert "\ufffd" not in item["content"]


@pytest.mark.parametrize("label", list(TEXTS))
def test_an_undeclared_page_mostly_in_english_is_detected(extracted: dict[str, dict[str, Any]], label: str) -> None:
    """Its bytes were read with the ASCII runs cut out, which cut Shift_JIS and Big5 characters
    in two: the page came back as windows-1252."""
    if label not in WITHOUT_CHARDETNG:
        needs_chardetng()
    item = extracted[f"/mostly-english/{label}"]
    for sentence in sentences(TEXTS[label][1]):
        assert sentence in item["content"], (label, sentence, item["content"][:300])


@pytest.mark.parametrize("label", LONG_HEAD_LABELS)
def test_an_undeclared_page_with_a_sign_before_300_kb_of_script_is_detected(
    extracted: dict[str, dict[str, Any]], label: str
) -> None:
    """Its bytes were read from the sign on, for 256 KB of script: the text was never looked at."""
    item = extracted[f"/long-head/sign-first/{label}"]
    for sentence in sentences(TEXTS[label][1]):
        assert sentence in item["content"], (label, sentence, item["content"][:300])


@pytest.mark.parametrize(
    ("text", "codec", "url"),
    [("日本語", "cp932", "http://example.jp/"), ("価格", "euc_jp", "https://shop.example.jp/a"),
     ("서울", "cp949", "http://example.kr/")],
)
def test_a_short_undeclared_page_is_read_as_its_domain_suggests(text: str, codec: str, url: str) -> None:
    """Two or three characters say too little; the address's top-level domain, as Firefox weighs
    it, says the rest (without it these read as windows-1250, windows-949 or ISO-8859-5)."""
    from webproviders.fetching.charset import decode

    needs_chardetng()
    assert decode(f"<p>{text}</p>".encode(codec), None, "html", url) == (f"<p>{text}</p>", codec)


def test_euc_jp_half_of_whose_pairs_are_valid_utf8_is_not_read_as_utf8(extracted: dict[str, dict[str, Any]]) -> None:
    """Behind a header saying utf-8: 49% of its non-ASCII bytes are not UTF-8, short of the most
    once asked for, and it came back as U+FFFD marks and stray letters."""
    item = extracted["/utf8-header/half-utf8-euc-jp"]
    assert item["metadata"]["encoding"] == "euc_jp"
    assert "日本語の文章を書くときは、漢字と平仮名と片仮名を使い分けることが大切です。" in item["content"]


def test_utf8_with_a_stray_byte_stays_utf8(extracted: dict[str, dict[str, Any]]) -> None:
    item = extracted["/utf8-header/stray-byte"]
    assert item["metadata"]["encoding"] == "utf-8"
    assert sentences(TEXTS["windows-1251"][1])[0] in item["content"]


@pytest.mark.parametrize(
    "path",
    [
        "/utf-16/bom", "/utf-16/header-le", "/utf-16/header-be", "/utf-16/undeclared-le", "/utf-16/undeclared-be",
        "/utf-16/header-utf-16-over-be", "/utf-16/header-le-over-be",
    ],
)
def test_utf16_pages(extracted: dict[str, dict[str, Any]], path: str) -> None:
    """Big-endian without a byte-order mark under ``charset=utf-16`` (which names no order; RFC 2781
    reads it as big-endian) or ``utf-16le`` was read as little-endian: a run of CJK characters."""
    item = extracted[path]
    assert "error" not in item, item
    assert sentences(TEXTS["gb2312"][1])[0] in item["content"]


def test_one_nul_byte_in_a_short_undeclared_page_is_no_sign_of_utf16(extracted: dict[str, dict[str, Any]]) -> None:
    """It was read as UTF-16LE: "Hi you" came back as CJK characters."""
    item = extracted["/utf-16/one-nul"]
    assert (item["content"], item["metadata"]["encoding"]) == ("**Hi you**", "utf-8"), item


@pytest.mark.parametrize("path", ["/utf-16-declared/feed", "/utf-16-declared/xhtml", "/utf-16-declared/header"])
def test_utf8_declaring_utf16_in_its_xml_declaration_or_header_is_read_as_utf8(
    extracted: dict[str, dict[str, Any]], path: str
) -> None:
    item = extracted[path]
    assert item["metadata"]["encoding"] == "utf-8"
    assert sentences(TEXTS["windows-1251"][1])[0] in item["content"], item["content"][:300]


@pytest.mark.parametrize("label", ["windows-1251", "shift_jis"])
def test_a_commented_out_meta_charset_is_not_read(extracted: dict[str, dict[str, Any]], label: str) -> None:
    item = extracted[f"/commented-meta/{label}"]
    assert sentences(TEXTS[label][1])[0] in item["content"], item["content"][:300]


@pytest.mark.parametrize("label", ["euc-jp", "iso-2022-jp", "undeclared-iso-2022-jp"])
def test_nec_and_ibm_characters_of_japanese_pages_are_read(extracted: dict[str, dict[str, Any]], label: str) -> None:
    """① ㈱ 髙 were lost in EUC-JP and ISO-2022-JP, and in EUC-JP each garbled the characters after it."""
    item = extracted[f"/jis-extensions/{label}"]
    assert JIS_EXTENSIONS in item["content"], item["content"][:300]
    assert "\ufffd" not in item["content"]


def test_a_big5_page_labelled_cp950_is_read(extracted: dict[str, dict[str, Any]]) -> None:
    """Detection names Windows' Big5 (cp950) when a page says so: it was read as windows-1252."""
    item = extracted["/unknown-label/cp950"]
    assert item["metadata"]["encoding"] == "big5hkscs"
    for sentence in sentences(TEXTS["big5"][1]):
        assert sentence in item["content"], (sentence, item["content"][:300])


@pytest.mark.parametrize("how", ["undeclared", "utf8-header"])
@pytest.mark.parametrize("label", LONG_HEAD_LABELS)
def test_a_legacy_page_after_300_kb_of_script_is_read(extracted: dict[str, dict[str, Any]], label: str, how: str) -> None:
    """Undeclared, or behind a server's ``utf-8`` for every page: its bytes were looked at only in
    the first KBs, all script, and it came back as windows-1252 or U+FFFD marks."""
    item = extracted[f"/long-head/{how}/{label}"]
    for sentence in sentences(TEXTS[label][1]):
        assert sentence in item["content"], (label, how, sentence, item["content"][:300])


def test_a_legacy_page_behind_a_utf8_header_is_read_by_its_own_meta(extracted: dict[str, dict[str, Any]]) -> None:
    """The header lied; the page's ``<meta>`` is the next thing browsers would read, before detection."""
    item = extracted["/long-head/utf8-header-meta/windows-1254"]
    assert item["metadata"]["encoding"] == "cp1254"
    for sentence in sentences(TEXTS["windows-1254"][1]):
        assert sentence in item["content"], (sentence, item["content"][:300])


def test_an_iso_2022_jp_listing_dense_with_escapes_is_text(extracted: dict[str, dict[str, Any]]) -> None:
    """One byte in seven of it is ESC, which is no sign of a binary file (it was ``unsupported``)."""
    item = extracted["/iso-2022-jp/listing"]
    assert "error" not in item, item
    assert "2024年5月3日(水) 第3回 会議の議事録" in item["content"]


@pytest.mark.parametrize("how", ["header", "meta", "undeclared", "plain"])
def test_an_iso_2022_kr_page_is_read(extracted: dict[str, dict[str, Any]], how: str) -> None:
    """Its label counted as none, so its 7-bit bytes were read as ASCII and came back as a success
    of ``$)CGe9}`` and the like; as text/plain, its SO and SI bytes made it ``unsupported``."""
    item = extracted[f"/iso-2022-kr/{how}"]
    assert item["metadata"]["encoding"] == "iso2022_kr", item
    for sentence in sentences(KOREAN):
        assert sentence in item["content"], (how, sentence, item["content"][:300])


def test_an_hz_page_is_read(extracted: dict[str, dict[str, Any]]) -> None:
    """Its label counted as none, so it came back as its 7-bit bytes (``~{...~}`` around runs of
    ASCII letters) as a success."""
    item = extracted["/hz-gb-2312/header"]
    for sentence in sentences(TEXTS["gb2312"][1]):
        assert sentence in item["content"], (sentence, item["content"][:300])


@pytest.mark.parametrize("label", ["shift_jis", "euc-jp"])
def test_a_page_in_an_8_bit_encoding_declared_iso_2022_jp_is_detected(
    extracted: dict[str, dict[str, Any]], label: str
) -> None:
    """ISO-2022-JP has no byte past ASCII: such a page came back as a run of U+FFFD marks."""
    item = extracted[f"/iso-2022-jp/{label}-body"]
    for sentence in sentences(TEXTS[label][1]):
        assert sentence in item["content"], (label, sentence, item["content"][:300])
    assert "\ufffd" not in item["content"]


@pytest.mark.parametrize("label", ["shift_jis", "utf-8"])
def test_an_iso_2022_jp_page_behind_a_servers_label_for_every_page_is_read(
    extracted: dict[str, dict[str, Any]], label: str
) -> None:
    """Its escapes are no text in any other encoding: it came back as ``$BF|K\\8l`` and the like."""
    item = extracted[f"/iso-2022-jp/under-{label}"]
    assert item["metadata"]["encoding"] == "iso2022_jp_ext", item["metadata"]
    assert "2024年5月3日(水) 第3回 会議の議事録" in item["content"]


def test_undeclared_pages_are_detected_where_chardetng_is_not_installed() -> None:
    """chardetng publishes no wheel for Python 3.15, where it is not installed: detection is then
    charset-normalizer's, and a page in its own language still reads right (before, the first
    undeclared page raised ImportError). Run where importing chardetng fails, as it does there."""
    code = (
        "import json, sys\n"
        "sys.modules['chardetng_py'] = None  # importing it raises ImportError, as where it is not installed\n"
        "from webproviders.fetching.charset import decode\n"
        "pages = json.loads(sys.stdin.read())\n"
        "print(json.dumps({label: decode(body.encode(codec), 'text/html', 'html', 'http://example.org/')[0]"
        " for label, (codec, body) in pages.items()}))\n"
    )
    pages = {label: (TEXTS[label][0], f"<html><body><p>{TEXTS[label][1]}</p></body></html>") for label in WITHOUT_CHARDETNG}
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(pages), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    read = json.loads(done.stdout)
    for label in WITHOUT_CHARDETNG:
        assert TEXTS[label][1] in read[label], (label, read[label][:200])
