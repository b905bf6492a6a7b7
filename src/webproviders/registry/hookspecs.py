"""The pluggy hook specifications third-party packages implement.

A plugin is a module (a plugin folder's ``__init__.py``, or an object named by an entry
point in the ``webproviders`` group) with functions named after these specs. Marking them
with :data:`hookimpl` is optional for folder plugins and recommended for packages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from ..config import Config
    from .registration import PluginContext

hookspec = pluggy.HookspecMarker("webproviders")
hookimpl = pluggy.HookimplMarker("webproviders")


@hookspec
def register(ctx: PluginContext) -> None:
    """Register providers with ``ctx.register_web_search_provider(instance)``."""


@hookspec
def before_dispatch(capability: str, backend: str, arguments: dict[str, Any]) -> None:
    """Called once for each provider a call tries, before the URL screen and the cache; may
    edit ``arguments`` (what it writes is checked, and its URLs screened, as the caller's are).

    Raising a :class:`webproviders.errors.WebProviderError` refuses the call (policy): the
    caller gets that error's failure envelope.
    """


@hookspec
def after_dispatch(
    capability: str,
    arguments: dict[str, Any],
    envelope: dict[str, Any],
    config: Config,
    cost: dict[str, Any] | None,
) -> None:
    """Called with every envelope before it is returned (logging, cost accounting, indexing);
    ``envelope`` is a copy, so what the hook changes in it never reaches the caller.

    ``config`` is the call's configuration. ``cost`` is what the call spent, ``{usd, units,
    unit, estimated}`` summed over every request it sent (zero when it spent nothing; the
    envelope's ``meta.cost`` holds the same when it spent anything), or None for a call
    refused before any provider was tried. An implementation may take any subset of these
    arguments (pluggy passes only the ones it names).
    """
