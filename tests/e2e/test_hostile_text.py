"""Script and markup typed into every text field a user can fill stay text on every page, live or not,
and our own pages run under the Content-Security-Policy without a single violation or console error.

Were a name ever put in a page unescaped, CSP would block its script, but the blocked attempt still
fires a `securitypolicyviolation` event: the test watches for those as well as for `window.__pwned`.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest import refused

# names are 40 characters at most: each payload fits, and each tries another way out
GAME = '<img src=x onerror="window.__pwned=1">'
PLAYER = "\"'><svg onload=window.__pwned=1>"
FOE = "<script>window.__pwned=1</script>"
RENAMED = "</title><img src=x onerror=__pwned=1>"
HIDDEN = "<b onclick=__pwned=1>&amp;</b>"
FULL = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>"\'><svg onload=window.__pwned=1>'
WEAPON = "<script>__pwned=1</script>Blade"
DICE = "<script>window.__pwned=1</script>"
SKILL = FOE + PLAYER  # a key of a sheet's table: 100 characters at most

WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(e.violatedDirective + " " + e.blockedURI);
  console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI + " " + e.sourceFile + ":" + e.lineNumber);
});
"""


class Watched:
    """A page with everything that must stay empty collected: console errors (CSP violations are
    logged there too), uncaught errors, failed responses."""

    def __init__(self, page, name: str) -> None:
        self.page, self.name = page, name
        self.errors: list[str] = []
        page.add_init_script(WATCH)
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))

    def check(self, where: str, expected_status: int | None = None) -> None:
        page = self.page
        assert page.evaluate("window.__pwned") is None, f"{self.name} {where}: a script of the user's ran"
        assert page.evaluate("window.__violations") == [], f"{self.name} {where}: CSP violations"
        errors = [e for e in self.errors
                  if not (expected_status and f"status of {expected_status}" in e)]
        assert errors == [], f"{self.name} {where}: console errors {errors}"
        self.errors.clear()
        # nothing the users typed became an element
        assert page.locator("script:not([src]):not([type='application/json'])").count() == 0, where
        assert page.locator("img[src='x'], b[onclick], svg[onload], [onerror]").count() == 0, where


def goto(w: Watched, url: str, expected_status: int = 200) -> None:
    r = w.page.goto(url)
    assert r.status == expected_status, f"{url}: {r.status}"
    w.page.wait_for_load_state("load")
    w.check(url, expected_status if expected_status >= 400 else None)


@pytest.mark.console_errors(refused(404, r"/games/\w+/tokens/nosuch/sheet"), refused(404, r"/no/\S+"),
                            refused(403, r"/games/\w+/gm"), refused(404, r"/join"),
                            why="the test opens error pages on purpose: no such token, no such page, a wrong key, no such game")
