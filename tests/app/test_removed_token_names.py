"""A token the players and the table screen never saw stays unnamed after the GM removes it (issue #62): a token in
the fog, a hidden one, one in the dark and one renamed while hidden each get a character and take part in a fight,
then the GM removes it (and, for one in the fog, turns the fog off: the lines written while it stood unseen said
"all", the fog alone hid them). Before and after the removal, nothing a player or the table screen gets names the token
(nor its old name, nor its character): not their JSON state, not the log their pages draw, not the replay's
timeline or a replay shown on their screens, not any update sent to them live."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import bearer

NAMES = ("Ghoul", "Wight", "Ghast")  # the token, its name once renamed, its character


def named(text: str) -> list[str]:
    return [text[max(0, m.start() - 60):m.end() + 30] for m in re.finditer("|".join(NAMES), text)]


@pytest.mark.parametrize("unseen", ["fog", "hidden", "dark", "renamed while hidden", "fog, turned off after"])
def test_a_token_nobody_saw_is_never_named_to_players_or_the_screen_even_after_its_removal(app, unseen):
    c = app.test_client()
    socketio = app.extensions["tacmap_socketio"]
    g = c.post("/api/games", json={"name": "Crypt", "system": "savage_worlds", "map": {"width": 20, "height": 8}}).json
    gid, gm = g["id"], bearer(g["gm_token"])
    mira = c.post(f"/api/games/{gid}/players", json={"join_code": g["join_code"], "name": "Mira"}).json

    def command(body):
        r = c.post(f"/api/games/{gid}/commands", json=body, headers=gm)
        assert r.status_code == 200, (body, r.json)
        return r.json

    def add(name, x, **more):
        r = c.post(f"/api/games/{gid}/tokens", json={"name": name, "x": x, "y": 1, **more}, headers=gm)
        assert r.status_code == 201, r.json
        return r.json["id"]

    hero = add("Hero", 4, owner=mira["player_id"], kind="pc")
    command({"type": "add_wall", "a": [5, 0], "b": [5, 8]})  # the crypt beyond the wall, the Hero beside it
    if unseen != "hidden":
        command({"type": "set_fog", "enabled": True})  # "fog, turned off after": off once the token is gone
    if unseen == "dark":
        command({"type": "set_lighting", "ambient": "dark"})  # in the Hero's line of sight, but unlit

    # the player's browser and the table screen, each with its page and its live link, from before the token comes
    phone_browser, screen_browser = app.test_client(), app.test_client()
    phone_browser.get(f"/games/{gid}/play?key={mira['player_token']}")
    screen_browser.get(f"/games/{gid}/screen?key={g['screen_token']}")
    phone = socketio.test_client(app, auth={"game": gid, "token": mira["player_token"]}, flask_test_client=phone_browser)
    screen = socketio.test_client(app, auth={"game": gid, "token": g["screen_token"]}, flask_test_client=screen_browser)
    received: list[str] = []

    def drain():
        for client in (phone, screen):
            received.extend(json.dumps(m) for m in client.get_received())

    ghoul = add("Ghoul", 3 if unseen == "dark" else 5, hidden=unseen in ("hidden", "renamed while hidden"))
    if unseen == "renamed while hidden":
        command({"type": "update_token", "token_id": ghoul, "name": "Wight"})
    command({"type": "add_character", "name": "Ghast", "token_id": ghoul})
    command({"type": "start_combat", "token_ids": [hero, ghoul]})
    command({"type": "attack", "attacker": ghoul, "target": hero, "force": True})
    if c.get(f"/api/games/{gid}/state", headers=gm).json.get("pending_soak"):  # Next turn waits for it (#58)
        command({"type": "soak", "accept": False})
    for _ in range(3):
        command({"type": "next_turn"})
    fought = c.get(f"/api/games/{gid}/state", headers=gm).json["seq"]
    drain()

    def what_they_get(when: str) -> dict[str, str]:
        out = {}
        for who, key, browser, page in (("player", mira["player_token"], phone_browser, "play"),
                                        ("screen", g["screen_token"], screen_browser, "screen")):
            state = c.get(f"/api/games/{gid}/state", headers=bearer(key)).json
            out[f"{who}'s state {when}"] = json.dumps(state)
            out[f"{who}'s page {when}"] = browser.get(f"/games/{gid}/{page}").get_data(as_text=True)
        out[f"player's timeline {when}"] = phone_browser.get(f"/games/{gid}/timeline").get_data(as_text=True)
        return out

    before = what_they_get("before the removal")
    assert "Ghoul was added" in json.dumps(c.get(f"/api/games/{gid}/state", headers=gm).json["log"])
    assert not [t for t in json.loads(before["player's state before the removal"])["tokens"] if t["id"] == ghoul]
    command({"type": "remove_token", "token_id": ghoul})
    if unseen == "fog, turned off after":  # the whole map in view now: still nothing of a token nobody saw
        command({"type": "set_fog", "enabled": False})
    drain()
    after = what_they_get("after the removal")
    # the GM replays the fight on the table screen, then goes back to the table
    command({"type": "replay", "at": fought, "on": ["screen"]})
    drain()
    command({"type": "replay_end"})
    drain()

    seen = {**before, **after, "every update sent to the phone and the screen": "\n".join(received)}
    assert {where: named(text) for where, text in seen.items() if named(text)} == {}
    gm_log = json.dumps(c.get(f"/api/games/{gid}/state", headers=gm).json["log"])
    assert "Ghast joined the cast" in gm_log and "was removed" in gm_log  # the GM's log keeps it all


def test_the_table_screen_never_gets_a_foes_sheet_kept_on_its_token(app):
    """A token's own sheet (kept by games from before characters) goes to the GM and the token's player only; the
    table screen, whose seat is nobody's, is not the owner of a token nobody owns."""
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Old", "system": "savage_worlds"}).json
    mira = c.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Mira"}).json
    made = {name: c.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": 1, **more},
                         headers=bearer(g["gm_token"])).json["id"]
            for name, x, more in (("Orc", 3, {}), ("Hero", 1, {"owner": mira["player_id"]}))}
    game = app.extensions["tacmap"].game(g["id"])
    game.tokens[made["Orc"]].sheet = {"notes": "orc-notes-31"}
    game.tokens[made["Hero"]].sheet = {"notes": "hero-notes-77"}
    sheets = {who: {t["name"]: t.get("sheet")
                    for t in c.get(f"/api/games/{g['id']}/state", headers=bearer(key)).json["tokens"]}
              for who, key in (("gm", g["gm_token"]), ("player", mira["player_token"]), ("screen", g["screen_token"]))}
    assert sheets["gm"] == {"Orc": {"notes": "orc-notes-31"}, "Hero": {"notes": "hero-notes-77"}}
    assert sheets["player"] == {"Orc": None, "Hero": {"notes": "hero-notes-77"}}
    assert sheets["screen"] == {"Orc": None, "Hero": None}
