"""The 3d6 system from the table's own dice (#59): every roll its fights make names the token whose dice they are,
with what they must show in the rules' words: the Tactics contest of each side's leader and a total surprise's
seconds of stun; the knockdown, death and collapse HT rolls of the wounded one; the recovery from stun or surprise;
each side of a disarm or feint contest; an area attack, its scatter and damage (the attacker's) and each dive away
from it (the diver's); a Double Defense's second defense and the Will roll to keep concentrating (the defender's);
a mortal wound's HT and Physician rolls. A command decided from faces entered at the table gives the very events the
app's dice give showing the same faces; faces no d6 shows, too many or too few, are refused with nothing changed.

"Shock" rolls nothing in *3d6 Combat* ("Injury": a penalty of one per point of injury, at most 4, on the next
turn): there is no shock roll to ask of anyone."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings, strategies as st

from rules.dice import ScriptedDice
from rules.gurps_lite import SYSTEM, mortal_wound_check, stabilize
from rules.system import AttackRequest, Combatant
from webapp.game import table
from webapp.game.fight import table_dice
from webapp.game.core.model import GM, Event, Rejected

from tabledice import (MIRA, Watched, facts, hero_and_brute, made_once, play, settled_from_drawn, turned_to,
                       unchanged_after_refusals)

GRENADE = {"skill": "Throwing", "damage": "3d", "type": "cr", "kind": "thrown", "area": 2, "max": 30}
#: Hero's sheet for a heavy blow: 4 HP, 1 left, no DR: any Broadsword hit is a major wound (a knockdown roll) and
#: most take Hero past -4 HP (a death check)
FRAIL = {"HP": 4, "hp_current": 1, "dr": {}}


def words(packed) -> str:
    return str(table_dice.words(packed))


def duel(hero: dict | None = None, brute: dict | None = None, brute_x: int = 3):
    """Mira's Hero on (2, 2) and the GM's Brute (a foe: no owner), each with the sample sheet, a grenade, and the
    changes given."""
    return hero_and_brute(SYSTEM, "g-3", 16, hero, brute, brute_x, weapons={"Grenade": GRENADE})


def fight(first: str, hero: dict | None = None, brute: dict | None = None, brute_x: int = 3):
    """A fight with ``first`` ("Hero" or "Brute") acting, made with the app's dice; made once, copied for each use."""
    return made_once((first, repr(hero), repr(brute), brute_x),
                     lambda: turned_to(*duel(hero, brute, brute_x), first, seeds=10))


def on_the_apps_dice(game):
    """A copy of ``game`` whose dice are the app's again (the same game, one ``dice_set`` later)."""
    app_game = copy.deepcopy(game)
    table.evolve(app_game, Event("dice_set", {"mode": "app"}))
    return app_game


def as_the_apps_dice(game, ids, payload, data, actor=GM, draw=None):
    """Play ``payload`` on ``game`` (the table rolling), each roll asked entered with faces hypothesis draws by
    whoever rolls it; check that its events are those of the same command on the app's dice showing the same
    faces. Gives the rolls asked."""
    app_game = on_the_apps_dice(game)
    first = play(game, payload, actor=actor)
    if first[-1].type != "roll_asked":  # nothing to roll this time: the app's dice roll nothing either
        assert facts(first) == facts(play(app_game, payload, actor=actor, dice=ScriptedDice([])))
        return []
    events, asks, made = settled_from_drawn(game, first, data, ids["Hero"], draw=draw)
    assert facts(events[:-1]) == facts(play(app_game, payload, actor=actor, dice=ScriptedDice(made)))
    return asks


def enter(game, events, faces, actor):
    """Enter ``faces`` for the roll ``events`` end on, as ``actor``."""
    assert events[-1].type == "roll_asked", events[-1].type
    return play(game, {"type": "enter_dice", "roll_id": events[-1].data["id"], "faces": faces}, actor=actor)


