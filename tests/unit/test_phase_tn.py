"""phase_tn: the phase clock, declarations, targeting and the example of Leroy and Earl."""

import pytest

from rules import phase_tn as pt
from rules.dice import ScriptedDice
from rules.system import Combatant, RuleError, RuleNotImplemented, RuleSystem


def sheet(**attrs):
    s = pt.SYSTEM.default_sheet()
    s["attributes"].update(attrs)
    return s


LEROY = sheet(reflexes=6, intelligence=5)
EARL = sheet(reflexes=7, intelligence=6)
SHEETS = {"leroy": LEROY, "earl": EARL}


def test_system_is_a_rule_system():
    assert isinstance(pt.SYSTEM, RuleSystem)
    assert pt.SYSTEM.id == "phase_tn" and pt.SYSTEM.board == "grid"
    assert pt.SYSTEM.sheet_template == "sheets/_phase_tn.html"
    assert pt.SYSTEM.help_template == "help/phase_tn.html"


def test_leroy_and_earl():
    state = pt.new_combat(["leroy", "earl"])
    assert state["phase"] == 1
    # phase 1: d10 + Reflexes + Intelligence: 5 + 11 = 16, 8 + 13 = 21
    state, rolls = pt.begin_phase(state, SHEETS, ScriptedDice([5, 8]))
    assert state["initiative"] == {"leroy": 16, "earl": 21}
    assert state["order"] == ["leroy", "earl"]
    with pytest.raises(RuleError, match="leroy declares before earl"):
        pt.declare(state, "earl", [{"name": "draw", "length": "phase"}])
    state = pt.declare(state, "leroy", [{"name": "draw", "length": "phase"}])
    # Earl's fastdraw: his roll succeeds, so the draw is a free action
    fast = pt.attribute_roll(EARL, "reflexes", 10, ScriptedDice([4]), skill="fastdraw")
    assert fast["total"] == 4 + 7 + 2 and fast["success"]
    state = pt.declare(
        state,
        "earl",
        [{"name": "draw", "free": True}, {"name": "target", "target": "leroy", "note": "head"}],
    )
    assert pt.next_declarer(state) is None
    state, groups = pt.end_phase(state)
    assert [g["length"] for g in groups] == ["free", "phase"]
    assert [(a["who"], a["name"]) for a in groups[0]["actions"]] == [("earl", "draw")]
    assert {(a["who"], a["name"]) for a in groups[1]["actions"]} == {("leroy", "draw"), ("earl", "target")}
    assert pt.is_targeted(state["targeting"], "earl", "leroy")
    assert state["targeting"]["earl"]["acquired_phase"] == 1
    # phase 2: initiative again, Earl wins again; Leroy holsters and surrenders
    assert state["phase"] == 2 and state["pending"] == []
    state, _ = pt.begin_phase(state, SHEETS, ScriptedDice([3, 9]))
    assert state["initiative"] == {"leroy": 14, "earl": 22}
    assert state["order"] == ["leroy", "earl"]
    state = pt.declare(
        state, "leroy", [{"name": "holster", "length": "phase"}, {"name": "say: I surrender", "free": True}]
    )
    assert [a["length"] for a in state["pending"]] == ["phase", "free"]
    state = pt.declare(state, "earl", [])
    state, groups = pt.end_phase(state)
    assert [(g["length"], [a["name"] for a in g["actions"]]) for g in groups] == [
        ("free", ["say: I surrender"]),
        ("phase", ["holster"]),
    ]
    assert pt.is_targeted(state["targeting"], "earl", "leroy")


def test_failed_fastdraw_leaves_no_phase_action_for_targeting():
    state = pt.new_combat(["leroy", "earl"])
    state, _ = pt.begin_phase(state, SHEETS, ScriptedDice([5, 8]))
    state = pt.declare(state, "leroy", [{"name": "draw", "length": "phase"}])
    fast = pt.attribute_roll(EARL, "reflexes", 15, ScriptedDice([1]), skill="fastdraw")
    assert not fast["success"]
    with pytest.raises(RuleError, match="one new action"):
        pt.declare(state, "earl", [{"name": "draw", "length": "phase"}, {"name": "target", "target": "leroy"}])


