"""The usage ledger: a row per request that reached a vendor, and the totals read back from it."""

from __future__ import annotations

import collections
import datetime
import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import webproviders
from webproviders import dispatch_extract, dispatch_search
from webproviders.accounting.usage import Ledger, UsageRecord
from webproviders.accounting.usage.report import UsageQueryError, parse_since
from webproviders.accounting.usage.spool import spool
from webproviders.cli import main
from webproviders.config import config_from_dict
from webproviders.dependable.offload import SKIP_AFTER_FAILURE
from webproviders.dispatch.state import state_for
from webproviders.errors import BadGatewayError, NetworkError
from webproviders.registry.providers import get_registry

from .conftest import PLUGINS, cost_config, scripted


def _rows(path: Path) -> list[dict[str, Any]]:
    spool.flush()
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in conn.execute("SELECT * FROM usage ORDER BY time")]
    finally:
        conn.close()


def test_rows_go_to_sqlite_under_xdg_data_home_without_the_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    config = cost_config(retry={"max_retries": 0, "backoff": 0})
    dispatch_search("secret plans", backend="priced", config=config, tags={"user": "alice", "agent": "a1"})
    scripted(config, "free").steps = [BadGatewayError("down", status_code=500)]
    dispatch_search("more secret plans", backend="free", config=config)
    rows = _rows(tmp_path / "data" / "webproviders" / "usage.sqlite3")
    assert [(r["provider"], r["capability"], r["outcome"], r["units"], r["unit"], r["usd"]) for r in rows] == [
        ("priced", "search", "ok", 1.0, "request", 0.004),
        ("free", "search", "bad_gateway", 0.0, "request", 0.0),
    ]
    assert json.loads(rows[0]["tags"]) == {"agent": "a1", "user": "alice"}
    assert rows[0]["latency_ms"] >= 0 and rows[0]["estimated"] == 0
    assert all(r["query"] is None for r in rows)
    assert not any("secret" in str(value) for r in rows for value in r.values())


def test_queries_are_kept_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    config = cost_config(usage={"path": str(path), "record_queries": True})
    dispatch_search("solar tariffs", backend="priced", config=config)
    dispatch_extract(["https://a.example/x", "https://a.example/y"], backend="priced", config=config)
    assert [r["query"] for r in _rows(path)] == ["solar tariffs", "https://a.example/x https://a.example/y"]


def test_recorded_urls_keep_no_credential_a_caller_put_in_them(tmp_path: Path) -> None:
    """A page behind a key in its query (a signed or shared link) is read as asked; the
    ledger keeps its URL as a log line would show it."""
    path = tmp_path / "usage.sqlite3"
    config = cost_config(usage={"path": str(path), "record_queries": True})
    token = "Tok-0123456789-abcdefghij"
    urls = ["https://a.example/x", f"https://a.example/report?api_key={token}&page=2"]
    envelope = dispatch_extract(urls, backend="priced", config=config)
    # one item per URL, in order, its URL masked as in its error sentences (security.md)
    assert envelope["data"][1]["url"] == "https://a.example/report?api_key=***&page=2"
    assert [r["query"] for r in _rows(path)] == [
        "https://a.example/x https://a.example/report?api_key=***&page=2"
    ]


def test_only_requests_that_reached_a_vendor_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    config = cost_config(usage={"path": str(path)}, budget={"daily_usd": 0.004}, cache={"backend": "memory"})
    dispatch_search("a", backend="priced", config=config)
    dispatch_search("a", backend="priced", config=config)  # cached
    dispatch_search("b", backend="priced", config=config)  # over budget
    dispatch_search("", backend="priced", config=config)  # invalid input
    assert len(_rows(path)) == 1


