"""Odds in the ask and luck, told (#59), through the app: with the table rolling, the ask and
``state.pending_roll`` carry the rule's exact chance and the pad says it; after a fight whose faces the table
entered (so each outcome is known), the recap (the GM's, the table screen's) and the replay's banner give each
fighter's rolls against their odds."""

from __future__ import annotations

import re

import pytest

from rules.gurps_lite.checks import success_chance
from tests.helpers import bearer, command, state

from test_defense_waiting import a_defense, duel

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="7")


def level(ask: dict) -> int:
    """The level a 3d6 ask says to roll under ("roll 3d6, 11 or less")."""
    return int(re.search(r"roll 3d6, (-?\d+) or less", ask["needs"]).group(1))


def amount(x: float) -> str:
    return f"{round(abs(x), 1):g}"


def start_luck(app, g) -> dict:
    """Each roller's (rolls, successes less chances) in the fight's start (the 3d6 Tactics contest of each side's
    leader, rolled by the app before the table took the dice), read from the log's roll records: every record with
    a chance and an outcome, each once."""
    start = next(e for e in app.extensions["tacmap"].store.events(g["id"]) if e.type == "combat_started")
    seen: dict[str, dict] = {}

    def walk(x):
        if isinstance(x, dict):
            if x.get("chance") is not None and isinstance(x.get("met"), bool):
                seen.setdefault(repr(sorted(x.items())), x)
                return
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(start.data)
    out: dict[str, tuple[int, float]] = {}
    for r in seen.values():
        n, luck = out.get(r["roller"], (0, 0.0))
        out[r["roller"]] = (n + 1, luck + (1 if r["met"] else 0) - r["chance"])
    return out


def said(name: str, n: int, luck: float, lang: str = "en") -> str:
    """The recap's line for ``name``: ``n`` rolls, ``luck`` successes above (or below) what their chances added up to."""
    x = round(abs(luck), 1)
    if x == 0:
        return f"{name}: {n} roll" + ("s" if n != 1 else "") + ", just what the odds promised"
    if lang == "de":
        return (f"{name}: {n} " + ("Wurf" if n == 1 else "Würfe") + f", {amount(luck).replace('.', ',')} "
                + ("über" if luck > 0 else "unter") + " dem, was die Chancen versprachen")
    return f"{name}: {n} roll" + ("s" if n != 1 else "") + f", {amount(luck)} " + ("above" if luck > 0 else "below") \
        + " what the odds promised"


