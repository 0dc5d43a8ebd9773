"""The table's side of the rules' fight choices (#23), for every system alike: who is surprised
reaches the rules and the log, the end of a fight is the rules', the sender never sets the table's
own option keys, a multi-target attack needs an option that takes several, a new character's id comes
back in the ack, and an undone attack leaves the result card and the table screen's recent list."""

from __future__ import annotations

import re

import pytest

from webapp import create_app

from test_attacks import send, setup, state


@pytest.fixture
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "5"}).test_client()


def test_a_surprised_token_outside_the_fight_is_refused_by_name(client):
    g, _, ids = setup(client, "plain_grid")
    r = send(client, g, {"type": "start_combat", "token_ids": [ids["Hero"]], "surprised": [ids["Bandit"]]}, g["gm_token"])
    assert r.status_code == 422 and r.json["error"] == "Bandit is surprised but not in the fight"
    assert state(client, g)["combat"] is None


def test_who_was_surprised_is_in_the_event_and_the_log(client):
    g, _, ids = setup(client, "plain_grid")
    r = send(client, g, {"type": "start_combat", "token_ids": [ids["Hero"], ids["Bandit"]],
                                        "surprised": [ids["Bandit"]]}, g["gm_token"])
    assert r.status_code == 200, r.json
    texts = [e["text"] for e in state(client, g)["log"]]
    assert "Caught by surprise: Bandit" in texts


def test_a_hidden_surprised_token_is_named_to_the_gm_alone(client):
    g, p, ids = setup(client, "plain_grid")
    send(client, g, {"type": "update_token", "token_id": ids["Sniper"], "hidden": True}, g["gm_token"])
    send(client, g, {"type": "start_combat", "token_ids": [ids["Hero"], ids["Sniper"]],
                                    "surprised": [ids["Hero"], ids["Sniper"]]}, g["gm_token"])
    gm = [e["text"] for e in state(client, g)["log"]]
    log = [e["text"] for e in state(client, g, p["player_token"])["log"]]
    mine = log[log.index("A fight begins"):]
    assert "Caught by surprise: Hero" in mine and not any("Sniper" in t for t in mine)
    assert any("Sniper" in t and "surprise" in t for t in gm)


def test_add_character_answers_the_new_characters_id(client):
    g, _, ids = setup(client, "savage_worlds")
    r = send(client, g, {"type": "add_character", "name": "Hero", "token_id": ids["Hero"]}, g["gm_token"])
    assert r.status_code == 200, r.json
    made = [c for c in state(client, g)["characters"] if c["name"] == "Hero"]
    assert r.json["character_id"] == made[0]["id"]


@pytest.mark.parametrize("key", ["defense", "settings", "template", "centre"])
def test_a_sender_never_sets_the_tables_own_option_keys(client, key):
    g, p, ids = setup(client, "savage_worlds")
    before = state(client, g)["seq"]
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Bandit"],
                                            "options": {key: "none"}}, p["player_token"])
    assert r.status_code == 422 and r.json["error"] == f"options may not set {key}: the table sets it"
    assert state(client, g)["seq"] == before


def test_several_targets_need_an_option_that_takes_them(client):
    g, _, ids = setup(client, "plain_grid")
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Bandit"],
                                        "targets": [ids["Bandit"], ids["Sniper"]], "force": True}, g["gm_token"])
    assert r.status_code == 422 and r.json["error"].startswith("this attack takes 1 target at most")


def test_the_attacker_is_never_among_its_own_targets(client):
    g, _, ids = setup(client, "plain_grid")
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Bandit"],
                                        "targets": [ids["Bandit"], ids["Hero"]]}, g["gm_token"])
    assert r.status_code == 422 and r.json["error"] == "a token cannot attack itself"


def _screen_card(client, g):
    html = client.get(g["urls"]["screen"], follow_redirects=True).get_data(as_text=True)
    seq = re.search(r'id="result-card"[^>]*data-seq="(\d*)"', html)
    feed = re.search(r'id="screen-feed".*?</section>', html, re.S).group(0)
    return (seq.group(1) if seq else None), feed


