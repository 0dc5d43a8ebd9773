"""Savage Worlds turn lifecycle, scripted, from *Savage Worlds Combat System
Reference*: "Initiative (Action Cards)", "Actions Per Turn", "Surprise" and
"Hold", with the core rule of recovering from Shaken."""

import json

import pytest

from rules import savage_worlds as sw
from rules.dice import ScriptedDice
from rules.system import AttackRequest, Combatant, RuleError, RuleNotImplemented

S = sw.SYSTEM

# Fisher-Yates through the dice (d54 first, down to d2): face i+1 leaves card i where it is,
# so these faces keep the deck in its fixed order: AS KS QS ... 2C RJ BJ
UNSHUFFLED = list(range(54, 1, -1))
# the same but the first swap puts the Black Joker on top: BJ KS QS JS ...
JOKER_ON_TOP = [1] + list(range(53, 1, -1))


def tok(id, side, pos=(0, 0), **kw):
    s = S.default_sheet()
    s["edges"] = []
    s.update(kw)
    return Combatant(id, id, s, pos, side)


def party():
    return [tok("hero", "pc", (0, 0)), tok("ally", "pc", (1, 0)), tok("boss", "npc", (5, 0), shaken=True),
            tok("g1", "npc", (6, 0), wild_card=False, group="goons"),
            tok("g2", "npc", (6, 1), wild_card=False, group="goons")]


def run(call, faces):
    dice = ScriptedDice(faces)
    update = call(dice)
    assert dice.remaining == [], "every scripted face is used"
    json.dumps(update.to_dict()["state"])  # the state is plain JSON
    return update


def apply(update, combatants):
    """What the app does with an update: merge the sheet changes, keep the state."""
    for c in combatants:
        c.sheet.update(update.sheet_changes.get(c.id, {}))
        c.state = update.state["combatants"].get(c.id, {})


def options(update, c):
    return {(o.key, o.data.get("weapon", o.data.get("actions"))): o for o in S.actions(update.state, c)}


