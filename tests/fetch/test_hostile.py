"""Hostile responses against a real loopback server: compression bombs, pages that are
expensive to parse, many-page PDFs, odd charsets and oversized robots.txt files.

What a user depends on: such a URL fails on its own (``too_large``, ``timeout``) while the
other URLs of the call, and other calls, go on; memory stays bounded; the extraction
workers recover.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from webproviders import adispatch_extract, dispatch_crawl, dispatch_extract
from webproviders.config import Config
from webproviders.errors import TooLargeError
from webproviders.fetching import fetch as fetch_module
from webproviders.fetching.decompress import BodyDecoder, Undecodable, UnsupportedCoding
from webproviders.fetching.extractpool import extraction_pool
from webproviders.fetching.fetch import fetch

from .fetch_site import serve
from .hostile_site import BOMB_SIZE, HostileServer, bomb, nested_json, zstd_compress, zstd_module

LIMIT = 1_000_000
#: A decoding stage may overshoot the cap by one step's output (brotli's is up to ~100 KB).
OVERSHOOT = 256 * 1024

def only_page(envelope: dict[str, Any]) -> dict[str, Any]:
    """The one URL's outcome: its page, or (an extract that read nothing fails) its failure entry."""
    if envelope["success"]:
        [page] = envelope["data"]
        return page
    [failure] = envelope["meta"]["failures"]
    return failure



@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    server = HostileServer()
    serve(server)
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def capped(config_for: Callable[..., Config]) -> Config:
    return config_for(allow_private_networks=True, max_response_bytes=LIMIT)


def _coding_available(coding: str) -> None:
    if coding == "zstd" and zstd_module() is None:
        pytest.skip("zstd needs Python 3.14 or zstandard")
    if coding == "br":
        brotli = pytest.importorskip("brotli")
        if not hasattr(brotli.Decompressor, "can_accept_more_data"):
            pytest.skip("brotli < 1.2 cannot bound its output")


BOMBS = ["gzip, gzip", "gzip", "deflate", "zstd", "br"]


# -- decompression bombs ------------------------------------------------------------------


