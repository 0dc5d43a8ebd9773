"""Odds in the ask (#59): a roll carries the rule's exact chance of meeting what it needs, and whether it did, in
each of the five systems; the table's dice ask with that chance; and a fighter's luck adds up from them."""

from __future__ import annotations

import itertools

import pytest

from rules import odds as core_odds
from rules.dice import NeedDice, ScriptedDice, SeededDice, TableDice
from rules.atomic_tomorrow.checks import is_success, roll_d100, success_chance as d100_chance
from rules.gurps_lite.checks import check, success_chance
from rules.phase_tn.checks import attribute_roll
from rules.savage_worlds.checks import trait_chance, trait_roll
from rules.savage_worlds.odds import attack_odds, trait_odds
from rules.tesseris_ads.checks import defense_distribution, pool_distribution, roll_defense_pool, roll_test
from rules.text import translate
from webapp.game.views import luck


def test_a_3d6_check_against_10_is_a_50_percent_roll_and_says_whether_it_was_made():
    made = check(ScriptedDice([3, 3, 4]), "Broadsword", 10, roller="t1")
    assert made.roll.chance == 0.5 == success_chance(10)
    assert made.roll.met is True and made.roll.roller == "t1"
    missed = check(ScriptedDice([4, 4, 3]), "Broadsword", 10, roller="t1")
    assert missed.roll.chance == 0.5 and missed.roll.met is False
    # 9 or less: 37.5%, as the attack card's odds say; a critical success on 4 is made whatever the skill
    low = check(ScriptedDice([1, 1, 2]), "Dodge", 3)
    assert low.roll.chance == success_chance(3) and low.roll.met is True
    assert check(ScriptedDice([3, 3, 3]), "Dodge", 9).roll.chance == 0.375
    d = check(ScriptedDice([4, 3, 3]), "Dodge", 9).roll.to_dict()
    assert d["chance"] == 0.375 and d["met"] is False


def test_a_savage_worlds_trait_roll_with_the_wild_die_has_the_attack_cards_exact_odds_aces_counted():
    tr = trait_roll("d8", ScriptedDice([8, 3, 2]), name="Fighting", roller="ann")  # an ace: 8 + 3 = 11
    expected = trait_odds(8, True, 0)["hit"]
    assert tr.trait.chance == pytest.approx(expected, abs=1e-9) and tr.wild.chance == tr.trait.chance
    # the exact chance: 1 - P(d8! < 4) P(d6! < 4) - P(both show 1) = 1 - 3/8 * 3/6 - 0 = 0.8125
    assert tr.trait.chance == pytest.approx(0.8125, abs=1e-9)
    assert tr.trait.met is True and tr.wild.met is None  # the roll's luck is counted once, on the trait die
    # double 1s: a critical failure, not made
    assert trait_roll("d8", ScriptedDice([1, 1]), name="Fighting", roller="ann").trait.met is False
    # with a modifier: d4 -2 needs 6: the ace is the only way in
    tr = trait_roll("d4", ScriptedDice([4, 2, 1]), modifiers=[], name="Fighting", tn=6)
    assert tr.trait.chance == pytest.approx(trait_odds(4, True, 0, 6)["hit"], abs=1e-9) and tr.trait.met is True


@pytest.mark.long
def test_the_trait_chance_is_the_attack_odds_hit_for_every_die_modifier_and_rate_of_fire():
    for sides, wild, mod, tn, rof in itertools.product((4, 6, 8, 10, 12), (True, False), (-6, -2, 0, 2, 5),
                                                        (4, 6), (1, 2, 3)):
        exact = attack_odds(sides, wild, mod, tn, rof, {0: 1.0}, {0: 1.0}, 10**9, False)["hit"]
        assert trait_chance(sides, wild, mod, tn, rof) == pytest.approx(exact, abs=1e-9), (sides, wild, mod, tn, rof)


def test_tesseris_tests_and_defenses_carry_the_exact_chance_of_reaching_what_they_need():
    # 3 dT + 1 against a difficulty of 3: two successes or more
    t = roll_test(ScriptedDice([6, 9, 2, 1]), 3, [], "Resolve", roller="u", reach=3)
    (rec,) = t.records
    assert rec.chance == pytest.approx(core_odds.at_least(pool_distribution(3), 3), abs=1e-12)
    assert rec.met is (t.total >= 3)
    assert roll_test(ScriptedDice([1, 2]), 2, [], "Stealth").records[0].chance is None  # no goal given: no chance
    # a Duck of 2 dT with one re-roll against an attack of 2
    successes, recs = roll_defense_pool(ScriptedDice([6, 1, 7]), 2, 1, "Duck", roller="d", attack=2)
    assert successes == 2 and recs[0].met is True
    assert recs[0].chance == pytest.approx(sum(p for v, p in defense_distribution(2, 1) if v >= 2), abs=1e-12)
    assert recs[1].chance == pytest.approx(core_odds.at_least(pool_distribution(1), 1)) and recs[1].met is None


