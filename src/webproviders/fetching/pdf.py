"""PDF to text with pypdf (the ``pdf`` extra), within a page cap and a CPU budget.

:func:`pdf_text` runs in an extraction worker process. A small PDF can be expensive: many
pages may share one huge content stream, so the pages read are capped before parsing, and
reading stops early once the page has used its CPU budget, keeping the pages read so far.
A stream that inflates past pypdf's own limit (a decompression bomb) is ``too_large``.
"""

from __future__ import annotations

import importlib.util
import io
import time
from typing import Any

from ..errors import ParseError, TooLargeError, UnsupportedError


def pypdf_installed() -> bool:
    """Whether PDFs can be read here (asked without importing pypdf)."""
    return importlib.util.find_spec("pypdf") is not None


def missing_pypdf(url: str) -> UnsupportedError:
    return UnsupportedError(
        f"{url} is a PDF; install the pdf extra (pip install 'webproviders[pdf]') to read PDFs."
    )


def pdf_text(content: bytes, url: str, *, max_pages: int, cpu_budget: float) -> tuple[str, str, dict[str, Any]]:
    """``(title, text, metadata)`` of a PDF: at most ``max_pages`` pages, and no page started
    after ``cpu_budget`` CPU seconds (blocking; needs ``pypdf``)."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import DependencyError, LimitReachedError, PyPdfError
    except ImportError:
        raise missing_pypdf(url) from None
    started = time.process_time()
    try:
        reader = PdfReader(io.BytesIO(content))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UnsupportedError(f"{url} is a password-protected PDF.")
        pages = reader.pages
        texts: list[str] = []
        for index in range(min(len(pages), max_pages)):
            if texts and time.process_time() - started > cpu_budget:
                break
            texts.append((pages[index].extract_text() or "").strip())
        info = reader.metadata
        title = str(info.title).strip() if info is not None and info.title else ""
        author = str(info.author).strip() if info is not None and info.author else None
    except UnsupportedError:
        raise
    except DependencyError as exc:  # an AES-encrypted PDF (most locked against printing only) without cryptography
        raise UnsupportedError(
            f"{url} is a PDF that pypdf reads only with a package that is not installed here ({exc}); "
            "pip install 'webproviders[pdf]' installs it."
        ) from None
    except LimitReachedError:
        raise TooLargeError(
            f"{url} is a PDF whose compressed content expands past the size pypdf reads a stream to "
            "(a decompression bomb, most often); it was not read."
        ) from None
    # pypdf's own asserts, and its recursion through nested arrays, fail on damaged files too.
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, AssertionError, RecursionError) as exc:
        raise ParseError(f"{url} could not be read as a PDF: {exc}.") from None
    metadata: dict[str, Any] = {"pages": len(pages), "author": author}
    if len(texts) < len(pages):
        metadata["pages_read"] = len(texts)
    return title, "\n\n".join(t for t in texts if t), metadata