@pytest.mark.parametrize("coding", BOMBS)
def test_bomb_is_too_large_with_bounded_memory_and_decoding_stops_early(
    coding: str, hostile: HostileServer, capped: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    _coding_available(coding)
    bomb(coding)  # built before memory is measured
    decoders: list[BodyDecoder] = []
    feeding_threads: set[str] = set()

    class Recording(BodyDecoder):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            decoders.append(self)

        def feed(self, raw: bytes) -> None:
            feeding_threads.add(threading.current_thread().name)
            super().feed(raw)

    monkeypatch.setattr(fetch_module, "BodyDecoder", Recording)
    tracemalloc.start()
    try:
        with pytest.raises(TooLargeError) as caught:
            asyncio.run(fetch(hostile.url(f"/bomb?coding={coding}"), capped))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert "1,000,000-byte limit" in caught.value.message
    [decoder] = decoders
    assert len(decoder.stage_bytes) == len(coding.split(","))
    # Decoding stopped at the cap: nowhere near the 64 MB the body expands to.
    assert all(produced <= LIMIT + OVERSHOOT for produced in decoder.stage_bytes)
    assert peak < 16 * 1024 * 1024 < BOMB_SIZE
    # ...and it ran in the decompression threads, not on the event loop's thread.
    assert feeding_threads and all(name.startswith("webproviders-decode") for name in feeding_threads)


def test_bomb_fails_only_its_own_url(hostile: HostileServer, capped: Config) -> None:
    urls = [hostile.url("/bomb?coding=gzip, gzip"), hostile.url("/gzip-article"), hostile.url("/bomb?coding=deflate")]
    envelope = dispatch_extract(urls, backend="http", config=capped)
    assert envelope["success"] is True
    first, article, last = envelope["data"]
    assert first["error_code"] == last["error_code"] == "too_large"
    assert "web.max_response_bytes" in first["error"]
    assert article["title"] == "Caf\u00e9 notes"  # stacked gzip within the cap decodes fine
    assert "cr\u00e8me br\u00fbl\u00e9e" in article["content"]


@pytest.mark.parametrize(
    "coding", ["gzip", "x-gzip", "deflate", "deflate-raw", "gzip, gzip", "identity", "utf-8", "br", "zstd", "zstd, br, deflate, gzip"]
)
def test_decoder_round_trip_in_small_and_large_chunks(coding: str) -> None:
    import gzip
    import zlib

    body = os.urandom(50_000) * 3 + "caf\u00e9 ".encode() * 20_000

    def encode(data: bytes, name: str) -> bytes:
        if name in ("gzip", "x-gzip"):
            return gzip.compress(data)
        if name == "deflate":
            return zlib.compress(data)
        if name == "deflate-raw":
            raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
            return raw.compress(data) + raw.flush()
        if name == "br":
            return pytest.importorskip("brotli").compress(data)
        if name == "zstd":
            return zstd_compress(data)
        return data

    wire = body
    for name in (c.strip() for c in coding.split(",")):
        if name in ("br", "zstd"):
            _coding_available(name)
        wire = encode(wire, name)
    header = coding.replace("deflate-raw", "deflate")
    for size in (1, 7, 65_536):
        decoder = BodyDecoder(header, len(body))
        for start in range(0, len(wire), size):
            decoder.feed(wire[start:start + size])
        decoder.finish()
        assert decoder.body == body


def test_a_gzip_body_of_several_members_is_read_whole(hostile: HostileServer, capped: Config) -> None:
    """zlib stops at the end of the first member: the page was cut there, and was a success."""
    page = only_page(dispatch_extract(hostile.url("/members"), backend="http", config=capped))
    assert "before eight o'clock on most weekdays of the year." in page["content"], page


@pytest.mark.parametrize("size", [1, 7, 4096, 65_536, 1_000_000])
def test_gzip_members_decode_in_any_chunks_with_padding_after_them_ignored(size: int) -> None:
    import gzip

    parts = [os.urandom(20_000), b"", "caf\u00e9 ".encode() * 5_000]
    wire = b"".join(map(gzip.compress, parts))
    decoder = BodyDecoder("gzip", 100_000)
    for start in range(0, len(wire + b"\0" * 9), size):
        decoder.feed((wire + b"\0" * 9)[start : start + size])
    decoder.finish()
    assert decoder.body == b"".join(parts)
    cut = BodyDecoder("gzip", 100_000)  # a later member that stops before its end is cut short
    cut.feed(wire[:-5])
    with pytest.raises(Undecodable):
        cut.finish()


def test_a_zstd_frame_that_needs_a_window_over_8_mb_is_refused() -> None:
    """RFC 9659 lets a client refuse such a frame: decoding it would hold its whole window
    (32 MiB here) whatever the cap on the body. Python's own zstd (3.14 on) is capped as
    zstandard is."""
    _coding_available("zstd")
    module = zstd_module()
    data = bytes(range(256)) * (24 * 2**12)  # 24 MiB: a frame whose window must hold it
    if module.__name__ == "zstandard":
        params = module.ZstdCompressionParameters.from_level(3, window_log=25)
        frame = module.ZstdCompressor(compression_params=params).compress(data)
    else:
        frame = module.compress(data, options={module.CompressionParameter.window_log: 25})
    decoder = BodyDecoder("zstd", 10**9)
    with pytest.raises(UnsupportedCoding, match=r"zstd in a 24 MiB window, larger than the 8 MiB"):
        decoder.feed(frame)
        decoder.finish()


def test_a_page_in_a_zstd_window_over_8_mb_is_unsupported_saying_so(hostile: HostileServer, local: Config) -> None:
    """It was ``network_error``, its body "not the 'zstd' data its Content-Encoding header says
    it is": it is zstd, in a window larger than clients decode."""
    _coding_available("zstd")
    envelope = dispatch_extract(hostile.url("/zstd-window"), backend="http", config=local)
    assert envelope["error_code"] == "unsupported", envelope
    assert "compressed with zstd in a 64 MiB window" in envelope["error"], envelope["error"]


def test_truncating_decoder_keeps_the_first_bytes() -> None:
    decoder = BodyDecoder("gzip, gzip", 1000, truncate=True)
    decoder.feed(bomb("gzip, gzip"))
    assert decoder.full and decoder.body == b"\0" * 1000


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "zstd"])
def test_a_compressed_body_cut_short_is_a_network_error_not_half_a_page(
    coding: str, hostile: HostileServer, capped: Config
) -> None:
    _coding_available(coding)
    page = only_page(dispatch_extract(hostile.url(f"/cut?coding={coding}"), backend="http", config=capped))
    assert page["error_code"] == "network_error"
    assert "stops before the end of the stream, so the transfer was cut short" in page["error"]


