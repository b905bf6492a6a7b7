"""Page URLs from ``sitemap.xml`` files (a ``<urlset>`` or a ``<sitemapindex>``), and from
sitemaps in the protocol's text form (``sitemap.txt``: one full URL a line).

The XML comes from the site, so it is parsed with entities, DTDs and network access off.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .charset import decode, header_encoding


@dataclass
class Sitemap:
    """What one sitemap file lists: page URLs, or further sitemaps (an index)."""

    pages: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)


def parse_sitemap(content: bytes, cut: bool = False, content_type: str | None = None) -> Sitemap | None:
    """The ``<loc>`` entries of a sitemap; None when ``content`` is no sitemap (not XML, or
    neither a ``<urlset>`` nor a ``<sitemapindex>``), so the crawl can say it was not read.
    ``cut``: ``content`` is the beginning of a longer file, whose last entry may stop mid-URL
    (it is left out). ``content_type``: the file's own ``Content-Type``, whose charset comes
    before the XML declaration, as browsers read it (lxml alone went by the declaration, else
    UTF-8, and a file in ISO-8859-1 said so by its header only listed ``/na\ufffdve``)."""
    from lxml import etree

    head = content[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")  # its head only: no copy of a big file
    if head and not head.startswith(b"<"):
        return _text_sitemap(content, cut)
    encoding = None
    if header_encoding(content_type, content) not in (None, "utf-8"):  # UTF-8, lxml's own default, costs no copy
        content, encoding = decode(content, content_type, "xml")[0].encode("utf-8"), "utf-8"
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=True, encoding=encoding
    )
    try:
        root = etree.fromstring(content, parser=parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    kind = etree.QName(root).localname.lower() if root is not None and isinstance(root.tag, str) else ""
    if kind not in ("urlset", "sitemapindex"):
        return None
    result = Sitemap()
    is_index = kind == "sitemapindex"
    # Each entry's own <loc>, not the <image:loc> of a picture on the page (image sitemaps).
    for element in root.iterfind("{*}sitemap/{*}loc" if is_index else "{*}url/{*}loc"):
        try:
            text = (element.text or "").strip()
        except UnicodeDecodeError:  # a reference to half a UTF-16 pair (&#xD800;): no URL, and not the file's end
            continue
        if text:
            (result.children if is_index else result.pages).append(text)
    if cut:
        del (result.children if is_index else result.pages)[-1:]
    return result


def _text_sitemap(content: bytes, cut: bool) -> Sitemap | None:
    """The pages of a sitemap in the protocol's text form, one full URL a line in UTF-8 (the
    sitemaps.org protocol, which search engines read); None when a line is no such URL: a text
    that is no sitemap (a page of prose, an error message) lists nothing."""
    lines = [line.strip() for line in content.decode("utf-8", "replace").lstrip("\ufeff").splitlines()]
    urls = [line for line in lines if line]
    if not urls or not all(line.startswith(("http://", "https://")) and len(line.split()) == 1 for line in urls):
        return None
    return Sitemap(pages=urls[:-1] if cut else urls)