def test_hostile_text_in_every_field_stays_text_on_every_page(server, new_page, shot):
    gm = Watched(new_page(), "GM")

    # --- the GM creates the game from the lobby's plain form (a CSRF field, not a header) ---------
    goto(gm, server.url + "/")
    create = gm.page.locator("form[action='/games']")
    create.locator("input[name=name]").fill(GAME)
    create.locator("select[name=system]").select_option("savage_worlds")
    create.locator("button[type=submit]").click()
    expect(gm.page.locator("#conn.ok")).to_be_visible()
    expect(gm.page.locator(".game-name")).to_contain_text(GAME)
    game_id = re.search(r"/games/([^/]+)/gm", gm.page.url).group(1)
    gm_key = gm.page.locator("#live").get_attribute("data-key")
    code = gm.page.locator("#join-toggle .join-code").inner_text().strip()
    screen_url = server.url + gm.page.locator("#screen-link").get_attribute("href")
    gm.check("new game")

    # --- a player joins by the lobby's join form with a hostile name --------------------------------
    player = Watched(new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True), "player")
    goto(player, f"{server.url}/join?code={code}")
    player.page.locator("form[action='/join'] input[name=name]").fill(PLAYER)
    player.page.locator("form[action='/join'] button[type=submit]").click()
    expect(player.page.locator("#conn.ok")).to_be_visible()
    expect(player.page.locator(".game-name")).to_contain_text(GAME)
    expect(player.page.locator(".game-name small")).to_have_text(PLAYER)
    player.check("joined")

    screen = Watched(new_page(viewport={"width": 1280, "height": 720}), "screen")
    goto(screen, screen_url)
    expect(screen.page.locator("#conn.ok")).to_be_attached()
    expect(screen.page.locator(".screen-title")).to_contain_text(GAME)

    # the GM sees the player live, by name
    expect(gm.page.locator("#players .player-name")).to_have_text(PLAYER)

    # --- the GM adds two tokens with the panel's htmx form (CSRF header), one the player's ---------
    add = gm.page.locator("#add-token")
    for name, x, owner in ((FOE, 3, None), ("Hero", 1, PLAYER)):
        add.locator("input[name=name]").fill(name)
        if owner:
            add.locator("select[name=owner]").select_option(label=owner)
            add.locator("select[name=kind]").select_option("pc")
        add.locator("input[name=x]").fill(str(x))
        add.locator("input[name=y]").fill("1")
        add.locator("button[type=submit]").click()
        expect(gm.page.locator("#token-list .token-row input[name=name]").last).to_have_value(name)
    status, body = server.api("POST", f"/api/games/{game_id}/tokens",
                              {"name": HIDDEN, "x": 5, "y": 1, "hidden": True}, gm_key)
    assert status == 201
    hidden_id = body["id"]
    expect(gm.page.locator(f"#token-{hidden_id}")).to_have_attribute("data-name", HIDDEN)
    tokens = gm.page.evaluate("""() => Object.fromEntries(Array.from(document.querySelectorAll('g.token'))
                                   .map((g) => [g.dataset.name, g.dataset.tokenId]))""")
    foe_id, hero_id = tokens[FOE], tokens["Hero"]
    for w in (gm, player, screen):
        expect(w.page.locator(f"#token-{foe_id} .token-label")).to_have_text(FOE)
        w.check("tokens added")
    expect(player.page.locator(f"#token-{hidden_id}")).to_have_count(0)
    expect(player.page.locator("#my-tokens")).to_contain_text("Hero")

    # --- a rename, live on every screen ------------------------------------------------------------
    row = gm.page.locator(f"#row-{foe_id}")
    row.locator("input[name=name]").fill(RENAMED)
    row.locator("button", has_text="Save").click()
    for w in (gm, player, screen):
        expect(w.page.locator(f"#token-{foe_id} .token-label")).to_have_text(RENAMED)
        expect(w.page.locator(f"#token-{foe_id} title")).to_have_text(RENAMED)
    expect(gm.page.locator("#log")).to_contain_text(f"{FOE} was added")

    # --- the player's character: made by the GM, edited by the player on the sheet page (htmx) ----
    gm_sheet = Watched(gm.page.context.new_page(), "GM sheet")  # only the GM puts a character on a token
    goto(gm_sheet, f"{server.url}/games/{game_id}/tokens/{hero_id}/sheet")
    gm_sheet.page.click("button:has-text(\"Make Hero's character\")")
    expect(gm_sheet.page.locator("summary", has_text="Edit the sheet")).to_be_visible()
    gm_sheet.check("character made")
    gm_sheet.page.close()
    sheet = Watched(player.page.context.new_page(), "player sheet")
    goto(sheet, f"{server.url}/games/{game_id}/tokens/{hero_id}/sheet")
    sheet.page.click("summary:has-text('Edit the sheet')")
    form = sheet.page.locator("form.sheet-form")
    form.locator("input[name=name]").fill(FULL)
    form.locator("input[name=group]").fill(FOE)
    weapons = form.locator('fieldset[data-rows="weapons"]')
    weapons.locator("[data-add-row]").click()
    weapon = weapons.locator(".rows-list > [data-row]").last
    weapon.locator("input[name$='[name]']").fill(WEAPON)
    weapon.locator("input[name$='[damage]']").fill("2d6")
    weapon.locator("input[name$='[range]']").fill("12/24/48")
    skills = form.locator('fieldset[data-rows="skills"]')
    skills.locator("[data-add-row]").click()
    skill = skills.locator(".rows-list > [data-row]").last
    skill.locator("input[name$='[name]']").fill(SKILL)
    skill.locator("select[name$='[die]']").select_option("d6")
    form.locator("button[type=submit]").click()
    expect(sheet.page.locator("#sheet-body .flash-inline.ok")).to_have_text("Saved.")
    expect(sheet.page.locator("#sheet-body")).to_contain_text(WEAPON)
    expect(form.locator("input[name=name]")).to_have_value(FULL)
    sheet.check("sheet saved")
    goto(sheet, f"{server.url}/games/{game_id}/tokens/{hero_id}/sheet")
    expect(sheet.page.locator("#sheet-body")).to_contain_text(WEAPON)
    shot(sheet.page, "hostile-sheet")
    sheet.page.close()

    # --- a preview of the player's attack with the hostile weapon (server HTML into the card) ------
    player.page.reload()
    expect(player.page.locator("#conn.ok")).to_be_visible()
    attack = player.page.locator("#attack-form")
    attack.locator("select[name=weapon]").select_option(label=WEAPON)
    attack.locator("select[name=target]").select_option(foe_id)
    attack.locator("button[data-attack=preview_attack]").click()
    expect(player.page.locator("#attack-preview")).to_contain_text(RENAMED)
    player.check("attack preview")

    # --- dice: a hostile expression is refused in words; a real roll lands in every log -----------
    roller = player.page.locator("#roller form")
    roller.locator("input[name=expr]").fill(DICE)
    roller.locator("button[type=submit]").click()
    expect(player.page.locator("#flash.shown")).to_contain_text(DICE)
    roller.locator("input[name=expr]").fill("2d6")
    roller.locator("button[type=submit]").click()
    expect(gm.page.locator("#log")).to_contain_text(PLAYER)
    expect(gm.page.locator("#log")).to_contain_text("2d6")
    player.check("rolled")

    # --- every page once more from the start: full renders, not only live fragments ----------------
    goto(gm, f"{server.url}/games/{game_id}/gm")
    expect(gm.page.locator(f"#row-{hidden_id} input[name=name]")).to_have_value(HIDDEN)
    expect(gm.page.locator("#players .player-name")).to_have_text(PLAYER)
    expect(gm.page.locator("#log")).to_contain_text(f"{HIDDEN} was added")
    expect(gm.page.locator("#log")).to_contain_text(f"{PLAYER} joined")
    shot(gm.page, "hostile-gm")
    goto(gm, f"{server.url}/games/{game_id}/tokens/{hero_id}/sheet")
    expect(gm.page.locator("#sheet-body")).to_contain_text(WEAPON)
    expect(gm.page.locator("form.sheet-form input[name=name]")).to_have_value(FULL)
    names = gm.page.locator("form.sheet-form input[name^='skills['][name$='[name]']")
    assert SKILL in names.evaluate_all("boxes => boxes.map((b) => b.value)")
    goto(gm, server.url + "/")
    expect(gm.page.locator(".game-rows")).to_contain_text(GAME)
    goto(player, server.url + "/")
    expect(player.page.locator("#seats")).to_contain_text(GAME)
    expect(player.page.locator("#seats")).to_contain_text(PLAYER)
    goto(player, f"{server.url}/join?code={DICE}")
    goto(player, f"{server.url}/games/{game_id}/play")
    expect(player.page.locator("#my-tokens")).to_contain_text("Hero")
    shot(player.page, "hostile-player")
    goto(screen, f"{server.url}/games/{game_id}/screen")
    expect(screen.page.locator(f"#token-{foe_id} .token-label")).to_have_text(RENAMED)
    shot(screen.page, "hostile-screen")
    goto(gm, server.url + "/help/")
    goto(gm, server.url + "/help/savage_worlds")
    goto(gm, f"{server.url}/games/{game_id}/tokens/nosuch/sheet", 404)
    expect(gm.page.locator("#back-link")).to_have_text("Back to your game")
    goto(gm, server.url + "/no/" + "%3Cscript%3Ewindow.__pwned=1%3C/script%3E", 404)
    goto(player, f"{server.url}/games/{game_id}/gm", 403)
    # a join with a wrong code answers with the lobby, the typed name kept as text
    goto(player, server.url + "/")
    join_form = player.page.locator("form[action='/join']")
    join_form.locator("input[name=code]").fill("ZZZZZZ")
    join_form.locator("input[name=name]").fill(FOE)
    join_form.locator("button[type=submit]").click()
    expect(player.page.locator(".flash.error")).to_have_text("No game has that join code.")
    expect(join_form.locator("input[name=name]")).to_have_value(FOE)
    player.check("refused join", 404)


