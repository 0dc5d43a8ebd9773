"""The 3d6 system's flanking (#67; the readings' "Flanking", setting ``flanking``): the document keeps no facing, so
with the setting on a defender attacked from the far side of it from another foe beside it defends at -2, as against
an attack from the side; the odds, the defense's roll and the choices say it."""

from __future__ import annotations

import pytest

from rules import gurps_lite as g
from rules.grid import Grid, Place
from rules.gurps_lite.checks import success_chance
from rules.gurps_lite.defenses import AttackInfo, flanked
from rules.gurps_lite.movement import flanks
from rules.system import AttackRequest, Combatant

from test_gurps_lite_combat import rolls, sheet

ON = {"flanking": True}
DEFENDER = (5, 5)
ALLY = (4, 5)  # the attacker's ally beside the defender, on its west


def _request(attacker_at, ally_at=ALLY, settings=None, defense="best", ally_sheet=None):
    a = Combatant("a", "Orc", sheet(), position=attacker_at, side="npc")
    t = Combatant("t", "Ann", sheet(), position=DEFENDER, side="pc")
    others = [Combatant("o", "Gob", ally_sheet or sheet(), position=ally_at, side="npc")]
    return AttackRequest(a, t, "Sword", distance=1, options={"defense": defense, "settings": settings or {}},
                         others=others)


def test_the_setting_is_off_by_default_and_named_with_its_reading():
    assert g.default_settings()["flanking"] is False
    assert any(title == "Flanking" and setting == "flanking" for title, _text, setting in g.SYSTEM.readings)


@pytest.mark.parametrize("attacker, expected", [
    ((6, 5), True),  # straight across: 180 degrees
    ((6, 4), True), ((6, 6), True),  # the squares beside that one: 135 degrees
    ((5, 4), False), ((5, 6), False),  # beside the ally's line: 90 degrees
    ((4, 4), False), ((4, 6), False),  # on the ally's side: 45 degrees
    ((9, 5), True),  # far off across, a shot from the far side
])
def test_flanks_on_squares_from_135_degrees(attacker, expected):
    assert flanks(DEFENDER, attacker, ALLY) is expected


@pytest.mark.parametrize("orientation", ("pointy", "flat"))
def test_flanks_on_hexes_only_from_the_opposite_hex(orientation):
    grid = Grid("hex", orientation)
    here = (5, 5)
    around = grid.neighbours(here)
    cube = grid.cube(here)
    for ally in around:
        aq, ar, _ = grid.cube(ally)
        opposite = grid.from_cube((2 * cube[0] - aq, 2 * cube[1] - ar, -(2 * cube[0] - aq) - (2 * cube[1] - ar)))
        for attacker in around:
            if attacker == ally:
                continue
            assert flanks(Place(here, grid), Place(attacker, grid), Place(ally, grid)) is (attacker == opposite), \
                (ally, attacker, opposite)


def test_flanked_needs_a_standing_ally_of_the_attacker_beside_the_defender():
    assert flanked(_request((6, 5)))
    assert not flanked(_request((5, 4)))  # from the side of the ally: no
    assert not flanked(_request((6, 5), ally_at=(3, 5)))  # the ally not beside the defender
    assert not flanked(_request((6, 5), ally_sheet=sheet(conditions=["unconscious"])))  # the ally is down
    other_side = _request((6, 5))
    other_side.others[0].side = "pc"  # the defender's own ally behind it flanks nobody
    assert not flanked(other_side)


def _defense_level(odds) -> int:
    return odds["defense_level"]


def test_the_defense_is_minus_2_only_with_the_setting_on_and_only_from_the_far_side():
    off = g.attack_odds(_request((6, 5)))
    on = g.attack_odds(_request((6, 5), settings=ON))
    side = g.attack_odds(_request((5, 4), settings=ON))
    assert _defense_level(on) == _defense_level(off) - 2
    assert _defense_level(side) == _defense_level(off)
    assert on["hit"] > off["hit"] and side["hit"] == off["hit"]
    # the odds card names it beside the roll's modifiers, only when it applies
    said = [m for m in on["modifiers"] if "flanked" in str(m["label"])]
    assert [m["value"] for m in said] == [-2] and "defense" in str(said[0]["label"])
    assert not any("flanked" in str(m["label"]) for m in off["modifiers"] + side["modifiers"])


def test_the_odds_change_by_exactly_the_minus_2():
    on = g.attack_odds(_request((6, 5), settings=ON))
    best = g.available_defenses(sheet(), {}, AttackInfo(distance=1, attacker_id="a"))[0]
    pick = {k: v for k, v in best.items() if k in ("type", "weapon")}
    # the same defense at a GM's -2, unflanked: the same odds to the last digit
    by_hand = g.attack_odds(_request((5, 4), settings=ON, defense={**pick, "modifier": -2}))
    assert on["defense_level"] == by_hand["defense_level"] == best["level"] - 2
    assert on["p_defense"] == success_chance(best["level"] - 2)
    assert on["hit"] == by_hand["hit"]
    assert [(str(o["label"]), o["p"]) for o in on["outcomes"]] == [(str(o["label"]), o["p"]) for o in by_hand["outcomes"]]


def test_the_defense_roll_and_the_choices_say_it():
    """The result keeps the defense's roll with its modifiers, flanked among them, as it keeps the others (feinted,
    stunned), and its words say it; the defender's choices are each 2 lower."""
    result = g.attack(_request((6, 5), settings=ON, defense="dodge"), rolls(8, 10, 10, 10, 10, 10))
    checks = result.details["attacks"][0]["defense"]["checks"]
    mods = [(str(m["label"]), m["value"]) for m in checks[0]["modifiers"]]
    assert ("flanked: attacked from the side", -2) in mods
    plain = g.attack(_request((6, 5), defense="dodge"), rolls(8, 10, 10, 10, 10, 10))
    assert checks[0]["effective"] == plain.details["attacks"][0]["defense"]["checks"][0]["effective"] - 2
    # the result's words (its card, its log line) say it after the defense, and only then
    assert "dodge (flanked, -2)" in str(result.summary), str(result.summary)
    assert "flanked" not in str(plain.summary)

    def dodge(choices) -> int:
        label = str(next(c for c in choices if c["key"] == "dodge")["label"])
        return int(label.rsplit("(", 1)[1].rstrip(")"))
    on = g.SYSTEM.defenses(_request((6, 5), settings=ON))
    off = g.SYSTEM.defenses(_request((6, 5)))
    assert dodge(on) == dodge(off) - 2
