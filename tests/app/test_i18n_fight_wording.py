"""The fight's words seen in the walk-through of issue #58, each right in English and through the catalogs in
German, French and Spanish: one victim of a surprise "rolls Notice", a Gang up of "1 foe", a roll's flash without
"roll:", an Atomic Tomorrow hit without "wound(s)", "The fight is over" once in Tesseris, the attack card's
"Mira attacks Thug 2 (rifle)", "25 flesh wounds" past capacity, a Wild Attack's Vulnerable without "reason", and
the sheets' abbreviations and dice in French and German."""

from __future__ import annotations

import html
import re

import pytest
from babel.messages.pofile import read_po

import rules
from rules.phase_tn import health as phase_health
from rules.text import unpack
from test_i18n_server_notices import connect
from tests.helpers import bearer, command, new_game, state
from webapp.game.core import speech

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="7")


def tokens(client, g, *placed, kinds=None) -> dict[str, str]:
    out = {}
    for name, x, y in placed:
        body = {"name": name, "x": x, "y": y, **({"kind": kinds[name]} if kinds and name in kinds else {})}
        r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code in (200, 201), r.json
        out[name] = r.json["id"]
    return out


def log_in(client, g, lang: str) -> list[str]:
    """The game's log lines as a reader of ``lang`` reads them (the message each line keeps, translated)."""
    return [speech.words(unpack(e["message"]), lang) if e.get("message") else e["text"]
            for e in state(client, g)["log"]]


def page_text(client, g, lang: str) -> str:
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    page = client.get(f"/games/{g['id']}/gm", headers={"Accept-Language": lang}).get_data(as_text=True)
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_one_surprised_victim_is_caught_unaware_and_rolls_notice_in_each_language(client):
    g = new_game(client, "savage_worlds", {"width": 12, "height": 8, "walls": []})
    ids = tokens(client, g, ("Hero", 2, 2), ("Bandit", 6, 2))
    r = command(client, g, {"type": "start_combat", "token_ids": list(ids.values()), "surprised": [ids["Bandit"]]})
    assert r.status_code == 200, r.json
    said = {lang: next(t for t in log_in(client, g, lang) if "Bandit" in t and ":" in t and "Hold" in t
                       or "Bandit" in t and ("überrumpelt" in t or "dépourvu" in t or "desprevenido" in t))
            for lang in ("en", "de", "fr", "es")}
    assert said["en"].startswith("Surprise: Bandit is caught unaware and rolls Notice"), said["en"]
    assert "Bandit wird überrumpelt und würfelt auf Wahrnehmung" in said["de"]
    assert "Bandit est pris au dépourvu" in said["fr"] and "Bandit es pillado desprevenido" in said["es"]


