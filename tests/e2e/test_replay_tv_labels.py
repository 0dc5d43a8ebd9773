"""The table screen in a replay draws the tokens' names and badges as the live table screen does (#58): a fight
with a wounded foe, replayed on the TV at a past moment and at the present, shows a name pill for every token and
the same badge pills as the live TV; back at the table, the same again."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from test_table_screens import add_token, state
from tests.helpers import live_command as command

TV = {"viewport": {"width": 1920, "height": 1080}, "screen": {"width": 1920, "height": 1080}}
BOX = "document.getElementById('map').getAttribute('viewBox')"
LABELS = ("[...document.querySelectorAll('#layer-labels .label-text, #layer-labels .badge-text')]"
          ".map((t) => t.textContent).sort()")


@pytest.fixture
def seeded_dice(monkeypatch):
    monkeypatch.setenv("TACMAP_DICE_SEED", "6")


def labels(page) -> list[str]:
    return page.evaluate(LABELS)


def test_the_table_screen_in_a_replay_draws_names_and_badges_as_the_live_one(seeded_dice, server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Replayed TV", "system": "gurps_lite"})
    assert status == 201, game
    ids = {name: add_token(server, game, name, x, y, **extra) for name, x, y, extra in (
        ("Aria", 2, 2, {"kind": "pc"}), ("Brute", 3, 2, {}), ("Ogre", 8, 5, {}))}
    command(server, game, {"type": "start_combat", "token_ids": list(ids.values())})
    early = state(server, game)["seq"]
    command(server, game, {"type": "attack", "attacker": ids["Aria"], "target": ids["Brute"],  # the Brute hurt
                           "weapon": "Broadsword", "defense": "none", "force": True})
    now = state(server, game)["seq"]

    screen = new_page(**TV)
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    expect(screen.locator("#layer-labels .label-text")).to_have_count(3)
    live, box = labels(screen), screen.evaluate(BOX)
    assert {"Aria", "Brute", "Ogre"} <= set(live) and len(live) > 3, live  # the names and some badges

    for at in (now, early, now):
        command(server, game, {"type": "replay", "at": at, "on": ["gm", "screen"]})
        expect(screen.locator("#replay-banner")).to_contain_text(f"event {at} of")
        expect(screen.locator("#layer-labels .label-text")).to_have_count(3)
        if at == now:  # the same moment as the live TV's: the same names and badges
            expect(screen.locator("#layer-labels .badge-text")).to_have_count(len(live) - 3)
            assert labels(screen) == live
            assert screen.evaluate(BOX) == box  # framed as the live TV frames it (the GM's view for the TV)
    shot(screen, "replay-tv-labels")
    command(server, game, {"type": "replay_end"})
    expect(screen.locator("body.replaying")).to_have_count(0)
    expect(screen.locator("#layer-labels .label-text")).to_have_count(3)
    assert labels(screen) == live
