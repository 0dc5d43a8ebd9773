"""A player's board as a list (#61): the tokens their tokens see and no other (fog, hidden), each with its square or
zone named as the map names it and its distance in the system's unit, for a foe the line of fire, cover and reach;
the destinations their token may move to; on a square grid, a hex grid and a zone map. Drawn on the play page and by
GET /games/<id>/board-list, and marked due by a live update's #board-list-due."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.helpers import bearer, command as run, connect, join, new_game, state

ROOM = {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 3]}, {"a": [6, 4], "b": [6, 8]}],
        "doors": [{"a": [6, 3], "b": [6, 4], "closed": True}]}
FOE = "Orcmarker-q7z"  # a unique name: any trace of it in the player's list is a leak
GHOST = "Ghostmarker-k2w"  # hidden from players


def add(client, game, body) -> str:
    r = client.post(f"/api/games/{game['id']}/tokens", json=body, headers=bearer(game["gm_token"]))
    assert r.status_code == 201, r.json
    return r.json["id"]


def seat(client, game, name="Ada"):
    """A player joined, their browser holding their key (as after opening their link)."""
    p = join(client, game, name)
    page = client.get(f"/games/{game['id']}/play?key={p['player_token']}", follow_redirects=True)
    assert page.status_code == 200
    return p


def board_list(client, game) -> str:
    r = client.get(f"/games/{game['id']}/board-list")
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.headers["Cache-Control"] == "no-store"
    return r.get_data(as_text=True)


def row(html: str, token_id: str) -> str:
    """One token's row of the list, its tags taken out and its spaces folded: what a screen reader reads."""
    found = re.search(rf'<li class="board-row[^"]*" id="board-row-{re.escape(token_id)}".*?</li>\s*(?=<li class="board'
                      rf'-row|</ul>)', html, re.S)
    assert found, f"no row for {token_id}"
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", found.group(0))).split())
    return re.sub(r"\s+([,;.)])", r"\1", text).replace("( ", "(")


def destinations(html: str) -> dict[str, str]:
    """The move list's options: value -> its words."""
    select = re.search(r'<select id="board-move-to".*?</select>', html, re.S)
    assert select, "no destinations"
    return dict(re.findall(r'<option value="([^"]+)">([^<]*)</option>', select.group(0)))


def test_the_list_leaves_out_what_the_fog_and_the_gm_hide_and_names_squares_and_distances(client):
    g = new_game(client, "plain_grid", ROOM, name="Fog list")
    p = seat(client, g)
    hero = add(client, g, {"name": "Hero", "x": 1, "y": 3, "owner": p["player_id"], "kind": "pc"})
    foe = add(client, g, {"name": FOE, "x": 9, "y": 3})
    add(client, g, {"name": GHOST, "x": 2, "y": 5, "hidden": True})
    friend = add(client, g, {"name": "Bea", "x": 4, "y": 6, "kind": "pc"})
    assert run(client, g, {"type": "set_fog", "enabled": True}).status_code == 200

    html = board_list(client, g)
    assert FOE not in html and GHOST not in html  # behind the closed door; hidden by the GM
    assert "Hero</strong>, you, at B4" in html
    # Bea: 3 across, 3 down on a plain grid (a diagonal step costs one square): 3 squares
    assert row(html, friend) == "● Bea (ally) at E7, 3 squares away"
    # the page draws the same list
    page = client.get(f"/games/{g['id']}/play").get_data(as_text=True)
    assert 'id="board-list"' in page and FOE not in page.split('id="board-list"')[1].split("</section>")[0]

    door = state(client, g)["map"]["doors"][0]["id"]
    assert run(client, g, {"type": "set_door", "door_id": door, "closed": False}).status_code == 200
    html = board_list(client, g)
    assert GHOST not in html
    foe_row = row(html, foe)
    assert foe_row.startswith(f"◆ {FOE} (foe) at J4, 8 squares away; line of fire clear"), foe_row
    assert f'id="board-attack-{foe}"' in html and f"Attack {FOE}" in html
    # the places the hero may go, cheapest first, named as the map names them, never onto Bea
    places = destinations(html)
    assert places["2,3"] == "C4 (1 square)" and places["0,2"] == "A3 (1 square)"
    assert "4,6" not in places and "1,3" not in places  # Bea's square, the hero's own
    assert list(places.values())[0].endswith("(1 square)") and len(places) > 20
    assert hero  # the hero is the list's "you", not a row
    assert f'id="board-row-{hero}"' not in html


