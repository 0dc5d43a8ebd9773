"""The fight choices of Savage Worlds, phase/TN and Atomic Tomorrow through the JSON API (#23): the
options the preview lists, one picked of each kind and the odds moving, the odds against the rolled
results, surprise at start_combat, and the Savage Worlds Soak roll offered, answered and refused."""

from __future__ import annotations

import math
import re
import time

import pytest

from tests.helpers import bearer, command as send, join, state
from webapp import create_app
from webapp.live.server import throttle

GRID = {"width": 12, "height": 8}
PORT = {"zones": [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]},
                  {"id": "bay", "name": "Cargo Bay", "adjacent": []}]}


@pytest.fixture
def client(tmp_path):
    """The app with a throttle each seat never reaches here (#71: the hundreds of attacks these checks send waited
    7 s a test for the table's pace; the throttle itself is tried in tests/app/test_network.py)."""
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                      "DICE_SEED": "7"})
    app.extensions["tacmap"].seats = throttle.Seats(rate=1000.0, burst=1000)
    return app.test_client()


def game(client, system, spots):
    body = {"name": "Choices", "system": system, "map": PORT if system == "atomic_tomorrow" else GRID}
    g = client.post("/api/games", json=body).json
    p = join(client, g, "Mira")
    ids = {}
    for name, where, mine in spots:
        body = {"name": name, **({"zone": where} if isinstance(where, str) else {"x": where[0], "y": where[1]}),
                **({"owner": p["player_id"], "kind": "pc"} if mine else {})}
        r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
    return g, p, ids


def preview(client, g, attacker, target, weapon, **options):
    r = send(client, g, {"type": "preview_attack", "attacker": attacker, "target": target, "weapon": weapon,
                         "options": options})
    assert r.status_code == 200, r.json
    return r.json["preview"]


def paced(client, g, body, token=None):
    """A command sent at the pace a seat may keep (the table's throttle refuses a flood: wait, send again)."""
    for _ in range(50):
        r = send(client, g, body, token)
        if r.status_code != 429:
            return r
        time.sleep(0.2)
    raise AssertionError("the table stayed busy")