def test_a_websocket_from_another_sites_page_is_refused_and_ours_connects(server, game):
    """Over a real websocket (no polling first): the Origin a browser sends decides."""
    import socketio

    auth = {"game": game["id"], "token": game["gm_token"]}

    def connect(origin):
        client = socketio.Client(reconnection=False, websocket_extra_options={"origin": origin})
        try:
            client.connect(server.url, transports=["websocket"], auth=auth, wait_timeout=5)
            return client.connected
        except socketio.exceptions.ConnectionError:
            return False
        finally:
            client.disconnect()

    assert connect("http://evil.example") is False
    assert connect(server.url.replace("127.0.0.1", "localhost")) is False  # another host name, another origin
    assert connect(server.url) is True
    assert connect(None) is True  # websocket-client's own Origin: the URL it connects to


@pytest.mark.console_errors(refused(400, "/games"), refused(400, r"/games/\w+/commands"),
                            r"^Response Status Error Code 400 from /games/\w+/commands, \[object HTMLFormElement\]",
                            why="forms sent without their token or with a stale one are refused with a 400, as the test asks")
def test_a_form_that_lost_its_token_gets_a_clear_refusal_and_changes_nothing(server, game, new_page, shot):
    """What a user sees when a CSRF check fails (as a forged post from another site would)."""
    page = new_page()
    page.goto(server.url + "/")
    create = page.locator("form[action='/games']")
    create.locator("input[name=name]").fill("Never made")
    page.evaluate("document.querySelector(\"form[action='/games'] input[name=csrf_token]\").remove()")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        create.locator("button[type=submit]").click()
    assert answer.value.status == 400
    expect(page.locator(".error-page h1")).to_have_text("That request was not understood")
    expect(page.locator(".error-page")).to_contain_text("Reload the page and try again")
    shot(page, "csrf-refused")
    page.goto(server.url + "/")
    expect(page.locator(".game-rows")).not_to_contain_text("Never made")

    # an htmx form on the GM's page with a stale token: the refusal is a message, the token keeps its name
    page.goto(game["urls"]["gm"])
    expect(page.locator("#conn.ok")).to_be_visible()
    page.evaluate("document.querySelector('meta[name=csrf-token]').content = 'stale'")
    add = page.locator("#add-token")
    add.locator("input[name=name]").fill("Intruder")
    add.locator("button[type=submit]").click()
    expect(page.locator("#flash.error.shown")).to_contain_text("Reload the page and try again")
    page.reload()
    expect(page.locator("#conn.ok")).to_be_visible()
    expect(page.locator("#token-list")).not_to_contain_text("Intruder")


