"""The replay (#36) from the users' side, in Chromium against a real server: a fight played through the API
(seeded dice) in two systems, then replayed from the GM page to the table screen (tokens where they stood at
round 1 turn 2, a token hidden then absent from the screen's replay, "Back to the table" shows the present,
the log took no event from the replay); and a player's replay of a fogged fight, its websocket frames and its
page holding no token that player did not see then."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from test_table_screens import add_token, join, player_url, state
from tests.helpers import live_command as command

TV = {"viewport": {"width": 1920, "height": 1080}, "screen": {"width": 1920, "height": 1080}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture
def seeded_dice(monkeypatch):
    """Seeded dice on the server started after this fixture (it inherits the environment)."""
    monkeypatch.setenv("TACMAP_DICE_SEED", "5")


def head(server, game) -> int:
    """The seq of the log's newest event."""
    return server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1]["seq"]


def positions(server, game) -> dict:
    return {t["id"]: (t["x"], t["y"]) for t in state(server, game)["tokens"]}


def step_current(server, game, dx: int) -> int:
    """The token whose turn it is moves one square (a GM ruling where the rules would not have it); the seq."""
    current = state(server, game)["combat"]["current"]
    x, y = positions(server, game)[current]
    status, reply = server.api("POST", f"/api/games/{game['id']}/commands",
                               {"type": "move_token", "token_id": current, "x": x + dx, "y": y}, game["gm_token"])
    if status != 200:  # the rules count the move (not allowed now): the GM rules it
        reply = command(server, game, {"type": "move_token", "token_id": current, "x": x + dx, "y": y, "force": True})
    return reply["seq"]


def token_at(page, token_id: str) -> tuple[int, int]:
    token = page.locator(f"#token-{token_id}")
    return int(token.get_attribute("data-x")), int(token.get_attribute("data-y"))


@pytest.mark.parametrize("system", ["plain_grid", "savage_worlds"])
def test_a_fight_replayed_on_the_table_screen_shows_that_moment_and_the_live_game_takes_no_event(
        seeded_dice, server, new_page, shot, system):
    status, game = server.api("POST", "/api/games", {"name": f"Replay {system}", "system": system})
    assert status == 201, game
    ids = {name: add_token(server, game, name, x, y, **extra) for name, x, y, extra in (
        ("Aria", 2, 2, {"kind": "pc"}), ("Goblin", 8, 2, {}), ("Ogre", 12, 4, {}), ("Spy", 15, 9, {"hidden": True}))}
    command(server, game, {"type": "start_combat", "token_ids": [ids["Aria"], ids["Goblin"], ids["Ogre"]]})
    fighters = [ids["Aria"], ids["Goblin"], ids["Ogre"]]
    # round 1: the first fighter moves, the turn passes, the second moves: that is the moment replayed
    step_current(server, game, 1)
    command(server, game, {"type": "next_turn"})
    assert state(server, game)["combat"]["round"] == 1
    moment = step_current(server, game, 1)
    then = positions(server, game)
    assert state(server, game)["tokens"][-1]["hidden"] is True
    # the fight goes on: two more rounds, the Spy steps out of hiding and everyone moves on
    while state(server, game)["combat"]["round"] < 3:
        command(server, game, {"type": "next_turn"})
        step_current(server, game, 1)
    command(server, game, {"type": "update_token", "token_id": ids["Spy"], "hidden": False})
    command(server, game, {"type": "move_token", "token_id": ids["Spy"], "x": 14, "y": 8, "force": True})
    now = positions(server, game)
    assert any(now[t] != then[t] for t in fighters) and now[ids["Spy"]] != then[ids["Spy"]]
    live_head = head(server, game)

    gm = new_page(viewport={"width": 1280, "height": 900})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(**TV)
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    expect(screen.locator(f"#token-{ids['Spy']}")).to_be_attached()  # the present: the Spy is out of hiding

    gm.locator("#replay-details > summary").click()
    entry = gm.locator(f"#replay-timeline li[data-seq='{moment}']").last
    expect(entry).to_be_attached()
    gm.check("#replay-on-screen")
    entry.locator("button").click()

    expect(screen.locator("body.replaying")).to_be_attached()
    banner = screen.locator("#replay-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Replay")
    expect(banner).to_contain_text(f"event {moment} of {live_head}")
    for token in fighters:
        assert token_at(screen, token) == then[token], (token, then[token])
        assert token_at(gm, token) == then[token]
    assert screen.locator(f"#token-{ids['Spy']}").count() == 0, "the Spy was hidden then: not on the screen's replay"
    assert token_at(gm, ids["Spy"]) == then[ids["Spy"]]  # the GM saw it then, where it stood then
    expect(gm.locator("#replay-timeline li.current")).to_have_attribute("data-seq", str(moment))
    gm.locator("#replay-panel").scroll_into_view_if_needed()
    shot(gm, f"replay-gm-timeline-{system}")
    shot(screen, f"replay-screen-banner-{system}")
    assert head(server, game) == live_head, "a replay appended to the log"

    # the table goes on meanwhile: a command from elsewhere is taken, the replaying screen stays on the past
    mira = join(server, game, "Mira")
    assert command(server, game, {"type": "roll", "expr": "1d6"}, mira["player_token"])["seq"] > live_head
    after_roll = head(server, game)
    assert after_roll == live_head + 2  # Mira's seat and her roll: nothing from the replay
    gm.locator("#replay-next-moment").click()  # a step on the timeline: still a view
    expect(screen.locator("#replay-banner")).not_to_contain_text(f"event {moment} of")
    assert screen.locator(f"#token-{ids['Spy']}").count() == 0 or token_at(screen, ids["Spy"]) is not None

    gm.click("#replay-end")
    expect(screen.locator("body.replaying")).to_have_count(0)
    expect(screen.locator("#replay-banner")).to_be_hidden()
    expect(screen.locator(f"#token-{ids['Spy']}")).to_be_attached()
    for token, where in now.items():
        assert token_at(screen, token) == where, (token, where)
    assert screen.evaluate("parseInt(document.getElementById('live').dataset.seq, 10)") == after_roll
    assert head(server, game) == after_roll, "the replay stored nothing"
    # live updates flow again to the screen that replayed
    command(server, game, {"type": "move_token", "token_id": ids["Spy"], "x": 13, "y": 8, "force": True})
    expect(screen.locator(f"#token-{ids['Spy']}")).to_have_attribute("data-x", "13")


