"""Where a fetch happens decides the URL screen: cloud vendors need no DNS here.

Every test runs with the suite's DNS (``tests/conftest.py``): a lookup of any name the test
did not declare fails loudly, as on a machine without public DNS, and ``dns.lookups``
counts them. The vendors' APIs are mocked with ``respx`` using the bodies they really send.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from webproviders import dispatch_crawl, dispatch_extract, get_registry
from webproviders.dispatch.urlgate import fetch_place
from webproviders.fetching.urlsafety import on_operator_network
from webproviders.manifest import read_manifest
from webproviders.redact import mask_userinfo
from webproviders.registry.loader import builtin_plugin_dir

from .bodies import (
    EXA_CONTENTS,
    FIRECRAWL_CRAWL_STARTED,
    FIRECRAWL_SCRAPE,
    PARALLEL_EXTRACT,
    TAVILY_CRAWL,
    TAVILY_EXTRACT,
    firecrawl_document,
    firecrawl_status,
)
from .conftest import settings

pytest.importorskip("firecrawl")
pytest.importorskip("tavily")
pytest.importorskip("exa_py")
pytest.importorskip("parallel")

FIRECRAWL = "https://api.firecrawl.dev"
KEYS = {
    "TAVILY_API_KEY": "tvly-dev-Zx81TestKey0042abcd",
    "EXA_API_KEY": "exa-3f9c2b7e-test-key-00aa",
    "FIRECRAWL_API_KEY": "fc-8d1f0c2a9b7e4d3c-testkey",
    "PARALLEL_API_KEY": "par-5b0e3c1d9f-test-key-4411",
}

#: Addresses a vendor must never be sent to, in the spellings that need no DNS to see through.
VENDOR_REFUSED = [
    "http://169.254.169.254/latest/meta-data/",
    "http://2852039166/latest/meta-data/",  # decimal
    "http://0xa9fea9fe/latest/meta-data/",  # hex
    "http://0xa9.0xfe.0xa9.0xfe/latest/meta-data/",  # dotted hex
    "http://0251.0376.0251.0376/latest/meta-data/",  # dotted octal
    "http://025177524776/latest/meta-data/",  # octal
    "http://169.254.43518/latest/meta-data/",  # short form
    "http://[::ffff:169.254.169.254]/latest/meta-data/",  # IPv4-mapped IPv6
    "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",  # AWS over IPv6
    "http://[fd20:ce::254]/computeMetadata/v1/",  # Google Cloud over IPv6
    "http://[fe80::a9fe:a9fe]/openstack/",  # OpenStack over IPv6
    "http://100.100.100.200/latest/meta-data/",
    "http://168.63.129.16/machine/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://metadata/computeMetadata/v1/",
    "http://127.0.0.1:6379/",
    "http://2130706433:6379/",
    "http://[::1]/",
    "http://0/",
    "http://10.0.0.5/admin",
    "http://192.168.1.1/",
    "http://localhost:8080/",
    "http://api.localhost/",
    "http://user:secret@example.com/",
]
#: Private, not metadata: sent once ``web.allow_private_networks`` is on.
PRIVATE_LITERALS = ["http://127.0.0.1:6379/", "http://10.0.0.5/admin", "http://192.168.1.1/", "http://[::1]/"]


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)


def _scraped(route: respx.Route) -> list[str]:
    return [json.loads(call.request.content)["url"] for call in route.calls]


def _scrape(request: httpx.Request) -> httpx.Response:
    target = json.loads(request.content)["url"]
    return httpx.Response(200, json={"success": True, "data": firecrawl_document(target, "Page", f"# Read {target}")})


# --- what providers declare -----------------------------------------------------------------


def test_every_built_in_extract_and_crawl_provider_declares_where_it_fetches() -> None:
    declared: dict[str, str] = {}
    for folder in sorted(builtin_plugin_dir().iterdir()):
        if not (folder / "plugin.yaml").is_file():
            continue
        for provider in read_manifest(folder).providers:
            if {"extract", "crawl"} & set(provider.capabilities):
                assert "fetch" in provider.model_fields_set, f"{provider.name} does not say where it fetches"
                declared[provider.name] = str(provider.fetch)
    assert declared == {
        "crawl4ai": "local",
        "exa": "vendor",
        "firecrawl": "vendor",
        "http": "local",
        "jina": "vendor",
        "linkup": "vendor",
        "local": "none",
        "parallel": "vendor",
        "stub": "none",
        "tavily": "vendor",
        "you": "vendor",
    }


@pytest.mark.parametrize(
    ("base_url", "inside"),
    [
        ("http://10.0.0.5:3002", True),
        ("http://localhost:3002", True),
        ("http://127.0.0.1:3002/", True),
        ("http://[::1]:3002", True),
        ("http://[fd12::5]:3002", True),
        ("http://2130706433:3002", True),
        ("http://firecrawl:3002", True),  # a container's name
        ("http://firecrawl.internal:3002", True),
        ("http://scraper.corp", True),
        ("http://nas.local", True),
        ("http://gw.home.arpa", True),
        ("http://firecrawl.tools.svc:3002", True),  # a Kubernetes service, short of .cluster.local
        ("http://firecrawl.service.consul:3002", True),
        ("not a url", True),
        ("https://api.firecrawl.dev", False),
        ("https://firecrawl.example.com:8443", False),
        ("https://93.184.216.34", False),
    ],
)
def test_which_base_urls_are_on_the_operators_network(base_url: str, inside: bool) -> None:
    assert on_operator_network(base_url) is inside


def test_a_self_hosted_base_url_makes_a_vendor_fetch_locally(
    make_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cloud = make_config()
    entry = get_registry(cloud).get("firecrawl")
    assert entry is not None
    assert (fetch_place(entry, "extract", cloud), fetch_place(entry, "crawl", cloud)) == ("vendor", "vendor")
    configured = make_config(web={"providers": {"firecrawl": {"base_url": "http://10.0.0.5:3002"}}})
    assert fetch_place(get_registry(configured).get("firecrawl"), "crawl", configured) == "local"  # type: ignore[arg-type]
    monkeypatch.setenv("FIRECRAWL_API_URL", "http://localhost:3002")
    from_env = make_config()
    assert fetch_place(get_registry(from_env).get("firecrawl"), "extract", from_env) == "local"  # type: ignore[arg-type]
    gateway = make_config(web={"providers": {"parallel": {"base_url": "https://gateway.example.com"}}})
    assert fetch_place(get_registry(gateway).get("parallel"), "extract", gateway) == "vendor"  # type: ignore[arg-type]
    reader = make_config(web={"providers": {"jina": {"reader_url": "http://reader:3000"}}})
    assert fetch_place(get_registry(reader).get("jina"), "extract", reader) == "local"  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["exa", "linkup", "parallel", "tavily", "you"])
def test_a_gateway_on_the_operators_network_leaves_a_cloud_only_vendor_fetching(name: str, make_config: Any) -> None:
    """These vendors run only on their own servers: an endpoint on the operator's network is a
    gateway in front of them (an egress proxy, an API gateway), and the vendor still fetches."""
    config = make_config(web={"providers": {name: {"base_url": "http://10.0.0.5:8080"}}})
    entry = get_registry(config).get(name)
    assert entry is not None and entry.manifest.self_hostable is False
    assert fetch_place(entry, "extract", config) == "vendor"


def test_vendors_that_can_run_on_the_operators_network_are_the_self_hostable_ones() -> None:
    hostable = {
        provider.name
        for folder in builtin_plugin_dir().iterdir()
        if (folder / "plugin.yaml").is_file()
        for provider in read_manifest(folder).providers
        if provider.fetch == "vendor" and provider.self_hostable
    }
    assert hostable == {"firecrawl", "jina"}


# --- cloud vendors with no DNS ----------------------------------------------------------------


def test_cloud_vendors_extract_and_crawl_without_a_single_lookup(keys: None, make_config: Any, dns: Any) -> None:
    with respx.mock(assert_all_called=True) as router:
        router.post("https://api.tavily.com/extract").respond(200, json=TAVILY_EXTRACT)
        router.post("https://api.tavily.com/crawl").respond(200, json=TAVILY_CRAWL)
        router.post("https://api.exa.ai/contents").respond(200, json=EXA_CONTENTS)
        router.post(f"{FIRECRAWL}/v2/scrape").respond(200, json=FIRECRAWL_SCRAPE)
        router.post(f"{FIRECRAWL}/v2/crawl").respond(200, json=FIRECRAWL_CRAWL_STARTED)
        router.get(url__startswith=f"{FIRECRAWL}/v2/crawl/").respond(
            200, json=firecrawl_status("completed", [firecrawl_document("https://example.com/", "Home", "# Home")])
        )
        router.post("https://api.parallel.ai/v1/extract").respond(200, json=PARALLEL_EXTRACT)
        calls = [
            ("tavily", dispatch_extract, ["https://example.com/a"]),
            ("tavily", dispatch_crawl, "https://docs.tavily.com"),
            ("exa", dispatch_extract, ["https://example.com"]),
            ("firecrawl", dispatch_extract, ["https://example.com"]),
            ("firecrawl", dispatch_crawl, "https://example.com/"),
            ("parallel", dispatch_extract, ["https://example.com/a"]),
        ]
        for name, call, target in calls:
            config = make_config(**settings(name, poll_interval=0.01))
            envelope = call(target, backend=name, config=config)
            assert envelope["success"] is True and envelope["provider"] == name, envelope
            assert "error" not in envelope["data"][0], envelope
    assert sum(dns.lookups.values()) == 0, dns.lookups


def test_cloud_vendors_behind_a_gateway_on_this_machine_extract_without_a_lookup(
    keys: None, make_config: Any, dns: Any
) -> None:
    """A machine without public DNS whose only way out is a gateway on loopback: the cloud
    vendor behind it fetches the pages, so no name is looked up here and the call succeeds."""
    gateway = "http://127.0.0.1:8480"
    with respx.mock(assert_all_called=True) as router:
        router.post(f"{gateway}/extract").respond(200, json=TAVILY_EXTRACT)
        router.post(f"{gateway}/contents").respond(200, json=EXA_CONTENTS)
        router.post(f"{gateway}/v1/extract").respond(200, json=PARALLEL_EXTRACT)
        for name, url in (("tavily", "https://example.com/a"), ("exa", "https://example.com"), ("parallel", "https://example.com/a")):
            envelope = dispatch_extract([url], backend=name, config=make_config(**settings(name, base_url=gateway)))
            assert envelope["success"] is True and envelope["provider"] == name, envelope
            assert "error" not in envelope["data"][0], envelope
    assert sum(dns.lookups.values()) == 0, dns.lookups


def test_a_cloud_vendor_still_maps_its_errors_offline(keys: None, make_config: Any, dns: Any) -> None:
    with respx.mock() as router:
        router.post("https://api.tavily.com/extract").respond(
            401, json={"detail": {"error": "Unauthorized: missing or invalid API key."}}
        )
        envelope = dispatch_extract("https://example.com/a", backend="tavily", config=make_config(**settings("tavily")))
    assert envelope["error_code"] == "auth_error", envelope
    assert sum(dns.lookups.values()) == 0


def test_a_vendor_then_stub_chain_fails_over_offline(keys: None, make_config: Any, dns: Any) -> None:
    """The vendor cannot be reached (as offline): the chain moves on to stub; nothing was looked up."""
    config = make_config(**settings("firecrawl"))
    with respx.mock() as router:
        scrape = router.post(f"{FIRECRAWL}/v2/scrape").mock(side_effect=httpx.ConnectError("no route to host"))
        router.post(f"{FIRECRAWL}/v2/crawl").mock(side_effect=httpx.ConnectError("no route to host"))
        envelope = dispatch_extract("https://example.com/", backend=["firecrawl", "stub"], config=config)
        crawled = dispatch_crawl("https://example.com/", backend=["firecrawl", "stub"], config=config)
    assert scrape.called
    assert envelope["success"] is True and envelope["provider"] == "stub", envelope
    assert [(a["provider"], a["outcome"]) for a in envelope["meta"]["attempts"]] == [("firecrawl", "error"), ("stub", "ok")]
    assert crawled["success"] is True and crawled["provider"] == "stub", crawled
    assert sum(dns.lookups.values()) == 0


# --- the vendor screen ------------------------------------------------------------------------


def test_the_vendor_screen_refuses_every_literal_spelling_without_dns(keys: None, make_config: Any, dns: Any) -> None:
    """Only the public page reaches the vendor; a name only an intranet knows goes as is."""
    public, intranet = "https://example.com/", "http://wiki.intranet-only.example/"
    config = make_config(**settings("firecrawl"))
    for start in range(0, len(VENDOR_REFUSED), 12):
        refused = VENDOR_REFUSED[start:start + 12]
        urls = [*refused[:3], public, *refused[3:], intranet]
        with respx.mock() as router:
            route = router.post(f"{FIRECRAWL}/v2/scrape").mock(side_effect=_scrape)
            envelope = dispatch_extract(urls, backend="firecrawl", config=config)
        assert envelope["success"] is True, envelope
        assert sorted(_scraped(route)) == sorted([public, intranet])
        # A refused URL comes back as given, less a user:password@.
        assert [item["url"] for item in envelope["data"]] == [mask_userinfo(url) for url in urls]
        masked = {mask_userinfo(url) for url in refused}
        codes = {item["url"]: item.get("error_code") for item in envelope["data"] if item["url"] in masked}
        assert set(codes.values()) == {"unsafe_url"} and len(codes) == len(refused), codes
        assert envelope["meta"]["failed"] == len(refused)
    assert sum(dns.lookups.values()) == 0, dns.lookups


@pytest.mark.parametrize("url", VENDOR_REFUSED)
def test_a_refused_crawl_seed_never_reaches_the_vendor(url: str, keys: None, make_config: Any, dns: Any) -> None:
    with respx.mock(assert_all_called=False) as router:
        route = router.post(f"{FIRECRAWL}/v2/crawl").respond(200, json=FIRECRAWL_CRAWL_STARTED)
        envelope = dispatch_crawl(url, backend="firecrawl", config=make_config(**settings("firecrawl")))
    assert envelope["error_code"] == "unsafe_url", envelope
    assert [(a["provider"], a["outcome"], a["error_code"]) for a in envelope["meta"]["attempts"]] == [
        ("firecrawl", "skipped", "unsafe_url")
    ]
    assert not route.called and sum(dns.lookups.values()) == 0


def test_the_opt_in_sends_private_literals_but_never_metadata(keys: None, make_config: Any) -> None:
    config = make_config(web={**settings("firecrawl")["web"], "allow_private_networks": True})
    sent: list[str] = []
    for start in range(0, len(VENDOR_REFUSED), 20):
        with respx.mock() as router:
            route = router.post(f"{FIRECRAWL}/v2/scrape").mock(side_effect=_scrape)
            envelope = dispatch_extract(VENDOR_REFUSED[start:start + 20], backend="firecrawl", config=config)
        assert envelope["success"] is True
        sent += _scraped(route)
    assert set(PRIVATE_LITERALS) <= set(sent)
    assert not [url for url in sent if "meta" in url or "169.254" in url or "openstack" in url]