def test_a_server_that_hangs_up_is_one_sentence(hostile: HostileServer, capped: Config) -> None:
    page = only_page(dispatch_extract(hostile.url("/hangup"), backend="http", config=capped))
    assert page["error_code"] == "network_error"
    assert page["error"].endswith("without sending a response.") and not page["error"].endswith(".."), page["error"]


def test_headers_too_large_to_read_are_said_so_and_not_fetched_again(
    hostile: HostileServer, config_for: Callable[..., Config]
) -> None:
    """Before: a network_error, "RemoteProtocolError: Receive buffer too long.", asked for again."""
    config = config_for(allow_private_networks=True, retry={"max_retries": 2, "backoff": 0}, cache=False)
    envelope = dispatch_extract(hostile.url("/cookies"), backend="http", config=config)
    assert envelope["error_code"] == "too_large", envelope
    assert "response headers larger than the 100 KiB" in envelope["error"]
    assert hostile.served.count("/cookies") == 1


def test_an_empty_compressed_body_is_an_empty_body() -> None:
    decoder = BodyDecoder("gzip", 1000)
    decoder.finish()
    assert decoder.body == b""


@pytest.mark.parametrize("coding", ["gzip", "deflate", "gzip, gzip"])
def test_a_body_that_is_not_the_coding_it_names_is_said_so_and_not_fetched_again(
    hostile: HostileServer, config_for: Callable[..., Config], coding: str
) -> None:
    config = config_for(allow_private_networks=True, retry={"max_retries": 2, "backoff": 0}, cache=False)
    path = f"/labelled?coding={coding.replace(' ', '%20')}&case=retry"
    envelope = dispatch_extract(hostile.url(path), backend="http", config=config)
    assert envelope["error_code"] == "network_error", envelope
    assert f"its body is not the '{coding}' data its Content-Encoding header says it is" in envelope["error"]
    assert len(envelope["meta"]["attempts"]) == 1
    assert hostile.served.count(path) == 1


def test_coding_that_cannot_be_decoded_is_unsupported(hostile: HostileServer, capped: Config) -> None:
    page = only_page(dispatch_extract(hostile.url("/labelled?coding=compress"), backend="http", config=capped))
    assert page["error_code"] == "unsupported"
    assert "'compress'" in page["error"]


# -- odd charsets -------------------------------------------------------------------------


@pytest.mark.parametrize("label", ["zlib", "base64", "rot13", "idna", "undefined", "hex", "no-such-charset"])
def test_codec_labels_that_are_no_text_encoding_fall_back(label: str, hostile: HostileServer, capped: Config) -> None:
    [page] = dispatch_extract(hostile.url(f"/charset?label={label}"), backend="http", config=capped)["data"]
    assert "error" not in page, page
    assert page["title"] == "Caf\u00e9 notes"
    assert "cr\u00e8me br\u00fbl\u00e9e" in page["content"]
    assert page["metadata"]["encoding"] == "utf-8"