def test_calls_from_many_threads_at_once_each_leave_their_row_and_total(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    config = cost_config(usage={"path": str(path)})

    def calls(worker: int) -> None:
        for _ in range(40):
            dispatch_search("a", backend="priced", config=config, cache=False, tags={"worker": str(worker)})

    threads = [threading.Thread(target=calls, args=(worker,)) for worker in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rows = _rows(path)
    assert sorted(collections.Counter(json.loads(r["tags"])["worker"] for r in rows).items()) == [
        (str(worker), 40) for worker in range(5)
    ]
    conn = sqlite3.connect(path)
    try:
        (total,) = conn.execute("SELECT sum(usd) FROM usage_totals WHERE scope = 'all' AND length(period) = 10").fetchone()
    finally:
        conn.close()
    assert total == pytest.approx(200 * 0.004)


def test_a_caller_that_never_waits_does_not_keep_its_rows_from_being_written(tmp_path: Path) -> None:
    """A tight loop of sync calls (each turn of the call's event loop lets go of the
    interpreter for an instant and takes it straight back) must not starve the ledger's
    writer: its rows are written as it goes, none is dropped."""
    path = tmp_path / "usage.sqlite3"
    config = config_from_dict({"web": {"usage": {"path": str(path)}}})
    dropped = spool.dropped
    calls, start = 0, time.monotonic()
    while time.monotonic() - start < 1.5:
        dispatch_search("a", backend="stub", config=config, cache=False)
        calls += 1
    conn = sqlite3.connect(path)  # read as it stands, without a flush
    try:
        (written,) = conn.execute("SELECT count(*) FROM usage").fetchone()
    finally:
        conn.close()
    assert written >= calls // 2, f"{written} of {calls} rows written while the caller ran"
    assert len(_rows(path)) == calls and spool.dropped == dropped


def test_usage_summary_groups_totals(tmp_path: Path) -> None:
    config = cost_config(usage={"path": str(tmp_path / "usage.sqlite3")})
    dispatch_search("a", backend="priced", config=config, tags={"user": "alice"})
    dispatch_search("b", backend="priced", config=config, tags={"user": "alice"})
    dispatch_search("c", backend="pricey", config=config, tags={"user": "bob"})
    dispatch_extract(["https://a.example/1", "https://a.example/2"], backend="priced", config=config)
    dispatch_search("d", backend="free", config=config)

    by_provider = webproviders.usage_summary("1d", config=config)
    assert [(r["key"], r["requests"], r["usd"]) for r in by_provider["rows"]] == [
        ("pricey", 1, 0.05), ("priced", 3, 0.01), ("free", 1, 0.0)
    ]
    assert by_provider["rows"][1]["units"] == {"request": 2, "url": 1}
    assert by_provider["total"]["usd"] == 0.06 and by_provider["total"]["requests"] == 5
    assert by_provider["total"]["estimated"] is True  # pricey's price is an estimate
    by_user = webproviders.usage_summary("1d", by="tag:user", config=config)
    assert [(r["key"], r["usd"]) for r in by_user["rows"]] == [("bob", 0.05), ("alice", 0.008), (None, 0.002)]
    by_capability = webproviders.usage_summary(datetime.timedelta(hours=1), by="capability", config=config)
    assert {r["key"]: r["requests"] for r in by_capability["rows"]} == {"search": 4, "extract": 1}
    within = webproviders.usage_summary(datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1),
                                        until=datetime.timedelta(hours=1), config=config)
    assert within["rows"] == [] and within["total"]["requests"] == 0


def _recorded(config: Any, *spends: tuple[float, float]) -> None:
    """Ledger rows of ``(seconds ago, dollars)``, written."""
    ledger = Ledger(config.web.usage)
    for ago, usd in spends:
        ledger.record(UsageRecord(time.time() - ago, "priced", "search", "ok", 1.0, "request", usd, False, 1.0))
    assert spool.flush(10)


def test_usage_by_day_lists_the_days_in_calendar_order(tmp_path: Path) -> None:
    """Sorted by spend like the other groupings, a week's days read as a shuffled calendar."""
    config = cost_config(usage={"path": str(tmp_path / "usage.sqlite3")})
    _recorded(config, (2 * 86400, 0.01), (86400, 0.03), (0, 0.02))
    days = [row["key"] for row in webproviders.usage_summary("3d", by="day", config=config)["rows"]]
    assert len(days) == 3 and days == sorted(days)


def test_since_and_by_are_checked() -> None:
    now = 1_000_000.0
    assert parse_since("7d", now) == now - 7 * 86400
    assert parse_since("90m", now) == now - 5400
    assert parse_since("2026-10-01", now) == datetime.datetime(2026, 10, 1, tzinfo=datetime.timezone.utc).timestamp()
    with pytest.raises(UsageQueryError, match="7d"):
        parse_since("last week", now)
    with pytest.raises(UsageQueryError, match="tag:<name>"):
        webproviders.usage_summary("1d", by="colour", config=cost_config())


@pytest.mark.parametrize(
    "written", ["2026-10-01T12:00:00Z", "2026-10-01T12:00z", "2026-10-01T12:00:00.000Z", "2026-10-01T14:00:00+0200"]
)
def test_an_iso_time_in_utc_or_with_a_colonless_offset_is_read_on_every_python(written: str) -> None:
    """Python 3.10's ``fromisoformat`` refuses a ``Z`` (what ``date -u +%FT%TZ`` and
    JavaScript's ``toISOString`` write) and ``+0200``: ``--since`` said it was not understood."""
    noon = datetime.datetime(2026, 10, 1, 12, tzinfo=datetime.timezone.utc).timestamp()
    assert parse_since(written) == noon
    assert parse_since(written, what="until") == noon


@pytest.mark.parametrize("since", ["99999999d", "10000000000000000000000m", datetime.timedelta(days=999_999_999)])
def test_a_span_reaching_before_1970_reports_everything(tmp_path: Path, since: Any) -> None:
    """It raised "year -271764 is out of range" (a ValueError, or an OverflowError) out of
    usage_summary, which the command line reported as a provider_error."""
    config = cost_config(usage={"path": str(tmp_path / "usage.sqlite3")})
    webproviders.dispatch_search("q", backend="priced", config=config)
    summary = webproviders.usage_summary(since, config=config)
    assert summary["since"].startswith("1970-01-01") and summary["total"]["requests"] == 1


@pytest.mark.parametrize("since", ["2099-01-01", "9999-12-31T23:59:59-14:00"])
def test_a_since_in_the_future_is_refused_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], since: str
) -> None:
    """``--since 2099-01-01`` printed an empty table "from 2099 to today" with exit code 0, read
    as nothing spent; a date past the year 9999 in UTC failed with "year 10000 is out of range"."""
    file = tmp_path / "config.yaml"
    file.write_text(json.dumps({"web": {"usage": {"path": str(tmp_path / "usage.sqlite3")}}}), encoding="utf-8")
    assert main(["--config", str(file), "usage", "--since", since]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error [invalid_input]: since (") and "is in the future (it is now " in error
    assert "give a past date, or a span back such as '7d'." in error
    with pytest.raises(UsageQueryError, match="is in the future"):
        webproviders.usage_summary(datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1))
    assert main(["--config", str(file), "usage", "--until", since, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["until"] in ("2099-01-01T00:00:00+00:00", "9999-12-31T23:59:59+00:00")


@pytest.mark.parametrize("since", ["0d", "0h", "0m"])
def test_a_span_of_no_time_is_refused_saying_so(tmp_path: Path, capsys: pytest.CaptureFixture[str], since: str) -> None:
    """``--since 0d`` printed an empty table from now to now with exit code 0, read as nothing spent."""
    file = tmp_path / "config.yaml"
    file.write_text(json.dumps({"web": {"usage": {"path": str(tmp_path / "usage.sqlite3")}}}), encoding="utf-8")
    assert main(["--config", str(file), "usage", "--since", since]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error [invalid_input]: since (") and "is now, a span of no time (it is now " in error
    assert "give a past date, or a span back such as '7d'." in error


def test_grouping_by_a_tag_no_call_can_carry_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--by "tag:user name"`` put every row under "-", which reads as calls without the tag."""
    file = tmp_path / "config.yaml"
    file.write_text(json.dumps({"web": {"usage": {"path": str(tmp_path / "usage.sqlite3")}}}), encoding="utf-8")
    assert main(["--config", str(file), "usage", "--by", "tag:user name"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error [invalid_input]: by 'tag:user name' names a tag no call can carry (tag names use letters")


def _config_file(tmp_path: Path, web: dict[str, Any]) -> Path:
    file = tmp_path / "config.yaml"
    document = {"web": web, "plugins": {"paths": [str(PLUGINS)], "enabled": ["priced"]}}
    file.write_text(json.dumps(document), encoding="utf-8")  # JSON is YAML
    return file


def test_the_usage_command_prints_a_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = _config_file(tmp_path, {"usage": {"path": str(tmp_path / "usage.sqlite3")}, "cache": False})
    for user in ("alice", "alice", "bob"):
        assert main(["--config", str(file), "search", "q " + user, "--backend", "priced", "--json"]) == 0
    capsys.readouterr()
    assert main(["--config", str(file), "usage", "--since", "1d", "--by", "provider"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1].split() == ["provider", "requests", "errors", "units", "usd"]
    assert table[2].split() == ["priced", "3", "0", "3", "request", "0.0120"]
    assert table[3].split() == ["total", "3", "0", "3", "request", "0.0120"]
    assert main(["--config", str(file), "usage", "--json", "--by", "capability"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["by"] == "capability" and summary["rows"][0]["key"] == "search"
    assert summary["total"]["usd"] == 0.012
    assert main(["--config", str(file), "usage", "--since", "soon"]) == 2
    assert "since 'soon' is not understood" in capsys.readouterr().err


def test_the_usage_command_reads_a_closed_range_with_until(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What two past days cost, without today's spending: ``--since`` alone always ran to now."""
    file = _config_file(tmp_path, {"usage": {"path": str(tmp_path / "usage.sqlite3")}})
    _recorded(config_from_dict(json.loads(file.read_text())), (2 * 86400, 0.01), (86400, 0.03), (0, 0.02))
    today = datetime.datetime.now(datetime.timezone.utc).date()
    since = (today - datetime.timedelta(days=2)).isoformat()
    assert main(["--config", str(file), "usage", "--since", since, "--until", today.isoformat(), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["until"] == f"{today.isoformat()}T00:00:00+00:00"
    assert (summary["total"]["requests"], summary["total"]["usd"]) == (2, 0.04)
    assert main(["--config", str(file), "usage", "--since", today.isoformat(), "--until", since]) == 2
    assert "is before since" in capsys.readouterr().err
    assert main(["--config", str(file), "usage", "--until", "someday"]) == 2
    assert "until 'someday' is not understood" in capsys.readouterr().err


def test_a_range_that_ends_where_it_starts_is_refused_not_a_day_without_spending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--since 2026-11-27 --until 2026-11-27`` (the bill of one day, as a person writes it)
    printed zero requests and $0 with exit 0: until is not included, so the range held nothing."""
    file = _config_file(tmp_path, {"usage": {"path": str(tmp_path / "usage.sqlite3")}})
    _recorded(config_from_dict(json.loads(file.read_text())), (0, 0.02))
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    assert main(["--config", str(file), "usage", "--since", today, "--until", today]) == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert f"until ({today}T00:00:00+00:00) is the same moment as since" in said.err
    assert "one day runs from that date to the next" in said.err


def test_a_ledger_that_stays_broken_is_said_by_calls_after_its_skip_window(tmp_path: Path) -> None:
    """The ledger is written off the call path, so only its writer meets a broken file. Before,
    calls made once the skip window was over (an agent searching every ten seconds) said
    nothing, though every one of their rows was lost too."""
    blocker = tmp_path / "data"
    blocker.write_text("")  # a file where the ledger's directory should be
    config = cost_config(usage={"path": str(blocker / "usage.sqlite3")})
    ledger = state_for(get_registry(config)).accounts.ledger
    assert ledger is not None
    now = [1000.0]
    ledger.guard.clock = lambda: now[0]

    def warned(query: str) -> list[str]:
        envelope = dispatch_search(query, backend="free", config=config)
        assert envelope["success"], envelope
        spool.flush()
        return [w for w in envelope["meta"].get("warnings", []) if w.startswith("The usage ledger (sqlite)")]

    assert warned("first") == []  # its row is written after it returned
    now[0] += SKIP_AFTER_FAILURE + 1  # the ledger is no longer skipped: the next write tries it
    lost = warned("later")
    assert len(lost) == 1 and lost[0].startswith("The usage ledger (sqlite) has not been written since it failed")
    assert lost[0].endswith("this call's usage may not be recorded."), lost
    blocker.unlink()  # mended: the next write succeeds, and calls say nothing again
    now[0] += SKIP_AFTER_FAILURE + 1
    assert len(warned("mended")) == 1  # its own row is the one that finds the ledger mended
    assert warned("after") == []
    assert [row["provider"] for row in _rows(blocker / "usage.sqlite3")] == ["free", "free"]


def _another_programs_database(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE history (url TEXT, visits INTEGER)")
    db.execute("INSERT INTO history VALUES ('https://example.com/', 3)")
    db.commit()
    db.close()


def _tables(path: Path) -> tuple[list[str], str]:
    db = sqlite3.connect(path)
    try:
        names = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return names, db.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        db.close()


def test_a_ledger_path_set_to_another_program_s_database_leaves_it_unaltered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its usage tables were added to that database (switched to WAL mode), unsaid."""
    path = tmp_path / "places.sqlite"
    _another_programs_database(path)
    config = cost_config(usage={"path": str(path)})
    first = dispatch_search("a", backend="priced", config=config)
    spool.flush()
    again = dispatch_search("b", backend="priced", config=config)
    assert first["success"] is True and again["success"] is True
    assert any(
        "holding tables of another program (history); it is left as it is: point web.usage.path at another file" in w
        for w in again["meta"]["warnings"]
    ), again["meta"]
    assert _tables(path) == (["history"], "delete")

    file = _config_file(tmp_path, {"usage": {"path": str(path)}})
    assert main(["--config", str(file), "usage"]) == 1
    assert "point web.usage.path at another file" in capsys.readouterr().err
    assert _tables(path) == (["history"], "delete")


def test_a_ledger_path_naming_a_folder_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SQLite said only 'unable to open database file' (here and in every priced call's
    refusal, with a budget set)."""
    config = cost_config(usage={"path": str(tmp_path)}, budget={"daily_usd": 1})
    refused = dispatch_search("a", backend="priced", config=config)
    assert refused["error_code"] == "budget_store_unavailable"
    assert f"(IsADirectoryError: {tmp_path} is a folder; web.usage.path names the file itself" in refused["error"]
    file = _config_file(tmp_path, {"usage": {"path": str(tmp_path)}})
    assert main(["--config", str(file), "usage"]) == 1
    assert "is a folder; web.usage.path names the file itself" in capsys.readouterr().err


def test_a_ledger_path_under_a_file_says_so(tmp_path: Path) -> None:
    """A file standing where a folder of the path should be: the warning said only
    "[Errno 17] File exists", naming the file in the way, not the ledger nor the setting."""
    (tmp_path / "notes").write_text("x")
    path = tmp_path / "notes" / "usage.sqlite3"
    config = cost_config(usage={"path": str(path)})
    assert dispatch_search("a", backend="priced", config=config)["success"] is True
    spool.flush()
    again = dispatch_search("b", backend="priced", config=config)
    assert again["success"] is True
    assert any(
        f"{path} cannot be made: a file stands where one of its folders should be; point web.usage.path at a file" in w
        for w in again["meta"]["warnings"]
    ), again["meta"]


def _in_a_mount_namespace(setup: str, probe: str, command: str, missing: str, timeout: float = 60) -> str:
    """What ``command`` printed, run in a user and mount namespace of its own after ``setup``
    (a read-only or tiny mount over a test folder: the host's files are untouched); the test
    is skipped, saying ``missing``, where ``probe`` fails after ``setup``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    checked = subprocess.run(["unshare", "-rm", "sh", "-c", f"{setup} && {probe}"], capture_output=True, env=env)
    if checked.returncode != 0:
        pytest.skip(f"{missing} here: {checked.stderr.decode(errors='replace').strip()}")
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", f"{setup} && exec {command}"], capture_output=True, text=True, env=env, timeout=timeout
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _read_only_at(folder: Path, command: str) -> str:
    """What ``command`` printed with ``folder`` mounted read-only (see :func:`_in_a_mount_namespace`)."""
    setup = f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder}"
    return _in_a_mount_namespace(setup, f"! touch {folder}/x", command, "no read-only mount")


def test_a_ledger_in_a_folder_it_may_not_write_names_the_file_and_what_to_do(tmp_path: Path) -> None:
    """A ledger whose folder is read-only (a read-only container image, another user's
    folder): every warning said only "unable to open database file", and a budget read it as
    nothing spent. A mount namespace of its own makes the folder read-only; the host's files
    are untouched."""
    folder = tmp_path / "ledger"
    folder.mkdir()
    path = folder / "usage.sqlite3"
    script = tmp_path / "call.py"
    script.write_text(
        "import json, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent.parent)!r})\n"
        "from cost.conftest import cost_config\n"
        "from webproviders import dispatch_search\n"
        "from webproviders.accounting.usage.spool import spool\n"
        f"capped = cost_config(usage={{'path': {str(path)!r}}}, budget={{'daily_usd': 1}})\n"
        "print(json.dumps(dispatch_search('a', backend='priced', config=capped)))\n"
        f"config = cost_config(usage={{'path': {str(path)!r}}})\n"
        "dispatch_search('b', backend='priced', config=config)\n"
        "spool.flush()\n"
        "print(json.dumps(dispatch_search('c', backend='priced', config=config)))\n"
    )
    stdout = _read_only_at(folder, f"{sys.executable} {script}")
    refused, envelope = (json.loads(line) for line in stdout.splitlines()[-2:])
    said = (
        f"unable to open database file {path}: this process may not create or write it there (a read-only folder "
        f"or file system); let it write to {folder}, or point web.usage.path at a file it may write"
    )
    # A budget cannot start from a ledger that cannot be made: not a fresh cap in every process.
    assert refused["error_code"] == "budget_store_unavailable" and said in refused["error"], refused
    assert envelope["success"] is True
    assert any(said in w for w in envelope["meta"]["warnings"]), envelope["meta"]


def test_a_ledger_on_a_full_disk_names_the_file_and_what_to_do(tmp_path: Path) -> None:
    """A ledger whose disk filled up: every warning said only "database or disk is full".
    A mount namespace of its own puts a 40 KiB file system on the folder; the host's disk is
    untouched."""
    folder = tmp_path / "ledger"
    folder.mkdir()
    path = folder / "usage.sqlite3"
    script = tmp_path / "call.py"
    script.write_text(
        "import json, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent.parent)!r})\n"
        "from cost.conftest import cost_config\n"
        "from webproviders import dispatch_search\n"
        "from webproviders.accounting.usage.spool import spool\n"
        f"config = cost_config(usage={{'path': {str(path)!r}, 'record_queries': True}})\n"
        "for n in range(2000):\n"
        "    envelope = dispatch_search('heat pumps ' * 30 + str(n), backend='priced', config=config)\n"
        "    spool.flush()\n"
        "    if envelope['meta'].get('warnings'):\n"
        "        break\n"
        "print(json.dumps(envelope))\n"
    )
    setup = f"mount -t tmpfs -o size=40k tmpfs {folder}"
    stdout = _in_a_mount_namespace(setup, "true", f"{sys.executable} {script}", "no small file system", timeout=120)
    envelope = json.loads(stdout.splitlines()[-1])
    assert envelope["success"] is True
    said = (
        f"database or disk is full: the disk holding {path} is full; free space there, or point "
        "web.usage.path at a file on another disk"
    )
    assert any(said in w for w in envelope["meta"]["warnings"]), envelope["meta"]


def test_a_ledger_on_a_read_only_mount_names_the_file_and_what_to_do(tmp_path: Path) -> None:
    """An existing ledger on a read-only mount: every warning said only "unable to open
    database file" (or "attempt to write a readonly database"). A mount namespace of its own makes the folder read-only; the host's
    files are untouched."""
    from webproviders.accounting.usage.sqlite_store import SQLiteUsage

    folder = tmp_path / "ledger"
    folder.mkdir()
    path = folder / "usage.sqlite3"
    store = SQLiteUsage(path, retention_days=400)
    store.append([UsageRecord(time.time(), "priced", "search", "ok", 1.0, "request", 0.004, False, 1.0)])
    store.close()
    sqlite3.connect(path).close()  # the last connection out folds the WAL in
    script = tmp_path / "call.py"
    script.write_text(
        "import json, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent.parent)!r})\n"
        "from cost.conftest import cost_config\n"
        "from webproviders import dispatch_search\n"
        "from webproviders.accounting.usage.spool import spool\n"
        f"config = cost_config(usage={{'path': {str(path)!r}}})\n"
        "dispatch_search('a', backend='priced', config=config)\n"
        "spool.flush()\n"
        "print(json.dumps(dispatch_search('b', backend='priced', config=config)))\n"
    )
    stdout = _read_only_at(folder, f"{sys.executable} {script}")
    envelope = json.loads(stdout.splitlines()[-1])
    assert envelope["success"] is True
    said = (  # after "unable to open database file": WAL's index file could not be made beside it
        f"database file: {path} may not be written (a read-only file, folder or file system); let this process "
        "write it, or point web.usage.path at a file it may write"
    )
    assert any(said in w for w in envelope["meta"]["warnings"]), envelope["meta"]


def test_a_ledger_file_that_is_no_database_is_named_with_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A damaged ledger (or a path set to some other file): the warnings, the budget's
    refusal and the report said only "file is not a database", naming no file."""
    path = tmp_path / "usage.sqlite3"
    path.write_bytes(b"not a ledger " * 500)
    said = (
        f"file is not a database: {path} is not a SQLite database, or is damaged; move it aside (a new ledger "
        "is made in its place) or point web.usage.path at another file"
    )
    refused = dispatch_search("a", backend="priced", config=cost_config(usage={"path": str(path)}, budget={"daily_usd": 1}))
    assert refused["error_code"] == "budget_store_unavailable" and said in refused["error"]
    config = cost_config(usage={"path": str(path)})
    assert dispatch_search("b", backend="priced", config=config)["success"] is True
    spool.flush()
    again = dispatch_search("c", backend="priced", config=config)
    assert any(said in w for w in again["meta"]["warnings"]), again["meta"]
    file = _config_file(tmp_path, {"usage": {"path": str(path)}})
    assert main(["--config", str(file), "usage"]) == 1
    assert said in capsys.readouterr().err
    assert path.read_bytes() == b"not a ledger " * 500


def test_a_ledger_deleted_while_in_use_is_started_again(tmp_path: Path) -> None:
    """Deleting the ledger to start usage afresh while a process wrote to it: its kept
    connections went on writing to the deleted file, where no report could read the rows."""
    path = tmp_path / "usage.sqlite3"
    config = cost_config(usage={"path": str(path)})
    assert dispatch_search("before", backend="priced", config=config)["success"]
    spool.flush()
    for file in tmp_path.iterdir():
        file.unlink()
    envelope = dispatch_search("after", backend="priced", config=config)
    assert envelope["success"] and "warnings" not in envelope["meta"], envelope
    assert [row["provider"] for row in _rows(path)] == ["priced"]
    assert webproviders.usage_summary("1d", config=config)["total"]["usd"] == 0.004


def test_a_ledger_in_a_read_only_place_can_be_reported(tmp_path: Path) -> None:
    """A ledger on a read-only mount (a copy for the accounts, another user's folder): WAL
    mode needs an index file beside it, which the report could not make, and the command
    said the ledger could not be read, though it could. A mount namespace of its own makes
    the folder read-only; the host's files are untouched."""
    from webproviders.accounting.usage.sqlite_store import SQLiteUsage

    folder = tmp_path / "ledger"
    folder.mkdir()
    store = SQLiteUsage(folder / "usage.sqlite3", retention_days=400)
    store.append([UsageRecord(time.time(), "priced", "search", "ok", 1.0, "request", 0.004, False, 1.0)] * 2)
    store.close()
    sqlite3.connect(folder / "usage.sqlite3").close()  # the last connection out folds the WAL in
    assert sorted(p.name for p in folder.iterdir()) == ["usage.sqlite3"]
    file = _config_file(tmp_path, {"usage": {"path": str(folder / "usage.sqlite3")}})
    stdout = _read_only_at(folder, f"{sys.executable} -m webproviders.cli --config {file} usage --json")
    total = json.loads(stdout)["total"]
    assert (total["requests"], total["usd"]) == (2, 0.008)


def test_a_ledger_that_cannot_be_read_is_named_without_its_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as sock:  # a loopback port nothing listens on: the server is down
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"redis://:hunter2@127.0.0.1:{port}/0"
    with pytest.raises(NetworkError) as raised:
        webproviders.usage_summary("1d", config=cost_config(usage={"url": url, "timeout": 1}))
    assert raised.value.message.startswith(f"The usage ledger at redis://127.0.0.1:{port}/0 could not be read (")
    assert "web.usage.url" in raised.value.message and "hunter2" not in raised.value.message

    file = _config_file(tmp_path, {"usage": {"url": url, "timeout": 1}})
    assert main(["--config", str(file), "usage", "--json"]) == 6  # network, as for a call
    out = capsys.readouterr().out
    failure = json.loads(out)  # still JSON on stdout
    assert failure["success"] is False and failure["error_code"] == "network_error"
    assert "hunter2" not in out


def test_a_redis_ledger_is_closed_when_more_ledgers_than_are_kept_open_come_by(
    redis_server: str, namespace: str, tmp_path: Path
) -> None:
    """A process keeps 8 ledgers open and closes the least recently used (one config per
    tenant, each with its ledger). A Redis ledger had no ``close``: opening the ninth failed,
    and its priced call was refused with ``budget_store_unavailable``."""
    ledgers = [{"url": redis_server, "namespace": namespace}]
    ledgers += [{"path": str(tmp_path / f"usage{i}.sqlite3")} for i in range(8)]
    for usage in ledgers:
        config = cost_config(usage=usage, budget={"daily_usd": 1})
        envelope = dispatch_search("q", backend="priced", config=config)
        assert envelope["success"] is True, envelope
    spool.flush()
    assert [row.provider for row in Ledger(cost_config(usage=ledgers[0]).web.usage).rows(0)] == ["priced"]


def test_a_fleet_ledger_in_redis(redis_server: str, namespace: str) -> None:
    config = cost_config(usage={"url": redis_server, "namespace": namespace})
    dispatch_search("a", backend="priced", config=config, tags={"user": "carol"})
    dispatch_search("b", backend="pricey", config=config, tags={"user": "carol"})
    summary = webproviders.usage_summary("1h", by="tag:user", config=config)
    assert summary["rows"] == [
        {"key": "carol", "requests": 2, "errors": 0, "units": {"request": 2}, "usd": 0.054, "estimated": True}
    ]
    assert summary["ledger"] == redis_server



def test_entries_of_a_fleet_ledger_holding_no_row_are_left_out_of_a_report_saying_so(
    redis_server: str, namespace: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Another program's entry in the stream (or another version's): one such entry failed
    every report as network_error, '... could not be read (KeyError: 't'); check that the
    server is running there', the server running fine."""
    import redis

    client = redis.Redis.from_url(redis_server)
    config = cost_config(usage={"url": redis_server, "namespace": namespace})
    dispatch_search("a", backend="priced", config=config)
    spool.flush()
    now = repr(time.time())
    row = {"p": "priced", "c": "search", "o": "ok", "n": "1", "u": "request", "e": "0", "l": "1", "t": now, "s": "1"}
    for fields in ({"event": "login"}, {**row, "usd": "a lot"}, {**row, "usd": "nan"}, {**row, "usd": "1", "g": "{"}):
        client.xadd(f"{namespace}:usage", fields)
    client.close()

    summary = webproviders.usage_summary("1h", config=config)
    assert (summary["total"]["requests"], summary["total"]["usd"]) == (1, 0.004)
    assert summary["warnings"] == [
        "4 entries of the ledger held no usage row this version can read (another program's, or another "
        "version's): they are left out of these totals."
    ]
    file = _config_file(tmp_path, {"usage": {"url": redis_server, "namespace": namespace}})
    assert main(["--config", str(file), "usage", "--since", "1h"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[2].split() == ["priced", "1", "0", "1", "request", "0.0040"]
    assert "warning: 4 entries of the ledger held no usage row" in out


def test_a_row_of_a_sqlite_ledger_holding_no_usage_is_left_out_of_a_report_saying_so(tmp_path: Path) -> None:
    """A row another program wrote into the file (text where a number belongs) failed every
    report: 'could not be read (TypeError: unsupported operand type(s) for +=: 'float' and 'str')'."""
    path = tmp_path / "usage.sqlite3"
    config = cost_config(usage={"path": str(path)})
    dispatch_search("a", backend="priced", config=config)
    spool.flush()
    db = sqlite3.connect(path)
    db.execute(
        "INSERT INTO usage (time, provider, capability, outcome, units, unit, usd, estimated, latency_ms) "
        "VALUES (?, 'priced', 'search', 'ok', 1, 'request', 'a lot', 0, 1)", (time.time(),)
    )
    db.commit()
    db.close()
    summary = webproviders.usage_summary("1h", config=config)
    assert (summary["total"]["requests"], summary["total"]["usd"]) == (1, 0.004)
    assert summary["warnings"][0].startswith("1 entry of the ledger held no usage row this version can read")


def test_a_fleet_ledger_range_holds_a_long_call_written_after_it_ends(redis_server: str, namespace: str) -> None:
    """A row carries the time its request started and reaches the stream when the call ends,
    up to an hour later: a range that ended between the two left it out."""
    config = cost_config(usage={"url": redis_server, "namespace": namespace})
    _recorded(config, (1000, 0.02))  # a crawl that ran 1,000 s, written now
    summary = webproviders.usage_summary("2000s", until="500s", config=config)
    assert (summary["total"]["requests"], summary["total"]["usd"]) == (1, 0.02)


def test_a_fleet_ledger_is_trimmed_by_the_servers_clock(redis_server: str, namespace: str) -> None:
    """A worker whose clock ran 500 days ahead trimmed the stream at its now minus the
    retention: every other worker's rows (and its own, whose ids are the server's) were gone."""
    import redis

    client = redis.Redis.from_url(redis_server)
    old = {"p": "priced", "c": "search", "o": "ok", "n": "1", "u": "request", "usd": "0.004", "e": "0", "l": "1",
           "t": "1000.0", "s": "1"}
    for n in range(1, 301):  # older than the retention by the server's clock: trimmed
        client.xadd(f"{namespace}:usage", old, id=f"{n}-0")
    config = cost_config(usage={"url": redis_server, "namespace": namespace})
    dispatch_search("a", backend="priced", config=config)
    spool.flush()
    ahead = time.time() + 500 * 86400
    Ledger(config.web.usage).write([UsageRecord(ahead, "priced", "search", "ok", 1, "request", 0.004, False, 1.0)])
    assert client.xlen(f"{namespace}:usage") < 100  # most old ones gone (trimmed a node at a time)
    assert [row.time > time.time() for row in Ledger(config.web.usage).rows(time.time() - 3600)] == [False, True]
