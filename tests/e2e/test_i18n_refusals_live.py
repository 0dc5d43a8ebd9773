"""A refusal with names in it reaches each phone in its own language, in Chromium against a real server (issue
#37): Mira's phone in German and Tomás's in Spanish each drop their token on the other's square and read why not
with the names filled in; the GM's page, in English, reads the English sentence."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from test_drag_feedback import drop
from test_i18n_languages_live import PHONE, setup


@pytest.mark.timeout(180)
def test_a_refused_drop_is_explained_on_each_phone_in_its_language(server, new_page, shot):
    g, players, tokens = setup(server)  # Hero (Mira's) at (2, 2), Ana (Tomás's) at (3, 2), Bandit at (5, 2)
    base = f"{server.url}/games/{g['id']}"
    mira = new_page(**PHONE, locale="en-US")
    mira.goto(f"{base}/play?key={players['Mira']['player_token']}&lang=de")
    tomas = new_page(**PHONE, locale="es-ES")
    tomas.goto(f"{base}/play?key={players['Tomás']['player_token']}")
    gm = new_page(locale="en-GB")
    gm.goto(f"{base}/gm?key={g['gm_token']}")
    for page in (mira, tomas, gm):
        expect(page.locator("#conn.ok")).to_be_attached()
    drop(mira, tokens["Hero"], (2, 2), (3, 2))
    expect(mira.locator("#flash")).to_contain_text("D3 ist von Ana besetzt", timeout=10000)
    shot(mira, "refusal-german-phone")
    drop(tomas, tokens["Ana"], (3, 2), (2, 2))
    expect(tomas.locator("#flash")).to_contain_text("C3 está ocupada por Hero", timeout=10000)
    drop(gm, tokens["Bandit"], (5, 2), (3, 2))
    expect(gm.locator("#flash")).to_contain_text("D3 is taken by Ana", timeout=10000)
    # nothing moved
    state = server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])[1]
    assert {t["name"]: (t["x"], t["y"]) for t in state["tokens"]} == {"Hero": (2, 2), "Ana": (3, 2), "Bandit": (5, 2)}
