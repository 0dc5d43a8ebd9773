"""The sheet editor's choices speak the reader's language (#37): Tesseris's weapon kind, reliability and rate of
fire's three boxes, Savage Worlds's improvised weapon weight, GURPS Lite's swing or thrust and initiative skill were
shown as their English keys ("ranged", "unreliable", "single", "heavy", "thrust", "thuggish") on a German page;
the options keep the keys as their values, so the form posts what it did. What stays as written: dice and GURPS's
damage types (notation, docs/TRANSLATING.md)."""

from __future__ import annotations

import re

import pytest

import rules
from rules.gurps_lite.data import WOUNDING
from tests.helpers import new_game


def sheet_page(client, lang: str, system: str = "tesseris_ads") -> tuple[dict, str, str]:
    g = new_game(client, system, name="Waffen")
    gm = {"Authorization": f"Bearer {g['gm_token']}"}
    state = client.get(f"/api/games/{g['id']}/state", headers=gm).json
    where = {"zone": state["zones"][0]["id"]} if state.get("zones") else {"x": 1, "y": 1}
    token = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Kara", **where}, headers=gm).json["id"]
    assert client.post(f"/api/games/{g['id']}/commands", headers=gm, json={
        "type": "add_character", "name": "Kara", "token_id": token}).status_code == 200
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


#: a key as the rules write one (lower case); the rules' capitalised terms kept in English (Tesseris's status effects,
#: docs/TRANSLATING.md) are not keys shown by mistake
KEY = re.compile(r"^[a-z_]+$")


@pytest.mark.parametrize("system", [s.id for s in rules.systems()])
def test_no_choice_in_the_pseudo_locale_shows_its_key(client, system):
    """In the pseudo-locale every word from a catalog reads changed (accented, longer): a choice that reads as its
    key was not said from one (German "normal" may read as its key and be right)."""
    html = sheet_page(client, "en_XA", system)[2]
    shown_as_key = {value for value, text in re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', html)
                    if text == value and KEY.match(value) and value not in WOUNDING}  # GURPS's damage types: notation
    assert shown_as_key == set(), shown_as_key
