"""Play the foes, in the browser (#60): a 3d6 fight and a Savage Worlds fight, each on the GM's page, Mira's phone
(at the LAN name, not a secure context) and the table screen. The GM plays three foes' turns with Do it (each plan's
steps sent from the page, then Next turn), then turns "Play the foes" on and lets a whole round go: the runner
plays each foe's best plan with a pause before each step, waits at Mira's turns and at what her phone must answer
(a 3d6 defense, a Savage Worlds Soak roll), and the phone answers. The moves and attacks show on the table screen's
feed and in the phone's log; no plan's words, nor the switch, ever reach the phone or the screen (not on the page,
not in a message on their live links)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

import rules

from test_table_screens import PHONE, add_token, join, player_url
from test_turns_on_phones import SCREEN, new_game, state

pytestmark = pytest.mark.long  # a whole fight or more: run first (tests/conftest.py)

FOES = ("Orc", "Imp", "Gob")
#: the heroes' sheets over the system's sample: sturdy enough to stand a round of the three foes
STURDY = {"savage_worlds": {"armor": 8}, "gurps_lite": {"HP": 40, "hp_current": 40}}
HEROES = ("Ann", "Bob")
#: words only the GM's plans and switch have
PLAN_WORDS = ("Plans for", "Suggest plans", "Do it", "to hit,", "expected", "Play the foes", "foe-plans", "foe-play",
              "plan-summary", "play their turns", "no longer played", "defends at")


@pytest.fixture
def quick_foes(monkeypatch):
    """Seeded dice and a shorter pause before each of the runner's steps, for the server started after it."""
    monkeypatch.setenv("TACMAP_DICE_SEED", "60")
    monkeypatch.setenv("TACMAP_FOE_PLAY_PAUSE", "0.7")


def _listen(page, frames: list[str]) -> None:
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(
        payload if isinstance(payload, str) else payload.decode("utf-8", "replace"))))


def _table(server, new_page, system):
    game = new_game(server, system, {"width": 14, "height": 10}, name=f"Foes {system}")
    mira = join(server, game, "Mira")
    ids = {}
    for name, x, y in (("Ann", 3, 3), ("Bob", 3, 6)):
        ids[name] = add_token(server, game, name, x, y, owner=mira["player_id"], kind="pc")
        if system in STURDY:  # in heavy armour (many HP in the 3d6 system): three foes that weigh finishing a hero
            # (#67) may not end the fight inside the round the switch is to play
            sheet = {**rules.get(system).default_sheet(), "name": name, **STURDY[system]}
            status, ack = server.api("POST", f"/api/games/{game['id']}/commands", {
                "type": "add_character", "name": name, "token_id": ids[name], "sheet": sheet}, game["gm_token"])
            assert status == 200, ack
    for name, x, y in (("Orc", 8, 3), ("Imp", 9, 5), ("Gob", 8, 7)):
        ids[name] = add_token(server, game, name, x, y)
    gm = new_page(viewport={"width": 1280, "height": 900})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    frames = {"phone": [], "screen": []}
    phone = new_page(**PHONE)
    _listen(phone, frames["phone"])
    phone.goto(player_url(server, game, mira).replace(server.url, server.lan_url, 1))
    assert phone.evaluate("window.isSecureContext") is False
    expect(phone.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport=SCREEN)
    _listen(screen, frames["screen"])
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    status, _ = server.api("POST", f"/api/games/{game['id']}/commands",
                           {"type": "start_combat", "token_ids": list(ids.values())}, game["gm_token"])
    assert status == 200
    return game, ids, gm, phone, screen, frames


