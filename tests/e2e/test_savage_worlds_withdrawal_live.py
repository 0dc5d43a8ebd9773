"""Savage Worlds, Withdrawing from Melee, on the GM's page and a player's phone (#58): a token that moves away from
an adjacent foe offers the foe its free attack on the page that controls the foe (the GM's for an NPC, the
player's phone for their PC), rolled from there at the square the token left with the foe's weapon (the result
card shows on both), or waived. Real Chromium, real server; the phone at the LAN name, as at a table."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

import rules
from test_table_screens import add_token, join
from test_turns_on_phones import new_game, open_phone, state, turn_to
from tests.helpers import live_command as command

ORC = {**rules.get("savage_worlds").default_sheet(), "name": "Orc", "wild_card": False,
       "skills": {"fighting": "d12", "notice": "d6", "shooting": "d6"},
       "weapons": {"Pistol": {"damage": "2d6", "range": "12/24/48"}, "Axe": {"damage": "Str+d8"}}}


@pytest.fixture
def seeded_dice(monkeypatch):
    """Seeded dice on the server started after this fixture (it inherits the environment)."""
    monkeypatch.setenv("TACMAP_DICE_SEED", "7")


def damage_of_the_last_attack(server, game: dict) -> str:
    entry = [e for e in state(server, game)["log"] if (e.get("detail") or {}).get("attack")][-1]
    return entry["detail"]["attack"]["details"]["damage_expr"]


def table(server, new_page):
    """Mira's Hero (the default sheet: a Long sword) beside the GM's Orc (an Axe), in a fight; the GM's page and
    Mira's phone open."""
    game = new_game(server, "savage_worlds", {"width": 14, "height": 8}, name="Withdraw")
    mira = join(server, game, "Mira")
    hero = add_token(server, game, "Hero", 3, 3, owner=mira["player_id"], kind="pc")
    orc = add_token(server, game, "Orc", 4, 3)
    command(server, game, {"type": "add_character", "name": "Hero", "token_id": hero, "owner": mira["player_id"],
                           "sheet": rules.get("savage_worlds").default_sheet()})
    command(server, game, {"type": "add_character", "name": "Orc", "token_id": orc, "sheet": ORC})
    command(server, game, {"type": "start_combat", "token_ids": [hero, orc]})
    gm = new_page(viewport={"width": 1440, "height": 900})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    phone = open_phone(new_page, server, game, mira)
    return game, mira, hero, orc, gm, phone


def test_the_gm_rolls_the_orcs_free_attack_on_the_withdrawing_hero_and_both_see_the_result(
        seeded_dice, server, new_page, shot):
    game, mira, hero, orc, gm, phone = table(server, new_page)
    turn_to(server, game, hero)
    command(server, game, {"type": "move_token", "token_id": hero, "x": 1, "y": 3}, mira["player_token"])
    # offered on the GM's fight card, with the Orc's Axe; the phone reads it, with no button to roll it
    due = gm.locator("#combat ul.due li", has_text="Orc → Hero")
    expect(due).to_contain_text("Axe")
    expect(due).to_contain_text("free attack")
    expect(due.locator("button", has_text="Roll")).to_be_visible()
    expect(due.locator("button", has_text="Waive")).to_be_visible()
    expect(phone.locator("#combat ul.due li", has_text="Orc → Hero")).to_be_attached()
    expect(phone.locator("#combat ul.due button")).to_have_count(0)
    expect(phone.locator("#turn-bar")).to_contain_text("Your turn")  # the Hero's turn goes on
    due.scroll_into_view_if_needed()
    shot(gm, "sw-withdrawal-gm-free-attack")
    shot(phone, "sw-withdrawal-phone-while-the-gm-rolls")
    due.locator("button", has_text="Roll").click()
    # rolled (not "beyond the reach of Unarmed"): the result card on the phone, the attack in the GM's log
    expect(phone.locator("#result-card.shown")).to_contain_text("Orc → Hero")
    expect(gm.locator("#log li.attack", has_text="Orc hits Hero").or_(
        gm.locator("#log li.attack", has_text="Orc misses Hero"))).to_have_count(1)
    expect(gm.locator("#combat ul.due")).to_have_count(0)
    assert damage_of_the_last_attack(server, game) == "d6!+d8!"  # the Axe's Str+d8, not Unarmed's Str
    assert state(server, game)["combat"]["current"] == hero
    gm.wait_for_timeout(500)  # the card's slide-in, for the picture
    shot(gm, "sw-withdrawal-gm-result")
    take = phone.locator("button", has_text="Take the Wounds")  # a wounding hit: the Soak prompt over the card
    if take.count():
        take.click()
    expect(phone.locator("#result-card.shown")).to_be_in_viewport()
    shot(phone, "sw-withdrawal-phone-result")


def test_the_phone_rolls_its_heros_free_attack_on_the_withdrawing_orc(seeded_dice, server, new_page, shot):
    game, mira, hero, orc, gm, phone = table(server, new_page)
    turn_to(server, game, orc)
    command(server, game, {"type": "move_token", "token_id": orc, "x": 7, "y": 3})  # the GM's Orc backs off
    bar = phone.locator("#turn-bar")
    expect(bar).to_contain_text("Your shot")
    roll = bar.locator("button", has_text="Roll Hero's free attack on Orc (Long sword)")
    expect(roll).to_be_visible()
    expect(bar.locator("button", has_text="Waive")).to_be_visible()
    expect(gm.locator("#combat ul.due li", has_text="Hero → Orc")).to_contain_text("Long sword")
    phone.evaluate("window.scrollTo(0, 0)")
    shot(phone, "sw-withdrawal-phone-free-attack")
    gm.locator("#combat ul.due").scroll_into_view_if_needed()
    shot(gm, "sw-withdrawal-gm-while-the-phone-rolls")
    roll.click()
    expect(phone.locator("#result-card.shown")).to_contain_text("Hero → Orc")
    expect(gm.locator("#log li.attack", has_text="Hero hits Orc").or_(
        gm.locator("#log li.attack", has_text="Hero misses Orc"))).to_have_count(1)
    assert damage_of_the_last_attack(server, game) == "d6!+d8!"  # the Long sword's Str+d8
    expect(bar).to_be_hidden()  # nothing more is the player's now: the Orc's turn goes on
    assert state(server, game)["combat"]["current"] == orc
    keep = phone.locator("button", has_text="Keep the roll")  # a miss: the Benny reroll offered over the card
    if keep.count():
        keep.click()
    expect(phone.locator("#result-card.shown")).to_be_in_viewport()
    phone.wait_for_timeout(500)
    shot(phone, "sw-withdrawal-phone-result-of-its-free-attack")


def test_a_free_attack_waived_from_the_gms_page_is_gone_from_both(seeded_dice, server, new_page):
    game, mira, hero, orc, gm, phone = table(server, new_page)
    turn_to(server, game, hero)
    command(server, game, {"type": "move_token", "token_id": hero, "x": 1, "y": 3}, mira["player_token"])
    due = gm.locator("#combat ul.due li", has_text="Orc → Hero")
    due.locator("button", has_text="Waive").click()
    for page in (gm, phone):
        expect(page.locator("#combat ul.due")).to_have_count(0)
        expect(page.locator("#log")).to_contain_text("Orc lets Hero withdraw: no free attack")
    expect(phone.locator("#turn-bar")).to_contain_text("Your turn")
