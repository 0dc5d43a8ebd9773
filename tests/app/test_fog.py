"""Fog of war: what each audience sees, what it never receives, and what it remembers."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import bearer, command as run, connect, join, new_game, state

# a wall down the middle of a 12 x 8 room with one door in it, at (6, 3)-(6, 4)
ROOM = {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 3]}, {"a": [6, 4], "b": [6, 8]}],
        "doors": [{"a": [6, 3], "b": [6, 4], "closed": True}]}
FOE = "Orcmarker-q7z"  # a unique name: any trace of it in a player's traffic is a leak
GHOST = "Ghostmarker-k2w"  # a hidden token: never sent to a player, fog or not


def token_id(client, game, name):
    return next(t["id"] for t in state(client, game, game["gm_token"])["tokens"] if t["name"] == name)


def furnished(client, name: str) -> dict:
    """The room with Ada's Hero west of the door, the foe east of it and a hidden Ghost; fog off (the game's keys
    and Ada's)."""
    g = new_game(client, "plain_grid", ROOM, name=name)
    p = join(client, g, "Ada")
    gm = bearer(g["gm_token"])
    client.post(f"/api/games/{g['id']}/tokens", json={"name": "Hero", "x": 1, "y": 3, "owner": p["player_id"],
                                                       "kind": "pc"}, headers=gm)
    client.post(f"/api/games/{g['id']}/tokens", json={"name": FOE, "x": 9, "y": 3}, headers=gm)
    client.post(f"/api/games/{g['id']}/tokens", json={"name": GHOST, "x": 2, "y": 5, "hidden": True}, headers=gm)
    return g | {"player_token": p["player_token"], "player_id": p["player_id"]}


@pytest.fixture
def room(client):
    g = furnished(client, "Fog")
    assert run(client, g, {"type": "set_fog", "enabled": True}, g["gm_token"]).status_code == 200
    return g


def door_id(client, game):
    return state(client, game, game["gm_token"])["map"]["doors"][0]["id"]


def test_fog_is_off_by_default_and_only_the_gm_turns_it_on(client):
    g = client.post("/api/games", json={"name": "Plain", "system": "plain_grid", "map": ROOM}).json
    assert state(client, g, g["gm_token"])["fog"] == {"enabled": False}
    r = run(client, g, {"type": "set_fog", "enabled": True}, g["screen_token"])
    assert r.status_code == 422
    assert run(client, g, {"type": "set_fog", "enabled": True}, g["gm_token"]).status_code == 200
    assert run(client, g, {"type": "set_fog", "enabled": True}, g["gm_token"]).status_code == 422  # on already


def test_a_token_behind_a_closed_door_is_not_in_the_players_state_or_page(client, room):
    s = state(client, room, room["player_token"])
    assert FOE not in json.dumps(s) and GHOST not in json.dumps(s)
    assert [t["name"] for t in s["tokens"]] == ["Hero"]
    assert [6, 3] not in s["fog"]["visible"] and [5, 3] in s["fog"]["visible"]
    page = client.get(f"/games/{room['id']}/play?key={room['player_token']}", follow_redirects=True)
    assert page.status_code == 200 and "Hero" in page.text
    assert FOE not in page.text and GHOST not in page.text
    assert 'class="fog-dark"' in page.text
    screen = state(client, room, room["screen_token"])
    assert FOE not in json.dumps(screen)
    gm = state(client, room, room["gm_token"])
    assert {FOE, GHOST, "Hero"} <= {t["name"] for t in gm["tokens"]}


def test_opening_the_door_brings_the_foe_into_view_live(app, client, room):
    player = connect(app, room["id"], room["player_token"])
    screen = connect(app, room["id"], room["screen_token"])
    player.get_received(), screen.get_received()
    # a foe moving about in the fog: nothing of it reaches the player
    run(client, room, {"type": "move_token", "token_id": token_id(client, room, FOE), "x": 10, "y": 3}, room["gm_token"])
    assert FOE not in json.dumps(player.get_received())
    assert FOE not in json.dumps(screen.get_received())
    r = run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": False}, room["gm_token"])
    assert r.status_code == 200
    seen = json.dumps(player.get_received())
    assert FOE in seen and GHOST not in seen
    assert FOE in json.dumps(screen.get_received())
    assert FOE in json.dumps(state(client, room, room["player_token"]))
    # closing it again takes the foe off the player's map: the fresh token layer has no trace of it
    run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": True}, room["gm_token"])
    updates = [m["args"][0]["html"] for m in player.get_received() if m["name"] == "update"]
    assert updates and 'id="layer-tokens"' in updates[-1] and FOE not in updates[-1]
    assert FOE not in json.dumps(state(client, room, room["player_token"]))


