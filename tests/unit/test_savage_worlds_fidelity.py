"""Savage Worlds: the fidelity fixes, each checked against the words of
*Savage Worlds Combat System Reference*, "Area Effect Attacks" and "Melee Attacks"."""

from hypothesis import given, settings, strategies as st

from rules import savage_worlds as sw
from rules.dice import ScriptedDice, SeededDice
from rules.system import AttackRequest, Combatant

S = sw.SYSTEM


def tok(id, side, pos, **kw):
    s = S.default_sheet()
    s["edges"] = []
    s.update(kw)
    return Combatant(id, id, s, pos, side)


def thrower(pos=(0, 5)):
    a = tok("ann", "pc", pos)
    a.sheet["weapons"]["Grenade"] = {"damage": "3d6", "range": "5/10/20", "thrown": True}
    a.sheet["weapons"]["Grenade launcher"] = {"damage": "3d6", "range": "24/48/96"}
    a.sheet["weapons"]["Old mortar"] = {"damage": "3d6", "range": "24/48/96", "launched": False}
    return a


def attack(req, faces):
    dice = ScriptedDice(faces)
    r = S.attack(req, dice)
    assert dice.remaining == [], "every scripted face is used"
    return r


def test_a_blast_hits_the_attacker_and_allies_under_it():
    """"Success = hits all in template" and "Damage rolled per target
    individually": no exception for the thrower or its friends."""
    a = thrower((0, 5))
    foe = tok("foe", "npc", (2, 5))
    friend = tok("friend", "pc", (1, 4))
    req = AttackRequest(a, foe, "Grenade", options={"template": "medium", "centre": (2, 5)}, others=[friend])
    # Athletics 4 (Wild Die 1): a hit without a raise; 3d6 per target: foe, friend, then the thrower
    r = attack(req, [4, 1, 3, 3, 3, 2, 2, 2, 4, 4, 4])
    hit = {t["target"]: t for t in r.details["targets"]}
    assert list(hit) == ["foe", "friend", "ann"]
    assert hit["foe"]["damage"] == 9 and hit["foe"]["shaken"]      # 9 vs Toughness 7: Shaken
    assert hit["friend"]["damage"] == 6 and not hit["friend"]["shaken"]
    assert hit["ann"]["damage"] == 12 and hit["ann"]["wounds"] == 1  # a raise over 7: a Wound
    assert ("wounds", "ann") in [(e.kind, e.target) for e in r.effects]
    assert S.apply(a.sheet, r, "ann")["wounds"] == 1


def test_a_missed_blast_deviating_back_onto_the_thrower_hits_it():
    """"Failure with blast: Deviation — d6" (thrown) ... ×2 at Medium range
    ... Direction: d12 as clock face. Max deviation = half distance to
    target": the blast lands where it deviates to and hits all there, the
    thrower too."""
    a = thrower((0, 5))
    foe = tok("foe", "npc", (6, 5))
    req = AttackRequest(a, foe, "Grenade", options={"template": "large", "centre": (6, 5)})
    # Athletics 2 -2 (Medium range), Wild 3 -2: a miss. d6 3 x2 = 6", capped at 6/2 = 3";
    # d12 6: 6 o'clock, straight back toward the thrower: the Large Blast lands on (3, 5)
    r = attack(req, [2, 3, 3, 6, 1, 1, 1, 5, 5, 5])
    assert not r.hit and r.details["centre"] == (3, 5)
    assert r.details["deviation"]["inches"] == 3 and not r.details["deviation"]["launched"]
    hit = {t["target"]: t for t in r.details["targets"]}
    assert set(hit) == {"foe", "ann"}
    assert hit["ann"]["damage"] == 15 and hit["ann"]["bonus"] == 0 and hit["ann"]["wounds"] == 2


def test_a_weapon_fired_with_shooting_deviates_as_launched():
    """"d6" (thrown) or 2d6" (launched)": a grenade launcher is fired with
    Shooting, so a miss deviates 2d6"."""
    a = thrower((0, 0))
    foe = tok("foe", "npc", (10, 0))
    req = AttackRequest(a, foe, "Grenade launcher", options={"template": "small", "centre": (10, 0)})
    # Shooting 2, Wild 1: a miss (no critical failure). 2d6 = 3 + 4 = 7", capped at 10/2 = 5"; 12 o'clock
    r = attack(req, [2, 1, 3, 4, 12])
    dev = r.details["deviation"]
    assert dev["launched"] and dev["rolled_inches"] == 7 and dev["inches"] == 5
    assert r.details["centre"] == (15, 0)
    assert [x.expr for x in r.rolls][2] == "2d6"


def test_the_sheet_can_say_a_shooting_weapon_is_not_launched():
    """The same miss with a weapon the sheet marks ``launched: false`` deviates d6"."""
    a = thrower((0, 0))
    foe = tok("foe", "npc", (10, 0))
    req = AttackRequest(a, foe, "Old mortar", options={"template": "small", "centre": (10, 0)})
    r = attack(req, [2, 1, 3, 12])
    assert not r.details["deviation"]["launched"] and r.details["centre"] == (13, 0)
    assert [x.expr for x in r.rolls][2] == "d6"


def test_a_thrown_weapon_deviates_d6():
    """A grenade thrown with Athletics deviates d6"."""
    a = thrower((0, 0))
    foe = tok("foe", "npc", (4, 0))
    req = AttackRequest(a, foe, "Grenade", options={"template": "small", "centre": (4, 0)})
    r = attack(req, [1, 2, 1, 12, 1, 1, 1])  # 1" straight on: the foe is still under it
    assert [x.expr for x in r.rolls][2] == "d6" and r.details["centre"] == (5, 0)


cells = st.tuples(st.integers(0, 9), st.integers(0, 9))


@settings(max_examples=60, deadline=None)
@given(cells, cells, st.lists(cells, max_size=4), st.sampled_from(["small", "medium", "large"]),
       st.integers(0, 10**6))
def test_whoever_stands_under_the_landed_blast_is_hit(attacker_at, centre, others_at, size, seed):
    """Invariant of "Success = hits all in template" (and of a deviated
    blast): the tokens hit are exactly those standing on the template's
    squares, whoever they are."""
    a = thrower(attacker_at)
    foe = tok("foe", "npc", centre)
    others = [tok(f"o{i}", "pc" if i % 2 else "npc", p) for i, p in enumerate(others_at)]
    req = AttackRequest(a, foe, "Grenade launcher", options={"template": size, "centre": centre}, others=others)
    r = S.attack(req, SeededDice(seed))
    if not r.hit and r.details["deviation"] is None:
        return  # only a failed cone or line misses everyone
    under = set(map(tuple, r.details["cells"]))
    expected = {c.id for c in [a, foe, *others] if tuple(c.position) in under}
    assert {t["target"] for t in r.details["targets"]} == expected


def test_natural_weapons_arm_the_attacker_against_an_unarmed_defender():
    """"Unarmed Defender: Armed attacker gets +2 to Fighting if target has no
    weapon/shield". A defender with claws counts as armed (it gives no +2),
    so an attacker with claws is armed too; a plain unarmed attack is not."""
    wolf = tok("wolf", "npc", (0, 0), weapons={"Bite": {"damage": "Str+d6", "natural": True}})
    monk = tok("monk", "pc", (1, 0), weapons={})
    r = attack(AttackRequest(wolf, monk, "Bite"), [4, 1, 1, 1])
    assert {m.label: m.value for m in r.modifiers}["Unarmed defender"] == 2
    r = attack(AttackRequest(wolf, monk, None), [4, 1])
    assert "Unarmed defender" not in {m.label for m in r.modifiers}
