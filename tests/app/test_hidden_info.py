"""Hidden information never leaves the server for the wrong audience (the fast, app-level twin of
tests/e2e/test_no_leaks.py): everything a player and the table screen receive (every Socket.IO message,
every ack, their pages, their JSON state) while the GM plays with a hidden token, secret rolls and sheets
holds none of the markers planted in what they may not see."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import bearer

HIDDEN = "Zorblax Quintrel"
PLACES = [(17, 13), (19, 11), (21, 9), (22, 14), (1, 2)]  # (1, 2): beside Aria, to strike her  # where the hidden token stands, goes and is dragged over
SECRET_EXPR = "3d6+9173"
OLAF_NOTES = "olaf-private-7731"  # another player's sheet
OGRE_NOTES = "ogre-gm-notes-5519"  # a visible foe's sheet: the GM's
HIDDEN_CONDITION = "zorblax-condition-6620"  # a GM-only field (gurps_lite ``conditions``) on the hidden token


pytestmark = pytest.mark.app_config(DEMO=False)


def leaks(text: str, hidden_id: str) -> list[str]:
    """The markers found in ``text``: names, values, the hidden token's id and its places."""
    found = [m for m in (HIDDEN, "Zorblax", "9173", OLAF_NOTES, OGRE_NOTES, HIDDEN_CONDITION) if m in text]
    if re.search(rf'(token-{re.escape(hidden_id)}"|"{re.escape(hidden_id)}")', text):
        found.append(f"the hidden token's id {hidden_id}")
    for x, y in PLACES:
        for pattern in (rf'data-x="{x}" data-y="{y}"', rf'"x": ?{x}, ?"y": ?{y}\b', rf"\({x}, {y}\)",
                        rf'translate\({x} {y}\)'):
            if re.search(pattern, text):
                found.append(f"the place ({x}, {y}): {pattern}")
    return found


