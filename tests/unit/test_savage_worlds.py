"""Savage Worlds: reference functions, trait and damage rolls, sheet, action deck."""

import pytest
from hypothesis import given, settings, strategies as st

from rules import savage_worlds as sw
from rules.dice import ScriptedDice, SeededDice
from rules.system import Combatant, RuleError, RuleSystem

S = sw.SYSTEM


def test_system_object():
    assert isinstance(S, RuleSystem)
    assert (S.id, S.board, S.diagonal) == ("savage_worlds", "grid", "chebyshev")
    assert S.yards_per_square == 2
    assert S.sheet_template == "sheets/_savage_worlds.html"
    assert S.help_template == "help/savage_worlds.html"


# ---- reference functions


@pytest.mark.parametrize(
    "distance, expected",
    [(0, 0), (12, 0), (13, -2), (24, -2), (25, -4), (48, -4), (49, -8), (192, -8), (193, None)],
)
def test_range_modifier_pistol_12_24_48(distance, expected):
    assert sw.range_modifier(distance, 12, 24, 48) == expected


def test_range_modifier_extreme_is_four_times_long():
    assert sw.range_modifier(20, 5, 10, 20) == -4
    assert sw.range_modifier(80, 5, 10, 20) == -8
    assert sw.range_modifier(81, 5, 10, 20) is None


@pytest.mark.parametrize(
    "total, tn, expected",
    [(3, 4, (False, 0)), (4, 4, (True, 0)), (7, 4, (True, 0)), (8, 4, (True, 1)), (11, 4, (True, 1)),
     (12, 4, (True, 2)), (6, 7, (False, 0)), (11, 7, (True, 1)), (-3, 4, (False, 0))],
)
def test_trait_result(total, tn, expected):
    assert sw.trait_result(total, tn) == expected


@pytest.mark.parametrize(
    "damage, toughness, shaken, expected",
    [
        (5, 6, False, (False, 0)),  # below Toughness: no effect
        (5, 6, True, (True, 0)),  # still Shaken from before, no Wound
        (6, 6, False, (True, 0)),  # equals: Shaken
        (9, 6, False, (True, 0)),
        (6, 6, True, (True, 1)),  # Shaken again: a Wound
        (10, 6, False, (True, 1)),  # one raise: one Wound
        (13, 6, False, (True, 1)),
        (14, 6, False, (True, 2)),
        (14, 6, True, (True, 2)),  # raises count, Shaken state adds nothing more
    ],
)
def test_damage_result(damage, toughness, shaken, expected):
    assert sw.damage_result(damage, toughness, shaken) == expected


@pytest.mark.parametrize(
    "foes, allies, expected",
    [(0, 0, 0), (1, 0, 1), (3, 0, 3), (4, 0, 4), (7, 0, 4), (3, 1, 2), (2, 3, 0), (6, 1, 3)],
)
def test_gang_up_bonus(foes, allies, expected):
    assert sw.gang_up_bonus(foes, allies) == expected


def test_gang_up_rejects_negative_counts():
    with pytest.raises(RuleError):
        sw.gang_up_bonus(-1, 0)


def test_multi_action_penalty_document_examples():
    assert sw.multi_action_penalty(1) == 0
    assert sw.multi_action_penalty(2) == -2  # "2 actions: -2 to both"
    assert sw.multi_action_penalty(3) == -4  # "3 actions: -4 to all three"
    with pytest.raises(RuleError):
        sw.multi_action_penalty(0)


def test_action_order_ranks_suits_and_jokers():
    cards = ["2C", "AS", "10H", "KD", "BJ", "10S", "AC", "RJ", "JH", "5D"]
    assert sw.action_order(cards) == ["RJ", "BJ", "AS", "AC", "KD", "JH", "10S", "10H", "5D", "2C"]


def test_action_order_suit_tiebreak():
    assert sw.action_order(["7C", "7D", "7H", "7S"]) == ["7S", "7H", "7D", "7C"]


def test_action_order_rejects_a_bad_card():
    with pytest.raises(RuleError):
        sw.action_order(["1S"])


def test_deviation_multiplier():
    assert [sw.deviation_multiplier(b) for b in ("short", "medium", "long", "extreme")] == [1, 2, 3, 4]
    with pytest.raises(RuleError):
        sw.deviation_multiplier("melee")


