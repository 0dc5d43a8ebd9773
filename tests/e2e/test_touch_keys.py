"""A touch table and the map from the keyboard (#27), in real Chromium against a real server: the table screen
takes touches only while the GM lets it (several fingers at once, by the rules of the GM's moves, never a
hidden token); a focused token moves with the arrow keys and the numeric pad, opens its sheet with Enter,
reads its accessible name; moves, turns and attack results are said in the polite live region."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_live_table import cell_center
from test_table_screens import PHONE, add_token, join, new_game, player_url, state
from tests.helpers import live_command as command

TV = {"viewport": {"width": 1920, "height": 1080}, "has_touch": True}


def where(server, game) -> dict:
    return {t["name"]: (t["x"], t["y"]) for t in state(server, game)["tokens"]}


def touches(page, fingers: list[tuple[tuple[float, float], tuple[float, float]]], steps: int = 8) -> None:
    """Fingers down at once, moved together, lifted together (touch events through the DevTools protocol)."""
    cdp = page.context.new_cdp_session(page)

    def points(t):
        return [{"x": a[0] + (b[0] - a[0]) * t, "y": a[1] + (b[1] - a[1]) * t, "id": i + 1, "radiusX": 6, "radiusY": 6}
                for i, (a, b) in enumerate(fingers)]

    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": points(0)})
    for i in range(1, steps + 1):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": points(i / steps)})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def open_gm(new_page, game):
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    return gm


def open_screen(new_page, game):
    screen = new_page(**TV)
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    return screen


def test_the_screen_key_moves_a_token_only_with_touch_on(server, new_page, shot):
    game = new_game(server, name="Touch table")
    bea = join(server, game, "Bea")
    ann = add_token(server, game, "Ann", 2, 2, owner=bea["player_id"], kind="pc")
    gm = open_gm(new_page, game)
    screen = open_screen(new_page, game)
    expect(screen.locator("#screen-touch")).to_have_attribute("data-enabled", "false")
    expect(screen.locator("#screen-touch")).to_be_hidden()

    # touch off: a finger on the TV moves nothing, and the screen key's move is refused with a clear error
    touches(screen, [(cell_center(screen, 2, 2), cell_center(screen, 5, 2))])
    ack = screen.evaluate("window.tacmap.command({type: 'move_token', token_id: %r, x: 5, y: 2})" % ann)
    assert ack["ok"] is False and "not turned touch on" in ack["error"], ack
    expect(screen.locator("#flash")).to_contain_text("not turned touch on")
    assert where(server, game)["Ann"] == (2, 2)
    expect(screen.locator(f'#token-{ann}[data-x="2"][data-y="2"]')).to_be_attached()

    # the GM turns touch on: the TV says so, and a finger drags Ann; every screen sees her move
    gm.click("#toggle-touch")
    expect(screen.locator("#screen-touch")).to_have_attribute("data-enabled", "true")
    expect(screen.locator("#screen-touch")).to_be_visible()
    expect(gm.locator("#toggle-touch")).to_have_text("Turn touch off")
    touches(screen, [(cell_center(screen, 2, 2), cell_center(screen, 5, 3))])
    expect(gm.locator(f'#token-{ann}[data-x="5"][data-y="3"]')).to_be_attached()
    assert where(server, game)["Ann"] == (5, 3)
    shot(screen, "touch-keys-screen-touch-on")

    # off again: the next touch moves nothing
    gm.click("#toggle-touch")
    expect(screen.locator("#screen-touch")).to_have_attribute("data-enabled", "false")
    touches(screen, [(cell_center(screen, 5, 3), cell_center(screen, 8, 3))])
    screen.wait_for_timeout(400)
    assert where(server, game)["Ann"] == (5, 3)


def test_two_fingers_drag_two_tokens_at_once_and_a_hidden_token_is_not_there_to_touch(server, new_page):
    game = new_game(server, name="Two fingers")
    ann = add_token(server, game, "Ann", 2, 2, kind="pc")
    orc = add_token(server, game, "Orc", 8, 5)
    lurker = add_token(server, game, "Lurker", 4, 4, hidden=True)
    command(server, game, {"type": "set_screen_touch", "enabled": True})
    gm = open_gm(new_page, game)
    screen = open_screen(new_page, game)
    expect(screen.locator("#screen-touch")).to_have_attribute("data-enabled", "true")
    expect(screen.locator(f"#token-{lurker}")).to_have_count(0)  # hidden tokens are not even on the screen
    expect(gm.locator(f"#token-{lurker}")).to_be_attached()

    touches(screen, [(cell_center(screen, 2, 2), cell_center(screen, 3, 6)),
                     (cell_center(screen, 8, 5), cell_center(screen, 11, 2))])
    for page in (gm, screen):
        expect(page.locator(f'#token-{ann}[data-x="3"][data-y="6"]')).to_be_attached()
        expect(page.locator(f'#token-{orc}[data-x="11"][data-y="2"]')).to_be_attached()
    assert where(server, game) == {"Ann": (3, 6), "Orc": (11, 2), "Lurker": (4, 4)}
    # a finger where the hidden token stands finds nothing to drag
    touches(screen, [(cell_center(screen, 4, 4), cell_center(screen, 6, 4))])
    screen.wait_for_timeout(400)
    assert where(server, game)["Lurker"] == (4, 4)


def test_touch_moves_in_a_fight_obey_the_turn_the_allowance_and_the_walls(server, new_page):
    game = new_game(server, "savage_worlds", name="Touch fight")
    ann = add_token(server, game, "Ann", 2, 2, kind="pc")
    orc = add_token(server, game, "Orc", 4, 2)
    height = state(server, game)["map"]["height"]
    command(server, game, {"type": "add_wall", "a": [3, 0], "b": [3, height]})  # Ann's side, the Orc's side
    command(server, game, {"type": "start_combat", "token_ids": [ann, orc]})
    while state(server, game)["combat"]["current"] != ann:
        command(server, game, {"type": "next_turn"})
    command(server, game, {"type": "set_screen_touch", "enabled": True})
    screen = open_screen(new_page, game)
    expect(screen.locator(f"#token-{ann}.acting")).to_be_attached()

    # not the Orc's turn: it springs back, with the rules' reason on the TV
    touches(screen, [(cell_center(screen, 4, 2), cell_center(screen, 5, 1))])
    expect(screen.locator("#flash")).to_be_visible()
    expect(screen.locator(f'#token-{orc}[transform="translate(4 2)"]')).to_be_attached()
    # past Ann's Pace (6 squares): refused
    touches(screen, [(cell_center(screen, 2, 2), cell_center(screen, 2 + 9, 1))])
    expect(screen.locator(f'#token-{ann}[transform="translate(2 2)"]')).to_be_attached()
    # through the wall: refused as the GM's move would be
    touches(screen, [(cell_center(screen, 2, 2), cell_center(screen, 3, 3))], steps=4)
    expect(screen.locator("#flash")).to_contain_text("no way through")
    assert where(server, game) == {"Ann": (2, 2), "Orc": (4, 2)}
    # within her Pace, on her side of the wall: accepted
    touches(screen, [(cell_center(screen, 2, 2), cell_center(screen, 2, 5))])
    expect(screen.locator(f'#token-{ann}[data-x="2"][data-y="5"]')).to_be_attached()
    assert where(server, game)["Ann"] == (2, 5)


def test_a_focused_token_moves_with_the_keys_and_opens_its_sheet(server, new_page, shot):
    game = new_game(server, name="Keys")
    ann = add_token(server, game, "Ann", 2, 3, kind="pc")
    orc = add_token(server, game, "Orc", 9, 6)
    gm = open_gm(new_page, game)
    token = gm.locator(f"#token-{ann}")
    token.focus()
    expect(token).to_be_focused()
    gm.keyboard.press("ArrowRight")
    expect(gm.locator(f'#token-{ann}[data-x="3"][data-y="3"]')).to_be_attached()
    assert where(server, game)["Ann"] == (3, 3)
    expect(gm.locator(f"#token-{ann}")).to_be_focused()  # drawn afresh by the update, still focused
    expect(gm.locator("#announce")).to_have_text("Ann moved, now at D4.")

    # diagonals: the numeric pad, or Shift with two arrows held together; Shift and one arrow, a straight step
    gm.keyboard.press("Numpad3")
    expect(gm.locator(f'#token-{ann}[data-x="4"][data-y="4"]')).to_be_attached()
    gm.keyboard.down("Shift")
    gm.keyboard.down("ArrowUp")
    gm.keyboard.press("ArrowRight")
    gm.keyboard.up("ArrowUp")
    gm.keyboard.up("Shift")
    expect(gm.locator(f'#token-{ann}[data-x="5"][data-y="3"]')).to_be_attached()
    gm.keyboard.press("Shift+ArrowDown")
    expect(gm.locator(f'#token-{ann}[data-x="5"][data-y="4"]')).to_be_attached()
    gm.wait_for_timeout(300)
    assert where(server, game)["Ann"] == (5, 4)
    expect(gm.locator(f"#token-{ann}")).to_be_focused()
    shot(gm, "touch-keys-gm-focused-token")

    # Tab goes on to the next token; Enter opens its sheet
    gm.keyboard.press("Tab")
    expect(gm.locator(f"#token-{orc}")).to_be_focused()
    with gm.context.expect_page() as opened:
        gm.keyboard.press("Enter")
    sheet = opened.value
    sheet.wait_for_load_state()
    assert f"/tokens/{orc}/sheet" in sheet.url
    expect(sheet.locator("h1, h2").first).to_be_visible()


def test_a_token_reads_its_name_player_square_and_wounds_and_the_news_is_said(server, new_page, shot):
    game = new_game(server, "savage_worlds", name="Read aloud")
    bea = join(server, game, "Bea")
    ann = add_token(server, game, "Ann", 2, 3, owner=bea["player_id"], kind="pc")
    orc = add_token(server, game, "Orc", 3, 3)
    command(server, game, {"type": "add_character", "name": "Ann", "token_id": ann, "owner": bea["player_id"]})
    character = next(c["id"] for c in state(server, game)["characters"] if c["token_id"] == ann)
    command(server, game, {"type": "update_sheet", "character_id": character, "changes": {"wounds": 2}})
    gm = open_gm(new_page, game)
    expect(gm.get_by_role("button", name="Ann, Bea's character, at C4, 2 wounds")).to_be_attached()
    expect(gm.get_by_role("button", name="Orc, non-player character, at D4")).to_be_attached()
    phone = new_page(**PHONE)  # the player's phone reads the same names, and hears the same news
    phone.goto(player_url(server, game, bea))
    expect(phone.locator("#conn.ok")).to_be_visible()
    expect(phone.get_by_role("button", name="Ann, Bea's character, at C4, 2 wounds")).to_be_attached()
    phone.locator(f"#token-{ann}").focus()

    # a move, a turn, an attack's result: each said in the polite live region
    announce = gm.locator("#announce")
    expect(announce).to_have_attribute("aria-live", "polite")
    command(server, game, {"type": "move_token", "token_id": orc, "x": 3, "y": 4})
    expect(announce).to_have_text("Orc moved, now at D5.")
    expect(phone.locator("#announce")).to_have_text("Orc moved, now at D5.")
    shot(phone, "touch-keys-phone-focused-token")
    command(server, game, {"type": "start_combat", "token_ids": [ann, orc]})
    current = state(server, game)["combat"]["current"]
    name = "Ann" if current == ann else "Orc"
    expect(announce).to_contain_text(f"{name}'s turn")
    expect(gm.locator(f"#token-{current}")).to_have_attribute("aria-label", re.compile(r", their turn(,|$)"))
    command(server, game, {"type": "attack", "attacker": orc, "target": ann, "force": True})
    entry = gm.locator("#log li.attack").first
    expect(entry).to_be_attached()
    said = entry.evaluate("li => [...li.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join(' ').trim()")
    assert said
    expect(announce).to_contain_text(said)
