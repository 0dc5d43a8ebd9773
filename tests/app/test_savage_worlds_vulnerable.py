"""Savage Worlds: Vulnerable from a Wild Attack lasts to the end of the attacker's next turn, as the help says (#58),
not the whole fight; an Undo in between puts back what was (Vulnerable, and how long it still lasts)."""

from __future__ import annotations

import pytest

import rules
from tests.helpers import command, state, game_with

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="4")

#: the Orc: a Wild Card in heavy armour, so the Wild Attack leaves it standing in the fight
ORC = {**rules.get("savage_worlds").default_sheet(), "name": "Orc", "armor": 8}


def hero_and_orc(client):
    """Mira's Hero (the default sheet) and the GM's Orc side by side, in a fight."""
    return game_with(client, "savage_worlds", {"width": 12, "height": 6}, [("Hero", (2, 2), True), ("Orc", (3, 2), False)],
                     name="Wild", sheets={"Hero": rules.get("savage_worlds").default_sheet(), "Orc": ORC}, start=True)


def vulnerable(client, g, token_id: str) -> bool:
    return next(c for c in state(client, g)["characters"] if c.get("token_id") == token_id)["sheet"]["vulnerable"]


def current(client, g) -> str:
    return state(client, g)["combat"]["current"]


def next_turn(client, g) -> str:
    assert command(client, g, {"type": "next_turn"}).status_code == 200
    return current(client, g)


def until_turn_of(client, g, token_id: str) -> int:
    """Next turn until ``token_id``'s starts; how many turns that took."""
    for n in range(1, 12):
        if next_turn(client, g) == token_id:
            return n
    raise AssertionError("never that token's turn")


def wild_attack(client, g, p, ids) -> None:
    while current(client, g) != ids["Hero"]:
        next_turn(client, g)
    r = command(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Orc"], "weapon": "Long sword",
                             "options": {"wild_attack": True}}, p["player_token"])
    assert r.status_code == 200, r.json
    assert vulnerable(client, g, ids["Hero"])


def test_vulnerable_from_a_wild_attack_ends_with_the_attackers_next_turn(client):
    g, p, ids = hero_and_orc(client)
    wild_attack(client, g, p, ids)
    # the rest of the fight's turns until the Hero's next one: still Vulnerable
    until_turn_of(client, g, ids["Hero"])
    assert vulnerable(client, g, ids["Hero"])
    # the Hero's next turn ends: no longer Vulnerable, and it stays so for three rounds
    next_turn(client, g)
    assert not vulnerable(client, g, ids["Hero"])
    log = [e["text"] for e in state(client, g, p["player_token"])["log"]]
    assert "Hero is no longer Vulnerable: its next turn is over" in log
    start = state(client, g)["combat"]["round"]
    while state(client, g)["combat"]["round"] < start + 3:
        next_turn(client, g)
        assert not vulnerable(client, g, ids["Hero"])


def test_an_undo_in_between_restores_vulnerable_and_how_long_it_lasts(client):
    g, p, ids = hero_and_orc(client)
    wild_attack(client, g, p, ids)
    next_turn(client, g)  # the Hero's own turn ends: Vulnerable still
    assert vulnerable(client, g, ids["Hero"])
    # undo that turn: the Hero acts again, Vulnerable; its turn ends again, still Vulnerable (to its next turn's end)
    assert command(client, g, {"type": "undo"}).status_code == 200
    assert current(client, g) == ids["Hero"] and vulnerable(client, g, ids["Hero"])
    next_turn(client, g)
    assert vulnerable(client, g, ids["Hero"])
    until_turn_of(client, g, ids["Hero"])
    next_turn(client, g)  # the end of the Hero's next turn
    assert not vulnerable(client, g, ids["Hero"])
    # undo that: the Hero's next turn is back, Vulnerable with it; it ends again, and so does Vulnerable
    assert command(client, g, {"type": "undo"}).status_code == 200
    assert current(client, g) == ids["Hero"] and vulnerable(client, g, ids["Hero"])
    next_turn(client, g)
    assert not vulnerable(client, g, ids["Hero"])
    start = state(client, g)["combat"]["round"]
    while state(client, g)["combat"]["round"] < start + 3:
        next_turn(client, g)
        assert not vulnerable(client, g, ids["Hero"])


def test_undoing_the_wild_attack_takes_vulnerable_back(client):
    g, p, ids = hero_and_orc(client)
    wild_attack(client, g, p, ids)
    assert command(client, g, {"type": "undo"}).status_code == 200
    assert not vulnerable(client, g, ids["Hero"])
    until_turn_of(client, g, ids["Hero"])
    next_turn(client, g)
    assert not vulnerable(client, g, ids["Hero"])