def crawl_paths(hostile: HostileServer, host: str, config: Config, fake_dns: Any) -> tuple[set[str], dict[str, Any]]:
    """Crawl ``host`` (served by the hostile server) one link deep: the paths read, and the envelope."""
    fake_dns.table[host] = [["127.0.0.1"]]
    envelope = dispatch_crawl(hostile.url("/", host), backend="http", config=config, max_depth=1)
    assert envelope["success"] is True, envelope
    return {page["url"].split(str(hostile.port), 1)[1] for page in envelope["data"]}, envelope


def test_robots_txt_with_a_codec_charset_is_still_obeyed(
    hostile: HostileServer, capped: Config, fake_dns: Any
) -> None:
    paths, _envelope = crawl_paths(hostile, "oddrobots.test", capped, fake_dns)
    assert paths == {"/", "/docs/a", "/public/a"}


# -- robots.txt over the size limit -------------------------------------------------------


def test_large_robots_txt_is_read_up_to_its_first_512_kib(
    hostile: HostileServer, capped: Config, fake_dns: Any
) -> None:
    paths, envelope = crawl_paths(hostile, "bigrobots.test", capped, fake_dns)
    # /private/ is disallowed near the top; the /docs/ rule lies past 512 KiB and is not read.
    assert paths == {"/", "/docs/a", "/public/a"}
    assert any("robots.txt disallows" in w for w in envelope["meta"]["warnings"])


# -- extraction in worker processes -------------------------------------------------------


def uncapped(config_for: Callable[..., Config], cpu_timeout: float) -> Config:
    """No caps that would make the link farm cheap: only the CPU limit (and the call) stop it."""
    extraction = {"cpu_timeout": cpu_timeout, "max_html_chars": 10_000_000, "max_html_elements": 10_000_000}
    return config_for(allow_private_networks=True, extraction=extraction)


@pytest.fixture
def strict(config_for: Callable[..., Config]) -> Config:
    """One CPU second per page."""
    return uncapped(config_for, 1)


def test_page_over_its_cpu_time_is_timeout_while_other_pages_and_calls_go_on(
    hostile: HostileServer, strict: Config
) -> None:
    farm = hostile.url("/links?n=60000")  # about 2 MB; many CPU seconds of main-content extraction

    async def together() -> list[dict[str, Any]]:
        return await asyncio.gather(
            adispatch_extract([farm, hostile.url("/first/page")], backend="http", config=strict),
            adispatch_extract([hostile.url("/second/page")], backend="http", config=strict),
        )

    same_call, other_call = asyncio.run(together())
    stopped, neighbour = same_call["data"]
    assert stopped["error_code"] == "timeout"
    assert "1 s of CPU time" in stopped["error"] and "web.extraction.cpu_timeout" in stopped["error"]
    assert "page called first page" in neighbour["content"]
    assert "page called second page" in other_call["data"][0]["content"]
    # The stopped worker was replaced: the pool still extracts, with live workers only.
    after = dispatch_extract([hostile.url("/third/page"), hostile.url("/fourth/page")], backend="http", config=strict)
    assert all("error" not in page for page in after["data"])
    assert 1 <= len(extraction_pool.pids()) <= strict.web.extraction.workers


def test_a_page_over_its_cpu_time_is_not_tried_again(hostile: HostileServer, config_for: Callable[..., Config]) -> None:
    """It would use up its CPU time again: the call fails after one attempt, though retries are on
    and there is time left for them."""
    farm = hostile.url("/links?n=60000&once=1")
    extraction = {"cpu_timeout": 1, "max_html_chars": 10_000_000, "max_html_elements": 10_000_000}
    config = config_for(
        allow_private_networks=True, extraction=extraction, retry={"max_retries": 2, "backoff": 0}, cache=False
    )
    envelope = dispatch_extract(farm, backend="http", config=config, timeout=60)
    assert envelope["error_code"] == "timeout" and envelope.get("detail") == "cpu_limit", envelope
    assert len(envelope["meta"]["attempts"]) == 1
    assert hostile.served.count("/links?n=60000&once=1") == 1