def test_a_two_round_fight():
    cs = party()
    hero, ally, boss, g1, g2 = cs

    # Round 1: "Each Wild Card draws 1 card", "Extras typically share 1 card per group",
    # "Turn order: Ace -> 2"; the hero draws the Joker: "Act anytime in the round, +2 to all
    # trait checks and damage, all allies get a Benny".
    u = run(lambda d: S.begin_fight(cs, d), JOKER_ON_TOP)
    apply(u, cs)
    assert (u.round, u.order, u.current) == (1, ["hero", "ally", "boss", "g1", "g2"], "hero")
    assert [u.state["combatants"][i]["card"] for i in u.order] == ["BJ", "KS", "QS", "JS", "JS"]
    assert u.sheet_changes == {"hero": {"bennies": 4}, "ally": {"bennies": 4}}
    assert u.state["combatants"]["hero"]["joker"]

    # "Multi-Action Penalty: ... 2 actions: -2 to both", shown on every attack this turn,
    # next to the Joker's +2
    u = run(lambda d: S.act(u.state, hero, "multi_action", cs, d, options={"actions": 2}), [])
    apply(u, cs)
    colt = options(u, hero)[("attack", "Colt Peacemaker")]
    assert colt.available and colt.data["actions"] == 2 and colt.data["penalty"] == 0
    assert {m["label"]: m["value"] for m in colt.data["modifiers"]} == {"Multi-action (2 actions)": -2, "Joker": 2}
    # the attack reads the same turn state: Shooting 4 -2 +2 = 4 hits; 1 + 1 + 1 +2 (Joker) = 5 damage
    r = S.attack(AttackRequest(hero, boss, "Colt Peacemaker"), ScriptedDice([4, 1, 1, 1]))
    mods = {m.label: m.value for m in r.modifiers}
    assert mods["Multi-action (2 actions)"] == -2 and mods["Joker"] == 2 and r.hit
    assert r.details["damage"][0]["damage"] == 5

    u = run(lambda d: S.act(u.state, hero, "end_turn", cs, d), [])
    apply(u, cs)
    assert u.current == "ally"

    # "Hold: Delay action until later": the turn passes to the boss, who starts Shaken:
    # Spirit d6 2, Wild Die 3: a failure, it stays Shaken with free actions only
    u = run(lambda d: S.act(u.state, ally, "hold", cs, d), [2, 3])
    apply(u, cs)
    assert u.current == "boss" and u.state["combatants"]["ally"]["on_hold"]
    assert [r.purpose for r in u.rolls] == ["Spirit die", "Wild Die"] and u.sheet_changes == {}
    boss_opts = options(u, boss)
    assert not boss_opts[("attack", None)].available and "Shaken" in boss_opts[("attack", None)].reason
    assert boss_opts[("move", None)].available  # "Movement is not an action"
    with pytest.raises(RuleError):
        S.attack(AttackRequest(boss, hero, "Long sword"), ScriptedDice([]))

    # "Can interrupt other's action with opposed Athletics": ally 5 beats boss 3, acts now
    assert options(u, ally)[("interrupt", None)].available
    u = run(lambda d: S.act(u.state, ally, "interrupt", cs, d), [5, 2, 3, 1])
    apply(u, cs)
    assert u.current == "ally" and not u.state["combatants"]["ally"]["on_hold"]
    u = run(lambda d: S.next_turn(u.state, cs, d), [])  # then the boss's turn resumes, no new Spirit roll
    apply(u, cs)
    assert u.current == "boss" and u.rolls == [] and "resumes" in u.log[-1]
    seen = []
    for _ in range(2):
        u = run(lambda d: S.next_turn(u.state, cs, d), [])
        apply(u, cs)
        seen.append(u.current)
    assert seen == ["g1", "g2"]

    # Round 2: "Reshuffle deck at end of round if any Joker was drawn": a fresh deck, and the
    # Joker's bonus is gone. The boss is still Shaken: Spirit 5 recovers, it may act.
    u = run(lambda d: S.next_turn(u.state, cs, d), UNSHUFFLED)
    apply(u, cs)
    assert (u.round, u.order, u.current) == (2, ["hero", "ally", "boss", "g1", "g2"], "hero")
    assert [u.state["combatants"][i]["card"] for i in u.order] == ["AS", "KS", "QS", "JS", "JS"]
    assert any("reshuffled" in line for line in u.log)
    assert not u.state["combatants"]["hero"]["joker"] and u.state["combatants"]["hero"]["actions"] == 1
    u = run(lambda d: S.next_turn(u.state, cs, d), [])
    apply(u, cs)
    u = run(lambda d: S.next_turn(u.state, cs, d), [5, 1])
    assert u.current == "boss" and u.sheet_changes == {"boss": {"shaken": False}}
    apply(u, cs)
    assert not boss.sheet["shaken"] and options(u, boss)[("attack", None)].available


def test_losing_an_interrupt_acts_right_after():
    """"Losing interruption = act immediately after opponent"."""
    cs = [tok("a", "pc"), tok("b", "npc"), tok("c", "npc")]
    a, b, c = cs
    u = run(lambda d: S.begin_fight(cs, d), UNSHUFFLED)  # a AS, b KS, c QS
    apply(u, cs)
    u = run(lambda d: S.act(u.state, a, "hold", cs, d), [])
    apply(u, cs)
    assert u.current == "b"
    u = run(lambda d: S.act(u.state, a, "interrupt", cs, d), [2, 1, 4, 3])  # a 2 loses to b 4
    apply(u, cs)
    assert u.current == "b" and u.state["after"] == ["a"]
    u = run(lambda d: S.next_turn(u.state, cs, d), [])
    assert u.current == "a"
    apply(u, cs)
    u = run(lambda d: S.next_turn(u.state, cs, d), [])
    assert u.current == "c"


def test_a_joker_on_hold_acts_when_it_likes():
    """A Joker may "Act anytime in the round": its interrupt needs no roll."""
    cs = [tok("a", "pc"), tok("b", "npc")]
    a, b = cs
    u = run(lambda d: S.begin_fight(cs, d), JOKER_ON_TOP)
    apply(u, cs)
    u = run(lambda d: S.act(u.state, a, "hold", cs, d), [])
    apply(u, cs)
    u = run(lambda d: S.act(u.state, a, "interrupt", cs, d), [])
    assert u.current == "a" and u.state["resume"] == ["b"]


