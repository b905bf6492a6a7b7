"""The ``webproviders`` command: search, extract, crawl, index pages, list providers, show config and usage.

Human-readable output on a terminal, the raw envelope with ``--json``; a failure prints one
clear line (a traceback only with ``--debug``) and exits with the code of its class
(:data:`EXIT_CODES`). Results go to stdout; warnings and the URLs that failed, one line each,
go to stderr. A closed pipe (``webproviders search ... | head -0``) ends the command quietly
with 141, as a shell reports a command a closed pipe ended, and an answer that cannot be
written (stdout closed, a full disk) with 1 and a line saying so. ``--debug`` shows this
library's decisions (the backend plan, each attempt, the cache, the URL screen) and its
debug log, and keeps other libraries at warnings.
"""

from __future__ import annotations

import argparse
import codecs
import errno
import functools
import gc
import io
import json
import logging
import os
import re
import stat
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NoReturn, TextIO

from ._version import __version__
from .printsaside import prints_aside

EXIT_OK = 0
#: Anything not below: the provider failed, answered something unreadable, was blocked, ...
EXIT_FAILURE = 1
#: A bad command line or invalid input: a malformed query or URL, an unsafe URL, an option
#: the backend cannot honour.
EXIT_USAGE = 2
#: The configuration: a bad config file, a configured backend no provider has, one that is not set up.
EXIT_CONFIG = 3
#: The vendor refused the credentials.
EXIT_AUTH = 4
#: Rate limited, out of quota, or over a spending budget.
EXIT_LIMIT = 5
#: The network or the vendor's side: unreachable, timed out, HTTP 5xx.
EXIT_NETWORK = 6
#: The page asked for is not there.
EXIT_NOT_FOUND = 7
#: Extract read some of the URLs given, but not all (the pages read are printed). A crawl
#: that met a broken link on the way still succeeds.
EXIT_PARTIAL = 8
#: Interrupted (Ctrl-C): what a shell reports for a command ended by SIGINT.
EXIT_INTERRUPTED = 130
#: Asked to stop (SIGTERM: ``timeout 10 webproviders ...``, a service manager): 128 + 15.
EXIT_TERMINATED = 143
#: The reader of stdout went away before the answer was written (``| head -0``): what a shell
#: reports for a command ended by SIGPIPE (128 + 13), as tools that do not catch it end.
EXIT_CLOSED_PIPE = 141
#: Exit code of each error code; any other is :data:`EXIT_FAILURE`.
EXIT_CODES = {
    "invalid_input": EXIT_USAGE,
    "unsafe_url": EXIT_USAGE,
    "unsupported": EXIT_USAGE,
    "not_configured": EXIT_CONFIG,
    "auth_error": EXIT_AUTH,
    "rate_limited": EXIT_LIMIT,
    "quota_exceeded": EXIT_LIMIT,
    "budget_exceeded": EXIT_LIMIT,
    "network_error": EXIT_NETWORK,
    "timeout": EXIT_NETWORK,
    "bad_gateway": EXIT_NETWORK,
    "not_found": EXIT_NOT_FOUND,
}
_EXIT_HELP = """exit codes:
  0  success                      5  rate limited, out of quota or over budget
  1  any other failure            6  network, timeout or the vendor's side (5xx)
  2  bad usage or invalid input   7  not found
  3  configuration                8  extract read only some of the URLs
  4  credentials refused          130  interrupted (Ctrl-C)
                                  141  stdout's reader went away
                                  143  terminated (SIGTERM)"""


