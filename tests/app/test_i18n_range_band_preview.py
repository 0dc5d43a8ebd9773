"""The attack card's range band in the asker's language (#37): a Savage Worlds pistol shot at medium range reads
"alcance: medio" to a Spanish phone (it read "alcance: media", the cover grade's feminine), "portée : moyenne" to a
French one and "Reichweite: mittel" to a German one."""

from __future__ import annotations

import pytest

import rules

from test_i18n_server_notices import connect
from tests.helpers import bearer


pytestmark = pytest.mark.app_config(DEMO=False)


def test_a_medium_range_band_on_the_attack_card_in_each_language(app):
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Range", "system": "savage_worlds", "map": {"width": 30, "height": 6}}).json
    ids = {}
    for name, x in [("Ann", 2), ("Foe", 22)]:  # 20 squares: the Colt's (12/24/48) Medium band
        ids[name] = c.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": 2},
                           headers=bearer(g["gm_token"])).json["id"]
    sheet = rules.get("savage_worlds").default_sheet()  # its Colt Peacemaker: 12/24/48
    r = c.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
               json={"type": "add_character", "name": "Ann", "token_id": ids["Ann"], "sheet": sheet})
    assert r.status_code == 200, r.json
    preview = {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe"], "weapon": "Colt Peacemaker"}
    for lang, line in [("es", "alcance: medio"), ("fr", "portée : moyenne"), ("de", "Reichweite: mittel"),
                       ("en", "range: medium")]:
        ack = connect(app, g["id"], g["gm_token"], lang).emit("command", preview, callback=True)
        assert ack["ok"], ack
        assert line in ack["html"], (lang, ack["html"])