def test_a_player_moving_into_view_sees_the_foe_and_explored_squares_stay(client, room):
    hero = token_id(client, room, "Hero")
    before = state(client, room, room["player_token"])["fog"]
    assert [8, 3] not in before["explored"]
    run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": False}, room["gm_token"])
    # a player moves onto squares their tokens have seen (#25: a refusal in the fog would tell what is there)
    assert run(client, room, {"type": "move_token", "token_id": hero, "x": 7, "y": 3}, room["player_token"]).status_code == 200
    run(client, room, {"type": "move_token", "token_id": hero, "x": 7, "y": 2}, room["player_token"])
    s = state(client, room, room["player_token"])
    assert FOE in {t["name"] for t in s["tokens"]}
    assert [10, 6] in s["fog"]["visible"]
    # back through the door, and the door shut: the east side is remembered, dimmed, and the foe is gone
    run(client, room, {"type": "move_token", "token_id": hero, "x": 2, "y": 3}, room["player_token"])
    run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": True}, room["gm_token"])
    s = state(client, room, room["player_token"])
    assert [10, 6] in s["fog"]["explored"] and [10, 6] not in s["fog"]["visible"]
    assert FOE not in json.dumps(s)
    page = client.get(f"/games/{room['id']}/play?key={room['player_token']}", follow_redirects=True)
    assert "Hero" in page.text and FOE not in page.text and 'class="fog-dim"' in page.text


def test_drag_previews_of_a_foe_in_the_fog_do_not_reach_the_player(app, client, room):
    gm = connect(app, room["id"], room["gm_token"])
    player = connect(app, room["id"], room["player_token"])
    player.get_received()
    foe = token_id(client, room, FOE)
    assert gm.emit("preview", {"token_id": foe, "x": 8, "y": 3}, callback=True)["ok"]
    assert player.get_received() == []
    # and a player cannot preview, attack or ask about it
    ack = player.emit("preview", {"token_id": foe, "x": 8, "y": 3}, callback=True)
    assert ack["ok"] is False and FOE not in json.dumps(ack)
    hero = token_id(client, room, "Hero")
    ack = player.emit("command", {"type": "preview_attack", "attacker": hero, "target": foe}, callback=True)
    assert ack["ok"] is False and FOE not in json.dumps(ack)


def test_a_foe_dragged_into_the_fog_is_not_shown_going_there(app, client, room):
    run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": False}, room["gm_token"])
    gm = connect(app, room["id"], room["gm_token"])
    player = connect(app, room["id"], room["player_token"])
    player.get_received()
    foe = token_id(client, room, FOE)
    gm.emit("preview", {"token_id": foe, "x": 8, "y": 3}, callback=True)  # in the hero's sight, through the door
    assert [m["args"][0]["x"] for m in player.get_received() if m["name"] == "preview"] == [8]
    gm.emit("preview", {"token_id": foe, "x": 9, "y": 0}, callback=True)  # behind the wall: in the fog
    assert player.get_received() == []


def test_the_gm_reveals_and_hides_an_area(client, room):
    r = run(client, room, {"type": "reveal_cells", "x": 8, "y": 2, "w": 3, "h": 3}, room["screen_token"])
    assert r.status_code == 422
    assert run(client, room, {"type": "reveal_cells", "x": 8, "y": 2, "w": 3, "h": 3}, room["gm_token"]).status_code == 200
    s = state(client, room, room["player_token"])
    assert [9, 3] in s["fog"]["visible"] and FOE in {t["name"] for t in s["tokens"]}
    assert FOE in json.dumps(state(client, room, room["screen_token"]))
    assert run(client, room, {"type": "hide_cells", "x": 8, "y": 2, "w": 3, "h": 3}, room["gm_token"]).status_code == 200
    s = state(client, room, room["player_token"])
    assert [9, 3] not in s["fog"]["visible"] and [9, 3] not in s["fog"]["explored"]
    assert FOE not in json.dumps(s)
    assert run(client, room, {"type": "reveal_cells", "x": 50, "y": 2}, room["gm_token"]).status_code == 422