def test_a_gm_and_a_stranger_get_no_list(client):
    g = new_game(client, "plain_grid", ROOM, name="No list")
    assert client.get(f"/games/{g['id']}/board-list").status_code == 403
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    assert client.get(f"/games/{g['id']}/board-list").status_code == 403


def test_a_3d6_fight_lists_yards_reach_and_the_turn(client):
    """gurps_lite: a yard a square, diagonals alternating (5-10-5: the 1st and 3rd diagonal 1 yard, the 2nd 2); a
    broadsword reaches 1 yard, so the foe 5 yards off is not in its reach and the one beside it is."""
    g = new_game(client, "gurps_lite", {"width": 16, "height": 10}, name="3d6 list")
    p = seat(client, g, "Aria")
    aria = add(client, g, {"name": "Aria", "x": 2, "y": 2, "owner": p["player_id"], "kind": "pc"})
    far = add(client, g, {"name": "Orc", "x": 6, "y": 5})
    near = add(client, g, {"name": "Goblin", "x": 3, "y": 3})
    for t, name in ((aria, "Aria"), (far, "Orc"), (near, "Goblin")):
        assert run(client, g, {"type": "add_character", "name": name, "token_id": t}).status_code == 200
    html = board_list(client, g)
    rows = [m for m in re.findall(r'id="board-row-([^"]+)"', html)]
    assert rows == [near, far]  # nearest first
    assert row(html, near).startswith("◆ Goblin (foe) at D4, 1 yard away; line of fire clear")
    assert "in reach of" in row(html, near)
    orc = row(html, far)
    assert orc.startswith("◆ Orc (foe) at G6, 5 yards away; line of fire clear"), orc  # 4 across, 3 down
    assert "cannot attack now: Broadsword reaches 1 yard(s); the target is 5 away" in orc
    # a condition on the Orc's sheet: a badge with a shape and its word, never its colour alone
    sheet = next(c for c in state(client, g)["characters"] if c["token_id"] == far)
    assert run(client, g, {"type": "update_sheet", "character_id": sheet["id"],
                           "changes": {"conditions": ["stunned"]}}).status_code == 200
    html = board_list(client, g)
    assert re.search(r'<li class="board-badge condition"><span class="badge-shape" aria-hidden="true">!</span> stunned'
                     r"</li>", html), html
    # a fight: the list says whose turn it is; the destinations are within what the rules leave Aria
    assert run(client, g, {"type": "start_combat", "token_ids": [aria, far, near]}).status_code == 200
    while state(client, g)["combat"]["current"] != aria:  # off her turn: whose it is, and no move left to her
        html = board_list(client, g)
        assert re.search(r"(Orc|Goblin)(&#39;|')s turn \(round 1\)\.", html), html
        assert "No square within reach now." in html
        assert run(client, g, {"type": "next_turn"}).status_code == 200
    html = board_list(client, g)
    assert "Your turn (round 1)." in html
    # no maneuver yet (a move would be refused, #70): the maneuvers, as the turn bar offers them, and no square
    assert 'id="board-move-to"' not in html and "First choose what Aria does this turn" in html
    assert re.search(r'<input type="hidden" name="action" value="move">\s*<button type="submit" id="board-choose-\d+" '
                     r'data-board-choose>Move <small>\(\d yards\)</small>', html), html
    assert run(client, g, {"type": "act", "token_id": aria, "action": "move"}, p["player_token"]).status_code == 200
    places = destinations(board_list(client, g))
    assert places and all(re.fullmatch(r"[A-P]\d+ \(\d+ yards?\)", v) for v in places.values())
    move = 5  # Aria's sheet's Move: nothing further than 5 yards is offered
    assert max(int(re.search(r"\((\d+)", v).group(1)) for v in places.values()) <= move


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_a_hex_map_lists_hexes(client, orientation):
    r = client.post("/api/games", json={"name": "Hex list", "system": "gurps_lite",
                                        "map": {"width": 12, "height": 10, "grid": "hex", "orientation": orientation}})
    g = r.json
    p = seat(client, g)
    add(client, g, {"name": "Hero", "x": 2, "y": 2, "owner": p["player_id"], "kind": "pc"})
    along = (5, 2) if orientation == "pointy" else (2, 5)  # 3 hexes along a straight row / column
    foe = add(client, g, {"name": "Orc", **dict(zip("xy", along))})
    html = board_list(client, g)
    name = "F3" if orientation == "pointy" else "C6"
    assert row(html, foe).startswith(f"◆ Orc (foe) at {name}, 3 yards away"), row(html, foe)
    places = destinations(html)
    # a hex's six neighbours are a yard away; its square-grid corners are not all neighbours
    one = [k for k, v in places.items() if v.endswith("(1 yard)")]
    assert len(one) == 6, one


