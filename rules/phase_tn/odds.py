"""Exact odds of a *Phase/TN Combat Sequence* shot, from the distribution of the game's dice."""

from __future__ import annotations

from .. import odds as _odds
from ..system import AttackRequest
from .attack import attack_setup


def odds(request: AttackRequest, settings: dict | None = None) -> dict:
    """Exact chance to hit, and for a called shot to hit the called area ("Ranged Attacks")."""
    setup = attack_setup(request, settings)
    s, tn, called_tn = setup["settings"], setup["tn"], setup["called_tn"]
    bonus = sum(m.value for m in setup["modifiers"])
    dist = _odds.convolve(_odds.distribution(s["roll_dice"]), {bonus: 1.0})
    out = {"hit": _odds.at_least(dist, tn), "tn": tn, "modifiers": [m.to_dict() for m in setup["modifiers"]]}
    if setup["called"]:
        out["called_location"] = _odds.at_least(dist, called_tn)
        out["partial"] = out["hit"] - out["called_location"]
    return out