def test_the_gm_page_shows_the_fog_as_a_tint_and_every_token(client, room):
    page = client.get(f"/games/{room['id']}/gm?key={room['gm_token']}", follow_redirects=True)
    assert 'class="fog-tint"' in page.text and 'class="fog-dark"' not in page.text
    assert FOE in page.text and GHOST in page.text
    assert 'id="editor"' in page.text


def test_explored_memory_survives_a_reload_from_the_log(app, client, room, hub):
    run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": False}, room["gm_token"])
    run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": True}, room["gm_token"])
    explored = set(map(tuple, state(client, room, room["player_token"])["fog"]["explored"]))
    assert (10, 3) in explored
    hub.games.clear()  # the cache goes; the log rebuilds the game
    again = set(map(tuple, state(client, room, room["player_token"])["fog"]["explored"]))
    assert again == explored


def test_turning_fog_off_shows_every_token_that_is_not_hidden(client, room):
    run(client, room, {"type": "set_fog", "enabled": False}, room["gm_token"])
    names = {t["name"] for t in state(client, room, room["player_token"])["tokens"]}
    assert FOE in names and GHOST not in names


def test_visibility_is_computed_once_per_move_for_each_audience(client, room, hub, monkeypatch):
    from webapp.game.bridge import fog
    calls = []
    real = fog._compute
    monkeypatch.setattr(fog, "_compute", lambda game, token: calls.append(token.name) or real(game, token))
    hero = token_id(client, room, "Hero")
    run(client, room, {"type": "move_token", "token_id": hero, "x": 2, "y": 2}, room["player_token"])
    state(client, room, room["player_token"]), state(client, room, room["screen_token"])
    assert calls == ["Hero"]  # the hero moved: its view once; nothing else is recomputed


def test_the_board_as_a_player_knows_it_is_built_again_only_when_they_know_more_or_the_map_changes(
        client, room, monkeypatch):
    """A player's move is judged on the board as they know it (``fog.known_board``: a way there through the squares
    they have seen). It is kept while they know the same squares of the same map, so moves where nothing new comes
    into view build it once; a door opened or shut changes the map, and the next move is judged on the map as it is
    now: through the door while open, refused once it is shut again (a kept board of the open door would let it)."""
    from webapp.game.bridge import fog
    built = []
    real = fog._board_known
    monkeypatch.setattr(fog, "_board_known",
                        lambda board, seen, cells: built.append(len(cells)) or real(board, seen, cells))
    hero = token_id(client, room, "Hero")
    key = room["player_token"]

    def move(x, y):
        return run(client, room, {"type": "move_token", "token_id": hero, "x": x, "y": y}, key).status_code

    assert [move(2, 3), move(1, 3), move(2, 4), move(1, 3)] == [200] * 4  # the west half, seen whole from the start
    assert len(built) == 1
    assert move(8, 3) == 422  # the door shut: no way east on the map they know
    run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": False}, room["gm_token"])
    assert move(8, 3) == 200  # through the open door (the map changed: its known board built again)
    assert move(2, 3) == 200
    assert len(built) == 3  # the door opened, then the squares east of it known from 8, 3
    run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": True}, room["gm_token"])
    assert move(8, 3) == 422  # the east known, the door shut: no way there
    assert len(built) == 4


def test_undoing_a_move_takes_the_token_back_but_not_what_the_player_saw(client, room):
    hero = token_id(client, room, "Hero")
    run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": False}, room["gm_token"])
    assert run(client, room, {"type": "move_token", "token_id": hero, "x": 7, "y": 3}, room["player_token"]).status_code == 200
    assert run(client, room, {"type": "undo"}, room["gm_token"]).status_code == 200
    s = state(client, room, room["player_token"])
    assert next(t for t in s["tokens"] if t["name"] == "Hero")["x"] == 1
    assert [10, 6] in s["fog"]["explored"]


