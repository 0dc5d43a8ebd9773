"""Play the foes in phase/TN (#67): with the switch on, a whole round of phases plays through. Each phase the foes
declare at their time to declare, the runner presses Next turn once the declarations are done (the phase resolves,
the next opens) and rolls the foes' shots that come due; it stops only where a player must act: Mira's
declarations and her own shots, which she makes from her phone's key. The switch stays on throughout."""

from __future__ import annotations

import time

import pytest

from tests.app.test_play_the_foes import FAST, _two_against_two, _on
from tests.helpers import command, state


def _mine(s, mira_ids):
    """What Mira must do now: ("shot", due) for a shot of hers due, ("declare", token) at her token's time to
    declare; None while the foes' side plays."""
    fight = s["combat"]
    for due in fight.get("due") or []:
        if due["attacker"] in mira_ids:
            return "shot", due
    if fight["current"] in mira_ids and not (s["pending_defense"] or s["pending_soak"] or s["pending_roll"]):
        return "declare", fight["current"]
    return None


@FAST
@pytest.mark.long
def test_a_phase_tn_round_plays_through_declarations_resolutions_and_shots(app, client):
    g, mira, ids = _two_against_two(client, "phase_tn")
    mine = {ids["Ann"], ids["Bob"]}
    key = mira["player_token"]
    start = state(client, g)
    assert start["combat"]["phase"], start["combat"]
    _on(client, g)
    waited_for_mira = 0
    declared = 0
    shot = 0
    end = time.monotonic() + 40
    s = state(client, g)
    seen: dict[tuple, None] = {}  # the GM's log lines as they came (the state holds the last ones only)
    while time.monotonic() < end:
        s = state(client, g)
        for e in s["log"]:
            seen.setdefault((e["seq"], e["text"]), None)
        assert s["foe_play"]["on"] is True, (s["foe_play"], [e["text"] for e in s["log"][-8:]])
        if s["combat"]["round"] >= start["combat"]["round"] + 2:
            break
        todo = _mine(s, mine)
        if todo is None:
            time.sleep(0.05)
            continue
        kind, what = todo
        seq = s["seq"]
        time.sleep(0.3)  # the runner waits for Mira: nothing is played meanwhile
        s = state(client, g)
        if s["seq"] != seq:  # (the state moved on: look again)
            continue
        waited_for_mira += 1
        if kind == "shot":
            r = command(client, g, {"type": "attack", "attacker": what["attacker"], "target": what["target"],
                                    **({"weapon": what["weapon"]} if what.get("weapon") else {}),
                                    "options": what["options"]}, key=key)
            assert r.status_code == 200, r.json
            shot += 1
            continue
        # Mira's token declares: a shot at the nearest foe standing, else no new action
        foe = next((i for i in (ids["Orc"], ids["Imp"]) if i in s["combat"]["order"]), None)
        r = command(client, g, {"type": "act", "token_id": what, "action": "declare:fire",
                                "options": {"target": foe}}, key=key) if foe else None
        if r is None or r.status_code != 200:
            r = command(client, g, {"type": "next_turn"}, key=key)
        assert r.status_code == 200, r.json
        declared += 1
    else:
        raise AssertionError(f"the round never ended: {[e['text'] for e in s['log'][-12:]]}")
    since = [text for _seq, text in seen]
    since = since[since.index("The GM lets the foes play their turns"):]
    # the foes declared, phases resolved by the runner's Next turn, the foes' shots rolled
    assert any(t.startswith(("Orc declares", "Imp declares")) for t in since), since
    ends = [t for t in since if t.startswith("End of phase")]
    assert len(ends) >= 2, since
    assert any(t.startswith(("Orc", "Imp")) and ("hits" in t or "misses" in t or "shoots" in t) for t in since), since
    assert declared and shot and waited_for_mira  # Mira declared and rolled her shots: the runner waited for her
    assert s["foe_play"]["on"] is True  # never stopped: it waited for Mira, and went on
