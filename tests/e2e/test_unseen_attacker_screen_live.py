"""An attack by a foe the table cannot see, on the table screen (#70): with fog on, a foe out of the table's sight (the
GM's hidden token, or one standing in the dark) attacks Mira's Ann. Her phone asks for the defense; the table screen
(the TV) shows the waiting card and then the result card like any attack's, the attacker "someone out of sight",
never the foe's name, id or square. Real Chromium, real server (3d6: gurps_lite, which asks for a defense)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from test_table_screens import add_token, join
from test_turns_on_phones import new_game, open_phone, seeded_dice, state, turn_to  # noqa: F401  (a fixture)
from tests.helpers import live_command as command


@pytest.mark.parametrize("unseen", ["hidden", "dark"])
def test_the_table_screen_shows_an_unseen_attackers_wait_and_result_without_naming_it(
        seeded_dice, server, new_page, shot, unseen):
    game = new_game(server, "gurps_lite", {"width": 12, "height": 8}, name="Ambush")
    mira = join(server, game, "Mira")
    ann = add_token(server, game, "Ann", 3, 3, owner=mira["player_id"], kind="pc")
    if unseen == "hidden":  # beside her, the GM's secret
        lurker = add_token(server, game, "Lurker", 4, 3, hidden=True)
        weapon = "Broadsword"
    else:  # in the dark, three squares off: she sees nothing she has no light for
        lurker = add_token(server, game, "Lurker", 7, 3)
        command(server, game, {"type": "set_lighting", "ambient": "dark"})
        weapon = "Pistol"
    command(server, game, {"type": "set_fog", "enabled": True})
    screen = new_page(viewport={"width": 1280, "height": 720})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "start_combat", "token_ids": [ann, lurker]})
    turn_to(server, game, lurker)

    command(server, game, {"type": "attack", "attacker": lurker, "target": ann, "weapon": weapon})
    asked = phone.locator("#defense-prompt.asking")
    expect(asked).to_be_visible()

    # the TV: the wait, the attacker unnamed
    waiting = screen.locator("#defense-prompt")
    expect(waiting).to_be_visible()
    expect(waiting).to_contain_text("someone out of sight")
    expect(waiting).to_contain_text("Ann")
    expect(waiting).not_to_contain_text(weapon)  # the foe's weapon is its sheet's
    shot(screen, f"screen-unseen-attacker-waiting-{unseen}")

    asked.locator("button[data-defense]:enabled").first.tap()
    expect(phone.locator("#defense-prompt")).to_be_hidden()
    expect(waiting).to_be_hidden()
    card = screen.locator("#result-card")
    expect(card.locator(".result-who")).to_have_text("someone out of sight → Ann")
    expect(card.locator(".result-verdict")).to_have_text(re.compile("^(HIT|MISS)$"))
    # the TV's Rolls column has the attack's line too, as its card tells it (#70: it showed nothing)
    expect(screen.locator("#screen-feed li.attack").first).to_have_text(
        re.compile("^Someone out of sight (hits|misses) Ann"))
    shot(screen, f"screen-unseen-attacker-result-{unseen}")

    html = screen.content()
    assert "Lurker" not in html and lurker not in html
    seen = server.api("GET", f"/api/games/{game['id']}/state", token=game["screen_token"])[1]
    assert "Lurker" not in str(seen) and lurker not in str(seen)  # nor the screen's JSON state