def test_a_hidden_token_of_a_player_lends_them_no_sight(client, room):
    gm = bearer(room["gm_token"])
    client.post(f"/api/games/{room['id']}/tokens", json={"name": "Spy", "x": 10, "y": 5, "owner": room["player_id"],
                                                         "hidden": True}, headers=gm)
    s = state(client, room, room["player_token"])
    assert FOE not in json.dumps(s) and [10, 5] not in s["fog"]["visible"]


def test_walls_and_cover_of_squares_never_seen_are_not_sent(app, client, room):
    gm = room["gm_token"]
    run(client, room, {"type": "add_wall", "a": [9, 1], "b": [11, 1]}, gm)
    run(client, room, {"type": "add_cover", "x": 10, "y": 6, "material": "stone"}, gm)
    s = state(client, room, room["player_token"])
    assert sorted(w["a"] for w in s["map"]["walls"]) == [[6, 0], [6, 4]]  # the middle wall, seen from the west
    assert s["map"]["cover"] == [] and len(s["map"]["doors"]) == 1
    page = client.get(f"/games/{room['id']}/play?key={room['player_token']}", follow_redirects=True).text
    assert "M9 1L11 1" not in page and "cover: stone" not in page
    assert len(state(client, room, gm)["map"]["walls"]) == 3  # the GM has them all
    player = connect(app, room["id"], room["player_token"])
    player.get_received()
    run(client, room, {"type": "set_door", "door_id": door_id(client, room), "closed": False}, gm)
    hero = token_id(client, room, "Hero")
    run(client, room, {"type": "move_token", "token_id": hero, "x": 8, "y": 3}, room["player_token"])
    html = "".join(m["args"][0]["html"] for m in player.get_received() if m["name"] == "update")
    assert "M9 1L11 1" in html and "cover: stone" in html
    s = state(client, room, room["player_token"])
    assert len(s["map"]["walls"]) == 3 and len(s["map"]["cover"]) == 1


def test_on_a_zone_map_a_token_sees_its_zone_and_the_zones_linked_to_it(client):
    g = client.post("/api/games", json={"name": "Zfog", "system": "plain_grid", "map": {"zones": [
        {"id": "yard", "name": "Yard", "adjacent": ["hall"]}, {"id": "hall", "name": "Hall", "adjacent": ["vault"]},
        {"id": "vault", "name": "Vault"}]}}).json
    p = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Ada"}).json
    gm = bearer(g["gm_token"])
    client.post(f"/api/games/{g['id']}/tokens", json={"name": "Hero", "zone": "yard", "owner": p["player_id"]}, headers=gm)
    client.post(f"/api/games/{g['id']}/tokens", json={"name": "Guard", "zone": "hall"}, headers=gm)
    client.post(f"/api/games/{g['id']}/tokens", json={"name": FOE, "zone": "vault"}, headers=gm)
    g = g | {"player_token": p["player_token"]}
    run(client, g, {"type": "set_fog", "enabled": True}, g["gm_token"])
    names = {t["name"] for t in state(client, g, g["player_token"])["tokens"]}
    assert names == {"Hero", "Guard"}
    hero = token_id(client, g, "Hero")
    run(client, g, {"type": "move_token", "token_id": hero, "zone": "hall"}, g["player_token"])
    assert FOE in {t["name"] for t in state(client, g, g["player_token"])["tokens"]}


def test_a_wall_along_a_grid_line_touches_the_squares_its_samples_touch():
    """``fogwalls.segment_cells`` gives a wall along a grid line between grid corners its squares at once: the very
    squares the samples along it find (``sampled_cells``, every other wall's way), for every such wall in a patch
    of corners, both ways round, points included, and for long ones."""
    from webapp.game.bridge import fogwalls

    corners = [(x, y) for x in range(-2, 6) for y in range(-2, 6)]
    walls = [(a, b) for a in corners for b in corners if a[0] == b[0] or a[1] == b[1]]
    walls += [((3, 7), (3, 7 + n)) for n in (40, 149, 300)] + [((150, 0), (0, 0))]
    for a, b in walls:
        assert fogwalls.segment_cells(a, b) == fogwalls.sampled_cells(a, b), (a, b)