def test_a_players_replay_of_a_fogged_fight_holds_no_token_they_did_not_see_then(seeded_dice, server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Fogged replay", "system": "plain_grid"})
    assert status == 201, game
    mira = join(server, game, "Mira")
    command(server, game, {"type": "add_wall", "a": [10, 0], "b": [10, 16]})
    wall_id = state(server, game)["map"]["walls"][0]["id"]
    aria = add_token(server, game, "Aria", 3, 3, owner=mira["player_id"], kind="pc")
    ogre = add_token(server, game, "Ogre", 14, 3)
    command(server, game, {"type": "set_fog", "enabled": True})
    command(server, game, {"type": "start_combat", "token_ids": [aria, ogre]})
    # round 1: Aria and the Ogre move, the wall between them
    for _ in range(2):
        current = state(server, game)["combat"]["current"]
        x, y = positions(server, game)[current]
        command(server, game, {"type": "move_token", "token_id": current, "x": x + (1 if current == aria else -1),
                               "y": y, "force": True})
        command(server, game, {"type": "next_turn"})
    # round 2: the wall comes down, the Ogre comes into Aria's sight
    command(server, game, {"type": "remove_wall", "wall_id": wall_id})

    phone = new_page(**PHONE)
    frames: list[str] = []
    phone.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(
        payload if isinstance(payload, str) else payload.decode("utf-8", "replace"))))
    phone.goto(player_url(server, game, mira))
    expect(phone.locator("#conn.ok")).to_be_visible()
    expect(phone.locator(f"#token-{ogre}")).to_be_attached()  # the present: Mira sees the Ogre now

    phone.locator("#replay-details > summary").click()
    expect(phone.locator("#replay-timeline li").first).to_be_attached()
    texts = phone.locator("#replay-timeline li").all_inner_texts()
    assert texts and not any("Ogre" in t for t in texts), texts
    seen = len(frames)
    phone.locator("#replay-timeline li", has_text="Aria moves").first.locator("button").click()
    expect(phone.locator("body.replaying")).to_be_attached()
    expect(phone.locator("#replay-banner")).to_contain_text("Replay")
    replayed = [f for f in frames[seen:] if '"replay"' in f]
    assert replayed, "no replay frame reached the phone"
    for frame in replayed:
        assert ogre not in frame and "Ogre" not in frame, frame[:300]
    assert phone.locator(f"#token-{ogre}").count() == 0
    assert "Ogre" not in phone.content()
    assert phone.locator(f"#token-{aria}").count() == 1
    shot(phone, "replay-phone-fogged")

    # a player's replay is theirs: the table screen and the GM's screens are not theirs to steer
    status, reply = server.api("POST", f"/api/games/{game['id']}/commands",
                               {"type": "replay", "at": 1, "on": ["screen"]}, mira["player_token"])
    assert status == 422, reply

    phone.click("#replay-end")
    expect(phone.locator("body.replaying")).to_have_count(0)
    expect(phone.locator(f"#token-{ogre}")).to_be_attached()
    assert any(f.startswith('42["replay_end"') for f in frames), "the present came back as one fresh copy"
