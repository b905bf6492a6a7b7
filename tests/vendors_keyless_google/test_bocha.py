"""bocha: the Bocha Web Search API, with bodies shaped like Bocha's own."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import respx

from webproviders import adispatch_search, dispatch_search, get_registry

URL = "https://api.bochaai.com/v1/web-search"
KEY = "sk-bocha-test-7f3a9c21d5e84b06"

SUCCESS = {
    "code": 200,
    "log_id": "d71841ad20095f61",
    "msg": None,
    "data": {
        "_type": "SearchResponse",
        "queryContext": {"originalQuery": "阿里巴巴2024年ESG报告"},
        "webPages": {
            "webSearchUrl": "",
            "totalEstimatedMatches": 8912791,
            "value": [
                {
                    "id": None,
                    "name": "阿里巴巴发布2024年ESG报告",
                    "url": "https://www.alibabagroup.com/document-1752073403914780672",
                    "displayUrl": "https://www.alibabagroup.com/document-1752073403914780672",
                    "snippet": "阿里巴巴集团发布《2024财年环境、社会和治理（ESG）报告》，披露减碳进展。",
                    "siteName": "www.alibabagroup.com",
                    "siteIcon": "https://th.bochaai.com/favicon?domain_url=https://www.alibabagroup.com/document-1752073403914780672",
                    "datePublished": "2024-07-22T00:00:00+08:00",
                    "dateLastCrawled": "2024-07-22T00:00:00Z",
                    "cachedPageUrl": None,
                    "language": None,
                    "isFamilyFriendly": None,
                    "isNavigational": None,
                },
                {
                    "id": None,
                    "name": "186页|阿里巴巴：2024年环境、社会和治理（ESG）报告",
                    "url": "https://m.sohu.com/a/815036254_121819701/",
                    "displayUrl": "https://m.sohu.com/a/815036254_121819701/",
                    "snippet": "报告共186页，涵盖气候行动、员工发展与社区参与。",
                    "siteName": "搜狐网",
                    "siteIcon": "https://th.bochaai.com/favicon?domain_url=https://m.sohu.com/a/815036254_121819701/",
                    "dateLastCrawled": "2024-11-07T06:50:00Z",
                    "cachedPageUrl": None,
                    "language": None,
                    "isFamilyFriendly": None,
                    "isNavigational": None,
                },
            ],
            "someResultsRemoved": True,
        },
        "images": {
            "id": None,
            "readLink": None,
            "webSearchUrl": None,
            "isFamilyFriendly": None,
            "value": [
                {
                    "webSearchUrl": None,
                    "name": None,
                    "thumbnailUrl": "http://dayu-img.uc.cn/columbus/img/oc/1002/45628755e2db09ccf7e6ea3bf22ad2b0.jpg",
                    "datePublished": None,
                    "contentUrl": "http://dayu-img.uc.cn/columbus/img/oc/1002/45628755e2db09ccf7e6ea3bf22ad2b0.jpg",
                    "hostPageUrl": "http://m.uc.cn/a/815036254",
                    "contentSize": None,
                    "encodingFormat": None,
                    "hostPageDisplayUrl": "http://m.uc.cn/a/815036254",
                    "width": 553,
                    "height": 311,
                    "thumbnail": None,
                }
            ],
        },
        "videos": None,
    },
}


@pytest.fixture
def keyed(monkeypatch):
    monkeypatch.setenv("BOCHA_API_KEY", KEY)


def _error(status: int, code: str, message: str) -> httpx.Response:
    return httpx.Response(
        status, json={"code": code, "message": message, "log_id": "c66aac031b0d4dc0"}
    )


def _search(cfg, **options):
    return dispatch_search("阿里巴巴2024年ESG报告", 5, backend="bocha", config=cfg(), **options)


def test_success_body_becomes_hits(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=SUCCESS)
        envelope = _search(cfg)
    assert envelope["success"] is True and envelope["provider"] == "bocha"
    first, second = envelope["data"]["web"]
    assert first["title"] == "阿里巴巴发布2024年ESG报告"
    assert first["url"] == "https://www.alibabagroup.com/document-1752073403914780672"
    assert first["description"].startswith("阿里巴巴集团发布")
    assert first["published_at"] == "2024-07-22T00:00:00+08:00"
    assert first["site_name"] == "www.alibabagroup.com"
    # dateLastCrawled is UTC+8 time mislabelled "Z": never used as a publication date.
    assert "published_at" not in second
    request = route.calls.last.request
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert json.loads(request.content) == {
        "query": "阿里巴巴2024年ESG报告",
        "count": 5,
        "summary": False,
    }


def test_summary_is_requested_and_used_as_description(keyed, cfg):
    body = json.loads(json.dumps(SUCCESS))
    body["data"]["webPages"]["value"][0]["summary"] = (
        "阿里巴巴集团2024财年ESG报告的完整摘要：碳排放、供应链与公益。"
    )
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=body)
        envelope = _search(cfg, summary=True)
    assert json.loads(route.calls.last.request.content)["summary"] is True
    assert envelope["data"]["web"][0]["description"].startswith(
        "阿里巴巴集团2024财年ESG报告的完整摘要"
    )
    assert envelope["data"]["web"][1]["description"].startswith("报告共186页")


def test_summary_off_from_a_variable_is_off(keyed, cfg, monkeypatch):
    """``summary: ${BOCHA_SUMMARY}`` always gives text, and ``"false"`` read as true asked
    Bocha for the long summaries the operator had turned off."""
    monkeypatch.setenv("BOCHA_SUMMARY", "false")
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=SUCCESS)
        dispatch_search(
            "阿里巴巴2024年ESG报告", 5, backend="bocha",
            config=cfg(web={"providers": {"bocha": {"summary": "${BOCHA_SUMMARY}"}}}),
        )
    assert json.loads(route.calls.last.request.content)["summary"] is False


def test_options_map_to_bocha_fields(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=SUCCESS)
        envelope = _search(
            cfg,
            time_range="month",
            include_domains=["sohu.com", "qq.com"],
            exclude_domains=["baidu.com"],
        )
    sent = json.loads(route.calls.last.request.content)
    assert sent["freshness"] == "oneMonth"
    assert sent["include"] == "sohu.com|qq.com"
    assert sent["exclude"] == "baidu.com"
    assert "warnings" not in envelope["meta"]


def test_explicit_freshness_range_passes_through(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=SUCCESS)
        _search(cfg, freshness="2025-01-01..2025-03-31", time_range="day")
    assert json.loads(route.calls.last.request.content)["freshness"] == "2025-01-01..2025-03-31"


def test_options_bocha_lacks_are_warnings(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, json=SUCCESS)
        envelope = _search(cfg, country="cn", lang="zh", safe_search="strict")
    assert envelope["success"] is True
    assert envelope["meta"]["warnings"] == [
        "bocha does not support country, lang, safe_search; ignored."
    ]


@pytest.mark.parametrize("web_pages", [{"value": [], "totalEstimatedMatches": 0}, None])
def test_empty_result(keyed, cfg, web_pages):
    body = json.loads(json.dumps(SUCCESS))
    body["data"]["webPages"] = web_pages
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, json=body)
        envelope = _search(cfg)
    assert envelope["success"] is True and envelope["data"]["web"] == []


@pytest.mark.parametrize("data", [{}, {"status": "ok"}])
def test_a_data_object_that_is_not_a_search_response_is_a_parse_error(keyed, cfg, data):
    """``data: {}`` (another service at the base URL) read as "nothing found"; Bocha's ``data``
    always names its ``_type`` and echoes the ``queryContext``."""
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, json={"code": 200, "log_id": "d718", "msg": None, "data": data})
        envelope = _search(cfg)
    assert envelope["success"] is False and envelope["error_code"] == "parse_error", envelope
    assert "queryContext" in envelope["error"]


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (_error(401, "401", "Invalid API KEY"), "auth_error"),
        (_error(400, "400", "The API KEY is missing"), "auth_error"),
        (_error(400, "400", "Missing parameter query"), "invalid_input"),
        (_error(403, "403", "You do not have enough money"), "quota_exceeded"),
        # Bocha's error table: 403 is 余额不足 (balance used up), whatever the wording.
        (_error(403, "403", "余额不足"), "quota_exceeded"),
        (_error(403, "403", "账户余额不足，请充值"), "quota_exceeded"),
        (_error(403, "403", "Invalid API KEY"), "auth_error"),
        (_error(500, "500", "Internal server error"), "bad_gateway"),
        (
            httpx.Response(502, text="<html><body><h1>502 Bad Gateway</h1></body></html>"),
            "bad_gateway",
        ),
        # A 200 that carries an error body is a failure, never an empty success.
        (_error(200, "403", "You do not have enough money"), "quota_exceeded"),
        (
            httpx.Response(200, text="<!DOCTYPE html><html><body>维护中</body></html>"),
            "parse_error",
        ),
        (
            httpx.Response(
                200, text='{"code": 200, "log_id": "d718", "data": {"webPages": {"value": [{"na'
            ),
            "parse_error",
        ),
        (httpx.Response(200, json={"code": 200, "log_id": "d718", "msg": None}), "parse_error"),
    ],
)
def test_errors_are_mapped(keyed, cfg, assert_no_secret, response, code):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).mock(return_value=response)
        envelope = _search(cfg)
    assert envelope["success"] is False
    assert envelope["error_code"] == code
    assert_no_secret(envelope, KEY)


def test_429_is_rate_limited_with_retry_after(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).mock(
            return_value=httpx.Response(
                429,
                json={
                    "code": "429",
                    "message": "You have reached the request limit",
                    "log_id": "c66a",
                },
                headers={"Retry-After": "12"},
            )
        )
        envelope = _search(cfg)
    assert envelope["error_code"] == "rate_limited"
    assert envelope["retry_after"] == 12
    assert "request limit" in envelope["error"]


def test_auth_error_message_names_the_setting_not_the_key(keyed, cfg):
    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).mock(return_value=_error(401, "401", "Invalid API KEY"))
        envelope = _search(cfg)
    assert "BOCHA_API_KEY" in envelope["error"]
    assert KEY not in envelope["error"]


def test_missing_key_is_not_configured(cfg):
    envelope = _search(cfg)
    assert envelope["error_code"] == "not_configured"
    assert "BOCHA_API_KEY" in envelope["error"]


def test_environment_settings(keyed, cfg, monkeypatch):
    monkeypatch.setenv("BOCHA_BASE_URL", "https://bocha-proxy.example.com/")
    monkeypatch.setenv("BOCHA_TIMEOUT_MS", "2500")
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post("https://bocha-proxy.example.com/v1/web-search").respond(
            200, json=SUCCESS
        )
        envelope = _search(cfg)
    assert envelope["success"] is True
    assert route.calls.last.request.extensions["timeout"]["read"] == 2.5


def test_config_section_beats_environment(keyed, cfg, monkeypatch):
    monkeypatch.setenv("BOCHA_BASE_URL", "https://bocha-proxy.example.com")
    monkeypatch.setenv("BOCHA_TIMEOUT_MS", "2500")
    config = cfg(
        web={
            "providers": {
                "bocha": {
                    "api_key": "sk-from-config-0001",
                    "base_url": "http://127.0.0.1:9",
                    "timeout": 6,
                }
            }
        }
    )
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post("http://127.0.0.1:9/v1/web-search").respond(200, json=SUCCESS)
        envelope = dispatch_search("q", 5, backend="bocha", config=config)
    assert envelope["success"] is True
    request = route.calls.last.request
    assert request.headers["Authorization"] == "Bearer sk-from-config-0001"
    assert request.extensions["timeout"]["read"] == 6


def test_bad_timeout_variable_is_reported(keyed, cfg, monkeypatch):
    monkeypatch.setenv("BOCHA_TIMEOUT_MS", "fast")
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=SUCCESS)
        envelope = _search(cfg)
    assert envelope["error_code"] == "not_configured"
    assert "BOCHA_TIMEOUT_MS" in envelope["error"]
    assert not route.called


def test_top_k_default_applies_when_no_limit_is_given(keyed, cfg, monkeypatch):
    monkeypatch.setenv("BOCHA_TOP_K_DEFAULT", "8")
    provider = get_registry(cfg()).get("bocha").provider
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=SUCCESS)
        hits = asyncio.run(provider.search("q"))
        assert json.loads(route.calls.last.request.content)["count"] == 8
        configured = get_registry(
            cfg(web={"providers": {"bocha": {"top_k_default": 3}}})
        ).get("bocha").provider
        asyncio.run(configured.search("q"))
        assert json.loads(route.calls.last.request.content)["count"] == 3
        asyncio.run(configured.search("q", 12))
        assert json.loads(route.calls.last.request.content)["count"] == 12
    assert len(hits) == 2


def test_async_dispatch(keyed, cfg):
    async def run() -> dict:
        return await adispatch_search("q", 5, backend="bocha", config=cfg())

    with respx.mock(assert_all_called=False) as mock:
        mock.post(URL).respond(200, json=SUCCESS)
        envelope = asyncio.run(run())
    assert envelope["success"] is True and len(envelope["data"]["web"]) == 2