def test_the_seen_part_of_a_map_holds_the_walls_touching_a_known_square_whichever_side_is_smaller():
    """``fog._seen_part`` looks the walls up from the squares walls touch when they are fewer than the squares known,
    else from the squares known: either way the walls and doors touching a known square, and only those."""
    import random

    from rules.board import Board
    from webapp.game.bridge import fog, fogwalls

    rnd = random.Random(69)
    ways = set()
    for _ in range(40):
        board = Board(20, 20)
        for _ in range(rnd.randint(0, 60)):
            x, y = rnd.randrange(20), rnd.randrange(20)
            a, b = ((x, y), (x + 1, y)) if rnd.random() < 0.5 else ((x, y), (x, y + 1))
            if rnd.random() < 0.2:
                board.add_door(a, b)
            else:
                board.add_wall(a, b)
        whole, by_cell = board.to_dict(), fogwalls.by_cell(board)
        cells = frozenset((rnd.randrange(20), rnd.randrange(20)) for _ in range(rnd.choice((3, 30, 300))))
        touching = {s.id for s in [*board.walls.values(), *board.doors.values()]
                    if fogwalls.segment_cells(s.a, s.b, board.grid) & cells}
        seen = fog._seen_part(whole, by_cell, cells)
        assert {w["id"] for w in seen["walls"]} | {d["id"] for d in seen["doors"]} == touching
        ways.add(len(by_cell) < len(cells))
    assert ways == {True, False}  # both ways were taken


def _cells_of_path(d: str) -> set:
    import re
    out = set()
    for x0, y, w in re.findall(r"M(-?\d+) (-?\d+)h(\d+)v1h-?\d+z", d):
        out |= {(int(x0) + i, int(y)) for i in range(int(w))}
    return out


def test_the_fog_paths_cover_exactly_their_squares():
    import random

    from webapp.game.bridge.fog import _grid, _grid_path, _grid_runs, _path, _runs, cells_path
    rnd = random.Random(12)
    for _ in range(50):
        w, h = rnd.randint(1, 30), rnd.randint(1, 30)
        cells = {(rnd.randrange(w), rnd.randrange(h)) for _ in range(rnd.randint(0, w * h))}
        outside = {(-1, 0), (w, 0), (0, -1), (0, h), (w + 3, h + 3)}  # off the board: not drawn
        assert _cells_of_path(cells_path(cells | outside, w, h)) == cells
        everything = {(x, y) for y in range(h) for x in range(w)}
        assert _cells_of_path(_path(_grid_runs(~_grid(cells | outside, w, h)))) == everything - cells
        for grid in (_grid(cells, w, h), ~_grid(cells, w, h)):  # the layer's one pass: the same path
            assert _grid_path(grid) == _path(_grid_runs(grid))
        runs = {}  # each row's runs, left to right, each as long as it goes
        for x, y in sorted(cells, key=lambda c: (c[1], c[0])):
            row = runs.setdefault(y, [])
            row[-1:] = [(row[-1][0], x + 1)] if row and row[-1][1] == x else [*row[-1:], (x, x + 1)]
        assert _runs(cells | outside, w, h) == runs


def _element(html: str, start_tag: str, name: str) -> str:
    """The element of ``html`` that opens with ``start_tag``, whole (the ``name`` elements inside it counted)."""
    start = html.index(start_tag)
    depth = 0
    for m in re.finditer(rf"<{name}[\s>]|</{name}>", html[start:]):
        depth += -1 if m.group(0).startswith("</") else 1
        if depth == 0:
            return html[start:start + m.end()]
    raise AssertionError(f"{start_tag} is not closed")


