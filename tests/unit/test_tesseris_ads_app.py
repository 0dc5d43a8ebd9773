"""Tesseris on the map (wave 2): the odds the app shows, the fight's books after an
attack, moves against the ticks and Speed, badges and the sheet fields the GM sets."""

from __future__ import annotations

import json
import math

import pytest

from rules.dice import SeededDice
from rules.system import AttackRequest, Combatant
from rules.tesseris_ads import SYSTEM
from rules.tesseris_ads.odds import outcome_label


def sheet(**kw):
    s = SYSTEM.default_sheet()
    s.update(kw)
    return s


def req(a, t, weapon, distance=1, **options):
    return AttackRequest(attacker=a, target=t, weapon=weapon, distance=distance, options=options)


SCENARIOS = {
    "knife": dict(weapon="knife", distance=1),
    "club, impact": dict(weapon="club", distance=1),
    "rifle burst": dict(weapon="rifle", distance=5, action="burst_fire", defense="dodge"),
    "pistol, tired target": dict(weapon="pistol", distance=3, target=dict(stamina=3, wounds=2)),
    "criticals on the attack": dict(weapon="knife", distance=1, settings={"critical_basis": "attack"}, attacker=dict(agility=6)),
    "no defense": dict(weapon="pistol", distance=2, defense="none"),
    "sword/gunpoint": dict(weapon="knife", distance=1, swordpoint=True),
    "target in cover, not defending": dict(weapon="rifle", distance=6, defense="none", target_state={"in_cover": True}),
    "pummel": dict(weapon="knife", distance=1, action="pummel", target=dict(statuses=[{"name": "Pinned", "rounds": None}])),
}


