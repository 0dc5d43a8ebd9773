"""Phones that lose the Wi-Fi (#35): every command is done exactly once, what the player does while the
link is down is shown pending and goes out, in order, when it is back, and the server remembers the ids
it applied across a restart. Real Chromium (Playwright's ``set_offline``) against a real ``tacmap serve``."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from playwright.sync_api import expect

from conftest import OFFLINE, LiveServer
from test_drag_feedback import Link, drop, is_pending, wait_for, wait_upgraded
from test_flood_live import connect
from test_table_screens import PHONE, add_token, join, player_url, state

MAP = {"width": 12, "height": 8, "blocked": [[6, 2]]}


class LossyLink(Link):
    """The phone's WebSocket, forwarded by the test; while ``lose_answers`` is on, the server's answers to
    commands (Socket.IO ack packets, "43...") are dropped on their way back: the server did the command,
    the phone never heard so. Everything else passes unchanged."""

    def __init__(self) -> None:
        super().__init__()
        self.lose_answers = False
        self.lost: list[str] = []

    def route(self, ws) -> None:
        server = ws.connect_to_server()
        self.server = server

        def to_server(message) -> None:
            if message == "5":
                self.upgraded = True
            server.send(message)

        def to_page(message) -> None:
            if self.lose_answers and isinstance(message, str) and message.startswith("43"):
                self.lost.append(message)
                return
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)


def table(server, system: str = "savage_worlds"):
    status, game = server.api("POST", "/api/games", {"name": "Wi-Fi", "system": system, "map": MAP})
    assert status == 201, game
    mira = join(server, game, "Mira")
    hero = add_token(server, game, "Hero", 2, 2, owner=mira["player_id"], kind="pc")
    goblin = add_token(server, game, "Goblin", 4, 3)
    return game, mira, hero, goblin


def open_pages(server, game, mira, new_page, link=None):
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    phone = new_page(**PHONE)
    if link is not None:
        phone.route_web_socket(re.compile(r"/socket\.io/"), link.route)
    phone.goto(player_url(server, game, mira))
    expect(phone.locator("#conn.ok")).to_be_visible()
    return gm, screen, phone


def moves(server, game) -> list[str]:
    return [e["text"] for e in state(server, game)["log"] if " moved to " in e["text"]]


def attacks_on(server, game, target: str) -> list[str]:
    """The log's lines of the attacks on ``target``, whatever each came to: a hit, a miss, or a critical failure
    (double 1s on a Wild Card's dice, one attack in 36, whose line does not name the target)."""
    return [e["text"] for e in state(server, game)["log"]
            if (((e.get("detail") or {}).get("attack") or {}).get("details") or {}).get("target") == target]


@pytest.mark.console_errors(*OFFLINE, why="the phone loses the Wi-Fi (set_offline)")
def test_a_move_and_an_attack_sent_as_the_link_drops_are_done_exactly_once(server, new_page, shot):
    game, mira, hero, goblin = table(server)
    link = LossyLink()
    gm, screen, phone = open_pages(server, game, mira, new_page, link)
    wait_upgraded(phone, link)
    seq0 = state(server, game)["seq"]

    # the phone moves its Hero and attacks the Goblin; the server does both, but its answers never
    # reach the phone: the Wi-Fi drops right then
    link.lose_answers = True
    drop(phone, hero, (2, 2), (3, 2))
    phone.locator("#attack-form select[name=target]").select_option(goblin)
    phone.locator("#attack-form button[data-attack=attack]").click()
    for _ in range(100):
        if state(server, game)["seq"] >= seq0 + 2:
            break
        phone.wait_for_timeout(100)
    assert state(server, game)["seq"] == seq0 + 2, "the server did the move and the attack"
    # the answers come after the commit: wait (inside Playwright's calls) until both have been dropped
    wait_for(phone, lambda: len(link.lost) >= 2, "the server's answers to the move and the attack were not both sent")
    phone.context.set_offline(True)
    expect(phone.locator("#link-banner.shown")).to_contain_text("Reconnecting")
    expect(phone.locator("#link-banner")).to_contain_text("2 changes wait")
    assert is_pending(phone, hero)  # never answered: still pending on the phone
    assert phone.evaluate("window.tacmap.waiting()") == ["move_token", "attack"]
    phone.locator("#map").scroll_into_view_if_needed()
    phone.wait_for_timeout(600)  # the pending look has faded in
    shot(phone, "phone-offline-move-and-attack-pending")

    # the Wi-Fi is back: both go out again with their ids and are answered with their first answers
    link.lose_answers = False
    phone.context.set_offline(False)
    expect(phone.locator("#conn.ok")).to_be_visible(timeout=20000)
    expect(phone.locator("#link-banner.shown")).to_contain_text("Back, 2 changes caught up")
    expect(phone.locator(f"#token-{hero}.pending")).to_have_count(0)
    assert phone.evaluate("window.tacmap.waiting()") == []
    phone.locator("#map").scroll_into_view_if_needed()
    shot(phone, "phone-offline-move-and-attack-back")

    after = state(server, game)
    assert after["seq"] == seq0 + 2, "nothing was done twice"
    assert sum(" moved to (3, 2)" in t for t in moves(server, game)) == 1
    attack_lines = attacks_on(server, game, goblin)
    assert len(attack_lines) == 1
    # every screen agrees: the Hero at (3, 2), the one attack in each log
    hero_at = next((t["x"], t["y"]) for t in after["tokens"] if t["id"] == hero)
    assert hero_at == (3, 2)
    for page in (gm, screen, phone):
        expect(page.locator(f'#token-{hero}[data-x="3"][data-y="2"]')).to_have_count(1)
    for page in (gm, phone):
        expect(page.locator("#log li", has_text=attack_lines[0])).to_have_count(1)


#: run in a page: each message shown at the foot of the screen (``#flash`` given the class ``shown``) kept in
#: ``window.flashesShown``, with its words as shown
FLASHES_KEPT = """() => {
  window.flashesShown = [];
  new MutationObserver(() => {
    const box = document.getElementById("flash");
    if (box && box.classList.contains("shown")) window.flashesShown.push(box.textContent);
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["class"]});
}"""


@pytest.mark.console_errors(*OFFLINE, why="the phone loses the Wi-Fi (set_offline)")
@pytest.mark.long
def test_moves_made_offline_for_30_s_go_out_in_order_and_a_refused_one_springs_back(server, new_page, shot):
    game, mira, hero, goblin = table(server, "plain_grid")
    gm, screen, phone = open_pages(server, game, mira, new_page)
    seq0 = state(server, game)["seq"]

    phone.context.set_offline(True)
    expect(phone.locator("#link-banner.shown")).to_contain_text("Reconnecting")
    # two moves, then one onto the pillar at (6, 2): all shown at once, pending, none sent
    drop(phone, hero, (2, 2), (3, 2))
    drop(phone, hero, (3, 2), (4, 2))
    drop(phone, hero, (4, 2), (6, 2))
    expect(phone.locator(f'#token-{hero}.pending')).to_have_count(1)
    phone.wait_for_timeout(15000)
    shot(phone, "phone-offline-30s-pending")
    phone.wait_for_timeout(15000)
    assert state(server, game)["seq"] == seq0, "nothing reached the server while the phone was offline"
    for page in (gm, screen):
        expect(page.locator(f'#token-{hero}[data-x="2"][data-y="2"]')).to_have_count(1)

    # every message the phone shows from now on, as it is shown (a flash stays 5 s: on a loaded machine the
    # refusal's came and went while the test waited for the link, and a look at the screen then missed it)
    phone.evaluate(FLASHES_KEPT)
    phone.context.set_offline(False)
    expect(phone.locator("#conn.ok")).to_be_visible(timeout=20000)
    # the refused one springs back to where the last accepted move left the Hero, with its reason
    phone.wait_for_function("() => window.flashesShown.some(text => text.includes('G3 is blocked'))", timeout=15000)
    expect(phone.locator(f'#token-{hero}[data-x="4"][data-y="2"]')).to_have_count(1)
    expect(phone.locator(f"#token-{hero}.pending")).to_have_count(0)
    expect(phone.locator("#link-banner.shown")).to_contain_text("Back, 2 changes caught up")
    shot(phone, "phone-offline-30s-back-refused")
    assert moves(server, game) == ["Hero moved to (3, 2)", "Hero moved to (4, 2)"]  # in order
    assert state(server, game)["seq"] == seq0 + 2
    for page in (gm, screen):
        expect(page.locator(f'#token-{hero}[data-x="4"][data-y="2"]')).to_have_count(1)


def test_a_command_id_survives_a_server_restart(tmp_path):
    server = LiveServer(tmp_path / "data", demo=False).start()
    try:
        game, mira, hero, _goblin = table(server, "plain_grid")
        url = f"/api/games/{game['id']}/commands"
        move = {"type": "move_token", "token_id": hero, "x": 3, "y": 2, "cid": "phone-1.page.1"}
        status, first = server.api("POST", url, move, mira["player_token"])
        assert status == 200 and first["ok"], first
        server.kill()  # SIGKILL: nothing but what is on disk survives
        server.start()
        # the GM moves the Hero on; the phone's move, sent again after the restart, must not move it back
        server.api("POST", url, {"type": "move_token", "token_id": hero, "x": 5, "y": 5}, game["gm_token"])
        seq = state(server, game)["seq"]
        status, again = server.api("POST", url, move, mira["player_token"])
        assert status == 200 and again == {**first, "repeat": True}
        sio = connect(server, game["id"], mira["player_token"])
        try:
            over_socket = sio.call("command", move, timeout=10)
        finally:
            sio.disconnect()
        assert over_socket == {**first, "repeat": True}
        now = state(server, game)
        assert now["seq"] == seq and next((t["x"], t["y"]) for t in now["tokens"] if t["id"] == hero) == (5, 5)
    finally:
        server.kill()
    # the id is in the log's database, stored with the seq of the move it made
    db = sqlite3.connect(tmp_path / "data" / "tacmap.sqlite3")
    rows = db.execute("SELECT seat, seq, answer FROM commands WHERE cid = ?", ("phone-1.page.1",)).fetchall()
    assert rows == [(f"player:{mira['player_id']}", first["seq"], json.dumps({}))]


@pytest.mark.console_errors(*OFFLINE, why="the phone loses the Wi-Fi (set_offline)")
def test_an_attack_made_offline_waits_on_its_button_and_goes_out_once_on_return(server, new_page, shot):
    game, mira, hero, goblin = table(server)
    status, _ = server.api("POST", f"/api/games/{game['id']}/commands",
                           {"type": "move_token", "token_id": hero, "x": 3, "y": 2}, mira["player_token"])
    assert status == 200  # within the Long sword's reach of the Goblin
    gm, screen, phone = open_pages(server, game, mira, new_page)
    seq0 = state(server, game)["seq"]
    phone.context.set_offline(True)
    expect(phone.locator("#link-banner.shown")).to_contain_text("Reconnecting")
    phone.locator("#attack-form select[name=target]").select_option(goblin)
    button = phone.locator("#attack-form button[data-attack=attack]")
    button.click()
    expect(button).to_have_class(re.compile(r"\bwaiting\b"))
    expect(button).to_have_attribute("aria-busy", "true")
    expect(phone.locator("#link-banner")).to_contain_text("1 change waits")
    shot(phone, "phone-offline-attack-button-waiting")
    assert state(server, game)["seq"] == seq0

    phone.context.set_offline(False)
    expect(phone.locator("#link-banner.shown")).to_contain_text("Back, 1 change caught up", timeout=20000)
    expect(button).not_to_have_class(re.compile(r"\bwaiting\b"))
    assert state(server, game)["seq"] == seq0 + 1
    lines = attacks_on(server, game, goblin)
    assert len(lines) == 1
    line = lines[0]
    for page in (gm, phone):
        expect(page.locator("#log li", has_text=line)).to_have_count(1)

    # the GM's laptop and the table screen say the same when theirs drops
    for page, name in ((gm, "gm"), (screen, "screen")):
        page.context.set_offline(True)
        expect(page.locator("#link-banner.shown")).to_contain_text("Reconnecting")
        shot(page, f"{name}-offline-banner")
        page.context.set_offline(False)
        expect(page.locator("#link-banner.shown")).to_contain_text("Back, up to date", timeout=20000)