def test_one_free_action_a_phase_by_default_and_setting_changes_it():
    state = pt.new_combat(["a"])
    state, _ = pt.begin_phase(state, {"a": sheet()}, ScriptedDice([5]))
    two = [{"name": "shout", "free": True}, {"name": "wave", "free": True}]
    with pytest.raises(RuleError, match="free action"):
        pt.declare(state, "a", two)
    after = pt.declare(state, "a", two, {"free_actions_per_phase": 2})
    assert len(after["pending"]) == 2


def test_waiting_character_cannot_declare_until_the_action_resolves():
    state = pt.new_combat(["a", "b"])
    sheets = {"a": sheet(), "b": sheet()}
    state, _ = pt.begin_phase(state, sheets, ScriptedDice([1, 2]))
    state = pt.declare(state, "a", [{"name": "first aid", "length": "round"}])
    (action,) = state["pending"]
    assert action["resolves_phase"] == 2
    state = pt.declare(state, "b", [{"name": "fire", "target": "a"}])
    state, groups = pt.end_phase(state)
    assert [g["length"] for g in groups] == ["phase"]
    assert pt.is_waiting(state, "a") and not pt.is_waiting(state, "b")
    state, rolls = pt.begin_phase(state, sheets, ScriptedDice([4]))
    assert [r["who"] for r in rolls] == ["b"] and state["order"] == ["b"]
    with pytest.raises(RuleError, match="waiting"):
        pt.declare(state, "a", [{"name": "fire", "target": "b"}])
    state = pt.declare(state, "b", [{"name": "fire", "target": "a"}])
    state, groups = pt.end_phase(state)
    # a round action ending with a phase action: the phase action first
    assert [(g["length"], [x["who"] for x in g["actions"]]) for g in groups] == [("phase", ["b"]), ("round", ["a"])]
    state, rolls = pt.begin_phase(state, sheets, ScriptedDice([4, 4]))
    assert set(state["order"]) == {"a", "b"}


def test_free_while_waiting_setting_lets_a_waiting_character_declare_free_actions():
    s = {"free_while_waiting": True}
    state = pt.new_combat(["a"], settings=s)
    state, _ = pt.begin_phase(state, {"a": sheet()}, ScriptedDice([3]), s)
    state = pt.declare(state, "a", [{"name": "first aid", "length": "round"}], s)
    state, _ = pt.end_phase(state, s)
    state, _ = pt.begin_phase(state, {"a": sheet()}, ScriptedDice([3]), s)
    assert state["order"] == ["a"]
    with pytest.raises(RuleError, match="waiting"):
        pt.declare(state, "a", [{"name": "fire", "target": "b"}], s)
    state = pt.declare(state, "a", [{"name": "talk", "free": True}], s)
    assert len(state["pending"]) == 2


def test_surprise_one_round_then_reflexes_tn8_with_plus_one_per_failure():
    state = pt.new_combat(["ambusher", "victim"], surprised_ids=["victim"])
    sheets = {"ambusher": sheet(), "victim": sheet(reflexes=5)}
    # phases 1 and 2 (one round of 2 phases): the victim neither rolls nor declares
    for _ in range(2):
        state, rolls = pt.begin_phase(state, sheets, ScriptedDice([5]))
        assert [r["kind"] for r in rolls] == ["initiative"] and state["order"] == ["ambusher"]
        state = pt.declare(state, "ambusher", [])
        state, _ = pt.end_phase(state)
    # phase 3: 2 + 5 = 7 < 8, failed
    state, rolls = pt.begin_phase(state, sheets, ScriptedDice([2, 5]))
    assert rolls[0]["kind"] == "surprise" and rolls[0]["total"] == 7 and not rolls[0]["success"]
    assert state["surprise"]["victim"]["failures"] == 1 and state["order"] == ["ambusher"]
    state = pt.declare(state, "ambusher", [])
    state, _ = pt.end_phase(state)
    # phase 4: the same 2 now totals 8 with the +1, and the victim declares this phase
    state, rolls = pt.begin_phase(state, sheets, ScriptedDice([2, 5, 5]))
    assert rolls[0]["total"] == 8 and rolls[0]["success"]
    assert "victim" not in state["surprise"] and set(state["order"]) == {"ambusher", "victim"}