@settings(max_examples=200, deadline=None)
@given(st.integers(-20, 80), st.integers(-20, 80), st.integers(1, 16))
def test_higher_total_never_fewer_raises(a, b, tn):
    lo, hi = sorted((a, b))
    s_lo, r_lo = sw.trait_result(lo, tn)
    s_hi, r_hi = sw.trait_result(hi, tn)
    assert r_hi >= r_lo
    assert s_hi or not s_lo


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 80), st.integers(0, 80), st.integers(2, 20), st.booleans())
def test_more_damage_never_fewer_wounds(a, b, toughness, shaken):
    lo, hi = sorted((a, b))
    sh_lo, w_lo = sw.damage_result(lo, toughness, shaken)
    sh_hi, w_hi = sw.damage_result(hi, toughness, shaken)
    assert w_hi >= w_lo
    assert sh_hi or not sh_lo


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 12), st.integers(0, 12))
def test_gang_up_bounded_and_monotone(foes, allies):
    g = sw.gang_up_bonus(foes, allies)
    assert 0 <= g <= 4
    assert sw.gang_up_bonus(foes + 1, allies) >= g
    assert sw.gang_up_bonus(foes, allies + 1) <= g


# ---- dice on the sheet and derived values


def test_parse_die():
    assert sw.parse_die("d8") == sw.Die(8, 0)
    assert sw.parse_die("d12+2") == sw.Die(12, 2)
    for bad in ("d7", "8", "2d6", "", None):
        with pytest.raises(RuleError):
            sw.parse_die(bad)


def test_derived_parry_toughness_armour_apart():
    sheet = S.default_sheet()
    sheet["skills"]["fighting"] = "d8"
    sheet["attributes"]["vigor"] = "d6"
    sheet["armor"] = 2
    d = S.derived(sheet)
    assert d["parry"] == 6
    assert d["toughness"] == 7 and d["toughness_base"] == 5 and d["armor"] == 2
    assert d["toughness_text"] == "7 (2)"


def test_derived_d12_plus_and_no_fighting():
    sheet = S.default_sheet()
    sheet["attributes"]["vigor"] = "d12+2"
    sheet["armor"] = 0
    del sheet["skills"]["fighting"]
    d = S.derived(sheet)
    assert d["toughness"] == 2 + 6 + 1
    assert d["parry"] == 2


def test_derived_shield_and_penalties():
    sheet = S.default_sheet()
    sheet.update(shield=2, wounds=4, fatigue=1)
    d = S.derived(sheet)
    assert d["parry"] == 2 + 4 + 2
    assert d["wound_penalty"] == -3  # at most -3
    assert d["fatigue_penalty"] == -1


def test_default_sheet_is_valid_and_complete():
    sheet = S.default_sheet()
    S.validate_sheet(sheet)
    for f in S.sheet_fields():
        root = f.key.split(".")[0]
        assert root in sheet
    bad = S.default_sheet()
    bad["skills"]["fighting"] = "d9"
    with pytest.raises(RuleError):
        S.validate_sheet(bad)


# ---- trait rolls


def test_trait_roll_keeps_the_better_die():
    r = sw.trait_roll("d8", ScriptedDice([3, 5]))
    assert (r.trait.total, r.wild.total, r.total) == (3, 5, 5)
    assert r.success and r.raises == 0
    assert [r.trait.purpose, r.wild.purpose] == ["trait die", "Wild Die"]


def test_trait_roll_aces_and_raises():
    r = sw.trait_roll("d8", ScriptedDice([8, 4, 2]))  # d8 aces: 8 + 4 = 12
    assert r.total == 12 and r.raises == 2


def test_trait_roll_wild_die_aces():
    r = sw.trait_roll("d4", ScriptedDice([2, 6, 6, 1]))
    assert r.wild.total == 13 and r.total == 13


def test_trait_roll_modifiers_and_die_bonus():
    r = sw.trait_roll("d12+1", ScriptedDice([3, 2]), modifiers=[sw.Modifier("Wounds", -2, "x")])
    assert r.total == 3 + 1 - 2
    assert [m.value for m in r.modifiers] == [1, -2]


def test_extra_rolls_no_wild_die():
    dice = ScriptedDice([5])
    r = sw.trait_roll("d6", dice, wild_card=False)
    assert r.wild is None and r.total == 5 and dice.remaining == []


def test_double_ones_are_a_critical_failure_even_with_bonuses():
    r = sw.trait_roll("d6", ScriptedDice([1, 1]), modifiers=[sw.Modifier("bonus", 4, "x")])
    assert r.critical_failure and not r.success and r.raises == 0
    r2 = sw.trait_roll("d6", ScriptedDice([1, 2]))
    assert not r2.critical_failure


def test_interrupt_opposed_athletics():
    won = sw.interrupt("d8", "d6", ScriptedDice([7, 2, 3, 4]))
    assert won["first"] == "holder"
    lost = sw.interrupt("d8", "d6", ScriptedDice([2, 2, 5, 1]))
    assert lost["first"] == "actor"
    tie = sw.interrupt("d8", "d6", ScriptedDice([5, 1, 5, 2]))
    assert tie["first"] == "simultaneous"