def frequency_matches(client, g, body, p, seats, n=150):
    """The rolled hits against the odds shown, the attacks sent by the GM and the player in turn (each seat
    has its own pace)."""
    hits = 0
    for i in range(n):
        r = paced(client, g, {"type": "attack", **body}, seats[i % len(seats)])
        assert r.status_code == 200, r.json
        hits += state(client, g)["log"][-1]["detail"]["attack"]["hit"]
    assert abs(hits / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.02, (hits / n, p)


def test_savage_worlds_options_through_the_api(client):
    g, p, ids = game(client, "savage_worlds", [("Hero", (2, 2), True), ("Bandit", (3, 2), False)])
    hero, bandit = ids["Hero"], ids["Bandit"]
    view = preview(client, g, hero, bandit, "Long sword")
    opts = {o["key"]: o for o in view["options"]}
    assert {"called", "wild_attack", "aim", "rapid_attack", "unarmed_defender"} <= set(opts)
    assert opts["called"]["kind"] == "choice" and opts["wild_attack"]["kind"] == "bool"
    assert opts["rapid_attack"]["kind"] == "int" and not opts["aim"]["available"]
    base = view["odds"]["hit"]
    head = preview(client, g, hero, bandit, "Long sword", called="head")["odds"]
    wild = preview(client, g, hero, bandit, "Long sword", wild_attack=True)["odds"]
    rapid = preview(client, g, hero, bandit, "Long sword", rapid_attack=3)["odds"]
    assert head["hit"] < base < wild["hit"] and rapid["outcomes"] != view["odds"]["outcomes"]
    assert {"label": "Called Shot: Head", "value": -4, "source": "Called Shot"} in head["modifiers"]
    # each modifier says which roll it is on (#33: "Called Shot: Head -4 / +4")
    assert {"label": "Called Shot: Head (damage)", "value": 4, "source": "Called Shot"} in head["modifiers"]
    r = send(client, g, {"type": "attack", "attacker": hero, "target": bandit, "weapon": "Long sword",
                         "options": {"wild_attack": True, "sneaky": 1}})
    assert r.status_code == 422 and "no attack option 'sneaky'" in r.json["error"]
    r = send(client, g, {"type": "preview_attack", "attacker": hero, "target": bandit, "weapon": "Colt Peacemaker",
                         "options": {"wild_attack": True}})
    assert r.status_code == 422 and "Wild Attack: melee attacks only" in r.json["error"]
    frequency_matches(client, g, {"attacker": hero, "target": bandit, "weapon": "Long sword",
                                  "options": {"called": "head"}}, head["hit"], [g["gm_token"], p["player_token"]])
    said = state(client, g)["log"][-1]["detail"]["attack"]["modifiers"]
    assert {"label": "Called Shot: Head", "value": -4, "source": "Called Shot"} in said


def soak_offer(client, g, attacker, target, token):
    """Attack until the target takes Wounds and the rules offer it a Soak roll (seeded dice)."""
    for _ in range(80):
        paced(client, g, {"type": "attack", "attacker": attacker, "target": target, "weapon": "Long sword",
                          "options": {"wild_attack": True}})
        offers = (state(client, g, token).get("pending_soak") or {}).get("offers") or []
        if offers:
            return offers[0]
    raise AssertionError("no Wounds in 80 attacks")


def sheet_of(client, g, tid):
    return next(t for t in state(client, g)["tokens"] if t["id"] == tid)["sheet"]


def test_a_wounded_wild_card_soaks_with_a_benny_from_its_players_phone(client):
    """Savage Worlds, Bennies: a Wild Card that takes Wounds may spend a Benny on a Vigor roll; a success
    soaks one Wound and each raise another."""
    g, p, ids = game(client, "savage_worlds", [("Hero", (2, 2), True), ("Bandit", (3, 2), False)])
    offer = soak_offer(client, g, ids["Bandit"], ids["Hero"], p["player_token"])
    before = sheet_of(client, g, ids["Hero"])
    assert offer["target_id"] == ids["Hero"] and offer["bennies"] == before["bennies"] >= 1
    assert state(client, g)["pending_soak"]["offers"][0]["target_id"] == ids["Hero"]  # the GM sees it too
    r = paced(client, g, {"type": "soak", "accept": True}, p["player_token"])
    assert r.status_code == 200, r.json
    after = sheet_of(client, g, ids["Hero"])
    line = next(e["text"] for e in reversed(state(client, g)["log"]) if "Soak roll" in e["text"])
    soaked, taken = map(int, re.search(r"soaks (?:(\d+) of|none of the) ?(\d+)", line.replace("none of the", "0 of"))
                        .groups())
    assert taken == offer["wounds"] and after["bennies"] == before["bennies"] - 1
    if before["wounds"] < 3:  # not capped: each Wound soaked comes off the sheet
        assert after["wounds"] == before["wounds"] - soaked
    assert after["wounds"] <= before["wounds"]
    again = state(client, g, p["player_token"]).get("pending_soak")
    if soaked < taken and after["bennies"] >= 1:  # a Wound left: another Benny may reroll it (#70); she keeps the roll
        assert again["offers"][0]["soaked"] == soaked, again
        r = paced(client, g, {"type": "soak", "accept": False}, p["player_token"])
        assert r.status_code == 200, r.json
        assert "Hero keeps the Soak roll (no reroll)" in state(client, g)["log"][-1]["text"]
        assert sheet_of(client, g, ids["Hero"]) == after
    else:
        assert again is None
    assert state(client, g, p["player_token"]).get("pending_soak") is None
    r = paced(client, g, {"type": "soak", "accept": True}, p["player_token"])
    assert r.status_code == 422 and "no Soak roll is waiting" in r.json["error"]
    if again is not None:  # the GM takes back her answer to the reroll: it is offered again
        assert paced(client, g, {"type": "undo"}).status_code == 200
        assert state(client, g, p["player_token"])["pending_soak"]["offers"][0]["soaked"] == soaked
    assert paced(client, g, {"type": "undo"}).status_code == 200  # the GM takes the Soak back: the offer waits again
    assert sheet_of(client, g, ids["Hero"]) == before
    assert state(client, g, p["player_token"])["pending_soak"]["offers"][0]["target_id"] == ids["Hero"]


def test_the_gm_answers_an_npc_wild_cards_soak_and_the_player_cannot(client):
    g, p, ids = game(client, "savage_worlds", [("Hero", (2, 2), True), ("Bandit", (3, 2), False)])
    offer = soak_offer(client, g, ids["Hero"], ids["Bandit"], g["gm_token"])
    assert offer["npc"] and state(client, g, p["player_token"]).get("pending_soak") is None
    r = paced(client, g, {"type": "soak", "accept": True, "token_id": ids["Bandit"]}, p["player_token"])
    assert r.status_code == 422 and "player (or the GM)" in r.json["error"]
    before = sheet_of(client, g, ids["Bandit"])
    r = paced(client, g, {"type": "soak", "accept": False})
    assert r.status_code == 200 and sheet_of(client, g, ids["Bandit"]) == before  # the Wounds stand
    assert "takes the Wounds (no Soak roll)" in state(client, g)["log"][-1]["text"]


def test_savage_worlds_surprise_at_start_combat(client):
    """"Surprise: Attackers are on Hold. Victims must make a Notice check"."""
    g, _, ids = game(client, "savage_worlds", [("Hero", (2, 2), True), ("Bandit", (6, 2), False)])
    r = send(client, g, {"type": "start_combat", "token_ids": [ids["Hero"], ids["Bandit"]],
                         "surprised": [ids["Bandit"]]})
    assert r.status_code == 200, r.json
    text = [e["text"] for e in state(client, g)["log"]]
    assert any("Bandit is caught unaware and roll Notice" in t or "Bandit is caught unaware" in t for t in text)
    assert any(t.startswith("Hero is on Hold (Surprise: an attacker; act from Hold this round)") for t in text)
    assert any(t.startswith(("Bandit: Surprised (failed Notice)", "Bandit was surprised but makes the Notice"))
               for t in text)


def test_phase_tn_options_and_surprise_through_the_api(client):
    g, _, ids = game(client, "phase_tn", [("Ann", (2, 2), True), ("Bob", (6, 2), False)])
    view = preview(client, g, ids["Ann"], ids["Bob"], None, targeted=True, tn=13)
    opts = {o["key"]: o for o in view["options"]}
    assert {"targeted", "called", "aim", "mode", "tn"} <= set(opts) and opts["called"]["available"]
    aimed = preview(client, g, ids["Ann"], ids["Bob"], None, targeted=True, tn=13, aim=2)["odds"]
    called = preview(client, g, ids["Ann"], ids["Bob"], None, targeted=True, tn=13, called="head")["odds"]
    assert aimed["hit"] > view["odds"]["hit"] and called["outcomes"] != view["odds"]["outcomes"]
    frequency_matches(client, g, {"attacker": ids["Ann"], "target": ids["Bob"],
                                  "options": {"targeted": True, "aim": 2, "tn": 13}},
                      preview(client, g, ids["Ann"], ids["Bob"], None, targeted=True, aim=2, tn=13)["odds"]["hit"],
                      [g["gm_token"]], n=120)  # the TN is the GM's to set
    assert state(client, g)["log"][-1]["text"].startswith("Ann shoots Bob: ")
    g, _, ids = game(client, "phase_tn", [("Ann", (2, 2), True), ("Bob", (6, 2), False)])  # Bob unhurt
    r = send(client, g, {"type": "start_combat", "token_ids": [ids["Ann"], ids["Bob"]], "surprised": [ids["Bob"]]})
    assert r.status_code == 200, r.json
    assert any("Bob is surprised: cannot react for 1 round, then rolls Reflexes (TN 8" in e["text"]
               for e in state(client, g)["log"])


def test_atomic_tomorrow_options_and_no_surprise_through_the_api(client):
    g, p, ids = game(client, "atomic_tomorrow", [("Nova", "pad", True), ("Raider", "bay", False)])
    view = preview(client, g, ids["Nova"], ids["Raider"], "Blast pistol")
    opts = {o["key"]: o for o in view["options"]}
    assert {"bonus", "penalty", "defense_bonus", "defense_penalty", "engaged", "range"} <= set(opts)
    hard = preview(client, g, ids["Nova"], ids["Raider"], "Blast pistol", penalty=-40)["odds"]
    assert hard["hit"] < view["odds"]["hit"]
    frequency_matches(client, g, {"attacker": ids["Nova"], "target": ids["Raider"], "weapon": "Blast pistol",
                                  "options": {"penalty": -40}}, hard["hit"],
                      [g["gm_token"], p["player_token"]])
    r = paced(client, g, {"type": "start_combat", "token_ids": [ids["Nova"], ids["Raider"]],
                          "surprised": [ids["Raider"]]})
    assert r.status_code == 422 and "no surprise rule" in r.json["error"]
    assert state(client, g)["combat"] is None
