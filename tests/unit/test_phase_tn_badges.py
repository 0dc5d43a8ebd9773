"""phase_tn: badges on the token, the fields a player may not set, sheet validation."""

import pytest

from rules import phase_tn as pt
from rules.dice import ScriptedDice
from rules.system import Combatant, RuleError

SYSTEM = pt.SYSTEM


def test_badges_show_wounds_their_effects_and_the_penalty():
    """"Damage and Wounds": flesh and traumatic wounds (effects and penalty: settings)."""
    sheet = {**SYSTEM.default_sheet(), "flesh": 4, "trauma": {"left arm": 1}}
    assert SYSTEM.badges(sheet) == [
        {"label": "4/15 flesh wounds", "kind": "wound"},
        {"label": "trauma: left arm", "kind": "wound"},
        {"label": "left arm useless", "kind": "condition"},
        {"label": "-2 to rolls", "kind": "condition"},
    ]
    assert SYSTEM.badges(SYSTEM.default_sheet()) == []
    down = {**SYSTEM.default_sheet(), "flesh": 15}
    assert {"label": "down", "kind": "condition"} in SYSTEM.badges(down)


def test_badges_show_the_fight_books_of_the_token():
    """Surprised ("Combat Sequence"), waiting on an action ("Initiative and Actions"),
    Targeting and on whom ("Ranged Attacks")."""
    cs = [Combatant("ann", "Ann", SYSTEM.default_sheet()),
          Combatant("bob", "Bob", SYSTEM.default_sheet(), state={"surprised": True})]
    up = SYSTEM.begin_fight(cs, ScriptedDice([5]))
    assert {"label": "surprised", "kind": "condition"} in SYSTEM.badges(cs[1].sheet, up.state["combatants"]["bob"])
    up = SYSTEM.act(up.state, cs[0], "declare:target_and_fire", cs, ScriptedDice([]), options={"target": "bob"})
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([4]))  # the Targeting step resolves
    labels = [b["label"] for b in SYSTEM.badges(cs[0].sheet, up.state["combatants"]["ann"])]
    assert labels == ["waiting: Target and fire at Bob", "Targeting Bob"]


def test_wounds_are_the_gms_and_bad_sheets_are_refused_naming_the_field():
    assert set(SYSTEM.gm_only_fields) == {"flesh", "trauma"}
    SYSTEM.validate_sheet(SYSTEM.default_sheet())
    bad = [
        ({"attributes": {"reflexes": "high"}}, "attributes.reflexes"),
        ({"attributes": {"luck": 3}}, "attributes.luck"),
        ({"skills": {"handguns": -1}}, "skills.handguns"),
        ({"flesh": -2}, "flesh"),
        ({"trauma": {"tail": 1}}, "trauma.tail"),
        ({"weapons": [{"name": "Gun", "mode": "burst"}]}, "weapons.Gun.mode"),
        ({"weapons": [{"name": "Gun", "damage": "lots"}]}, "weapons.Gun.damage"),
        ({"weapons": [{"name": "Gun"}, {"name": "Gun"}]}, "two weapons named"),
    ]
    for change, field in bad:
        with pytest.raises(RuleError, match=field.replace(".", r"\.")):
            SYSTEM.validate_sheet({**SYSTEM.default_sheet(), **change})