def test_hostile_zone_names_and_a_hostile_game_from_the_api_stay_text(server, new_page, shot):
    """A zone map sent through the JSON API (zone names, game name, token name) shown on the GM's page
    and the table screen: the SVG map is markup too."""
    zones = [{"id": "dock", "name": FOE, "adjacent": ["bay"]}, {"id": "bay", "name": PLAYER, "cover": "light"}]
    status, g = server.api("POST", "/api/games", {"name": RENAMED, "system": "atomic_tomorrow",
                                                  "map": {"zones": zones}})
    assert status == 201, g
    status, body = server.api("POST", f"/api/games/{g['id']}/tokens", {"name": GAME, "zone": "dock"},
                              g["gm_token"])
    assert status == 201, body
    gm = Watched(new_page(), "GM")
    goto(gm, g["urls"]["gm"])
    screen = Watched(new_page(viewport={"width": 1920, "height": 1080}), "screen")
    goto(screen, g["urls"]["screen"])
    for w in (gm, screen):
        expect(w.page.locator("#conn.ok")).to_be_attached()
        expect(w.page.locator("#map .zone[data-zone=dock] .zone-name")).to_have_text(FOE)
        expect(w.page.locator("#map .zone[data-zone=bay] .zone-name")).to_have_text(PLAYER)
        expect(w.page.locator(f"#token-{body['id']} .token-label")).to_have_text(GAME)
        w.check("zone map")
    expect(screen.page.locator(".screen-title")).to_contain_text(RENAMED)
    shot(screen.page, "hostile-zones-screen")