def _answer_on_the_phone(phone, s, answered: list, taken=None) -> bool:
    """What Mira's phone must answer now (a defense, a Soak roll, a reroll offer): answered with a tap, and noted in
    ``answered``; then ``taken()`` (wait until the game has it), or a short pause. False: nothing waits."""
    if s["pending_defense"]:
        kind, button = "defense", phone.locator("#defense-prompt.asking button[data-defense]:not([disabled])").first
    elif s["pending_soak"]:
        kind, button = "soak", phone.locator("#soak-prompt.asking button[data-soak=no]").first
    elif s["pending_reroll"]:
        kind, button = "reroll", phone.locator("#reroll-prompt button[data-reroll=no]").first
    else:
        return False
    try:
        button.wait_for(state="visible", timeout=8000)
    except Exception:  # noqa: BLE001 (the state read was older than the page: read it again)
        return True
    button.tap()
    answered.append(kind)
    if taken is not None:
        taken()
    else:
        phone.wait_for_timeout(400)
    return True


def _end_my_turn(phone, server, game, s) -> None:
    button = phone.locator("#turn-bar button", has_text="End my turn")
    expect(button).to_be_visible(timeout=10000)
    button.tap()
    for _ in range(50):
        if state(server, game)["seq"] > s["seq"]:
            return
        phone.wait_for_timeout(100)
    raise AssertionError("Mira's End my turn was not taken")


def ACTED(foe: str) -> re.Pattern:  # noqa: N802
    """A line of a foe's own turn: its maneuver, its move, its attack, or the GM's line saying it had no plan."""
    return re.compile(rf"{foe}( attacks| hits| misses| moved|: | has no plan)")


def _round_played(s, number: int, names: dict) -> bool:
    """Every foe in the fight has played its turn in round ``number`` (the GM's log from that round's line on)."""
    log = [e["text"] for e in s["log"]]
    if f"Round {number}" not in log:
        return False
    since = log[len(log) - 1 - log[::-1].index(f"Round {number}"):]
    return all(any(ACTED(names[i]).match(t) for t in since) for i in s["combat"]["order"] if names[i] in FOES)


def _no_plan_words(page, frames: list[str], summaries: set[str], who: str) -> None:
    shown = page.locator("body").inner_text()
    sent = "\n".join(frames)
    for words in (*PLAN_WORDS, *summaries):
        assert words not in shown, (who, words)
        assert words not in sent, (who, words)


