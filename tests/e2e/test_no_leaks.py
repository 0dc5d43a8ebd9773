"""Hidden information never reaches a player's browser or the table screen: everything they receive
(page HTML, every HTTP response body, every Socket.IO frame) is recorded while the GM plays with a
hidden token (moves, a drag preview), a secret roll, a foe's and another player's sheets; none of the
markers planted there may appear. Also the GM's Security card in a real browser."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from conftest import refused
from test_live_table import at, drag

HIDDEN = "Zorblax Quintrel"
PLACES = [(17, 13), (19, 11), (21, 9), (22, 14), (1, 2)]
SECRET_EXPR = "3d6+9173"
OLAF_NOTES = "olaf-private-7731"
OGRE_NOTES = "ogre-gm-notes-5519"
HIDDEN_CONDITION = "zorblax-condition-6620"
LAST_PUBLIC_ROLL = "1d4+7777"  # once the players' log shows it, everything before it has arrived


def leaks(text: str, hidden_id: str) -> list[str]:
    found = [m for m in (HIDDEN, "Zorblax", OLAF_NOTES, OGRE_NOTES, HIDDEN_CONDITION) if m in text]
    if re.search(r"(?<![\w-])9173(?![\w-])", text):  # the secret roll's number, not 4 characters of a random id or key
        found.append("9173")
    if re.search(rf'(token-{re.escape(hidden_id)}\\?"|\\?"{re.escape(hidden_id)}\\?")', text):
        found.append(f"the hidden token's id {hidden_id}")
    for x, y in PLACES:
        for pattern in (rf'data-x=\\?"{x}\\?" data-y=\\?"{y}\\?"', rf'\\?"x\\?": ?{x}, ?\\?"y\\?": ?{y}\b',
                        rf"\({x}, {y}\)", rf"translate\({x} {y}\)"):
            if re.search(pattern, text):
                found.append(f"the place ({x}, {y})")
    return found


class Recorder:
    """Everything one page receives: HTTP response bodies, Socket.IO frames, and (at the end) its HTML."""

    def __init__(self, page) -> None:
        self.page = page
        self.chunks: list[str] = []
        self.frames = 0
        page.on("response", self._response)
        page.on("websocket", self._websocket)

    def _response(self, response) -> None:
        try:
            body = response.body()
        except Exception:  # a redirect has no body to read
            return
        self.chunks.append(f"HTTP {response.url}\n" + body.decode("utf-8", "replace"))

    def _websocket(self, ws) -> None:
        def got(payload):
            self.frames += 1
            self.chunks.append("WS " + (payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload))

        ws.on("framereceived", got)

    def everything(self) -> list[str]:
        return [*self.chunks, "PAGE " + self.page.content()]


def test_a_player_and_the_table_screen_never_receive_what_is_hidden(server, new_page, shot):
    status, g = server.api("POST", "/api/games", {"name": "No leaks", "system": "gurps_lite"})
    assert status == 201, g
    gid, gm_key = g["id"], g["gm_token"]

    def api(payload):
        status, body = server.api("POST", f"/api/games/{gid}/commands", payload, gm_key)
        assert status == 200, (payload, body)
        return body

    def state(key=gm_key):
        return server.api("GET", f"/api/games/{gid}/state", token=key)[1]

    # the watchers: Mira's phone and the table screen, recorded from their first request
    player = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    mira_got = Recorder(player)
    player.goto(g["urls"]["join"])
    player.fill("input[name=name]", "Mira")
    player.click("button:has-text('Join')")
    expect(player.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen_got = Recorder(screen)
    screen.goto(g["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()

    mira_id = next(p["id"] for p in state()["players"] if p["name"] == "Mira")
    status, olaf = server.api("POST", f"/api/games/{gid}/players", {"join_code": g["join_code"], "name": "Olaf"})
    ids = {}
    for name, (x, y), owner, hidden in (("Aria", (1, 1), mira_id, False), ("Bruno", (3, 1), olaf["player_id"], False),
                                        ("Ogre", (6, 3), None, False), (HIDDEN, PLACES[0], None, True)):
        status, body = server.api("POST", f"/api/games/{gid}/tokens",
                                  {"name": name, "x": x, "y": y, "owner": owner, "hidden": hidden}, gm_key)
        assert status == 201, body
        ids[name] = body["id"]
    hid = ids[HIDDEN]
    for name, owner in (("Bruno", olaf["player_id"]), ("Ogre", None), (HIDDEN, None)):
        api({"type": "add_character", "name": name, "token_id": ids[name], "owner": owner})
    character = {c["token_id"]: c["id"] for c in state()["characters"]}
    api({"type": "update_sheet", "character_id": character[ids["Bruno"]], "changes": {"notes": OLAF_NOTES}})
    api({"type": "update_sheet", "character_id": character[ids["Ogre"]], "changes": {"notes": OGRE_NOTES}})
    api({"type": "update_sheet", "character_id": character[hid], "changes": {"conditions": [HIDDEN_CONDITION]}})

    # the GM drags the hidden token (previews, then the drop), and holds a drag over another square
    at(gm, hid, *PLACES[0]).to_be_visible()
    drag(gm, hid, PLACES[1])
    at(gm, hid, *PLACES[1]).to_be_visible()
    drag(gm, hid, PLACES[2], release=False)
    gm.wait_for_timeout(300)
    shot(gm, "no-leaks-gm-dragging-hidden")
    gm.mouse.move(*_cell(gm, PLACES[3]), steps=3)
    gm.mouse.up()
    at(gm, hid, *PLACES[3]).to_be_visible()
    ack = api({"type": "roll", "expr": SECRET_EXPR, "secret": True})
    assert "9173" in ack["text"]
    api({"type": "start_combat", "token_ids": [ids["Aria"], hid, ids["Ogre"]]})
    for _ in range(3):
        api({"type": "next_turn"})
    api({"type": "move_token", "token_id": hid, "x": 1, "y": 2, "force": True})
    api({"type": "attack", "attacker": hid, "target": ids["Aria"], "force": True})
    api({"type": "update_sheet", "character_id": character[hid], "changes": {"conditions": [HIDDEN_CONDITION, "stunned"]}})
    api({"type": "roll", "expr": LAST_PUBLIC_ROLL})
    expect(player.locator("#log")).to_contain_text("+7777")
    api({"type": "move_token", "token_id": ids["Ogre"], "x": 8, "y": 8, "force": True})
    at(screen, ids["Ogre"], 8, 8).to_be_attached()
    at(player, ids["Ogre"], 8, 8).to_be_attached()
    # what a script with Mira's key gets
    mira_key = player.locator("#live").get_attribute("data-key")
    mira_state = json.dumps(state(mira_key))
    screen_state = json.dumps(state(g["screen_token"]))
    assert "Aria" in mira_state and "Ogre" in screen_state
    shot(player, "no-leaks-player-phone")
    shot(screen, "no-leaks-table-screen")

    for who, chunks in (("Mira", mira_got.everything() + [mira_state]), ("the screen", screen_got.everything() + [screen_state])):
        assert any(c.startswith("WS ") for c in chunks), f"{who} received no Socket.IO frame: the recorder saw nothing"
        bad = [(found, c[:1500]) for c in chunks if (found := leaks(c, hid))]
        assert not bad, f"{who} received hidden information: {bad}"
    assert mira_got.frames > 10 and screen_got.frames > 5
    # the same recorder and checker find the markers in what the GM receives
    gm_page = gm.content()
    assert "Zorblax" in leaks(gm_page, hid) and leaks(json.dumps(state()), hid)


def _cell(page, xy):
    from test_live_table import cell_center

    return cell_center(page, *xy)


@pytest.mark.console_errors(refused(401, r"/games/\w+/gm/password"), why="a wrong GM password is refused")
def test_the_gm_security_card_password_and_new_screen_link(server, game, new_page, shot):
    gm = new_page()
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#join-banner.shown")).to_contain_text(game["join_code"])
    card = gm.locator("#security")
    card.scroll_into_view_if_needed()
    shot(gm, "security-card")
    # a new join code: the screen's banner shows it at once, the old one no longer joins
    gm.once("dialog", lambda d: d.accept())
    card.locator("#rotate-join").click()
    expect(gm.locator("#security-notice")).to_contain_text("New join code")
    new_code = server.api("POST", f"/api/games/{game['id']}/players",
                          {"join_code": game["join_code"], "name": "Late"})
    assert new_code[0] == 403
    expect(screen.locator("#join-banner .join-code")).not_to_have_text(game["join_code"])
    # a new table-screen link: the open screen is told and stops
    gm.once("dialog", lambda d: d.accept())
    gm.locator("#rotate-screen").click()
    expect(screen.locator("#flash.ended")).to_contain_text("new link")
    shot(screen, "screen-after-new-link")
    expect(gm.locator("#screen-link")).not_to_have_attribute("href", re.compile(re.escape(game["screen_token"])))
    # a password on the GM link: this browser stays in, a new one is asked for it
    gm.fill("#security input[name=password]", "swordfish")
    gm.fill("#security input[name=confirm]", "swordfish")
    gm.click("#set-password")
    expect(gm.locator("#conn.ok")).to_be_visible()
    expect(gm.locator("#password-state")).to_have_text("set")
    other = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    other.goto(game["urls"]["gm"])
    expect(other.locator("#gm-password")).to_be_visible()
    other.fill("#gm-password", "nope")
    other.click("#unlock")
    expect(other.locator("#password-error")).to_contain_text("not the GM password")
    shot(other, "gm-password-phone")
    other.fill("#gm-password", "swordfish")
    other.click("#unlock")
    expect(other.locator("#conn.ok")).to_be_visible()