def asked(events) -> tuple[str, str, str, str]:
    """What the roll ``events`` end on asks: its dice, purpose, roller and what counts."""
    assert events[-1].type == "roll_asked", events[-1].type
    roll = events[-1].data["roll"]
    return roll["dice"], words(roll["purpose"]), roll["roller"], words(roll["needs"])


def low(n: int):
    """Faces of ``n`` d6 that make a low roll (3d6 at most 6): an attack at skill 6+ that hits."""
    return st.lists(st.integers(1, 2), min_size=n, max_size=n)


# --- the start of a fight: the Tactics contest, a total surprise's seconds of stun -----------------------------


def test_the_tactics_contest_is_asked_of_each_sides_leader():
    game, ids = duel()
    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, {"type": "start_combat", "token_ids": list(ids.values())})
    # a leaderless side rolls at -2: Tactics 10 - 2
    contest = "roll 3d6, 8 or less: in a quick contest the side with the better margin acts first"
    # both leaders are asked at once (#70: a quick contest is rolled together)
    hero, brute = table_dice.batch(events[-1].data)
    assert (hero["dice"], words(hero["purpose"]), hero["roller"], words(hero["needs"])) == (
        "3d6", "turn order: Hero for the players' side", ids["Hero"], contest)
    assert (brute["dice"], words(brute["purpose"]), brute["roller"], words(brute["needs"])) == (
        "3d6", "turn order: Brute for the GM's side", ids["Brute"], contest)
    roll_id = events[-1].data["id"]
    for who, at in ((table.Actor("player", "p-other"), hero["at"]), (MIRA, brute["at"])):
        with pytest.raises(Rejected):  # Hero's roll is Mira's to enter, not the other players'; the Brute's the GM's
            table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": roll_id, "at": at,
                                                    "faces": [1, 1, 1]}), who)
    events = play(game, {"type": "enter_dice", "roll_id": roll_id, "at": brute["at"], "faces": [6, 5, 4]}, actor=GM)
    assert [e.type for e in events] == ["roll_entered"] and not game.combat  # the GM's in first; Mira's still waits
    events = play(game, {"type": "enter_dice", "roll_id": roll_id, "at": hero["at"], "faces": [1, 2, 2]}, actor=MIRA)
    assert [e.type for e in events] == ["combat_started", "roll_settled"]
    assert game.combat["current"] == ids["Hero"]  # 5 against 8 wins over 15


def test_a_total_surprises_seconds_of_stun_are_the_surprised_ones_die():
    """"Turn Order": the surprised side acts last (no contest: each side is alone in its group) and Total Surprise
    stuns for 1d seconds."""
    game, ids = duel()
    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, {"type": "start_combat", "token_ids": list(ids.values()), "surprised": [ids["Hero"]]})
    assert asked(events) == ("1d6", "total surprise: seconds of mental stun", ids["Hero"],
                             "roll 1d6: the seconds of mental stun before the IQ rolls to recover")
    events = enter(game, events, [4], MIRA)
    assert events[-1].type == "roll_settled"
    assert game.combat["state"]["combatants"][ids["Hero"]]["stun_seconds"] == 4


@settings(max_examples=25, deadline=None)
@given(data=st.data(), surprised=st.sampled_from([None, "Hero", "Brute"]), reflexes=st.booleans(),
       leader=st.booleans())