def test_switching_fog_sends_the_gm_its_fog_and_lighting_layers_alone_and_the_players_their_whole_map(app, client):
    """The GM sees every wall, the whole picture and every token with fog or without: a switch sends the GM's page
    its fog layer (the tint over what no player sees) and its lighting, not the map again (on a big map its walls
    are most of the map's html: 0.8 MB for 10,000 walls, 3.7 MB for 40,000 on hexes). The GM's map patched with
    them is the map a fresh GM page draws. A player's and the table screen's map is drawn whole: fog changes which
    walls, squares of the picture and tokens they get."""
    g = furnished(client, "Switch")

    def gm_map() -> str:
        page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True)
        assert page.status_code == 200
        return _element(page.text, '<svg id="map"', "svg")

    gm, player, screen = (connect(app, g["id"], key) for key in (g["gm_token"], g["player_token"], g["screen_token"]))
    for live in (gm, player, screen):
        live.get_received()
    shown = gm_map()
    for enabled in (True, False):
        assert run(client, g, {"type": "set_fog", "enabled": enabled}).status_code == 200
        sent = "".join(m["args"][0]["html"] for m in gm.get_received() if m["name"] == "update")
        assert 'id="layer-fog"' in sent and '<svg id="map"' not in sent and 'class="wall"' not in sent
        for layer in ("layer-fog", "layer-lighting"):
            if f'<g id="{layer}"' in sent:
                fresh = _element(sent, f'<g id="{layer}"', "g").replace(' hx-swap-oob="true"', "")
                shown = shown.replace(_element(shown, f'<g id="{layer}"', "g"), fresh)
        assert shown == gm_map()
        assert ('class="fog-tint"' in shown) is enabled
        for live in (player, screen):
            whole = [m["args"][0]["html"] for m in live.get_received() if m["name"] == "update"]
            assert any('<svg id="map"' in html and 'class="wall"' in html for html in whole)


def test_an_audiences_known_squares_are_its_memory_and_view():
    from webapp.game.bridge.fog import _memory_and_view

    memory, view = frozenset({(0, 0), (1, 0), (2, 0)}), frozenset({(1, 0)})
    assert _memory_and_view(memory, view) is memory  # the memory holds the view (after every event): itself
    assert _memory_and_view(set(memory), view) == memory
    assert _memory_and_view(memory, frozenset({(1, 0), (5, 5)})) == memory | {(5, 5)}
    assert _memory_and_view(frozenset(), view) == view


@pytest.mark.parametrize("grid", [None, ("hex", "pointy"), ("hex", "flat")])
def test_the_squares_each_wall_touches_found_at_once_are_each_walls_own(grid):
    # fogwalls.by_cell samples every segment at once in arrays: the squares (hexes) segment_cells gives each, in the
    # segments' order
    import random

    from rules.board import Board
    from rules.grid import Grid
    from webapp.game.bridge import fogwalls

    grid = Grid(*grid) if grid else Grid()
    for seed in range(40):
        rnd = random.Random(seed)
        size = rnd.choice([5, 20, 60])
        b = Board(size, size, grid=grid)
        for _ in range(rnd.randint(1, size * 4)):
            x, y, k = rnd.randrange(-2, size + 2), rnd.randrange(-2, size + 2), rnd.random()
            if k < 0.2 and grid.hex:  # along a hex's edge, corner to corner (an import's, the editor's)
                corners = grid.corners((rnd.randrange(size), rnd.randrange(size)))
                i = rnd.randrange(6)
                b.add_wall(corners[i], corners[(i + 1) % 6])
            elif k < 0.4:  # along grid lines (off the board too), diagonals, at float points, doors
                b.add_wall((x, y), (x + rnd.choice([1, 2, 5]), y) if rnd.random() < .5 else (x, y + rnd.choice([1, 3])))
            elif k < 0.6:
                b.add_wall((x, y), (x + rnd.choice([-1, 1]), y + rnd.choice([-1, 1, 2])))
            elif k < 0.8:
                b.add_wall((x + rnd.random(), y + rnd.random() * rnd.choice([0, 1])),
                           (x + rnd.uniform(-4, 4), y + rnd.choice([0, 0.5, rnd.uniform(-4, 4)])))
            else:
                b.add_door((x, y), (x + 1, y), closed=rnd.random() < 0.5)
        each: dict = {}
        for s in [*b.walls.values(), *b.doors.values()]:
            for cell in fogwalls.segment_cells(s.a, s.b, b.grid):
                each.setdefault(cell, []).append(s.id)
        assert fogwalls.by_cell(b) == each, seed
