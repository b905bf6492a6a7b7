"""Turning an envelope into text a language model reads well, within a character budget.

``format_results`` numbers search hits (title, URL, snippet), prints extracted or crawled
pages (title, URL, markdown content) and renders a failure as one line. With ``max_chars``
the output is never longer than the budget: page contents share it fairly (a short page
keeps all of its text, the rest is split evenly among the long ones), each cut page keeps
its head and its tail and says how many characters were cut, and when even that does not
fit, trailing items are left out with a note saying how many.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from ..urls import MAX_URL_CHARS

Style = Literal["markdown", "text", "json"]
STYLES: tuple[str, ...] = ("markdown", "text", "json")

#: Share of a cut page's budget kept from its beginning (the rest comes from its end).
HEAD_SHARE = 2 / 3
#: Below these many characters a body is not cut further; items are dropped instead.
MIN_PAGE_CHARS = 200
MIN_SNIPPET_CHARS = 40
#: A longer title or published date is cut to this, in every style: they are never shortened
#: to fit the budget, so one vendor's endless title left every result out.
MAX_TITLE_CHARS = 300
#: The one-line fields of an item cut to :data:`MAX_TITLE_CHARS`.
_LINE_FIELDS = ("title", "published_at")
#: How far back (as a share of the kept text) a cut may move to land on whitespace.
SNAP_SHARE = 0.2
ELLIPSIS = "…"
#: Unicode's tag characters (U+E0000-U+E007F): an invisible copy of ASCII, so a page can hide
#: instructions that a model reads and a person checking the tool's text does not see. Their
#: one other use, the regional flags (England's), shows as a plain black flag without them.
_TAGS = "\U000e0000-\U000e007f"
#: Control characters (C0 but tab and line feed, DEL, C1) and tag characters, never passed on
#: in markdown or text: a NUL makes PostgreSQL refuse the text (an agent's checkpoint of the
#: tool message), an ESC or a C1 CSI drives the terminal that prints it. ``json`` escapes them
#: instead.
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_TAGS}]")
#: What ``json`` escapes beyond what the ``json`` module does (C0).
_ESCAPED = re.compile(f"[\x7f-\x9f{_TAGS}]")
#: Line breaks other than ``\n`` (a PDF's form feed between pages), read as ``\n``.
_BREAK = re.compile("\r\n?|[\x0b\x0c]")


def _marker(cut: int) -> str:
    return f"\n\n[... {cut:,} characters cut ...]\n\n"


def cut_end(text: str, budget: int) -> str:
    """``text`` cut to at most ``budget`` characters, ending with an ellipsis when cut."""
    if len(text) <= budget:
        return text
    if budget <= 0:
        return ""
    return text[: budget - 1].rstrip() + ELLIPSIS


def _snap_head(head: str) -> str:
    floor = int(len(head) * (1 - SNAP_SHARE))
    space = max(head.rfind("\n", floor), head.rfind(" ", floor))
    return head[: space + 1] if space >= floor else head


def _snap_tail(tail: str) -> str:
    ceiling = int(len(tail) * SNAP_SHARE)
    found = [i for i in (tail.find("\n", 0, ceiling), tail.find(" ", 0, ceiling)) if i >= 0]
    return tail[min(found) + 1 :] if found else tail


def cut_middle(text: str, budget: int) -> str:
    """``text`` in at most ``budget`` characters: its head and tail around a "N characters cut" note."""
    if len(text) <= budget:
        return text
    # The note for the largest possible cut is at least as long as the real one.
    keep = budget - len(_marker(len(text)))
    if keep <= 0:
        return cut_end(text, budget)
    head = _snap_head(text[: round(keep * HEAD_SHARE)])
    tail_len = keep - round(keep * HEAD_SHARE)
    tail = _snap_tail(text[len(text) - tail_len :]).lstrip() if tail_len > 0 else ""
    head = head.rstrip()
    return head + _marker(len(text) - len(head) - len(tail)) + tail


def fair_shares(lengths: Sequence[int], total: int) -> list[int]:
    """Split ``total`` characters max-min fairly: short bodies keep all, long ones share the rest."""
    shares = [0] * len(lengths)
    left = max(total, 0)
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    for rank, index in enumerate(order):
        share = min(lengths[index], left // (len(order) - rank))
        shares[index] = share
        left -= share
    return shares


@dataclass
class _Body:
    """The part of an item that may be shortened, and how."""

    text: str
    cut: Callable[[str, int], str]
    floor: int


#: ``render(kept, bodies)``: the output with the first ``kept`` items, using these bodies.
_Render = Callable[[int, list[str]], str]


def _fit(
    render: _Render, bodies: list[_Body], max_chars: int | None, fallback: Callable[[int], str]
) -> str:
    """The longest rendering within ``max_chars``: fair cuts first, then fewer items.

    Only renderings that might fit are built: bodies longer than the budget cannot be shown
    whole, and a cut body keeps at least four fifths of its share (a snap to a word boundary
    moves a cut back a fifth at most), so shares past twice the budget never fit. Building
    them copied every page whole, many times over (seconds, and several times the pages'
    size in memory, for a few megabytes of pages)."""
    lengths = [len(b.text) for b in bodies]
    if max_chars is None or sum(lengths) <= max_chars:
        full = render(len(bodies), [b.text for b in bodies])
        if max_chars is None or len(full) <= max_chars:
            return full

    def build(kept: int, total: int) -> str:
        shares = fair_shares(lengths[:kept], total)
        return render(kept, [b.cut(b.text, s) for b, s in zip(bodies, shares, strict=False)])

    def floor_total(kept: int) -> int:
        return sum(min(length, b.floor) for length, b in zip(lengths[:kept], bodies, strict=False))

    low, high = -1, len(bodies)  # the most items that fit with every body at its floor
    while low < high:
        mid = (low + high + 1) // 2
        if mid >= 0 and len(build(mid, floor_total(mid))) <= max_chars:
            low = mid
        else:
            high = mid - 1
    kept = low
    if kept < 0:
        return fallback(max_chars)
    lo = floor_total(kept)
    hi = max(lo, min(sum(lengths[:kept]), 2 * max_chars))
    best = build(kept, lo)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        candidate = build(kept, mid)
        if len(candidate) <= max_chars:
            lo, best = mid, candidate
        else:
            hi = mid - 1
    return best


def _kind(envelope: Mapping[str, Any]) -> str:
    if not envelope.get("success"):
        return "failure"
    data = envelope.get("data")
    if isinstance(data, Mapping):
        return "search"
    if isinstance(data, list):
        return "pages"
    raise ValueError("The envelope's data is neither search results nor pages.")


def _warnings(envelope: Mapping[str, Any]) -> list[str]:
    meta = envelope.get("meta")
    warnings = meta.get("warnings") if isinstance(meta, Mapping) else None
    return [str(w) for w in warnings or []]


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _clean(value: Any) -> str:
    """A vendor's text for markdown or text: its line breaks as ``\n``, no control characters."""
    return _CONTROL.sub("", _BREAK.sub("\n", _text(value))).strip()