def test_the_start_of_a_fight_from_entered_faces_is_that_of_the_apps_dice(data, surprised, reflexes, leader):
    """The Tactics contest, a surprise's stun and its recovery over the first turns."""
    game, ids = duel(hero={"traits": {"combat_reflexes": reflexes}, "leader": leader})
    play(game, {"type": "set_dice", "mode": "table"})
    start = {"type": "start_combat", "token_ids": list(ids.values()),
             **({"surprised": [ids[surprised]]} if surprised else {})}
    asks = as_the_apps_dice(game, ids, start, data)
    by_purpose = {words(a["purpose"]): a for a in asks}
    if surprised is None:
        for side, name in (("players'", "Hero"), ("GM's", "Brute")):
            ask = by_purpose[f"turn order: {name} for the {side} side"]
            level = 10 if name == "Hero" and leader else 8
            assert ask["roller"] == ids[name] and words(ask["needs"]) == (
                f"roll 3d6, {level} or less: in a quick contest the side with the better margin acts first")
    else:
        assert not any(p.startswith("turn order") for p in by_purpose)  # the surprise alone orders the sides
    for _ in range(4):  # the recovery rolls at each turn's end
        for ask in as_the_apps_dice(game, ids, {"type": "next_turn"}, data):
            purpose = words(ask["purpose"])
            assert purpose in ("recover from surprise (IQ)", "total surprise: seconds of mental stun"), purpose
            assert ask["roller"] == ids[surprised]
            if purpose == "recover from surprise (IQ)":
                assert words(ask["needs"]).endswith(" or less: a success shakes off the surprise")


# --- a heavy blow: knockdown and death checks; collapse, recovery from stun ------------------------------------


def test_a_heavy_blows_knockdown_and_death_checks_are_the_wounded_ones():
    game, ids = fight("Brute", hero=FRAIL)
    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword",
                         "defense": "none"})
    assert asked(events)[2] == ids["Brute"]
    events = enter(game, events, [2, 2, 2], GM)  # 6 against 13: a hit
    assert asked(events) == ("1d6+2", "attack damage (sw+1 cut)", ids["Brute"], "roll 1d6+2 for damage")
    events = enter(game, events, [6], GM)  # 8 cut: 12 injury on 4 HP, from 1 HP to -11
    ht = "roll 3d6, 11 or less: "
    assert asked(events) == ("3d6", "knockdown (HT)", ids["Hero"],
                             ht + "a failure falls prone and stunned, a failure by 5 or more unconscious")
    with pytest.raises(Rejected):  # Hero's roll is Mira's, even for the GM's foe's attack
        table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": events[-1].data["id"],
                                                "faces": [1, 1, 1]}), table.Actor("player", "p-other"))
    events = enter(game, events, [4, 4, 4], MIRA)
    death = ht + "a failure by 1 or 2 is a mortal wound, by more death"
    assert asked(events) == ("3d6", "death check at -4 HP (HT)", ids["Hero"], death)
    events = enter(game, events, [3, 3, 3], MIRA)
    assert asked(events) == ("3d6", "death check at -8 HP (HT)", ids["Hero"], death)
    events = enter(game, events, [4, 4, 5], MIRA)  # 13: a failure by 2
    assert [e.type for e in events] == ["attack_resolved", "roll_settled"]
    conditions = events[0].data["sheets"][ids["Hero"]]["conditions"]
    assert {"prone", "stunned", "mortally wounded", "unconscious"} <= set(conditions)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_heavy_blow_from_entered_faces_is_that_of_the_apps_dice(data):
    game, ids = fight("Brute", hero=FRAIL)
    play(game, {"type": "set_dice", "mode": "table"})
    attack = {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword",
              "defense": "none"}
    asks = as_the_apps_dice(game, ids, attack, data, draw=lambda roll, n: low(3) if n == 0 else None)
    assert [a["roller"] for a in asks[:2]] == [ids["Brute"]] * 2  # the attack and its damage
    assert words(asks[2]["purpose"]) == "knockdown (HT)"  # always a major wound on 4 HP
    for ask in asks[2:]:
        assert ask["roller"] == ids["Hero"] and words(ask["purpose"]).split(" (")[0] in (
            "knockdown", "death check at -4 HP", "death check at -8 HP", "death check at -12 HP")