class _Help(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Help with each option's default, where it has one worth showing."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "default" in text:
            return text
        return super()._get_help_string(action) or text


class _UsageError(Exception):
    """argparse refused the command line; ``main`` says so as argparse does, or as JSON with ``--json``."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(f"{prog}: {message}")
        self.prog, self.message = prog, message


#: The options of the command itself, which go before the subcommand.
_OWN_OPTIONS = ("--config", "--allow-private", "--debug")
_UNRECOGNIZED = "unrecognized arguments: "


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise _UsageError(self.prog, message)

    def _print_message(self, message: str, file: Any = None) -> None:
        """As argparse writes, but ``--help`` or ``--version`` that stdout cannot take (a
        closed pipe, a full disk) raises, for :func:`_answered` to say so: argparse drops the
        error, and the command exited 0 having written nothing."""
        if message and (file or sys.stderr) is sys.stdout:
            sys.stdout.write(message)
        else:
            super()._print_message(message, file)


def _misplaced(message: str, given: list[str]) -> str:
    """What to write instead when an option of the command itself came after the subcommand
    (``webproviders search --config c.yaml q``), which argparse calls only unrecognized."""
    if not message.startswith(_UNRECOGNIZED):
        return ""
    unrecognized = {word.split("=", 1)[0] for word in message[len(_UNRECOGNIZED):].split()}
    misplaced = [option for option in _OWN_OPTIONS if option in unrecognized]
    if not misplaced:
        return ""
    command = next((word for word in given if word in _COMMANDS), "COMMAND")
    written = " ".join(f"{option} PATH" if option == "--config" else option for option in misplaced)
    verb = "goes" if len(misplaced) == 1 else "go"
    return f"; {', '.join(misplaced)} {verb} before the command: webproviders {written} {command} ..."


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="webproviders",
        description="Search the web, extract pages and crawl sites through any backend.",
        epilog=_EXIT_HELP,
        formatter_class=_Help,
    )
    parser.add_argument(
        "--config",
        help="path to config.yaml (default: $WEBPROVIDERS_CONFIG or $XDG_CONFIG_HOME/webproviders/config.yaml, ~/.config by default)",
    )
    parser.add_argument(
        "--allow-private",
        action="store_true",
        dest="allow_private",
        help="let URLs given at run time reach private and loopback addresses "
        "(web.allow_private_networks; also $WEB_ALLOW_PRIVATE_NETWORKS=1)",
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="show the backend plan, attempts, cache and URL screen of each call, this "
        "library's debug log, and tracebacks",
    )
    parser.add_argument("--version", action="version", version=f"webproviders {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, text: str, **kwargs: Any) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text, description=kwargs.pop("description", text),
                              formatter_class=_Help, epilog=_EXIT_HELP, **kwargs)

    def backend(cmd: argparse.ArgumentParser, capability: str) -> None:
        cmd.add_argument(
            "--backend",
            help=f"provider name, or a comma-separated fallback chain "
            f"(default: web.{capability}_backend, web.backend, else auto-detected)",
        )

    def as_json(cmd: argparse.ArgumentParser, what: str = "the raw envelope") -> None:
        cmd.add_argument("--json", action="store_true", help=f"print {what} as JSON")

    search = command("search", "search the web")
    search.add_argument("query", nargs="+", help="what to search for: quoted, or as words, which are joined with spaces")
    search.add_argument("--limit", type=int, default=5, help="how many results (1-50)")
    backend(search, "search")
    as_json(search)

    extract = command("extract", "read pages as markdown")
    extract.add_argument("urls", nargs="+", metavar="URL", help="http(s) URLs of the pages to read (at most 20)")
    backend(extract, "extract")
    extract.add_argument(
        "--max-chars", type=int, dest="max_chars",
        help="longest text kept of each page (default: the backend's own limit)",
    )
    as_json(extract)

    crawl = command("crawl", "crawl a site from a seed URL")
    crawl.add_argument("url", help="the http(s) URL to start from")
    backend(crawl, "crawl")
    crawl.add_argument("--max-pages", type=int, dest="max_pages", help="stop after this many pages (default: the backend's)")
    crawl.add_argument("--max-depth", type=int, dest="max_depth", help="how many links deep to follow (default: the backend's)")
    crawl.add_argument(
        "--timeout", type=float,
        help="seconds the whole crawl may take; the pages read by then are printed (default: web.timeout)",
    )
    as_json(crawl)

    index = command(
        "index",
        "add pages to the local index, or show, trim and prune it",
        description="Read URLs (or crawl from them) and add the pages to the local index that "
        "the 'local' backend searches. --stats, --remove and --prune look after the index.",
    )
    index.add_argument("urls", nargs="*", metavar="URL", help="pages to read and add")
    index.add_argument("--crawl", action="store_true", help="crawl from each URL instead of reading it alone")
    index.add_argument("--max-pages", type=int, dest="max_pages", help="pages per crawl, with --crawl (default: the backend's)")
    index.add_argument("--backend", help="extract / crawl backend to read with (default: the configured one)")
    index.add_argument("--stats", action="store_true", help="show what the index holds")
    index.add_argument("--remove", nargs="+", metavar="URL", help="remove these pages from the index")
    index.add_argument("--prune", action="store_true", help="remove pages fetched before --older-than")
    index.add_argument("--older-than", dest="older_than", metavar="AGE", help="with --prune: 30d, 12h, 90m, 2w")
    as_json(index, "the result")

    providers = command("providers", "list providers and whether they can run")
    as_json(providers, "every provider's details")

    config = command("config", "show the backend chosen for each capability, and why")
    as_json(config, "the same")

    usage = command("usage", "show what calls cost, from the usage ledger")
    usage.add_argument("--since", default="7d", help="how far back: 7d, 24h, 30m, 2w or a date")
    usage.add_argument(
        "--until", default=None, help="up to when, not included: a date or a span back as for --since (default: now)"
    )
    usage.add_argument("--by", default="provider", help="group by provider, capability, outcome, day or tag:<name>")
    as_json(usage, "the totals")

    mcp = command(
        "mcp", "serve web_search, web_extract, web_crawl and web_providers over MCP (stdio by default)"
    )
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    mcp.add_argument("--host", help="address to bind with --http (default: 127.0.0.1)")
    mcp.add_argument("--port", type=int, help="port to bind with --http (default: 8000)")
    mcp.add_argument(
        "--allow-remote", action="store_true", dest="allow_remote",
        help="allow binding an address other than loopback",
    )
    mcp.add_argument(
        "--max-chars", type=int, dest="max_chars",
        help="longest text rendering of one result (default: 20000)",
    )
    return parser


def _print_search(envelope: dict[str, Any], out: TextIO) -> None:
    hits = envelope["data"]["web"]
    if not hits:
        out.write("No results.\n")
    for hit in hits:
        out.write(f"{hit['position']}. {_one_line(hit['title'])}\n   {_one_line(hit['url'])}\n")
        if hit.get("description"):
            out.write(f"   {_one_line(hit['description'])}\n")


#: A line break, as a terminal moves to the next line for it (a lone CR is shown as ``\x0d``).
_LINE_BREAK = re.compile(r"\r?\n")


def _one_line(text: Any) -> str:
    """A result's field on the one line it is shown on: a page (or a vendor) writes its title
    and snippet, and a line break in them printed lines that read as results of their own
    (``Real\n2. Fake\n   https://evil.example/``)."""
    return _LINE_BREAK.sub(" ", str(text))


def _print_pages(envelope: dict[str, Any], out: TextIO) -> None:
    for page in envelope["data"]:
        if not page.get("error"):
            out.write(f"## {page.get('title') or page['url']}\n{page['url']}\n\n{page.get('content', '')}\n\n")
    _print_failed(page for page in envelope["data"] if page.get("error"))


def _print_failed(items: Any) -> None:
    """One stderr line per URL (or page) that could not be read."""
    for item in items:
        sys.stderr.write(_shown(f"failed [{item.get('error_code')}] {item.get('url')}: {item.get('error')}\n"))


#: Terminal control characters but the line feed and the tab: C0, DEL and C1.
_CONTROLS = re.compile(r"\r(?!\n)|[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]")


#: What JSON leaves unescaped of them: DEL and C1 (inside strings only, so escaping them keeps it exact).
_C1 = re.compile(r"[\x7f-\x9f]")


def _shown(text: str) -> str:
    """``text`` as it may reach a terminal: a result's title, a page or a vendor's error is
    written by whoever controls the page, and an escape sequence in it could retitle the
    window, set the clipboard or hide what precedes it (a bare carriage return too). Each
    control character is shown as its escape (``\\x1b``) instead; ``--json`` output escapes
    them as JSON does (``\\u001b``)."""
    return _CONTROLS.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


def _fail(code: str, message: str, as_json: bool) -> None:
    """A failure that has no envelope: with ``--json`` still one JSON object on stdout, shaped
    as a failure envelope's head, so a program reading stdout always gets JSON."""
    if as_json:
        sys.stdout.write(json.dumps({"success": False, "error": message, "error_code": code}, indent=2) + "\n")
    else:
        sys.stderr.write(_shown(f"error [{code}]: {message}\n"))


def _fail_plainly(code: str, message: str, args: argparse.Namespace) -> None:
    """:func:`_fail` for a failure before any call: stderr shows each line as ``error: ...``."""
    if getattr(args, "json", False):
        _fail(code, message, True)
    else:
        sys.stderr.writelines(_shown(f"error: {line}\n") for line in message.splitlines())


def _print_warnings(envelope: dict[str, Any]) -> None:
    for warning in envelope.get("meta", {}).get("warnings", []):
        sys.stderr.write(_shown(f"warning: {warning}\n"))


def _emit(
    envelope: dict[str, Any],
    as_json: bool,
    render: Callable[[dict[str, Any], TextIO], None],
    *,
    partial: bool = False,
) -> int:
    if as_json:
        # as UTF-8 where the terminal speaks it, else escaped as JSON escapes it (exact either way)
        text = json.dumps(envelope, ensure_ascii=not _speaks_utf8(sys.stdout), indent=2)
        sys.stdout.write(_C1.sub(lambda found: f"\\u{ord(found.group()):04x}", text) + "\n")
    elif envelope.get("success"):
        rendered = io.StringIO()
        render(envelope, rendered)
        sys.stdout.write(_shown(rendered.getvalue()))
    else:
        sys.stderr.write(_shown(f"error [{envelope.get('error_code')}]: {envelope.get('error')}\n"))
        failures = envelope.get("meta", {}).get("failures", [])
        if len(failures) > 1:
            _print_failed(failures)
    if not as_json:
        _print_warnings(envelope)
    return exit_code(envelope, partial=partial)


def exit_code(envelope: dict[str, Any], *, partial: bool = False) -> int:
    """The exit code an envelope means (:data:`EXIT_CODES`); with ``partial``, a success
    with failed items is :data:`EXIT_PARTIAL`."""
    if envelope.get("success"):
        return EXIT_PARTIAL if partial and (envelope.get("meta") or {}).get("failed") else EXIT_OK
    return EXIT_CODES.get(str(envelope.get("error_code")), EXIT_FAILURE)


def _options(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def _progress_printer() -> Callable[[dict[str, Any]], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(event: dict[str, Any]) -> None:
        done, total = event.get("pages", 0), event.get("max_pages") or "?"
        sys.stderr.write(f"\rcrawled {done}/{total} pages  {_shown(event.get('url', '')[:60]):<60}")
        sys.stderr.flush()

    return show


def _show_decisions(capability: str, args: argparse.Namespace, envelope: dict[str, Any], config: Any) -> None:
    """``--debug``: how a call was decided: the plan, the cache, each attempt, the URL screen."""
    from .dispatch.plan import resolve
    from .errors import WebProviderError
    from .registry.providers import get_registry

    say = sys.stderr.write
    try:
        plan = resolve(capability, args.backend, get_registry(config))  # type: ignore[arg-type]
        mode = "standby" if plan.standby else plan.mode
        say(f"debug: plan: {capability} by {_chosen(plan.candidates, mode)} (from {_set_by(plan.source)})\n")
        for left in plan.skipped:
            say(f"debug: plan: {left.name} left out [{left.code}]: {left.reason}\n")
    except WebProviderError as exc:
        say(f"debug: plan: no {capability} backend ({exc.message})\n")
    meta = envelope.get("meta") or {}
    say(f"debug: cache: {'answered from the cache' if meta.get('cached') else 'not from the cache'}\n")
    for attempt in meta.get("attempts", []):
        detail = [str(attempt.get("outcome"))]
        detail += [f"[{attempt['error_code']}]"] if attempt.get("error_code") else []
        detail += [f"{attempt['latency_ms']} ms"] if attempt.get("latency_ms") is not None else []
        detail += ["cached"] if attempt.get("cached") else []
        detail += [str(attempt["reason"])] if attempt.get("reason") else []
        say(f"debug: attempt: {attempt.get('provider')} {' '.join(detail)}\n")
    items = envelope.get("data") if isinstance(envelope.get("data"), list) else meta.get("failures", [])
    for item in items or []:
        if isinstance(item, dict) and item.get("error_code") in ("unsafe_url", "invalid_input"):
            say(f"debug: screen: refused {item.get('url')} [{item['error_code']}]: {item.get('error')}\n")
    say(f"debug: served by {meta.get('served_by')} in {meta.get('latency_ms')} ms\n")


def _cmd_search(args: argparse.Namespace, config: Any) -> int:
    from .dispatch.api import dispatch_search

    with prints_aside():
        envelope = dispatch_search(_as_typed(" ".join(args.query)), args.limit, backend=args.backend, config=config)
    if args.debug:
        _show_decisions("search", args, envelope, config)
    return _emit(envelope, args.json, _print_search)


def _cmd_extract(args: argparse.Namespace, config: Any) -> int:
    from .dispatch.api import dispatch_extract

    with prints_aside():
        envelope = dispatch_extract(
            [_as_typed(url) for url in args.urls], backend=args.backend, config=config, **_options(args, "max_chars")
        )
    if args.debug:
        _show_decisions("extract", args, envelope, config)
    return _emit(envelope, args.json, _print_pages, partial=True)


def _cmd_crawl(args: argparse.Namespace, config: Any) -> int:
    from .dispatch.api import dispatch_crawl

    options = _options(args, "max_pages", "max_depth")
    progress = None if args.json else _progress_printer()
    if progress is not None:
        options["progress"] = progress
    with prints_aside():
        envelope = dispatch_crawl(
            _as_typed(args.url), backend=args.backend, config=config, timeout=args.timeout, **options
        )
    if progress is not None:
        sys.stderr.write("\n")
    if args.debug:
        _show_decisions("crawl", args, envelope, config)
    return _emit(envelope, args.json, _print_pages)


def _index_usage_error(args: argparse.Namespace) -> str | None:
    modes = [bool(args.urls), args.stats, args.remove is not None, args.prune]
    if sum(modes) != 1:
        return "give URLs to index, or exactly one of --stats, --remove URL, --prune --older-than AGE."
    if args.prune != (args.older_than is not None):
        return "--prune needs --older-than AGE (such as 30d), and --older-than needs --prune."
    if (args.crawl or args.max_pages is not None or args.backend) and not args.urls:
        return "--crawl, --max-pages and --backend go with URLs to index."
    if args.max_pages is not None and not args.crawl:
        return "--max-pages needs --crawl."
    return None


def _print_index_stats(stats: dict[str, Any], out: TextIO) -> None:
    from datetime import datetime, timezone

    def when(value: Any) -> str:
        return datetime.fromtimestamp(value, timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if value else "-"

    out.write(f"index:   {stats['location']}\npages:   {stats['pages']}\n")
    out.write(f"size:    {stats['bytes'] / 1_000_000:.1f} MB\n")
    out.write(f"oldest:  {when(stats['oldest'])}\nnewest:  {when(stats['newest'])}\n")
    for provider, count in stats["providers"].items():
        out.write(f"  {provider:<14} {count}\n")


def _index_maintenance(args: argparse.Namespace, config: Any) -> int:
    """``--stats``, ``--remove`` and ``--prune``: straight to the store."""
    import time

    from .index.api import parse_age
    from .index.stores import open_store
    from .validate import check_url

    store = open_store(config)
    if args.stats:
        stats = store.stats()
        if args.json:
            sys.stdout.write(json.dumps(stats, indent=2) + "\n")
        else:
            _print_index_stats(stats, sys.stdout)
        return EXIT_OK
    if args.remove is not None:
        # A page is stored under an http(s) URL: "notaurl" matched none and read as done.
        removed = store.remove([check_url(_as_typed(url), "URL to remove") for url in args.remove])
        result = {"removed": removed, "index": store.location}
        line = f"removed {removed} page(s)" if removed is not None else "removal queued"
    else:
        before = time.time() - parse_age(args.older_than)
        removed = store.prune(before)
        result = {"removed": removed, "before": before, "index": store.location}
        line = f"pruned {removed} page(s)" if removed is not None else "pruning queued"
        line += f" fetched more than {args.older_than} ago"
    sys.stdout.write(json.dumps(result, indent=2) + "\n" if args.json else f"{line} from {store.location}\n")
    return EXIT_OK


def _cmd_index(args: argparse.Namespace, config: Any) -> int:
    from .errors import WebProviderError

    problem = _index_usage_error(args)
    if problem:
        _fail_plainly("invalid_input", problem, args)  # with --json, still one JSON object
        return EXIT_USAGE
    if not args.urls:
        try:
            return _index_maintenance(args, config)
        except WebProviderError as exc:
            _fail(exc.code, exc.message, args.json)
            return EXIT_CODES.get(exc.code, EXIT_FAILURE)
    from .index.api import index_urls

    with prints_aside():
        envelope = index_urls(
            [_as_typed(url) for url in args.urls], crawl=args.crawl, max_pages=args.max_pages, backend=args.backend,
            config=config,
        )
    code = _emit(envelope, args.json, _print_indexed)
    if code == EXIT_OK and envelope["data"]["failed"] and not envelope["data"]["indexed"]:
        return EXIT_FAILURE
    return code


def _print_indexed(envelope: dict[str, Any], out: TextIO) -> None:
    data = envelope["data"]
    out.write(f"indexed {len(data['indexed'])} page(s) into {data['index']}\n")
    _print_failed(data["failed"])  # on stderr, as extract's


def _cmd_providers(args: argparse.Namespace, config: Any) -> int:
    from .registry.providers import list_providers

    with prints_aside():
        rows = list_providers(config, load=True)  # every plugin's code, so that one that fails shows
    if args.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_OK
    for row in rows:
        state = "ready" if row["available"] else "unavailable"
        caps = ",".join(row["capabilities"]) or "-"
        line = f"{row['name']:<14} {state:<12} {caps:<21} {row['source']}"
        # One row per provider: a plugin's reason may span lines ("...\nSet it to one of: eu, us").
        if row["load_error"]:
            line += f"  load error: {' '.join(row['load_error'].split())}"
        elif not row["available"]:
            line += f"  ({' '.join(str(row['reason']).split())})"
        else:
            line += "".join(f"  ({capability}: {why})" for capability, why in row["unavailable_for"].items())
        sys.stdout.write(_shown(line) + "\n")
    return EXIT_OK


def _unknown_backends(registry: Any, capability: str | None = None) -> list[str]:
    """A sentence for each configured backend name no provider has, nor any plugin installed
    here (one off or failing is not unknown), naming where it is set;
    scrubbed, as the name may be anything (a key given where a backend name was meant). With
    ``capability``, only the keys a call of it reads: ``web.backend`` and its own."""
    from .config import ENV_OVERRIDES, backend_names, env_backend_names
    from .redact import scrub
    from .suggest import did_you_mean

    web = registry.config.web
    known = sorted(e.manifest.name for e in registry.entries())
    problems = []
    for var, key in ENV_OVERRIDES.items():
        if capability is not None and key not in ("backend", f"{capability}_backend"):
            continue
        spec = getattr(web, key)
        # a provider whose plugin is off, not enabled or failed to load is installed: the plan
        # says why it cannot run (and a chain goes on without it)
        names = backend_names(spec) if spec is not None else []
        unknown = [n for n in names if registry.get(registry.named(n)) is None and registry.why_unknown(n)[1]]
        if unknown:
            where = f"${var}" if env_backend_names(os.environ.get(var)) else f"web.{key}"
            hints = "".join(did_you_mean(str(name).lower(), known) for name in unknown)
            problems.append(
                scrub(
                    f"{where} names {', '.join(repr(n) for n in unknown)}, which no installed provider is "
                    f"(known: {', '.join(known)}).{hints}"
                )
            )
    return problems


def _set_by(source: str) -> str:
    """Where a plan's choice came from, as the user set it: the variable (``WEB_SEARCH_BACKEND``)
    when one overrides the key the plan names (``web.search_backend``), which the file may not
    hold at all, or hold another backend."""
    from .config import ENV_OVERRIDES, env_backend_names

    for var, key in ENV_OVERRIDES.items():
        if source == f"web.{key}" and env_backend_names(os.environ.get(var)):
            return var
    return source


def _budgets(config: Any) -> list[dict[str, Any]]:
    """Every spending cap set, with the key that sets it."""
    budget = config.web.budget
    scopes = [("web.budget", budget)]
    scopes += [(f"web.budget.per_provider.{name}", caps) for name, caps in budget.per_provider.items()]
    scopes += [(f"web.budget.per_tag.{name}", caps) for name, caps in budget.per_tag.items()]
    return [
        {"setting": f"{where}.{period}_usd", "usd": getattr(caps, f"{period}_usd")}
        for where, caps in scopes
        for period in ("daily", "monthly")
        if getattr(caps, f"{period}_usd") is not None
    ]


def _config_report(config: Any) -> tuple[dict[str, Any], list[str], list[str]]:
    """What ``webproviders config`` shows: the plan of each capability, the search contract's
    backend, the budgets; with the warnings and the errors found on the way."""
    from .agents.search_contract import BACKEND_ENV, contract_backend
    from .dispatch.plan import resolve
    from .errors import WebProviderError
    from .manifest import CAPABILITIES
    from .registry.providers import get_registry

    registry = get_registry(config)
    report: dict[str, Any] = {"config": registry.config.source, "capabilities": {}}
    for capability in CAPABILITIES:
        try:
            plan = resolve(capability, None, registry)
        except WebProviderError as exc:
            report["capabilities"][capability] = {"backends": [], "error": exc.message}
            continue
        mode = "standby" if plan.standby else plan.mode
        report["capabilities"][capability] = {"backends": plan.candidates, "mode": mode, "source": _set_by(plan.source)}
    report["never_auto_detected"] = [e.manifest.name for e in registry.entries() if not e.manifest.auto_detect]
    backend, warnings = contract_backend(registry.config, os.environ)
    names = backend if isinstance(backend, list) else [backend]
    from_env = bool(os.environ.get(BACKEND_ENV, "").strip())
    report["search_contract"] = {"backends": names, "from": BACKEND_ENV if from_env else None}
    report["budgets"] = _budgets(registry.config)
    if names == ["stub"]:
        warnings.append(
            f"the web.search contract answers with offline stub results; set {BACKEND_ENV} to a real backend."
        )
    errors = _unknown_backends(registry)
    if registry.config.web.budget.per_provider:
        from .accounting.budget import caps_without_provider

        errors += caps_without_provider(registry.config.web.budget, [e.manifest.name for e in registry.entries()])
    report["warnings"], report["errors"] = warnings, errors
    return report, warnings, errors


def _cmd_config(args: argparse.Namespace, config: Any) -> int:
    from .accounting.budget import dollars
    from .agents.search_contract import BACKEND_ENV

    with prints_aside():  # a plan may load a plugin's code
        report, warnings, errors = _config_report(config)
    from_env = report["search_contract"]["from"] is not None
    names = report["search_contract"]["backends"]
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        out = sys.stdout.write
        out(f"config: {report['config']}\n")
        for capability, row in report["capabilities"].items():
            if "error" in row:
                out(f"{capability:<8} none  ({row['error']})\n")
            else:
                out(f"{capability:<8} {_chosen(row['backends'], row['mode'])}  (from {row['source']})\n")
        if report["never_auto_detected"]:
            out(f"never auto-detected (used only when named): {', '.join(report['never_auto_detected'])}\n")
        origin = f"from {BACKEND_ENV}" if from_env else f"{BACKEND_ENV} unset"
        out(f"web.search contract: {_chosen(names, 'chain')}  ({origin})\n")
        for cap in report["budgets"]:
            out(f"budget: {dollars(cap['usd'])}  ({cap['setting']})\n")
        for warning in warnings:
            sys.stderr.write(f"warning: {warning}\n")
    for error in errors:
        sys.stderr.write(f"error: {error}\n")
    return EXIT_CONFIG if errors else EXIT_OK


def _chosen(names: list[str], mode: str) -> str:
    """``a -> b [chain]`` for a chain (``[standby]`` for a standby one), ``a, b [fuse]`` for
    fusion, ``a`` alone."""
    if len(names) == 1:
        return names[0]
    return (", " if mode == "fuse" else " -> ").join(names) + f" [{mode}]"


def _cmd_usage(args: argparse.Namespace, config: Any) -> int:
    from .accounting.usage.report import UsageQueryError, format_table, usage_summary
    from .errors import WebProviderError

    try:
        summary = usage_summary(args.since, args.by, until=args.until, config=config)
    except UsageQueryError as exc:
        _fail("invalid_input", str(exc), args.json)
        return EXIT_USAGE
    except WebProviderError as exc:
        _fail(exc.code, exc.message, args.json)
        return EXIT_CODES.get(exc.code, EXIT_FAILURE)
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        sys.stdout.write(_shown(format_table(summary)))  # a tag's value is the caller's text
    return EXIT_OK


def _cmd_mcp(args: argparse.Namespace, config: Any) -> int:
    from .agents.mcp_server import (
        build_server,
        http_tokens,
        is_loopback,
        mcp_missing_reason,
        serve_http,
        serve_stdio,
    )

    missing = mcp_missing_reason()
    if missing:
        sys.stderr.write(f"error: {missing}\n")
        return EXIT_FAILURE
    if not args.http and (args.host is not None or args.port is not None or args.allow_remote):
        sys.stderr.write("error: --host, --port and --allow-remote need --http.\n")
        return EXIT_USAGE
    if args.max_chars is not None and args.max_chars < 1:
        sys.stderr.write("error: --max-chars must be above 0.\n")
        return EXIT_USAGE
    if not args.http and (missing := _without_stdio()):
        sys.stderr.write(
            f"error: webproviders mcp serves over stdin and stdout, and this command was started without "
            f"its {missing}: start it from an MCP client, or serve HTTP with --http.\n"
        )
        return EXIT_USAGE
    server = build_server(config, **({"max_chars": args.max_chars} if args.max_chars else {}))
    if not args.http:
        _serve(lambda: serve_stdio(server))
        return EXIT_OK
    host = args.host or "127.0.0.1"
    port = 8000 if args.port is None else args.port
    if not 0 <= port <= 65535:
        sys.stderr.write(f"error: --port must be from 0 to 65535, not {port}.\n")
        return EXIT_USAGE
    if not is_loopback(host) and not args.allow_remote:
        sys.stderr.write(
            f"error: refusing to bind {host}, which is not a loopback address: anyone who can reach it "
            "could use this server and its API keys. Pass --allow-remote (and set a token) to do it anyway.\n"
        )
        return EXIT_USAGE
    tokens = http_tokens(config)
    if not is_loopback(host) and not tokens:
        sys.stderr.write(
            "warning: serving a non-loopback address without a bearer token; "
            "set WEBPROVIDERS_MCP_TOKEN, mcp.token or mcp.users in the config.\n"
        )
    user_keys = config.mcp.user_keys
    _serve(lambda: serve_http(server, host=host, port=port, tokens=tokens, user_keys=user_keys))
    return EXIT_OK


def _without_stdio() -> str | None:
    """Which of stdin and stdout the command was started without (Python makes a closed one
    None; stdout then writes nowhere): the stdio server failed with "[Errno 22] Invalid
    argument" where stdin was closed, and answered no one, exiting 0, where stdout was."""
    if sys.stdin is None:
        return "stdin"
    return "stdout" if isinstance(sys.stdout, _Nowhere) else None


def _serve(serving: Callable[[], Awaitable[None]]) -> None:
    """``anyio.run(serving)``, ended by Ctrl-C as every command is, on every Python: on 3.10
    anyio's runner cannot tell the cancellation it made of Ctrl-C from another (there is no
    ``Task.uncancel``) and raises the server task's ``CancelledError``, and the server ended
    with a traceback and exit status 1 instead of "interrupted" and 130."""
    import asyncio

    import anyio

    try:
        anyio.run(serving)
    except asyncio.CancelledError:
        if sys.version_info >= (3, 11):
            raise
        raise KeyboardInterrupt from None


_COMMANDS: dict[str, Callable[[argparse.Namespace, Any], int]] = {
    "search": _cmd_search,
    "extract": _cmd_extract,
    "crawl": _cmd_crawl,
    "index": _cmd_index,
    "providers": _cmd_providers,
    "config": _cmd_config,
    "usage": _cmd_usage,
    "mcp": _cmd_mcp,
}

#: Commands that answer once and hold a bounded amount (a search's hits, at most 20 pages
#: read in worker processes, a listing): the installed command runs them without the cyclic
#: collector (see :func:`run`). A crawl, the index and the MCP server may run long, and keep it.
BOUNDED_COMMANDS = frozenset({"search", "extract", "providers", "config", "usage"})


def _logging(debug: bool) -> None:
    """Warnings from everyone; with ``--debug``, this library's debug log too (only its).
    Python's warnings go through logging, whose filter masks the secrets a dependency's
    warning quotes (Exa's SDK repeats the vendor's notes on an answer as warnings)."""
    root = logging.getLogger()
    theirs = list(root.handlers)  # main() called by a program that logs: its handlers are its own
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.captureWarnings(True)
    if debug:
        logging.getLogger("webproviders").setLevel(logging.DEBUG)
        return
    for handler in root.handlers:
        if handler not in theirs:
            handler.addFilter(_said_by_the_envelope)


def _said_by_the_envelope(record: logging.LogRecord) -> bool:
    """A store's trouble met during a call is in that call's ``meta.warnings``, which the
    command prints; its log line (for services, which print no envelope) would say it twice.
    Met outside a call (the usage ledger written at exit), the log line is all there is."""
    if record.name != "webproviders.dependable":
        return True
    from .context import in_call

    return not in_call()


def _reads_backend_of(args: argparse.Namespace) -> str | None:
    """The capability whose configured backend the command's call reads, if any: none when
    ``--backend`` names it, nor for the index's upkeep (``--stats``, ``--remove``, ``--prune``)."""
    if args.command not in ("search", "extract", "crawl", "index") or args.backend:
        return None
    if args.command == "index":
        return ("crawl" if args.crawl else "extract") if args.urls else None
    return str(args.command)


def _with_private_networks(config: Any) -> Any:
    """``--allow-private``: the config with ``web.allow_private_networks`` on."""
    web = config.web.model_copy(update={"allow_private_networks": True})
    return config.model_copy(update={"web": web})


def _run(args: argparse.Namespace) -> int:
    from .config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        if args.debug:
            raise
        from .redact import scrub

        _fail_plainly("not_configured", scrub(str(exc)), args)
        return EXIT_CONFIG
    if args.allow_private:
        config = _with_private_networks(config)
    capability = _reads_backend_of(args)
    if capability is not None:
        from .registry.providers import get_registry

        with prints_aside():
            problems = _unknown_backends(get_registry(config), capability)
        if problems:
            _fail_plainly("not_configured", "\n".join(problems), args)
            return EXIT_CONFIG
    return _COMMANDS[args.command](args, config)


def _speaks_utf8(stream: Any) -> bool:
    return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "utf-8"


def _writable(stream: Any) -> bool:
    """Whether ``stream`` exists and its descriptor is open for writing (an empty write says
    so without writing anything); one that is not a file (a test's capture) is taken as is.
    A descriptor that is open but fails (a full disk, ``> /dev/full``) is writable here: what
    is written to it then fails, and the command says so (:func:`_unwritten`)."""
    if stream is None:
        return False
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return True
    try:
        os.write(descriptor, b"")
    except OSError as exc:
        return exc.errno != errno.EBADF
    return True


def _streams_that_never_fail() -> None:
    """Text the terminal's encoding cannot show (a cp1252 console, ``LANG=C`` where Python
    does not switch to UTF-8, ``PYTHONIOENCODING=latin-1``) is escaped, not a
    ``UnicodeEncodeError`` that ends a command whose work was done as if it had failed. A
    stream the command was started without (``>&-``: Python makes it None) writes nowhere,
    rather than failing the command with an ``AttributeError``; so does one whose descriptor
    cannot be written (``2>&-`` through a launcher that is a shell script, such as pyenv's:
    the descriptor is the script, open for reading). An answer written to such a stdout is
    lost, and the command says so (:func:`_command`). A stderr on a pipe whose reader goes
    away (``2>&1 | head``) then writes nowhere too: a warning is no answer the command lost."""
    if not _writable(sys.stdout):
        sys.stdout = _Nowhere(open(os.devnull, "wb"), encoding="utf-8")
    if not _writable(sys.stderr):
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    elif _piped(sys.stderr):
        sys.stderr = _Unheard(
            open(sys.stderr.fileno(), "wb", closefd=False), encoding=sys.stderr.encoding,
            errors=sys.stderr.errors, line_buffering=True,
        )
    for stream in (sys.stdout, sys.stderr):  # surrogateescape: a C locale without UTF-8 mode
        if getattr(stream, "errors", None) in ("strict", "surrogateescape") and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def _piped(stream: Any) -> bool:
    """Whether ``stream`` writes to a pipe or a socket, whose reader may go away."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class _Unheard(io.TextIOWrapper):
    """stderr on a pipe: once its reader has gone, what is written goes to the null device,
    rather than a ``BrokenPipeError`` that ended a command whose answer was written."""

    def write(self, text: str) -> int:
        try:
            return super().write(text)
        except BrokenPipeError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            super().flush()
        except BrokenPipeError:
            self._gone()

    def _gone(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self.fileno())
        os.close(devnull)


class _Nowhere(io.TextIOWrapper):
    """stdout when the command has none it can write to: what is written goes to the null
    device, and whether anything was is remembered (:attr:`lost`)."""

    lost = False

    def write(self, text: str) -> int:
        self.lost = self.lost or bool(text)
        return super().write(text)


def _as_typed(argument: str) -> str:
    """A query or URL as the terminal sent it: under a locale Python reads as ASCII
    (``LC_ALL=C`` without UTF-8 mode) its UTF-8 bytes arrive as lone surrogates, which no
    query or URL may hold (``https://ja.wikipedia.org/wiki/東京``). (Paths stay as they came:
    the operating system takes them back in that form.)"""
    try:
        return os.fsencode(argument).decode("utf-8")
    except UnicodeError:
        return argument


def main(argv: Sequence[str] | None = None, *, collector_off: bool = False) -> int:
    try:
        return _command(argv, collector_off)
    except _Terminated:
        sys.stderr.write("terminated\n")
        return EXIT_TERMINATED
    except KeyboardInterrupt:  # during the call, or while the command starts (modules still loading)
        sys.stderr.write("interrupted\n")  # one line for a person; no envelope, even with --json
        return EXIT_INTERRUPTED


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C is, so that it ends the command as Ctrl-C does."""


def _terminate(signum: int, frame: Any) -> NoReturn:
    raise _Terminated()


def _command(argv: Sequence[str] | None, collector_off: bool) -> int:
    """:func:`main` but for Ctrl-C."""
    _streams_that_never_fail()
    given = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser().parse_args(given)
    except _UsageError as refused:  # the usage line is on stderr already
        return _answered(functools.partial(_refuse, refused, given))
    except (SystemExit, OSError) as done:  # --help, --version: written, or not, by argparse
        return _answered(functools.partial(_finished, done))
    if collector_off and args.command in BOUNDED_COMMANDS:
        gc.disable()  # see run()
    _logging(args.debug)
    if args.command in ("extract", "crawl"):
        # A worker's start (an interpreter and trafilatura) overlaps loading the config and
        # the providers; on a chain that never uses it, it is stopped at exit.
        from .fetching.extractpool import extraction_pool

        extraction_pool.start_early()
    try:
        return _answered(lambda: _run(args))
    except Exception as exc:
        if args.debug:
            raise
        from .config import ConfigError
        from .redact import scrub

        _fail_plainly("not_configured" if isinstance(exc, ConfigError) else "provider_error", scrub(str(exc)), args)
        return EXIT_CONFIG if isinstance(exc, ConfigError) else EXIT_FAILURE


def _refuse(refused: _UsageError, given: list[str]) -> int:
    """argparse's refusal, said as it says it, or as one JSON object on stdout with ``--json``."""
    message = refused.message + _misplaced(refused.message, given)
    if "--json" in given:
        _fail("invalid_input", f"{refused.prog}: {message}", True)
    else:
        sys.stderr.write(f"{refused.prog}: error: {message}\n")
    return EXIT_USAGE


def _finished(done: BaseException) -> int:
    """The exit code of argparse's own answer (``--help``), or the error its write met, raised
    again for :func:`_answered`."""
    if isinstance(done, SystemExit):
        return int(done.code or 0)
    raise done


def _answered(answer: Callable[[], int]) -> int:
    """The exit code of ``answer``, which writes the command's answer, or of an answer that
    could not be written: a closed pipe (:func:`_closed_pipe`), a full disk (:func:`_unwritten`),
    no stdout at all. A refused command line's JSON goes through here too, where its
    ``BrokenPipeError`` was a traceback."""
    try:
        code = answer()
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
    except BrokenPipeError:
        return _closed_pipe()
    except OSError as exc:
        if exc.errno in _OUTPUT_ERRNOS and exc.filename is None:
            return _unwritten(exc)  # a write's error names no file; opening or reading one would
        raise
    if isinstance(sys.stdout, _Nowhere) and sys.stdout.lost:
        sys.stderr.write("error: the output could not be written: the command has no stdout to write to.\n")
        return code or EXIT_FAILURE
    return code


def run() -> None:
    """The installed command: :func:`main` without the cyclic collector's passes, for a
    command that answers once, and then an exit without them for every command.

    Starting up (pydantic's models, httpx, the registry) makes objects by the hundred
    thousand and frees few, so the collector ran over 100 passes during an extract (14 ms
    of a 270 ms command) and found nothing to free; a command of
    :data:`BOUNDED_COMMANDS` runs with it off, and its memory is freed by reference counts
    as ever. Once the command has returned, the interpreter's teardown ran the cyclic garbage
    collector over every object the command loaded (pydantic, httpx, the providers), again
    and again as modules are cleared: 130-200 ms after an extract, for nothing anyone sees.
    Freezing those objects first (:func:`gc.freeze`) leaves every step of the exit as it is:
    threads that are not daemons are waited for, every atexit handler runs (the usage ledger
    is written, the extraction workers are reaped, and whatever else the process registered,
    such as a tracing SDK's export), streams are flushed, and objects are freed by their
    reference counts; only the cycles among them are left to the operating system. The
    workers are killed as the command returns, so that they end while the ledger is written.

    ``import httpx`` also tries to load httpx's own command line (its ``_main`` module, which
    brings click, and rich and pygments where installed) and keeps going when that fails:
    12-18 ms of an extract's start with click alone, several times that with rich. This
    process never runs httpx's command line, so the module is marked absent (the import
    system's own ``None`` entry) before httpx loads.
    """
    import signal

    sys.modules.setdefault("httpx._main", None)

    # SIGTERM ends the command as Ctrl-C does: its call is cancelled, the ddgs and extraction
    # workers it started are killed and the usage ledger is written. Its default action ended
    # the process alone, and a ddgs worker went on searching until its own timeout.
    given = signal.getsignal(signal.SIGTERM)
    if given is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _terminate)
    code = main(collector_off=True)
    signal.signal(signal.SIGTERM, given)  # nothing is left to end but the exit: no traceback from it
    pool = sys.modules.get("webproviders.fetching.extractpool")
    if pool is not None:  # the command read pages: its workers end while the exit goes on
        pool.extraction_pool.close(wait=False)
    gc.freeze()
    sys.exit(code)


def _closed_pipe() -> int:
    """The reader went away (``| head -0``): nothing more to say (as a command SIGPIPE ends
    says nothing), nothing left to flush, and not an exit with 0 for an answer not all read."""
    _stdout_nowhere()
    return EXIT_CLOSED_PIPE


#: What a write to stdout fails with when its file can take no more: a full disk or quota
#: (``> /dev/full``), a file over its size limit, a failing device.
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _unwritten(exc: OSError) -> int:
    """The answer could not be written out: a failure, said on stderr, never an exit with 0
    and a file cut short or empty."""
    _stdout_nowhere()
    reason = exc.strerror or str(exc)
    sys.stderr.write(f"error: the output could not be written to stdout ({reason}).\n")
    return EXIT_FAILURE


def _stdout_nowhere() -> None:
    """stdout pointed at /dev/null, so that the interpreter's final flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    run()
