"""A room table's own pages say the table's name (#38): its game is a copy of the template, whose log names the
template, while the room, the sheets and the lobby say "Table N". The GM page, the players' phones, the table
screen and the character sheets of the table say "Table N" too (the GM page adds the template's name); the
template's own pages keep its name; a table renamed by the organiser is renamed on its pages."""

from __future__ import annotations

import html
import re

from test_room_mode import app_overrides, bearer, make_tables, organiser, template  # noqa: F401 (fixtures)


def title_and_heading(page: str) -> tuple[str, str]:
    title = html.unescape(re.search(r"<title>(.*?)</title>", page, re.S).group(1)).strip()
    heading = re.search(r'<h1 class="(?:game|screen)-name">(.*?)</h1>', page, re.S).group(1)
    return title, html.unescape(re.sub(r"<[^>]+>", "", heading)).strip()


def pages(app, game_id: str, record, player_key: str, token_id: str) -> dict[str, tuple[str, str]]:
    """The title and heading of the GM page, a player's phone, the table screen and a character sheet."""
    out = {}
    for name, path, key in (("gm", "gm", record.gm_key), ("phone", "play", player_key),
                            ("screen", "screen", record.screen_key)):
        c = app.test_client()
        r = c.get(f"/games/{game_id}/{path}?key={key}")
        if r.status_code == 302:  # the key goes into the session, the page opens without it
            r = c.get(r.location)
        assert r.status_code == 200, (name, r.status_code)
        out[name] = title_and_heading(r.get_data(as_text=True))
    c = app.test_client()
    c.get(f"/games/{game_id}/gm?key={record.gm_key}")
    r = c.get(f"/games/{game_id}/tokens/{token_id}/sheet")
    assert r.status_code == 200, r.status_code
    out["sheet"] = title_and_heading(r.get_data(as_text=True))
    return out


def seat(app, game_id, join_code, name="Pip") -> str:
    phone = app.test_client()
    assert phone.post("/join", data={"code": join_code, "name": name}).status_code == 302
    with phone.session_transaction() as s:
        return s["player"][game_id]


def test_a_tables_pages_say_its_name_and_the_template_keeps_its_own(app, hub, template):  # noqa: F811
    c = organiser(app)
    make_tables(c, template["id"], count=2)
    t1 = hub.store.room_tables()[0]
    game_id = t1["current_game"]
    record = hub.store.game(game_id)
    assert hub.game(game_id).name == "Goblin ambush"  # the copy's log names the template
    key = seat(app, game_id, t1["join_code"])

    seen = pages(app, game_id, record, key, template["goblin"])
    gm_title, gm_heading = seen["gm"]
    assert gm_title.startswith("Table 1 · GM") and gm_heading.startswith("Table 1 GM"), seen["gm"]
    assert "from Goblin ambush" in gm_heading, gm_heading  # the GM is told which template it is
    assert seen["phone"] == ("Table 1 · tacmap", "Table 1 Pip"), seen["phone"]
    assert seen["screen"][0].startswith("Table 1 ·") and seen["screen"][1] == "Table 1", seen["screen"]
    assert seen["sheet"][1].startswith("Table 1 "), seen["sheet"]
    assert all("Goblin ambush" not in t + h for name, (t, h) in seen.items() if name != "gm"), seen

    # in German, the room's own words: "aus Goblin ambush"
    de = app.test_client()
    de.get(f"/games/{game_id}/gm?key={record.gm_key}")
    _title, heading = title_and_heading(de.get(f"/games/{game_id}/gm?lang=de").get_data(as_text=True))
    assert heading.startswith("Table 1") and "aus Goblin ambush" in heading, heading

    # the template's own GM page says the template's name, with no "from"
    tc = app.test_client()
    r = tc.get(f"/games/{template['id']}/gm?key={template['gm_token']}")
    page = tc.get(r.location).get_data(as_text=True) if r.status_code == 302 else r.get_data(as_text=True)
    title, heading = title_and_heading(page)
    assert title.startswith("Goblin ambush · GM") and "from" not in heading, (title, heading)

    # renamed by the organiser: its pages follow
    assert c.post(f"/room/tables/{t1['id']}", data={"name": "Dragon table", "gm_name": ""}).status_code == 302
    seen = pages(app, game_id, record, key, template["goblin"])
    assert {h.split(" ")[0] + " " + h.split(" ")[1] for _t, h in seen.values()} == {"Dragon table"}, seen

    # after a reset the next slot's game says the table's name too
    assert c.post(f"/room/tables/{t1['id']}/reset").status_code == 302
    t1 = hub.store.room_tables()[0]
    record = hub.store.game(t1["current_game"])
    seen = pages(app, t1["current_game"], record, seat(app, t1["current_game"], t1["join_code"]), template["goblin"])
    assert seen["phone"] == ("Dragon table · tacmap", "Dragon table Pip"), seen["phone"]
