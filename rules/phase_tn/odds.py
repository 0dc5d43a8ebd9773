"""Exact odds of a *Phase/TN Combat Sequence* shot, from the distribution of the game's dice."""

from __future__ import annotations

from collections import defaultdict

from .. import odds as _odds
from ..system import AttackRequest, RuleError
from .attack import attack_setup, hits_for, landing
from .targeting import called_shot_drift_with


def odds(request: AttackRequest, settings: dict | None = None) -> dict:
    """Exact chances of a shot ("Ranged Attacks", "Special Ranged Attacks").

    ``hit``: the total reaches the TN. ``hits``: the chance of each number
    of hits (bursts and full auto score extra hits by margin). ``locations``:
    where the (first) hit lands, summing to ``hit``, with the called area's
    drift or the hit-location table and the impossible locations skipped;
    ``blocked`` is the chance of a hit with no area left to land on. For a
    called shot, ``called_location`` is the chance to reach the called TN and
    ``partial`` the chance of a hit short of it.
    """
    setup = attack_setup(request, settings)
    s, tn, called, called_tn = setup["settings"], setup["tn"], setup["called"], setup["called_tn"]
    bonus = sum(m.value for m in setup["modifiers"])
    dist = _odds.convolve(_odds.distribution(s["roll_dice"]), {bonus: 1.0})
    out = {"hit": _odds.at_least(dist, tn), "tn": tn, "modifiers": [m.to_dict() for m in setup["modifiers"]]}
    hits: dict[int, float] = defaultdict(float)
    for total, p in dist.items():
        hits[hits_for(total, setup)] += p
    out["hits"] = dict(sorted(hits.items()))
    impossible = set((request.options or {}).get("impossible_locations", ()))
    first_arm = s["drift_first_arm"]
    locations: dict[str, float] = defaultdict(float)
    if called:
        for total, p in dist.items():
            if total >= tn:
                locations[landing(called_shot_drift_with(called, max(0, called_tn - total), first_arm), impossible, first_arm)] += p
        out["called_location"] = _odds.at_least(dist, called_tn)
        out["partial"] = out["hit"] - out["called_location"]
    else:
        table = _odds.distribution(s["hit_location_dice"])
        for roll, p in table.items():
            area = next((loc for low, high, loc in s["hit_location_table"] if low <= roll <= high), None)
            if area is None:
                raise RuleError(f"the hit-location table has no entry for {roll}")
            locations[landing(area, impossible, first_arm)] += p * out["hit"]
    out["blocked"] = locations.pop(None, 0.0)
    out["locations"] = dict(locations)
    return out
