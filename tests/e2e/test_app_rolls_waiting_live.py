"""The table's own dice (#70): Mira's attack waits for her dice; she ticks "The app rolls for me" on her phone and the
roll that waits is rolled then, the attack played, nothing left for her to press ("Let the app roll it" was needed).
Real Chromium, real server (3d6: gurps_lite)."""

from __future__ import annotations

from playwright.sync_api import expect

from test_table_dice_live import a_duel_on_every_screen
from test_turns_on_phones import seeded_dice, state, turn_to  # noqa: F401  (a fixture)
from tests.helpers import live_command as command


def test_the_app_rolls_for_me_rolls_the_roll_of_mine_that_waits(seeded_dice, server, new_page, shot):
    game, mira, ann, brute, gm, phone, screen = a_duel_on_every_screen(server, new_page, "App rolls")
    command(server, game, {"type": "start_combat", "token_ids": [ann, brute]})
    command(server, game, {"type": "set_dice", "mode": "table", "foes": "app"})
    turn_to(server, game, ann)
    command(server, game, {"type": "attack", "attacker": ann, "target": brute, "weapon": "Broadsword"},
            mira["player_token"])
    mine = phone.locator("#roll-prompt.asking")
    expect(mine).to_be_visible()
    expect(mine).to_contain_text("Ann: roll")
    expect(screen.locator("#roll-prompt")).to_contain_text("Ann rolls")

    mine_form = phone.locator("form[data-command=set_dice]")
    mine_form.locator("input[name=app_rolls]").tap()
    mine_form.locator("button[type=submit]").tap()
    expect(phone.locator("#log")).to_contain_text("Who the app rolls for: Mira")
    expect(phone.locator("#roll-prompt")).to_be_hidden()
    expect(screen.locator("#roll-prompt")).to_be_hidden()
    expect(gm.locator("#log")).to_contain_text("Broadsword")
    s = state(server, game)
    assert s["pending_roll"] is None, s["pending_roll"]
    assert s["dice"]["app_rolls_for"] == [mira["player_id"]]
    shot(phone, "app-rolls-for-me-rolled-the-waiting-roll")
