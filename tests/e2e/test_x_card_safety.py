"""The X-card (issue #35, "A safety tool at the table"): a player taps it on their phone, the table screen
covers the map with a calm card, the GM's page says someone tapped it, every phone says the table is paused;
nothing about who tapped reaches anyone: no player id or name in any Socket.IO frame the GM, the screen or the
other players receive, in the state the API gives, in the log, in the stored events or the server's log; the
frames are the same whoever tapped. The GM resumes and the pause goes from every screen. Real Chromium."""

from __future__ import annotations

import re
import sqlite3

from playwright.sync_api import expect

from test_table_screens import PHONE, join, new_game, player_url, state

SCREEN = {"width": 1920, "height": 1080}
GM = {"width": 1280, "height": 800}


class Frames:
    """Every Socket.IO frame a page receives, from a mark on."""

    def __init__(self, page) -> None:
        self.all: list[str] = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda p: self.all.append(
            p if isinstance(p, str) else p.decode("utf-8", "replace"))))
        self.start = 0

    def mark(self) -> None:
        self.start = len(self.all)

    def since(self) -> list[str]:
        return self.all[self.start:]

    def updates(self) -> list[str]:
        """The updates since the mark, their seq numbers taken out (two pauses differ in nothing else)."""
        return [re.sub(r'"(from_)?seq":\s*\d+', '"seq":_', f) for f in self.since() if '"update"' in f]


def open_live(new_page, url: str, **kw):
    page = new_page(**kw)
    frames = Frames(page)
    page.goto(url)
    expect(page.locator("#conn.ok")).to_be_attached()
    return page, frames


def events_of(server, game, kind: str) -> list[str]:
    with sqlite3.connect(server.data_dir / "tacmap.sqlite3") as db:
        return [row[0] for row in db.execute("SELECT data FROM events WHERE game_id = ? AND type = ?", (game["id"], kind))]


def tap(phone) -> None:
    phone.locator("#pause button.x-card-tap").click()