def test_the_collapse_below_0_hp_is_the_fallen_ones_roll():
    game, ids = fight("Hero", hero={"HP": 4, "hp_current": -2})
    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, {"type": "act", "token_id": ids["Hero"], "action": "move"}, actor=MIRA)
    assert asked(events) == ("3d6", "collapse below 0 HP (HT)", ids["Hero"],
                             "roll 3d6, 11 or less: a failure falls unconscious")
    events = enter(game, events, [6, 6, 1], MIRA)
    assert events[-1].type == "roll_settled"
    assert "unconscious" in game.characters[next(iter(c for c in game.characters if
                                                      game.characters[c].token_id == ids["Hero"]))].sheet["conditions"]


@settings(max_examples=25, deadline=None)
@given(data=st.data(), maneuver=st.sampled_from(["move", "attack", "do_nothing"]), stunned=st.booleans())
def test_collapse_and_the_recovery_from_stun_from_entered_faces_are_those_of_the_apps_dice(data, maneuver, stunned):
    """Hero below 0 HP: the collapse roll when Hero picks a maneuver other than Do Nothing; stunned (Do Nothing
    only), the HT roll to recover from the stun when Hero's turn ends."""
    game, ids = fight("Hero", hero={"HP": 4, "hp_current": -2, "conditions": ["stunned"] if stunned else []})
    play(game, {"type": "set_dice", "mode": "table"})
    maneuver = "do_nothing" if stunned else maneuver
    asks = as_the_apps_dice(game, ids, {"type": "act", "token_id": ids["Hero"], "action": maneuver}, data, actor=MIRA)
    assert [(words(a["purpose"]), a["roller"]) for a in asks] == (
        [] if maneuver == "do_nothing" else [("collapse below 0 HP (HT)", ids["Hero"])])
    asks = as_the_apps_dice(game, ids, {"type": "next_turn"}, data)
    assert [(words(a["purpose"]), a["roller"], words(a["needs"])) for a in asks] == ([
        ("recover from stun (HT)", ids["Hero"], "roll 3d6, 11 or less: a success recovers from the stun")]
        if stunned else [])


# --- contests: disarm and feint ---------------------------------------------------------------------------


DISARM = {"location": "weapon", "disarm": True, "target_weapon": "Broadsword"}


def test_a_disarm_contest_is_each_sides_own_roll():
    game, ids = fight("Hero")
    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, {"type": "attack", "attacker": ids["Hero"], "target": ids["Brute"], "weapon": "Broadsword",
                         "options": DISARM, "defense": "none"})
    assert asked(events)[2] == ids["Hero"]
    events = enter(game, events, [1, 2, 2], MIRA)  # 5 against 13 - 4 - 2
    assert asked(events) == ("3d6", "disarm contest (attacker)", ids["Hero"],
                             "roll 3d6, 13 or less: in a quick contest with Brute the better margin disarms")
    events = enter(game, events, [3, 3, 3], MIRA)
    assert asked(events) == ("3d6", "disarm contest (defender)", ids["Brute"],
                             "roll 3d6, 13 or less: in a quick contest with Hero the better margin keeps the weapon")
    events = enter(game, events, [5, 5, 5], GM)
    assert events[-1].type == "roll_settled"
    assert events[0].data["result"]["details"]["attacks"][0]["disarm"]["outcome"] == "weapon flung 1 yard"


def test_a_feint_contest_is_each_sides_own_roll():
    game, ids = fight("Hero")
    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, {"type": "attack", "attacker": ids["Hero"], "target": ids["Brute"], "weapon": "Broadsword",
                         "options": {"maneuver": "feint"}}, actor=MIRA)
    assert asked(events) == ("3d6", "feint (attacker)", ids["Hero"],
                             "roll 3d6, 13 or less: in a quick contest with Brute the margin won comes off Brute's "
                             "defense")
    events = enter(game, events, [2, 2, 2], MIRA)
    assert asked(events) == ("3d6", "feint (defender)", ids["Brute"],
                             "roll 3d6, 13 or less: in a quick contest with Hero the better margin sees through the "
                             "feint")
    events = enter(game, events, [4, 4, 3], GM)
    assert events[-1].type == "roll_settled"
    assert events[0].data["result"]["details"]["feint"]["margin"] == 5  # 7 against 2