@pytest.mark.parametrize("system", ["gurps_lite", "savage_worlds"])
def test_the_gm_plays_three_foes_with_do_it_then_a_round_with_play_the_foes(quick_foes, server, new_page, shot, system):
    game, ids, gm, phone, screen, frames = _table(server, new_page, system)
    names = {v: k for k, v in ids.items()}
    summaries: set[str] = set()  # the plans' words the GM's page showed: never on the phone or the screen
    answered: list[str] = []  # what Mira's phone answered
    # 1. three foes' turns, each played with Do it on the GM's page, then Next turn
    played: list[str] = []
    clicked = None
    for _ in range(120):
        if len(played) == 3:
            break
        s = state(server, game)
        assert s["combat"], s["log"][-5:]
        current = s["combat"]["current"]
        if _answer_on_the_phone(phone, s, answered):
            continue
        if names[current] in HEROES:
            _end_my_turn(phone, server, game, s)
            continue
        turn = (s["combat"]["round"], current)
        if clicked != turn:  # the foe's best plan, with Do it
            plan = gm.locator("#foe-plans .plan").first
            expect(plan).to_be_visible(timeout=15000)
            expect(gm.locator("#foe-plans h3")).to_contain_text(names[current])
            summaries.add(plan.locator(".plan-summary").inner_text())
            summaries.add(plan.locator(".plan-why").inner_text())
            steps = json.loads(plan.locator("button[data-do-plan]").get_attribute("data-steps"))
            plan.locator("button[data-do-plan]").click()
            clicked = turn
            for _ in range(100):  # each step its event at least
                if state(server, game)["seq"] >= s["seq"] + len(steps):
                    break
                gm.wait_for_timeout(100)
            else:
                raise AssertionError(f"{names[current]}'s plan was not played: {state(server, game)['log'][-4:]}")
            continue
        gm.locator("#combat form[data-command=next_turn] button").click()  # the plan played: the GM ends the turn
        for _ in range(50):
            if state(server, game)["seq"] > s["seq"]:
                break
            gm.wait_for_timeout(100)
        played.append(names[current])
    assert len(played) == 3, played
    log = [e["text"] for e in state(server, game)["log"]]
    assert any(re.search(rf"{foe}.*(attacks|hits|misses|shoots)", t) for t in log for foe in played), log[-15:]

    # 2. "Play the foes" on at Mira's turn: a whole round, the runner playing each foe's turn
    for _ in range(60):
        s = state(server, game)
        if names[s["combat"]["current"]] in HEROES and not _answer_on_the_phone(phone, s, answered):
            break
        if names[s["combat"]["current"]] in FOES:  # (a foe's turn left from above: the GM ends it by hand)
            gm.locator("#combat form[data-command=next_turn] button").click()
            gm.wait_for_timeout(300)
    s = state(server, game)
    start, start_round = s["combat"]["current"], s["combat"]["round"]
    assert names[start] in HEROES
    switch = gm.locator("#play-foes")
    expect(switch).to_be_visible()
    expect(gm.get_by_label("Play the foes")).not_to_be_checked()
    switch.check()
    expect(gm.locator("#foe-play .foe-play-status")).to_contain_text("each foe plays its best plan", timeout=10000)
    expect(gm.get_by_label("Play the foes")).to_be_checked()
    shot(gm, f"play-foes-{system}-gm-on")
    by_runner: set[str] = set()
    shots = False
    for _ in range(600):
        s = state(server, game)
        assert s["combat"], s["log"][-6:]
        current = s["combat"]["current"]
        if s["combat"]["round"] > start_round and names[current] in HEROES and _round_played(s, start_round + 1, names):
            break
        if not s["foe_play"]["on"]:
            raise AssertionError(f"the switch went off: {s['foe_play']}, {s['log'][-5:]}")
        if names[current] in FOES:
            by_runner.add(names[current])
        if _answer_on_the_phone(phone, s, answered):
            continue
        if names[current] in HEROES:
            _end_my_turn(phone, server, game, s)
            continue
        if not shots and any(names[current] in e["text"] for e in s["log"][-2:]):  # the foe on the move
            shots = True
            shot(gm, f"play-foes-{system}-gm-round")
            shot(phone, f"play-foes-{system}-phone-round")
            shot(screen, f"play-foes-{system}-screen-round")
        gm.wait_for_timeout(150)
    else:
        raise AssertionError(f"the round never ended: {state(server, game)['log'][-8:]}")
    assert shots and by_runner
    assert answered, "the phone was never asked"
    s = state(server, game)
    assert s["foe_play"]["on"] is True  # waiting at Mira's turn, the switch still on
    log = [e["text"] for e in s["log"]]
    assert "The GM lets the foes play their turns" in log
    # every foe standing played its turn: a move or an attack of its own in the log (or the line saying it had none)
    since = log[log.index("The GM lets the foes play their turns"):]
    for foe in {names[i] for i in s["combat"]["order"]} & set(FOES):
        assert any(ACTED(foe).match(t) for t in since), (foe, "\n".join(since))
    # the round's attacks, as the GM's log, the phone's log and the table screen's feed have them
    attacked = [t for t in log[log.index("The GM lets the foes play their turns"):]
                if re.search(rf"^({'|'.join(FOES)})\b.*\b(attacks|hits|misses|shoots|Ann|Bob)\b", t)]
    assert attacked, log[-12:]
    foe_line = re.compile(rf"({'|'.join(FOES)}).*(Ann|Bob)")
    expect(phone.locator("#log")).to_contain_text(foe_line, timeout=10000)
    expect(screen.locator("#screen-feed")).to_contain_text(foe_line, timeout=10000)
    expect(gm.locator("#log")).to_contain_text(foe_line)
    # the phone and the screen never saw a plan, nor the switch
    _no_plan_words(phone, frames["phone"], summaries, "phone")
    _no_plan_words(screen, frames["screen"], summaries, "screen")
    # the GM's hand takes the table back: the switch goes off, and says so
    gm.locator("#combat form[data-command=next_turn] button").click()
    expect(gm.locator("#foe-play .foe-play-status")).to_contain_text("you took the table back", timeout=10000)
    expect(gm.get_by_label("Play the foes")).not_to_be_checked()
