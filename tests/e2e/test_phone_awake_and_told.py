"""A phone through a fight (issue #35, "Awake and told"): it keeps its screen on while a fight is on (the
Screen Wake Lock API), taken again when the page is shown again, let go when the fight ends or its player
turns the switch off (remembered on the device); it vibrates and pulses "Your turn" when its player's turn
starts and when a defense is asked of it, once, not on the updates in between. The browser's APIs are
stubbed (``add_init_script``) to record the calls; real Chromium, real server."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_table_screens import PHONE, add_token, join, player_url
from test_turns_on_phones import command, new_game, state, turn_to

#: a wake lock and a vibrator that record what the page asks of them; the page's visibility set by the test
STUBS = """(() => {
  const calls = window.__calls = {wake: [], vibrate: [], released: 0};
  window.__held = null;
  window.__shown = 'visible';
  Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => window.__shown});
  Object.defineProperty(navigator, 'wakeLock', {configurable: true, value: {request: (type) => {
    calls.wake.push(type);
    const s = new EventTarget();
    s.type = type; s.released = false;
    s.release = () => { if (!s.released) { s.released = true; calls.released++; window.__held = null;
                                            s.dispatchEvent(new Event('release')); } return Promise.resolve(); };
    window.__held = s;
    return Promise.resolve(s);
  }}});
  Object.defineProperty(navigator, 'vibrate', {configurable: true, value: (p) => { calls.vibrate.push(p); return true; }});
})();"""


def calls(page) -> dict:
    return page.evaluate("() => ({wake: window.__calls.wake.length, vibrate: window.__calls.vibrate.length, "
                         "released: window.__calls.released, held: !!window.__held})")


def settle(page, ms: int = 700) -> None:
    page.wait_for_timeout(ms)


def open_phone(new_page, server, game, player):
    phone = new_page(**PHONE)
    phone.add_init_script(STUBS)
    phone.goto(player_url(server, game, player))
    expect(phone.locator("#conn.ok")).to_be_visible()
    return phone


def fight_setup(server):
    game = new_game(server, "tesseris_ads", {"width": 16, "height": 10}, name="Awake")
    mira = join(server, game, "Mira")
    ids = {"Aria": add_token(server, game, "Aria", 4, 4, owner=mira["player_id"], kind="pc"),
           "Goblin": add_token(server, game, "Goblin", 5, 4), "Ogre": add_token(server, game, "Ogre", 12, 8)}
    return game, mira, ids


def test_the_phone_stays_awake_in_a_fight_and_is_told_once_when_its_turn_or_a_defense_comes(server, new_page, shot):
    game, mira, ids = fight_setup(server)
    phone = open_phone(new_page, server, game, mira)
    settle(phone)
    assert calls(phone) == {"wake": 0, "vibrate": 0, "released": 0, "held": False}, "no fight: the screen may sleep"

    command(server, game, {"type": "start_combat", "token_ids": list(ids.values())})
    expect(phone.locator("#combat.fighting")).to_be_attached()
    phone.wait_for_function("() => window.__calls.wake.length === 1")
    assert phone.evaluate("window.__calls.wake") == ["screen"]
    expect(phone.locator("#keep-awake")).to_have_attribute("data-keeper", "wake-lock")  # the API, no video
    assert phone.evaluate("document.querySelector('video')") is None

    # Aria's turn comes: one vibration, the bar pulses
    if state(server, game)["combat"]["current"] == ids["Aria"]:
        command(server, game, {"type": "next_turn"})
        phone.wait_for_function("() => !document.querySelector('#turn-bar.my-turn:not([hidden])')")
    before = calls(phone)["vibrate"]
    turn_to(server, game, ids["Aria"])
    bar = phone.locator("#turn-bar")
    expect(bar).to_contain_text("Your turn")
    phone.wait_for_function(f"() => window.__calls.vibrate.length === {before + 1}")
    expect(bar).to_have_class(re.compile(r"\battention\b"))
    shot(phone, "phone-390-your-turn-awake")

    # updates that start nothing new: a roll, the ogre moved, the phone's own roll
    command(server, game, {"type": "roll", "expr": "1d6"})
    command(server, game, {"type": "move_token", "token_id": ids["Ogre"], "x": 12, "y": 7, "force": True})
    phone.fill("#roller input[name=expr]", "2d6")
    phone.click("#roller button:has-text('Roll')")
    expect(phone.locator("#log")).to_contain_text("Mira rolled 2d6")
    settle(phone)
    assert calls(phone) == {"wake": 1, "vibrate": before + 1, "released": 0, "held": True}

    # the turn passes on: nothing to tell. (Tesseris ADS deals turns by ticks: the next may be Aria's again, a new
    # turn, told once more; passed on until it is someone else's.) The goblin attacks Aria: the defense prompt is
    # told, once
    told = before + 1
    command(server, game, {"type": "next_turn"})
    for _ in range(6):
        if state(server, game)["combat"]["current"] != ids["Aria"]:
            break
        told += 1
        phone.wait_for_function(f"() => window.__calls.vibrate.length === {told}")
        command(server, game, {"type": "next_turn"})
    expect(bar).to_be_hidden()
    command(server, game, {"type": "attack", "attacker": ids["Goblin"], "target": ids["Aria"], "weapon": "knife"})
    prompt = phone.locator("#defense-prompt.asking")
    expect(prompt).to_be_visible()
    phone.wait_for_function(f"() => window.__calls.vibrate.length === {told + 1}")
    expect(prompt).to_have_class(re.compile(r"\battention\b"))
    command(server, game, {"type": "roll", "expr": "1d4"})
    settle(phone)
    assert calls(phone)["vibrate"] == told + 1, "an update while the prompt waits is not a new prompt"
    prompt.locator("button[data-defense]:enabled").first.click()
    expect(phone.locator("#defense-prompt")).to_be_hidden()
    settle(phone)
    assert calls(phone)["vibrate"] == told + 1

    # the page hidden (the phone put away): the browser lets the lock go; shown again, it is taken again
    phone.evaluate("() => { window.__held && window.__held.release(); window.__shown = 'hidden';"
                   " document.dispatchEvent(new Event('visibilitychange')); }")
    settle(phone, 300)
    assert calls(phone)["wake"] == 1
    phone.evaluate("() => { window.__shown = 'visible'; document.dispatchEvent(new Event('visibilitychange')); }")
    phone.wait_for_function("() => window.__calls.wake.length === 2 && !!window.__held")

    # Aria's next turn (a new round) is told again
    turn_to(server, game, ids["Aria"])
    expect(bar).to_contain_text("Your turn")
    phone.wait_for_function(f"() => window.__calls.vibrate.length === {told + 2}")

    # the fight ends: the lock is let go, and not asked for again
    released = calls(phone)["released"]
    command(server, game, {"type": "end_combat"})
    expect(phone.locator("#combat.fighting")).to_have_count(0)
    phone.wait_for_function(f"() => window.__calls.released === {released + 1} && !window.__held")
    expect(phone.locator("#keep-awake")).to_have_attribute("data-keeper", "off")
    settle(phone)
    assert calls(phone)["wake"] == 2


def test_the_switch_turns_the_wake_lock_off_and_the_phone_remembers_it(server, new_page, shot):
    game, mira, ids = fight_setup(server)
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "start_combat", "token_ids": list(ids.values())})
    phone.wait_for_function("() => window.__calls.wake.length === 1 && !!window.__held")
    switch = phone.locator("#keep-awake")
    expect(switch).to_be_checked()
    expect(switch).to_be_in_viewport()
    shot(phone, "phone-390-screen-on-switch")

    switch.uncheck()
    phone.wait_for_function("() => window.__calls.released === 1 && !window.__held")
    expect(switch).to_have_attribute("data-keeper", "off")
    command(server, game, {"type": "next_turn"})
    settle(phone)
    assert calls(phone)["wake"] == 1, "off: a live update asks for no lock"

    phone.reload()  # remembered on this device
    expect(phone.locator("#conn.ok")).to_be_visible()
    expect(phone.locator("#keep-awake")).not_to_be_checked()
    settle(phone)
    assert calls(phone)["wake"] == 0

    phone.locator("#keep-awake").check()  # on again: the lock is taken at once (the fight is on)
    phone.wait_for_function("() => window.__calls.wake.length === 1 && !!window.__held")
