"""Tesseris's weapon columns in the sheet editor speak the reader's language (#37): a weapon's kind, its
reliability and its rate of fire's three boxes were shown as their English keys ("ranged", "unreliable",
"single") on a German page; the options keep the keys as their values, so the form posts what it did."""

from __future__ import annotations

import re

import rules

S = rules.get("tesseris_ads")


def sheet_page(client, lang: str) -> tuple[dict, str, str]:
    g = client.post("/api/games", json={"name": "Waffen", "system": "tesseris_ads"}).json
    gm = {"Authorization": f"Bearer {g['gm_token']}"}
    token = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Kara", "x": 1, "y": 1}, headers=gm).json["id"]
    assert client.post(f"/api/games/{g['id']}/commands", headers=gm, json={
        "type": "add_character", "name": "Kara", "token_id": token, "sheet": S.default_sheet()}).status_code == 200
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    return g, token, client.get(f"/games/{g['id']}/tokens/{token}/sheet?lang={lang}").get_data(as_text=True)


def options(html: str, name: str) -> list[tuple[str, str]]:
    select = re.search(rf'<select[^>]*name="{re.escape(name)}"[^>]*>(.*?)</select>', html, re.S).group(1)
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select)


def test_a_weapons_kind_reliability_and_rate_of_fire_read_in_german_their_keys_the_values(client):
    _g, _token, html = sheet_page(client, "de")
    assert ("melee", "Nahkampf") in options(html, "weapons[0][kind]")
    assert {("ranged", "Fernkampf"), ("thrown", "geworfen")} <= set(options(html, "weapons[0][kind]"))
    assert {("reliable", "zuverlässig"), ("unreliable", "unzuverlässig")} <= set(options(html, "weapons[0][reliability]"))
    rof = re.search(r'<legend>RoF \(Kugeln\)</legend>(.*?)</fieldset>', html, re.S).group(1)
    assert re.findall(r"<small>([^<]*)</small>", rof) == ["Einzelschuss", "Feuerstoß", "Dauerfeuer"]
    for english in (">ranged<", ">thrown<", ">unreliable<", "<small>single</small>", "<small>burst</small>"):
        assert english not in html, english


def test_the_same_columns_in_spanish_and_french(client):
    html = sheet_page(client, "es")[2]
    assert ("ranged", "a distancia") in options(html, "weapons[0][kind]")
    assert ("unreliable", "poco fiable") in options(html, "weapons[0][reliability]")
    html = sheet_page(client, "fr")[2]
    assert ("thrown", "lancée") in options(html, "weapons[0][kind]")
    assert ("reliable", "fiable") in options(html, "weapons[0][reliability]")
