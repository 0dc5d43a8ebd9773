"""What the table screen announces (issue #33): an attack taken back with Undo does not bring the attack
before it up again as news."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.helpers import live_command as command

TV = {"width": 1920, "height": 1080}


def table(server, system="savage_worlds"):
    status, g = server.api("POST", "/api/games", {"name": "Harrow", "system": system, "map": {"width": 12, "height": 8}})
    assert status == 201, g
    ids = {}
    for name, x in (("Orc chief", 2), ("Grey wolf", 3), ("Cave troll", 4)):
        status, made = server.api("POST", f"/api/games/{g['id']}/tokens", {"name": name, "x": x, "y": 2}, g["gm_token"])
        assert status == 201, made
        ids[name] = made["id"]
    return g, ids


def test_undo_of_an_attack_does_not_show_the_attack_before_it_as_news(server, new_page, shot):
    g, ids = table(server)
    screen = new_page(viewport=TV)
    screen.goto(g["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    card = screen.locator("#result-card")
    first = command(server, g, {"type": "attack", "attacker": ids["Orc chief"], "target": ids["Grey wolf"], "force": True})
    expect(card).to_have_attribute("data-seq", str(first["seq"]))
    expect(card).to_have_class("result-card shown")
    second = command(server, g, {"type": "attack", "attacker": ids["Cave troll"], "target": ids["Grey wolf"], "force": True})
    expect(card).to_have_attribute("data-seq", str(second["seq"]))
    expect(card.locator(".result-who")).to_contain_text("Cave troll")
    command(server, g, {"type": "undo"})
    # the card now holds the orc's attack again, but it is not shown as if it had just happened
    expect(card).to_have_attribute("data-seq", str(first["seq"]))
    screen.wait_for_timeout(400)
    expect(card).not_to_have_class("result-card shown")
    assert not card.locator(".result-body").is_visible()
    shot(screen, "screen-after-undo-1920")
    # a new attack is news again (the troll's: the wolf, hit by the orc, may be Shaken, and the Shaken take no actions)
    third = command(server, g, {"type": "attack", "attacker": ids["Cave troll"], "target": ids["Grey wolf"], "force": True})
    expect(card).to_have_attribute("data-seq", str(third["seq"]))
    expect(card.locator(".result-body")).to_be_visible()
    expect(card.locator(".result-who")).to_contain_text("Cave troll")


def test_the_rolls_column_says_who_rolled_and_what_for_one_line_per_event(server, new_page, shot):
    g, ids = table(server)
    status, mira = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
    assert status == 201, mira
    screen = new_page(viewport=TV)
    screen.goto(g["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    command(server, g, {"type": "start_combat", "token_ids": list(ids.values())})
    command(server, g, {"type": "roll", "expr": "2d6"}, mira["player_token"])
    acting = server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])[1]["combat"]["current"]
    name = next(n for n, i in ids.items() if i == acting)
    command(server, g, {"type": "act", "token_id": acting, "action": "run"})  # the rules roll the running die
    rows = screen.locator("#screen-feed li")
    expect(rows.first).to_contain_text(f"{name} runs")
    expect(rows.first.locator(".dice")).to_contain_text("running die")  # the dice beside what they were for
    expect(rows.nth(1)).to_contain_text("Mira rolled 2d6")
    texts = rows.all_inner_texts()
    assert len(texts) == len({r.get_attribute("data-seq") for r in rows.all()}), texts  # one line per event
    # no line is a bare sub-roll ("running die: 1d6[1] = 1", "Wild Die: 1d6![(6+4)] = 10")
    assert not [t for t in texts if t.split(":")[0].lower() in ("running die", "wild die", "spirit die", "spirit")], texts
    shot(screen, "screen-rolls-column-1920")
