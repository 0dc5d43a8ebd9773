"""Tesseris (ADS): ticks, surprise, initiative, delay, movement, reactive attacks,
status effects, Stamina/Wounds bookkeeping, swordpoint and social statuses."""

from types import SimpleNamespace

import pytest

from rules.dice import ScriptedDice
from rules.system import Combatant, RuleError, RuleNotImplemented
from rules.tesseris_ads import SYSTEM
from rules.tesseris_ads import actions, cover, health, movement, status, ticks, turns
from rules.tesseris_ads.data import ACTIONS, STATUS_EFFECTS


def sheet(**over):
    base = SYSTEM.default_sheet()
    base.update(over)
    return base


def who(id_, pos=(0, 0), side="pc", state=None, player=None, **over):
    return Combatant(id_, id_.title(), sheet(**over), pos, side, side == "pc" if player is None else player, dict(state or {}))


# -- ticks ----------------------------------------------------------------------------

def test_action_table_costs():
    assert (ACTIONS["melee_strike"].ticks, ACTIONS["precision_strike"].attack) == (2, 1)
    assert (ACTIONS["charge"].ticks, ACTIONS["charge"].attack, ACTIONS["charge"].move_multiple) == (4, 1, 2)
    assert (ACTIONS["burst_fire"].ticks, ACTIONS["burst_fire"].attack) == (3, -1)
    assert (ACTIONS["full_auto"].ticks, ACTIONS["full_auto"].attack) == (5, -2)
    assert ACTIONS["duck"].reaction_ticks == 0 and ACTIONS["dodge"].reaction_ticks == 1
    assert ACTIONS["move"].provokes == "path" and ACTIONS["stand_up"].provokes == "adjacent"
    assert ACTIONS["quick_step"].provokes is None
    assert (ACTIONS["motivate"].ticks, ACTIONS["charm"].ticks) == (1, 2)


def test_spend_ticks_free_reaction_and_borrowing():
    s = ticks.fresh_state({})
    assert s["ticks"] == 5
    s = ticks.spend(s, "melee_strike")
    s = ticks.spend(s, "precision_strike")
    assert s["ticks"] == 0 and s["attacks"] == 2
    s = ticks.spend(s, "dodge", reaction=True)  # the free Reaction
    assert s["ticks"] == 0 and not s["free_reaction"]
    s = ticks.spend(s, "block", reaction=True)  # borrowed from the next round
    assert s["ticks"] == -1
    with pytest.raises(RuleError):
        ticks.spend(s, "melee_strike")
    ticks.spend(s, "melee_strike", gm_allows_borrowing=True)
    nxt = turns.new_round(s, {})
    assert nxt["ticks"] == 4 and nxt["free_reaction"] and nxt["attacks"] == 0


def test_tick_bonus_and_status_tick_loss():
    sh = {"tick_bonus": 1, "statuses": [{"name": "Dazed", "rounds": 2}]}
    s = turns.new_round(ticks.fresh_state(sh), sh)
    assert s["ticks"] == 6 - 1
    assert [(x["name"], x["rounds"]) for x in s["status_update"]["statuses"]] == [("Dazed", 1)]


def test_once_per_round_and_run_restrictions():
    s = ticks.spend(ticks.fresh_state({}), "aim")
    with pytest.raises(RuleError):
        ticks.spend(s, "aim")
    s = ticks.spend(ticks.fresh_state({}), "run")
    with pytest.raises(RuleError):
        ticks.spend(s, "straight_shot")
    assert "ran" not in turns.start_turn(s)["stances"]
    with pytest.raises(RuleError):
        ticks.spend(ticks.fresh_state({}), "dodge")  # reaction only
    with pytest.raises(RuleError):
        ticks.spend(ticks.fresh_state({}), "hunker_down")  # not in cover


def test_take_cover_reaction_costs_the_setting():
    s = ticks.spend(ticks.fresh_state({}), "take_cover", reaction=True, settings={"take_cover_reaction_ticks": 2})
    assert s["ticks"] == 4 and not s["free_reaction"]


