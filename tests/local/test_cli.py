"""``webproviders index``: add, show, remove, prune; and searching what was added."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from webproviders.cli import EXIT_CONFIG, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE, main
from webproviders.config import Config
from webproviders.index.pages import Filters, IndexedPage
from webproviders.index.stores import open_store

from .conftest import spoil


@pytest.fixture
def cli(tmp_path: Path, index_section: dict[str, Any], site: Any, capsys: pytest.CaptureFixture[str]) -> Any:
    """``cli(*argv)`` -> (exit code, stdout, stderr), with a config file that reaches the site."""
    site.reset()
    config = tmp_path / "config.yaml"
    tree = {"web": {"allow_private_networks": True, "providers": {"local": index_section}}}
    config.write_text(yaml.safe_dump(tree), encoding="utf-8")

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(["--config", str(config), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_index_then_search_then_stats(cli: Any, site: Any, index_config: Config) -> None:
    location = open_store(index_config).location
    url = site.url("/articles/caching")
    code, out, _ = cli("index", url)  # the default extract backend: http
    assert code == EXIT_OK
    assert out == f"indexed 1 page(s) into {location}\n"
    code, out, _ = cli("search", "time to live expiry", "--backend", "local")
    assert code == EXIT_OK and out.startswith(f"1. Caching in practice\n   {url}\n")
    assert "**" in out
    code, out, _ = cli("index", "--stats", "--json")
    stats = json.loads(out)
    assert code == EXIT_OK and stats["pages"] == 1 and stats["providers"] == {"http": 1}
    code, out, _ = cli("index", "--stats")
    assert f"index:   {location}\npages:   1\n" in out and "  http" in out


def test_index_with_crawl(cli: Any, site: Any) -> None:
    code, out, _ = cli("index", site.url("/docs/"), "--crawl", "--max-pages", "3", "--json")
    envelope = json.loads(out)
    assert code == EXIT_OK and envelope["success"] is True
    data = envelope["data"]
    assert site.url("/docs/") in data["indexed"] and len(data["indexed"]) >= 2
    assert len(data["indexed"]) + len(data["failed"]) == 3  # the crawl's pages, each added or failed
    assert all(item["error_code"] for item in data["failed"])


def test_remove_and_prune(cli: Any, site: Any) -> None:
    urls = [site.url("/articles/caching"), site.url("/articles/retries")]
    cli("index", *urls)
    code, out, _ = cli("index", "--remove", urls[0])
    assert code == EXIT_OK and out.startswith("removed 1 page(s) from ")
    code, out, _ = cli("index", "--prune", "--older-than", "30d")
    assert code == EXIT_OK and out.startswith("pruned 0 page(s) fetched more than 30d ago")
    code, out, _ = cli("index", "--prune", "--older-than", "0s", "--json")
    assert code == EXIT_OK and json.loads(out)["removed"] == 1


def test_removing_what_is_no_url_is_refused_not_reported_done(cli: Any, site: Any) -> None:
    """``--remove notaurl`` said "removed 0 page(s)", as if the page were not there."""
    url = site.url("/articles/caching")
    cli("index", url)
    code, out, err = cli("index", "--remove", "notaurl", url)
    assert code == EXIT_USAGE and out == ""
    assert err.startswith("error [invalid_input]: The URL to remove 'notaurl' is not an http:// or https:// address")
    code, out, err = cli("index", "--remove", "example.com/a", "--json")
    assert code == EXIT_USAGE and "write it with its scheme, 'https://example.com/a'" in json.loads(out)["error"]
    code, out, _ = cli("index", "--remove", url)  # nothing was removed by the refused command
    assert code == EXIT_OK and out.startswith("removed 1 page(s) from ")


def test_a_page_that_cannot_be_read_fails_the_command(cli: Any, site: Any) -> None:
    code, out, err = cli("index", site.url("/missing"))
    assert code == EXIT_NOT_FOUND
    assert out == "" and err.startswith(f"error [not_found]: {site.url('/missing')} was not found (HTTP 404).")


def test_the_urls_that_failed_are_on_stderr_as_extract_s(cli: Any, site: Any) -> None:
    """``index good bad > report``: the failed URL was written to stdout, in a form of its own,
    where every other command writes them to stderr."""
    missing, kept = site.url("/missing"), site.url("/articles/caching")
    code, out, err = cli("index", kept, missing)
    assert code == EXIT_OK
    assert out.startswith("indexed 1 page(s) into ") and out.count("\n") == 1 and missing not in out
    assert err == f"failed [not_found] {missing}: {missing} was not found (HTTP 404).\n"


def test_a_page_now_gone_is_removed_when_indexed_again(cli: Any, site: Any, index_config: Config) -> None:
    """Indexing a URL again replaces its page; one that is gone (404) is not served on from
    its old copy."""
    gone, kept = site.url("/missing"), site.url("/articles/caching")
    store = open_store(index_config)
    store.add([IndexedPage(gone, "Old", "an old copy of the zeppelin page", time.time())])
    code, out, err = cli("index", gone, kept, "--json")
    envelope = json.loads(out)
    assert code == EXIT_OK and envelope["data"]["removed"] == [gone]
    assert envelope["meta"]["warnings"] == [
        f"Removed from the local index, as the source no longer has them: {gone}."
    ]
    assert store.get([gone]) == {} and store.search("zeppelin", 5, Filters()) == []
    store.add([IndexedPage(gone, "Old", "an old copy of the zeppelin page", time.time())])
    code, _, err = cli("index", gone)  # read no page at all: still a failure, and still removed
    assert code == EXIT_NOT_FOUND and "warning: Removed from the local index" in err
    assert store.get([gone]) == {}


def test_reading_with_the_index_itself_is_refused(cli: Any, site: Any) -> None:
    """--backend local read the pages with whatever auto-detection found (a paid vendor with a
    key set would do), and said nothing."""
    code, out, err = cli("index", site.url("/articles/caching"), "--backend", "local")
    assert code == EXIT_USAGE and out == ""
    assert err.startswith("error [invalid_input]: The index cannot read pages into itself: name the backend")
    assert site.hits == []  # nothing was read


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((), "give URLs to index, or exactly one of"),
        (("--stats", "--prune", "--older-than", "1d"), "exactly one of"),
        (("--prune",), "--prune needs --older-than"),
        (("--stats", "--older-than", "1d"), "--prune needs --older-than"),
        (("https://a.example.com/", "--max-pages", "3"), "--max-pages needs --crawl"),
        (("--stats", "--crawl"), "go with URLs to index"),
    ],
)
def test_usage_errors(cli: Any, argv: tuple[str, ...], message: str) -> None:
    code, _, err = cli("index", *argv)
    assert code == EXIT_USAGE and message in err
    code, out, _ = cli("index", *argv, "--json")  # before: nothing on stdout
    assert code == EXIT_USAGE
    answer = json.loads(out)
    assert answer["success"] is False and answer["error_code"] == "invalid_input" and message in answer["error"]


def test_a_bad_age_is_invalid_input(cli: Any) -> None:
    code, _, err = cli("index", "--prune", "--older-than", "3 fortnights")
    assert code == EXIT_USAGE and err.startswith("error [invalid_input]: An age is a number and a unit")


def test_something_else_where_the_index_should_be_is_reported(cli: Any, index_config: Config) -> None:
    refusal = spoil(index_config)
    for argv in (("--stats",), ("--remove", "https://a.example.com/"), ("--prune", "--older-than", "1d")):
        code, _, err = cli("index", *argv)
        assert code == EXIT_CONFIG and err.startswith("error [not_configured]: ") and refusal in err
        code, out, _ = cli("index", *argv, "--json")  # a program reading stdout still gets JSON
        failure = json.loads(out)
        assert code == EXIT_CONFIG and failure["error_code"] == "not_configured" and refusal in failure["error"]
