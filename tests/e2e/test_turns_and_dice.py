"""A fight from the users' side: the GM starts it, the turn order shows on every
screen, a player ends their own turn, and dice rolls reach the log (a secret one
only the GM's)."""

from __future__ import annotations

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
    expect(gm.locator("#combat .pick-tokens input")).to_have_count(2)

    gm.click("#combat button:has-text('Start fight')")
    for page in (gm, player, screen):
        expect(page.locator("#combat .turn-order li")).to_have_count(2)
        expect(page.locator("#combat li.current")).to_contain_text("Mira")
        expect(page.locator(f"#token-{ids['Mira']}.acting")).to_be_attached()
    shot(gm, "combat-gm")
    shot(player, "combat-phone")
    shot(screen, "combat-screen")

    # Mira's player ends her own turn; then it is the ogre's, and she has no button for it
    player.click("#combat button:has-text('End my turn')")
    for page in (gm, player, screen):
        expect(page.locator("#combat li.current")).to_contain_text("Ogre")
    expect(player.locator("#combat button:has-text('End my turn')")).to_have_count(0)

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