def test_surprise_round():
    hidden = [who("h1", stealth=3), who("h2", stealth=0)]
    unaware = [who("u1", side="npc", awareness=0), who("u2", side="npc", awareness=5)]
    # stealth: h1 Agility 3dT [6,6,1] = 2 + 3 = 5; h2 [1,1,1] = 0; awareness u1 3dT [6,1,1] = 1; u2 [1,1,1] = 5
    out = turns.surprise(unaware, hidden, ScriptedDice([6, 6, 1, 1, 1, 1, 6, 1, 1, 1, 1, 1]))
    assert out["combatants"]["u1"]["aware"] is False
    assert out["combatants"]["u2"]["aware"] is True  # a tie goes to the one noticing
    st = out["combatants"]["u1"]["state"]
    assert st["surprised"] and st["ticks"] == 3
    with pytest.raises(RuleError):
        ticks.spend(st, "melee_strike")
    st = ticks.spend(st, "dodge", reaction=True)
    st = ticks.spend(st, "block", reaction=True)
    st = ticks.spend(st, "parry", reaction=True)
    with pytest.raises(RuleError):
        ticks.spend(st, "dodge", reaction=True)


def test_initiative_order_and_ties():
    a = who("a", agility=3, speed=3)
    b = who("b", side="npc", agility=4, speed=2)
    c = who("c", side="npc", agility=3, speed=3)
    d = who("d", agility=3, speed=3)
    # a 5 -> 11, b 5 -> 11, c 5 -> 11, d 5 -> 11: b first (Agility), then players a, d (GM decides), then c
    rows = SYSTEM.initiative([a, b, c, d], ScriptedDice([5, 5, 5, 5]))
    assert [r["id"] for r in rows] == ["b", "a", "d", "c"]
    assert rows[0]["total"] == 11
    assert rows[1]["gm_decides"] and rows[1]["tied_with"] == ["d"]
    assert not rows[3]["gm_decides"]


def test_delay_and_forfeit():
    order = [{"id": "a", "total": 12}, {"id": "b", "total": 9}, {"id": "c", "total": 4}]
    o = turns.delay(order, "a")
    assert [r["id"] for r in o] == ["b", "a", "c"] and o[1]["total"] == 8
    o = turns.delay(o, "a")
    assert [r["id"] for r in o] == ["b", "c", "a"] and o[2]["total"] == 3 and o[2]["delays"] == 2
    assert turns.delay_forfeits([{"id": "x", "delays": 2}, {"id": "y", "delays": 2}], ["x", "y"]) == ["x", "y"]
    assert turns.delay_forfeits([{"id": "x", "delays": 2}, {"id": "y", "delays": 1}], ["x", "y"]) == []
    with pytest.raises(RuleError):
        turns.delay(order, "c")


# -- movement and reactive attacks ------------------------------------------------------

def test_move_allowances():
    sh = sheet(speed=3)
    assert [SYSTEM.move_allowance(sh, k) for k in ("move", "run", "sprint", "charge", "quick_step", "dive_for_cover")] == [3, 12, 18, 6, 1, 3]
    assert SYSTEM.move_allowance(sheet(speed=3, statuses=[{"name": "Slowed"}]), "move") == 2


def test_check_move_diagonals_sprint_and_charge():
    assert movement.path_squares([(0, 0), (1, 1), (2, 2), (3, 3)]) == 4
    with pytest.raises(RuleError):
        movement.check_move(sheet(), "move", [(0, 0), (1, 1), (2, 2), (3, 3)])
    straight_then_turn = [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]
    assert movement.check_move(sheet(), "sprint", straight_then_turn)["squares"] == 4
    with pytest.raises(RuleError):
        movement.check_move(sheet(), "sprint", [(0, 0), (1, 0), (1, 1), (2, 1)])  # two turns
    with pytest.raises(RuleError):
        movement.check_move(sheet(), "sprint", [(0, 0), (1, 0), (2, 0), (1, 0)])  # turns back
    with pytest.raises(RuleError):
        movement.check_move(sheet(), "charge", [(0, 0), (1, 0)])
    with pytest.raises(RuleError):
        movement.check_move(sheet(), "move", [(0, 0), (1, 0)], {"quick_step": True})


def test_reactive_attackers():
    mover = who("m", (5, 5))
    foe_near = who("f1", (6, 5), side="npc")
    foe_path = who("f2", (8, 4), side="npc")
    foe_far = who("f3", (12, 12), side="npc")
    foe_spent = who("f4", (4, 4), side="npc", state={"ticks": 0, "free_reaction": False})
    ally = who("a1", (5, 6))
    out = movement.reactive_attackers("move", mover, [foe_near, foe_path, foe_far, foe_spent, ally], path=[(5, 5), (6, 4), (7, 4), (7, 3)])
    assert out == ["f1", "f2"]
    assert movement.reactive_attackers("stand_up", mover, [foe_near, foe_path]) == ["f1"]
    assert movement.reactive_attackers("quick_step", mover, [foe_near]) == []
    assert movement.reactive_attackers("dive_for_cover", mover, [foe_near], path=[(5, 5), (4, 5)]) == ["f1"]


