"""Paths under the home directory, which a process may not have: HOME unset and its user id
missing from the password database (a container run under an arbitrary user)."""

from __future__ import annotations

import errno
import os
from pathlib import Path


def expand_user(path: str | os.PathLike[str]) -> Path:
    """``path`` with a leading ``~`` expanded, or as written when there is no home directory
    (where pathlib raises ``RuntimeError``): :func:`require_home` refuses it when it is used."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        return Path(path)


def require_home(path: Path) -> Path:
    """``path``, or the ``OSError`` of a file that cannot be opened when its ``~`` was left
    unexpanded (else it would name a folder ``~`` in the working directory)."""
    if path.parts and path.parts[0].startswith("~"):
        raise OSError(errno.ENOENT, "there is no home directory for it (set HOME)", str(path))
    return path


def xdg_file(variable: str, fallback: str, name: str) -> Path:
    """``$variable/webproviders/name``, in the ``~`` folder ``fallback`` when it is unset or
    relative: the XDG specification has a relative value ignored (else the file would move
    with the working directory)."""
    value = os.environ.get(variable) or ""
    return expand_user(value if os.path.isabs(value) else fallback) / "webproviders" / name
