"""Lights from the map (#27) in real Chromium: the GM darkens a map with a lamp in a room; the player's
fog closes to what their token sees (the lit room across the dark hall, not the foe in the dark hall),
and the table screen follows the same rule its fog follows (what the players together see)."""

from __future__ import annotations

from playwright.sync_api import expect

from test_live_table import open_table

HALL = {"width": 16, "height": 7, "walls": [{"a": [10, 0], "b": [10, 2]}, {"a": [10, 5], "b": [10, 7]}]}
LURKER = "Lurker-e2e"  # in the dark hall: seen in bright light, gone in the dark
SENTRY = "Sentry-e2e"  # in the lamp's room: seen in both


def test_the_gm_darkens_the_map_and_the_fog_closes_to_what_the_token_sees(server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Lights e2e", "system": "savage_worlds", "map": HALL})
    assert status == 201, game
    gm_key, gid = game["gm_token"], game["id"]

    def command(payload):
        status, body = server.api("POST", f"/api/games/{gid}/commands", payload, gm_key)
        assert status == 200, body

    def visible(token):
        return {tuple(c) for c in server.api("GET", f"/api/games/{gid}/state", token=token)[1]["fog"]["visible"]}

    gm, player, screen = open_table(server, game, new_page, screen_viewport={"width": 1920, "height": 1080})
    players = server.api("GET", f"/api/games/{gid}/state", token=gm_key)[1]["players"]
    mira = next(p["id"] for p in players if p["name"] == "Mira")
    server.api("POST", f"/api/games/{gid}/tokens", {"name": "Hero", "x": 1, "y": 3, "owner": mira, "kind": "pc"},
               gm_key)
    lurker = server.api("POST", f"/api/games/{gid}/tokens", {"name": LURKER, "x": 6, "y": 4}, gm_key)[1]["id"]
    sentry = server.api("POST", f"/api/games/{gid}/tokens", {"name": SENTRY, "x": 13, "y": 2}, gm_key)[1]["id"]
    command({"type": "set_fog", "enabled": True})
    command({"type": "add_light", "x": 13.5, "y": 3.5, "range": 3})

    # bright light: the hero sees down the hall and into the room
    for page in (player, screen):
        expect(page.locator(f"#token-{lurker}")).to_be_attached()
        expect(page.locator(f"#token-{sentry}")).to_be_attached()
    expect(gm.locator("#lighting-panel .light-row")).to_have_count(1)
    expect(gm.locator("#layer-lighting .light-range")).to_have_count(1)

    # the GM darkens the map from the lighting panel
    gm.click("#ambient-dark")
    expect(gm.locator("#ambient-dark")).to_have_attribute("aria-pressed", "true")
    expect(gm.locator("#layer-lighting[data-ambient=dark] path.light-shade")).to_be_attached()
    # the player's fog closes: the lurker in the dark hall is gone, the sentry in the lit room stays
    expect(player.locator(f"#token-{lurker}")).to_have_count(0)
    expect(player.locator(f"#token-{sentry}")).to_be_attached()
    expect(player.locator("#layer-lighting[data-ambient=dark]")).to_be_attached()
    expect(player.locator("#layer-fog path.fog-dim")).to_be_attached()  # the hall, seen before, dimmed now
    seen = visible(player.evaluate("document.getElementById('live').dataset.key"))
    assert (1, 3) in seen and (12, 3) in seen and (6, 4) not in seen and (9, 3) not in seen
    # the table screen follows its fog's rule: what the players together see
    expect(screen.locator(f"#token-{lurker}")).to_have_count(0)
    expect(screen.locator(f"#token-{sentry}")).to_be_attached()
    expect(screen.locator("#layer-lighting[data-ambient=dark]")).to_be_attached()
    assert visible(game["screen_token"]) == seen
    # the GM sees everything, with the unlit squares shaded
    expect(gm.locator(f"#token-{lurker}")).to_be_attached()

    player.wait_for_timeout(300)
    shot(gm, "lighting-gm")
    shot(player, "lighting-phone")
    shot(screen, "lighting-screen")

    # the hero lights a torch of 6 squares (the GM's token list): the lurker, 5.1 squares off, comes into view
    hero = _hero(server, gid, gm_key)
    gm.fill(f"#row-{hero} input[name=light]", "6")
    gm.click(f"#row-{hero} button:has-text('Save')")
    expect(player.locator(f"#token-{lurker}")).to_be_attached()
    expect(screen.locator(f"#token-{lurker}")).to_be_attached()
    shot(player, "lighting-phone-torch")

    # the GM takes the lamp away from the panel: the room goes dark and the sentry out of the phone's view
    gm.click("#lighting-panel .light-row button[aria-label^='Remove light']")
    expect(gm.locator("#lighting-panel .light-row")).to_have_count(0)
    expect(player.locator(f"#token-{sentry}")).to_have_count(0)
    # and puts a new one by the sentry with the panel's form
    form = gm.locator("#lighting-panel form.add-light")
    form.locator("input[name=x]").fill("12.5")
    form.locator("input[name=y]").fill("2.5")
    form.locator("input[name=range]").fill("2")
    form.locator("button[type=submit]").click()
    expect(gm.locator("#lighting-panel .light-row")).to_have_count(1)
    expect(player.locator(f"#token-{sentry}")).to_be_attached()
    expect(player.locator("#layer-lighting .light-source")).to_have_count(1)
    gm.locator("#lighting-panel").scroll_into_view_if_needed()
    shot(gm, "lighting-gm-panel")


def _hero(server, gid, gm_key):
    return next(t["id"] for t in server.api("GET", f"/api/games/{gid}/state", token=gm_key)[1]["tokens"]
                if t["name"] == "Hero")