# -- cover ----------------------------------------------------------------------------

def test_take_cover_locations():
    board = SimpleNamespace(cover_pieces={"c1": SimpleNamespace(id="c1", cell=(3, 3), material="stone")})
    s = cover.take_cover({}, board, (3, 4), on_turn=True)
    assert cover.covered_locations(s) == ("legs", "torso") and s["cover_pieces"] == ["c1"]
    r = cover.take_cover({}, board, (4, 4), on_turn=False)
    assert cover.covered_locations(r) == ("arms", "head")
    r2 = turns.new_round(r, {})
    # "Taking Cover": head and arms "for the remainder of the round. After the start of the
    # next round ... their Legs and Torso will count as being in cover" (not all four)
    assert set(cover.covered_locations(r2)) == {"legs", "torso"}
    td = {**s, "stances": ["total_defense"]}
    assert cover.covered_locations(td) == cover.ALL_LOCATIONS
    with pytest.raises(RuleError):
        cover.take_cover({}, board, (8, 8))
    assert cover.defense_bonus(s) == 2 and cover.defense_bonus({**s, "stances": ["hunkered"]}) == 4
    assert cover.leave_cover(s)["in_cover"] is False


def test_cover_section_damage_accumulates_and_breaks():
    e = cover.damage_section("c1", "wood_thin", 6, 0)
    assert [x.kind for x in e] == ["cover_damage"] and e[0].data["remaining"] == 4
    e = cover.damage_section("c1", "wood_thin", 4, 6)
    assert [x.kind for x in e] == ["cover_damage"]  # exactly 10: not yet more than its SP
    e = cover.damage_section("c1", "wood_thin", 1, 10, cell=(2, 2))
    assert [x.kind for x in e] == ["cover_damage", "cover_destroyed"] and e[1].data["cell"] == [2, 2]
    assert cover.damage_section("c1", "stone", 0) == []


# -- status effects -------------------------------------------------------------------

def test_status_levels_and_escalation():
    assert STATUS_EFFECTS["Stunned"].level == 2 and STATUS_EFFECTS["Unconscious"].level == 3
    s, applied = status.escalate([], ("Dazed", "Stunned"))
    assert applied == "Dazed"
    s, applied = status.escalate(s, ("Dazed", "Stunned"))
    assert applied == "Stunned" and status.names(s) == {"Stunned"}


def test_status_rounds_and_end_of_scene():
    st = [{"name": "Stunned", "rounds": 2}, {"name": "Bleeding", "rounds": None}]
    r1 = status.start_of_round(st)
    assert r1["ticks_lost"] == 2 and r1["damage"] == 1
    r2 = status.start_of_round(r1["statuses"])
    assert status.names(r2["statuses"]) == {"Dazed", "Bleeding"}  # Stunned becomes Dazed
    r3 = status.start_of_round(status.start_of_round(r2["statuses"])["statuses"])
    assert status.names(r3["statuses"]) == {"Bleeding"}
    scene = status.end_of_scene([{"name": n} for n in ("Frightened", "Terrified", "Pinned", "Bloodied", "Unconscious", "Dejected")])
    assert status.names(scene) == {"Frightened", "Grappled", "Unconscious", "Disheartened"}


def test_status_modifiers():
    mods = status.status_modifiers([{"name": "Blinded"}, {"name": "Dazed"}], "ranged_attack")
    assert sum(m.value for m in mods) == -6 - 1
    mods = status.status_modifiers([{"name": "Blinded"}], "defense")
    assert sum(m.value for m in mods) == -2
    with pytest.raises(RuleError):
        status.add_status([], "Sparkly")


def test_social_statuses():
    s, a = actions.social_status([], "charm")
    assert a == "Attracted"
    s, a = actions.social_status(s, "charm")
    assert a == "Enticed" and status.names(s) == {"Enticed"}
    s, a = actions.social_status([{"name": "Terrified"}], "intimidate")
    assert a == "Fleeing"
    assert status.names(actions.rally([{"name": "Terrified"}], "Terrified")) == {"Frightened"}
    assert actions.per_three(8) == 2
    with pytest.raises(RuleNotImplemented):
        actions.social_status([], "bribe")
    with pytest.raises(RuleNotImplemented):
        actions.social_combat()


