"""The recap (#36, webapp/game/views/recap.py): what a scripted fight's recap says, what a player's recap of a fogged
fight leaves out, the saved file, sessions split by time, and a game file from an earlier version."""

from __future__ import annotations

import base64
import json
import re
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.helpers import bearer, command as send, join, new_game, put_token, start_fight
from webapp import create_app
from webapp.game.views import recap
from webapp.game.core.model import GM
from webapp.storage import archive
from webapp.storage.history import walk

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
OLD_GAME = FIXTURES / "old-duel-e2cc14c.zip"


pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")


def play_turns(client, g, ids, attackers, turns=40):
    """A fight of ``ids``: on each turn the acting token (if one of ``attackers``) attacks Hero, Hero attacks
    the Bandit; then the next turn; ended after ``turns`` turns. Seeded dice: the same fight every run."""
    start_fight(client, g, ids.values())
    for _ in range(turns):
        st = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
        cur = st["combat"]["current"]
        if cur == ids["Hero"]:
            send(client, g, {"type": "attack", "attacker": cur, "target": ids["Bandit"]})
        elif cur in attackers:
            send(client, g, {"type": "attack", "attacker": cur, "target": ids["Hero"]})
        for _offer in (client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
                       .get("pending_soak") or {}).get("offers", []):  # the Wounds stand (#58: Next turn waits)
            send(client, g, {"type": "soak", "accept": False})
        send(client, g, {"type": "next_turn"})
    assert send(client, g, {"type": "end_combat"}).status_code == 200


def duel(client, fog=False):
    walls = [{"a": [6, 0], "b": [6, 8]}] if fog else []
    g = new_game(client, "savage_worlds", {"width": 12, "height": 8, "walls": walls}, name="Duel")
    p = join(client, g, "Mira")
    ids = {}
    cast = [("Hero", (2, 2), {"owner": p["player_id"]}), ("Bandit", (3, 2), {}), ("Thug", (2, 3), {})]
    if fog:  # one behind the wall (the fog's), one hidden by the GM
        cast += [("Lurker", (9, 2), {}), ("Ghost", (3, 4), {"hidden": True})]
    for name, at, extra in cast:
        ids[name] = put_token(client, g, name, at, **extra)
    if fog:
        assert send(client, g, {"type": "set_fog", "enabled": True}).status_code == 200
    return g, p, ids


def page(client, g, token, **args):
    r = client.get(f"/games/{g['id']}/recap", query_string=args, headers=bearer(token))
    assert r.status_code == 200, r.data[:300]
    return r


