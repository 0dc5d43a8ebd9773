"""The GM's widgets follow live updates (issue #24): the maps panel's counts, the editor's tools
(its material picker) for the map on the GM's screen, and the fog drawn over a map being prepared.
Real Chromium against a real server; changes come through the JSON API as from another device."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_editor_fog import corner, draw


def api(server, game, body):
    status, answer = server.api("POST", f"/api/games/{game['id']}/commands", body, game["gm_token"])
    assert status == 200, answer
    return answer


def add_token(server, game, **body) -> str:
    status, made = server.api("POST", f"/api/games/{game['id']}/tokens", body, game["gm_token"])
    assert status == 201, made
    return made["id"]


def summary(server, game) -> dict:
    maps = server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1]["maps"]
    return {m["name"]: m for m in maps}


def open_gm(server, new_page, game):
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    return gm


def map_row(gm, name: str):
    return gm.locator("#maps-panel .map-row", has=gm.locator(".map-name", has_text=name)).locator("small")


def prepare(gm, name: str) -> None:
    gm.locator("#maps-panel .map-row", has=gm.locator(".map-name", has_text=name)).locator("button[data-view]").click()
    expect(gm.locator("#map.preparing")).to_have_attribute("aria-label", re.compile(f"^{name}:"))


def test_the_maps_panel_counts_tokens_walls_and_doors_as_they_come_and_go(server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Counts", "system": "plain_grid"})
    assert status == 201, game
    add_token(server, game, name="Hero", x=2, y=2)
    gm = open_gm(server, new_page, game)
    row = map_row(gm, "Main map")
    expect(row).to_contain_text("0 walls · 0 doors · 1 token")
    goblin = add_token(server, game, name="Goblin", x=6, y=2)
    expect(row).to_contain_text("· 2 tokens")
    api(server, game, {"type": "add_wall", "a": [4, 0], "b": [4, 5]})
    api(server, game, {"type": "add_door", "a": [4, 5], "b": [4, 6]})
    expect(row).to_contain_text("1 wall · 1 door · 2 tokens")
    api(server, game, {"type": "remove_token", "token_id": goblin})
    expect(row).to_contain_text("1 wall · 1 door · 1 token")
    api(server, game, {"type": "resize_map", "width": 20, "height": 12})
    expect(row).to_contain_text("20 x 12")
    shot(gm, "gm-maps-panel-counts")


def test_the_editor_offers_the_tools_of_the_map_being_prepared_and_edits_that_map(server, new_page, shot):
    # the map everyone sees is a zone map; the GM prepares a grid cellar
    status, game = server.api("POST", "/api/games", {"name": "Prepare", "system": "plain_grid", "map": {"zones": [
        {"id": "yard", "name": "Yard", "adjacent": ["hall"]}, {"id": "hall", "name": "Hall"}]}})
    assert status == 201, game
    api(server, game, {"type": "add_map", "name": "Cellar", "width": 10, "height": 8})
    gm = open_gm(server, new_page, game)
    expect(gm.locator("#editor [data-tool=zone]")).to_be_visible()
    expect(gm.locator("#editor-material")).to_have_count(0)

    prepare(gm, "Cellar")
    # a grid map's tools now: walls, cover and its material picker, the cellar's own size
    expect(gm.locator("#editor [data-tool=zone]")).to_have_count(0)
    expect(gm.locator("#editor [data-tool=wall]")).to_be_visible()
    expect(gm.locator("#editor-material")).to_be_visible()
    expect(gm.locator("#editor form[data-command=resize_map] input[name=width]")).to_have_value("10")
    shot(gm, "gm-editor-preparing-cellar")
    # a wall and a stone cover piece drawn on the cellar land on the cellar, not on the map everyone sees
    gm.click("#editor [data-tool=wall]")
    draw(gm, (3, 1), (3, 5))
    expect(map_row(gm, "Cellar")).to_contain_text("1 wall")
    gm.locator("#editor-material").select_option("stone")
    gm.click("#editor [data-tool=cover]")
    x, y = corner(gm, 6.5, 2.5)
    gm.mouse.click(x, y)
    expect(gm.locator('#layer-walls .cover[data-cell="6,2"]')).to_have_count(1)
    expect(gm.locator("#log")).to_contain_text("the GM put stone cover on (6, 2)")
    maps = summary(server, game)
    assert maps["Cellar"]["walls"] == 1 and maps["Main map"]["walls"] == 0

    # back on the map everyone sees: its zone tools again
    gm.locator("#maps-panel button[data-view]", has_text="Back to it").click()
    expect(gm.locator("#map")).not_to_have_class(re.compile("preparing"))
    expect(gm.locator("#editor [data-tool=zone]")).to_be_visible()
    expect(gm.locator("#editor-material")).to_have_count(0)


def fog_paths(gm) -> dict:
    return gm.locator("#layer-fog path").evaluate_all(
        "ps => Object.fromEntries(ps.map((p) => [p.getAttribute('class'), p.getAttribute('d')]))")


def test_the_fog_over_a_map_being_prepared_is_that_maps_and_stays_so(server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Fog prep", "system": "plain_grid",
                                                     "map": {"width": 16, "height": 10}})
    assert status == 201, game
    status, mira = server.api("POST", f"/api/games/{game['id']}/players",
                              {"join_code": game["join_code"], "name": "Mira"})
    hero = add_token(server, game, name="Hero", x=2, y=4, owner=mira["player_id"], kind="pc")
    api(server, game, {"type": "add_wall", "a": [8, 0], "b": [8, 10]})  # the Hero sees the west half only
    api(server, game, {"type": "set_fog", "enabled": True})
    api(server, game, {"type": "add_map", "name": "Cellar", "width": 10, "height": 8})
    gm = open_gm(server, new_page, game)
    expect(gm.locator("#layer-fog .fog-tint")).to_have_count(1)  # what no player sees, on the map everyone sees

    prepare(gm, "Cellar")  # its fog is off: nothing over it
    assert fog_paths(gm) == {}
    expect(gm.locator("#fog-toggle")).to_have_text("Fog: off")
    # a move on the map everyone sees changes what the players see there: not drawn over the cellar
    api(server, game, {"type": "move_token", "token_id": hero, "x": 5, "y": 4})
    expect(gm.locator("#log")).to_contain_text("Hero moved to (5, 4)")
    assert fog_paths(gm) == {}

    # fog on for the cellar (once it is shown): no player has seen any of it, all of it is tinted
    gm.click("#fog-toggle")
    expect(gm.locator("#fog-toggle")).to_have_text("Fog: on")
    expect(gm.locator("#layer-fog .fog-tint")).to_have_attribute("d", "M0 0h10v8h-10z")
    api(server, game, {"type": "move_token", "token_id": hero, "x": 6, "y": 4})
    expect(gm.locator("#log")).to_contain_text("Hero moved to (6, 4)")
    assert fog_paths(gm) == {"fog-tint": "M0 0h10v8h-10z"}
    maps = summary(server, game)
    assert maps["Cellar"]["fog"] is True and maps["Main map"]["fog"] is not False
    shot(gm, "gm-fog-preparing-cellar")

    # back on the map everyone sees: its own fog again
    gm.locator("#maps-panel button[data-view]", has_text="Back to it").click()
    expect(gm.locator("#map")).not_to_have_class(re.compile("preparing"))
    expect(gm.locator("#layer-fog .fog-tint")).to_have_count(1)
    assert fog_paths(gm).get("fog-tint") != "M0 0h10v8h-10z"