def build(spec):
    spec = dict(spec)
    a = Combatant("a", "Ann", sheet(**spec.pop("attacker", {})), (0, 0), "pc", True)
    t = Combatant("t", "Tom", sheet(**spec.pop("target", {})), (spec["distance"], 0), "npc", False, spec.pop("target_state", {}))
    weapon, distance = spec.pop("weapon"), spec.pop("distance")
    return req(a, t, weapon, distance, **spec)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_each_outcome_line_matches_a_monte_carlo_of_attack(name):
    """Outcome by outcome, the exact odds against what ``attack()`` rolls and ``outcome_label``
    reads back: four standard errors and a hair, every line, and no outcome the odds miss."""
    spec = SCENARIOS[name]
    odds = SYSTEM.odds(build(spec))
    json.dumps(odds)
    exact = {o["label"]: o["p"] for o in odds["outcomes"]}
    assert math.isclose(sum(exact.values()), 1, abs_tol=1e-9)
    n = 3000
    dice = SeededDice(77)
    seen: dict[str, int] = {}
    hits = 0
    for _ in range(n):
        result = SYSTEM.attack(build(spec), dice)
        hits += result.hit
        label = outcome_label(result)
        seen[label] = seen.get(label, 0) + 1
    assert set(seen) <= set(exact), (set(seen) - set(exact), exact)
    for label, p in exact.items():
        freq = seen.get(label, 0) / n
        assert abs(freq - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (label, freq, p)
    assert abs(hits / n - odds["hit"]) <= 4 * math.sqrt(odds["hit"] * (1 - odds["hit"]) / n) + 0.01


def test_outcomes_are_in_tesseris_words_and_the_modifiers_name_both_sides():
    odds = SYSTEM.odds(build(SCENARIOS["rifle burst"]))
    labels = [o["label"] for o in odds["outcomes"]]
    assert all(lbl in ("miss", "Dodge avoids") or lbl.split(": ")[0] in ("hit", "critical") for lbl in labels)
    assert "Dodge avoids" in labels
    mods = {m["label"]: m["value"] for m in odds["modifiers"]}
    assert mods["Burst Fire"] == -1
    assert any(k.startswith("Tom's Dodge") for k in mods)
    assert math.isclose(odds["hit"], sum(o["p"] for o in odds["outcomes"] if o["label"].startswith(("hit", "critical"))))


# -- the fight's books and moves -----------------------------------------------------------

from rules.dice import ScriptedDice  # noqa: E402
from rules.system import RuleError  # noqa: E402


def person(id_, pos, side, **over):
    return Combatant(id_, id_.title(), sheet(**over), pos, side, side == "pc", {})


def fight(a, b, rolls=(9, 1)):
    """A fight where ``a`` acts first (initiative 9 + 6 against 1 + 6)."""
    u = SYSTEM.begin_fight([a, b], ScriptedDice(list(rolls)))
    assert u.current == a.id
    return u


def at(state, c):
    return Combatant(c.id, c.name, c.sheet, c.position, c.side, c.is_player, state["combatants"][c.id])


def test_after_attack_books_the_ticks_of_both_sides_as_plain_data():
    a, b = person("a", (0, 0), "pc"), person("b", (1, 0), "npc")
    u = fight(a, b)
    r = SYSTEM.attack(req(at(u.state, a), at(u.state, b), "knife", defense="dodge"), SeededDice(1))
    after = SYSTEM.after_attack(u.state, r, SYSTEM.default_settings())
    json.dumps(after)
    assert after["combatants"]["a"]["ticks"] == 5 - 2 and after["combatants"]["a"]["attacks"] == 1  # Melee Strike, 2 ticks
    assert after["combatants"]["b"]["defenses"] == 1 and after["combatants"]["b"]["free_reaction"] is False
    assert u.state["combatants"]["a"]["ticks"] == 5  # the state given is left as it was


def test_a_move_pays_move_actions_and_keeps_the_rest_of_one_for_the_turn():
    """"Move: 1 Tick ... a number of squares equal to your Speed per Move action"."""
    a, b = person("a", (0, 0), "pc"), person("b", (9, 0), "npc")
    u = fight(a, b)
    m1 = SYSTEM.move(u.state, a, [(0, 0), (1, 0)], 1, [a, b], None, ScriptedDice([]))
    assert m1.state["combatants"]["a"]["ticks"] == 4 and m1.left == 2 + 4 * 3
    m2 = SYSTEM.move(m1.state, at(m1.state, a), [(1, 0), (2, 0), (3, 0)], 2, [a, b], None, ScriptedDice([]))
    assert m2.state["combatants"]["a"]["ticks"] == 4 and "already paid" in m2.log[0]  # the same Move action
    m3 = SYSTEM.move(m2.state, at(m2.state, a), [], 7, [a, b], None, ScriptedDice([]))
    assert m3.state["combatants"]["a"]["ticks"] == 1 and m3.left == 2 + 3 and "3 Move actions, 3 ticks" in m3.log[0]
    # the next turn starts afresh
    nxt = SYSTEM.next_turn(m3.state, [a, b], ScriptedDice([]))
    assert "move_left" not in nxt.state["combatants"]["a"]


def test_the_rest_of_a_move_is_lost_after_an_attack_when_the_gm_says_so():
    a, b = person("a", (0, 0), "pc"), person("b", (2, 0), "npc")
    settings = {**SYSTEM.default_settings(), "move_remainder": "action"}
    u = fight(a, b)
    m = SYSTEM.move(u.state, a, [(0, 0), (1, 0)], 1, [a, b], None, ScriptedDice([]), settings)
    r = SYSTEM.attack(req(at(m.state, a), at(m.state, b), "knife"), SeededDice(2))
    assert SYSTEM.after_attack(m.state, r, settings)["combatants"]["a"].get("move_left", 0) == 0
    assert SYSTEM.after_attack(m.state, r, SYSTEM.default_settings())["combatants"]["a"]["move_left"] == 2


def test_run_and_sprint_are_declared_then_moved_and_a_sprint_turns_once():
    a, b = person("a", (0, 0), "pc"), person("b", (0, 9), "npc")
    u = fight(a, b)
    ran = SYSTEM.act(u.state, a, "run", [a, b], ScriptedDice([]))  # "Run: 3 Ticks ... 4 times your normal movement speed"
    assert ran.state["combatants"]["a"]["ticks"] == 2
    assert SYSTEM.movement_left(ran.state, at(ran.state, a)) == 12 + 2 * 3
    u = fight(a, b)
    sprint = SYSTEM.act(u.state, a, "sprint", [a, b], ScriptedDice([]))
    zigzag = [(0, 0), (1, 0), (1, 1), (2, 1)]
    with pytest.raises(RuleError, match="turn once"):
        SYSTEM.move(sprint.state, at(sprint.state, a), zigzag, 3, [a, b], None, ScriptedDice([]))
    ok = SYSTEM.move(sprint.state, at(sprint.state, a), [(0, 0), (1, 0), (2, 0), (2, 1)], 3, [a, b], None, ScriptedDice([]))
    assert ok.state["combatants"]["a"]["ticks"] == 1 and ok.left == 18 - 3 + 3


def test_without_ticks_only_the_free_quick_step_moves_and_off_turn_only_a_reaction():
    a, b = person("a", (0, 0), "pc"), person("b", (1, 0), "npc")
    u = fight(a, b)
    u.state["combatants"]["a"]["ticks"] = 0
    assert SYSTEM.movement_left(u.state, at(u.state, a)) == 1
    with pytest.raises(RuleError, match="at most"):
        SYSTEM.move(u.state, at(u.state, a), [], 2, [a, b], None, ScriptedDice([]))
    step = SYSTEM.move(u.state, at(u.state, a), [(0, 0), (0, 1)], 1, [a, b], None, ScriptedDice([]))
    assert step.provokes == [] and step.state["combatants"]["a"]["quick_step"] and step.left == 0
    # on a's turn, b may only Dive for Cover (1 tick, a reaction, 3 squares) and that provokes
    assert SYSTEM.movement_left(u.state, at(u.state, b)) == 0
    dive = SYSTEM.act(u.state, b, "dive_for_cover", [a, b], ScriptedDice([]))
    moved = SYSTEM.move(dive.state, at(dive.state, b), [(1, 0), (2, 0), (3, 0), (4, 0)], 3, [a, b], None, ScriptedDice([]))
    assert moved.provokes == ["a"] and moved.left == 0


def test_badges_show_stamina_wounds_statuses_ticks_stances_and_a_jam():
    s = sheet(wounds=2, stamina=0, statuses=[{"name": "Bleeding", "rounds": 1}, "Grappled"])
    state = {"ticks": -1, "stances": ["total_defense"], "prone": True, "jammed": ["rifle"], "free_reaction": False}
    got = {(b["label"], b["kind"]) for b in SYSTEM.badges(s, state)}
    assert {("2 wounds", "wound"), ("Stamina 0/17", "resource"), ("Bleeding (1 rd)", "condition"), ("Grappled", "condition"),
            ("1 tick borrowed", "resource"), ("Total Defense", "condition"), ("Prone", "condition"),
            ("Assault rifle jammed", "condition")} <= got
    assert {b["label"] for b in SYSTEM.badges(sheet(), {"ticks": 3})} == {"Stamina 19/19", "3 ticks"}


def test_the_sheet_the_app_edits():
    assert set(SYSTEM.gm_only_fields) == {"stamina", "wounds", "ego", "statuses"}
    keys = [w["key"] for w in SYSTEM.weapons(sheet())]
    assert keys == ["rifle", "pistol", "knife", "club", "unarmed"]
    assert SYSTEM.weapons(sheet())[0]["label"] == "Assault rifle"
    a, b = person("a", (0, 0), "pc"), person("b", (1, 0), "npc")
    assert SYSTEM.attack(req(a, b, "unarmed"), SeededDice(3)).details["weapon"] == "unarmed"
    SYSTEM.validate_sheet(sheet())
    for bad, field in [({"agility": "three"}, "agility"), ({"wounds": -1}, "wounds"),
                       ({"weapons": {"bow": {"kind": "ranged", "damage": 3}}}, "weapons.bow.range"),
                       ({"weapons": {"axe": {"kind": "hammer"}}}, "weapons.axe.kind"),
                       ({"statuses": ["Sleepy"]}, "statuses[0]")]:
        with pytest.raises(RuleError, match=field.replace("[", r"\[").replace("]", r"\]")):
            SYSTEM.validate_sheet(sheet(**bad))


def test_shooting_a_cover_piece_pays_the_attack_ticks_too():
    a = person("a", (0, 0), "pc")
    b = person("b", (5, 0), "npc")
    u = fight(a, b)
    r = SYSTEM.attack(req(at(u.state, a), b, "pistol", 3, target_cover={"id": "crate", "material": "wood_thin"}), SeededDice(5))
    assert SYSTEM.after_attack(u.state, r)["combatants"]["a"]["ticks"] == 5 - 2  # Straight Shot, 2 ticks
    assert next(o for o in SYSTEM.actions(u.state, a) if o.key == "move").data["left"] == 15


def test_hip_fire_gives_twice_the_speed_to_move_while_firing():
    a, b = person("a", (0, 0), "pc"), person("b", (6, 0), "npc")
    u = fight(a, b)
    r = SYSTEM.attack(req(at(u.state, a), at(u.state, b), "rifle", 6, action="hip_fire"), SeededDice(8))
    after = SYSTEM.after_attack(u.state, r)
    assert after["combatants"]["a"]["ticks"] == 1 and after["combatants"]["a"]["move_left"] == 6  # 4 ticks, 2x Speed 3
    m = SYSTEM.move(after, at(after, a), [], 6, [a, b], None, ScriptedDice([]))
    assert m.state["combatants"]["a"]["ticks"] == 1 and "Hip Fire" in m.log[0]