def pictures(text: str) -> list[str]:
    return [base64.b64decode(b).decode() for b in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', text)]


def test_the_recap_of_a_scripted_fight_names_the_fighters_the_fallen_and_the_biggest_hit(app):
    client = app.test_client()
    g, _p, ids = duel(client)
    play_turns(client, g, ids, attackers={ids["Bandit"], ids["Thug"]})
    hub = app.extensions["tacmap"]
    # what the log says, read here apart from the recap: the attack with the most wounds, who ended Incapacitated
    events = hub.store.events(g["id"])
    wounds = [(sum(e.data["result"]["effects"][i]["data"].get("wounds", 0)
                   for i, x in enumerate(e.data["result"]["effects"]) if x["kind"] == "wounds"), seq)
              for seq, e in enumerate(events, 1) if e.type == "attack_resolved"]
    most = max(w for w, _ in wounds)
    assert most > 0, "the seeded fight drew no wound: pick another seed"
    # of the attacks that did the most wounds, the one with the biggest damage roll, then the first
    rolled = {seq: max((shot["damage"] for shot in e.data["result"]["details"]["damage"]), default=0)
              for seq, e in enumerate(events, 1) if e.type == "attack_resolved"}  # Savage Worlds: one per shot
    first_biggest = min((seq for w, seq in wounds if w == most), key=lambda seq: (-rolled.get(seq, 0), seq))
    final = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
    down = {t["name"] for t in final["tokens"] if t["sheet"].get("incapacitated")}
    assert down, "nobody fell in the seeded fight"

    told = recap.story(walk(g["id"], events), hub.store.event_times(g["id"]), GM)
    (session,) = told["sessions"]
    (f,) = session["fights"]
    assert f["fighters"] and set(f["fighters"]) == {"Hero", "Bandit", "Thug"}
    assert f["who"] == "Hero fought Bandit and Thug" or f["who"] == "Hero fought Thug and Bandit"
    assert set(f["fallen"]) == down
    assert f["hits"][0]["seq"] == first_biggest and f["hits"][0]["harm"] == most
    said = events[first_biggest - 1].data["result"]["summary"]
    assert f["hits"][0]["text"].startswith(said)

    html = page(client, g, g["gm_token"]).data.decode()
    assert "Hero fought" in html and said in html
    fell = re.search(r"Fell:</span> ([^<]*)</p>", html).group(1)
    assert set(fell.split(", ")) == down
    start, end = pictures(html)[:2]
    assert all(f"<title>{n}</title>" in start for n in ("Hero", "Bandit", "Thug"))  # the board as the fight began
    drawn = {re.search(r"<title>(.*?)</title>", g).group(1): g for g in end.split("<g>")[1:]}
    assert {n for n, g in drawn.items() if 'opacity="0.45"' in g} == down  # the fallen are faded as it ended


def test_a_players_recap_of_a_fogged_fight_names_no_token_that_player_did_not_see(app):
    client = app.test_client()
    g, p, ids = duel(client, fog=True)
    play_turns(client, g, ids, attackers={ids["Bandit"], ids["Thug"]}, turns=12)
    gm = page(client, g, g["gm_token"]).data.decode()
    gm_text = gm + "".join(pictures(gm))
    assert "Lurker" in gm_text and "Ghost" in gm_text  # the GM's recap has them: the test could fail
    for token in (p["player_token"], g["screen_token"]):
        text = page(client, g, token).data.decode()
        everything = text + "".join(pictures(text))
        assert "Hero" in everything and "Bandit" in everything
        assert "Lurker" not in everything and "Ghost" not in everything


def test_the_saved_file_is_one_attachment_with_no_script_and_nothing_from_elsewhere(app):
    client = app.test_client()
    g, _p, ids = duel(client)
    play_turns(client, g, ids, attackers={ids["Bandit"]}, turns=8)
    r = page(client, g, g["gm_token"], download=1)
    assert r.headers["Content-Disposition"] == 'attachment; filename="recap-Duel.html"'

    class Parse(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags, self.addresses = [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)
            for name, value in attrs:
                if name in ("src", "href", "action", "srcset", "poster", "data") and value:
                    self.addresses.append(value)
                if name.startswith("on"):
                    self.addresses.append(f"{name}=")

    doc = Parse()
    doc.feed(r.data.decode())
    assert "script" not in doc.tags and "link" not in doc.tags and "iframe" not in doc.tags
    assert doc.addresses and all(a.startswith("data:image/svg+xml;base64,") for a in doc.addresses), doc.addresses
    assert "url(" not in r.data.decode() and "@import" not in r.data.decode()
    for svg in pictures(r.data.decode()):  # the pictures fetch nothing either
        assert "href" not in svg and "<script" not in svg


def test_sessions_split_where_the_log_sleeps_more_than_four_hours(app):
    client = app.test_client()
    g, _p, ids = duel(client)
    play_turns(client, g, ids, attackers={ids["Bandit"]}, turns=6)
    hub = app.extensions["tacmap"]
    events, times = hub.store.events(g["id"]), hub.store.event_times(g["id"])
    assert len(times) == len(events) and all(isinstance(t, float) for t in times)
    start = next(i for i, e in enumerate(events) if e.type == "combat_started")
    later = times[:start] + [t + 5 * 3600 for t in times[start:]]  # the fight a week-night later
    told = recap.story(walk(g["id"], events), later, GM)
    assert [len(s["fights"]) for s in told["sessions"]] == [0, 1]
    assert told["sessions"][1]["start_seq"] == start + 1
    near = times[:start] + [t + 3 * 3600 for t in times[start:]]  # a long break in one evening
    assert len(recap.story(walk(g["id"], events), near, GM)["sessions"]) == 1
    assert len(recap.story(walk(g["id"], events), [None] * len(events), GM)["sessions"]) == 1  # no times: one


def test_a_recap_of_a_game_file_from_an_earlier_version(tmp_path):
    manifest = json.loads(zipfile.ZipFile(OLD_GAME).read("manifest.json"))
    assert manifest["version"] == 1
    data = tmp_path / "data"
    data.mkdir()
    app = create_app({"DATA_DIR": str(data), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    imported = archive.import_game(data, OLD_GAME)
    game_id = imported.game_id
    client = app.test_client()
    r = client.get(f"/games/{game_id}/recap", headers=bearer(manifest["game"]["gm_key"]))
    assert r.status_code == 200
    html = r.data.decode()
    assert "Previously in Old Duel" in html
    assert "Hero fought" in html and "Bandit" in html and "Thug" in html
    hub = app.extensions["tacmap"]
    told = recap.story(walk(game_id, hub.store.events(game_id)), hub.store.event_times(game_id), GM)
    (f,) = told["sessions"][0]["fights"]
    assert f["ended"] and f["attacks"] > 0 and f["hits"]
    assert len(pictures(html)) == 2


def test_the_recap_is_for_the_seats_of_the_game_only(app):
    client = app.test_client()
    g, p, _ids = duel(client)
    other = client.post("/api/games", json={"name": "Elsewhere", "system": "plain_grid"}).json
    assert client.get(f"/games/{g['id']}/recap").status_code == 403
    assert client.get(f"/games/{g['id']}/recap", headers=bearer(other["gm_token"])).status_code == 403
    assert client.get(f"/games/{g['id']}/recap?as=wizard", headers=bearer(g["gm_token"])).status_code == 400
    # a player's key asked for the GM's recap: not the GM's to read
    assert client.get(f"/games/{g['id']}/recap?as=gm", headers=bearer(p["player_token"])).status_code == 403
    assert client.get("/games/nosuchgame/recap", headers=bearer(g["gm_token"])).status_code == 404


def test_only_the_gm_shows_and_hides_the_recap_on_the_table_screen(app):
    client = app.test_client()
    g, p, _ids = duel(client)
    assert send(client, g, {"type": "show_recap"}, p["player_token"]).status_code == 422
    assert send(client, g, {"type": "show_recap"}, g["screen_token"]).status_code == 422
    assert send(client, g, {"type": "show_recap"}).status_code == 200
    again = send(client, g, {"type": "show_recap"})
    assert again.status_code == 422 and "already on" in again.json["error"]
    hub = app.extensions["tacmap"]
    assert hub.game(g["id"]).recap_on
    assert send(client, g, {"type": "hide_recap"}).status_code == 200
    assert not hub.game(g["id"]).recap_on


def test_maps_visited_and_hand_outs_shown_each_seat_its_own_on_hex_and_zone_maps(app):
    client = app.test_client()
    g = client.post("/api/games", json={"name": "Keep", "system": "plain_grid"}).json
    gm = bearer(g["gm_token"])
    mira, olaf = (client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": n}).json
                  for n in ("Mira", "Olaf"))
    made = {}
    for title in ("Clue", "Map of the Keep"):
        r = client.post(f"/api/games/{g['id']}/handouts", data={"title": title, "text": "A torn page."},
                        content_type="multipart/form-data", headers=gm)
        assert r.status_code == 201, r.json
        made[title] = r.json["handout_id"]
    assert send(client, g, {"type": "show_handout", "handout_id": made["Clue"], "to": [mira["player_id"]]}).status_code == 200
    assert send(client, g, {"type": "show_handout", "handout_id": made["Map of the Keep"], "to": "everyone"}).status_code == 200
    assert send(client, g, {"type": "add_map", "name": "Crypt", "width": 10, "height": 8, "grid": "hex"}).status_code == 200
    crypt = next(m["id"] for m in client.get(f"/api/games/{g['id']}/state", headers=gm).json["maps"] if m["name"] == "Crypt")
    assert send(client, g, {"type": "activate_map", "map_id": crypt}).status_code == 200
    ids = [client.post(f"/api/games/{g['id']}/tokens", json={"name": n, "x": x, "y": 3, **extra}, headers=gm).json["id"]
           for n, x, extra in (("Aria", 2, {"owner": mira["player_id"], "kind": "pc"}), ("Wight", 4, {}))]
    assert send(client, g, {"type": "start_combat", "token_ids": ids}).status_code == 200
    assert send(client, g, {"type": "end_combat"}).status_code == 200

    told = page(client, g, g["gm_token"]).data.decode()
    assert "Main map, Crypt" in told and "Clue, Map of the Keep" in told and "Aria fought Wight" in told
    assert 'viewBox="0 0 10.5 6.25"' in pictures(told)[0]  # the fight's map: 10 x 8 pointy hexes' extent
    mine = page(client, g, mira["player_token"]).data.decode()
    assert "Clue" in mine and "Map of the Keep" in mine
    theirs = page(client, g, olaf["player_token"]).data.decode()
    assert "Clue" not in theirs and "Map of the Keep" in theirs and "Main map, Crypt" in theirs

    zones = {"zones": [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]}, {"id": "bay", "name": "Cargo Bay"}]}
    z = client.post("/api/games", json={"name": "Port", "system": "atomic_tomorrow", "map": zones}).json
    tids = [client.post(f"/api/games/{z['id']}/tokens", json={"name": n, "zone": zone, "kind": kind},
                        headers=bearer(z["gm_token"])).json["id"] for n, zone, kind in (("Nova", "pad", "pc"), ("Raider", "bay", "npc"))]
    assert send(client, z, {"type": "start_combat", "token_ids": tids}).status_code == 200
    port = page(client, z, z["gm_token"]).data.decode()
    assert "Nova fought Raider" in port and "(still on)" in port
    assert 'stroke="#6b7280"' in "".join(pictures(port))  # the zones' boxes


def test_an_attack_the_gm_undid_is_no_hit_of_the_story(app):
    client = app.test_client()
    g, _p, ids = duel(client)
    assert send(client, g, {"type": "start_combat", "token_ids": list(ids.values())}).status_code == 200
    for _ in range(40):  # seeded dice: the acting token attacks until a blow wounds, turn after turn
        cur = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json["combat"]["current"]
        target = ids["Bandit"] if cur == ids["Hero"] else ids["Hero"]
        ack = send(client, g, {"type": "attack", "attacker": cur, "target": target}).json
        last = app.extensions["tacmap"].store.events(g["id"])[-1]
        if ack.get("ok") and any(e["kind"] == "wounds" for e in last.data["result"]["effects"]):
            break
        send(client, g, {"type": "next_turn"})
    else:
        pytest.fail("no wound in forty turns")
    hub = app.extensions["tacmap"]

    def told():
        return recap.story(walk(g["id"], hub.store.events(g["id"])), hub.store.event_times(g["id"]), GM)[
            "sessions"][0]["fights"][0]

    before = told()
    assert before["hits"][0]["seq"] == ack["seq"]
    assert send(client, g, {"type": "undo"}).status_code == 200
    after = told()
    assert ack["seq"] not in [h["seq"] for h in after["hits"]]
    assert after["attacks"] == before["attacks"] - 1


def test_the_recap_reads_the_log_the_replay_keeps_and_the_gms_is_told_the_same_without_the_fogs_memory(
        app, monkeypatch):
    from webapp.web.recap import build

    client = app.test_client()
    g, p, ids = duel(client, fog=True)
    play_turns(client, g, ids, attackers={ids["Bandit"], ids["Thug"]}, turns=12)
    hub = app.extensions["tacmap"]
    events, times = hub.store.events(g["id"]), hub.store.event_times(g["id"])
    # the GM's story folded with the fog's explored memory (as a player's is): the page's is folded without it
    for _seq, _event, game in walk(g["id"], events):
        pass
    assert game.explored.get(p["player_id"]), "no memory to leave out: the test could not fail"
    with_memory = recap.story(walk(g["id"], events), times, GM)
    assert build(hub, g["id"], GM) == with_memory
    player = hub.replays._actor(f"player:{p['player_id']}")  # a player's is folded with it (what they knew then)
    assert build(hub, g["id"], player) == recap.story(walk(g["id"], events), times, player)

    # the log is read from the store once, then kept with the replay's: a later recap reads only what came since
    reads = []
    stored = hub.store.events
    monkeypatch.setattr(hub.store, "events", lambda game_id, after=0, before=None, times=None:
                        reads.append(after) or stored(game_id, after, before, times))
    hub.replays._histories.clear()
    first = page(client, g, g["gm_token"]).data.decode()
    assert reads == [0]
    again = page(client, g, g["gm_token"]).data.decode()
    assert reads == [0], "the second recap read the log again"
    head = hub.store.last_seq(g["id"])
    assert send(client, g, {"type": "move_token", "token_id": ids["Hero"], "x": 1, "y": 1}).status_code == 200
    later = page(client, g, g["gm_token"]).data.decode()
    assert reads == [0, head]
    strip = lambda html: re.sub(r"\d+ ms", "", html)  # noqa: E731 (the page says how long it took)
    assert strip(first) == strip(again)
    assert later != first and "Hero fought" in later