def test_a_zone_map_lists_zones_and_zone_steps(client):
    zones = {"zones": [{"id": "west", "name": "Hangar", "adjacent": ["centre"]},
                       {"id": "centre", "name": "Gantry", "adjacent": ["west", "east"], "cover": "partial"},
                       {"id": "east", "name": "Launch pad", "adjacent": ["centre"]}]}
    g = new_game(client, "atomic_tomorrow", zones, name="Zone list")
    p = seat(client, g)
    add(client, g, {"name": "Mira", "x": 2, "y": 3, "owner": p["player_id"], "kind": "pc"})
    foe = add(client, g, {"name": "Brute", "x": 3, "y": 12})
    html = board_list(client, g)
    assert "Mira</strong>, you, in Hangar" in html
    assert row(html, foe).startswith("◆ Brute (foe) in Launch pad, 2 zones away"), row(html, foe)
    # outside a fight, a zone step: the Gantry, not the pad
    assert destinations(html) == {"centre": "Gantry (1 zone)"}
    r = run(client, g, {"type": "move_token", "token_id": state(client, g)["tokens"][0]["id"], "zone": "centre"},
            p["player_token"])
    assert r.status_code == 200, r.json
    html = board_list(client, g)
    assert row(html, foe).startswith("◆ Brute (foe) in Launch pad, 1 zone away")
    assert set(destinations(html)) == {"west", "east"}


def test_a_move_marks_the_list_due_for_every_player_at_once(app, client):
    g = new_game(client, "plain_grid", {"width": 10, "height": 8}, name="Due")
    p = seat(client, g)
    hero = add(client, g, {"name": "Hero", "x": 1, "y": 1, "owner": p["player_id"], "kind": "pc"})
    link = connect(app, g["id"], p["player_token"])
    link.get_received()
    assert run(client, g, {"type": "move_token", "token_id": hero, "x": 2, "y": 1}, p["player_token"]).status_code == 200
    html = "".join(m["args"][0]["html"] for m in link.get_received() if m["name"] == "update")
    seq = state(client, g)["seq"]
    assert f'<i id="board-list-due" hidden data-seq="{seq}" hx-swap-oob="true"></i>' in html
    assert 'id="board-list"' not in html  # the list itself is fetched by the phones that show it
    link.disconnect()


