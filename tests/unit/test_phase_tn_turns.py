"""phase_tn: the fight lifecycle (begin_fight, act, next_turn, actions) against
*Phase/TN Combat Sequence*, with scripted dice: Leroy and Earl over two rounds."""

import json

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from rules import phase_tn as pt
from rules.dice import ScriptedDice, SeededDice
from rules.system import Combatant, RuleError, RuleNotImplemented

SYSTEM = pt.SYSTEM


def sheet(reflexes=5, intelligence=5, **extra):
    s = SYSTEM.default_sheet()  # a semi-automatic sidearm, fastdraw 2, handguns 3
    s["attributes"].update(reflexes=reflexes, intelligence=intelligence)
    s.update(extra)
    return s


def fighters(state=None, **sheets):
    return [Combatant(i, i.title(), s, state=dict((state or {}).get(i, {}))) for i, s in sheets.items()]


LEROY = sheet(reflexes=6, intelligence=5)  # initiative d10 + 11
EARL = sheet(reflexes=7, intelligence=6)  # initiative d10 + 13


def by_id(cs, who):
    return next(c for c in cs if c.id == who)


def test_two_rounds_of_leroy_and_earl():
    """"Initiative and Actions": the encounter begins on phase 1; Leroy totals 16 and Earl
    21, "so Leroy must declare actions first"; Leroy draws (a phase action), Earl draws
    with fastdraw (a free action on a success) and so still has a phase action, which
    he uses to target Leroy's head. "At the beginning of phase 2, Initiative is rolled;
    Earl again wins"; Leroy holsters and uses his free action to surrender. Free
    actions resolve before phase actions, phase before round."""
    cs = fighters(leroy=LEROY, earl=EARL)
    up = SYSTEM.begin_fight(cs, ScriptedDice([5, 8]))
    assert (up.round, up.phase, up.order, up.current) == (1, "phase 1 of 2 · declarations", ["leroy", "earl"], "leroy")
    assert up.state["combatants"]["leroy"]["initiative"] == 16 and up.state["combatants"]["earl"]["initiative"] == 21
    assert [r.purpose for r in up.rolls] == ["Leroy's initiative", "Earl's initiative"]  # whose roll each is
    json.dumps(up.to_dict())  # the state is stored as JSON

    with pytest.raises(RuleError, match="Leroy declares before Earl"):
        SYSTEM.act(up.state, by_id(cs, "earl"), "wait", cs, ScriptedDice([]))
    up = SYSTEM.act(up.state, by_id(cs, "leroy"), "declare", cs, ScriptedDice([]),
                    options={"actions": [{"name": "draw", "length": "phase"}]})
    assert up.current == "earl"
    # Earl's fastdraw: d10 4 + Reflexes 7 + fastdraw 2 = 13 against the GM's TN 10
    up = SYSTEM.act(up.state, by_id(cs, "earl"), "declare", cs, ScriptedDice([4]), options={"actions": [
        {"name": "draw", "length": "phase", "free_roll": {"skill": "fastdraw", "tn": 10}},
        {"name": "target", "target": "leroy", "called": "head"},
    ]})
    assert up.current is None and up.state["stage"] == "resolve"
    assert [r.total for r in up.rolls] == [4]

    # end of phase 1: the free draw, then both phase actions together; phase 2 opens
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([3, 9]))
    assert [(g["length"], [(a["who"], a["name"]) for a in g["actions"]]) for g in up.state["resolved"]] == [
        ("free", [("earl", "draw")]),
        ("phase", [("leroy", "draw"), ("earl", "target")]),
    ]
    assert up.state["shots"] == []
    assert (up.round, up.phase, up.order, up.current) == (1, "phase 2 of 2 · declarations", ["leroy", "earl"], "leroy")
    assert up.state["combatants"]["earl"]["targeting"] == {"earl": {"target": "leroy", "acquired_phase": 1}}
    assert "Leroy: initiative 14." in up.log and "Earl: initiative 22." in up.log

    up = SYSTEM.act(up.state, by_id(cs, "leroy"), "declare", cs, ScriptedDice([]), options={"actions": [
        {"name": "holster", "length": "phase"}, {"name": "say: I surrender", "free": True}]})
    up = SYSTEM.act(up.state, by_id(cs, "earl"), "declare", cs, ScriptedDice([]),
                    options={"actions": [{"name": "fire", "target": "leroy", "called": "head"}]})
    # end of phase 2 (and of round 1): Earl's shot is due, targeted and called; round 2
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([2, 2]))
    assert [g["length"] for g in up.state["resolved"]] == ["free", "phase"]
    (shot,) = up.state["shots"]
    assert (shot["attacker"], shot["target"], shot["shots"]) == ("earl", "leroy", 1)
    assert shot["options"] == {"mode": "single", "targeted": True, "called": "head"}
    assert (up.round, up.phase) == (2, "phase 1 of 2 · declarations") and "Round 2" in up.log
    assert up.order == ["leroy", "earl"]  # 2 + 11 = 13, 2 + 13 = 15

    # round 2: Earl calls target and fire (a round action); Leroy fires back, a wild shot
    up = SYSTEM.act(up.state, by_id(cs, "leroy"), "declare", cs, ScriptedDice([]),
                    options={"actions": [{"name": "fire", "target": "earl"}]})
    up = SYSTEM.act(up.state, by_id(cs, "earl"), "declare", cs, ScriptedDice([]),
                    options={"actions": [{"name": "target_and_fire", "target": "leroy"}]})
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([6]))
    (wild,) = up.state["shots"]
    assert wild["attacker"] == "leroy" and wild["options"]["targeted"] is False
    # phase 2 of round 2: Earl waits for his round action, so only Leroy rolls and declares
    assert up.state["combat"]["order"] == ["leroy"] and up.state["combatants"]["earl"]["waiting"]
    assert up.order == ["leroy", "earl"]  # the fight's order lists who does not declare last
    with pytest.raises(RuleError, match="waiting"):
        SYSTEM.act(up.state, by_id(cs, "earl"), "declare", cs, ScriptedDice([]),
                   options={"actions": [{"name": "fire", "target": "leroy"}]})
    up = SYSTEM.act(up.state, by_id(cs, "leroy"), "wait", cs, ScriptedDice([]))
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([1, 1]))
    assert any("1 shot of the last phase was not rolled: Leroy at Earl" in line for line in up.log)
    # "he is allowed to fire two shots, instead of the normal one": two shots to roll
    pair = up.state["shots"]
    assert [(d["attacker"], d["shot"], d["shots"], d["length"]) for d in pair] == [
        ("earl", 1, 2, "round"), ("earl", 2, 2, "round")]
    assert all(d["options"]["targeted"] is True for d in pair)
    # what the app rolls: as an attack command takes them, each naming its shot
    assert up.due == [{"attacker": "earl", "target": "leroy", "weapon": "Sidearm",
                       "options": {"mode": "single", "targeted": True, "due": d["id"]}} for d in pair]
    assert (up.round, up.phase) == (3, "phase 1 of 2 · declarations")