def test_damage_expression_melee_and_objects():
    # the document's example: d8 Strength + d6 sword = d8+d6
    assert sw.damage_expression("Str+d6", "d8") == ("d8!+d6!", 0)
    assert sw.damage_expression("2d6+1", None) == ("2d6!+1", 1)
    assert sw.damage_expression("Str+d6", "d12+1") == ("d12!+1+d6!", 1)
    assert sw.damage_expression("Str+d4", "d6", explode=False) == ("d6+d4", 0)
    with pytest.raises(RuleError):
        sw.damage_expression("banana", "d6")


def test_melee_damage_document_example_rolls_and_aces():
    expr, _ = sw.damage_expression("Str+d6", "d8")
    roll = ScriptedDice([8, 3, 6, 2]).roll(expr, "damage")
    assert roll.total == 8 + 3 + 6 + 2


# ---- movement


def test_move_allowance():
    sheet = S.default_sheet()
    assert S.move_allowance(sheet) == 6
    assert S.move_allowance(sheet, "stand") == 4
    assert S.move_allowance(sheet, "run") == 12
    sheet["edges"] = ["Fleet-Footed"]
    assert S.move_allowance(sheet) == 8
    with pytest.raises(RuleError):
        S.move_allowance(sheet, "fly")


def test_run_adds_a_running_die_that_does_not_ace():
    out = S.run(S.default_sheet(), ScriptedDice([6]))
    assert out["allowance"] == 12
    assert out["modifier"]["value"] == -2


def _c(id, side, pos, **sheet):
    s = S.default_sheet()
    s.update(sheet)
    return Combatant(id, id, s, pos, side)


def test_withdraw_gives_free_attacks_to_adjacent_active_foes():
    mover = _c("hero", "pc", (5, 5))
    others = [
        _c("orc1", "npc", (4, 4)),
        _c("orc2", "npc", (6, 5), shaken=True),
        _c("orc3", "npc", (5, 6), stunned=True),
        _c("orc4", "npc", (7, 5)),  # not adjacent
        _c("ally", "pc", (5, 4)),
        _c("orc5", "npc", (6, 6), incapacitated=True),
        _c("orc6", "npc", (6, 4)),
    ]
    assert S.withdraw(mover, others) == ["orc1", "orc6"]


# ---- action deck


def test_new_deck_has_54_distinct_cards():
    deck = sw.new_deck()
    assert len(deck) == 54 and len(set(deck)) == 54
    assert "RJ" in deck and "BJ" in deck and "10H" in deck


def test_shuffle_is_fisher_yates_through_the_dice():
    cards = ["AS", "KS", "QS"]
    # i=2: d3 -> 1 swaps positions 2 and 0; i=1: d2 -> 2 keeps position 1
    out, rolls = sw.shuffle(cards, ScriptedDice([1, 2]))
    assert out == ["QS", "KS", "AS"]
    assert [r.expr for r in rolls] == ["d3", "d2"]


def test_shuffle_is_reproducible_with_a_seed():
    a = sw.fresh_deck(SeededDice(7))
    b = sw.fresh_deck(SeededDice(7))
    assert a == b and sorted(a["draw"]) == sorted(sw.new_deck())
    assert a["draw"] != sw.new_deck()


def _deck(order):
    rest = [c for c in sw.new_deck() if c not in order]
    return {"draw": list(order) + rest, "discard": [], "dealt": [], "joker_dealt": False}


def test_deal_round_wild_cards_and_extras_groups():
    combatants = [
        _c("hero", "pc", (0, 0)),
        _c("sidekick", "pc", (1, 0)),
        _c("goon1", "npc", (5, 5), wild_card=False, group="goons"),
        _c("goon2", "npc", (5, 6), wild_card=False, group="goons"),
        _c("boss", "npc", (6, 6)),
    ]
    for c in combatants:
        c.sheet["edges"] = []
    out = sw.deal_round(_deck(["5H", "QC", "KS", "2D"]), combatants, ScriptedDice([]))
    order = [(e["id"], e["card"]) for e in out["order"]]
    assert order == [("goon1", "KS"), ("goon2", "KS"), ("sidekick", "QC"), ("hero", "5H"), ("boss", "2D")]
    assert out["deck"]["dealt"] == ["5H", "QC", "KS", "2D"]
    assert len(out["deck"]["draw"]) == 50


def test_joker_gives_bennies_to_wild_cards_on_its_side_and_forces_reshuffle():
    combatants = [_c("hero", "pc", (0, 0)), _c("friend", "pc", (1, 0)),
                  _c("extra", "pc", (2, 0), wild_card=False), _c("boss", "npc", (5, 5))]
    for c in combatants:
        c.sheet["edges"] = []
    out = sw.deal_round(_deck(["RJ", "3C", "4C", "9S"]), combatants, ScriptedDice([]))
    assert out["order"][0]["id"] == "hero" and out["order"][0]["joker"]
    bennies = [e["target"] for e in out["effects"] if e["kind"] == "benny"]
    assert bennies == ["hero", "friend"]
    assert out["deck"]["joker_dealt"]
    # next round: a full 54-card reshuffle through the dice (53 rolls), then deals
    dice = SeededDice(3)
    nxt = sw.deal_round(out["deck"], combatants, dice)
    assert not nxt["deck"]["joker_dealt"] or any(e["joker"] for e in nxt["order"])
    assert len(nxt["deck"]["draw"]) + len(nxt["deck"]["dealt"]) == 54 and nxt["deck"]["discard"] == []


