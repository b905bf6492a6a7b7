"""baidu_html: Baidu's results page, against saved pages."""

from __future__ import annotations

import asyncio
import re

import httpx
import lxml.html
import pytest
import respx

from webproviders import adispatch_search, dispatch_search
from webproviders.errors import ParseError

URL = "https://www.baidu.com/s"
WAPPASS = "https://wappass.baidu.com/static/captcha/tuxing.html?&logid=11506013012345&ak=c27bbc89afca0463650ac9bde68ebe06&backurl=https%3A%2F%2Fwww.baidu.com%2Fs%3Fwd%3Dpython&signature=0f1e2d3c&timestamp=1760000000"


def test_results_page_hits_lead_to_the_mu_destination(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(
            200,
            text=page("baidu_results.html"),
            headers={"Content-Type": "text/html;charset=utf-8"},
        )
        envelope = dispatch_search("python 异步编程", 10, backend="baidu_html", config=cfg())
    assert envelope["success"] is True and envelope["provider"] == "baidu_html"
    hits = envelope["data"]["web"]
    assert [h["title"] for h in hits] == [
        "asyncio --- 异步 I/O — Python 3.13.1 文档",
        "Python异步编程详解 - 知乎",
        "异步编程 - 百度百科",
        "Python asyncio 模块 | 菜鸟教程",
        "Async IO in Python: A Complete Walkthrough",
    ]
    assert [h["url"] for h in hits] == [
        "https://docs.python.org/zh-cn/3/library/asyncio.html",
        "https://zhuanlan.zhihu.com/p/137057192",
        "https://baike.baidu.com/item/%E5%BC%82%E6%AD%A5%E7%BC%96%E7%A8%8B/22653548",
        "https://www.runoob.com/python3/python-asyncio.html",
        "https://realpython.com/async-io-python/",
    ]
    # Baidu's redirect stays beside the destination.
    assert hits[0]["metadata"] == {
        "redirect_url": "http://www.baidu.com/link?url=q4VZf5x2mSTwLKd3g8Hc7n1tRQeJ0aYbC6uEiWvF9pXoN2sMkUl5AhTjGrDyB8z"
    }
    assert all(
        h["metadata"]["redirect_url"].startswith("http://www.baidu.com/link?url=") for h in hits
    )
    # The display URL is what the page shows, else the destination's host and path.
    assert [h["display_url"] for h in hits] == [
        "docs.python.org/zh-cn/3/library/asyncio.html",
        "知乎",
        "百度百科",
        "www.runoob.com/python3/pyth...",
        "realpython.com/async-io-python",
    ]
    # The date is metadata, not part of the description.
    assert hits[0]["published_at"] == "2024-12-03"
    assert hits[0]["description"].startswith("asyncio 是用来编写 并发 代码的库")
    assert hits[1]["published_at"] == "2020-05-06"
    assert hits[1]["description"].startswith("本文从协程讲起")
    assert hits[3]["published_at"] == "2025-03-18"
    # The video aggregate (result-op) is not an organic result.
    assert not any("相关视频" in h["title"] for h in hits)


def test_a_block_without_mu_keeps_the_redirect_as_its_url(plugin_module, page):
    parse = plugin_module("baidu_html", "parse")
    html = page("baidu_results.html").replace(' mu="https://zhuanlan.zhihu.com/p/137057192"', "")
    second = parse.parse_page(html)[1]
    assert second["url"].startswith("http://www.baidu.com/link?url=Zh1Hu2p3")
    assert "metadata" not in second
    assert second["display_url"] == "知乎"


@pytest.mark.parametrize("placeholder", ["http://nourl.ubs.baidu.com/51270", "http://28608.recommend_list.baidu.com"])
def test_a_placeholder_mu_is_not_the_hit_s_url(cfg, page, placeholder):
    """Baidu sets ``mu`` to a placeholder on some blocks; it leads nowhere, so such a hit was a
    dead link: the title link's redirect, which leads to the page, is its URL."""
    html = page("baidu_results.html").replace('mu="https://zhuanlan.zhihu.com/p/137057192"', f'mu="{placeholder}"')
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, text=html, headers={"Content-Type": "text/html;charset=utf-8"})
        envelope = dispatch_search("python 异步编程", 10, backend="baidu_html", config=cfg())
    hits = envelope["data"]["web"]
    assert placeholder not in [hit["url"] for hit in hits]
    second = next(hit for hit in hits if hit["title"] == "Python异步编程详解 - 知乎")
    assert second["url"].startswith("http://www.baidu.com/link?url=Zh1Hu2p3")
    assert second["display_url"] == "知乎"