def test_surprised_combatant_sits_out_a_round_then_rolls_reflexes_each_phase():
    """"Combat Sequence": a surprised target is "unable to react for at least one round",
    then makes "a Reflexes roll (TN 8) at the beginning of each phase", with +1 for each
    phase it failed."""
    cs = fighters({"sentry": {"surprised": True}}, raider=sheet(), sentry=sheet(reflexes=5))
    up = SYSTEM.begin_fight(cs, ScriptedDice([5]))
    assert up.state["combat"]["order"] == ["raider"] and up.state["combatants"]["sentry"]["surprised"]
    assert up.order == ["raider", "sentry"]
    sentry_opts = [o for o in SYSTEM.actions(up.state, by_id(cs, "sentry")) if o.key.startswith("declare")]
    assert not any(o.available for o in sentry_opts) and "surprised" in sentry_opts[0].reason
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([]))  # the raider declares nothing
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([5]))  # phase 2: still no roll
    assert up.state["combat"]["order"] == ["raider"]
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([]))
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([2, 5]))  # round 2: 2 + 5 = 7, failed
    assert up.round == 2 and up.state["combat"]["order"] == ["raider"]
    assert any("Reflexes roll against surprise 7 vs TN 8, still surprised" in line for line in up.log)
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([]))
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([2, 5, 4]))  # 2 + 5 + 1 = 8: may declare
    assert set(up.state["combat"]["order"]) == {"raider", "sentry"} and not up.state["combatants"]["sentry"]["surprised"]