def test_without_a_joker_cards_go_to_the_discards():
    combatants = [_c("hero", "pc", (0, 0))]
    combatants[0].sheet["edges"] = []
    first = sw.deal_round(_deck(["5H"]), combatants, ScriptedDice([]))
    second = sw.deal_round(first["deck"], combatants, ScriptedDice([]))
    assert second["deck"]["discard"] == ["5H"]
    assert second["order"][0]["card"] == first["deck"]["draw"][0]


def test_level_headed_keeps_the_better_card_and_hesitant_the_worse():
    hero = _c("hero", "pc", (0, 0), edges=["Level Headed"])
    out = sw.deal_round(_deck(["3D", "JC"]), [hero], ScriptedDice([]))
    assert out["order"][0]["card"] == "JC" and out["order"][0]["drawn"] == ["3D", "JC"]
    slow = _c("slow", "pc", (0, 0), edges=[], hindrances=["Hesitant"])
    out = sw.deal_round(_deck(["3D", "JC"]), [slow], ScriptedDice([]))
    assert out["order"][0]["card"] == "3D"
    out = sw.deal_round(_deck(["BJ", "JC"]), [slow], ScriptedDice([]))
    assert out["order"][0]["card"] == "BJ"  # a Joker is always kept


def test_quick_redraws_five_or_lower():
    quick = _c("quick", "pc", (0, 0), edges=["Quick"])
    out = sw.deal_round(_deck(["5S", "2H", "8C"]), [quick], ScriptedDice([]))
    assert out["order"][0]["card"] == "8C" and out["order"][0]["drawn"] == ["5S", "2H", "8C"]


def test_card_edges_are_a_setting():
    hero = _c("hero", "pc", (0, 0), edges=["Tactician's Eye"])
    settings = {"card_edges": {"Tactician's Eye": {"extra": 2, "keep": "best"}}}
    out = sw.deal_round(_deck(["3D", "4D", "AH"]), [hero], ScriptedDice([]), settings)
    assert out["order"][0]["card"] == "AH"


def test_hold_keeps_hold_and_gets_no_card():
    hero = _c("hero", "pc", (0, 0), edges=[])
    hero.state["on_hold"] = True
    other = _c("orc", "npc", (3, 3), edges=[])
    out = sw.deal_round(_deck(["9H"]), [hero, other], ScriptedDice([]))
    assert [(e["id"], e["card"], e["on_hold"]) for e in out["order"]] == [("orc", "9H", False), ("hero", None, True)]


def test_surprise_attackers_hold_victims_roll_notice():
    ambusher = _c("ambusher", "npc", (0, 0), edges=[])
    ambusher.state["surprise"] = "attacker"
    alert = _c("alert", "pc", (3, 3), edges=[])
    alert.state["surprise"] = "victim"
    dozy = _c("dozy", "pc", (4, 3), edges=[])
    dozy.state["surprise"] = "victim"
    # alert: Notice d6 -> 5 (Wild 1): success; dozy: 2 and 3: failure
    out = sw.deal_round(_deck(["7S"]), [ambusher, alert, dozy], ScriptedDice([5, 1, 2, 3]), first_round=True)
    assert [e["id"] for e in out["order"]] == ["alert", "ambusher"]
    assert out["order"][1]["on_hold"]
    assert [(e["id"], e["reason"]) for e in out["not_acting"]] == [("dozy", "Surprised (failed Notice)")]
    assert len(out["rolls"]) == 4


def test_deck_runs_out_and_refills_from_discards():
    deck = {"draw": ["AS"], "discard": [c for c in sw.new_deck() if c != "AS"], "dealt": [], "joker_dealt": False}
    card, deck = sw.draw_card(deck, SeededDice(1))
    assert card == "AS"
    card2, deck = sw.draw_card(deck, SeededDice(1))
    assert card2 != "AS" and len(deck["draw"]) == 52 and deck["discard"] == []


def test_a_broken_deck_is_refused():
    with pytest.raises(RuleError):
        sw.start_round({"draw": ["AS", "AS"]}, SeededDice(1))


def test_initiative_protocol_returns_the_order():
    hero = _c("hero", "pc", (0, 0), edges=[])
    order = S.initiative([hero], SeededDice(5))
    assert order[0]["id"] == "hero" and order[0]["card"]
