"""The ``webproviders`` command: search, extract, crawl, index pages, list providers, show config and usage.

Human-readable output on a terminal, the raw envelope with ``--json``; a failure envelope
(an extract or crawl that read no page included) exits non-zero with one clear line (a
traceback only with ``--debug``). Results go to stdout; warnings and the URLs that failed,
one line each, go to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from ._version import __version__

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="webproviders",
        description="Search the web, extract pages and crawl sites through any backend.",
    )
    parser.add_argument("--config", help="path to config.yaml (default: $WEBPROVIDERS_CONFIG or ~/.config/webproviders/config.yaml)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    parser.add_argument("--version", action="version", version=f"webproviders {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    search = sub.add_parser("search", help="search the web")
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=5)
    search.add_argument("--backend", help="provider name, or a comma-separated fallback chain")
    search.add_argument("--json", action="store_true", help="print the raw envelope")

    extract = sub.add_parser("extract", help="read pages as markdown")
    extract.add_argument("urls", nargs="+")
    extract.add_argument("--backend")
    extract.add_argument("--max-chars", type=int, dest="max_chars")
    extract.add_argument("--json", action="store_true")

    crawl = sub.add_parser("crawl", help="crawl a site from a seed URL")
    crawl.add_argument("url")
    crawl.add_argument("--backend")
    crawl.add_argument("--max-pages", type=int, dest="max_pages")
    crawl.add_argument("--max-depth", type=int, dest="max_depth")
    crawl.add_argument("--json", action="store_true")

    index = sub.add_parser(
        "index",
        help="add pages to the local index, or show, trim and prune it",
        description="Read URLs (or crawl from them) and add the pages to the local index that "
        "the 'local' backend searches. --stats, --remove and --prune look after the index.",
    )
    index.add_argument("urls", nargs="*", metavar="URL", help="pages to read and add")
    index.add_argument("--crawl", action="store_true", help="crawl from each URL instead of reading it alone")
    index.add_argument("--max-pages", type=int, dest="max_pages", help="pages per crawl (with --crawl)")
    index.add_argument("--backend", help="extract / crawl backend to read with (default: the configured one)")
    index.add_argument("--stats", action="store_true", help="show what the index holds")
    index.add_argument("--remove", nargs="+", metavar="URL", help="remove these pages from the index")
    index.add_argument("--prune", action="store_true", help="remove pages fetched before --older-than")
    index.add_argument("--older-than", dest="older_than", metavar="AGE", help="with --prune: 30d, 12h, 90m, 2w")
    index.add_argument("--json", action="store_true")

    providers = sub.add_parser("providers", help="list providers and whether they can run")
    providers.add_argument("--json", action="store_true")

    sub.add_parser("config", help="show the backend chosen for each capability, and why")

    usage = sub.add_parser("usage", help="show what calls cost, from the usage ledger")
    usage.add_argument("--since", default="7d", help="how far back: 7d, 24h, 30m, 2w or a date (default 7d)")
    usage.add_argument(
        "--by", default="provider", help="group by provider, capability, outcome, day or tag:<name> (default provider)"
    )
    usage.add_argument("--json", action="store_true", help="print the totals as JSON")

    mcp = sub.add_parser(
        "mcp",
        help="serve web_search, web_extract, web_crawl and web_providers over MCP (stdio by default)",
    )
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    mcp.add_argument("--host", help="address to bind with --http (default 127.0.0.1)")
    mcp.add_argument("--port", type=int, help="port to bind with --http (default 8000)")
    mcp.add_argument(
        "--allow-remote", action="store_true", dest="allow_remote",
        help="allow binding an address other than loopback",
    )
    mcp.add_argument(
        "--max-chars", type=int, dest="max_chars",
        help="longest text rendering of one result (default 20000)",
    )
    return parser


def _print_search(envelope: dict[str, Any], out: TextIO) -> None:
    hits = envelope["data"]["web"]
    if not hits:
        out.write("No results.\n")
    for hit in hits:
        out.write(f"{hit['position']}. {hit['title']}\n   {hit['url']}\n")
        if hit.get("description"):
            out.write(f"   {hit['description']}\n")


def _print_pages(envelope: dict[str, Any], out: TextIO) -> None:
    for page in envelope["data"]:
        if not page.get("error"):
            out.write(f"## {page.get('title') or page['url']}\n{page['url']}\n\n{page.get('content', '')}\n\n")
    _print_failed(page for page in envelope["data"] if page.get("error"))


def _print_failed(items: Any) -> None:
    """One stderr line per URL (or page) that could not be read."""
    for item in items:
        sys.stderr.write(f"failed [{item.get('error_code')}] {item.get('url')}: {item.get('error')}\n")


def _print_warnings(envelope: dict[str, Any]) -> None:
    for warning in envelope.get("meta", {}).get("warnings", []):
        sys.stderr.write(f"warning: {warning}\n")


def _emit(envelope: dict[str, Any], as_json: bool, render: Callable[[dict[str, Any], TextIO], None]) -> int:
    if as_json:
        sys.stdout.write(json.dumps(envelope, ensure_ascii=False, indent=2) + "\n")
    elif envelope.get("success"):
        render(envelope, sys.stdout)
    else:
        sys.stderr.write(f"error [{envelope.get('error_code')}]: {envelope.get('error')}\n")
        failures = envelope.get("meta", {}).get("failures", [])
        if len(failures) > 1:
            _print_failed(failures)
    if not as_json:
        _print_warnings(envelope)
    return EXIT_OK if envelope.get("success") else EXIT_FAILURE


def _options(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def _progress_printer() -> Callable[[dict[str, Any]], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(event: dict[str, Any]) -> None:
        done, total = event.get("pages", 0), event.get("max_pages") or "?"
        sys.stderr.write(f"\rcrawled {done}/{total} pages  {event.get('url', '')[:60]:<60}")
        sys.stderr.flush()

    return show


def _cmd_search(args: argparse.Namespace, config: Any) -> int:
    from .dispatch.api import dispatch_search

    envelope = dispatch_search(args.query, args.limit, backend=args.backend, config=config)
    return _emit(envelope, args.json, _print_search)


def _cmd_extract(args: argparse.Namespace, config: Any) -> int:
    from .dispatch.api import dispatch_extract

    envelope = dispatch_extract(args.urls, backend=args.backend, config=config, **_options(args, "max_chars"))
    return _emit(envelope, args.json, _print_pages)


def _cmd_crawl(args: argparse.Namespace, config: Any) -> int:
    from .dispatch.api import dispatch_crawl

    options = _options(args, "max_pages", "max_depth")
    progress = None if args.json else _progress_printer()
    if progress is not None:
        options["progress"] = progress
    envelope = dispatch_crawl(args.url, backend=args.backend, config=config, **options)
    if progress is not None:
        sys.stderr.write("\n")
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

    store = open_store(config)
    if args.stats:
        stats = store.stats()
        if args.json:
            sys.stdout.write(json.dumps(stats, indent=2) + "\n")
        else:
            _print_index_stats(stats, sys.stdout)
        return EXIT_OK
    if args.remove is not None:
        removed = store.remove(args.remove)
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
        sys.stderr.write(f"error: {problem}\n")
        return EXIT_USAGE
    if not args.urls:
        try:
            return _index_maintenance(args, config)
        except WebProviderError as exc:
            sys.stderr.write(f"error [{exc.code}]: {exc.message}\n")
            return EXIT_FAILURE
    from .index.api import index_urls

    envelope = index_urls(args.urls, crawl=args.crawl, max_pages=args.max_pages, backend=args.backend, config=config)
    code = _emit(envelope, args.json, _print_indexed)
    if code == EXIT_OK and envelope["data"]["failed"] and not envelope["data"]["indexed"]:
        return EXIT_FAILURE
    return code


def _print_indexed(envelope: dict[str, Any], out: TextIO) -> None:
    data = envelope["data"]
    out.write(f"indexed {len(data['indexed'])} page(s) into {data['index']}\n")
    for item in data["failed"]:
        out.write(f"failed: {item['url']} [{item.get('error_code')}] {item.get('error')}\n")


def _cmd_providers(args: argparse.Namespace, config: Any) -> int:
    from .registry.providers import list_providers

    rows = list_providers(config)
    if args.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_OK
    for row in rows:
        state = "ready" if row["available"] else "unavailable"
        caps = ",".join(row["capabilities"]) or "-"
        line = f"{row['name']:<14} {state:<12} {caps:<21} {row['source']}"
        if row["load_error"]:
            line += f"  load error: {row['load_error']}"
        elif not row["available"]:
            line += f"  ({row['reason']})"
        sys.stdout.write(line + "\n")
    return EXIT_OK


def _cmd_config(args: argparse.Namespace, config: Any) -> int:
    import os

    from .agents.search_contract import BACKEND_ENV, contract_backend
    from .dispatch.plan import resolve
    from .errors import WebProviderError
    from .manifest import CAPABILITIES
    from .registry.providers import get_registry

    registry = get_registry(config)
    sys.stdout.write(f"config: {registry.config.source}\n")
    for capability in CAPABILITIES:
        try:
            plan = resolve(capability, None, registry)
        except WebProviderError as exc:
            sys.stdout.write(f"{capability:<8} none  ({exc.message})\n")
            continue
        mode = "standby" if plan.standby else plan.mode
        sys.stdout.write(f"{capability:<8} {_chosen(plan.candidates, mode)}  (from {plan.source})\n")
    named_only = [e.manifest.name for e in registry.entries() if not e.manifest.auto_detect]
    if named_only:
        sys.stdout.write(f"never auto-detected (used only when named): {', '.join(named_only)}\n")
    backend, warnings = contract_backend(registry.config, os.environ)
    names = backend if isinstance(backend, list) else [backend]
    origin = f"from {BACKEND_ENV}" if os.environ.get(BACKEND_ENV, "").strip() else f"{BACKEND_ENV} unset"
    sys.stdout.write(f"web.search contract: {_chosen(names, 'chain')}  ({origin})\n")
    for warning in warnings:
        sys.stderr.write(f"warning: {warning}\n")
    if names == ["stub"]:
        sys.stderr.write(
            f"warning: the web.search contract answers with offline stub results; set {BACKEND_ENV} "
            "to a real backend.\n"
        )
    return EXIT_OK


def _chosen(names: list[str], mode: str) -> str:
    """``a -> b [chain]`` for a chain (``[standby]`` for a standby one), ``a, b [fuse]`` for
    fusion, ``a`` alone."""
    if len(names) == 1:
        return names[0]
    return (", " if mode == "fuse" else " -> ").join(names) + f" [{mode}]"


def _cmd_usage(args: argparse.Namespace, config: Any) -> int:
    from .accounting.usage.report import UsageQueryError, format_table, usage_summary

    try:
        summary = usage_summary(args.since, args.by, config=config)
    except UsageQueryError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        sys.stdout.write(format_table(summary))
    return EXIT_OK


def _cmd_mcp(args: argparse.Namespace, config: Any) -> int:
    import anyio

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
    server = build_server(config, **({"max_chars": args.max_chars} if args.max_chars else {}))
    if not args.http:
        anyio.run(serve_stdio, server)
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
    anyio.run(lambda: serve_http(server, host=host, port=port, tokens=tokens, user_keys=user_keys))
    return EXIT_OK


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


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        from .config import load_config

        config = load_config(args.config)
        return _COMMANDS[args.command](args, config)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if args.debug:
            raise
        from .redact import scrub

        sys.stderr.write(f"error: {scrub(str(exc))}\n")
        return EXIT_FAILURE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