@pytest.mark.parametrize(
    ("depth", "n"),
    [
        (800, 40),  # 64 KB whose indented form would be 64,000,000 characters
        (5000, 1),  # nested past Python's recursion limit
    ],
)
def test_json_that_pretty_prints_out_of_bounds_is_shown_as_it_came(
    hostile: HostileServer, capped: Config, depth: int, n: int
) -> None:
    nested = hostile.url(f"/nested.json?depth={depth}&n={n}")
    started = time.monotonic()
    envelope = dispatch_extract([nested, hostile.url("/beside/json")], backend="http", config=capped, timeout=20)
    assert time.monotonic() - started < 10
    page, neighbour = envelope["data"]
    assert "error" not in page, page
    assert page["content"].startswith("[[[[") and page["content"].endswith("]]]]")
    assert page["content"] == nested_json(depth, n).decode()
    assert "page called beside json" in neighbour["content"]


def test_heavy_pages_leave_a_worker_for_ordinary_pages(hostile: HostileServer, strict: Config) -> None:
    """Two large pages in flight with two workers: an ordinary page does not wait for them."""
    farms = [hostile.url(f"/links?n=60000&copy={i}") for i in range(2)]  # over 1,000,000 characters

    async def scenario() -> tuple[bool, dict[str, Any], list[dict[str, Any]]]:
        heavy = [asyncio.ensure_future(adispatch_extract(url, backend="http", config=strict)) for url in farms]
        while not all(url.split(str(hostile.port), 1)[1] in hostile.served for url in farms):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)  # read, decoded and handed to the pool
        ordinary = await adispatch_extract(hostile.url("/ordinary/page"), backend="http", config=strict)
        heavy_still_running = not all(task.done() for task in heavy)
        return heavy_still_running, ordinary, [only_page(envelope) for envelope in await asyncio.gather(*heavy)]

    heavy_still_running, ordinary, farm_pages = asyncio.run(scenario())
    assert "page called ordinary page" in ordinary["data"][0]["content"]
    assert heavy_still_running  # it did not queue behind the two heavy pages
    assert [page["error_code"] for page in farm_pages] == ["timeout", "timeout"]


def test_a_page_cut_before_its_text_says_so_not_that_a_script_builds_it(
    hostile: HostileServer, config_for: Callable[..., Config]
) -> None:
    """Its beginning, all markup without text, came back empty with the sentence for pages
    built by script, which sent the reader to a browser backend instead of the limit that cut it."""
    config = config_for(allow_private_networks=True, extraction={"max_html_chars": 5_000})
    envelope = dispatch_extract(hostile.url("/head-links"), backend="http", config=config)
    assert envelope["data"][0]["content"] == "" and envelope["data"][0]["metadata"]["html_truncated"] is True
    [warning] = envelope["meta"]["warnings"]
    assert "web.extraction.max_html_chars (5,000 characters)" in warning and "crawl4ai" not in warning


def test_a_large_page_of_few_elements_is_an_ordinary_page(hostile: HostileServer, strict: Config) -> None:
    """1.2 MB of HTML that is mostly one inline script, as news pages are served, costs what its
    few elements cost: its worker is kept for the next page, not replaced as after a heavy one."""
    dispatch_extract(hostile.url("/warm/page"), backend="http", config=strict)
    before = extraction_pool.pids()
    page = only_page(dispatch_extract(hostile.url("/scripted?chars=1200000"), backend="http", config=strict))
    assert "serves cr\u00e8me br\u00fbl\u00e9e every morning" in page["content"]
    assert before and set(before) <= set(extraction_pool.pids())


def test_call_deadline_stops_a_page_before_its_cpu_time_runs_out(
    hostile: HostileServer, config_for: Callable[..., Config]
) -> None:
    patient = uncapped(config_for, 600)
    envelope = dispatch_extract(hostile.url("/links?n=60000"), backend="http", config=patient, timeout=3)
    assert envelope["success"] is False
    assert envelope["error_code"] == "timeout"
    page = only_page(envelope)
    assert page["error_code"] == "timeout"
    assert "time limit" in page["error"]
    after = dispatch_extract(hostile.url("/fifth/page"), backend="http", config=patient)
    assert "page called fifth page" in after["data"][0]["content"]