def test_who_is_surprised():
    aware = {"earl": ["leroy"], "leroy": []}
    assert pt.surprised(aware, [("earl", "leroy"), ("leroy", "earl")]) == {"leroy"}
    assert pt.surprised(aware, []) == set()


def test_surprise_tn_is_a_setting():
    entry = {"from_phase": 1, "failures": 0}
    after, roll = pt.surprise_check(entry, sheet(reflexes=5), ScriptedDice([2]), {"surprise_tn": 7})
    assert after is None and roll["success"]


def test_target_and_fire_targets_first_phase_fires_two_shots_last_and_is_locked():
    state = pt.new_combat(["a", "b"])
    sheets = {"a": sheet(), "b": sheet()}
    state, _ = pt.begin_phase(state, sheets, ScriptedDice([1, 9]))
    state = pt.declare(state, "a", [{"name": "target_and_fire", "target": "b"}])
    (action,) = state["pending"]
    assert action["length"] == "round" and action["combined"] and action["shots"] == 2
    assert action["resolves_phase"] == 2
    with pytest.raises(RuleError, match="cancel"):
        pt.change_target(state, action["id"], "c")
    state = pt.declare(state, "b", [])
    state, groups = pt.end_phase(state)
    assert groups[0]["length"] == "phase" and groups[0]["actions"][0]["step"]["kind"] == "target"
    assert pt.is_targeted(state["targeting"], "a", "b")
    state, _ = pt.begin_phase(state, sheets, ScriptedDice([4]))
    assert state["order"] == ["b"]
    state = pt.declare(state, "b", [])
    state, groups = pt.end_phase(state)
    assert [(g["length"], g["actions"][0]["name"]) for g in groups] == [("round", "target_and_fire")]


def test_cancel_frees_the_character():
    state = pt.new_combat(["a"])
    state, _ = pt.begin_phase(state, {"a": sheet()}, ScriptedDice([1]))
    state = pt.declare(state, "a", [{"name": "full_auto", "target": "b"}])
    state, _ = pt.end_phase(state)
    assert pt.is_waiting(state, "a")
    state = pt.cancel_action(state, state["pending"][0]["id"])
    assert not pt.is_waiting(state, "a") and state["pending"] == []
    with pytest.raises(RuleError):
        pt.cancel_action(state, "a99")


def test_phase_action_may_change_target_and_that_loses_targeting():
    state = pt.new_combat(["a"])
    state["targeting"] = pt.acquire_target({}, "a", "b", 0)
    state, _ = pt.begin_phase(state, {"a": sheet()}, ScriptedDice([1]))
    state = pt.declare(state, "a", [{"name": "fire", "target": "b"}])
    assert pt.is_targeted(state["targeting"], "a", "b")
    state = pt.change_target(state, state["pending"][0]["id"], "c")
    assert state["pending"][0]["target"] == "c" and "a" not in state["targeting"]


def test_declaring_a_shot_at_another_target_loses_targeting():
    state = pt.new_combat(["a"])
    state["targeting"] = pt.acquire_target({}, "a", "b", 0)
    state, _ = pt.begin_phase(state, {"a": sheet()}, ScriptedDice([1]))
    after = pt.declare(state, "a", [{"name": "fire", "target": "c"}])
    assert after["targeting"] == {}
    kept = pt.declare(state, "a", [{"name": "reload", "length": "phase"}])
    assert pt.is_targeted(kept["targeting"], "a", "b")


def test_targeting_lost_when_target_leaves_view():
    targeting = {"a": {"target": "b", "acquired_phase": 1}, "c": {"target": "d", "acquired_phase": 1}}
    kept, lost = pt.check_targeting(targeting, {"a": (0, 0), "b": None, "c": (1, 1), "d": (2, 2)})
    assert kept == {"c": targeting["c"]}
    assert lost == [{"shooter": "a", "target": "b", "reason": "target left view"}]
    kept, lost = pt.check_targeting(targeting, {"a": (0, 0), "b": (1, 0), "c": (1, 1), "d": (2, 2)}, in_view={"a": {"b"}, "c": set()})
    assert list(kept) == ["a"] and lost[0]["shooter"] == "c"
    assert pt.lose_targeting(targeting, "a") == {"c": targeting["c"]}


