"""Choosing the backend for a call — one resolver, driven by manifest data.

Order, per capability: the call's ``backend=`` argument; ``web.<capability>_backend``;
``web.backend`` (the shared fallback, used only where it supports the capability); then
auto-detection by manifest priority. A named backend that cannot run is an error that says
why; it never silently becomes another vendor.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from ..config import MAX_TIMEOUT, BackendSpec, backend_names
from ..errors import InvalidInputError, NotConfiguredError, UnsupportedError, WebProviderError
from ..manifest import PRIORITY_KEYLESS, Capability
from ..registry.providers import Registry
from ..registry.registration import ProviderEntry
from ..validate import shown

#: ``mode=`` values a call may pass.
MODES = ("chain", "fuse")

Mode = Literal["single", "chain", "fuse"]


class LeftOut(NamedTuple):
    """A chain member the plan left out, and where it stood: ``before`` is the index of the
    candidate it came before (``len(candidates)`` when none followed), so ``meta.attempts``
    can list it in chain order."""

    name: str
    code: str
    reason: str
    before: int


@dataclass
class Plan:
    """What dispatch will try, and why."""

    capability: Capability
    candidates: list[str]
    mode: Mode
    #: Where the choice came from: ``argument``, ``web.search_backend``, ``web.backend``, ``auto-detect``.
    source: str
    requested: Any = None
    #: Providers of a chain left out up front, with the reason (recorded as skipped attempts).
    skipped: list[LeftOut] = field(default_factory=list)
    #: The later candidates only stand in for one that cannot run (``not_configured``); a
    #: page-level failure stays with the provider that had it, as with a single backend.
    standby: bool = False


def _parse(spec: BackendSpec, registry: Registry) -> tuple[list[str], Mode]:
    """The providers a backend choice names (``Brave`` is ``brave``), each once (a provider
    named twice, as a composed ``${PRIMARY},brave`` may, is asked and paid for once, and fused
    once), and its mode."""
    names = list(dict.fromkeys(registry.named(name) for name in backend_names(spec)))
    if isinstance(spec, dict):
        return names, "fuse"
    if isinstance(spec, str):
        return names, "single" if len(names) == 1 else "chain"
    return names, "chain"


def _unknown(name: str, registry: Registry, source: str) -> WebProviderError:
    """A name no provider has: the caller's mistake (``invalid_input``) when the call's own
    ``backend=`` gave it and no plugin could provide it; else a set-up to fix (a plugin turned
    off, not enabled or failing to load, a config naming no provider): ``not_configured``."""
    sentence, mistaken = registry.why_unknown(name)
    if mistaken and source == "argument":
        return InvalidInputError(sentence, provider=name)
    return NotConfiguredError(sentence, provider=name)


def _capable(registry: Registry, capability: Capability) -> list[str]:
    return [e.manifest.name for e in registry.entries() if registry.supports(e, capability)]


def _check_single(name: str, capability: Capability, registry: Registry, source: str) -> None:
    entry = registry.get(name)
    if entry is None:
        raise _unknown(name, registry, source)
    available, reason = registry.availability(entry, load=True)  # its code may state its facts anew
    if not registry.supports(entry, capability):
        able = ", ".join(_capable(registry, capability)) or "none installed"
        raise UnsupportedError(
            f"Backend '{name}' cannot {capability}. Backends that can: {able}.", provider=name
        )
    if not available:
        raise NotConfiguredError(f"Backend '{name}' is not available: {reason}.", provider=name)


def _explicit(
    spec: BackendSpec, capability: Capability, registry: Registry, source: str
) -> Plan:
    names, mode = _parse(spec, registry)
    if not names:
        raise NotConfiguredError(f"The backend given in {source} names no provider.")
    if mode == "single":
        _check_single(names[0], capability, registry, source)
        return Plan(capability, names, mode, source, spec)
    plan = Plan(capability, [], mode, source, spec)
    unset: NotConfiguredError | None = None
    for name in names:
        entry = registry.get(name)
        if entry is None:
            sentence, mistaken = registry.why_unknown(name)
            if mistaken:  # the name is what to fix
                raise _unknown(name, registry, source)
            # Its plugin is turned off, not enabled or failed to load: a set-up to fix, which
            # leaves the member out as a missing key does. Before, the whole chain failed.
            plan.skipped.append(LeftOut(name, "not_configured", sentence, len(plan.candidates)))
            unset = unset or NotConfiguredError(sentence, provider=name)
            continue
        if not registry.supports(entry, capability):
            plan.skipped.append(LeftOut(name, "unsupported", f"'{name}' cannot {capability}", len(plan.candidates)))
            continue
        plan.candidates.append(name)
    if not plan.candidates:
        raise unset or UnsupportedError(
            f"None of the backends in {source} ({', '.join(names)}) can {capability}."
        )
    return plan


def _shared_fallback(spec: BackendSpec, capability: Capability, registry: Registry) -> Plan | None:
    """``web.backend`` applies only to capabilities its providers have."""
    names, _ = _parse(spec, registry)
    for name in names:
        if registry.get(name) is None and registry.why_unknown(name)[1]:
            raise _unknown(name, registry, "web.backend")
    # a member whose plugin is off stays in, for the plan to leave out saying why
    capable = [n for n in names if (e := registry.get(n)) is None or registry.supports(e, capability)]
    if not capable:
        return None
    if isinstance(spec, dict):
        return _explicit({"fuse": capable}, capability, registry, "web.backend")
    return _explicit(capable if len(capable) > 1 else capable[0], capability, registry, "web.backend")


def ranked(capability: Capability, registry: Registry) -> list[ProviderEntry]:
    """The providers auto-detection may choose for ``capability``, best priority first."""
    return sorted(
        (e for e in registry.entries() if e.manifest.auto_detect and registry.supports(e, capability)),
        key=lambda e: (e.manifest.priority, e.manifest.name),
    )


def auto_detect(capability: Capability, registry: Registry, candidates: list[ProviderEntry] | None = None) -> Plan:
    """The best available provider by manifest priority (keyed, then self-hosted, then keyless).

    A keyless extract or crawl is a standby chain of every available keyless provider, so one
    that turns out unable to run at call time hands over to the next. Search stays one
    engine: another keyless engine would answer in another language and ranking.
    ``candidates`` is :func:`ranked`'s answer, when the caller keeps it.
    """
    ranked_entries = ranked(capability, registry) if candidates is None else candidates
    reasons: list[str] = []
    chosen: list[str] = []
    for entry in ranked_entries:
        available, reason = registry.availability(entry, load=True)
        if not available:
            reasons.append(f"{entry.manifest.name}: {reason}")
            continue
        chosen.append(entry.manifest.name)
        if capability == "search" or entry.manifest.priority < PRIORITY_KEYLESS:
            break
    if chosen:
        mode: Mode = "chain" if len(chosen) > 1 else "single"
        return Plan(capability, chosen, mode, "auto-detect", standby=mode == "chain")
    detail = "; ".join(reasons[:6]) if reasons else "no installed provider can"
    raise NotConfiguredError(
        f"No {capability} backend is available ({detail}). Configure one, "
        "e.g. set web.backend or the provider's API key."
    )


def resolve(
    capability: Capability,
    backend: BackendSpec | None,
    registry: Registry,
    candidates: list[ProviderEntry] | None = None,
) -> Plan:
    """The plan for one call; raises a :class:`WebProviderError` when nothing suitable exists."""
    web = registry.config.web
    if backend is not None and backend != "" and backend != []:
        return _explicit(backend, capability, registry, "argument")
    per_capability = getattr(web, f"{capability}_backend")
    if per_capability is not None:
        return _explicit(per_capability, capability, registry, f"web.{capability}_backend")
    if web.backend is not None:
        plan = _shared_fallback(web.backend, capability, registry)
        if plan is not None:
            return plan
    return auto_detect(capability, registry, candidates)


def check_mode(mode: Any) -> None:
    """A call's ``mode=`` is None, ``"chain"`` or ``"fuse"`` (checked before it keys a kept plan:
    a list or a dict there is no key)."""
    if mode is not None and (not isinstance(mode, str) or mode not in MODES):
        raise InvalidInputError(f"mode must be 'chain' or 'fuse', not {shown(mode)}.")


def with_mode(plan: Plan, mode: str | None) -> Plan:
    """``mode="fuse"`` merges the resolved providers; ``mode="chain"`` tries them in turn."""
    check_mode(mode)
    if mode is None:
        return plan
    if mode == "fuse" and plan.capability != "search":
        raise InvalidInputError("mode='fuse' merges search results; extract and crawl take a chain instead.")
    if mode == "fuse" or len(plan.candidates) > 1 or plan.mode == "fuse":  # a fusion of one is unfused too
        return dataclasses.replace(plan, mode=mode)  # type: ignore[arg-type]
    return plan


def slow_provider_allowance(plan: Plan, registry: Registry) -> float:
    """Extra seconds for a plan whose providers need longer than ``web.timeout``.

    For calls where neither the call nor the config chose a deadline: a provider's manifest
    ``timeout`` or its configured ``web.providers.<name>.timeout`` then sets the call's.
    """
    budget = registry.config.web.timeout
    longest = budget
    for name in plan.candidates:
        entry = registry.get(name)
        if entry is not None:
            own = registry.config.provider(name).timeout or entry.manifest.timeout or 0.0
            longest = max(longest, min(own, MAX_TIMEOUT))
    return longest - budget


class Planner:
    """The plans of one registry's calls, kept per capability, backend and mode.

    A plan that names its providers depends only on the config and the manifests, so it is
    resolved once (again after a plugin's code loads, which may restate its facts); whether
    a single named provider can run is asked again for every call, and auto-detection, which
    chooses by what can run now, only keeps its ranking.
    """

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._version = registry.version
        #: (capability, backend, mode) -> (plan, seconds its slow providers add to the deadline)
        self._plans: dict[tuple[str, str | None, str | None], tuple[Plan, float]] = {}
        self._ranked: dict[str, list[ProviderEntry]] = {}

    def plan(self, capability: Capability, backend: BackendSpec | None, mode: str | None) -> tuple[Plan, float]:
        """The call's plan and the deadline allowance of its slow providers (raises like :func:`resolve`)."""
        if mode is not None:
            check_mode(mode)
        registry = self.registry
        if self._version != registry.version:
            self._plans, self._ranked, self._version = {}, {}, registry.version
        key = (capability, backend, mode) if backend is None or isinstance(backend, str) else None
        kept = self._plans.get(key) if key is not None else None
        if kept is not None:
            plan = kept[0]
            if plan.mode == "single":
                _check_single(plan.candidates[0], capability, registry, plan.source)
            return kept
        candidates = self._ranked.get(capability)
        if candidates is None:
            candidates = self._ranked[capability] = ranked(capability, registry)
        plan = with_mode(resolve(capability, backend, registry, candidates), mode)
        found = (plan, slow_provider_allowance(plan, registry))
        if key is not None and plan.source != "auto-detect" and self._version == registry.version:
            self._plans[key] = found
        return found
