"""Room mode (#38) from the users' side, in Chromium against `tacmap serve` with TACMAP_ROOM=1: the organiser
sets the password with the printed setup link, makes three tables from a template, prints the sheets; a
volunteer opens the GM page with the PIN; a phone joins with the printed code and moves; the organiser resets
the table (the player is gone, the map is the template's again, the last slot downloadable) and closes the room."""

from __future__ import annotations

import io
import json
import re
import time
import zipfile

import pytest
from playwright.sync_api import expect

from conftest import ARTIFACTS, SHOTS, LiveServer, refused
from test_live_table import at, drag


pytestmark = pytest.mark.long  # tens of seconds: run first (tests/conftest.py)

@pytest.fixture
def room_server(tmp_path, monkeypatch):
    """`tacmap serve --room` (the option added to the server's command line), else TACMAP_ROOM=1."""
    import conftest

    if conftest.ZYGOTE is not None:
        spawn = conftest.ZYGOTE.spawn
        monkeypatch.setattr(conftest.ZYGOTE, "spawn", lambda argv, log: spawn([*argv, "--room"], log))
    else:
        monkeypatch.setenv("TACMAP_ROOM", "1")
    live = LiveServer(tmp_path / "data", demo=False).start()
    yield live
    live.kill()


def setup_link(console) -> str:
    """The setup link a server printed at its start; ``console()``: what it has printed so far."""
    deadline = time.time() + 10
    while time.time() < deadline:
        found = re.search(r"(http://\S+/room/setup\?token=\S+)", console())
        if found:
            return found.group(1)
        time.sleep(0.1)
    raise AssertionError(f"no setup link printed: {console()[-1000:]}")


def open_the_room(org, link: str, template_id: str, count: int, gm_name: str) -> tuple[list[str], list[str]]:
    """The organiser sets the password with ``link`` and makes ``count`` tables: their GM PINs and join codes."""
    org.goto(link)
    org.fill("#room-new-password", "lantern-42")
    org.fill("#room-confirm", "lantern-42")
    org.click("#room-set-password")
    org.select_option("#room-template", template_id)
    org.fill("#room-count", str(count))
    org.fill("#room-gm-name", gm_name)
    org.click("#room-make-button")
    expect(org.locator(".room-notice")).to_contain_text(f"Made {count} tables")
    return ([p.strip() for p in org.locator(".room-pin-cell").all_inner_texts()],
            [c.strip() for c in org.locator(".room-code").all_inner_texts()])


def join_with_code(phone, url: str, code: str, name: str) -> None:
    """A phone types the printed join code on ``url``'s join page, and is seated."""
    phone.goto(url + "/join")
    phone.fill("input[name=code]", code)
    phone.fill("input[name=name]", name)
    phone.click("button:has-text('Join')")
    expect(phone.locator("#conn.ok")).to_be_visible()


@pytest.mark.console_errors(refused(403, "/room/sheets"), refused(410, r"/games/\w+/(play|gm|screen)"),
                            refused(410, r"/join\?code=\w+"),
                            why="the sheets refused before the room's login; a table closed: its pages gone (410)")
