"""An ``after_dispatch`` hook that keeps ``(capability, cost, meta.cost)`` of every call."""

from __future__ import annotations

from typing import Any

SEEN: list[tuple[str, Any, Any]] = []


def register(ctx: Any) -> None:
    """This plugin registers no provider; it only observes."""


def after_dispatch(capability: str, envelope: dict[str, Any], cost: dict[str, Any] | None) -> None:
    SEEN.append((capability, cost, (envelope.get("meta") or {}).get("cost")))
