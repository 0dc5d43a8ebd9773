"""The phone's "Your turn" bar at 360 px (issue #33): every button whole and on the glass (they wrap, no
sideways strip with labels cut mid-word), and in phase/TN a shot the rules owe now is the first button."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.helpers import live_command as command

NARROW_PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}

#: every control of the bar whose label is cut (its text wider than its box) or that lies off the glass
CLIPPED = """(bar) => {
  const out = [];
  const width = document.documentElement.clientWidth;
  for (const el of bar.querySelectorAll('button, a.button, select')) {
    const r = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 0.5) out.push(['cut', el.textContent.trim(), el.scrollWidth, el.clientWidth]);
    if (r.left < -0.5 || r.right > width + 0.5 || r.width === 0) out.push(['off', el.textContent.trim(), r.left, r.right]);
  }
  return out;
}"""


def setup(server, system: str, places: dict) -> tuple[dict, dict, dict]:
    status, g = server.api("POST", "/api/games", {"name": "Turn bar", "system": system, "map": {"width": 16, "height": 8}})
    assert status == 201, g
    status, mira = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
    assert status == 201, mira
    ids = {}
    for name, (x, y) in places.items():
        body = {"name": name, "x": x, "y": y} | ({"owner": mira["player_id"], "kind": "pc"} if name == "Aria" else {})
        status, made = server.api("POST", f"/api/games/{g['id']}/tokens", body, g["gm_token"])
        assert status == 201, made
        ids[name] = made["id"]
    return g, mira, ids


def current(server, g):
    return server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])[1]["combat"]


def open_phone(new_page, g, mira):
    phone = new_page(**NARROW_PHONE)
    phone.goto(f"{g['urls']['join'].split('/join')[0]}/games/{g['id']}/play?key={mira['player_token']}")
    expect(phone.locator("#conn.ok")).to_be_visible()
    return phone


@pytest.mark.parametrize("system, words", [("savage_worlds", ["Run (+d6 to Pace)", "Go on Hold"]),
                                           ("gurps_lite", ["All-Out Defense"])])
def test_every_button_of_the_turn_bar_is_whole_and_on_a_360_px_phone(server, new_page, shot, system, words):
    g, mira, ids = setup(server, system, {"Aria": (2, 2), "Ogre": (6, 2)})
    phone = open_phone(new_page, g, mira)
    command(server, g, {"type": "start_combat", "token_ids": list(ids.values())})
    for _ in range(4):
        if current(server, g)["current"] == ids["Aria"]:
            break
        command(server, g, {"type": "next_turn"})
    bar = phone.locator("#turn-bar")
    expect(bar).to_contain_text("Your turn")
    phone.evaluate("window.scrollTo(0, 0)")
    for word in words:
        expect(bar.locator("button", has_text=word).first).to_be_visible()
    controls = bar.locator("button, a.button")
    assert controls.count() >= 4, bar.inner_text()
    assert bar.evaluate(CLIPPED) == []
    for i in range(controls.count()):
        expect(controls.nth(i)).to_be_in_viewport(ratio=1)
    if system == "savage_worlds":
        expect(bar.locator("a", has_text="Move")).to_have_text('Move · 6"')  # inches as people write them
    shot(phone, f"phone-360-{system}-turn-bar")


def test_a_phase_tn_shot_due_is_the_first_button_of_the_turn_bar(server, new_page, shot):
    g, mira, ids = setup(server, "phase_tn", {"Aria": (2, 2), "Ogre": (6, 2)})
    phone = open_phone(new_page, g, mira)
    command(server, g, {"type": "start_combat", "token_ids": list(ids.values())})
    for _ in range(6):  # each declares Fire at the other; the phase's end makes the shots due
        fight = current(server, g)
        if fight["due"]:
            break
        who = fight["current"]
        if who is None:
            command(server, g, {"type": "next_turn"})
            continue
        other = ids["Ogre"] if who == ids["Aria"] else ids["Aria"]
        key = mira["player_token"] if who == ids["Aria"] else None
        command(server, g, {"type": "act", "token_id": who, "action": "declare:fire", "options": {"target": other}}, key)
    fight = current(server, g)
    assert [d for d in fight["due"] if d["attacker"] == ids["Aria"]], fight
    bar = phone.locator("#turn-bar")
    expect(bar).to_be_visible()
    first = bar.locator(".turn-bar-actions button, .turn-bar-actions a.button").first
    expect(first).to_have_text("Roll Aria's shot at Ogre (Sidearm)")
    phone.evaluate("window.scrollTo(0, 0)")
    assert bar.evaluate(CLIPPED) == []
    shot(phone, "phone-360-phase-tn-shot-due")
    first.click()  # the shot is rolled from the bar
    expect(phone.locator("#log")).to_contain_text("Aria")
    expect(bar.locator(".due-roll")).to_have_count(0)
    assert not [d for d in current(server, g)["due"] if d["attacker"] == ids["Aria"]]


def test_the_x_cards_pause_takes_the_place_of_the_turn_bar_on_the_acting_players_phone(server, new_page, shot):
    """Issue #70: the pause is meant to replace the turn bar (_pause.html); the acting player's phone kept its bar
    once folded (a choice made in the turn): .turn-bar.folded's display overrode .turn-bar[hidden]'s."""
    g, mira, ids = setup(server, "plain_grid", {"Aria": (2, 2), "Ogre": (6, 2)})
    phone = new_page(**NARROW_PHONE)
    phone.goto(f"{g['urls']['join'].split('/join')[0]}/games/{g['id']}/play?key={mira['player_token']}"
               .replace(server.url, server.lan_url, 1))
    expect(phone.locator("#conn.ok")).to_be_visible()
    command(server, g, {"type": "start_combat", "token_ids": [ids["Aria"], ids["Ogre"]]})  # Aria first
    bar = phone.locator("#turn-bar")
    expect(bar).to_contain_text("Your turn")
    bar.locator(".turn-bar-fold").tap()  # folded, as once a choice is made in the turn
    expect(bar).to_have_class(re.compile(r"\bfolded\b"))

    phone.locator("#pause button.x-card-tap").tap()
    expect(phone.locator("#pause .paused-note")).to_be_visible()
    expect(bar).to_be_hidden()
    shot(phone, "phone-360-paused-on-my-turn")
    command(server, g, {"type": "resume_scene"})  # the bar comes back with the scene
    expect(phone.locator("#pause button.x-card-tap")).to_be_visible()
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("Your turn")
