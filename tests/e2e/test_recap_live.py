"""The recap in the browser (#36): the GM reads it and shows it on the table screen over the map until hiding it
(live); a player's phone reads theirs; the saved file opens from disk (file://) with no server and no script."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.helpers import live_command as command

TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}


def fought(server):
    """A Savage Worlds game with a player, her Hero and two foes, one fight of forced attacks, ended."""
    status, g = server.api("POST", "/api/games", {"name": "Harrow", "system": "savage_worlds",
                                                  "map": {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 5]}]}})
    assert status == 201, g
    status, mira = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
    assert status == 201, mira
    ids = {}
    for name, x, y, extra in (("Hero", 2, 2, {"owner": mira["player_id"], "kind": "pc"}), ("Orc chief", 3, 2, {}),
                              ("Grey wolf", 2, 3, {})):
        status, made = server.api("POST", f"/api/games/{g['id']}/tokens", {"name": name, "x": x, "y": y, **extra},
                                  g["gm_token"])
        assert status == 201, made
        ids[name] = made["id"]
    command(server, g, {"type": "start_combat", "token_ids": list(ids.values())})
    for attacker, target in (("Orc chief", "Hero"), ("Hero", "Orc chief"), ("Grey wolf", "Hero"), ("Hero", "Grey wolf")):
        # the server's dice are not seeded: a Shaken attacker is refused, and the fight goes on
        server.api("POST", f"/api/games/{g['id']}/commands",
                   {"type": "attack", "attacker": ids[attacker], "target": ids[target], "force": True}, g["gm_token"])
    command(server, g, {"type": "end_combat"})
    return g, mira, ids


def test_the_gm_shows_the_recap_on_the_table_screen_until_hiding_it(server, new_page, shot):
    g, _mira, _ids = fought(server)
    screen = new_page(viewport=TV)
    screen.goto(g["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    expect(screen.locator("#recap-screen")).to_be_hidden()
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_attached()
    gm.locator("#toggle-recap").click()
    story = screen.locator("#recap-screen .recap")
    expect(story).to_be_visible()
    expect(story.locator(".fight h3").first).to_contain_text("Hero fought")
    expect(story.locator(".fighters").first).to_contain_text("Orc chief")
    expect(story.locator(".fight img").first).to_have_js_property("complete", True)
    assert story.locator(".fight img").first.evaluate("i => i.naturalWidth") > 0
    expect(gm.locator("#toggle-recap")).to_have_attribute("aria-pressed", "true")
    shot(screen, "recap-on-table-screen-1920")
    gm.locator("#toggle-recap").click()
    expect(screen.locator("#recap-screen")).to_be_hidden()
    expect(screen.locator("#recap-screen .recap")).to_have_count(0)
    expect(gm.locator("#toggle-recap")).to_have_attribute("aria-pressed", "false")
    shot(screen, "recap-hidden-table-screen-1920")


def test_the_gm_and_a_phone_read_the_recap_and_the_saved_file_opens_from_disk(server, new_page, shot, tmp_path):
    g, mira, _ids = fought(server)
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    expect(gm.locator("#recap-link")).to_be_visible()
    gm.goto(server.url + f"/games/{g['id']}/recap")
    expect(gm.locator(".fight h3").first).to_contain_text("Hero fought")
    shot(gm, "recap-gm-1280")
    gm.emulate_media(media="print")
    expect(gm.locator(".recap-bar")).to_be_hidden()  # the print style sheet drops the page's bar
    gm.emulate_media(media="screen")

    saved = gm.request.get(server.url + f"/games/{g['id']}/recap?download=1")
    assert saved.ok and saved.headers["content-disposition"].startswith("attachment;")
    path = tmp_path / "recap.html"
    path.write_bytes(saved.body())
    server.kill()  # no server any more: the file stands alone
    offline = new_page()
    asked = []
    offline.on("request", lambda r: asked.append(r.url))
    offline.goto(path.as_uri())
    expect(offline.locator(".fight h3").first).to_contain_text("Hero fought")
    expect(offline.locator(".fighters").first).to_contain_text("Orc chief")
    for img in offline.locator(".fight img").all():
        assert img.evaluate("i => i.complete && i.naturalWidth > 0")
    assert offline.evaluate("document.scripts.length") == 0
    assert [u for u in asked if not u.startswith(("file:", "data:"))] == []
    shot(offline, "recap-saved-file-1280")


def test_a_phone_reads_the_recap_as_its_player_saw_it(server, new_page, shot):
    g, mira, ids = fought(server)
    phone = new_page(viewport=PHONE)
    phone.goto(server.url + f"/games/{g['id']}/play?key={mira['player_token']}")
    link = phone.locator("#recap-link")
    expect(link).to_be_visible()
    phone.goto(server.url + f"/games/{g['id']}/recap")
    expect(phone.locator(".recap")).to_have_attribute("data-audience", f"player:{mira['player_id']}")
    expect(phone.locator(".fight h3").first).to_contain_text("Hero fought")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the recap is {width} px wide on a {PHONE['width']} px phone"
    shot(phone, "recap-player-phone-390")
