"""What issue #58 saw on the screens, looked at in Chromium: the Soak and Reroll prompts' answers fill their
buttons (side by side, the words centred, no half-empty button), the default zone map draws the East side east of
the West side, and the table screen's turn order marks the rows it cannot show with a "…"."""

from __future__ import annotations

import time

from playwright.sync_api import expect

import rules
from test_table_screens import PHONE, join, player_url

S = rules.get("savage_worlds")


def sw_game(server):
    status, game = server.api("POST", "/api/games", {"name": "Prompts", "system": "savage_worlds",
                                                     "map": {"width": 12, "height": 8}})
    assert status == 201, game
    mira = join(server, game, "Mira")
    ids = {}
    for name, (x, y), mine in (("Hero", (2, 2), True), ("Foe", (3, 2), False)):
        status, body = server.api("POST", f"/api/games/{game['id']}/tokens",
                                  {"name": name, "x": x, "y": y, **({"owner": mira["player_id"], "kind": "pc"} if mine else {})},
                                  game["gm_token"])
        assert status == 201, body
        ids[name] = body["id"]
    hero = S.default_sheet()
    hero["skills"] = {**hero["skills"], "fighting": "d4"}  # a Hero who misses, for the reroll
    hero["bennies"] = 3
    status, body = server.api("POST", f"/api/games/{game['id']}/commands", {
        "type": "add_character", "name": "Hero", "token_id": ids["Hero"], "sheet": hero}, game["gm_token"])
    assert status == 200, body
    return game, mira, ids


def send(server, game, body):
    for _ in range(50):  # at the pace a seat may keep
        status, ack = server.api("POST", f"/api/games/{game['id']}/commands", body, game["gm_token"])
        if status != 429:
            return status, ack
        time.sleep(0.2)
    raise AssertionError("refused for pace 50 times")


def answers_fill_their_buttons(prompt) -> None:
    """The prompt's two buttons side by side, as wide as each other, each one's words centred in it."""
    buttons = prompt.locator(".defense-choices button")
    expect(buttons).to_have_count(2)
    boxes = [buttons.nth(i).bounding_box() for i in range(2)]
    words = [buttons.nth(i).locator(".what").bounding_box() for i in range(2)]
    assert abs(boxes[0]["y"] - boxes[1]["y"]) < 2, boxes  # side by side
    assert abs(boxes[0]["width"] - boxes[1]["width"]) < 2, boxes
    row = prompt.locator(".defense-choices").bounding_box()
    assert boxes[0]["width"] + boxes[1]["width"] > 0.9 * row["width"], (boxes, row)  # the row filled
    for box, text in zip(boxes, words):
        assert abs((box["x"] + box["width"] / 2) - (text["x"] + text["width"] / 2)) < 3, (box, text)
        assert abs((box["y"] + box["height"] / 2) - (text["y"] + text["height"] / 2)) < 3, (box, text)


def test_the_reroll_and_soak_prompts_fill_their_buttons_on_a_phone(server, new_page, shot):
    game, mira, ids = sw_game(server)
    phone = new_page(**PHONE)
    phone.goto(player_url(server, game, mira))
    expect(phone.locator("#conn.ok")).to_be_visible()
    reroll = phone.locator("#reroll-prompt")
    for _ in range(40):
        status, ack = send(server, game, {"type": "attack", "attacker": ids["Hero"], "target": ids["Foe"], "weapon": "Long sword"})
        assert status == 200, ack
        if server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1].get("reroll_offer") or \
                reroll.is_visible():
            break
    expect(reroll).to_be_visible()
    answers_fill_their_buttons(reroll)
    shot(phone, "look-reroll-prompt-phone")
    reroll.locator("button[data-reroll=no]").click()
    expect(reroll).to_be_hidden()

    soak = phone.locator("#soak-prompt")
    # a fresh foe swings at the Hero until a blow wounds it (the Hero's d6 Wild Die may have Shaken the first one)
    status, brute = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Brute", "x": 2, "y": 3},
                               game["gm_token"])
    assert status == 201, brute
    for _ in range(80):
        status, ack = send(server, game, {"type": "attack", "attacker": brute["id"], "target": ids["Hero"],
                                          "weapon": "Long sword", "options": {"wild_attack": True}})
        assert status == 200, ack
        offers = (server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1]
                  .get("pending_soak") or {}).get("offers") or []
        # the Hero's own offer: the Foe's (wounded by the Hero's blows above) is the GM's to answer, not the phone's
        if any(offer["target_id"] == ids["Hero"] for offer in offers):
            break
    expect(soak).to_be_visible()
    answers_fill_their_buttons(soak)
    shot(phone, "look-soak-prompt-phone")


def test_the_default_zone_map_draws_east_to_the_right_of_west(server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Zones", "system": "atomic_tomorrow"})
    assert status == 201, game
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    expect(gm.locator("#map .zone .zone-name", has_text="East side")).to_be_visible()
    west = gm.locator("#map .zone[data-zone=west] .zone-area").bounding_box()
    east = gm.locator("#map .zone[data-zone=east] .zone-area").bounding_box()
    assert east["x"] > west["x"] + west["width"], (west, east)
    shot(gm, "look-default-zone-map-gm")


def test_the_table_screens_turn_order_marks_the_rows_it_cannot_show(server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Crowd", "system": "savage_worlds",
                                                     "map": {"width": 24, "height": 16}})
    assert status == 201, game
    ids = []
    for i in range(24):
        status, body = server.api("POST", f"/api/games/{game['id']}/tokens",
                                  {"name": f"Goon {i + 1}", "x": i, "y": i % 16}, game["gm_token"])
        assert status == 201, body
        ids.append(body["id"])
    screen = new_page(viewport={"width": 1280, "height": 720})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    status, body = send(server, game, {"type": "start_combat", "token_ids": ids})
    assert status == 200, body
    combat = screen.locator("#combat")
    expect(combat.locator(".turn-order > li")).to_have_count(24)
    screen.wait_for_function("() => +document.getElementById('combat').dataset.hiddenBelow > 0")
    cue = screen.evaluate("() => getComputedStyle(document.getElementById('combat'), '::after').content")
    assert cue == '"…"', cue
    # the turn moves down the order: rows scroll out at the top, and the title says so too
    for _ in range(14):
        status, body = send(server, game, {"type": "next_turn"})
        assert status == 200, body
    # (judged once the screen has the last turn: an earlier update's column, swapped out by a later one, was read
    # half drawn in a fresh-clone run, #71)
    screen.wait_for_function("""(seq) => +document.getElementById('live').dataset.seq >= seq
        && +document.getElementById('combat').dataset.hiddenAbove > 0""", arg=body["seq"])
    cue = screen.evaluate("() => getComputedStyle(document.querySelector('#combat h2'), '::after').content")
    assert cue == '"…"', cue
    shot(screen, "look-screen-turn-order-cue")
