"""#69: a 300 x 300 map imported from a Universal VTT file plays under fog on every screen. Real Chromium against a
real ``tacmap serve``: the GM imports the file from the GM page (an imported map starts with fog on), the table
screen and two phones (touch, at the server's LAN name: no secure context) are connected, and each player moves
their token three times with a finger, the last move through a doorway into the next room: the mover's token stands
on its new square on the GM's page, the table screen and its phone, and the phone's fog opens as it goes (the next
room's floor dark before, clear after; the walls the phone knows more). The GM sees every wall throughout.

The map: rooms of 10 x 10 squares, their walls in segments of one square (15,660 of them) with a doorway in the
middle of each side, so that a token sees its own room and through the doorways, and a room opens when it steps into
it."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from test_editor_fog import expect_walls, walls_drawn
from test_fights import still
from test_live_table import cell_center
from test_phone_awake_plain_http import open_phone
from test_table_screens import add_token, join, new_game
from test_touch_keys import open_gm, open_screen, touches

SIDE, ROOM = 300, 10


def rooms_file() -> tuple[bytes, int]:
    """A .dd2vtt of SIDE x SIDE squares in rooms of ROOM x ROOM, one wall segment a square side, a doorway
    (no segment) in the middle of each room's side: the file and its number of segments."""
    lines = []
    for k in range(ROOM, SIDE, ROOM):
        for j in range(SIDE):
            if j % ROOM == ROOM // 2:
                continue
            lines.append([{"x": k, "y": j}, {"x": k, "y": j + 1}])
            lines.append([{"x": j, "y": k}, {"x": j + 1, "y": k}])
    data = {"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": SIDE, "y": SIDE},
                                          "pixels_per_grid": 64},
            "line_of_sight": lines, "portals": [], "lights": []}
    return json.dumps(data).encode(), len(lines)


def dark(page, cell: tuple[int, int]) -> bool:
    """Whether the centre of ``cell`` lies in the page's never-seen fog (``#layer-fog path.fog-dark``)."""
    return page.evaluate("""([x, y]) => { const p = document.querySelector('#layer-fog path.fog-dark');
        return !!p && p.isPointInFill(new DOMPoint(x + 0.5, y + 0.5)); }""", list(cell))


def walls_known(page) -> int:
    return walls_drawn(page)


def finger_move(phone, token_id: str, to: tuple[int, int]) -> None:
    """The player's own token dragged with a finger to square ``to`` (the map centred on it first: ◎ me)."""
    phone.tap("#find-mine")
    still(phone)  # (the map scrolled to the token: read where the squares are once it stands)
    token = phone.locator(f"#token-{token_id}")
    x, y = int(token.get_attribute("data-x")), int(token.get_attribute("data-y"))
    start, end = cell_center(phone, x, y), cell_center(phone, *to)
    assert cell_center(phone, x + 1, y)[0] - start[0] >= 40, "a square a fingertip can hold, on a 300-square map too"
    frame = phone.locator("#map-frame").bounding_box()
    assert all(frame["x"] < p[0] < frame["x"] + frame["width"] and frame["y"] < p[1] < frame["y"] + frame["height"]
               for p in (start, end)), (start, end, frame)  # both ends of the drag on the map's frame
    touches(phone, [(start, end)])


def test_a_300_square_imported_map_plays_under_fog_on_four_screens(server, new_page, tmp_path, shot):
    game = new_game(server, name="Big map")
    bea, cal = join(server, game, "Bea"), join(server, game, "Cal")
    heroes = {"Bea": add_token(server, game, "Aria", 4, 5, owner=bea["player_id"], kind="pc"),
              "Cal": add_token(server, game, "Brom", 15, 14, owner=cal["player_id"], kind="pc")}
    gm, screen = open_gm(new_page, game), open_screen(new_page, game)
    phones = {name: open_phone(new_page, server, game, player) for name, player in (("Bea", bea), ("Cal", cal))}

    data, segments = rooms_file()
    path = tmp_path / "rooms.dd2vtt"
    path.write_bytes(data)
    gm.set_input_files("#map-import input[type=file]", str(path))
    gm.click("#map-import button[type=submit]")
    expect(gm.locator("#map-import .upload-status")).to_contain_text(f"{segments} wall segments",
                                                                     timeout=60000)
    pages = [gm, screen, *phones.values()]
    for page in pages:
        expect(page.locator("#map")).to_have_attribute("data-width", str(SIDE), timeout=30000)
        expect(page.locator("#layer-fog")).to_have_attribute("data-fog", "on")
    expect_walls(gm, segments)

    # three moves each, a finger on the phone; the third through the doorway into the next room
    ways = {"Bea": [(6, 5), (8, 5), (12, 5)], "Cal": [(15, 16), (15, 18), (15, 22)]}
    beyond = {"Bea": (13, 1), "Cal": (11, 28)}  # the next room's floor, out of sight from the doorway's near side
    for step in range(3):
        for name, phone in phones.items():
            to = ways[name][step]
            known = walls_known(phone)
            if step == 2:
                assert dark(phone, beyond[name]), f"{name}: the next room is dark before the doorway"
            finger_move(phone, heroes[name], to)
            for page in (gm, screen, phone):  # (the other phone shows it only where its own token sees it)
                expect(page.locator(f'#token-{heroes[name]}[data-x="{to[0]}"][data-y="{to[1]}"]')).to_be_attached(
                    timeout=15000)
            assert walls_known(phone) >= known
            if step == 2:
                phone.wait_for_function("""([x, y]) => { const p = document.querySelector('#layer-fog path.fog-dark');
                    return !p || !p.isPointInFill(new DOMPoint(x + 0.5, y + 0.5)); }""", arg=list(beyond[name]),
                                        timeout=15000)
                assert walls_known(phone) > known, f"{name}: the next room's walls are known once inside"
                assert not dark(screen, beyond[name]), "the table screen shows what the party has seen"
                assert dark(screen, (150, 150)), "and not the rest of the map"
    expect_walls(gm, segments)
    assert not dark(gm, (150, 150)), "the GM sees the whole map"
    shot(gm, "big-map-gm-fog")
    shot(screen, "big-map-screen-fog")
    shot(phones["Bea"], "big-map-phone-fog")