def test_a_phase_tn_roll_and_an_atomic_tomorrow_d100_roll_carry_their_exact_chance():
    sheet = {"attributes": {"reflexes": 3}}
    out = attribute_roll(sheet, "reflexes", 10, ScriptedDice([3, 4]), roller="s")
    rec = out["roll"]
    expr = rec.expr
    assert rec.chance == pytest.approx(core_odds.at_least(core_odds.distribution(expr), 10 - sum(
        m.value for m in out["modifiers"])), abs=1e-12)
    assert rec.met is out["success"]
    assert d100_chance(46) == 0.46 and d100_chance(2) == 0.05 and d100_chance(99) == 0.95
    rec = roll_d100(ScriptedDice([46]), "Shoot", roller="r", skill=46)
    assert rec.chance == 0.46 and rec.met is True and is_success(46, 46)
    assert roll_d100(ScriptedDice([47]), "Shoot", roller="r", skill=46).met is False


def test_the_table_is_asked_with_the_chance_and_the_entered_faces_keep_it():
    table = TableDice([], lambda roller: True, SeededDice(1))
    with pytest.raises(NeedDice) as asked:
        check(table, "Dodge", 9, roller="t1")
    assert asked.value.chance == 0.375 and asked.value.roller == "t1"
    entered = check(TableDice([[1, 2, 3]], lambda roller: True, SeededDice(1)), "Dodge", 9, roller="t1")
    assert entered.roll.chance == 0.375 and entered.roll.met is True
    app = check(TableDice([], lambda roller: False, SeededDice(1)), "Dodge", 9, roller="t1")
    assert app.roll.chance == 0.375 and app.roll.met is not None  # the app's dice, for a roller it rolls for


def test_luck_adds_up_three_rolls_at_50_percent_all_made_are_one_and_a_half_above():
    records = [check(ScriptedDice(f), "Broadsword", 10, roller="ann").roll.to_dict()
               for f in ([1, 2, 3], [3, 3, 4], [2, 2, 2])]
    assert all(r["met"] for r in records)
    tally = luck.Tally()
    for r in records:
        tally.add("ann", "Ann", r)
    (told,) = tally.told()
    assert told == {"name": "Ann", "rolls": 3, "luck": 1.5, "way": "above", "amount": 1.5}
    assert translate(luck.line(told), None) == "Ann: 3 rolls, 1.5 above what the odds promised"
    # a whole number is said whole; below; as promised
    assert luck.told("Bo", 4, -2.0)["amount"] == 2 and luck.told("Bo", 4, -2.0)["way"] == "below"
    assert translate(luck.line(luck.told("Bo", 1, -0.5)), None) == "Bo: 1 roll, 0.5 below what the odds promised"
    assert translate(luck.line(luck.told("Cy", 2, 0.02)), None) == "Cy: 2 rolls, just what the odds promised"


def test_an_events_rolls_are_found_once_wherever_they_lie_and_rolls_without_odds_are_not():
    rec = check(ScriptedDice([1, 2, 3]), "Dodge", 9, roller="t1").roll.to_dict()
    plain = SeededDice(3).roll("2d6", "damage", roller="t1").to_dict()
    data = {"result": {"rolls": [rec, plain], "details": {"roll": rec}}, "sheets": {"t1": {"roll": rec}}}
    assert luck.rolls_in(data) == [rec]
    assert "chance" not in plain


def test_a_savage_worlds_attacks_ask_says_the_attack_cards_own_chance_to_hit():
    from test_table_dice_same_rules import sw_fight
    from tabledice import play
    from webapp.game.fight import aiming
    from webapp.game import table
    from webapp.game.core.model import Actor

    game, ids = sw_fight()
    mira = Actor("player", "p-mira")
    attack = {"type": "attack", "attacker": ids["Hero"], "target": ids["Goblin"], "weapon": "Long sword"}
    card = aiming.preview(game, table.parse_command(attack), mira)["odds"]["hit"]
    play(game, {"type": "set_dice", "mode": "table"})
    ask = play(game, attack, actor=mira)[-1]
    assert ask.type == "roll_asked" and ask.data["roll"]["roller"] == ids["Hero"]
    assert 0 < card < 1 and ask.data["roll"]["chance"] == pytest.approx(card, abs=1e-9)


def test_an_atomic_tomorrow_attack_records_its_chance_and_outcome_against_the_skill():
    rec = roll_d100(ScriptedDice([5]), "Shoot", roller="r", skill=3)  # 01-05 always succeed
    assert rec.chance == 0.05 and rec.met is True
    rec = roll_d100(ScriptedDice([96]), "Shoot", roller="r", skill=99)  # 96-00 always fail
    assert rec.chance == 0.95 and rec.met is False
