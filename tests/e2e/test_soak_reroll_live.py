"""A failed Soak roll, on a phone (#70, Savage Worlds): with the table's dice, the GM's Brute wounds Mira's Hero;
her phone offers the Soak roll, she taps in a failed Vigor roll; her phone then offers to spend a Benny to reroll
it (the rules' Bennies: any Trait roll, the better roll counts), she taps in a success and the Wound is soaked.
Real Chromium, real server."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_table_screens import add_token, join
from test_turns_on_phones import new_game, open_phone, seeded_dice, state, turn_to  # noqa: F401  (a fixture)
from tests.helpers import live_command as command


def enter_on_the_phone(phone, faces):
    pad = phone.locator("#roll-prompt.asking")
    expect(pad).to_be_visible()
    for face in faces:
        pad.locator(".roll-faces button", has_text=re.compile(rf"^{face}$")).first.tap()
    expect(pad.locator("[data-roll-faces]")).to_have_value(" ".join(map(str, faces)))
    pad.locator("[data-roll-done]").tap()
    expect(phone.locator("#roll-prompt")).to_be_hidden()


def test_a_failed_soak_roll_is_offered_a_benny_reroll_on_the_phone(seeded_dice, server, new_page, shot):
    game = new_game(server, "savage_worlds", {"width": 10, "height": 8}, name="Soak again")
    mira = join(server, game, "Mira")
    hero = add_token(server, game, "Hero", 2, 2, owner=mira["player_id"], kind="pc")
    brute = add_token(server, game, "Brute", 3, 2)
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "start_combat", "token_ids": [hero, brute]})
    turn_to(server, game, brute)
    command(server, game, {"type": "set_dice", "mode": "table"})
    command(server, game, {"type": "attack", "attacker": brute, "target": hero, "weapon": "Long sword"})
    # the GM's faces: Fighting 6 and a Wild Die of 1 against Parry 6 hit; 5 + 7 = 12 against Toughness 7: a Wound
    for faces in ([6, 1], [5, 7]):
        command(server, game, {"type": "enter_dice", "roll_id": state(server, game)["pending_roll"]["id"],
                               "faces": faces})
    bennies = next(t for t in state(server, game)["tokens"] if t["id"] == hero)["sheet"]["bennies"]

    soak = phone.locator("#soak-prompt.asking")
    expect(soak).to_contain_text("Hero: soak?")
    soak.locator("button[data-soak=yes]").tap()
    enter_on_the_phone(phone, [2, 3])  # Vigor 2, the Wild Die 3: failed

    expect(soak).to_contain_text("Hero: reroll the Soak roll?")
    expect(soak).to_contain_text("soaked 0 of 1 Wound")
    expect(soak.locator("button[data-soak=yes]")).to_have_text("Spend a Benny and reroll")
    shot(phone, "soak-reroll-offered")
    soak.locator("button[data-soak=yes]").tap()
    enter_on_the_phone(phone, [5, 2])  # Vigor 5: a success soaks the Wound

    expect(phone.locator("#soak-prompt")).to_be_hidden()
    expect(phone.locator("#log")).to_contain_text("Hero spends a Benny to reroll the Soak roll: Vigor 5")
    sheet = next(t for t in state(server, game)["tokens"] if t["id"] == hero)["sheet"]
    assert sheet["wounds"] == 0 and sheet["bennies"] == bennies - 2, sheet