def test_a_baike_article_in_a_result_op_block_is_a_result(cfg, page):
    """Baidu serves a Baike article (``tpl="bk_polysemy"``, often the first result for a name)
    in a ``result-op`` block, as it serves its aggregates; it was dropped with them. The video
    aggregate still is."""
    html = page("baidu_results.html").replace(
        'class="c-container new-pmd xbc-container"', 'class="result-op c-container xpath-log new-pmd"'
    )
    assert 'class="result-op c-container xpath-log new-pmd" srcid="28608" id="4" tpl="bk_polysemy"' in html
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, text=html, headers={"Content-Type": "text/html;charset=utf-8"})
        envelope = dispatch_search("python 异步编程", 10, backend="baidu_html", config=cfg())
    hits = envelope["data"]["web"]
    baike = [hit for hit in hits if hit["title"] == "异步编程 - 百度百科"]
    assert baike and baike[0]["url"] == "https://baike.baidu.com/item/%E5%BC%82%E6%AD%A5%E7%BC%96%E7%A8%8B/22653548"
    assert baike[0]["description"].startswith("异步编程是一种")
    assert len(hits) == 5 and not any("相关视频" in hit["title"] for hit in hits)


def test_request_parameters_and_shared_network_settings(cfg, page):
    config = cfg(
        web={
            "user_agent": "ExampleAgent/2.0",
            "providers": {"http": {"timeout": 60, "url_timeout": 9}},
        }
    )
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, text=page("baidu_results.html"))
        dispatch_search("python 异步编程", 5, backend="baidu_html", config=config)
    request = route.calls.last.request
    assert request.url.params["wd"] == "python 异步编程"
    assert request.url.params["ie"] == "utf-8"
    assert request.url.params["rn"] == "10"
    assert request.headers["User-Agent"] == "ExampleAgent/2.0"
    assert request.headers["Accept-Language"].startswith("zh-CN")
    assert request.extensions["timeout"]["read"] == 9


def test_time_range_and_site_restriction(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, text=page("baidu_results.html"))
        envelope = dispatch_search(
            "python",
            5,
            backend="baidu_html",
            config=cfg(),
            time_range="week",
            include_domains=["python.org"],
        )
    params = route.calls.last.request.url.params
    match = re.fullmatch(r"stf=(\d+),(\d+)\|stftype=1", params["gpc"])
    assert match and int(match.group(2)) - int(match.group(1)) == 7 * 86_400
    assert (params["si"], params["ct"]) == ("python.org", "2336")
    assert "warnings" not in envelope["meta"]


def test_options_baidu_lacks_are_warnings(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, text=page("baidu_results.html"))
        envelope = dispatch_search(
            "python",
            5,
            backend="baidu_html",
            config=cfg(),
            country="cn",
            safe_search="strict",
            include_domains=["python.org", "zhihu.com"],
        )
    assert envelope["success"] is True
    warnings = " ".join(envelope["meta"]["warnings"])
    assert "baidu_html does not support country, safe_search" in warnings
    assert "ignored zhihu.com" in warnings
    assert route.calls.last.request.url.params["si"] == "python.org"


def test_unsupported_option_fails_when_configured_to(cfg):
    config = cfg(web={"on_unsupported": "error"})
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, text="")
        envelope = dispatch_search("python", 5, backend="baidu_html", config=config, lang="zh")
    assert envelope["error_code"] == "unsupported"
    assert not route.called


