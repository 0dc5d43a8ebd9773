"""The registry of game systems.

Built-in systems live in this package, one module each, exposing ``SYSTEM``.
Third-party packages add a system through the entry-point group
``tacmap.rules``; the entry point names an object that implements
:class:`rules.system.RuleSystem` (or a zero-argument callable returning one).
"""

from __future__ import annotations

import importlib
import logging
from importlib.metadata import entry_points

from .system import PlainGrid, RuleSystem

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "tacmap.rules"

#: built-in system modules, in the order the lobby lists them
BUILTIN_MODULES: tuple[str, ...] = ("savage_worlds", "gurps_lite", "tesseris_ads", "atomic_tomorrow", "phase_tn")

_registry: dict[str, RuleSystem] | None = None


def _check(system: object, origin: str) -> RuleSystem:
    if not isinstance(system, RuleSystem):
        raise TypeError(f"{origin} does not implement the rule-system interface")
    return system


def _load() -> dict[str, RuleSystem]:
    found: dict[str, RuleSystem] = {}
    for name in BUILTIN_MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        system = _check(module.SYSTEM, f"rules.{name}")
        found[system.id] = system
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            system = _check(obj() if isinstance(obj, type) or not hasattr(obj, "id") else obj, ep.value)
        except Exception:  # a broken plug-in must not take the app down
            log.exception("could not load game system %s from %s", ep.name, ep.value)
            continue
        if system.id in found:
            log.warning("game system id %r from %s is taken; ignored", system.id, ep.value)
            continue
        found[system.id] = system
    plain = PlainGrid()
    found[plain.id] = plain
    return found


def systems() -> list[RuleSystem]:
    """Every registered system, built-ins first, the plain grid last."""
    global _registry
    if _registry is None:
        _registry = _load()
    return list(_registry.values())


def get(system_id: str) -> RuleSystem:
    """The system with this id; KeyError names the ids there are."""
    systems()
    assert _registry is not None
    try:
        return _registry[system_id]
    except KeyError:
        raise KeyError(f"unknown game system {system_id!r}; known: {', '.join(_registry)}") from None


def reset() -> None:
    """Forget the loaded systems (tests that install a plug-in)."""
    global _registry
    _registry = None
