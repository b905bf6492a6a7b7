"""pydantic's plugin lookup, made before this package defines its first model.

pydantic looks for plugins (entry-point group ``pydantic``) in the ``entry_points.txt`` of
every installed distribution when it builds its first validator, and a file it cannot parse
(another package's, with a line lacking ``=``, or not UTF-8) makes that build raise: this
package would not import, and ``list_providers()`` or a ``dispatch_*`` call raised a
``TypeError`` from deep inside pydantic. So did a pydantic plugin that raised anything but an
``ImportError`` as it loaded. pydantic keeps no plugin after such a lookup, so the
lookup is made here first, its failure named in a warning with the distribution to repair,
and the models are built as usual.
"""

from __future__ import annotations

_looked_up = False


def look_up_plugins() -> None:
    """Have pydantic look up its plugins now, saying which distribution stopped it (once)."""
    global _looked_up
    if _looked_up:
        return
    _looked_up = True
    from pydantic import TypeAdapter

    try:
        TypeAdapter(int)  # pydantic looks up its plugins as it builds the first validator
    except Exception as exc:  # noqa: BLE001 - whatever another package's file makes it raise
        from .redact import get_logger

        get_logger("webproviders.config").warning(
            "pydantic could not look for its plugins (%s: %s): %s. pydantic's plugins are off in this "
            "process; repair or remove that package (PYDANTIC_DISABLE_PLUGINS=__all__ skips the lookup).",
            type(exc).__name__, exc, _unreadable(),
        )


def _unreadable() -> str:
    """The installed distributions whose entry points cannot be read, named; else the pydantic
    plugins installed, one of which raised as it loaded (pydantic lets only an ImportError or
    an AttributeError pass)."""
    from importlib.metadata import distributions

    names, plugins = [], []
    for dist in distributions():
        try:
            name = f"{dist.metadata['Name']} {dist.version}"
        except Exception:  # noqa: BLE001 - its metadata may be as broken
            name = "one whose name cannot be read either"
        try:
            plugins.extend(f"'{ep.name}' of {name}" for ep in dist.entry_points if ep.group == "pydantic")
        except Exception:  # noqa: BLE001 - a malformed file raises whatever its parser meets
            names.append(f"'{name}'")
    if names:
        return f"the entry_points.txt of the installed package {', '.join(names)} cannot be read"
    return f"a pydantic plugin raised as it loaded (installed: {', '.join(plugins) or 'none found'})"