def test_actions_follow_the_declaration_rules():
    """"Actions are declared in order of Initiative, lowest to highest"; Targeting "a phase
    action"; a semi-automatic firearm for target and fire, an automatic one for bursts;
    round actions may not change targets, only be cancelled ("Combined Actions")."""
    cs = fighters(leroy=LEROY, earl=EARL)
    up = SYSTEM.begin_fight(cs, ScriptedDice([5, 8]))
    earl = {o.label: o for o in SYSTEM.actions(up.state, by_id(cs, "earl"))}
    assert not earl["Targeting"].available and "Leroy declares first" in earl["Targeting"].reason
    leroy = {o.label: o for o in SYSTEM.actions(up.state, by_id(cs, "leroy"))}
    assert leroy["Targeting"].available and leroy["Targeting"].cost == "phase action"
    assert leroy["Target and fire"].available and leroy["Target and fire"].kind == "attack"
    assert not leroy["Full auto"].available and "automatic" in leroy["Full auto"].reason
    assert not leroy["Aim"].available and "wild shot" in leroy["Aim"].reason
    assert leroy["Move (3 of 3 squares left)"].available  # in his turn to declare, a Move is his action
    assert not earl["Move (0 of 3 squares left)"].available
    keys = [o.key for o in SYSTEM.actions(up.state, by_id(cs, "leroy"))]
    assert len(keys) == len(set(keys))  # each key is what act takes back
    up = SYSTEM.act(up.state, by_id(cs, "leroy"), "declare:target_and_fire", cs, ScriptedDice([]),
                    options={"target": "earl"})
    assert [(a["name"], a["target"]) for a in up.state["combat"]["pending"]] == [("target_and_fire", "earl")]
    mine = {o.key.split(":")[0]: o for o in SYSTEM.actions(up.state, by_id(cs, "leroy"))
            if o.key.startswith(("cancel", "change_target"))}
    assert mine["cancel"].available
    assert not mine["change_target"].available and "cancel it instead" in mine["change_target"].reason
    with pytest.raises(RuleError, match="cancel it instead"):
        SYSTEM.act(up.state, by_id(cs, "leroy"), "change_target", cs, ScriptedDice([]),
                   options={"action": mine["cancel"].data["action"], "target": "x"})
    with pytest.raises(RuleError, match="not Earl's"):
        SYSTEM.act(up.state, by_id(cs, "earl"), "cancel", cs, ScriptedDice([]),
                   options={"action": mine["cancel"].data["action"]})
    up = SYSTEM.act(up.state, by_id(cs, "leroy"), "cancel", cs, ScriptedDice([]),
                    options={"action": mine["cancel"].data["action"]})
    assert up.state["combat"]["pending"] == [] and up.current == "earl"
    with pytest.raises(RuleNotImplemented):
        SYSTEM.act(up.state, by_id(cs, "earl"), "reload", cs, ScriptedDice([]))


def test_a_failed_fastdraw_leaves_no_phase_action():
    """The example's reverse: Earl's success "means that he still has a phase action
    available"; on a failure the draw takes his phase action and the Targeting is dropped."""
    cs = fighters(leroy=LEROY, earl=EARL)
    up = SYSTEM.begin_fight(cs, ScriptedDice([5, 8]))
    up = SYSTEM.act(up.state, by_id(cs, "leroy"), "wait", cs, ScriptedDice([]))
    up = SYSTEM.act(up.state, by_id(cs, "earl"), "declare", cs, ScriptedDice([1]), options={"actions": [
        {"name": "draw", "length": "phase", "free_roll": {"skill": "fastdraw", "tn": 15}},
        {"name": "target", "target": "leroy"},
    ]})
    assert [a["name"] for a in up.state["combat"]["pending"]] == ["draw"]
    assert any("no new action left for target" in line for line in up.log)