def test_ads_are_dropped(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, text=page("baidu_ads_redirects.html"))
        envelope = dispatch_search("英语培训", 10, backend="baidu_html", config=cfg())
    hits = envelope["data"]["web"]
    assert [h["title"] for h in hits] == [
        "成年人如何选择英语培训机构? - 知乎",
        "自学英语三年的经验分享 - 豆瓣",
    ]
    assert not any("baidu.php" in h["url"] for h in hits)
    assert [h["url"] for h in hits] == [
        "https://www.zhihu.com/question/20145239",
        "https://www.douban.com/group/topic/218834771/",
    ]
    redirect = hits[0]["metadata"]["redirect_url"]
    assert redirect.startswith("http://www.baidu.com/link?url=ZhihuQuestion20145239")
    assert "&eqid=" in redirect


def test_no_results_page_is_an_empty_success(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, text=page("baidu_no_results.html"))
        envelope = dispatch_search(
            "qzxvflurbnogwexlotrime7731", 5, backend="baidu_html", config=cfg()
        )
    assert envelope["success"] is True
    assert envelope["data"]["web"] == []


def test_verification_page_is_blocked_captcha(cfg, page):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, text=page("baidu_captcha.html"))
        envelope = dispatch_search("python", 5, backend="baidu_html", config=cfg())
    assert envelope["success"] is False
    assert (envelope["error_code"], envelope["detail"]) == ("blocked", "captcha_required")


def test_redirect_to_verification_is_reported_and_never_followed(cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(302, headers={"Location": WAPPASS})
        captcha = mock.get(url__startswith="https://wappass.baidu.com/").respond(
            200, text="<html></html>"
        )
        envelope = dispatch_search("python", 5, backend="baidu_html", config=cfg())
    assert (envelope["error_code"], envelope["detail"]) == ("blocked", "captcha_required")
    assert not captcha.called


def test_ordinary_redirect_is_followed(cfg, page, dns):
    """A hop is a local fetch: its host is resolved here (once) and checked first."""
    dns.answer("www.baidu.com", "93.184.216.34")
    config = cfg(web={"providers": {"baidu_html": {"base_url": "http://www.baidu.com"}}})
    with respx.mock(assert_all_called=False) as mock:
        mock.get("http://www.baidu.com/s").respond(
            302, headers={"Location": "https://www.baidu.com/s?wd=python&ie=utf-8"}
        )
        secure = mock.get(URL).respond(200, text=page("baidu_results.html"))
        envelope = dispatch_search("python", 3, backend="baidu_html", config=config)
    assert envelope["success"] is True and len(envelope["data"]["web"]) == 3
    assert secure.calls.last.request.url.params["wd"] == "python"
    assert dns.lookups == {"www.baidu.com": 1}


def test_403_and_429_are_blocked(cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL)
        route.side_effect = [
            httpx.Response(403, text="<html><body>Forbidden</body></html>"),
            httpx.Response(429, text="", headers={"Retry-After": "120"}),
        ]
        forbidden = dispatch_search("python", 5, backend="baidu_html", config=cfg())
        limited = dispatch_search("python", 5, backend="baidu_html", config=cfg())
    assert (forbidden["error_code"], forbidden["detail"]) == ("blocked", "http_403")
    assert (limited["error_code"], limited["detail"], limited["retry_after"]) == (
        "blocked",
        "http_429",
        120,
    )


def test_a_search_too_long_for_baidu_s_url_is_the_caller_s_input(cfg):
    """Baidu's query goes in the URL (``wd``, nine bytes a Chinese character once encoded); a
    414 for one too long was provider_error "answered HTTP 414", nothing to act on."""
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(414, text="<html><body><center><h1>414 Request-URI Too Large</h1></center></body></html>")
        envelope = dispatch_search("异步编程" * 400, 5, backend="baidu_html", config=cfg())
    assert envelope["success"] is False and envelope["error_code"] == "invalid_input", envelope
    assert "too long (HTTP 414)" in envelope["error"] and "shorten the query" in envelope["error"]


def test_5xx_is_bad_gateway(cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(502, text="<html><body>502 Bad Gateway</body></html>")
        envelope = dispatch_search("python", 5, backend="baidu_html", config=cfg())
    assert envelope["error_code"] == "bad_gateway"


def test_unrecognised_page_is_a_parse_error(cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, text="<html><body><div id='results_v2'>...</div></body></html>")
        envelope = dispatch_search("python", 5, backend="baidu_html", config=cfg())
    assert envelope["error_code"] == "parse_error"


def test_a_markup_change_is_a_one_line_selector_fix(plugin_module, page, monkeypatch):
    markup = plugin_module("baidu_html", "markup")
    parse = plugin_module("baidu_html", "parse")
    redesigned = page("baidu_ads_redirects.html").replace("<h3", "<h4").replace("</h3>", "</h4>")
    with pytest.raises(ParseError, match="markup may have changed"):
        parse.parse_page(redesigned)
    monkeypatch.setitem(markup.SELECTORS, "title_link", ".//h4//a[@href]")
    assert [h["title"] for h in parse.parse_page(redesigned)] == [
        "成年人如何选择英语培训机构? - 知乎",
        "自学英语三年的经验分享 - 豆瓣",
    ]


def test_a_column_of_unknown_blocks_is_a_parse_error_not_an_empty_success(cfg, page):
    # Baidu renamed its result class: the column is there, its blocks are not results we know.
    redesigned = page("baidu_results.html").replace("c-container", "card-item_4Xc9a")
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, text=redesigned)
        envelope = dispatch_search("python 异步编程", 5, backend="baidu_html", config=cfg())
    assert envelope["success"] is False
    assert envelope["error_code"] == "parse_error"
    assert "markup may have changed" in envelope["error"]


def test_an_ads_only_column_is_an_empty_success(plugin_module, page):
    parse = plugin_module("baidu_html", "parse")
    document = lxml.html.document_fromstring(page("baidu_ads_redirects.html"))
    for organic in document.xpath("//div[@mu]"):
        organic.drop_tree()
    assert parse.parse_page(lxml.html.tostring(document, encoding="unicode")) == []


def test_base_url_override_against_a_real_local_server(cfg, page, page_server):
    page_server.body = page("baidu_results.html").encode()
    config = cfg(web={"providers": {"baidu_html": {"base_url": page_server.url}}})
    envelope = dispatch_search("python 异步编程", 2, backend="baidu_html", config=config)
    assert envelope["success"] is True
    assert envelope["data"]["web"][0]["title"] == "asyncio --- 异步 I/O — Python 3.13.1 文档"
    method, path, _ = page_server.requests[-1]
    assert method == "GET" and path.startswith("/s?wd=python+%E5%BC%82%E6%AD%A5%E7%BC%96%E7%A8%8B")


def test_async_dispatch(cfg, page):
    async def run() -> dict:
        return await adispatch_search("python", 4, backend="baidu_html", config=cfg())

    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, text=page("baidu_results.html"))
        envelope = asyncio.run(run())
    assert envelope["success"] is True
    assert len(envelope["data"]["web"]) == 4