def test_targeting_lost_when_line_of_fire_breaks():
    board_mod = pytest.importorskip("rules.board")
    pytest.importorskip("rules.los")
    board = board_mod.Board(10, 10)
    targeting = {"a": {"target": "b", "acquired_phase": 1}}
    positions = {"a": (0, 0), "b": (4, 0)}
    kept, lost = pt.check_targeting(targeting, positions, board=board)
    assert kept == targeting and lost == []
    board.add_wall((2, 0), (2, 1))
    kept, lost = pt.check_targeting(targeting, positions, board=board)
    assert kept == {} and lost[0]["reason"] == "line of fire broken"


def test_check_targeting_asks_line_of_fire_when_given_a_board(monkeypatch):
    """The board path with a stand-in rules.los, so it is tested before the real one lands."""
    import sys
    import types

    import rules

    calls = []

    def line_of_fire(board, a, b):
        calls.append((board, a, b))
        return types.SimpleNamespace(clear=b not in board["walled"], cells=[], blockers=[])

    fake = types.ModuleType("rules.los")
    fake.line_of_fire = line_of_fire
    monkeypatch.setitem(sys.modules, "rules.los", fake)
    monkeypatch.setattr(rules, "los", fake, raising=False)
    board = {"walled": [(4, 0)]}
    targeting = {"a": {"target": "b", "acquired_phase": 1}, "c": {"target": "d", "acquired_phase": 2}}
    positions = {"a": (0, 0), "b": (4, 0), "c": [1, 1], "d": (2, 2)}
    kept, lost = pt.check_targeting(targeting, positions, board=board)
    assert kept == {"c": targeting["c"]}
    assert lost == [{"shooter": "a", "target": "b", "reason": "line of fire broken"}]
    assert ((board, (1, 1), (2, 2))) in calls


def test_clock_and_lengths_follow_settings():
    assert pt.length_in_phases("round") == 2
    assert pt.length_in_phases("minute") == 60
    assert pt.resolves_at(3, "turn") == 12
    assert pt.resolves_at(1, "round", {"phases_per_round": 3}) == 3
    assert pt.clock(5) == {"phase": 5, "round": 3, "phase_in_round": 1, "turn": 1, "minute": 1}
    assert pt.clock(11)["turn"] == 2
    with pytest.raises(RuleError):
        pt.length_in_phases("week")
    with pytest.raises(RuleError):
        pt.resolve_settings({"roll_dice": "banana"})
    with pytest.raises(RuleError):
        pt.resolve_settings({"no_such": 1})


def test_roll_dice_setting_changes_initiative():
    two = pt.roll_initiative(LEROY, ScriptedDice([3, 4]), {"roll_dice": "2d10"})
    assert two["total"] == 3 + 4 + 11 and two["roll"].faces == [3, 4]
    one = pt.roll_initiative(LEROY, ScriptedDice([3]), {"initiative_attributes": ["reflexes"]})
    assert one["total"] == 9


def test_system_initiative_lists_declaration_order():
    cs = [Combatant("earl", "Earl", EARL), Combatant("leroy", "Leroy", LEROY)]
    out = pt.SYSTEM.initiative(cs, ScriptedDice([8, 5]))
    assert [(e["id"], e["total"], e["declares"]) for e in out] == [("leroy", 16, 1), ("earl", 21, 2)]


def test_reflexes_tie_break_setting():
    state = pt.new_combat(["a", "b"])
    sheets = {"a": sheet(reflexes=7, intelligence=3), "b": sheet(reflexes=5, intelligence=5)}
    by_name, _ = pt.begin_phase(state, sheets, ScriptedDice([5, 5]))
    assert by_name["order"] == ["a", "b"]
    by_reflexes, _ = pt.begin_phase(state, sheets, ScriptedDice([5, 5]), {"initiative_ties": "reflexes"})
    assert by_reflexes["order"] == ["b", "a"]


def test_unimplemented_parts_say_so():
    assert pt.SYSTEM.move_allowance(sheet()) == 3  # a reading: the move_per_phase setting
    with pytest.raises(RuleNotImplemented):
        pt.SYSTEM.range_band(3, {})
    with pytest.raises(RuleNotImplemented):
        pt.SYSTEM.cover_effect(None)