@settings(max_examples=25, deadline=None)
@given(data=st.data(), contest=st.sampled_from(["disarm", "feint"]))
def test_a_disarm_or_feint_contest_from_entered_faces_is_that_of_the_apps_dice(data, contest):
    game, ids = fight("Hero")
    play(game, {"type": "set_dice", "mode": "table"})
    if contest == "disarm":  # the strike at the weapon hits (at 7), then the contest
        attack = {"type": "attack", "attacker": ids["Hero"], "target": ids["Brute"], "weapon": "Broadsword",
                  "options": DISARM, "defense": "none"}
        asks = as_the_apps_dice(game, ids, attack, data, draw=lambda roll, n: low(3) if n == 0 else None)
    else:
        attack = {"type": "attack", "attacker": ids["Hero"], "target": ids["Brute"], "weapon": "Broadsword",
                  "options": {"maneuver": "feint"}}
        asks = as_the_apps_dice(game, ids, attack, data, actor=MIRA)
    contests = [(words(a["purpose"]), a["roller"]) for a in asks if "attacker)" in words(a["purpose"])
                or "defender)" in words(a["purpose"])]
    name = "disarm contest" if contest == "disarm" else "feint"
    assert contests == [(f"{name} (attacker)", ids["Hero"]), (f"{name} (defender)", ids["Brute"])]


# --- an area attack: the attacker's roll, scatter and damage; each dive the diver's -----------------------------


def laid(game, ids, at: float = 2.5):
    """A 2-yard circle laid on (``at``, 2.5): the Brute's grenade thrown on Hero."""
    play(game, {"type": "place_template", "shape": "circle", "x": at, "y": 2.5, "size": 2})
    tid = next(iter(game.templates))
    return {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Grenade", "template": tid}


def test_an_area_attack_is_the_throwers_roll_and_the_dive_the_divers():
    game, ids = fight("Brute", brute_x=8)
    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, laid(game, ids))
    dice, purpose, roller, needs = asked(events)
    assert (dice, purpose, roller) == ("3d6", "area attack: Grenade", ids["Brute"])
    assert needs.endswith(" or less: a miss scatters by the margin")
    events = enter(game, events, [2, 2, 2], GM)  # on the square
    dice, purpose, roller, needs = asked(events)
    assert (dice, purpose, roller) == ("3d6", "Hero dives away from the area", ids["Hero"])
    assert needs.endswith(" or less: a success dives clear, prone either way")
    events = enter(game, events, [6, 6, 5], MIRA)  # 17: caught
    assert asked(events) == ("3d6", "area damage to Hero (3d cr)", ids["Brute"], "roll 3d6 for damage")
    events = enter(game, events, [1, 1, 2], GM)
    assert events[-1].type == "roll_settled"


def test_a_scattering_area_attacks_direction_is_the_throwers_die():
    game, ids = fight("Brute", brute_x=8)
    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, laid(game, ids))
    level = int(asked(events)[3].split(", ")[1].split(" ")[0])
    faces = [6, 6, 6] if level <= 15 else [6, 6, 5]  # a miss, by 18 - level (or 17 - level) yards
    events = enter(game, events, faces, GM)
    dice, purpose, roller, needs = asked(events)
    assert (dice, purpose, roller) == ("1d8", "scatter direction (1 = north, clockwise)", ids["Brute"])
    assert needs == f"roll 1d8: where the area scatters {sum(faces) - level} yd, 1 north, then clockwise"
    unchanged_after_refusals(game, events[-1].data, GM, (([9], "a d8 cannot show 9"), ([0], "a d8 cannot show 0"),
                                                         ([3, 3], "1 more entered")))


