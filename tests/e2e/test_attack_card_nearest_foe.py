"""The attack card's nearest foe after tokens moved (#58): the GM picks an attacker and the target filled in is its
nearest foe standing now, not the one of when the card was drawn, nor one out of the fight; a choice in progress
(attacker, target, weapon) survives the card drawn again when a fight begins, turns or ends. Real Chromium against a
real server."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.helpers import live_command
from test_table_screens import add_token, gm_and_phone, join, new_game, token_at


def value(page, name: str) -> str:
    return page.locator(f"#attack-form select[name={name}]").evaluate("s => s.value")


def pick(page, name: str, option: str) -> None:
    page.locator(f"#attack-form select[name={name}]").select_option(option)


def out_of_the_fight(page, token_id: str):
    return expect(page.locator(f"#attack-form select[name=target] option[value='{token_id}'][data-out]"))


def table(server, new_page):
    """Mira's Hero at B3, Theo's Bruno at D3; a Goblin at G3, an Ogre at M3, a Wolf at J7; the GM's page, Mira's."""
    game = new_game(server, "savage_worlds", name="Nearest foe")
    mira, theo = join(server, game, "Mira"), join(server, game, "Theo")
    ids = {"Hero": add_token(server, game, "Hero", 1, 2, owner=mira["player_id"], kind="pc"),
           "Bruno": add_token(server, game, "Bruno", 3, 2, owner=theo["player_id"], kind="pc"),
           "Goblin": add_token(server, game, "Goblin", 6, 2),
           "Ogre": add_token(server, game, "Ogre", 12, 2),
           "Wolf": add_token(server, game, "Wolf", 9, 6)}
    gm, phone = gm_and_phone(server, new_page, game, mira)
    return game, ids, gm, phone


def move(server, game, pages, token_id: str, x: int, y: int, **more) -> None:
    """The GM moves a token (``force``: a GM ruling, out of its turn in a fight); each page shows it there."""
    live_command(server, game, {"type": "move_token", "token_id": token_id, "x": x, "y": y, **more})
    for page in pages:
        token_at(page, token_id, x, y).to_have_count(1)


def test_the_gm_picks_an_attacker_after_moves_and_the_target_is_its_nearest_standing_foe(server, new_page, shot):
    game, ids, gm, phone = table(server, new_page)
    assert value(phone, "target") == ids["Goblin"]  # drawn with the Goblin nearest to Mira's Hero

    # the Ogre comes up beside the Hero, the Wolf beside Bruno
    move(server, game, (gm, phone), ids["Ogre"], 1, 3)
    move(server, game, (gm, phone), ids["Wolf"], 3, 3)
    pick(gm, "attacker", ids["Goblin"])
    assert value(gm, "target") == ids["Bruno"]  # the Goblin's nearest hero (Bruno: 3 squares, the Hero 5)
    pick(gm, "attacker", ids["Hero"])
    assert value(gm, "target") == ids["Ogre"]  # not the Goblin, as the card was drawn
    pick(gm, "attacker", ids["Bruno"])
    assert value(gm, "target") == ids["Wolf"]
    pick(gm, "attacker", ids["Ogre"])
    assert value(gm, "target") == ids["Hero"]
    # Mira picked nothing: her card's target follows her Hero's nearest foe as tokens move
    expect(phone.locator("#attack-form select[name=target]")).to_have_value(ids["Ogre"])

    # a fight of the Hero, Bruno, the Goblin and the Wolf: the Ogre beside the Hero is not in it
    live_command(server, game, {"type": "start_combat",
                                "token_ids": [ids["Hero"], ids["Bruno"], ids["Goblin"], ids["Wolf"]]})
    out_of_the_fight(gm, ids["Ogre"]).to_have_count(1)
    pick(gm, "attacker", ids["Hero"])
    assert value(gm, "target") == ids["Wolf"]  # the nearest foe in the fight (the Wolf: 2 squares, the Goblin 5)
    move(server, game, (gm, phone), ids["Goblin"], 2, 2, force=True)
    pick(gm, "attacker", ids["Bruno"])
    pick(gm, "attacker", ids["Hero"])
    assert value(gm, "target") == ids["Goblin"]  # moved next to the Hero: now the nearest standing foe
    pick(gm, "attacker", ids["Ogre"])  # out of the fight itself, it still aims at a hero in it
    assert value(gm, "target") == ids["Hero"]
    shot(gm, "attack-card-nearest-foe-gm")


def test_a_choice_in_progress_survives_the_card_drawn_again(server, new_page):
    game, ids, gm, phone = table(server, new_page)
    form = gm.locator("#attack-form")
    # the GM is setting up Bruno's throw at the Ogre (not his nearest foe): attacker, target, weapon picked
    pick(gm, "attacker", ids["Bruno"])
    pick(gm, "target", ids["Ogre"])
    bruno_weapons = form.locator(f"select[name=weapon] option[data-attacker='{ids['Bruno']}']")
    knife = bruno_weapons.nth(2).get_attribute("value")  # every token has one: picked as Bruno's option
    form.locator("select[name=weapon]").select_option(element=bruno_weapons.nth(2).element_handle())
    gm.locator("#attack-form select[name=weapon]").focus()
    # Mira has picked her Hero's target: the Wolf
    pick(phone, "target", ids["Wolf"])

    # a fight begins without the Ogre and the Wolf: both cards are drawn again, the picks kept
    live_command(server, game, {"type": "start_combat", "token_ids": [ids["Hero"], ids["Bruno"], ids["Goblin"]]})
    for page in (gm, phone):
        out_of_the_fight(page, ids["Ogre"]).to_have_count(1)
    assert [value(gm, n) for n in ("attacker", "target", "weapon")] == [ids["Bruno"], ids["Ogre"], knife]
    assert form.locator("select[name=weapon] option:checked").get_attribute("data-attacker") == ids["Bruno"]
    assert gm.evaluate("document.activeElement && document.activeElement.name") == "weapon"
    assert value(phone, "target") == ids["Wolf"]

    # tokens move, the turn passes, the fight ends: still the GM's and Mira's choices
    move(server, game, (gm, phone), ids["Goblin"], 4, 2, force=True)
    live_command(server, game, {"type": "next_turn"})
    live_command(server, game, {"type": "end_combat"})
    for page in (gm, phone):
        out_of_the_fight(page, ids["Ogre"]).to_have_count(0)
    assert [value(gm, n) for n in ("attacker", "target", "weapon")] == [ids["Bruno"], ids["Ogre"], knife]
    assert value(phone, "target") == ids["Wolf"]