def _one_line(value: Any) -> str:
    """A title or snippet on one line: a vendor's line break would otherwise start a line
    that reads as another result, a heading or an instruction of our own."""
    return " ".join(_clean(value).split())


def _title(text: str) -> str:
    return cut_end(text, MAX_TITLE_CHARS)


def _json_lines(item: Mapping[str, Any]) -> dict[str, Any]:
    """The item's title, published date and URL for ``json``, cut as in the other styles."""
    lines = {key: _title(item[key]) for key in _LINE_FIELDS if isinstance(item.get(key), str)}
    if isinstance(item.get("url"), str):
        lines["url"] = _bounded_url(item["url"])
    return lines


def _held(value: Any) -> Any:
    """``value`` with each text in it cut to :data:`MAX_URL_CHARS`, as a URL is."""
    if isinstance(value, str):
        return cut_end(value, MAX_URL_CHARS)
    if isinstance(value, Mapping):
        return {key: _held(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_held(item) for item in value]
    return value


def _json_item(item: Mapping[str, Any], body: str) -> dict[str, Any]:
    """An item for ``json`` but its ``body`` (which the budget cuts) and ``raw_content`` (a
    page's whole text, never cut to fit). Its other fields (``metadata``, a vendor's own) are
    not cut to fit either, so each text in them is held to :data:`MAX_URL_CHARS`, which keeps
    every URL a tool could read whole: a page's 10,000-character meta description left every
    page out of an 8,000-character answer."""
    rest = {key: None if key == body else _held(value) for key, value in item.items() if key != "raw_content"}
    return rest | _json_lines(item)


def _bounded_url(url: str) -> str:
    """A URL longer than any tool takes (:data:`MAX_URL_CHARS`) cut, ending with an ellipsis:
    like a title, it is never shortened to fit the budget, so one vendor's endless URL left
    every other result out. Every URL a tool could read again is shown whole."""
    return cut_end(url, MAX_URL_CHARS)


def _md_link_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _url_line(value: Any, markdown: bool = False) -> str:
    """A URL on one line, as the same address: whitespace and control characters in a
    vendor's URL are percent-encoded, so a line break never starts a line that reads as
    another result; in a markdown link, so are ``<``, ``>`` and parentheses that do not
    pair up, which would otherwise end the link before the URL does."""
    url = _bounded_url(_text(value))
    ends_link = ("<>" + ("" if _parens_pair(url) else "()")) if markdown else ""
    return "".join(
        quote(char, safe="")
        if not char.isprintable() or char.isspace() or char in ends_link
        else char
        for char in url
    )


def _parens_pair(url: str) -> bool:
    depth = 0
    for char in url:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


# --- failures ---------------------------------------------------------------------------


def _failure_suffix(envelope: Mapping[str, Any]) -> str:
    retry_after = envelope.get("retry_after")
    if (
        isinstance(retry_after, (int, float))
        and not isinstance(retry_after, bool)
        and retry_after > 0
    ):
        return f" (retry after {retry_after:g} s)"
    return ""


def _failures(envelope: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The per-URL failures of an extract or crawl that read no page (``meta.failures``)."""
    meta = envelope.get("meta")
    failures = meta.get("failures") if isinstance(meta, Mapping) else None
    return [f for f in failures or [] if isinstance(f, Mapping)]


def _format_failure(envelope: Mapping[str, Any], style: str, max_chars: int | None) -> str:
    text = _text if style == "json" else _clean
    code = _clean(envelope.get("error_code")) or "provider_error"
    sentence = text(envelope.get("error")) or "The call failed without a message."
    failures = _failures(envelope)
    if len(failures) > 1 and style != "json":
        sentence += "".join(f"\n- {_url_line(f.get('url'))}: {_page_error(f)}" for f in failures)
    body = [_Body(sentence, cut_end, MIN_SNIPPET_CHARS)]
    if style == "json":
        return _failure_json(envelope, body, failures, max_chars)
    prefix, suffix = f"Error [{code}]: ", _failure_suffix(envelope)

    def render(kept: int, texts: list[str]) -> str:
        return prefix + (texts[0] if kept else "") + suffix

    return _fit(render, body, max_chars, lambda limit: cut_end(prefix + sentence, limit))


def _failure_json(
    envelope: Mapping[str, Any], body: list[_Body], failures: list[Mapping[str, Any]], max_chars: int | None
) -> str:
    """A failure in ``json``: the call's sentence and each URL's failure, cut as a search's
    snippets are and trailing ones left out with an ``omitted`` count, so the sentence always
    fits where 20 URLs' failures left only ``{"truncated":true}``."""
    view = {k: v for k, v in envelope.items() if k != "meta"}
    bodies = [*body, *(_Body(_text(f.get("error")), cut_end, MIN_SNIPPET_CHARS) for f in failures)]

    def render(kept: int, texts: list[str]) -> str:
        shown = {**view, "error": texts[0] if kept else ""}
        if failures:
            listed = [{**f, "error": text} for f, text in zip(failures, texts[1:kept], strict=False)]
            shown["failures"] = listed
            if len(listed) < len(failures):
                shown["omitted"] = len(failures) - len(listed)
        return _dumps(shown)

    return _fit(render, bodies, max_chars, _json_fallback)


# --- search ----------------------------------------------------------------------------


def _omitted_note(count: int, what: str) -> str:
    return f"[{count} more {what} left out to fit the length limit]"


def _trailer(
    lines: list[str], warnings: list[str], omitted: int, what: str, style: str
) -> list[str]:
    if omitted:
        lines.append(_omitted_note(omitted, what))
    prefix = "> Note: " if style == "markdown" else "Note: "
    lines.extend(prefix + _clean(w) for w in warnings)
    return lines


def _format_search(envelope: Mapping[str, Any], style: str, max_chars: int | None) -> str:
    hits = [h for h in envelope["data"].get("web") or [] if isinstance(h, Mapping)]
    warnings = _warnings(envelope)
    if style == "json":
        bodies = [_Body(_text(h.get("description")), cut_end, MIN_SNIPPET_CHARS) for h in hits]
        return _search_json(envelope, hits, bodies, warnings, max_chars)
    bodies = [_Body(_one_line(h.get("description")), cut_end, MIN_SNIPPET_CHARS) for h in hits]

    def entry(number: int, hit: Mapping[str, Any], snippet: str) -> str:
        url = _url_line(hit.get("url"), markdown=style == "markdown")
        title = _title(_one_line(hit.get("title"))) or _url_line(hit.get("url"))
        if style == "markdown":
            lines = [f"{number}. [{_md_link_text(title)}]({url})"]
        else:
            lines = [f"{number}. {title}", f"   {url}"]
        published = hit.get("published_at")
        if isinstance(published, str) and published.strip():
            lines.append(f"   Published: {_title(_one_line(published))}")
        if hit.get("description"):
            lines.append(f"   {snippet}")
        return "\n".join(lines)

    def render(kept: int, texts: list[str]) -> str:
        blocks = [entry(i + 1, hits[i], texts[i]) for i in range(kept)]
        if not hits:
            blocks.append("No results found.")
        blocks = _trailer(blocks, warnings, len(hits) - kept, "results", style)
        return "\n\n".join(blocks) if style == "markdown" else "\n".join(blocks)

    return _fit(render, bodies, max_chars, lambda limit: cut_end(render(0, []), limit))


def _search_json(
    envelope: Mapping[str, Any],
    hits: list[Mapping[str, Any]],
    bodies: list[_Body],
    warnings: list[str],
    max_chars: int | None,
) -> str:
    items = [_json_item(hit, "description") for hit in hits]

    def render(kept: int, texts: list[str]) -> str:
        web = [{**items[i], "description": texts[i]} for i in range(kept)]
        view: dict[str, Any] = {
            "success": True,
            "data": {"web": web},
            "provider": envelope.get("provider"),
        }
        if kept < len(hits):
            view["omitted"] = len(hits) - kept
        if warnings:
            view["warnings"] = warnings
        return _dumps(view)

    return _fit(render, bodies, max_chars, _json_fallback)


# --- pages ----------------------------------------------------------------------------


def _page_error(page: Mapping[str, Any]) -> str:
    code = _clean(page.get("error_code")) or "provider_error"
    return f"Error [{code}]: {_clean(page.get('error'))}"


def _product_line(page: Mapping[str, Any]) -> str:
    """What a product page states of its product (``metadata.product``), on one line: a model
    asked for a price reads it here, where the page's text may lack it (a script shows it)."""
    metadata = page.get("metadata")
    product = metadata.get("product") if isinstance(metadata, Mapping) else None
    if not isinstance(product, Mapping):
        return ""

    def fact(key: str) -> str:
        return _one_line(product.get(key))

    price = fact("price") or " to ".join(filter(None, (fact("low_price"), fact("high_price"))))
    rating = fact("rating") and f"rated {fact('rating')}" + (f" ({fact('review_count')} reviews)" if fact("review_count") else "")
    parts = (
        fact("name"),
        fact("brand") and f"by {fact('brand')}",
        price and " ".join(filter(None, (price, fact("currency")))),
        fact("availability"),
        rating,
    )
    line = " · ".join(part for part in parts if part)
    return f"Product: {_title(line)}" if line else ""


def _format_pages(envelope: Mapping[str, Any], style: str, max_chars: int | None) -> str:
    pages = [p for p in envelope["data"] if isinstance(p, Mapping)]
    warnings = _warnings(envelope)
    bodies = [
        _Body("" if page.get("error") else _text(page.get("content")), cut_middle, MIN_PAGE_CHARS)
        for page in pages
    ]
    if style == "json":
        return _pages_json(envelope, pages, bodies, warnings, max_chars)
    numbered = len(pages) > 1

    def entry(number: int, page: Mapping[str, Any], content: str) -> str:
        url, title = _url_line(page.get("url")), _title(_one_line(page.get("title")))
        label = f"{number}. " if numbered else ""
        if style == "markdown":
            head = [f"## {label}{title}", f"URL: {url}"] if title else [f"## {label}{url}"]
        else:
            head = [f"[{number}] {title or url}" if numbered else title or url]
            if title:
                head.append(f"URL: {url}")
        product = _product_line(page)
        if product:
            head.append(product)
        if page.get("error"):
            body = _page_error(page)
        else:
            body = _clean(content) or "(no content)"  # once cut: a page may be megabytes
        return "\n".join(head) + "\n\n" + body

    def render(kept: int, texts: list[str]) -> str:
        blocks = [entry(i + 1, pages[i], texts[i]) for i in range(kept)]
        if not pages:
            blocks.append("No pages.")
        blocks = _trailer(blocks, warnings, len(pages) - kept, "pages", style)
        return "\n\n".join(blocks)

    return _fit(render, bodies, max_chars, lambda limit: cut_end(render(0, []), limit))


def _pages_json(
    envelope: Mapping[str, Any],
    pages: list[Mapping[str, Any]],
    bodies: list[_Body],
    warnings: list[str],
    max_chars: int | None,
) -> str:
    items = [_json_item(page, "content") for page in pages]

    def render(kept: int, texts: list[str]) -> str:
        data = []
        for page, item, content in zip(pages[:kept], items, texts, strict=False):
            shown = page.get("content", "") if page.get("error") else content
            data.append({**item, "content": shown})
        view: dict[str, Any] = {"success": True, "data": data, "provider": envelope.get("provider")}
        if kept < len(pages):
            view["omitted"] = len(pages) - kept
        if warnings:
            view["warnings"] = warnings
        return _dumps(view)

    return _fit(render, bodies, max_chars, _json_fallback)


def _dumps(value: Any) -> str:
    """Compact JSON whose text holds no control or tag character: ``json`` escapes C0 itself,
    and DEL, C1 (``\\u009b``) and tag characters (``\\udb40\\udc41``) are escaped here, so the
    values read back exactly as they came."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return _ESCAPED.sub(lambda found: json.dumps(found.group())[1:-1], text)


def _json_fallback(limit: int) -> str:
    """Valid JSON when not even an empty list fits the budget (or nothing, below two characters)."""
    for candidate in ('{"truncated":true}', "{}"):
        if len(candidate) <= limit:
            return candidate
    return ""


_FORMATTERS = {"failure": _format_failure, "search": _format_search, "pages": _format_pages}


def format_results(
    envelope: Mapping[str, Any],
    style: Style = "markdown",
    max_chars: int | None = None,
) -> str:
    """Render a ``dispatch_*`` envelope for a language model.

    ``style``: ``"markdown"`` (numbered links, page headings), ``"text"`` (no markup of our
    own) or ``"json"`` (the envelope without ``meta`` and ``raw_content``, compact).
    ``max_chars``: the longest the result may be; ``None`` means no limit.
    """
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}; got {style!r}.")
    if max_chars is not None and (
        isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1
    ):
        raise ValueError(f"max_chars must be a whole number above 0, or None; got {max_chars!r}.")
    if not isinstance(envelope, Mapping):
        raise TypeError(f"format_results() needs an envelope dict, not {type(envelope).__name__}.")
    return _FORMATTERS[_kind(envelope)](envelope, style, max_chars)