def test_pages_sent_in_one_byte_chunks_end_by_their_deadline_together(
    hostile: HostileServer, config_for: Callable[..., Config]
) -> None:
    """Each 64 KiB read of such a body is thousands of chunks handed up without a wait, so no
    timer fired while one was read: 24 calls on one loop ended up to 6 s into a 1.5 s deadline."""
    patient = config_for(allow_private_networks=True)

    async def calls() -> list[tuple[dict[str, Any], float]]:
        async def one(n: int) -> tuple[dict[str, Any], float]:
            started = time.monotonic()
            url = hostile.url(f"/one-byte-chunks?n={n}")
            envelope = await adispatch_extract(url, backend="http", config=patient, timeout=1.5, cache=False)
            return envelope, time.monotonic() - started

        return await asyncio.gather(*(one(n) for n in range(24)))

    ended = asyncio.run(calls())
    assert all(envelope["error_code"] == "timeout" for envelope, _ in ended), ended
    assert max(seconds for _, seconds in ended) < 1.5 + 0.4


def test_page_over_its_memory_limit_is_too_large_while_other_pages_go_on(
    hostile: HostileServer, config_for: Callable[..., Config]
) -> None:
    extraction = {"cpu_timeout": 60, "max_html_chars": 10_000_000, "max_html_elements": 10_000_000, "max_memory_mb": 256}
    config = config_for(allow_private_networks=True, extraction=extraction)
    envelope = dispatch_extract([hostile.url("/links?n=60000"), hostile.url("/memory/page")], backend="http", config=config)
    stopped, neighbour = envelope["data"]
    assert stopped["error_code"] == "too_large"
    assert "256 MB" in stopped["error"] and "web.extraction.max_memory_mb" in stopped["error"]
    assert "page called memory page" in neighbour["content"]
    after = dispatch_extract(hostile.url("/after/page"), backend="http", config=config)
    assert "page called after page" in after["data"][0]["content"]


def test_a_worker_killed_from_outside_is_replaced(hostile: HostileServer, capped: Config) -> None:
    dispatch_extract(hostile.url("/warm/page"), backend="http", config=capped)
    for pid in extraction_pool.pids():
        os.kill(pid, signal.SIGKILL)
    envelope = dispatch_extract([hostile.url("/sixth/page"), hostile.url("/seventh/page")], backend="http", config=capped)
    assert all("error" not in page for page in envelope["data"]), envelope


def test_huge_html_is_cut_and_a_huge_tree_gets_its_plain_text(
    hostile: HostileServer, config_for: Callable[..., Config]
) -> None:
    config = config_for(allow_private_networks=True, extraction={"max_html_chars": 60_000, "max_html_elements": 1_000})
    [page] = dispatch_extract(hostile.url("/links?n=3000"), backend="http", config=config)["data"]
    assert page["metadata"]["html_truncated"] is True
    assert page["metadata"]["extraction"] == "full_text"
    assert "link number 100" in page["content"]
    assert "link number 2999" not in page["content"]  # past the first 60,000 characters


@pytest.mark.parametrize("depth", [300, 1_000])
def test_a_page_nested_deeper_than_256_levels_is_read_whole(hostile: HostileServer, capped: Config, depth: int) -> None:
    page = only_page(dispatch_extract(hostile.url(f"/nested.html?depth={depth}"), backend="http", config=capped))
    assert "The text in the middle of the nest" in page["content"], page
    assert "The text after the nest." in page["content"]
    assert "html_truncated" not in page["metadata"]


def test_a_page_nested_past_what_is_parsed_gives_its_text_before_and_says_so(
    hostile: HostileServer, capped: Config
) -> None:
    envelope = dispatch_extract(hostile.url("/nested.html?depth=3000&before=1"), backend="http", config=capped)
    page = only_page(envelope)
    assert page["content"] == "The text before the nest.", page
    assert page["metadata"]["html_truncated"] is True
    [warning] = envelope["meta"]["warnings"]
    assert "more than 2,048 levels deep" in warning


