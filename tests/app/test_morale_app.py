"""Once most of the foes are down they fall back or surrender (#67, webapp/game/planning/morale.py): the setting is the
GM's alone (a player's key is refused, a player's state and log never show it); Play the foes carries a surrender out
(the foe yields, every screen sees it, the fight can end) and undo takes the yield back."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, command, game_with, state
from test_play_the_foes import FAST, _until


def _fight(client):
    """Mira's Ann against the GM's Orc, Gob and Imp."""
    return game_with(client, "gurps_lite", {"width": 14, "height": 10},
                     [("Ann", (2, 4), True), ("Orc", (7, 4), False), ("Gob", (9, 2), False), ("Imp", (9, 6), False)],
                     name="Morale", start=True)


def test_the_setting_is_the_gms_alone(client):
    g, mira, ids = _fight(client)
    key = mira["player_token"]
    for body in ({"type": "set_morale", "morale": "surrender"}, {"type": "surrender", "token_id": ids["Orc"]}):
        r = command(client, g, body, key=key)
        assert r.status_code in (403, 422) and "GM" in r.json["error"], r.json  # refused by the access matrix
    assert "setting" not in state(client, g)["morale"]
    assert not any(t.get("yielded") for t in state(client, g)["tokens"])
    assert command(client, g, {"type": "set_morale", "morale": "surrender"}).status_code == 200
    assert state(client, g)["morale"]["setting"] == "surrender"
    seen = state(client, g, key)
    assert "morale" not in seen
    assert not any("foes are down" in e["text"] for e in seen["log"])
    assert any("foes are down" in e["text"] for e in state(client, g)["log"])
    assert command(client, g, {"type": "set_morale", "morale": "sideways"}).status_code == 422


@FAST
def test_play_the_foes_surrenders_once_most_are_down_and_undo_takes_it_back(app, client):
    g, mira, ids = _fight(client)
    assert command(client, g, {"type": "set_morale", "morale": "surrender"}).status_code == 200
    for name in ("Gob", "Imp"):  # two of the three off the map: most of the side lost
        assert command(client, g, {"type": "remove_token", "token_id": ids[name]}).status_code == 200
    plans = client.get(f"/api/games/{g['id']}/suggestions/{ids['Orc']}", headers=bearer(g["gm_token"])).json
    assert [p["kind"] for p in plans["plans"]] == ["surrender"], plans
    assert command(client, g, {"type": "play_foes", "on": True}).status_code == 200
    if state(client, g)["combat"]["current"] == ids["Ann"]:
        assert command(client, g, {"type": "next_turn"}, key=mira["player_token"]).status_code == 200

    def yielded():
        s = state(client, g)
        orc = next(t for t in s["tokens"] if t["id"] == ids["Orc"])
        return s if orc["yielded"] and not s["foe_play"].get("on") else None
    s = _until(yielded)
    assert s["foe_play"]["why"] == "over"  # no foe stands: the runner stops, the fight can end
    player = state(client, g, mira["player_token"])
    assert next(t for t in player["tokens"] if t["id"] == ids["Orc"])["yielded"] is True
    assert any(e["text"] == "Orc yields" for e in player["log"])
    for page in (f"/games/{g['id']}/gm?key={g['gm_token']}", f"/games/{g['id']}/play?key={mira['player_token']}",
                 f"/games/{g['id']}/screen?key={g['screen_token']}"):  # every screen draws it yielded
        html = app.test_client().get(page, follow_redirects=True).get_data(as_text=True)
        drawn = html[html.index(f'id="token-{ids["Orc"]}"'):]
        drawn = drawn[:drawn.index("</g></g>") if "</g></g>" in drawn else 3000]
        assert "yielded" in drawn[:drawn.index(">")] and ">yielded<" in drawn, page
    assert command(client, g, {"type": "undo"}).status_code == 200
    assert next(t for t in state(client, g)["tokens"] if t["id"] == ids["Orc"])["yielded"] is False


@pytest.mark.parametrize("morale", ("off", "fall_back", "surrender"))
def test_the_gm_page_offers_the_setting(client, morale):
    g, _mira, _ids = _fight(client)
    if morale != "off":
        assert command(client, g, {"type": "set_morale", "morale": morale}).status_code == 200
    html = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert 'data-command="set_morale"' in html and f'<option value="{morale}" selected>' in html
