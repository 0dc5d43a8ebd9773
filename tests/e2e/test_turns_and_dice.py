"""A fight from the users' side: the GM starts it, the turn order shows on every
screen, a player ends their own turn, and dice rolls reach the log (a secret one
only the GM's)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from test_live_table import open_table


@pytest.fixture
def seeded_dice(monkeypatch):
    """Seeded dice on the server started after this fixture (it inherits the environment)."""
    monkeypatch.setenv("TACMAP_DICE_SEED", "11")


def test_a_fight_in_turn_order_on_every_screen_with_dice_in_the_log(seeded_dice, server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Ambush", "system": "plain_grid"})
    assert status == 201
    gm_key = game["gm_token"]
    gm, player, screen = open_table(server, game, new_page)
    state = server.api("GET", f"/api/games/{game['id']}/state", token=gm_key)[1]
    mira = state["players"][0]["id"]
    ids = {}
    for name, x, owner in [("Mira", 2, mira), ("Ogre", 5, None)]:
        body = {"name": name, "x": x, "y": 2, **({"owner": owner, "kind": "pc"} if owner else {})}
        ids[name] = server.api("POST", f"/api/games/{game['id']}/tokens", body, gm_key)[1]["id"]
    expect(gm.locator("#combat .pick-tokens input[name=token_ids]")).to_have_count(2)

    gm.click("#combat button:has-text('Start fight')")
    for page in (gm, player, screen):
        expect(page.locator("#combat .turn-order li")).to_have_count(2)
        expect(page.locator("#combat li.current")).to_contain_text("Mira")
        expect(page.locator(f"#token-{ids['Mira']}.acting")).to_be_attached()
    shot(gm, "combat-gm")
    shot(player, "combat-phone")
    shot(screen, "combat-screen")

    # Mira's player ends her own turn; then it is the ogre's, and she has no button for it
    player.click("#turn-bar button:has-text('End my turn')")
    for page in (gm, player, screen):
        expect(page.locator("#combat li.current")).to_contain_text("Ogre")
    expect(player.locator("button:has-text('End my turn')")).to_have_count(0)

    gm.click("#combat button:has-text('Next turn')")
    expect(screen.locator("#combat h2")).to_contain_text("Round 2")
    # the GM takes the last turn back: round 1, the ogre again, on every screen; then forward again
    gm.click("#log button:has-text('Undo')")
    for page in (gm, player, screen):
        expect(page.locator("#combat h2")).to_contain_text("Round 1")
        expect(page.locator("#combat li.current")).to_contain_text("Ogre")
    expect(player.locator("#log")).to_contain_text("the GM undid")
    gm.click("#combat button:has-text('Next turn')")
    expect(screen.locator("#combat h2")).to_contain_text("Round 2")

    # a roll from the phone: the answer flashes, the log shows every die on the GM's page
    player.fill("#roller input[name=expr]", "3d6+1")
    player.click("#roller button:has-text('Roll')")
    expect(player.locator("#flash")).to_contain_text("You rolled")
    expect(gm.locator("#log")).to_contain_text("Mira rolled 3d6+1")
    # a secret roll reaches only the GM
    player.fill("#roller input[name=expr]", "d20")
    player.check("#roller input[name=secret]")
    player.click("#roller button:has-text('Roll')")
    expect(gm.locator("#log")).to_contain_text("Mira rolled d20")
    expect(player.locator("#log")).not_to_contain_text("d20")

    gm.on("dialog", lambda d: d.accept())
    gm.click("#combat button:has-text('End fight')")
    for page in (gm, player):
        expect(page.locator("#combat .turn-order")).to_have_count(0)
    expect(screen.locator("#combat.fighting")).to_have_count(0)


def test_the_gm_reorders_the_fight_from_the_tracker_and_every_screen_follows(seeded_dice, server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Order", "system": "plain_grid"})
    assert status == 201
    gm_key = game["gm_token"]
    gm, player, screen = open_table(server, game, new_page)
    mira = server.api("GET", f"/api/games/{game['id']}/state", token=gm_key)[1]["players"][0]["id"]
    ids = {}
    for name, x, owner in [("Mira", 2, mira), ("Ogre", 5, None), ("Rat", 7, None)]:
        body = {"name": name, "x": x, "y": 2, **({"owner": owner, "kind": "pc"} if owner else {})}
        ids[name] = server.api("POST", f"/api/games/{game['id']}/tokens", body, gm_key)[1]["id"]
    gm.click("#combat button:has-text('Start fight')")
    for page in (gm, player, screen):
        expect(page.locator("#combat .turn-order li")).to_have_text([re.compile(n) for n in ("Mira", "Ogre", "Rat")])
    # only the GM has the arrows; the first row has no "up", the last no "down"
    expect(player.locator("#combat .reorder")).to_have_count(0)
    expect(screen.locator("#combat .reorder")).to_have_count(0)
    expect(gm.locator("#combat .turn-order li").first.locator("button.up")).to_be_disabled()
    shot(gm, "reorder-gm")
    # the rat goes before the ogre: every screen shows it live, Mira keeps her turn
    gm.locator("#combat .turn-order li", has_text="Rat").locator("button.up").click()
    for page in (gm, player, screen):
        expect(page.locator("#combat .turn-order li")).to_have_text([re.compile(n) for n in ("Mira", "Rat", "Ogre")])
        expect(page.locator("#combat li.current")).to_contain_text("Mira")
    expect(player.locator("#log")).to_contain_text("the GM changed the turn order: Mira, Rat, Ogre")
    player.locator("#combat").scroll_into_view_if_needed()
    shot(player, "reorder-phone-my-turn")
    shot(screen, "reorder-screen")
    # and the next turn follows the new order
    player.click("#turn-bar button:has-text('End my turn')")
    for page in (gm, player, screen):
        expect(page.locator("#combat li.current")).to_contain_text("Rat")
        expect(page.locator(f"#token-{ids['Rat']}.acting")).to_be_attached()
    # on a phone the GM's arrows are fingertip-sized
    phone_gm = new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone_gm.goto(game["urls"]["gm"])
    box = phone_gm.locator("#combat .turn-order li", has_text="Ogre").locator("button.up").bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44, box