def a_fight_the_table_rolled(client):
    """Brute attacks Hero: the GM enters a 7 (made: no critical, so Hero defends), Mira her defense's 18 (missed), then the
    damage; the fight ends. Returns the game, the ids, the two chances and the seq of the attack."""
    g, p, ids = duel(client, "gurps_lite")
    assert command(client, g, {"type": "set_dice", "mode": "table"}).status_code == 200
    r = command(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword"})
    assert r.status_code == 200, r.json
    d = state(client, g)["pending_defense"]
    r = command(client, g, {"type": "choose_defense", "defense": a_defense(d), "attack": d["id"]}, p["player_token"])
    attack = state(client, g)["pending_roll"]  # Brute's roll: its numbers are the GM's (#72)
    gm_view = state(client, g)["pending_roll"]
    r = command(client, g, {"type": "enter_dice", "roll_id": attack["id"], "faces": [2, 3, 2]})
    assert r.status_code == 200, r.json
    defense = state(client, g, p["player_token"])["pending_roll"]
    assert defense["roller_id"] == ids["Hero"] and defense["chooser"] is True
    r = command(client, g, {"type": "enter_dice", "roll_id": defense["id"], "faces": [6, 6, 6]}, p["player_token"])
    assert r.status_code == 200, r.json
    damage = state(client, g)["pending_roll"]  # Brute's damage: the GM's to see
    n = int(damage["dice"].split("d")[0] or 1)
    r = command(client, g, {"type": "enter_dice", "roll_id": damage["id"], "faces": [3] * n})
    assert r.status_code == 200, r.json
    seq = r.json["seq"]
    assert command(client, g, {"type": "end_combat"}).status_code == 200
    return g, p, ids, gm_view, defense, seq


def test_the_ask_carries_the_rules_exact_chance_and_the_pad_says_it(client):
    g, p, ids = duel(client, "gurps_lite")
    assert command(client, g, {"type": "set_dice", "mode": "table"}).status_code == 200
    r = command(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword"})
    d = state(client, g)["pending_defense"]
    r = command(client, g, {"type": "choose_defense", "defense": a_defense(d), "attack": d["id"]}, p["player_token"])
    assert r.status_code == 200, r.json
    gm_view = state(client, g)["pending_roll"]
    p_hit = success_chance(level(gm_view))
    assert gm_view["chance"] == p_hit and gm_view["odds"] == f"{round(p_hit * 100)}% to make it"
    assert r.json["pending_roll"] == {"id": gm_view["id"]}  # Mira's answer: Brute's numbers are the GM's (#72)
    mira_view = state(client, g, p["player_token"])["pending_roll"]  # she sees Brute roll, not its chance (#72)
    assert mira_view["chooser"] is False and mira_view["roller"] == "Brute" and mira_view["chance"] is None
    # the roll_asked event keeps it
    event = [e for e in client.application.extensions["tacmap"].store.events(g["id"]) if e.type == "roll_asked"][-1]
    assert event.data["roll"]["chance"] == p_hit
    # the GM's pad says it; the waiting line of Mira's phone says who rolls, not the odds (a foe's: #72)
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    pad = page[page.index('id="roll-prompt"'):]
    pad = pad[:pad.index("</section>")]
    assert f"({round(p_hit * 100)}% to make it)" in pad and "data-roll-pad" in pad
    phone = client.get(f"/games/{g['id']}/play?key={p['player_token']}", follow_redirects=True).get_data(as_text=True)
    wait = phone[phone.index('id="roll-prompt"'):]
    wait = wait[:wait.index("</section>")]
    words = re.sub(r"<[^>]*>", " ", wait)  # what the phone shows: the tags' attributes (the roll's random id) left out
    assert "<strong>Brute</strong> rolls" in wait and "% to make it" not in words
    assert not re.search(rf"\b{level(gm_view)}\b", words), words


def test_the_recap_and_the_replay_tell_each_fighters_luck_against_the_odds(app):
    client = app.test_client()
    g, p, ids, attack, defense, seq = a_fight_the_table_rolled(client)
    p_hit, p_def = attack["chance"], defense["chance"]
    assert p_hit == success_chance(level(attack)) and p_def == success_chance(level(defense))
    # the start's Tactics contest (the app's dice), then Brute's attack (a 7: made) and Hero's defense (an 18: missed)
    start = start_luck(app, g)
    nb, lb = start.get(ids["Brute"], (0, 0.0))
    nh, lh = start.get(ids["Hero"], (0, 0.0))
    brute, hero = said("Brute", nb + 1, lb + 1 - p_hit), said("Hero", nh + 1, lh - p_def)
    for key in (g["gm_token"], g["screen_token"]):
        r = client.get(f"/games/{g['id']}/recap", headers=bearer(key))
        assert r.status_code == 200
        text = r.get_data(as_text=True)
        assert "Luck, against the odds:" in text and brute in text and hero in text, text[text.find("Luck"):][:400]
    # the table screen's overlay (the recap embedded) says it too
    r = client.get(f"/games/{g['id']}/recap?embed=1", headers=bearer(g["screen_token"]))
    assert brute in r.get_data(as_text=True)
    # in German: the same numbers, written the German way
    r = client.get(f"/games/{g['id']}/recap", headers={**bearer(g["gm_token"]), "Accept-Language": "de"})
    german = r.get_data(as_text=True)
    assert said("Brute", nb + 1, lb + 1 - p_hit, "de") in german

    # the replay at the attack: the banner gives the luck so far; Mira's, her own Hero's only
    r = client.post(f"/api/games/{g['id']}/commands", json={"type": "replay", "at": seq}, headers=bearer(g["gm_token"]))
    assert r.status_code == 200, r.json
    banner = r.json["replay"]["banner"]
    assert "Luck: " in banner and brute in banner and hero in banner, banner
    r = client.post(f"/api/games/{g['id']}/commands", json={"type": "replay", "at": seq},
                    headers=bearer(p["player_token"]))
    assert r.status_code == 200, r.json
    mine = r.json["replay"]["banner"]
    assert hero in mine and "Brute:" not in mine, mine
    # before the fight's first roll (its start), no luck yet
    first = next(i for i, e in enumerate(app.extensions["tacmap"].store.events(g["id"]), start=1)
                 if e.type == "combat_started") - 1
    r = client.post(f"/api/games/{g['id']}/commands", json={"type": "replay", "at": first}, headers=bearer(g["gm_token"]))
    assert "Luck" not in r.json["replay"]["banner"]