def test_a_page_nested_past_what_is_parsed_with_no_text_before_is_too_large(
    hostile: HostileServer, capped: Config
) -> None:
    envelope = dispatch_extract(hostile.url("/nested.html?depth=3000"), backend="http", config=capped)
    assert envelope["success"] is False
    assert (envelope["error_code"], envelope["detail"]) == ("too_large", "nesting"), envelope
    assert "more than 2,048 levels deep" in envelope["error"]


def test_pdf_pages_past_the_cap_are_not_read(hostile: HostileServer, config_for: Callable[..., Config]) -> None:
    pytest.importorskip("pypdf")
    config = config_for(allow_private_networks=True, extraction={"max_pdf_pages": 2})
    [page] = dispatch_extract(hostile.url("/report.pdf?pages=5"), backend="http", config=config)["data"]
    assert page["metadata"]["pages"] == 5
    assert page["metadata"]["pages_read"] == 2
    assert "Page 1 of the report" in page["content"] and "Page 2 of the report" in page["content"]
    assert "Page 3" not in page["content"]


def test_a_head_of_unclosed_meta_tags_is_searched_for_its_charset_at_once(hostile: HostileServer, local: Config) -> None:
    """Each ``<meta`` was read up to the head's end in search of a charset: time quadratic in the
    head (250 KB: 17 s), on the event loop, so a call given 5 s ended after 17 as a ``timeout``."""
    envelope = dispatch_extract(hostile.url("/metas.html"), backend="http", config=local, timeout=5)
    assert envelope["success"] is True, envelope
    assert "Привет, мир" in envelope["data"][0]["content"]


def test_a_markdown_heading_with_a_long_run_of_spaces_is_read_at_once(hostile: HostileServer, local: Config) -> None:
    """The pattern that found the title took time cubic in the run (6,000 spaces: minutes), on the
    event loop, so the call outlived its deadline by as much and came back a ``timeout``."""
    envelope = dispatch_extract(hostile.url("/spaced.md"), backend="http", config=local, timeout=20)
    assert envelope["success"] is True, envelope
    [page] = envelope["data"]
    assert page["title"].startswith("Release notes ") and page["title"].endswith(" (draft)"), page["title"][:40]


def test_a_markdown_title_keeps_a_hash_that_closes_no_heading(hostile: HostileServer, local: Config) -> None:
    """CommonMark closes a heading with ``#``s after a space: ``# C#`` is titled ``C#`` (it was ``C``)."""
    [page] = dispatch_extract(hostile.url("/csharp.md"), backend="http", config=local)["data"]
    assert page["title"] == "C#"


def test_a_pdf_bomb_is_too_large(hostile: HostileServer, local: Config) -> None:
    """A content stream inflating past pypdf's limit was ``provider_error`` ("Extraction failed:
    LimitReachedError: ..."), a fault of the backend's own, with pypdf's words."""
    pytest.importorskip("pypdf")
    envelope = dispatch_extract(hostile.url("/bomb.pdf"), backend="http", config=local)
    assert envelope["error_code"] == "too_large", envelope
    assert "decompression bomb" in envelope["error"] and "LimitReachedError" not in envelope["error"]