def test_a_gang_up_of_one_foe_says_foe_not_foes(client):
    g = new_game(client, "savage_worlds", {"width": 12, "height": 8, "walls": []})
    ids = tokens(client, g, ("Hero", 2, 2), ("Bandit", 3, 2), ("Ally", 4, 2), kinds={"Hero": "pc", "Ally": "pc"})
    r = command(client, g, {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Bandit"]})
    assert r.status_code == 200, r.json
    labels = [m["label"] for m in r.json["preview"]["odds"]["modifiers"] if "Gang up" in m["label"]]
    assert labels and not any(re.search(r"\b1 (foes|allies)\b", m) for m in labels), labels
    assert labels == ["Gang up (1 foe, 0 allies)"], labels
    for lang, word in [("de", "Überzahl"), ("fr", "Surnombre"), ("es", "Superioridad")]:
        ack = connect(client.application, g["id"], g["gm_token"], lang).emit(
            "command", {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Bandit"]}, callback=True)
        assert word in ack["html"] and "foes" not in ack["html"] and "allies" not in ack["html"], (lang, ack["html"])


def test_a_roll_answers_its_dice_without_the_word_roll(client):
    g = new_game(client, "plain_grid")
    r = command(client, g, {"type": "roll", "expr": "1d20"})
    assert r.status_code == 200, r.json
    assert re.fullmatch(r"1d20\[\d+\] = \d+", r.json["text"]), r.json["text"]  # "You rolled 1d20[12] = 12"


def test_an_atomic_tomorrow_hit_counts_its_wounds_in_each_language(client):
    g = new_game(client, "atomic_tomorrow")
    ids = tokens(client, g, ("Mira", 2, 4), ("Thug", 3, 4))  # both in the default map's first zone
    hit = None
    for _ in range(30):
        command(client, g, {"type": "attack", "attacker": ids["Mira"], "target": ids["Thug"]})
        hit = next((e for e in reversed(state(client, g)["log"]) if "; hit: " in e["text"]), None)
        if hit:
            break
    assert hit, "no hit in 30 attacks"
    english = hit["text"]
    assert "wound(s)" not in english and "taken (" not in english, english
    assert re.search(r"hit: \d+ wounds? dealt, ", english), english
    for lang, word in [("de", "verursacht"), ("fr", "infligée"), ("es", "infligida")]:
        line = speech.words(unpack(hit["message"]), lang)
        assert word in line and "(s)" not in line, (lang, line)


def test_a_tesseris_fight_says_it_is_over_once(client):
    g = new_game(client, "tesseris_ads", {"width": 12, "height": 8, "walls": []})
    ids = tokens(client, g, ("Ann", 2, 2), ("Tom", 6, 2))
    assert command(client, g, {"type": "start_combat", "token_ids": list(ids.values())}).status_code == 200
    assert command(client, g, {"type": "end_combat"}).status_code == 200
    assert [e["text"] for e in state(client, g)["log"]].count("The fight is over") == 1


def test_the_attack_card_says_who_attacks_whom_and_the_weapon_in_each_language(app):
    c = app.test_client()
    g = new_game(c, "savage_worlds", {"width": 30, "height": 6, "walls": []})
    ids = tokens(c, g, ("Mira", 2, 2), ("Thug 2", 12, 2))
    sheet = rules.get("savage_worlds").default_sheet()
    assert command(c, g, {"type": "add_character", "name": "Mira", "token_id": ids["Mira"], "sheet": sheet}).status_code == 200
    preview = {"type": "preview_attack", "attacker": ids["Mira"], "target": ids["Thug 2"], "weapon": "Colt Peacemaker"}
    for lang, line in [("en", "Mira attacks Thug 2 (Colt Peacemaker)"), ("de", "Mira greift Thug 2 an (Colt Peacemaker)"),
                       ("fr", "Mira attaque Thug 2 (Colt Peacemaker)"), ("es", "Mira ataca a Thug 2 (Colt Peacemaker)")]:
        ack = connect(app, g["id"], g["gm_token"], lang).emit("command", preview, callback=True)
        assert ack["ok"], ack
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", ack["html"])).split())
        assert line in text and "→" not in text, (lang, text)


def test_flesh_wounds_past_capacity_read_as_a_count_and_the_capacity():
    sheet = rules.get("phase_tn").default_sheet() | {"constitution": 5, "flesh": 25}
    capacity = phase_health.flesh_capacity(sheet)
    assert capacity < 25
    label = next(b["label"] for b in phase_health.badges(sheet) if "flesh" in b["label"])
    assert str(label) == f"25 flesh wounds (capacity {capacity})", label
    assert speech.words(label, "de") == f"25 Fleischwunden (Höchstmaß {capacity})"
    assert "blessures légères" in speech.words(label, "fr") and "heridas leves" in speech.words(label, "es")
    below = next(b["label"] for b in phase_health.badges(sheet | {"flesh": 1}) if "flesh" in b["label"])
    assert str(below) == f"1/{capacity} flesh wound"  # at or under capacity: as before


def test_a_wild_attack_makes_the_attacker_vulnerable_without_the_word_reason(client):
    g = new_game(client, "savage_worlds", {"width": 12, "height": 8, "walls": []})
    ids = tokens(client, g, ("Hero", 2, 2), ("Ogre", 3, 2))
    r = command(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Ogre"],
                            "options": {"wild_attack": True}})
    assert r.status_code == 200, r.json
    screen = client.get(f"/games/{g['id']}/screen?key={g['screen_token']}", follow_redirects=True).get_data(as_text=True)
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", screen)).split())  # the table screen's result card
    assert "vulnerable (made a Wild Attack)" in text, text[-3000:]
    assert "reason made a Wild Attack" not in text


def po(lang: str, domain: str):
    with open(f"translations/{lang}/LC_MESSAGES/{domain}.po", "rb") as f:
        return read_po(f)


def test_german_dice_are_written_as_the_rest_of_the_app_writes_them():
    """d notation, as the dice the app reads ("2d6+1") and most of the German catalog: never "W4" beside "1d8"."""
    found = []
    for domain in ("messages", "help", "rules", "room"):
        for m in po("de", domain):
            for s in (m.string if isinstance(m.string, (list, tuple)) else [m.string]):
                found += re.findall(r"\b\d*W\d+\b|\b\d+W\b", s or "")
    assert not found, found


def test_the_french_sheet_abbreviates_armour_piercing_and_rate_of_fire_in_french(client):
    assert {m.id: m.string for m in po("fr", "help") if m.id in ("AP", "RoF")} == {"AP": "PA", "RoF": "CdT"}
    g = new_game(client, "savage_worlds")
    ids = tokens(client, g, ("Mira", 2, 2))
    sheet = rules.get("savage_worlds").default_sheet()
    assert command(client, g, {"type": "add_character", "name": "Mira", "token_id": ids["Mira"], "sheet": sheet}).status_code == 200
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    page = client.get(f"/games/{g['id']}/tokens/{ids['Mira']}/sheet?lang=fr").get_data(as_text=True)
    assert re.search(r"<th>\s*PA\s*</th>", page) and re.search(r"<th>\s*CdT\s*</th>", page), page
    assert not re.search(r"<th>\s*(AP|RoF)\s*</th>", page)


def test_the_odds_are_percentages_in_the_readers_language(app):
    """"75,0 %" in German, French and Spanish, "75.0%" in English (#58): the chance to hit and each outcome's."""
    c = app.test_client()
    g = new_game(c, "savage_worlds", {"width": 30, "height": 6, "walls": []})
    ids = tokens(c, g, ("Mira", 2, 2), ("Thug", 3, 2))
    preview = {"type": "preview_attack", "attacker": ids["Mira"], "target": ids["Thug"]}
    for lang, chance in [("en", r"\d+\.\d%"), ("de", r"\d+,\d\xa0%"), ("fr", r"\d+,\d\xa0%"), ("es", r"\d+,\d\xa0%")]:
        ack = connect(app, g["id"], g["gm_token"], lang).emit("command", preview, callback=True)
        assert ack["ok"], ack
        page = html.unescape(ack["html"])
        shown = re.search(r'class="hit-chance">.*?<strong>(.*?)</strong>', page, re.S).group(1)
        assert re.fullmatch(chance, shown), (lang, shown)
        outcomes = re.findall(r'<span class="p">(.*?)</span>', page)
        assert outcomes and all(re.fullmatch(chance, p) for p in outcomes), (lang, outcomes)


def test_an_atomic_tomorrow_sheet_writes_its_percentages_as_the_reader_does(client):
    g = new_game(client, "atomic_tomorrow")
    ids = tokens(client, g, ("Mira", 2, 4))
    sheet = rules.get("atomic_tomorrow").default_sheet()
    assert command(client, g, {"type": "add_character", "name": "Mira", "token_id": ids["Mira"], "sheet": sheet}).status_code == 200
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    for lang, shape in [("en", r"<dd>\d+%</dd>"), ("fr", r"<dd>\d+\xa0%</dd>"), ("de", r"<dd>\d+\xa0%</dd>")]:
        page = client.get(f"/games/{g['id']}/tokens/{ids['Mira']}/sheet?lang={lang}").get_data(as_text=True)
        assert len(re.findall(shape, html.unescape(page))) >= 8, (lang, re.findall(r"<dd>[^<]*</dd>", page))


def tesseris_table(client, grid: str):
    """A Tesseris game on hexes or squares: Ann (a PC), Bob 3 cells from her and Tom 6, in one row."""
    board = {"width": 16, "height": 12, "walls": [], **({"grid": "hex", "orientation": "pointy"} if grid == "hex" else {})}
    g = new_game(client, "tesseris_ads", board)
    return g, tokens(client, g, ("Ann", 3, 4), ("Bob", 6, 4), ("Tom", 9, 4), kinds={"Ann": "pc"})


@pytest.mark.parametrize("grid, cells, cell", [("hex", "hexes", "Hexfelder"), ("square", "squares", "Felder")])
def test_a_hex_map_says_hexes_where_a_square_map_says_squares(client, grid, cells, cell):
    """"6 hexes away", "Short (4 hexes or less)", "moves 2 hexes" on a hex map (#58); squares stay squares."""
    g, ids = tesseris_table(client, grid)
    r = command(client, g, {"type": "attack", "attacker": ids["Ann"], "target": ids["Tom"], "weapon": "knife"})
    assert r.status_code == 422 and f"the target is 6 {cells} away; Knife reaches 1" in r.json["error"], r.json
    ack = connect(client.application, g["id"], g["gm_token"], "de").emit(
        "command", {"type": "attack", "attacker": ids["Ann"], "target": ids["Tom"], "weapon": "knife"}, callback=True)
    assert f"das Ziel ist 6 {cell} entfernt" in str(ack), ack
    r = command(client, g, {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Bob"], "weapon": "pistol"})
    labels = [m["label"] for m in r.json["preview"]["odds"]["modifiers"]]
    assert f"Range: Short (4 {cells} or less)" in labels, labels
    assert command(client, g, {"type": "start_combat", "token_ids": list(ids.values())}).status_code == 200
    mover = state(client, g)["combat"]["order"][0]
    x = {ids["Ann"]: 3, ids["Bob"]: 6, ids["Tom"]: 9}[mover]
    r = command(client, g, {"type": "move_token", "token_id": mover, "x": x, "y": 6})
    assert r.status_code == 200, r.json
    english = [e for e in state(client, g)["log"] if " moves 2 " in e["text"]]
    assert english and f" moves 2 {cells} (" in english[-1]["text"], [e["text"] for e in state(client, g)["log"]][-4:]
    for lang, word in [("de", f"2 {cell}"), ("fr", "2 hexagones" if grid == "hex" else "2 cases"),
                       ("es", "2 hexágonos" if grid == "hex" else "2 casillas")]:
        assert word in speech.words(unpack(english[-1]["message"]), lang), lang
    later = state(client, g)["combat"]["order"][1]  # the next one takes a Run: "... 12 hexes to move"
    assert command(client, g, {"type": "next_turn"}).status_code == 200
    r = command(client, g, {"type": "act", "token_id": later, "action": "run"})
    assert r.status_code == 200, r.json
    line = state(client, g)["log"][-1]["text"]
    assert re.search(rf": \d+ {cells} to move \(moves on the map spend them\)", line), line


def test_a_phase_tn_move_on_hexes_is_counted_in_hexes(client):
    g = new_game(client, "phase_tn", {"width": 12, "height": 8, "walls": [], "grid": "hex", "orientation": "flat"})
    ids = tokens(client, g, ("Hero", 2, 2), ("Bandit", 8, 5), kinds={"Hero": "pc"})
    assert command(client, g, {"type": "start_combat", "token_ids": list(ids.values())}).status_code == 200
    who = next(i for i in ids.values() if command(client, g, {"type": "move_token", "token_id": i, "x": 2 if i == ids["Hero"] else 8,
                                                               "y": 3 if i == ids["Hero"] else 6}).status_code == 200)
    assert who
    lines = [e for e in state(client, g)["log"] if "declares a Move" in e["text"] or "more hex" in e["text"]]
    assert lines and all("square" not in e["text"] for e in lines), [e["text"] for e in lines]
    assert any(re.search(r"up to \d+ hexes\)", e["text"]) for e in lines), [e["text"] for e in lines]
    assert all("Feld" not in speech.words(unpack(e["message"]), "de") for e in lines)
    assert any("Hexfeld" in speech.words(unpack(e["message"]), "de") for e in lines)


def test_the_default_zone_map_draws_the_east_side_east_of_the_west_side(client):
    g = new_game(client, "atomic_tomorrow")
    boxes = {z["name"]: z["box"] for z in state(client, g)["zones"]}
    west, east = boxes["West side"], boxes["East side"]
    assert east[0] >= west[0] + west[2], boxes  # wholly to the right: "East side" was drawn bottom-left


@pytest.mark.parametrize("grid, cells, cell", [("hex", "hexes", "Hexfeld"), ("square", "squares", "Feld")])
def test_phase_tn_moves_and_distances_on_the_page_say_hexes_on_a_hex_map(client, grid, cells, cell):
    board = {"width": 12, "height": 8, "walls": [], **({"grid": "hex", "orientation": "pointy"} if grid == "hex" else {})}
    g = new_game(client, "phase_tn", board)
    ids = tokens(client, g, ("Hero", 2, 2), ("Bandit", 8, 2), kinds={"Hero": "pc"})
    ack = connect(client.application, g["id"], g["gm_token"], "en").emit(
        "command", {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Bandit"]}, callback=True)
    assert f"Distance 6 {cells}" in html.unescape(ack["html"]), ack["html"]
    ack = connect(client.application, g["id"], g["gm_token"], "de").emit(
        "command", {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Bandit"]}, callback=True)
    assert f"6 {cell}er" in html.unescape(ack["html"]), ack["html"]
    assert command(client, g, {"type": "start_combat", "token_ids": list(ids.values())}).status_code == 200
    page = page_text(client, g, "en")
    assert re.search(rf"Move \(\d+ of \d+ {cells} left\)", page), page
    assert ("hexes left" in page) == (grid == "hex")
    german = page_text(client, g, "de")
    assert re.search(rf"Bewegen \(noch \d+ von \d+ {cell}ern\)", german)


def test_a_big_tokens_name_counts_its_hexes_on_a_hex_map(client):
    g = new_game(client, "gurps_lite", {"width": 12, "height": 8, "walls": [], "grid": "hex", "orientation": "pointy"})
    r = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Ogre", "x": 5, "y": 4, "size": 2},
                    headers=bearer(g["gm_token"]))
    assert r.status_code == 201, r.json
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    page = html.unescape(client.get(f"/games/{g['id']}/gm").get_data(as_text=True))
    assert "Ogre, non-player character, large, 3 hexes" in page and "2 by 2 squares" not in page
    german = html.unescape(client.get(f"/games/{g['id']}/gm", headers={"Accept-Language": "de"}).get_data(as_text=True))
    assert "groß, 3 Hexfelder" in german