def test_an_x_card_pauses_the_table_and_nobody_learns_who_tapped_it(server, new_page, shot):
    game = new_game(server, name="The haunted mill")
    mira, bo = join(server, game, "Mira"), join(server, game, "Bo")
    gm, gm_frames = open_live(new_page, game["urls"]["gm"], viewport=GM)
    screen, screen_frames = open_live(new_page, game["urls"]["screen"], viewport=SCREEN)
    phone, phone_frames = open_live(new_page, player_url(server, game, mira), **PHONE)
    other, other_frames = open_live(new_page, player_url(server, game, bo), **PHONE)
    for page in (phone, other):
        expect(page.locator("#pause button.x-card-tap")).to_be_visible()
    expect(screen.locator(".pause-card")).to_be_hidden()
    expect(gm.locator("#pause")).to_be_hidden()
    phone.locator("#pause").scroll_into_view_if_needed()
    shot(phone, "phone-390-x-card")
    before = state(server, game)
    server_log = server.log.read_text(errors="replace")

    watchers = {"gm": gm_frames, "screen": screen_frames, "other": other_frames, "tapper": phone_frames}
    for frames in watchers.values():
        frames.mark()
    tap(phone)
    card = screen.locator(".pause-card")
    expect(card).to_be_visible()
    expect(card).to_contain_text("A short pause")
    box, frame = card.bounding_box(), screen.viewport_size
    assert box["width"] >= frame["width"] - 1 and box["height"] >= frame["height"] - 1, "the map is covered"
    notice = gm.locator("#pause .pause-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Someone at the table tapped the X-card")
    for page in (phone, other):
        expect(page.locator("#pause .paused-note")).to_be_visible()
        expect(page.locator("#pause button.x-card-tap")).to_have_count(0)
    gm.wait_for_timeout(500)  # every frame of the tap in
    shot(screen, "screen-1920-x-card-paused")
    shot(gm, "gm-x-card-notice")
    other.locator("#pause").scroll_into_view_if_needed()
    shot(other, "phone-390-table-paused")

    # nobody's frames, state or log say who: not Mira's id, name or key
    secrets = (mira["player_id"], "Mira", mira["player_token"])
    for who in ("gm", "screen", "other", "tapper"):
        received = watchers[who].since()
        assert any('"update"' in f for f in received), f"{who} heard of the pause"
        for f in received if who != "tapper" else [f for f in received if '"update"' in f]:
            for secret in secrets:
                assert secret not in f, f"{who} was sent {secret!r}: {f[:300]}"
    paused_updates = {who: watchers[who].updates() for who in ("gm", "screen")}
    after = {who: server.api("GET", f"/api/games/{game['id']}/state", token=token)[1]
             for who, token in (("gm", game["gm_token"]), ("screen", game["screen_token"]), ("bo", bo["player_token"]))}
    for who, seen in after.items():
        assert seen["paused"] is True, who
        assert [e for e in seen["log"] if e["seq"] > before["seq"]] == [], "the game's log keeps no pause"
        assert mira["player_id"] not in str({k: v for k, v in seen.items() if k not in ("players", "you")})
    same = {k: v for k, v in after["gm"].items() if k not in ("seq", "log", "paused")}
    assert same == {k: v for k, v in before.items() if k not in ("seq", "log", "paused")}, "nothing else changed"
    assert events_of(server, game, "scene_paused") == ["{}"]
    for secret in secrets:
        assert secret not in server.log.read_text(errors="replace")[len(server_log):]

    # the pause is the game's state: a screen that loads the page again (or a restarted one) shows it
    screen.reload()
    expect(screen.locator(".pause-card")).to_be_visible()
    expect(screen.locator("#conn.ok")).to_be_attached()

    # a second tap while paused (Bo's) changes nothing
    other.evaluate("window.tacmap.command({type: 'x_card'})")
    gm.wait_for_timeout(500)
    assert events_of(server, game, "scene_paused") == ["{}"]

    # the GM resumes: the pause goes from every screen
    gm.locator("#pause button", has_text="Resume the scene").click()
    expect(card).to_be_hidden()
    expect(gm.locator("#pause")).to_be_hidden()
    for page in (phone, other):
        expect(page.locator("#pause button.x-card-tap")).to_be_visible()
    assert state(server, game)["paused"] is False
    assert events_of(server, game, "scene_resumed") == ["{}"]

    # Bo taps this time: the GM and the table screen are sent exactly what they were sent when Mira tapped
    for frames in watchers.values():
        frames.mark()
    tap(other)
    expect(card).to_be_visible()
    expect(gm.locator("#pause .pause-notice")).to_be_visible()
    gm.wait_for_timeout(500)
    for who in ("gm", "screen"):
        assert watchers[who].updates() == paused_updates[who], f"{who} could tell Mira's tap from Bo's"
    gm.locator("#pause button", has_text="Resume the scene").click()
    expect(card).to_be_hidden()


def test_the_x_card_is_limited_per_seat_without_stopping_the_others(server):
    game = new_game(server, name="Limits")
    mira, bo = join(server, game, "Mira"), join(server, game, "Bo")

    def send(token, kind):
        return server.api("POST", f"/api/games/{game['id']}/commands", {"type": kind}, token)

    for _ in range(2):  # a pause, resumed, twice
        assert send(mira["player_token"], "x_card")[0] == 200
        assert state(server, game)["paused"] is True
        assert send(game["gm_token"], "resume_scene")[0] == 200
    # a command id (issue #35's exactly-once commands) is not kept for the X-card: dropped before anything
    status, answer = server.api("POST", f"/api/games/{game['id']}/commands", {"type": "x_card", "cid": "m-1"},
                                mira["player_token"])
    assert status == 422 and "a moment ago" in answer["error"], answer
    status, answer = send(mira["player_token"], "x_card")
    assert status == 422 and "a moment ago" in answer["error"], answer
    assert state(server, game)["paused"] is False
    assert send(bo["player_token"], "x_card")[0] == 200  # another seat is not held back
    assert state(server, game)["paused"] is True
    # only the GM resumes; the table screen taps nothing
    assert send(bo["player_token"], "resume_scene")[0] in (403, 422)
    assert send(game["screen_token"], "x_card")[0] in (403, 422)
    assert state(server, game)["paused"] is True
