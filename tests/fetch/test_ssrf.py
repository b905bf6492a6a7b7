"""SSRF: every way of pointing a fetch at an internal address is answered ``unsafe_url``.

The canary server stands for an internal service on 127.0.0.1; the ``canary`` fixture
fails the test if any request reaches it. The site itself is reachable only because the
config lists ``site.test`` in ``web.allowed_hosts`` (redirect cases start there).
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

import pytest

from webproviders import adispatch_extract, dispatch_extract
from webproviders.config import Config
from webproviders.redact import mask_userinfo

from .conftest import PUBLIC

C = "{canary}"  # replaced by the canary's port
S = "{site}"  # replaced by the site's port


def via_redirect(target: str) -> str:
    return f"http://site.test:{S}/redirect/to?url=" + quote(target, safe="")


SSRF_CASES: list[tuple[str, str]] = [
    # IPv4 spellings of the loopback
    ("loopback", f"http://127.0.0.1:{C}/"),
    ("loopback-other", f"http://127.0.0.2:{C}/"),
    ("decimal", f"http://2130706433:{C}/"),
    ("hex-integer", f"http://0x7f000001:{C}/"),
    ("hex-dotted", f"http://0x7f.0x0.0x0.0x1:{C}/"),
    ("octal-integer", f"http://017700000001:{C}/"),
    ("octal-dotted", f"http://0177.0.0.1:{C}/"),
    ("short-two-part", f"http://127.1:{C}/"),
    ("short-three-part", f"http://127.0.1:{C}/"),
    ("zero", f"http://0:{C}/"),
    ("unspecified", f"http://0.0.0.0:{C}/"),
    ("trailing-dot", f"http://127.0.0.1.:{C}/"),
    ("localhost", f"http://localhost:{C}/"),
    ("localhost-upper", f"http://LOCALHOST:{C}/"),
    ("localhost-subdomain", f"http://foo.localhost:{C}/"),
    ("unicode-circled-localhost", f"http://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3:{C}/"),
    ("fullwidth-digits", f"http://\uff11\uff12\uff17.\uff10.\uff10.\uff11:{C}/"),
    # IPv6 forms
    ("ipv6-loopback", f"http://[::1]:{C}/"),
    ("ipv6-loopback-long", f"http://[0:0:0:0:0:0:0:1]:{C}/"),
    ("ipv6-unspecified", f"http://[::]:{C}/"),
    ("ipv4-mapped", f"http://[::ffff:127.0.0.1]:{C}/"),
    ("ipv4-mapped-hex", f"http://[::ffff:7f00:1]:{C}/"),
    ("ipv4-compatible", f"http://[::127.0.0.1]:{C}/"),
    ("6to4", f"http://[2002:7f00:1::1]:{C}/"),
    ("nat64", f"http://[64:ff9b::127.0.0.1]:{C}/"),
    ("teredo", f"http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:{C}/"),
    ("ipv6-unique-local", "http://[fc00::1]/"),
    ("ipv6-link-local", "http://[fe80::1]/"),
    ("ipv6-multicast", "http://[ff02::1]/"),
    # private, shared, link-local, multicast, reserved
    ("private-10", "http://10.0.0.1/"),
    ("private-172", "http://172.16.5.4/"),
    ("private-192", "http://192.168.1.1/"),
    ("cgnat", "http://100.64.0.1/"),
    ("link-local", "http://169.254.1.1/"),
    ("multicast", "http://224.0.0.1/"),
    ("reserved", "http://240.0.0.1/"),
    ("broadcast", "http://255.255.255.255/"),
    # cloud metadata
    ("metadata-aws", "http://169.254.169.254/latest/meta-data/"),
    ("metadata-aws-ipv6", "http://[fd00:ec2::254]/latest/meta-data/"),
    ("metadata-gcp-ipv6", "http://[fd20:ce::254]/computeMetadata/v1/"),
    ("metadata-openstack-ipv6", "http://[fe80::a9fe:a9fe]/openstack/"),
    ("metadata-alibaba", "http://100.100.100.200/latest/meta-data/"),
    ("metadata-gcp-name", "http://metadata.google.internal/computeMetadata/v1/"),
    ("metadata-short-name", "http://metadata/computeMetadata/v1/"),
    ("metadata-mapped", "http://[::ffff:169.254.169.254]/latest/meta-data/"),
    ("azure-wireserver", "http://168.63.129.16/machine/?comp=goalstate"),
    ("oracle-classic-metadata", "http://192.0.0.192/latest/"),
    ("tencent-metadata", "http://169.254.0.23/meta-data/"),
    ("scaleway-metadata", "http://169.254.42.42/conf"),
    # NAT64: the well-known prefix and the local-use /48 in its RFC 6052 layouts
    ("nat64-hex", f"http://[64:ff9b::7f00:1]:{C}/"),
    ("nat64-local-96", f"http://[64:ff9b:1::7f00:1]:{C}/"),
    ("nat64-local-48", f"http://[64:ff9b:1:7f00:0:100::]:{C}/"),
    # documentation and benchmarking ranges
    ("doc-test-net-1", "http://192.0.2.10/"),
    ("doc-test-net-3", "http://203.0.113.7/"),
    ("benchmark", "http://198.18.0.5/"),
    ("doc-ipv6", "http://[2001:db8::1]/"),
    # user-info tricks
    ("userinfo-host", f"http://public.test@127.0.0.1:{C}/"),
    ("userinfo-credentials", "http://user:secret@public.test/"),
    ("fragment-at", f"http://127.0.0.1:{C}#@public.test/"),
    ("backslash-at", f"http://public.test\\@127.0.0.1:{C}/"),
    # names that resolve inside (via the test resolver)
    ("dns-loopback", f"http://internal.test:{C}/"),
    ("dns-private", "http://private.test/"),
    ("dns-cgnat", "http://cgnat.test/"),
    ("dns-link-local", "http://linklocal.test/"),
    ("dns-metadata", "http://metadata-alias.test/latest/meta-data/"),
    ("dns-ipv6-loopback", f"http://v6loop.test:{C}/"),
    ("dns-ipv4-mapped", f"http://mapped.test:{C}/"),
    ("dns-nat64", f"http://nat64.test:{C}/"),
    ("dns-one-bad-answer", f"http://mixed.test:{C}/"),
    # redirects from an allowed site to internal places
    ("redirect-loopback", via_redirect(f"http://127.0.0.1:{C}/")),
    ("redirect-metadata", via_redirect("http://169.254.169.254/latest/meta-data/")),
    ("redirect-ipv6-loopback", via_redirect(f"http://[::1]:{C}/")),
    ("redirect-decimal", via_redirect(f"http://2130706433:{C}/")),
    ("redirect-localhost", via_redirect(f"http://localhost:{C}/")),
    ("redirect-dns-internal", via_redirect(f"http://internal.test:{C}/")),
    ("redirect-file-scheme", via_redirect("file:///etc/passwd")),
    ("redirect-gopher-scheme", via_redirect(f"gopher://127.0.0.1:{C}/_GET")),
    ("redirect-two-hops", via_redirect(via_redirect(f"http://127.0.0.1:{C}/"))),
]

#: URLs that never get past the dispatcher's own http(s) check are refused by the fetcher too.
SCHEME_CASES = [
    "file:///etc/passwd",
    f"ftp://127.0.0.1:{C}/",
    f"gopher://127.0.0.1:{C}/_GET",
    f"dict://127.0.0.1:{C}/info",
    "javascript:alert(1)",
]


def fill(url: str, site: Any, canary: Any) -> str:
    """Put the real ports in, also inside (doubly) quoted redirect targets."""
    for placeholder, port in ((C, canary.port), (S, site.port)):
        name = placeholder[1:-1]
        for form in (placeholder, f"%7B{name}%7D", f"%257B{name}%257D"):
            url = url.replace(form, str(port))
    return url


@pytest.fixture
def site_only(config_for: Any) -> Config:
    """Only ``site.test`` may be private: everything else internal stays refused."""
    return config_for(allowed_hosts=["site.test"])


def test_the_table_is_big_enough() -> None:
    assert len(SSRF_CASES) >= 40
    assert len({name for name, _ in SSRF_CASES}) == len(SSRF_CASES)


@pytest.mark.parametrize(("name", "url"), SSRF_CASES, ids=[name for name, _ in SSRF_CASES])
def test_ssrf_attempt_is_refused(name: str, url: str, site: Any, canary: Any, site_only: Config, plugin_module: Any) -> None:
    provider = plugin_module("http").HTTPProvider(site_only)
    target = fill(url, site, canary)
    [item] = asyncio.run(provider.extract([target]))
    assert item["error_code"] == "unsafe_url", item
    assert item["url"] == mask_userinfo(target)  # the caller's URL, less a user:password@
    assert "Refused" in item["error"]


@pytest.mark.parametrize("url", SCHEME_CASES)
def test_non_http_schemes_are_refused(url: str, site: Any, canary: Any, site_only: Config, plugin_module: Any) -> None:
    provider = plugin_module("http").HTTPProvider(site_only)
    [item] = asyncio.run(provider.extract([fill(url, site, canary)]))
    assert item["error_code"] == "unsafe_url"


def test_whole_table_through_dispatch(site: Any, canary: Any, site_only: Config) -> None:
    """Each batch mixes refused URLs with one readable page: only that page is fetched."""
    page = site.url("/articles/caching", host="site.test")
    urls = [fill(url, site, canary) for _name, url in SSRF_CASES]
    for start in range(0, len(urls), 19):
        batch = urls[start:start + 19]
        envelope = dispatch_extract([*batch[:5], page, *batch[5:]], backend="http", config=site_only)
        assert envelope["success"] is True, envelope
        items = envelope["data"]
        assert [item["url"] for item in items] == [mask_userinfo(url) for url in [*batch[:5], page, *batch[5:]]]
        assert items.pop(min(5, len(batch)))["content"]
        assert {item["error_code"] for item in items} == {"unsafe_url"}


def test_redirect_to_internal_started_at_a_reachable_page(site: Any, canary: Any, site_only: Config) -> None:
    """The first hop really was fetched (the site saw it); the internal hop never was."""
    url = fill(via_redirect(f"http://127.0.0.1:{C}/"), site, canary)
    envelope = dispatch_extract(url, backend="http", config=site_only)
    assert envelope["error_code"] == "unsafe_url"
    assert "redirect" in envelope["error"]
    assert any(path.startswith("/redirect/to") for path in site.paths())


@pytest.mark.parametrize("target", [f"http:\\\\127.0.0.1:{C}\\x", f"http://127.0.0.1:{C}/\tx", f"\t\\\\127.0.0.1:{C}\\x"])
def test_a_redirect_target_read_as_browsers_read_it_is_still_screened(
    site: Any, canary: Any, site_only: Config, target: str
) -> None:
    """Tabs dropped and backslashes read as slashes, the target is the internal address, refused."""
    envelope = dispatch_extract(fill(via_redirect(target), site, canary), backend="http", config=site_only)
    assert envelope["error_code"] == "unsafe_url", envelope
    assert "redirect" in envelope["error"]


REBINDING = [f"http://rebind.test:{C}/", via_redirect(f"http://rebind.test:{C}/")]


@pytest.mark.parametrize("url", REBINDING, ids=["direct", "redirect"])
def test_rebinding_never_reaches_the_later_answer(
    url: str, site: Any, canary: Any, site_only: Config, fake_dns: Any
) -> None:
    """``rebind.test`` answers a public address, then the loopback: it is looked up once.

    The connection goes to the public address that was checked (which the test guard
    refuses to reach, so the fetch fails with ``network_error``); the loopback answer is
    never asked for, and the canary sees nothing.
    """
    envelope = dispatch_extract(fill(url, site, canary), backend="http", config=site_only)
    assert envelope["error_code"] == "network_error", envelope
    assert set(fake_dns.unreachable) == {PUBLIC}
    assert fake_dns.lookups["rebind.test"] == 1


def test_the_connection_uses_the_checked_answer(site: Any, local: Config, fake_dns: Any) -> None:
    """A second lookup of ``rebind-site.test`` would be a metadata address; none is made."""
    url = f"http://rebind-site.test:{site.port}/articles/caching"
    envelope = dispatch_extract(url, backend="http", config=local)
    assert envelope["success"] is True and envelope["data"][0]["content"], envelope
    assert site.hits == [("rebind-site.test", "/articles/caching")]
    assert fake_dns.lookups["rebind-site.test"] == 1


def test_each_call_resolves_again(site: Any, canary: Any, site_only: Config, fake_dns: Any) -> None:
    """Answers last one call: the next call sees the loopback answer and refuses it."""
    url = f"http://rebind.test:{canary.port}/"
    assert dispatch_extract(url, backend="http", config=site_only)["error_code"] == "network_error"
    second = dispatch_extract(url, backend="http", config=site_only)
    assert second["error_code"] == "unsafe_url" and "loopback" in second["error"]
    assert fake_dns.lookups["rebind.test"] == 2


def test_a_connection_outside_a_check_resolves_and_vets_itself(canary: Any, site_only: Config) -> None:
    """The pinned client used on its own (no URL check before it) still refuses at connect time."""
    from webproviders.errors import UnsafeURLError
    from webproviders.fetching.pinning import safe_client

    async def get() -> None:
        await safe_client(site_only).get(f"http://internal.test:{canary.port}/")

    with pytest.raises(UnsafeURLError, match="loopback"):
        asyncio.run(get())


def test_default_config_refuses_the_local_site(site: Any, config_for: Any) -> None:
    envelope = dispatch_extract(site.url("/articles/caching"), backend="http", config=config_for())
    assert envelope["success"] is False
    assert envelope["error_code"] == "unsafe_url" and envelope["retryable"] is False
    assert "allow_private_networks" in envelope["error"]
    assert site.paths() == []


def test_default_config_refuses_the_local_site_async(site: Any, config_for: Any) -> None:
    envelope = asyncio.run(adispatch_extract([site.url("/articles/caching")], backend="http", config=config_for()))
    assert envelope["error_code"] == "unsafe_url"
    assert site.paths() == []


def test_crawl_of_an_internal_seed_is_refused(site: Any, config_for: Any) -> None:
    from webproviders import dispatch_crawl

    envelope = dispatch_crawl(site.url("/"), backend="http", config=config_for())
    assert envelope["success"] is False
    assert envelope["error_code"] == "unsafe_url"
    assert site.paths() == []


METADATA_EVEN_WHEN_PRIVATE_IS_ALLOWED = [
    "http://169.254.169.254/latest/meta-data/",
    "http://169.254.170.2/v2/credentials",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://[fd20:ce::254]/computeMetadata/v1/",
    "http://[fe80::a9fe:a9fe]/openstack/",
    "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "http://[2002:a9fe:a9fe::1]/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://metadata-alias.test/latest/meta-data/",
    "http://168.63.129.16/machine/?comp=goalstate",
    "http://192.0.0.192/latest/",
    "http://169.254.0.23/meta-data/",
    "http://169.254.42.42/conf",
    "http://[64:ff9b:1:a9fe:a9:fe00::]/latest/meta-data/",
    "http://192.0.2.10/",
    "http://198.51.100.4/",
    "http://203.0.113.7/",
    "http://198.18.0.5/",
    "http://[2001:db8::1]/",
    via_redirect("http://169.254.169.254/latest/meta-data/"),
    f"http://0.0.0.0:{C}/",
    f"http://2130706433:{C}/",
    f"http://public.test@127.0.0.1:{C}/",
]


@pytest.mark.parametrize("url", METADATA_EVEN_WHEN_PRIVATE_IS_ALLOWED)
def test_private_networks_opt_in_keeps_metadata_and_tricks_refused(
    url: str, site: Any, canary: Any, config_for: Any, plugin_module: Any
) -> None:
    config = config_for(allow_private_networks=True, allowed_hosts=["metadata-alias.test", "169.254.169.254"])
    provider = plugin_module("http").HTTPProvider(config)
    [item] = asyncio.run(provider.extract([fill(url, site, canary)]))
    assert item["error_code"] == "unsafe_url"


def test_private_networks_opt_in_reaches_the_canary(canary_server: Any, local: Config) -> None:
    """The other side of the table: with the opt-in, the same loopback URL is fetched."""
    canary_server.hits.clear()
    envelope = dispatch_extract(f"http://127.0.0.1:{canary_server.port}/ok", backend="http", config=local)
    assert "error" not in envelope["data"][0]
    assert canary_server.hits == ["/ok"]
    canary_server.hits.clear()


def test_a_name_lookup_that_never_answers_is_said_to_be_the_dns(dns: Any, config_for: Any) -> None:
    """Where this machine's DNS never answers (a firewall dropping its packets), an extract ran
    to its deadline saying only that "the URLs' host names were being checked"; the sentence
    names the resolver and what to do."""
    import threading

    dns.silent = threading.Event()
    envelope = dispatch_extract("https://docs.example.com/page", backend="http", config=config_for(), timeout=1.5)
    assert envelope["error_code"] == "timeout", envelope
    assert envelope["error"].startswith(
        "The call's deadline passed while this machine's DNS was still looking up the URLs' host names"
    ), envelope
    assert "Check this machine's DNS settings, or give the call more time." in envelope["error"]
