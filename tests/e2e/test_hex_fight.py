"""A 3d6 fight on hexes (#28), played from two phones and the table screen with the GM on a laptop: each
player picks Move and Attack, picks up their token (the hexes it can reach shade, the ruler counts hexes as
yards), drops it two rows off, previews an attack (the distance is in hexes, the aim line runs between hex
centres) and rolls it; the GM passes the foes' turns. Both orientations. Real Chromium, a real server."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from hexmap import drag_between, hex_centre
from rules.grid import Grid
from test_fights import PHONE, Table, choose_maneuver, seeded_dice  # noqa: F401  (a fixture)
from test_live_table import at

PLACES = {"Mira": (1, 2), "Theo": (1, 5), "Brute": (8, 3), "Goon": (8, 6)}
BOARD = {"width": 12, "height": 8, "grid": "hex"}


def a_move(grid: Grid, start, taken, width, height):
    """A hex three steps away that a square grid would put two squares away (so the ruler and the server
    must count hexes to say 3 yards), on the board and free."""
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            c = (start[0] + dx, start[1] + dy)
            if (0 <= c[0] < width and 0 <= c[1] < height and c not in taken
                    and grid.steps(start, c) == 3 and max(abs(dx), abs(dy)) == 2):
                return c
    raise AssertionError("no such hex")


def hold(table: Table, phone, name: str, to) -> None:
    """Pick the token up on the phone and hold it over hex ``to`` (not dropped)."""
    grid = table.grid
    token = phone.locator(f"#token-{table.ids[name]}")
    x, y = int(token.get_attribute("data-x")), int(token.get_attribute("data-y"))
    sx, sy = hex_centre(phone, grid, x, y)
    tx, ty = hex_centre(phone, grid, *to)
    vw = phone.viewport_size["width"]
    assert 0 < sx < vw and 0 < tx < vw, "both ends of the drag are on the screen"
    drag_between(phone, (sx, sy), (tx, ty), release=False)


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_a_3d6_fight_on_hexes(seeded_dice, server, new_page, shot, orientation):
    grid = Grid("hex", orientation)
    table = Table(server, new_page, "gurps_lite", BOARD | {"orientation": orientation}, PLACES)
    table.grid = grid
    for page in table.pages:
        expect(page.locator("#map")).to_have_attribute("data-grid", "hex")
        expect(page.locator("#map")).to_have_attribute("data-orientation", orientation)
    table.start_fight()
    acted = set()
    turns = 0
    while acted != {"Mira", "Theo"}:
        name = table.whose_turn()
        turns += 1
        assert turns < 10
        if name not in table.phones or name in acted:
            table.next_turn(table.gm, "Next turn")
            continue
        phone = table.phones[name]
        choose_maneuver("Move and Attack")(table, name)
        table.fit(phone)
        start = table.where(name)
        taken = {table.where(n) for n in PLACES}
        to = a_move(grid, start, taken, BOARD["width"], BOARD["height"])
        hold(table, phone, name, to)
        # picked up: the six hexes round it shade (hexes, not squares), the ruler counts hexes
        reach = phone.locator("#layer-reach polygon.reach-cell")
        expect(reach.first).to_be_attached()
        for n in grid.neighbours(start):
            if 0 <= n[0] < BOARD["width"] and 0 <= n[1] < BOARD["height"] and n not in taken:
                expect(phone.locator(f'#layer-reach polygon.reach-cell[data-cell="{n[0]},{n[1]}"]')).to_have_count(1)
        expect(phone.locator("#layer-reach rect.reach-cell")).to_have_count(0)
        expect(phone.locator("#reach-ruler")).to_have_text(re.compile(r"^3 yards of \d+ yards$"))
        if name == "Mira":
            shot(phone, f"hex-{orientation}-fight-phone-reach")
        phone.mouse.up()
        for page in table.pages:
            at(page, table.ids[name], *to).to_be_attached()
        # the attack preview: the distance in hexes, the aim line from hex centre to hex centre
        foe = min(("Brute", "Goon"), key=lambda f: grid.steps(to, table.where(f)))
        assert table.preview(phone, name, foe, "Pistol") is None
        steps = grid.steps(to, table.where(foe))
        expect(phone.locator("#attack-preview .attack-preview")).to_contain_text(f"Distance {steps} yards")
        line = phone.locator("#layer-aim line.aim-line")
        drawn = [float(line.get_attribute(k)) for k in ("x1", "y1")]
        want = [v * u for v, u in zip(grid.centre(to), grid.unit)]
        assert drawn == [pytest.approx(v, abs=1e-3) for v in want]
        if name == "Mira":
            shot(table.gm, f"hex-{orientation}-fight-gm-preview")
        table.roll_attack(phone)
        expect(table.screen.locator("#result-card .result-who")).to_contain_text(f"{name} →")
        acted.add(name)
        if name == "Mira":
            shot(table.screen, f"hex-{orientation}-fight-screen")
            phone.locator("#map-frame").scroll_into_view_if_needed()
            shot(phone, f"hex-{orientation}-fight-phone")
        table.end_my_turn(name)
    shot(table.gm, f"hex-{orientation}-fight-gm")
