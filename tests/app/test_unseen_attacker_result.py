"""An unseen attacker's result (#58): the defender whose player chose a defense against a token they could not see
learns, on their phone, whether it hit and what their token took, never who attacked nor where it stands; the other
player, who saw nothing of the attack, gets nothing new; the table screen shows the result card with the attacker
"someone out of sight" (#70); the GM's log is as it was.

The 3d6 system (gurps_lite) asks the defender for a defense (Savage Worlds rolls against Parry)."""

from __future__ import annotations

from html import unescape

import pytest

from tests.helpers import bearer, command, connect, join, new_game, state



def updates(link) -> str:
    """The html of every live update this link got since it was last asked."""
    return unescape("".join(m["args"][0]["html"] for m in link.get_received() if m["name"] == "update"))


def phone_page(app, g, player, lang) -> str:
    """The player's phone page as a device reading ``lang`` gets it."""
    device = app.test_client()
    device.get(f"/?lang={lang}")
    return unescape(device.get(f"/games/{g['id']}/play?key={player['player_token']}",
                               follow_redirects=True).get_data(as_text=True))


@pytest.mark.parametrize("outcome", [  # seeded dice: the same outcome every run
    pytest.param("hit", marks=pytest.mark.app_config(DEMO=False, DICE_SEED="6")),
    pytest.param("miss", marks=pytest.mark.app_config(DEMO=False, DICE_SEED="7"))])
def test_the_defender_learns_an_unseen_attackers_result_and_no_one_else_learns_anything(app, outcome):
    client = app.test_client()
    g = new_game(client, "gurps_lite", {"width": 12, "height": 8}, name="Ambush")
    mira, olaf = join(client, g, "Mira"), join(client, g, "Olaf")
    ids = {}
    for name, x, y, extra in (("Hero", 2, 2, {"owner": mira["player_id"], "kind": "pc"}),
                              ("Scout", 9, 6, {"owner": olaf["player_id"], "kind": "pc"}),
                              ("Assassin", 3, 2, {"hidden": True})):
        r = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": y, **extra},
                        headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
    assert command(client, g, {"type": "start_combat", "token_ids": list(ids.values())}).status_code == 200
    for _ in range(4):
        if state(client, g)["combat"]["current"] == ids["Assassin"]:
            break
        assert command(client, g, {"type": "next_turn"}).status_code == 200
    else:
        pytest.fail("the Assassin never gets a turn")

    links = {who: connect(app, g["id"], key) for who, key in (
        ("mira", mira["player_token"]), ("olaf", olaf["player_token"]), ("screen", g["screen_token"]),
        ("gm", g["gm_token"]))}
    for link in links.values():
        assert link.is_connected()
        link.get_received()
    ack = links["gm"].emit("command", {"type": "attack", "attacker": ids["Assassin"], "target": ids["Hero"],
                                       "weapon": "Broadsword"}, callback=True)
    assert ack["ok"], ack
    asked = state(client, g, mira["player_token"])["pending_defense"]
    assert asked["chooser"] and asked["attacker"] == "an unseen foe"
    prompt = phone_page(app, g, mira, "de")  # the prompt in her language, the attacker unnamed
    assert "ein verborgener Gegner" in prompt and "unseen foe" not in prompt and "Assassin" not in prompt
    seen_before = {who: state(client, g, key)["log"] for who, key in (
        ("olaf", olaf["player_token"]), ("screen", g["screen_token"]))}
    gm_before = state(client, g)["log"]
    for link in links.values():
        link.get_received()

    defense = next(c["key"] for c in asked["choices"] if c["available"] and c["key"] != "none")
    ack = links["mira"].emit("command", {"type": "choose_defense", "defense": defense, "attack": asked["id"]},
                             callback=True)
    assert ack["ok"], ack

    # what happened, as the GM's log has it (the attack's line and its card)
    gm_log = state(client, g)["log"]
    (line,) = [e for e in gm_log if e["seq"] == ack["seq"] and e["detail"] and "card" in e["detail"]]
    card = line["detail"]["card"]
    (hero,) = [t for t in card["targets"] if t["id"] == ids["Hero"]]
    assert line["audience"] == "gm" and card["attacker"] == "Assassin" and hero["hit"] == (outcome == "hit")
    assert gm_log[:len(gm_before)] == gm_before and len(gm_log) == len(gm_before) + 1  # one line more, its own

    # Mira's phone: the outcome, live and in her state, never the Assassin's name, id or square
    phone = updates(links["mira"])
    said = "An unseen foe's attack hits Hero" if hero["hit"] else "An unseen foe's attack misses Hero"
    assert said in phone, phone[:2000]
    assert hero["effects"] and all(effect in phone for effect in hero["effects"])  # what Hero took (or did)
    assert 'id="result-card"' in phone and "an unseen foe" in phone
    assert "Assassin" not in phone and ids["Assassin"] not in phone
    mine = state(client, g, mira["player_token"])
    (told,) = [e for e in mine["log"] if e["seq"] == ack["seq"]]
    assert told["text"].startswith(said) and told["detail"]["card"]["attacker_id"] is None
    assert "Assassin" not in str(mine) and ids["Assassin"] not in str(mine)
    assert all(t["id"] != ids["Assassin"] for t in mine["tokens"])

    # Olaf saw nothing of it: no line, no result card, nothing naming it
    html = updates(links["olaf"])
    assert "unseen foe" not in html and "Assassin" not in html and ids["Assassin"] not in html
    assert 'id="log"' not in html and 'id="result-card"' not in html, html[:1000]
    assert state(client, g, olaf["player_token"])["log"] == seen_before["olaf"]
    # the table screen shows the result card like any attack's (#70), the attacker "someone out of sight", never
    # named nor placed; its log (the JSON state's) gains nothing
    html = updates(links["screen"])
    assert 'id="result-card"' in html and "someone out of sight → Hero" in html, html[:2000]
    assert ("Someone out of sight hits Hero" if hero["hit"] else "Someone out of sight misses Hero") in html
    assert "Assassin" not in html and ids["Assassin"] not in html and "unseen foe" not in html
    assert state(client, g, g["screen_token"])["log"] == seen_before["screen"]

    # her phone in German: the line and the result card in her language, the attacker still unnamed
    page = phone_page(app, g, mira, "de")
    verb = "trifft" if outcome == "hit" else "verfehlt"
    assert f"Der Angriff eines verborgenen Gegners {verb} Hero" in page and "ein verborgener Gegner → Hero" in page
    assert "Assassin" not in page and "unseen foe" not in page