@pytest.mark.parametrize("stream", ["reference", "nested"])
def test_a_damaged_pdf_is_a_parse_error(hostile: HostileServer, local: Config, stream: str) -> None:
    """A reference inside a page's content stream failed pypdf's assert, and arrays nested 100,000
    deep its recursion: both were ``provider_error`` ("Extraction failed: AssertionError: mypy")."""
    pytest.importorskip("pypdf")
    envelope = dispatch_extract(hostile.url(f"/damaged.pdf?stream={stream}"), backend="http", config=local)
    assert envelope["error_code"] == "parse_error", envelope
    assert "could not be read as a PDF" in envelope["error"]


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_workers_start_on_first_page_and_end_with_the_interpreter(hostile: HostileServer) -> None:
    script = f"""
import json, sys
import webproviders
webproviders.list_providers()
loaded_early = "webproviders.fetching.extractpool" in sys.modules
from webproviders.config import config_from_dict
config = config_from_dict({{"web": {{"allow_private_networks": True}}}})
envelope = webproviders.dispatch_extract({hostile.url("/script/page")!r}, backend="http", config=config)
from webproviders.fetching.extractpool import extraction_pool
print(json.dumps({{
    "loaded_early": loaded_early,
    "content": envelope["data"][0].get("content", ""),
    "workers": extraction_pool.pids(),
    "trafilatura_here": "trafilatura" in sys.modules,
}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["loaded_early"] is False
    assert "page called script page" in report["content"]
    assert report["trafilatura_here"] is False  # extraction never ran in the caller's process
    assert report["workers"]
    assert not [pid for pid in report["workers"] if _running(pid)]


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads process environments from /proc")
def test_workers_get_no_secrets_and_a_memory_limit(hostile: HostileServer) -> None:
    """A worker parses hostile input: it holds none of the caller's keys, and its address space is capped."""
    script = f"""
import json
from webproviders import dispatch_extract
from webproviders.config import config_from_dict
from webproviders.fetching.extractpool import extraction_pool
config = config_from_dict({{"web": {{"allow_private_networks": True, "extraction": {{"max_memory_mb": 700}}}}}})
envelope = dispatch_extract({hostile.url("/secret/page")!r}, backend="http", config=config)
[pid] = extraction_pool.pids()
with open(f"/proc/{{pid}}/environ", "rb") as environ, open(f"/proc/{{pid}}/limits") as limits:
    print(json.dumps({{
        "content": envelope["data"][0].get("content", ""),
        "environ": environ.read().decode(errors="replace"),
        "limits": limits.read(),
    }}))
"""
    secrets = {"TAVILY_API_KEY": "tvly-not-for-workers", "OPENAI_API_KEY": "sk-not-for-workers", "AWS_SECRET_ACCESS_KEY": "aws-nope"}
    environment = {**os.environ, **secrets, "LC_ALL": "C.UTF-8", "WEB_EXTRACTION_TOKEN": "nope"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True, env=environment)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert "page called secret page" in report["content"]
    names = {entry.split("=", 1)[0] for entry in report["environ"].split("\0") if entry}
    assert "PATH" in names and "LC_ALL" in names
    assert not names & {*secrets, "WEB_EXTRACTION_TOKEN"}
    assert not any(value in report["environ"] for value in secrets.values())
    [address_space] = [line for line in report["limits"].splitlines() if line.startswith("Max address space")]
    assert address_space.split()[3] == str(700 * 1024 * 1024)


def test_workers_never_write_to_the_callers_stdout() -> None:
    """stdout may carry a protocol (an MCP server on stdio): a stray print in a worker goes to stderr."""
    script = """
import asyncio
from webproviders.config import ExtractionSettings
from webproviders.fetching.extractpool import extraction_pool
asyncio.run(extraction_pool.run(ExtractionSettings(), print, "printed in a worker"))
print("printed by the caller")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout == "printed by the caller\n"
    assert "printed in a worker" in done.stderr


def test_a_worker_loads_what_extraction_needs_and_no_more() -> None:
    """A worker's start is on the path of a command line's first extract: it is an
    interpreter, trafilatura and our extraction, not the caller's machinery (asyncio came
    with the robots.txt cache, 13 ms of every worker's start)."""
    script = """
import json, sys
import webproviders.fetching.extractworker
from webproviders.fetching.extraction import html_document
html_document("<html><body><article><p>" + "Words here. " * 30 + "</p></article></body></html>", "https://e.org/")
print(json.dumps(sorted(m for m in ("asyncio", "httpx", "httpcore", "protego", "pydantic", "yaml") if m in sys.modules)))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