def test_a_foe_behind_a_wall_has_no_line_of_fire(client):
    g = new_game(client, "plain_grid", {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 8]}]}, name="Wall")
    p = seat(client, g)
    add(client, g, {"name": "Hero", "x": 2, "y": 3, "owner": p["player_id"], "kind": "pc"})
    behind = add(client, g, {"name": "Orc", "x": 9, "y": 3})
    before = add(client, g, {"name": "Imp", "x": 4, "y": 3})
    html = board_list(client, g)
    assert row(html, behind).startswith("◆ Orc (foe) at J4, 7 squares away; no line of fire"), row(html, behind)
    assert row(html, before).startswith("◆ Imp (foe) at E4, 2 squares away; line of fire clear"), row(html, before)


@pytest.mark.parametrize("system, far", [("savage_worlds", '4"'), ("gurps_lite", "4 yards"), ("tesseris_ads", "4 yards"),
                                         ("phase_tn", "4 squares"), ("plain_grid", "4 squares")])
def test_every_grid_system_lists_its_own_unit_in_a_fight(client, system, far):
    g = new_game(client, system, {"width": 12, "height": 8}, name=f"{system} list")
    p = seat(client, g)
    hero = add(client, g, {"name": "Hero", "x": 1, "y": 1, "owner": p["player_id"], "kind": "pc"})
    foe = add(client, g, {"name": "Brute", "x": 5, "y": 1})
    for t, name in ((hero, "Hero"), (foe, "Brute")):
        r = run(client, g, {"type": "add_character", "name": name, "token_id": t})
        assert r.status_code in (200, 422), r.json  # (a system without sheets has no characters)
    assert run(client, g, {"type": "start_combat", "token_ids": [hero, foe]}).status_code == 200
    html = board_list(client, g)
    assert row(html, foe).startswith(f"◆ Brute (foe) at F2, {far} away; line of fire clear"), row(html, foe)


@pytest.mark.parametrize("lang, words", [
    ("de", ("Das Spielfeld als Liste", "Orc (Feind)", "auf G6, 5 Meter entfernt", "Orc angreifen", "Hero bewegen")),
    ("fr", ("Le plateau en liste", "Orc (ennemi)", "en G6, à 5 mètres", "Attaquer Orc", "Déplacer Hero")),
    ("es", ("El tablero como lista", "Orc (enemigo)", "en G6, a 5 metros", "Atacar a Orc", "Mover a Hero")),
])
def test_the_list_reads_in_the_phones_language(client, lang, words):
    g = new_game(client, "gurps_lite", {"width": 12, "height": 8}, name="Words")
    p = seat(client, g)
    add(client, g, {"name": "Hero", "x": 2, "y": 2, "owner": p["player_id"], "kind": "pc"})
    foe = add(client, g, {"name": "Orc", "x": 6, "y": 5})
    assert client.get(f"/games/{g['id']}/play?lang={lang}").status_code == 200
    html = board_list(client, g)
    text = row(html, foe)
    for said in words:
        assert said in text or said in unescape(html), (said, text)


def test_a_players_map_drawn_whole_does_not_work_out_their_list(app, client, monkeypatch):
    """The list's places are a movement search on the board as the player knows it. A template that includes another
    copies its context whole (Jinja's ``get_all``): the list was worked out for every player each time their whole map
    was drawn (a fog switch: half of it on a big map), shown or not. It is worked out where it is drawn: the play page
    and GET /games/<id>/board-list."""
    from webapp.game.views import boardlist

    g = new_game(client, "plain_grid", ROOM, name="Drawn whole")
    p = seat(client, g)
    add(client, g, {"name": "Hero", "x": 1, "y": 3, "owner": p["player_id"], "kind": "pc"})
    phone = connect(app, g["id"], p["player_token"])
    phone.get_received()
    made = []
    view = boardlist.view
    monkeypatch.setattr(boardlist, "view", lambda *args: made.append(args) or view(*args))
    assert run(client, g, {"type": "set_fog", "enabled": True}).status_code == 200
    sent = [m["args"][0]["html"] for m in phone.get_received() if m["name"] == "update"]
    assert any('<svg id="map"' in html for html in sent)  # the player's whole map went out
    assert made == []
    assert "Hero" in board_list(client, g) and len(made) == 1  # and the list is still drawn when asked for
