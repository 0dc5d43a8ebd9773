"""The smaller rule items of issue #33 through the protocol: what a preview says when "No defense" is the
only defense open, and the attack card after Start fight."""

from __future__ import annotations

import re

import pytest

import rules
from webapp import create_app

from test_templates import duel, send


@pytest.fixture
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "5"}).test_client()


def test_a_preview_whose_only_defense_is_none_does_not_promise_to_ask_the_player(client):
    g, p, ids = duel(client)
    preview = {"type": "preview_attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword"}
    html = send(client, g, preview, g["gm_token"]).json["html"]
    assert "asked before the roll" in html and "rolled without asking" not in html  # a conscious Hero chooses
    sheet = {**rules.get("gurps_lite").default_sheet(), "conditions": ["unconscious"]}
    assert send(client, g, {"type": "add_character", "name": "Hero", "token_id": ids["Hero"],
                                           "sheet": sheet}, g["gm_token"]).status_code == 200
    r = send(client, g, preview, g["gm_token"])
    assert [c["key"] for c in r.json["preview"]["defenses"] if c["available"]] == ["none"]
    html = r.json["html"]
    assert "No defense is open to Hero now: the attack is rolled without asking anyone." in html
    assert "asked before the roll" not in html and "the player is asked" not in html


def test_the_logs_how_says_what_happened_in_words_not_the_rules_books(client):
    """#33: the 3d6 log's "how" read "defense parry, counter parries, weapon Broadsword, limbs []"."""
    g, p, ids = duel(client)
    seen = 0
    for _ in range(12):  # attacks until one is parried or hits (seeded dice)
        r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Brute"],
                                                "weapon": "Broadsword"}, p["player_token"])
        assert r.status_code == 200, r.json
        page = client.get(f"/games/{g['id']}/play?key={p['player_token']}", follow_redirects=True).get_data(as_text=True)
        hows = re.findall(r"<details><summary>how</summary><ul>(.*?)</ul></details>", page, re.S)
        assert hows
        for how in hows:
            assert "limbs" not in how and "counter" not in how and "[]" not in how, how
        seen = sum("<strong>Brute</strong>: " in how and ("parries" in how or "injury" in how) for how in hows)
        if seen:
            break
    assert seen  # the result card's words: "Brute: parries with Broadsword", "... HP injury (torso)"


def test_atomic_tomorrow_cards_read_in_words(tmp_path):
    """#33: Atomic Tomorrow cards read "Rex: wounds 0 (total 0, state fighting)", "1zone step" and listed the
    skill as a modifier, "Ranged +46"."""
    from test_fight_choices_others import game, send as send_as_gm, state

    client = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                         "DICE_SEED": "7"}).test_client()
    g, p, ids = game(client, "atomic_tomorrow", [("Nova", "pad", True), ("Raider", "bay", False)])
    r = send_as_gm(client, g, {"type": "preview_attack", "attacker": ids["Nova"], "target": ids["Raider"],
                               "weapon": "Blast pistol"})
    assert r.status_code == 200, r.json
    html = r.json["html"]
    assert "1 zone step" in html and "1zone" not in html
    assert re.search(r'<p class="skill-line">Skill: Ranged \d+%', html)
    assert "<td>Ranged</td>" not in html  # the skill is no modifier
    effects = []
    for _ in range(30):  # until a hit lands (seeded dice)
        r = send_as_gm(client, g, {"type": "attack", "attacker": ids["Nova"], "target": ids["Raider"],
                                   "weapon": "Blast pistol"})
        assert r.status_code == 200, r.json
        card = [e for e in state(client, g)["log"] if (e.get("detail") or {}).get("card")][-1]["detail"]["card"]
        effects += [w for t in card["targets"] for w in t["effects"]]
        if any("wound" in w for w in effects):
            break
    worded = [w for w in effects if "wound" in w]
    assert worded and all(re.fullmatch(r"(no wound \(\d so far|\d wounds? \(\d in all)(\)|: \w+\))", w) for w in worded), worded
    assert not any("total" in w or "state" in w for w in effects), effects


def test_a_player_spends_bennies_but_only_the_gm_awards_them(client):
    """#33: a player set their own Bennies to 9. Savage Worlds: the GM (and a Joker) hands them out."""
    from test_fight_choices_others import game, send as send_as

    g, p, ids = game(client, "savage_worlds", [("Hero", (2, 2), True)])
    sheet = {**rules.get("savage_worlds").default_sheet(), "bennies": 3}
    r = send_as(client, g, {"type": "add_character", "name": "Hero", "token_id": ids["Hero"], "sheet": sheet,
                            "owner": p["player_id"]})
    assert r.status_code == 200, r.json
    cid = client.get(f"/api/games/{g['id']}/state", headers={"Authorization": f"Bearer {g['gm_token']}"}
                     ).json["characters"][0]["id"]
    r = send_as(client, g, {"type": "update_sheet", "character_id": cid, "changes": {"bennies": 9}}, p["player_token"])
    assert r.status_code == 422 and r.json["error"] == "only the GM raises bennies (a player may spend them)"
    r = send_as(client, g, {"type": "update_sheet", "character_id": cid, "changes": {"bennies": 2}}, p["player_token"])
    assert r.status_code == 200, r.json  # spent one
    r = send_as(client, g, {"type": "update_sheet", "character_id": cid, "changes": {"bennies": 5}})
    assert r.status_code == 200, r.json  # the GM awards
    assert client.get(f"/api/games/{g['id']}/state", headers={"Authorization": f"Bearer {g['gm_token']}"}
                      ).json["characters"][0]["sheet"]["bennies"] == 5


def test_savage_worlds_damage_takes_only_its_dice():
    from rules.savage_worlds.checks import damage_expression
    from rules.system import RuleError

    assert damage_expression("Str+d8", "d6")[0] == "d6!+d8!"
    with pytest.raises(RuleError, match="not a d7"):  # #33: "Str+d7" was taken
        damage_expression("Str+d7", "d6")
    with pytest.raises(Exception, match="d7"):  # and a sheet with it is refused
        rules.get("savage_worlds").validate_sheet({**rules.get("savage_worlds").default_sheet(),
                                                   "weapons": {"Odd": {"damage": "Str+d7"}}})


def test_a_made_character_is_named_after_its_token(client):
    """#33: a Savage Worlds character made for a token had the sample sheet's Name, "Hero"."""
    from test_fight_choices_others import game, send as send_as

    g, p, ids = game(client, "savage_worlds", [("Rex", (2, 2), True)])
    r = send_as(client, g, {"type": "add_character", "name": "Rex", "token_id": ids["Rex"]})
    assert r.status_code == 200, r.json
    sheet = client.get(f"/api/games/{g['id']}/state", headers={"Authorization": f"Bearer {g['gm_token']}"}
                       ).json["characters"][0]["sheet"]
    assert sheet["name"] == "Rex"
