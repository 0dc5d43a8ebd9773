"""Characters: added with the system's sample sheet or one of their own, edited within the rules'
checks (the GM all of it, a player their own), private sheets for the GM and the owner only."""

from __future__ import annotations

import pytest

import rules
from tests.helpers import bearer, command as send, join, new_game, state
from webapp import create_app


@pytest.fixture
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False}).test_client()


def setup(client, system="savage_worlds"):
    g = new_game(client, system, name="Cast")
    players = [join(client, g, n)
               for n in ("Mira", "Olek")]
    tok = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1, "owner": players[0]["player_id"]},
                      headers=bearer(g["gm_token"])).json["id"]
    return g, players, tok


def test_a_character_without_a_sheet_gets_the_systems_sample_and_its_derived_values(client):
    g, (mira, _), tok = setup(client)
    r = send(client, g, {"type": "add_character", "name": "Aria", "token_id": tok, "owner": mira["player_id"]}, g["gm_token"])
    assert r.status_code == 200, r.json
    [c] = state(client, g, g["gm_token"])["characters"]
    system = rules.get("savage_worlds")
    # the sample, named after the character (#33: it said "Hero")
    assert c["sheet"] == {**system.default_sheet(), "name": "Aria"} and c["derived"] == system.derived(c["sheet"])
    assert c["token_id"] == tok and c["owner"] == mira["player_id"]


def test_the_owner_edits_their_sheet_and_derived_values_follow(client):
    g, (mira, _), tok = setup(client)
    send(client, g, {"type": "add_character", "name": "Aria", "token_id": tok, "owner": mira["player_id"]}, g["gm_token"])
    cid = state(client, g, g["gm_token"])["characters"][0]["id"]
    before = state(client, g, mira["player_token"])["characters"][0]["derived"]["parry"]
    r = send(client, g, {"type": "update_sheet", "character_id": cid, "changes": {"skills.fighting": "d12"}}, mira["player_token"])
    assert r.status_code == 200, r.json
    after = state(client, g, mira["player_token"])["characters"][0]
    assert after["sheet"]["skills"]["fighting"] == "d12"
    assert after["derived"]["parry"] > before  # Parry = 2 + half the Fighting die


def test_a_bad_value_is_refused_with_the_rules_reason_and_not_stored(client):
    g, (mira, _), tok = setup(client)
    send(client, g, {"type": "add_character", "name": "Aria", "token_id": tok, "owner": mira["player_id"]}, g["gm_token"])
    cid = state(client, g, g["gm_token"])["characters"][0]["id"]
    before = state(client, g, g["gm_token"])
    r = send(client, g, {"type": "update_sheet", "character_id": cid, "changes": {"skills.fighting": "d7"}}, mira["player_token"])
    assert r.status_code == 422 and r.json["error"].startswith("sheet:") and "fighting" in r.json["error"]
    r = send(client, g, {"type": "update_sheet", "character_id": cid, "changes": {"nope.deep": 1}}, mira["player_token"])
    assert r.status_code == 422 and "no table 'nope'" in r.json["error"]
    assert state(client, g, g["gm_token"]) == before


def test_sheets_are_private_to_the_gm_and_the_owner(client):
    g, (mira, olek), tok = setup(client)
    send(client, g, {"type": "add_character", "name": "Aria", "token_id": tok, "owner": mira["player_id"]}, g["gm_token"])
    cid = state(client, g, g["gm_token"])["characters"][0]["id"]
    other = state(client, g, olek["player_token"])["characters"]
    assert other == [{"id": cid, "name": "Aria", "owner": mira["player_id"], "token_id": tok}]
    r = send(client, g, {"type": "update_sheet", "character_id": cid, "changes": {"skills.fighting": "d4"}}, olek["player_token"])
    assert r.status_code == 422 and "of yours" in r.json["error"]
    assert "sheet" not in str(state(client, g, g["screen_token"])["characters"])


def test_a_player_adds_a_character_for_themselves_only_and_no_token_gets_two(client):
    g, (mira, olek), tok = setup(client)
    r = send(client, g, {"type": "add_character", "name": "Spare", "owner": olek["player_id"]}, mira["player_token"])
    assert r.status_code == 422
    assert send(client, g, {"type": "add_character", "name": "Spare"}, mira["player_token"]).status_code == 200
    assert state(client, g, mira["player_token"])["characters"][0]["owner"] == mira["player_id"]
    send(client, g, {"type": "add_character", "name": "Aria", "token_id": tok}, g["gm_token"])
    r = send(client, g, {"type": "add_character", "name": "Aria 2", "token_id": tok}, g["gm_token"])
    assert r.status_code == 422 and "has a character already" in r.json["error"]


