"""Fights and dice through the JSON API: turn order from the rule system, rolls with their dice, settings."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, command, join, new_game, state
from webapp import create_app


@pytest.fixture
def seeded(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "42"}).test_client()


def setup(client, system="plain_grid"):
    g = new_game(client, system, name="Fight")
    p = join(client, g, "Mira")
    ids = []
    zones = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json.get("zones")
    for i, (name, owner) in enumerate([("Mira", p["player_id"]), ("Ogre", None), ("Rat", None)]):
        where = {"zone": zones[i]["id"]} if zones else {"x": i, "y": 0}
        body = {"name": name, **where, **({"owner": owner, "kind": "pc"} if owner else {})}
        ids.append(client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"])
    return g, p, ids


def test_a_roll_answers_with_its_total_and_every_die_and_is_in_the_log(seeded):
    g, p, _ = setup(seeded)
    r = command(seeded, g, {"type": "roll", "expr": "3d6+2"}, p["player_token"])
    assert r.status_code == 200, r.json
    faces = [d["rolls"][0] for d in r.json["dice"]]
    assert len(faces) == 3 and r.json["total"] == sum(faces) + 2
    log = state(seeded, g, g["screen_token"])["log"]
    assert log[-1]["text"].startswith("Mira rolled 3d6+2")
    assert log[-1]["detail"]["roll"]["total"] == r.json["total"]


def test_a_seeded_server_rolls_the_same_dice_for_the_same_game_and_step(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "d"), "TESTING": True, "SECRET_KEY": "t", "DICE_SEED": "7"})
    hub = app.extensions["tacmap"]
    game = hub.game(hub.store.games()[0].id)
    first = hub.dice(game).roll("10d100").total
    assert hub.dice(game).roll("10d100").total == first  # same game, same step, same seed
    app.config["DICE_SEED"] = "8"
    assert hub.dice(game).roll("10d100").total != first  # another seed, other dice
    app.config["DICE_SEED"] = None
    assert type(hub.dice(game)).__name__ == "RandomDice"  # no seed: real randomness


def test_a_seeded_server_rolls_the_same_dice_in_a_game_made_afresh(tmp_path):
    """Game ids are random; a test that makes its game anew on a seeded server still gets the same dice."""
    totals = []
    for run in ("a", "b"):
        app = create_app({"DATA_DIR": str(tmp_path / run), "TESTING": True, "SECRET_KEY": "t", "DICE_SEED": "7"})
        hub = app.extensions["tacmap"]
        game = hub.game(hub.create_game("Ambush", "savage_worlds").id)
        totals.append(hub.dice(game).roll("10d100").total)
    assert totals[0] == totals[1]


def test_a_secret_roll_reaches_only_the_gm(seeded):
    g, p, _ = setup(seeded)
    r = command(seeded, g, {"type": "roll", "expr": "d20", "secret": True}, p["player_token"])
    assert r.status_code == 200 and "total" not in r.json
    gm_log = state(seeded, g, g["gm_token"])["log"]
    assert gm_log[-1]["text"].startswith("Mira rolled d20") and gm_log[-1]["audience"] == "gm"
    for token in (p["player_token"], g["screen_token"]):
        assert all("d20" not in e["text"] for e in state(seeded, g, token)["log"])


@pytest.mark.parametrize("expr, why", [("2d6+", "expr"), ("101d6", "100 dice"), ("d0", "expr"), ("", "expr")])
def test_a_bad_roll_is_refused_and_changes_nothing(seeded, expr, why):
    g, p, _ = setup(seeded)
    before = state(seeded, g, g["gm_token"])
    r = command(seeded, g, {"type": "roll", "expr": expr}, p["player_token"])
    assert r.status_code in (400, 422) and why in r.json["error"]
    assert state(seeded, g, g["gm_token"]) == before


def test_the_table_screen_cannot_roll(seeded):
    g, _, _ = setup(seeded)
    r = command(seeded, g, {"type": "roll", "expr": "d6"}, g["screen_token"])
    assert r.status_code == 422 and "screen" in r.json["error"]


def test_a_fight_goes_round_in_turn_order_and_players_end_only_their_own_turn(seeded):
    g, p, (mira, ogre, rat) = setup(seeded)
    gm, player = g["gm_token"], p["player_token"]
    assert command(seeded, g, {"type": "start_combat", "token_ids": [mira, ogre]}, player).status_code == 422
    assert command(seeded, g, {"type": "start_combat", "token_ids": [mira, ogre, rat]}, gm).status_code == 200
    fight = state(seeded, g, player)["combat"]
    assert fight == {"round": 1, "phase": "", "order": [mira, ogre, rat], "current": mira, "due": []}
    assert command(seeded, g, {"type": "next_turn"}, player).status_code == 200  # Mira's own turn
    r = command(seeded, g, {"type": "next_turn"}, player)  # the ogre's turn is not hers to end
    assert r.status_code == 422 and "turn" in r.json["error"]
    command(seeded, g, {"type": "next_turn"}, gm)
    command(seeded, g, {"type": "next_turn"}, gm)
    assert state(seeded, g, gm)["combat"]["round"] == 2
    assert state(seeded, g, gm)["combat"]["current"] == mira
    assert command(seeded, g, {"type": "start_combat", "token_ids": [mira]}, gm).status_code == 422
    assert command(seeded, g, {"type": "end_combat"}, gm).status_code == 200
    assert state(seeded, g, gm)["combat"] is None
    assert command(seeded, g, {"type": "next_turn"}, gm).json["error"] == "there is no fight on"


def test_the_gm_reorders_by_hand_but_must_list_everyone(seeded):
    g, _, (mira, ogre, rat) = setup(seeded)
    gm = g["gm_token"]
    command(seeded, g, {"type": "start_combat", "token_ids": [mira, ogre, rat]}, gm)
    assert command(seeded, g, {"type": "set_order", "order": [rat, mira]}, gm).status_code == 422
    assert command(seeded, g, {"type": "set_order", "order": [rat, mira, ogre]}, gm).status_code == 200
    assert state(seeded, g, gm)["combat"]["order"] == [rat, mira, ogre]
    assert state(seeded, g, gm)["log"][-1]["text"] == "the GM changed the turn order: Rat, Mira, Ogre"
    r = command(seeded, g, {"type": "set_order", "order": [rat, mira, ogre]}, gm)
    assert r.status_code == 422 and r.json["error"] == "that is the order already"


@pytest.mark.parametrize("system", ["plain_grid", "gurps_lite", "savage_worlds", "tesseris_ads", "atomic_tomorrow"])
def test_the_next_turn_follows_the_gms_order(seeded, system):
    """The rules keep their own books of the order: a reorder by hand is what the next turn follows."""
    g, p, ids = setup(seeded, system)
    gm = g["gm_token"]
    assert command(seeded, g, {"type": "start_combat", "token_ids": ids}, gm).status_code == 200
    fight = state(seeded, g, gm)["combat"]
    current = fight["current"]
    others = [i for i in fight["order"] if i != current]
    wanted = [current, others[1], others[0]]  # the one who was last comes next
    r = command(seeded, g, {"type": "set_order", "order": wanted}, gm)
    assert r.status_code == 200, r.json
    assert state(seeded, g, gm)["combat"]["current"] == current  # the turn stays where it was
    command(seeded, g, {"type": "next_turn"}, gm)
    after = state(seeded, g, gm)["combat"]
    assert after["current"] == others[1] and after["order"][:3] == wanted


def test_the_phase_tn_gm_orders_the_declarations_by_hand(seeded):
    g, p, ids = setup(seeded, "phase_tn")
    gm = g["gm_token"]
    command(seeded, g, {"type": "start_combat", "token_ids": ids}, gm)
    fight = state(seeded, g, gm)["combat"]
    first, second, third = fight["order"]
    assert command(seeded, g, {"type": "set_order", "order": [first, third, second]}, gm).status_code == 200
    command(seeded, g, {"type": "next_turn"}, gm)  # the first declares nothing new
    assert state(seeded, g, gm)["combat"]["current"] == third


def test_players_see_the_new_order_and_may_not_reorder(seeded):
    g, p, (mira, ogre, rat) = setup(seeded)
    gm = g["gm_token"]
    command(seeded, g, {"type": "start_combat", "token_ids": [mira, ogre, rat]}, gm)
    r = command(seeded, g, {"type": "set_order", "order": [mira, rat, ogre]}, p["player_token"])
    assert r.status_code == 422 and "GM" in r.json["error"]
    command(seeded, g, {"type": "set_order", "order": [mira, rat, ogre]}, gm)
    for token in (p["player_token"], g["screen_token"]):
        assert state(seeded, g, token)["combat"]["order"] == [mira, rat, ogre]


def test_hidden_tokens_are_left_out_of_the_order_players_see(seeded):
    g, p, (mira, ogre, rat) = setup(seeded)
    gm = g["gm_token"]
    command(seeded, g, {"type": "update_token", "token_id": rat, "hidden": True}, gm)
    command(seeded, g, {"type": "start_combat", "token_ids": [mira, ogre, rat]}, gm)
    assert state(seeded, g, gm)["combat"]["order"] == [mira, ogre, rat]
    assert rat not in str(state(seeded, g, p["player_token"])["combat"])


def test_start_combat_with_an_unknown_token_is_refused(seeded):
    g, _, (mira, _, _) = setup(seeded)
    r = command(seeded, g, {"type": "start_combat", "token_ids": [mira, "t999"]}, g["gm_token"])
    assert r.status_code == 422 and "t999" in r.json["error"]


def test_settings_are_checked_against_the_systems_defaults(seeded):
    g = seeded.post("/api/games", json={"name": "Wild", "system": "savage_worlds"}).json
    gm = g["gm_token"]
    assert state(seeded, g, gm)["settings"]["max_actions"] == 3
    r = command(seeded, g, {"type": "set_settings", "settings": {"max_actions": 2}}, gm)
    assert r.status_code == 200
    assert state(seeded, g, gm)["settings"]["max_actions"] == 2
    for bad, why in [({"no_such": 1}, "no setting 'no_such'"), ({"max_actions": "2"}, "whole number"),
                     ({"extreme_requires_aim": 1}, "yes or no"), ({"max_actions": 2}, "nothing to change")]:
        r = command(seeded, g, {"type": "set_settings", "settings": bad}, gm)
        assert r.status_code == 422 and why in r.json["error"], (bad, r.json)


def test_only_the_gm_sets_settings(seeded):
    g, p, _ = setup(seeded, "savage_worlds")
    r = command(seeded, g, {"type": "set_settings", "settings": {"max_actions": 2}}, p["player_token"])
    assert r.status_code == 422 and "GM" in r.json["error"]


def test_a_fight_and_its_rolls_survive_a_restart(tmp_path):
    config = {"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False, "DICE_SEED": "1"}
    client = create_app(config).test_client()
    g, _, (mira, ogre, rat) = setup(client)
    command(client, g, {"type": "start_combat", "token_ids": [mira, ogre, rat]}, g["gm_token"])
    command(client, g, {"type": "next_turn"}, g["gm_token"])
    roll = command(client, g, {"type": "roll", "expr": "4d6"}, g["gm_token"]).json
    before = state(client, g, g["gm_token"])
    again = create_app(config).test_client()
    after = state(again, g, g["gm_token"])
    assert after == before and after["combat"]["current"] == ogre
    assert after["log"][-1]["detail"]["roll"]["total"] == roll["total"]


@pytest.mark.parametrize("system", ["savage_worlds", "gurps_lite", "tesseris_ads", "phase_tn"])
def test_the_rules_lines_about_a_hidden_foe_reach_only_the_gm(seeded, system):
    g, p, (mira, ogre, rat) = setup(seeded, system)
    gm = g["gm_token"]
    assert command(seeded, g, {"type": "update_token", "token_id": ogre, "hidden": True}, gm).status_code == 200
    command(seeded, g, {"type": "start_combat", "token_ids": [mira, ogre, rat]}, gm)
    for _ in range(4):
        command(seeded, g, {"type": "next_turn"}, gm)
    gm_log = [e["text"] for e in state(seeded, g, gm)["log"]]
    assert any("Ogre" in line for line in gm_log)
    for key in (p["player_token"], g["screen_token"]):
        log = [e["text"] for e in state(seeded, g, key)["log"]]
        fight = log[log.index("A fight begins"):]  # (before it was hidden, the ogre was added in sight)
        assert len(fight) > 3 and not [line for line in fight if "Ogre" in line]


@pytest.mark.parametrize("system", ["plain_grid", "savage_worlds", "gurps_lite", "tesseris_ads"])
def test_each_turn_is_announced_once(seeded, system):
    g, _, ids = setup(seeded, system)
    gm = g["gm_token"]
    command(seeded, g, {"type": "start_combat", "token_ids": ids}, gm)
    for _ in range(3):
        command(seeded, g, {"type": "next_turn"}, gm)
    log = [e["text"] for e in state(seeded, g, gm)["log"]]
    for a, b in zip(log, log[1:]):
        assert not (a.startswith(b) and b.endswith("'s turn")), (a, b)


def test_a_tesseris_shot_spends_the_shooters_ammunition_on_its_sheet(seeded):
    """The app hands each sheet its own effects: the attacker's bullets spent reach the attacker's sheet
    (*Tesseris Combat*, "Rate of Fire (RoF)": each fire mode spends the bullets its slot lists)."""
    g = seeded.post("/api/games", json={"name": "Ammo", "system": "tesseris_ads", "map": {"width": 20, "height": 8}}).json
    gm = g["gm_token"]
    def add(name, x):
        return seeded.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": 1},
                           headers=bearer(gm)).json["id"]
    jim, foe = add("Jim", 1), add("Foe", 6)
    for name, token in (("Jim", jim), ("Foe", foe)):
        command(seeded, g, {"type": "add_character", "name": name, "token_id": token}, gm)
    r = command(seeded, g, {"type": "attack", "attacker": jim, "target": foe, "weapon": "rifle"}, gm)
    assert r.status_code == 200, r.json
    after = state(seeded, g, gm)
    effects = after["log"][-1]["detail"]["attack"]["effects"]
    spent = sum(e["data"]["spent"] for e in effects if e["kind"] == "ammo" and e["target"] == jim)
    assert spent >= 1
    sheets = {c["name"]: c["sheet"] for c in after["characters"]}
    assert sheets["Jim"]["weapons"]["rifle"]["ammo"] == 30 - spent
    assert sheets["Foe"]["weapons"]["rifle"]["ammo"] == 30


def test_a_tesseris_disarm_moves_the_weapon_between_the_sheets(seeded):
    g = seeded.post("/api/games", json={"name": "Disarm", "system": "tesseris_ads", "map": {"width": 10, "height": 4}}).json
    gm = g["gm_token"]
    def add(name, x):
        return seeded.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": 1},
                           headers=bearer(gm)).json["id"]
    ann, bob = add("Ann", 1), add("Bob", 2)
    for name, token in (("Ann", ann), ("Bob", bob)):
        command(seeded, g, {"type": "add_character", "name": name, "token_id": token}, gm)
    outcomes = set()
    for _ in range(12):  # seeded dice: tries until the weapon goes or the sheet runs out of weapons
        sheets = {c["name"]: c["sheet"] for c in state(seeded, g, gm)["characters"]}
        if "knife" not in sheets["Bob"]["weapons"]:
            break
        r = command(seeded, g, {"type": "attack", "attacker": ann, "target": bob, "weapon": "knife",
                                    "options": {"action": "disarm", "target_weapon": "knife"}, "defense": "dodge"}, gm)
        assert r.status_code == 200, r.json
        outcomes.add(state(seeded, g, gm)["log"][-1]["text"].split(":")[0].split(" (")[0])
    after = {c["name"]: c["sheet"] for c in state(seeded, g, gm)["characters"]}
    assert "knife" not in after["Bob"]["weapons"], outcomes
    text = [e["text"] for e in state(seeded, g, gm)["log"] if "Knife" in e["text"]][-1]
    if "takes the Knife" in text:
        assert "knife_taken" in after["Ann"]["weapons"]
    else:
        assert "knocks Bob's Knife away" in text and "knife_taken" not in after["Ann"]["weapons"]
    r = command(seeded, g, {"type": "attack", "attacker": ann, "target": bob, "weapon": "knife",
                                "options": {"action": "disarm", "target_weapon": "knife"}}, gm)
    assert r.status_code == 422 and "no weapon 'knife' to knock away" in r.json["error"]