def test_hold_carries_into_the_next_round_without_a_card():
    """A held character keeps Hold until it acts; it is dealt no card meanwhile."""
    cs = [tok("a", "pc"), tok("b", "npc")]
    a, b = cs
    u = run(lambda d: S.begin_fight(cs, d), UNSHUFFLED)
    apply(u, cs)
    u = run(lambda d: S.act(u.state, a, "hold", cs, d), [])
    apply(u, cs)
    u = run(lambda d: S.next_turn(u.state, cs, d), [])  # b done; a on Hold may still act
    assert u.round == 1 and u.current is None and u.phase == "hold"
    u = run(lambda d: S.next_turn(u.state, cs, d), [])  # a lets the round end, and keeps Hold
    assert u.round == 2 and u.order == ["b", "a"] and u.current == "b"  # a stays in the fight, on Hold
    assert u.state["combatants"]["a"]["on_hold"] and u.state["combatants"]["a"]["card"] is None
    assert options(u, a)[("interrupt", None)].available


def test_surprise_attackers_on_hold_and_a_failed_notice_cannot_act():
    """Surprise: "Attackers are on Hold"; a victim failing Notice gets "no card, cannot act in first round"."""
    amb, vic = tok("amb", "npc"), tok("vic", "pc")
    amb.state, vic.state = {"surprise": "attacker"}, {"surprise": "victim"}
    cs = [amb, vic]
    u = run(lambda d: S.begin_fight(cs, d), UNSHUFFLED + [1, 2])  # Notice 1, Wild 2: failed
    apply(u, cs)
    # the round waits on the ambusher; both stay in the fight's order (the holder first, then the victim)
    assert (u.order, u.current, u.phase) == (["amb", "vic"], None, "hold")
    assert u.state["combatants"]["amb"]["on_hold"]
    assert all(not o.available for o in S.actions(u.state, vic))
    assert not options(u, amb)[("interrupt", None)].available  # no one is acting to interrupt
    u = run(lambda d: S.act(u.state, amb, "act_now", cs, d), [])
    apply(u, cs)
    assert u.current == "amb" and options(u, amb)[("attack", "Long sword")].available
    u = run(lambda d: S.next_turn(u.state, cs, d), [])  # round 2: cards for both (no Joker: no reshuffle)
    assert u.round == 2 and u.order == ["amb", "vic"] and u.current == "amb"  # dealt in list order


def test_an_incapacitated_combatant_is_skipped():
    cs = [tok("a", "pc"), tok("b", "npc"), tok("c", "npc")]
    u = run(lambda d: S.begin_fight(cs, d), UNSHUFFLED)
    apply(u, cs)
    cs[1].sheet["incapacitated"] = True
    u = run(lambda d: S.next_turn(u.state, cs, d), [])
    assert u.current == "c"
    u = run(lambda d: S.next_turn(u.state, [cs[0], cs[2]], d), [])  # a token removed from the fight
    assert u.round == 2 and u.order == ["a", "c"]


def test_classic_shaken_recovery_needs_a_raise_to_act():
    """Setting ``shaken_recovery`` "classic": a success ends Shaken but leaves only free actions."""
    cs = [tok("a", "pc", shaken=True)]
    u = run(lambda d: S.begin_fight(cs, d, {"shaken_recovery": "classic"}), UNSHUFFLED + [4, 2])
    apply(u, cs)
    assert u.sheet_changes["a"] == {"shaken": False} and u.state["combatants"]["a"]["free_only"]
    assert not options(u, cs[0])[("attack", None)].available


def test_a_benny_ends_shaken_at_any_time():
    cs = [tok("a", "pc"), tok("b", "npc", shaken=True)]
    u = run(lambda d: S.begin_fight(cs, d), UNSHUFFLED)
    apply(u, cs)
    u = run(lambda d: S.act(u.state, cs[1], "benny_unshake", cs, d), [])
    assert u.sheet_changes == {"b": {"shaken": False, "bennies": 2}}