def test_a_characters_sheet_is_what_its_token_fights_with(client):
    g, (mira, _), tok = setup(client)
    sheet = rules.get("savage_worlds").default_sheet()
    sheet["weapons"] = {"Laser sword": {"damage": "Str+d10", "reach": 1}}
    r = send(client, g, {"type": "add_character", "name": "Aria", "token_id": tok, "sheet": sheet}, g["gm_token"])
    assert r.status_code == 200, r.json
    bandit = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Bandit", "x": 2, "y": 1},
                         headers=bearer(g["gm_token"])).json["id"]
    r = send(client, g, {"type": "preview_attack", "attacker": tok, "target": bandit, "weapon": "Laser sword"}, g["gm_token"])
    assert r.status_code == 200, r.json
    r = send(client, g, {"type": "preview_attack", "attacker": tok, "target": bandit, "weapon": "Long sword"}, g["gm_token"])
    assert r.status_code == 422 and "no weapon" in r.json["error"]


def test_the_sheet_page_makes_the_character_then_saves_fields_and_shows_refusals_inline(client):
    g, (mira, _), tok = setup(client)
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")  # this browser is the GM's
    page = client.get(f"/games/{g['id']}/tokens/{tok}/sheet").get_data(as_text=True)
    assert "example character" in page and "Make Aria's character" in page
    r = client.post(f"/games/{g['id']}/tokens/{tok}/sheet")
    assert r.status_code == 200 and "Edit the sheet" in r.get_data(as_text=True)
    [c] = state(client, g, g["gm_token"])["characters"]
    assert c["owner"] == mira["player_id"]  # the token's player owns the new character
    form = {"attributes.agility": "d10", "name": "Aria", "pace": "6"}
    body = client.post(f"/games/{g['id']}/tokens/{tok}/sheet", data=form).get_data(as_text=True)
    assert "Saved." in body
    assert state(client, g, g["gm_token"])["characters"][0]["sheet"]["attributes"]["agility"] == "d10"
    body = client.post(f"/games/{g['id']}/tokens/{tok}/sheet", data={"pace": "fast"}).get_data(as_text=True)
    assert 'role="alert"' in body and "Pace" in body
    body = client.post(f"/games/{g['id']}/tokens/{tok}/sheet", data={"attributes.agility": "d9"}).get_data(as_text=True)
    assert 'role="alert"' in body and "agility" in body
    assert state(client, g, g["gm_token"])["characters"][0]["sheet"]["attributes"]["agility"] == "d10"
    assert "Nothing changed." in client.post(f"/games/{g['id']}/tokens/{tok}/sheet", data={"pace": "6"}).get_data(as_text=True)


def test_the_sheet_page_offers_making_the_character_only_to_who_may(client):
    """A player's own token's sheet page offers no "Make Aria's character": only the GM puts a character on
    a token (the button answered the player with a refusal); the GM's page offers it."""
    g, (mira, _), tok = setup(client)
    client.get(f"/games/{g['id']}/play?key={mira['player_token']}")  # this browser is Mira's, Aria's player
    page = client.get(f"/games/{g['id']}/tokens/{tok}/sheet").get_data(as_text=True)
    assert "example character" in page
    assert "Make Aria's character" not in page and "<button" not in page.split('id="sheet-body"', 1)[1]
    assert "Only the GM can make Aria's character." in page
    body = client.post(f"/games/{g['id']}/tokens/{tok}/sheet").get_data(as_text=True)  # sent anyway: refused
    assert "only the GM puts a character on a token" in body and "Make Aria's character" not in body
    assert state(client, g, g["gm_token"])["characters"] == []
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")  # the GM's browser now
    assert "Make Aria's character" in client.get(f"/games/{g['id']}/tokens/{tok}/sheet").get_data(as_text=True)


def test_another_player_cannot_open_or_edit_the_sheet(client):
    g, (_, olek), tok = setup(client)
    client.post("/join", data={"code": g["join_code"], "name": "Olek"})  # this browser sits as a player
    assert client.get(f"/games/{g['id']}/tokens/{tok}/sheet").status_code == 404
    assert client.post(f"/games/{g['id']}/tokens/{tok}/sheet").status_code == 404
    assert state(client, g, g["gm_token"])["characters"] == []