# -- Stamina, Wounds, Ego, death --------------------------------------------------------

def test_take_damage_bookkeeping():
    sh = sheet(strength=3, willpower=3, ego=10)  # Stamina 19
    out, split = health.take_damage(sh, 12)
    assert split == {"stamina": 12, "wounds": 2}
    assert out["stamina"] == 7 and out["wounds"] == 2 and out["ego"] == 8
    out, split = health.take_damage(out, 10)
    assert split == {"stamina": 7, "wounds": 3 + 1}
    assert out["stamina"] == 0 and out["wounds"] == 6 and "Bloodied" in status.names(out["statuses"])
    assert SYSTEM.derived(out)["wound_penalty"] == -2
    assert sh["wounds"] == 0  # the given sheet is untouched


def test_consciousness_bleeding_death_and_fate():
    sh = sheet(stamina=0, wounds=4, willpower=3, resolve=1)
    ok = health.consciousness_check(sh, ScriptedDice([6, 6, 6]))
    assert ok["needed"] and ok["passed"] and ok["total"] == 4  # no wound penalty here
    ko = health.consciousness_check(sh, ScriptedDice([6, 1, 1]))
    assert not ko["passed"] and ko["sheet"]["dying"] and "Unconscious" in status.names(ko["sheet"]["statuses"])
    assert health.consciousness_check(sheet(stamina=3), ScriptedDice([]))["needed"] is False
    bled = health.bleed_out(ko["sheet"], 6)
    assert bled["wounds"] == 10 and health.is_dead(bled)
    saved = health.burn_fate_point(bled, "lost an eye")
    assert saved["fate_points"] == 0 and not health.is_dead(saved) and saved["crippling"] == ["lost an eye"]
    with pytest.raises(RuleError):
        health.burn_fate_point(saved, "again")
    woke = health.regain_stamina(ko["sheet"], 1)
    assert not woke["dying"] and "Unconscious" not in status.names(woke["statuses"])


def test_end_of_combat():
    sh = sheet(stamina=2, wounds=3, mayhem=4, statuses=[{"name": "Dazed"}, {"name": "Stunned"}, {"name": "Surrendered"}])
    out = health.end_of_combat(sh)
    assert out["stamina"] == 19 - 3 and out["mayhem"] == 0
    assert status.names(out["statuses"]) == {"Dazed", "Surrendered"}


def test_dead_effect_from_an_attack():
    from rules.system import AttackRequest

    a = who("a", melee=4)
    t = who("t", (1, 0), side="npc", stamina=0, wounds=8)
    r = SYSTEM.attack(AttackRequest(a, t, "knife", options={"defense": "none", "settings": {"critical_hit": "flag_only"}}), ScriptedDice([1, 1, 1]))
    assert any(e.kind == "dead" for e in r.effects)


# -- swordpoint ----------------------------------------------------------------------

def test_swordpoint_initiation():
    a, d = who("a", (0, 0)), who("d", (1, 0), side="npc")
    assert actions.can_initiate_swordpoint(a, d, ["unaware"], "knife")
    with pytest.raises(RuleError):
        actions.can_initiate_swordpoint(a, d, [], "knife")
    with pytest.raises(RuleError):
        actions.can_initiate_swordpoint(a, who("d", (5, 0), side="npc"), ["helpless"], "knife")
    with pytest.raises(RuleError):
        actions.can_initiate_swordpoint(a, d, ["unarmed"], "knife")  # the defender has weapons
    unarmed = who("d", (1, 0), side="npc", weapons={})
    assert actions.can_initiate_swordpoint(a, unarmed, ["unarmed"], "knife")


def test_sheet_fields_and_default_sheet():
    keys = {f.key for f in SYSTEM.sheet_fields()}
    sh = SYSTEM.default_sheet()
    assert keys <= set(sh)
    d = SYSTEM.derived(sh)
    assert d["max_stamina"] == 10 + 2 * sh["strength"] + sh["willpower"]
    assert d["ticks_per_round"] == 5 and d["move"] == 3
    assert SYSTEM.range_band(3, sh["weapons"]["rifle"]) == "short"
    assert SYSTEM.range_band(1, sh["weapons"]["knife"]) == "melee"