@settings(max_examples=25, deadline=None)
@given(data=st.data(), hit=st.booleans())
def test_an_area_attack_with_a_dive_from_entered_faces_is_that_of_the_apps_dice(data, hit):
    game, ids = fight("Brute", brute_x=8)
    play(game, {"type": "set_dice", "mode": "table"})
    attack = laid(game, ids)
    asks = as_the_apps_dice(game, ids, attack, data, draw=lambda roll, n: low(3) if n == 0 and hit else None)
    assert asks[0]["roller"] == ids["Brute"]
    for ask in asks:
        purpose = words(ask["purpose"])
        mine = purpose.startswith("Hero dives") or purpose.split(" (")[0] in ("knockdown",) or \
            purpose.startswith("death check")
        assert ask["roller"] == (ids["Hero"] if mine else ids["Brute"]), purpose
    if hit:
        assert words(asks[1]["purpose"]) == "Hero dives away from the area"


# --- refused faces -------------------------------------------------------------------------------------------


def test_faces_no_d6_shows_or_the_wrong_number_of_dice_change_nothing():
    game, ids = duel()
    play(game, {"type": "set_dice", "mode": "table"})
    ask = play(game, {"type": "start_combat", "token_ids": list(ids.values())})[-1].data
    unchanged_after_refusals(game, ask, MIRA, (
        ([7, 1, 1], "a d6 cannot show 7"), ([0, 3, 3], "a d6 cannot show 0"), ([3, 3], "3d6 needs 3 dice; 2 entered"),
        ([3, 3, 3, 3], "1 more entered"), ([], "3d6 needs 3 dice; 0 entered")))
    assert not game.combat  # the fight has not started
    events = enter(game, [Event("roll_asked", ask)], [3, 3, 3], MIRA)  # Mira's of the two asked at once (#70)
    assert events[-1].type == "roll_entered" and events[-1].data["faces"] == [3, 3, 3]


def test_a_surprise_stun_face_no_d6_shows_changes_nothing():
    game, ids = duel()
    play(game, {"type": "set_dice", "mode": "table"})
    ask = play(game, {"type": "start_combat", "token_ids": list(ids.values()), "surprised": [ids["Hero"]]})[-1].data
    unchanged_after_refusals(game, ask, MIRA, (([7], "a d6 cannot show 7"), ([2, 2], "1 more entered")))


# --- the rolls the map's fights above do not reach: each names its roller -----------------------------------------


def person(id_, pos, state: dict | None = None, **over):
    """A combatant with the sample sheet (and ``over``), in fight state ``state``: Ann a player's, the rest foes."""
    return Combatant(id_, id_.title(), {**SYSTEM.default_sheet(), "name": id_.title(), **over}, pos,
                     "pc" if id_ == "ann" else "npc", id_ == "ann", state or {})


def test_a_second_defense_and_keeping_concentration_are_the_defenders_rolls():
    """All-Out Defense (Double): a failed defense may be followed by a second, different one; a defender who
    concentrates rolls Will-3 to keep at it ("Maneuvers", Concentrate)."""
    ann = person("ann", (0, 0))
    seen = []
    for maneuver, variant in (("all_out_defense", "double"), ("concentrate", "")):
        foe = person("foe", (1, 0), {"maneuver": maneuver, "variant": variant})
        dice = Watched(ScriptedDice([2, 2, 2, 6, 6, 6, 3, 3, 3, 1, 1, 1, 4, 4, 4, 3, 3, 3]))
        options = {"defense": {"type": "parry", "weapon": "Broadsword"}, "second_defense": {"type": "dodge"}}
        SYSTEM.attack(AttackRequest(ann, foe, "Broadsword", 1, None, options if variant else
                                    {"defense": {"type": "parry", "weapon": "Broadsword"}}), dice)
        seen += dice.seen
    by = {p: (r, n) for _, p, r, n in seen}
    assert by["attack: Broadsword"][0] == "ann"
    assert by["defense: parry"][0] == "foe"
    roller, needs = by["second defense: dodge"]  # the parry (9) failed on 18: the dodge
    assert roller == "foe" and needs == "roll 3d6, 7 or less: a success stops the attack after all (Double Defense)"
    roller, needs = by["keep concentrating (Will-3)"]
    assert roller == "foe" and needs == "roll 3d6, 7 or less: a failure loses the concentration"