def test_run_rolls_the_running_die_and_costs_two_on_every_action():
    cs = [tok("a", "pc")]
    u = run(lambda d: S.begin_fight(cs, d), UNSHUFFLED)
    apply(u, cs)
    u = run(lambda d: S.act(u.state, cs[0], "run", cs, d), [4])
    apply(u, cs)
    opts = options(u, cs[0])
    assert opts[("move", None)].data["allowance"] == 10 and not opts[("run", None)].available
    assert opts[("attack", None)].data["penalty"] == -2


def test_what_the_rules_forbid_or_the_app_does_not_automate():
    cs = [tok("a", "pc"), tok("b", "npc")]
    u = run(lambda d: S.begin_fight(cs, d), UNSHUFFLED)
    with pytest.raises(RuleError):
        S.act(u.state, cs[1], "hold", cs, ScriptedDice([]))  # not its turn
    with pytest.raises(RuleError):
        S.act(u.state, cs[0], "multi_action", cs, ScriptedDice([]), options={"actions": 4})
    with pytest.raises(RuleNotImplemented):
        S.act(u.state, cs[0], "aim", cs, ScriptedDice([]))


def test_level_headed_draws_two_and_keeps_the_better():
    """"Each Wild Card draws 1 card (+ extras from Edges/Hindrances)": Level Headed draws one more."""
    cs = [tok("orc", "npc"), tok("hero", "pc", edges=["Level Headed"])]
    u = run(lambda d: S.begin_fight(cs, d), UNSHUFFLED)  # orc AS; hero draws KS and QS
    assert u.state["combatants"]["hero"]["drawn"] == ["KS", "QS"] and u.state["combatants"]["hero"]["card"] == "KS"
    assert u.order == ["orc", "hero"]


def test_a_surprise_plays_three_rounds_and_everyone_is_dealt_in_from_round_two():
    """Surprise: "Attackers are on Hold. Victims must make a Notice check: ... Failure: no card, cannot
    act in first round". From the second round every fighter is dealt a card again: the attacker who
    let its Hold pass in round 1 too, and the victim; nobody leaves the order."""
    amb, pal, vic = tok("amb", "pc"), tok("pal", "pc"), tok("vic", "npc")
    vic.state = {"surprised": True}  # as start_combat marks the tokens caught unaware
    cs = [amb, pal, vic]
    u = run(lambda d: S.begin_fight(cs, d), UNSHUFFLED + [1, 2])  # vic's Notice 1, Wild 2: failed
    apply(u, cs)
    assert u.round == 1 and u.current is None and sorted(u.order) == ["amb", "pal", "vic"]
    assert options(u, amb)[("act_now", None)].available and options(u, pal)[("act_now", None)].available
    assert not any(o.available for o in S.actions(u.state, vic))
    u = run(lambda d: S.act(u.state, amb, "act_now", cs, d), [])  # amb acts from Hold; pal lets it pass
    apply(u, cs)
    assert u.current == "amb" and options(u, amb)[("attack", "Long sword")].available
    u = run(lambda d: S.next_turn(u.state, cs, d), [])
    apply(u, cs)
    assert u.round == 1 and u.current is None and u.phase == "hold"  # pal may still act from Hold
    for rnd in (2, 3):
        u = run(lambda d: S.next_turn(u.state, cs, d), [])  # the round ends: a new deal
        apply(u, cs)
        assert u.round == rnd and sorted(u.order) == ["amb", "pal", "vic"]
        per = u.state["combatants"]
        assert all(per[i]["card"] and not per[i]["on_hold"] for i in per), per  # every token dealt in
        assert u.current == u.order[0]
        if rnd == 2:
            assert "pal's Hold from the surprise ends with the first round: dealt in" in u.log
        seen = []
        while u.round == rnd:
            seen.append(u.current)
            assert options(u, cs[[c.id for c in cs].index(u.current)])[("attack", "Long sword")].available
            if len(seen) == 3:
                break
            u = run(lambda d: S.next_turn(u.state, cs, d), [])
            apply(u, cs)
        assert sorted(seen) == ["amb", "pal", "vic"]  # each acts on its card