def test_an_organiser_runs_a_room_of_three_tables(room_server, new_page, shot):
    server = room_server
    status, tpl = server.api("POST", "/api/games", {"name": "Goblin ambush", "system": "plain_grid"})
    assert status == 201
    status, goblin = server.api("POST", f"/api/games/{tpl['id']}/tokens", {"name": "Goblin", "x": 6, "y": 3},
                                tpl["gm_token"])
    assert status == 201
    goblin = goblin["id"]

    # the organiser: the printed link once, then the password
    org = new_page(viewport={"width": 1366, "height": 900})
    org.goto(server.url + "/room")
    expect(org.locator(".room-login")).to_contain_text("setup link")
    pins, codes = open_the_room(org, setup_link(server.log.read_text), tpl["id"], 3, "Sam")
    rows = org.locator(".room-list tbody tr[data-table]")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("no fight")
    expect(rows.nth(0)).to_contain_text("0 of 0")
    assert len(set(pins)) == 3 and all(re.fullmatch(r"\d{6}", p) for p in pins) and len(set(codes)) == 3
    shot(org, "room-organiser-page")
    small = org.context.new_page()
    small.set_viewport_size({"width": 390, "height": 844})
    small.goto(server.url + "/room")
    expect(small.locator(".room-list tbody tr[data-table]")).to_have_count(3)
    assert small.evaluate("document.documentElement.scrollWidth") <= 392, "the page fits a phone (the list scrolls)"
    shot(small, "room-organiser-phone")
    small.close()

    # the sheets: one printed page per table
    sheets = new_page(viewport={"width": 900, "height": 1200})
    sheets.goto(server.url + "/room/sheets")  # another browser: the organiser's only
    expect(sheets.locator("main")).to_contain_text("log in on the room page first")
    sheets = org.context.new_page()
    sheets.goto(server.url + "/room/sheets")
    expect(sheets.locator(".table-sheet")).to_have_count(3)
    sheets.emulate_media(media="print")
    sheets.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 dpi
    shot(sheets, "room-table-sheet-print")
    pdf = sheets.pdf(format="A4", print_background=True)
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 3, "one page per table"
    first = sheets.locator(".table-sheet").first
    expect(first.locator(".sheet-code")).to_have_text(codes[0])
    expect(first.locator(".sheet-pin span")).to_have_text(pins[0])
    assert first.locator("svg").count() == 3

    # a volunteer GM opens table 1's GM page with its PIN
    volunteer = new_page(viewport={"width": 390, "height": 844})
    volunteer.goto(server.url + "/pin")
    shot(volunteer, "room-pin-phone")
    gm = new_page()
    gm.goto(server.url + "/pin")
    gm.fill("#gm-pin", pins[0])
    gm.click("#open-gm")
    expect(gm.locator(".game-name")).to_contain_text("Table 1")  # the table's name, the template's under it
    expect(gm.locator(".game-name .table-template")).to_have_text("from Goblin ambush")
    expect(gm).to_have_title(re.compile(r"^Table 1 · GM"))
    expect(gm.locator("#conn.ok")).to_be_visible()
    at(gm, goblin, 6, 3).to_be_visible()
    shot(gm, "room-table-gm-page")
    game_id = re.search(r"/games/([0-9a-f]{8})/gm", gm.url).group(1)

    # the table screen opened with the sheet's link (1920 x 1080, the TV at the table)
    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen.goto(first.locator(".sheet-box").nth(1).locator(".sheet-link").inner_text().strip())
    expect(screen.locator("#conn.ok")).to_be_attached()
    at(screen, goblin, 6, 3).to_be_visible()
    expect(screen.locator(".screen-name")).to_have_text("Table 1")
    shot(screen, "room-table-screen")

    # a phone joins with the printed join code and moves its token
    phone = new_page(viewport={"width": 390, "height": 844})
    join_with_code(phone, server.url, codes[0], "Pip")
    expect(gm.locator("#players .player.online")).to_contain_text("Pip")
    gm_key = re.search(r"key=([\w-]+)", first.locator(".sheet-link").first.inner_text()).group(1)
    status, state = server.api("GET", f"/api/games/{game_id}/state", token=gm_key)
    assert status == 200, state
    pip = next(p["id"] for p in state["players"] if p["name"] == "Pip")
    status, body = server.api("POST", f"/api/games/{game_id}/tokens",
                              {"name": "Pip's rogue", "x": 2, "y": 2, "owner": pip}, gm_key)
    assert status == 201, body
    rogue = body["id"]
    at(phone, rogue, 2, 2).to_be_visible()
    expect(phone.locator(".game-name")).to_contain_text("Table 1")
    expect(phone.locator(".game-name")).not_to_contain_text("Goblin")
    shot(phone, "room-table-phone")
    drag(phone, rogue, (4, 2))
    at(gm, rogue, 4, 2).to_be_visible()
    expect(org.locator(".room-list tbody tr[data-table]").nth(0)).to_contain_text("1 of 1", timeout=15000)

    # the organiser resets table 1 for the next slot
    org.locator(".room-reset").first.click()
    expect(org.locator("#room-reset-confirm")).to_contain_text("Seated now: Pip")
    shot(org, "room-reset-confirm")
    org.click("#room-reset-button")
    expect(org.locator(".room-notice")).to_contain_text("reset for the next slot")
    expect(phone.locator("body")).to_contain_text("next slot", timeout=15000)  # the phone is told, then sent off
    # the GM page carries on in the table's new game: the template's map, no players
    expect(gm.locator("#conn.ok")).to_be_visible(timeout=15000)
    expect(gm).not_to_have_url(re.compile(game_id))
    at(gm, goblin, 6, 3).to_be_visible()
    expect(gm.locator(f"#token-{rogue}")).to_have_count(0)
    expect(gm.locator("#players .player")).to_have_count(0)
    expect(screen).not_to_have_url(re.compile(game_id), timeout=15000)  # the screen went on to the next slot too
    at(screen, goblin, 6, 3).to_be_visible()
    expect(screen.locator(f"#token-{rogue}")).to_have_count(0)
    shot(screen, "room-table-screen-next-slot")
    # the last slot is kept: its game file has Pip's move in its log
    archive = org.locator("a.room-archive").first
    expect(archive).to_be_visible()
    with org.expect_download() as dl:
        archive.click()
    with zipfile.ZipFile(io.BytesIO(open(dl.value.path(), "rb").read())) as z:
        events = [json.loads(line) for line in z.read("tables/events.jsonl").decode().splitlines()]
    assert any(e["type"] == "token_moved" and json.loads(e["data"])["token_id"] == rogue for e in events)
    # the lobby on the server's own machine: the template, not the room's tables nor the slot just archived
    lobby = new_page()
    lobby.goto(server.url + "/")
    expect(lobby.locator(".game-rows li")).to_have_count(1)
    expect(lobby.locator(".game-rows li")).to_contain_text("Goblin ambush")
    expect(lobby.locator("#room-link a")).to_have_attribute("href", "/room")
    expect(lobby.locator("#room-link a")).to_have_text("Organiser's room")
    assert game_id not in lobby.content()
    shot(lobby, "room-lobby-host")
    # the same printed code seats the next slot's player
    join_with_code(phone, server.url, codes[0], "Quinn")
    expect(gm.locator("#players .player")).to_contain_text("Quinn")

    # the end of the night: the room is closed, every table says so
    org.check("#room-close-sure")
    org.click("#room-close-button")
    expect(org.locator(".room-closed-badge")).to_be_visible()
    expect(phone.locator("#room-closed")).to_contain_text("closed this room", timeout=15000)
    expect(gm.locator("#room-closed")).to_contain_text("closed this room", timeout=15000)
    expect(screen.locator("#room-closed")).to_contain_text("closed this room", timeout=15000)
    shot(screen, "room-table-screen-closed")
    late = new_page(viewport={"width": 390, "height": 844})
    late.goto(server.url + f"/join?code={codes[1]}")
    expect(late.locator("#room-closed")).to_be_visible()
    shot(late, "room-closed-phone")
    shot(org, "room-organiser-closed")
    assert not SHOTS or (ARTIFACTS / "room-table-sheet-print.png").exists()  # (CI takes no screenshots)