def test_an_area_attack_at_a_token_and_its_dive_name_their_rollers():
    """An area attack aimed at a token (no template): the target dives; a dive that works scatters the blast by its
    margin (the thrower's d8 says where), one that fails leaves the target under it (the thrower's damage, the
    target's knockdown)."""
    ann = person("ann", (0, 0))
    ann = person("ann", (0, 0), weapons={**ann.sheet["weapons"], "Grenade": dict(GRENADE)})
    foe = person("foe", (5, 0))
    dice = Watched(ScriptedDice([2, 2, 2, 1, 1, 1, 3]))  # 6 against 12; the dive 3 against 10: 7 yd away
    SYSTEM.attack(AttackRequest(ann, foe, "Grenade", 5, None, {"defense": "best"}), dice)
    assert [(p, r) for _, p, r, _ in dice.seen] == [
        ("area attack: Grenade", "ann"), ("dive away from the area", "foe"),
        ("scatter direction (1 = north, clockwise)", "ann")]
    assert dice.seen[1][3] == "roll 3d6, 10 or less: a success dives clear, prone either way"
    assert dice.seen[2][3] == "roll 1d8: where the area scatters 7 yd, 1 north, then clockwise"
    dice = Watched(ScriptedDice([2, 2, 2, 6, 6, 6, 6, 6, 6] + [3] * 12))  # the dive fails: 18 damage
    SYSTEM.attack(AttackRequest(ann, foe, "Grenade", 5, None, {"defense": "best"}), dice)
    assert [(p, r) for _, p, r, _ in dice.seen[:4]] == [
        ("area attack: Grenade", "ann"), ("dive away from the area", "foe"), ("area damage to Foe (3d cr)", "ann"),
        ("knockdown (HT)", "foe")]
    assert all(r == "foe" for _, _, r, _ in dice.seen[4:])  # death checks


def test_a_mortal_wounds_rolls_are_the_wounded_ones_and_the_physicians():
    sheet = {**SYSTEM.default_sheet(), "hp_current": -12}
    dice = Watched(ScriptedDice([3, 3, 3, 4, 4, 4]))
    out = mortal_wound_check(sheet, dice, physician_skill=12, roller="ann", physician="doc")
    assert [(p, r) for _, p, r, _ in dice.seen] == [("mortal wound (HT)", "ann"), ("mortal wound (Physician)", "doc")]
    assert all(n.endswith(" or less: the better of the HT and Physician rolls counts: a failure is death, a critical "
                          "success heals") for *_, n in dice.seen)
    assert out["outcome"] == "holds"
    dice = Watched(ScriptedDice([3, 3, 3]))
    mortal_wound_check(sheet, dice, roller="ann")
    assert dice.seen == [("3d6", "mortal wound (HT)", "ann",
                          "roll 3d6, 11 or less: a failure is death, a critical success heals the mortal wound")]
    dice = Watched(ScriptedDice([3, 3, 3]))
    stabilize(13, -12, 11, dice, roller="doc")
    assert dice.seen[0][2] == "doc" and dice.seen[0][3].endswith(" or less: a success stabilizes the mortal wound")


def test_every_3d6_roll_of_the_rules_names_its_roller():
    """An AST scan of rules/gurps_lite: every ``.roll(`` and ``check(`` call passes ``roller=`` (the rolls of no one
    in particular would say why here)."""
    import ast
    import pathlib
    missing = []
    for path in sorted(pathlib.Path("rules/gurps_lite").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in ("roll", "check") and "roller" not in {k.arg for k in node.keywords}:
                missing.append(f"{path}:{node.lineno}")
    assert missing == []