def test_an_undone_attack_leaves_the_result_card_and_the_recent_list(client):
    g, _, ids = setup(client, "savage_worlds")
    for name in ("Hero", "Bandit"):
        send(client, g, {"type": "add_character", "name": name, "token_id": ids[name]}, g["gm_token"])
    r = send(client, g, {"type": "attack", "attacker": ids["Bandit"], "target": ids["Hero"],
                                        "weapon": next(iter(state(client, g)["characters"][1]["sheet"]["weapons"]))}, g["gm_token"])
    assert r.status_code == 200, r.json
    seq, feed = _screen_card(client, g)
    assert seq == str(r.json["seq"]) and "Bandit" in feed
    assert send(client, g, {"type": "undo"}, g["gm_token"]).status_code == 200
    seq, feed = _screen_card(client, g)
    assert seq == "" and "Bandit" not in feed


ZONES = {"zones": [{"id": "west", "name": "Hangar", "adjacent": ["centre"]},
                   {"id": "centre", "name": "Gantry", "adjacent": ["west", "east"]},
                   {"id": "east", "name": "Launch pad", "adjacent": ["centre"]}]}
LAUNCHER = {"name": "Grenade launcher", "skill": "ranged", "wound_rating": 3, "armour_piercing": 0,
            "ranges": ["near", "far"], "area": True}


def test_an_atomic_tomorrow_area_weapon_fires_at_a_laid_templates_zone(client):
    """Atomic Tomorrow's core facts: an area weapon (a grenade launcher) hits everyone in the target
    zone. On a zone map a laid template covers a zone: fired at it, it hits everyone there, each named."""
    g = client.post("/api/games", json={"name": "Zones", "system": "atomic_tomorrow", "map": ZONES}).json
    gm = g["gm_token"]
    for name, zone in (("Ann", "west"), ("Bob", "centre"), ("Cid", "centre"), ("Dan", "east")):
        assert send(client, g, {"type": "add_token", "name": name, "zone": zone}, gm).status_code == 200
    ids = {t["name"]: t["id"] for t in state(client, g)["tokens"]}
    for name in ids:
        send(client, g, {"type": "add_character", "name": name, "token_id": ids[name]}, gm)
    ann = next(c for c in state(client, g)["characters"] if c["name"] == "Ann")
    send(client, g, {"type": "update_sheet", "character_id": ann["id"],
                         "changes": {"weapons": [*ann["sheet"]["weapons"], LAUNCHER]}}, gm)
    send(client, g, {"type": "place_template", "shape": "circle", "size": 1, "zone": "centre", "label": "Grenade"}, gm)
    tid = state(client, g)["templates"][0]["id"]
    aim = {"attacker": ids["Ann"], "target": ids["Bob"], "template": tid}
    r = send(client, g, {"type": "preview_attack", **aim, "weapon": "Blast pistol"}, gm)
    assert r.status_code == 422 and r.json["error"].startswith("Blast pistol is not an area weapon")
    r = send(client, g, {"type": "preview_attack", **aim, "target": ids["Dan"], "weapon": "Grenade launcher"}, gm)
    assert r.status_code == 422 and r.json["error"] == "the template covers Gantry: pick a target in it"
    r = send(client, g, {"type": "preview_attack", **aim, "weapon": "Grenade launcher"}, gm)
    assert r.status_code == 200, r.json
    assert sorted(t["name"] for t in r.json["preview"]["odds"]["targets"]) == ["Bob", "Cid"]
    assert r.json["preview"]["template"]["zone"] == "centre"
    assert send(client, g, {"type": "attack", **aim, "weapon": "Grenade launcher"}, gm).status_code == 200
    entry = state(client, g)["log"][-1]
    assert "the blast fills the zone" in entry["text"]
    assert sorted(t["name"] for t in entry["detail"]["card"]["targets"]) == ["Bob", "Cid"]
