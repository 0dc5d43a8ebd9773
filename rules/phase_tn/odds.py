"""Exact odds of a *Phase/TN Combat Sequence* shot, from the distribution of the game's dice."""

from __future__ import annotations

from collections import defaultdict
from math import comb

from .. import odds as _odds
from ..system import AttackRequest, RuleError
from ..text import say, say_n
from .attack import attack_setup, hits_for, landing
from .data import LOCATION_WORDS
from .targeting import called_shot_drift_with

#: lines less likely than this are float noise, not outcomes
TINY = 1e-12


def _table_landing(s: dict, impossible: set[str]) -> dict[str | None, float]:
    """Where one randomly located hit lands (None: no area can be hit), from the hit-location table."""
    out: dict[str | None, float] = defaultdict(float)
    for roll, p in _odds.distribution(s["hit_location_dice"]).items():
        area = next((loc for low, high, loc in s["hit_location_table"] if low <= roll <= high), None)
        if area is None:
            raise RuleError(say("the hit-location table has no entry for {roll}", roll=roll))
        out[landing(area, impossible, s["drift_first_arm"])] += p
    return dict(out)


def odds(request: AttackRequest, settings: dict | None = None) -> dict:
    """Exact chances of a shot ("Ranged Attacks", "Special Ranged Attacks").

    ``outcomes``: "miss", then for a single shot "hit: <area>" for each area
    the hit can land on (the called area, its drift on a partial success, or
    the hit-location table, impossible areas skipped along the drift order),
    for a burst or full auto "hit: <n> hits" (hits that land), and "blocked"
    when the TN is reached but no area can be hit. ``hit``: the chance that a
    hit lands, :attr:`AttackResult.hit` of :func:`.attack.attack`. Besides:
    ``reach`` (the total reaches the TN), ``hits`` (hits scored, bursts by
    margin), ``locations`` (where the first hit lands, summing to ``hit``),
    ``blocked``, and for a called shot ``called_location`` (the called TN is
    reached) and ``partial`` (a hit short of it).
    """
    setup = attack_setup(request, settings)
    s, tn, called, called_tn = setup["settings"], setup["tn"], setup["called"], setup["called_tn"]
    bonus = sum(m.value for m in setup["modifiers"])
    dist = _odds.convolve(_odds.distribution(s["roll_dice"]), {bonus: 1.0})
    reach = _odds.at_least(dist, tn)
    out: dict = {"tn": tn, "reach": reach, "modifiers": [m.to_dict() for m in setup["modifiers"]]}
    hits: dict[int, float] = defaultdict(float)
    for total, p in dist.items():
        hits[hits_for(total, setup)] += p
    out["hits"] = dict(sorted(hits.items()))
    impossible = set((request.options or {}).get("impossible_locations", ()))
    first_arm = s["drift_first_arm"]
    locations: dict[str | None, float] = defaultdict(float)
    landed: dict[int, float] = defaultdict(float)  # hits that land -> chance, given the TN is reached
    if called:
        for total, p in dist.items():
            if total >= tn:
                drift = called_shot_drift_with(called, max(0, called_tn - total), first_arm)
                area = landing(drift, impossible, first_arm)
                locations[area] += p
                landed[0 if area is None else 1] += p
        out["called_location"] = _odds.at_least(dist, called_tn)
        out["partial"] = reach - out["called_location"]
    else:
        one = _table_landing(s, impossible)
        q = 1.0 - one.get(None, 0.0)
        for area, p in one.items():
            locations[area] += p * reach
        for k, p in hits.items():
            for n in range(k + 1):
                if k:
                    landed[n] += p * comb(k, n) * q ** n * (1 - q) ** (k - n)
    blocked = landed.pop(0, 0.0)
    locations.pop(None, None)
    out["hit"] = reach - blocked
    out["blocked"] = blocked
    out["locations"] = dict(locations)
    if not called:
        # the first hit's area: given that some hit lands, the first landed one has the table's
        # distribution over the areas that can be hit
        q = sum(locations.values()) / reach if reach else 0.0
        out["locations"] = {a: (p / reach / q) * out["hit"] if q else 0.0 for a, p in locations.items()}
    outcomes = [{"label": say("miss"), "p": max(0.0, 1.0 - reach)}]
    if setup["mode"] == "single":
        outcomes += [{"label": say("hit: {location}", location=LOCATION_WORDS.get(area, area)), "p": p}
                     for area, p in out["locations"].items() if p > TINY]
    else:
        outcomes += [{"label": say_n("hit: {n} hit", "hit: {n} hits", n), "p": p}
                     for n, p in sorted(landed.items()) if p > TINY]
    if blocked > TINY:
        outcomes.append({"label": say("blocked"), "p": blocked})
    rest = sum(o["p"] for o in outcomes[1:])
    outcomes[0]["p"] = max(0.0, 1.0 - rest)  # the lines sum to 1 exactly, float noise on the miss line
    out["outcomes"] = outcomes
    return out