def test_auto_detected_after_other_keyless_backends(cfg):
    from webproviders import list_providers

    rows = {p["name"]: p for p in list_providers(cfg())}
    assert rows["baidu_html"]["available"] is True
    assert rows["ddg_html"]["priority"] < rows["baidu_html"]["priority"] < 90


def test_a_relative_baidu_link_is_baidu_s_and_a_gbk_meta_charset_is_read(cfg, page):
    """A block without ``mu`` whose link is relative (``/link?url=``) gave a URL the dispatcher
    dropped, so three results became an empty success; a page naming GBK only in a ``<meta>``
    tag was read as UTF-8."""
    text = re.sub(r' mu="[^"]*"', "", page("baidu_results.html")).replace('href="http://www.baidu.com/link', 'href="/link')
    text = text.replace("<head>", '<head><meta charset="gbk">', 1)
    with respx.mock(assert_all_called=False) as mock:
        mock.get(URL).respond(200, content=text.encode("gbk", "replace"), headers={"Content-Type": "text/html"})
        envelope = dispatch_search("python 异步编程", 10, backend="baidu_html", config=cfg())
    hits = envelope["data"]["web"]
    assert hits and all(h["url"].startswith("https://www.baidu.com/link?url=") for h in hits), envelope
    assert hits[0]["title"] == "asyncio --- 异步 I/O — Python 3.13.1 文档"
