"""Play the foes through a phase/TN round, in the browser (#67): the GM turns the switch on at the table's first
phase and a whole round of phases plays through. The foes declare at their time to declare, the runner presses Next
turn once a phase's declarations are done (the phase resolves, the next opens) and rolls the foes' shots that come
due; it waits only for Mira's phone, at the LAN name (not a secure context), tapped: her token's declarations (a
Fire at the foe picked for her, else End my turn) and her own shots ("Roll Ann's shot at ..."). The switch stays on
throughout, the GM page's log shows the phases resolving and the foes' shots, and the phone never sees a plan."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

import rules

from test_play_the_foes_live import FOES, HEROES, _no_plan_words, _table, quick_foes  # noqa: F401 (a fixture)
from test_turns_on_phones import state


pytestmark = pytest.mark.long  # a whole fight or more: run first (tests/conftest.py)

def _tap(phone, locator) -> bool:
    """Tap what the phone shows, once it shows it; False if it never came (the state read was older than the page)."""
    try:
        locator.wait_for(state="visible", timeout=8000)
    except Exception:
        return False
    locator.tap()
    phone.wait_for_timeout(300)
    return True


def test_play_the_foes_plays_a_whole_phase_tn_round_waiting_only_for_the_phone(quick_foes, server, new_page,  # noqa: F811
                                                                               shot):
    game, ids, gm, phone, screen, frames = _table(server, new_page, "phase_tn")
    names = {v: k for k, v in ids.items()}
    mine = {ids[h] for h in HEROES}
    s = state(server, game)
    start_round = s["combat"]["round"]
    sample = rules.get("phase_tn").default_sheet()
    for name in (*FOES, *HEROES):  # sturdy fighters: the round's phases play out before anyone falls
        sheet = {**sample, "name": name, "attributes": {**sample["attributes"], "constitution": 12}}
        assert server.api("POST", f"/api/games/{game['id']}/commands",
                          {"type": "add_character", "name": name, "token_id": ids[name],
                           "sheet": sheet}, game["gm_token"])[0] == 200
    switch = gm.locator("#play-foes")
    expect(switch).to_be_visible()
    switch.check()
    expect(gm.locator("#foe-play .foe-play-status")).to_contain_text("each foe plays its best plan", timeout=10000)
    seen: dict[tuple, None] = {}  # the GM's log as it came (the state holds the last lines only)
    tapped = {"declare": 0, "end": 0, "shot": 0}
    shots = False
    end = time.monotonic() + 90
    while time.monotonic() < end:
        s = state(server, game)
        for e in s["log"]:
            seen.setdefault((e["seq"], e["text"]), None)
        log = [text for _seq, text in seen]
        since = log[log.index("The GM lets the foes play their turns"):]
        ends = [t for t in since if t.startswith("End of phase")]
        foes_shot = any(re.match(rf"({'|'.join(FOES)}) shoots", t) for t in since)
        if len(ends) >= 3 and foes_shot and tapped["shot"]:  # a whole round's phases and more, every part of it
            break
        assert s["combat"], since[-12:]
        assert s["foe_play"]["on"], (s["foe_play"], since[-12:])
        fight = s["combat"]
        owed = [d for d in fight.get("due") or [] if d["attacker"] in mine]
        if owed:  # Mira's shot came due: her phone rolls it
            if _tap(phone, phone.locator("#turn-bar li.due-roll button").first):
                tapped["shot"] += 1
            continue
        if fight["current"] in mine and not (s["pending_defense"] or s["pending_soak"] or s["pending_roll"]):
            fire = phone.locator('#turn-bar form.bar-act:has(input[name=action][value="declare:fire"]) button')
            if tapped["declare"] <= tapped["end"] and fire.count() and _tap(phone, fire.first):
                tapped["declare"] += 1
            elif _tap(phone, phone.locator("#turn-bar button", has_text="End my turn")):
                tapped["end"] += 1
            for _ in range(40):  # the tap taken
                if state(server, game)["seq"] > s["seq"]:
                    break
                phone.wait_for_timeout(100)
            continue
        if not shots and any(names.get(fight["current"]) in FOES for _ in [0]):
            shots = True
            shot(gm, "play-foes-phase_tn-gm-round")
            shot(phone, "play-foes-phase_tn-phone-round")
        gm.wait_for_timeout(150)
    else:
        raise AssertionError(f"the round never ended: {[e['text'] for e in state(server, game)['log'][-10:]]}")
    assert s["combat"]["round"] > start_round, since
    assert any(re.match(rf"({'|'.join(FOES)}) declares", t) for t in since), since
    assert len(ends) >= 3, since  # the runner resolved the phases
    assert any(re.match(rf"({'|'.join(FOES)}) shoots", t) for t in since), since  # and rolled the foes' shots
    assert tapped["declare"] and tapped["shot"], tapped  # it waited for Mira's declarations and her shots
    assert state(server, game)["foe_play"]["on"] is True
    expect(gm.get_by_label("Play the foes")).to_be_checked()
    expect(gm.locator("#log")).to_contain_text(re.compile(r"End of phase \d of 2"), timeout=10000)
    expect(phone.locator("#log")).to_contain_text(re.compile(r"End of phase \d of 2"), timeout=10000)
    _no_plan_words(phone, frames["phone"], set(), "phone")
    _no_plan_words(screen, frames["screen"], set(), "screen")
    shot(gm, "play-foes-phase_tn-gm-done")
