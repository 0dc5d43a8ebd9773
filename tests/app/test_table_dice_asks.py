"""The words of a roll the table makes (#70): whose ask it is on the GM's page ("Mira rolls this on their phone",
the GM still able to enter it), and no name said twice where the purpose names its roller already (Tesseris'
"Hero: initiative" was "Hero: roll Hero: initiative" on the phone and "Hero rolls Hero: initiative" on the screen)."""

from __future__ import annotations

import pytest

from webapp.game.core import waits

from tests.helpers import command, state

from test_i18n_fight_wording_2 import page
from test_table_dice_secrets import Table

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="7")


def asked_of(table, roller: str) -> dict:
    """The fight started, the rolls before ``roller``'s let the app roll: ``roller``'s waiting roll, as the GM sees it."""
    assert command(table.client, table.g, {"type": "start_combat", "token_ids": list(table.ids.values())}).status_code == 200
    for _ in range(10):
        roll = state(table.client, table.g)["pending_roll"]
        assert roll is not None, f"{roller}'s roll was never asked"
        if roll["roller"] == roller:
            return roll
        key = table.keys["Mira"] if roll["roller"] == "Hero" else table.g["gm_token"]
        r = command(table.client, table.g, {"type": "enter_dice", "roll_id": roll["id"], "app": True}, key)
        assert r.status_code == 200, r.json
    raise AssertionError(f"{roller}'s roll was never asked")


def test_the_gm_page_says_a_players_roll_is_rolled_on_their_phone_and_no_prompt_says_the_name_twice(app, client):
    table = Table(app, client, "tesseris_ads")
    roll = asked_of(table, "Hero")
    assert roll["purpose"] == "Hero: initiative" and roll["named"] and roll["player"] == "Mira"
    gm = page(app, table.g, table.g["gm_token"], "gm", "en")
    assert "Mira rolls this on their phone; you may enter it here for them." in gm
    assert "Roll Hero: initiative" in gm and "Hero: roll Hero" not in gm
    assert "Done" in page(app, table.g, table.g["gm_token"], "gm", "en", raw=True)  # the GM may still enter it
    mira = page(app, table.g, table.keys["Mira"], "play", "en")
    assert "Roll Hero: initiative" in mira and "Hero: roll Hero" not in mira and "on their phone" not in mira
    screen = page(app, table.g, table.keys["screen"], "screen", "en")
    assert "Hero: initiative is being rolled: roll d10 for initiative" in screen and "Hero rolls Hero" not in screen
    german = page(app, table.g, table.g["gm_token"], "gm", "de")
    assert "Mira würfelt das am eigenen Handy" in german, german


def test_the_gms_own_roll_says_no_phone_and_its_name_once(app, client):
    table = Table(app, client, "tesseris_ads")
    roll = asked_of(table, "Ogre")
    assert roll["named"] and roll["player"] is None
    gm = page(app, table.g, table.g["gm_token"], "gm", "en")
    assert "on their phone" not in gm and "Roll Ogre: initiative" in gm and "Ogre: roll Ogre" not in gm
    screen = page(app, table.g, table.keys["screen"], "screen", "en")
    # a foe's: what counts is the GM's (#72); the purpose said once
    assert "Ogre: initiative is being rolled" in screen and "Ogre rolls Ogre" not in screen and "d10" not in screen


def test_a_foes_soak_roll_tells_the_phones_and_the_screen_who_rolls_and_what_for_never_its_dice_or_odds(app, client):
    """The issue's own case (#70, kept since #72): "Ogre rolls Vigor (Soak): the d8 and the Wild d6 ... 81%" on the
    phones and the TV told the Ogre's sheet; the pages say "Ogre rolls Vigor (Soak)", the GM's page the whole ask."""
    from rules.text import pack, say

    table = Table(app, client, "savage_worlds")
    game = app.extensions["tacmap"].game(table.g["id"])
    needs = say("roll the d8 and the Wild d6: the better counts; 4 or more succeeds")
    waits.ask(game, "roll", {"id": "roll-1", "command": {"type": "soak"}, "sender": {"role": "gm"}, "made": [],
                             "entered": [], "roll": {"dice": "d8!+d6!", "roller": table.ids["Ogre"], "player": None,
                                                     "purpose": pack(say("Vigor (Soak)")), "needs": pack(needs),
                                                     "chance": 0.81}})
    try:
        for key, role in ((table.keys["Mira"], "play"), (table.keys["screen"], "screen")):
            seen = page(app, table.g, key, role, "en")
            assert "Ogre rolls Vigor (Soak)" in seen, (role, seen)
            assert "d8" not in seen and "81%" not in seen and "Wild" not in seen, role
        gm = page(app, table.g, table.g["gm_token"], "gm", "en")
        assert "Ogre: roll Vigor (Soak)" in gm and "the d8 and the Wild d6" in gm and "81% to make it" in gm
        assert "on their phone" not in gm
    finally:
        waits.keep(game, "roll")
