"""Room mode (#38) over two "machines": two `tacmap serve --room` processes, each with a data folder of its own,
on one PostgreSQL database and one redis-server (tests/e2e/test_scale_out_postgres.py's set-up), in Chromium.

Both consoles print a setup link at their start; the organiser opens the first machine's (the one at hand) and
sets the password there, so the second's is spent too. Tables are made on A; a volunteer GM types a PIN on B and
a phone joins on B; A's organiser page counts the player online. Then A is killed (-9) and started again: the
room, its tables and the player's seat are still there, and the printed sheets come from A again.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest import SERVER_GONE, refused
from test_room_organiser import join_with_code, open_the_room, setup_link
from test_scale_out_postgres import cluster  # noqa: F401 (the fixture: a redis-server and a PostgreSQL database)

pytestmark = pytest.mark.long  # tens of seconds: run first (tests/conftest.py)

ROOM = ("--room",)  # each machine's `tacmap serve`, beside its own data folder and the shared --database


@pytest.mark.console_errors(*SERVER_GONE, refused(409, r"/room/setup\?token=[\w-]+"),
                            refused(410, r"/games/\w+/(play|gm|screen)"),
                            r"^Failed to load resource: net::ERR_CONNECTION_REFUSED \(http://[^ ]+/room/tables:0\)$",
                            r"^htmx:(sendError|afterRequest), \[object HTMLElement\]",
                            why="a machine is killed under the room page; a used setup link refused; a reset table's pages gone")
def test_a_room_on_two_machines_survives_a_kill_and_resets_a_table_across_them(cluster, new_page, shot):
    a = cluster.start("A", extra=ROOM)
    b = cluster.start("B", extra=ROOM)
    link_a, link_b = setup_link(a.log), setup_link(b.log)
    status, tpl = a.api("POST", "/api/games", {"name": "Goblin ambush", "system": "plain_grid"})
    assert status == 201, tpl
    status, body = b.api("POST", f"/api/games/{tpl['id']}/tokens", {"name": "Goblin", "x": 6, "y": 3},
                         tpl["gm_token"])
    assert status == 201, body

    # A's link works although B started after it (each console prints its own); B's is spent with it
    org = new_page(viewport={"width": 1366, "height": 900})
    pins, codes = open_the_room(org, link_a, tpl["id"], 3, "Sam")
    assert len(set(pins)) == 3 and len(set(codes)) == 3
    other = new_page()
    other.goto(link_b)
    expect(other.locator("#room-error")).to_contain_text("set already")

    # a volunteer GM and a phone at table 2, both through B
    gm = new_page()
    gm.goto(b.url + "/pin")
    gm.fill("#gm-pin", pins[1])
    gm.click("#open-gm")
    expect(gm.locator(".game-name")).to_contain_text("Table 2")
    expect(gm.locator("#conn.ok")).to_be_visible()
    phone = new_page(viewport={"width": 390, "height": 844})
    join_with_code(phone, b.url, codes[1], "Pip")
    expect(gm.locator("#players .player.online")).to_contain_text("Pip")
    game_id = re.search(r"/games/([0-9a-f]{8})/gm", gm.url).group(1)
    rows = org.locator(".room-list tbody tr[data-table]")
    expect(rows.nth(1)).to_contain_text("1 of 1", timeout=15000)  # A's list, refreshed every 5 s, sees B's phone
    expect(rows.nth(0)).to_contain_text("0 of 0")
    shot(org, "room-two-machines-organiser-on-A")

    # kill -9 A, start it again on the same port: the room is in PostgreSQL, the organiser still logged in
    a.kill()
    a = cluster.start("A", a.port, extra=ROOM)
    assert "/room/setup?token=" not in a.log()  # the password is set: no new link
    org.goto(a.url + "/room")
    rows = org.locator(".room-list tbody tr[data-table]")
    expect(rows).to_have_count(3)
    expect(rows.nth(1)).to_contain_text("1 of 1", timeout=15000)
    assert [p.strip() for p in org.locator(".room-pin-cell").all_inner_texts()] == pins
    sheets = org.context.new_page()
    sheets.goto(a.url + "/room/sheets")
    expect(sheets.locator(".table-sheet")).to_have_count(3)
    expect(sheets.locator(".table-sheet").nth(1).locator(".sheet-code")).to_have_text(codes[1])
    sheets.emulate_media(media="print")
    sheets.set_viewport_size({"width": 794, "height": 1123})
    shot(sheets, "room-two-machines-sheet")

    # the restarted A resets table 2 for the next slot: B's phone is told, B's GM page goes on in the new game,
    # and the same printed code seats the next player through B
    org.locator(".room-reset").nth(1).click()
    expect(org.locator("#room-reset-confirm")).to_contain_text("Seated now: Pip")
    org.click("#room-reset-button")
    expect(org.locator(".room-notice")).to_contain_text("reset for the next slot")
    expect(phone.locator("body")).to_contain_text("next slot", timeout=15000)
    expect(gm).not_to_have_url(re.compile(game_id), timeout=15000)
    expect(gm.locator("#conn.ok")).to_be_visible(timeout=15000)
    expect(gm.locator("#players .player")).to_have_count(0)
    join_with_code(phone, b.url, codes[1], "Quinn")
    expect(gm.locator("#players .player.online")).to_contain_text("Quinn")
    expect(org.locator(".room-list tbody tr[data-table]").nth(1)).to_contain_text("1 of 1", timeout=15000)