def test_a_casualty_leaves_the_fight_and_takes_its_actions_and_the_targeting_on_it():
    """"Ranged Attacks": Targeting is good "as long as the target remains in view"; one
    who is down or gone no longer declares (its sheet at flesh capacity, or missing)."""
    cs = fighters(leroy=LEROY, earl=EARL, ann=sheet())
    up = SYSTEM.begin_fight(cs, ScriptedDice([5, 8, 1]))
    assert up.order == ["ann", "leroy", "earl"]
    up = SYSTEM.act(up.state, by_id(cs, "ann"), "wait", cs, ScriptedDice([]))
    up = SYSTEM.act(up.state, by_id(cs, "leroy"), "declare", cs, ScriptedDice([]),
                    options={"actions": [{"name": "target", "target": "earl"}]})
    up = SYSTEM.act(up.state, by_id(cs, "earl"), "declare", cs, ScriptedDice([]),
                    options={"actions": [{"name": "first aid", "length": "round"}]})
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([5, 5]))
    assert up.state["combatants"]["leroy"]["targeting"]
    down = sheet(flesh=15)  # Constitution 5 x 3
    after = [c for c in cs if c.id == "leroy"] + [Combatant("earl", "Earl", down)]
    up = SYSTEM.next_turn(up.state, after, ScriptedDice([]))
    assert "earl" not in up.state["combatants"] and "ann" not in up.state["combatants"]
    assert up.state["combatants"]["leroy"]["targeting"] == {}
    assert any("Earl is out of the fight" in line for line in up.log)
    assert any("Ann has left the fight" in line for line in up.log)

PLANS = st.lists(st.sampled_from(["wait", "fire", "target", "round", "free", "auto"]), min_size=1, max_size=30)


@hsettings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), PLANS)
def test_any_fight_keeps_json_state_and_declaration_order(seed, plan):
    """Invariants of the lifecycle: the state is JSON; the current declarer always has the
    lowest initiative of those who have not declared ("lowest to highest"); the round
    and phase follow the clock; a shot is due only at the end of the phase its length
    ends in."""
    dice = SeededDice(seed)
    smg = {"name": "SMG", "skill": "handguns", "damage": "2d6", "mode": "auto"}
    cs = fighters(a=sheet(weapons=[smg]), b=sheet(), c=sheet(reflexes=3))
    up = SYSTEM.begin_fight(cs, dice)
    specs = {
        "fire": [{"name": "fire", "target": "b"}],
        "target": [{"name": "target", "target": "c"}],
        "round": [{"name": "first aid", "length": "round"}],
        "free": [{"name": "shout", "free": True}],
        "auto": [{"name": "full_auto", "target": "a"}],
    }
    phases_seen = 1
    for step in plan:
        json.loads(json.dumps(up.to_dict()))
        if up.current is None:
            up = SYSTEM.next_turn(up.state, cs, dice)
            phases_seen += 1
            for shot in up.state["shots"]:
                assert shot["length"] in ("phase", "round")
            assert up.round == (phases_seen - 1) // 2 + 1
            continue
        combat = up.state["combat"]
        left = [w for w in combat["order"] if w not in combat["declared"]]
        assert min(combat["initiative"][w] for w in left) == combat["initiative"][up.current]
        actor = by_id(cs, up.current)
        try:
            if step == "wait":
                up = SYSTEM.act(up.state, actor, "wait", cs, dice)
            else:
                up = SYSTEM.act(up.state, actor, "declare", cs, dice, options={"actions": specs[step]})
        except RuleError:
            up = SYSTEM.act(up.state, actor, "wait", cs, dice)


def test_who_waits_or_is_surprised_stays_in_the_fight_the_app_hands_back():
    """The app passes the combatants of ``TurnUpdate.order`` to the next call: a combatant
    waiting on a round action ("Initiative and Actions") or surprised ("Combat Sequence")
    declares nothing this phase but is still in the fight."""
    cs = fighters({"sentry": {"surprised": True}}, leroy=LEROY, earl=EARL, sentry=sheet())
    up = SYSTEM.begin_fight(cs, ScriptedDice([5, 8]))
    up = SYSTEM.act(up.state, by_id(cs, "leroy"), "declare:first aid", cs, ScriptedDice([]), options={"length": "round"})
    up = SYSTEM.act(up.state, by_id(cs, "earl"), "wait", cs, ScriptedDice([]))
    up = SYSTEM.next_turn(up.state, [by_id(cs, w) for w in up.order], ScriptedDice([5]))
    assert up.state["combat"]["order"] == ["earl"] and set(up.order) == {"earl", "leroy", "sentry"}
    up = SYSTEM.next_turn(up.state, [by_id(cs, w) for w in up.order], ScriptedDice([5, 5, 5]))
    assert set(up.state["combat"]["combatants"]) == {"leroy", "earl", "sentry"}
    assert not any("left the fight" in line for line in up.log)