def test_a_player_and_the_screen_receive_nothing_hidden(app):
    c = app.test_client()
    socketio = app.extensions["tacmap_socketio"]
    g = c.post("/api/games", json={"name": "Leaks", "system": "gurps_lite"}).json
    gid, gm = g["id"], bearer(g["gm_token"])

    def api(payload):
        r = c.post(f"/api/games/{gid}/commands", json=payload, headers=gm)
        assert r.status_code == 200, (payload, r.json)
        return r.json

    mira = c.post(f"/api/games/{gid}/players", json={"join_code": g["join_code"], "name": "Mira"}).json
    olaf = c.post(f"/api/games/{gid}/players", json={"join_code": g["join_code"], "name": "Olaf"}).json
    api({"type": "allow_reclaim", "allow": True})  # Mira's browser below takes her seat by name
    ids = {}
    for name, (x, y), owner, hidden in (("Aria", (1, 1), mira["player_id"], False),
                                        ("Bruno", (3, 1), olaf["player_id"], False),
                                        ("Ogre", (6, 3), None, False), (HIDDEN, PLACES[0], None, True)):
        r = c.post(f"/api/games/{gid}/tokens", json={"name": name, "x": x, "y": y, "owner": owner, "hidden": hidden},
                   headers=gm)
        ids[name] = r.json["id"]
    hid = ids[HIDDEN]

    # the watchers connect before the GM plays, and collect everything
    # (Mira's browser takes her seat by its key: taking it again by name would wait for the GM's OK)
    mira_browser = app.test_client()
    mira_browser.get(f"/games/{gid}/play?key={mira['player_token']}")
    player = socketio.test_client(app, auth={"game": gid, "token": mira["player_token"]}, flask_test_client=mira_browser)
    screen = socketio.test_client(app, auth={"game": gid, "token": g["screen_token"]})
    gm_live = socketio.test_client(app, auth={"game": gid, "token": g["gm_token"]})
    seen: list[str] = []

    def drain():
        for client in (player, screen):
            seen.extend(json.dumps(m) for m in client.get_received())

    for name, notes, owner in (("Bruno", OLAF_NOTES, olaf["player_id"]), ("Ogre", OGRE_NOTES, None)):
        api({"type": "add_character", "name": name, "token_id": ids[name], "owner": owner})
        character = next(ch for ch in app.extensions["tacmap"].game(gid).characters.values()
                         if ch.token_id == ids[name])
        api({"type": "update_sheet", "character_id": character.id, "changes": {"notes": notes}})
    api({"type": "add_character", "name": HIDDEN, "token_id": hid})
    hidden_character = next(ch for ch in app.extensions["tacmap"].game(gid).characters.values() if ch.token_id == hid)
    api({"type": "update_sheet", "character_id": hidden_character.id, "changes": {"conditions": [HIDDEN_CONDITION]}})

    # the GM plays: moves, a drag preview, a secret roll, a fight with the hidden token in it, an attack by it
    for x, y in PLACES[1:2]:
        assert gm_live.emit("command", {"type": "move_token", "token_id": hid, "x": x, "y": y}, callback=True)["ok"]
    assert gm_live.emit("preview", {"token_id": hid, "x": PLACES[2][0], "y": PLACES[2][1]}, callback=True)["ok"]
    assert gm_live.emit("preview", {"token_id": hid, "x": PLACES[3][0], "y": PLACES[3][1], "done": True},
                        callback=True)["ok"]
    ack = gm_live.emit("command", {"type": "roll", "expr": SECRET_EXPR, "secret": True}, callback=True)
    assert ack["ok"] and "9173" in ack["text"]  # the GM sees the roll
    api({"type": "update_token", "token_id": hid, "name": HIDDEN + " II"})
    api({"type": "start_combat", "token_ids": [ids["Aria"], hid, ids["Ogre"]]})
    for _ in range(3):
        api({"type": "next_turn"})
    api({"type": "move_token", "token_id": hid, "x": 1, "y": 2, "force": True})
    preview = api({"type": "preview_attack", "attacker": hid, "target": ids["Aria"], "force": True})
    assert HIDDEN in preview["html"]  # the GM's own answer names it
    api({"type": "attack", "attacker": hid, "target": ids["Aria"], "force": True})
    api({"type": "move_token", "token_id": hid, "x": PLACES[0][0], "y": PLACES[0][1], "force": True})
    api({"type": "update_sheet", "character_id": hidden_character.id,
         "changes": {"conditions": [HIDDEN_CONDITION, "stunned"]}})
    # Mira plays too: what she is told back is checked as well
    for payload in ({"type": "roll", "expr": "2d6", "secret": True}, {"type": "reach", "token_id": ids["Aria"]},
                    {"type": "move_token", "token_id": hid, "x": 2, "y": 2},
                    {"type": "reach", "token_id": hid},
                    {"type": "preview_attack", "attacker": ids["Aria"], "target": hid}):
        seen.append(json.dumps(player.emit("command", payload, callback=True)))
    seen.append(json.dumps(player.emit("preview", {"token_id": hid, "x": 3, "y": 3}, callback=True)))
    seen.append(json.dumps(player.emit("sync", {}, callback=True)))
    drain()

    # and what she and the screen fetch: pages, the JSON state, sheets (hers, Olaf's, the hidden one's)
    screen_browser = app.test_client()
    screen_browser.get(f"/games/{gid}/screen?key={g['screen_token']}")
    for client, path in ((mira_browser, f"/games/{gid}/play"), (screen_browser, f"/games/{gid}/screen"),
                         (mira_browser, f"/games/{gid}/tokens/{ids['Aria']}/sheet"),
                         (mira_browser, f"/games/{gid}/tokens/{ids['Bruno']}/sheet"),
                         (mira_browser, f"/games/{gid}/tokens/{ids['Ogre']}/sheet"),
                         (mira_browser, f"/games/{gid}/tokens/{hid}/sheet")):
        seen.append(client.get(path).get_data(as_text=True))
    for key in (mira["player_token"], g["screen_token"]):
        seen.append(c.get(f"/api/games/{gid}/state", headers=bearer(key)).get_data(as_text=True))

    everything = "\n".join(seen)
    assert len(seen) > 20 and "Aria" in everything and "Ogre" in everything  # they did receive the game
    assert leaks(everything, hid) == [], [(found, chunk[:3000]) for chunk in seen if (found := leaks(chunk, hid))]
    # the checker itself finds what the GM receives
    gm_state = c.get(f"/api/games/{gid}/state", headers=gm).get_data(as_text=True)
    gm_got = gm_state + "\n".join(json.dumps(m) for m in gm_live.get_received())
    found = leaks(gm_got, hid)
    assert "Zorblax" in found and OLAF_NOTES in found and OGRE_NOTES in found and "9173" in found
    assert any("(17, 13)" in f or "17, " in f for f in found) and HIDDEN_CONDITION in found
