"""Whose turn it is, read at the table (issue #24): a phone says "Your turn" at its top with End my turn in
reach, a long Tesseris list comes in groups, a player who attacked sees the result; the table screen's
badges are large and apart, its result card beside the map, its rolls and its waits for a defense
shown; an attack with "No defense" as its only choice asks nobody. Real Chromium, real server."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from test_table_screens import PHONE, add_token, join, label_boxes, overlaps, player_url
from tests.helpers import live_command as command

SCREEN = {"width": 1920, "height": 1080}
BIG_MAP = {"width": 30, "height": 20}


@pytest.fixture
def seeded_dice(monkeypatch):
    """Seeded dice on the server started after this fixture (it inherits the environment)."""
    monkeypatch.setenv("TACMAP_DICE_SEED", "24")


def new_game(server, system: str, board: dict | None = None, name: str = "Turns") -> dict:
    status, body = server.api("POST", "/api/games", {"name": name, "system": system, **({"map": board} if board else {})})
    assert status == 201, body
    return body


def state(server, game: dict) -> dict:
    return server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1]


def open_phone(new_page, server, game: dict, player: dict):
    """The player's phone, at the LAN name a phone reaches the laptop by: not a secure context, as at a real table."""
    phone = new_page(**PHONE)
    phone.goto(player_url(server, game, player).replace(server.url, server.lan_url, 1))
    assert phone.evaluate("window.isSecureContext") is False
    expect(phone.locator("#conn.ok")).to_be_visible()
    return phone


def open_screen(new_page, game: dict):
    screen = new_page(viewport=SCREEN)
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    return screen


def turn_to(server, game: dict, token_id: str) -> None:
    """The GM passes turns until it is this token's."""
    for _ in range(12):
        if state(server, game)["combat"]["current"] == token_id:
            return
        command(server, game, {"type": "next_turn"})
    raise AssertionError("the token's turn never came")


def box(page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


# --- 1. whose turn it is, on a phone ----------------------------------------------------------


def test_a_phone_says_your_turn_at_its_top_while_scrolling_and_not_once_the_turn_passes(server, new_page, shot):
    game = new_game(server, "plain_grid")
    mira = join(server, game, "Mira")
    aria = add_token(server, game, "Aria", 3, 3, owner=mira["player_id"], kind="pc")
    ogre = add_token(server, game, "Ogre", 6, 3)
    phone = open_phone(new_page, server, game, mira)
    expect(phone.locator("#turn-bar")).to_be_hidden()  # no fight: no bar
    command(server, game, {"type": "start_combat", "token_ids": [aria, ogre]})  # the GM's order: Aria first

    bar = phone.locator("#turn-bar")
    expect(bar).to_contain_text("Your turn")
    expect(bar.locator("button", has_text="End my turn")).to_be_visible()
    phone.evaluate("window.scrollTo(0, 0)")
    top = bar.bounding_box()
    assert top["y"] >= 0 and top["y"] + top["height"] <= 320, top
    shot(phone, "phone-my-turn")
    # sticky: scrolled down to the fight card and the log, it is still at the top of the glass
    phone.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert phone.evaluate("window.scrollY") > 500, "the page is long enough to scroll"
    scrolled = bar.bounding_box()
    assert scrolled["y"] >= 0 and scrolled["y"] + scrolled["height"] <= 320, scrolled
    expect(bar.get_by_text("Your turn")).to_be_in_viewport()
    shot(phone, "phone-my-turn-scrolled")

    # the acting ring is not the "mine" ring: another colour, wider, and it turns
    ring = phone.locator(f"#token-{aria} .acting-ring")
    expect(ring).to_be_attached()
    look = ring.evaluate("""r => { const s = getComputedStyle(r);
        const mine = getComputedStyle(r.parentNode.querySelector('.token-body'));
        return {ring: s.stroke, mine: mine.stroke, ringWidth: parseFloat(s.strokeWidth), mineWidth: parseFloat(mine.strokeWidth),
                offset: s.strokeDashoffset}; }""")
    assert look["ring"] != look["mine"] and look["ringWidth"] > look["mineWidth"], look
    expect(ring).not_to_have_css("stroke-dashoffset", look["offset"])  # it turns
    expect(phone.locator(f"#token-{ogre} .acting-ring")).to_have_count(0)

    # the turn passes from the bar's own button: the bar goes, and the ring moves to the ogre
    phone.evaluate("window.scrollTo(0, 0)")
    bar.locator("button", has_text="End my turn").click()
    expect(phone.locator("#combat li.current")).to_contain_text("Ogre")
    expect(bar).to_be_hidden()
    expect(phone.get_by_text("Your turn")).to_have_count(0)
    expect(phone.locator(f"#token-{ogre} .acting-ring")).to_be_attached()
    shot(phone, "phone-off-turn")
    # and comes back with the next round
    command(server, game, {"type": "next_turn"})
    expect(bar).to_contain_text("Your turn")


def test_on_a_tesseris_turn_end_my_turn_is_in_view_the_actions_are_grouped_and_an_attack_shows_its_result(
        seeded_dice, server, new_page, shot):
    game = new_game(server, "tesseris_ads", {"width": 16, "height": 10}, name="Tesseris turn")
    mira = join(server, game, "Mira")
    aria = add_token(server, game, "Aria", 3, 3, owner=mira["player_id"], kind="pc")
    ogre = add_token(server, game, "Ogre", 4, 3)
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "start_combat", "token_ids": [aria, ogre]})
    turn_to(server, game, aria)
    bar = phone.locator("#turn-bar")
    expect(bar).to_contain_text("Your turn")

    # End my turn is on the glass without scrolling, and stays there at the bottom of the page
    phone.evaluate("window.scrollTo(0, 0)")
    end = bar.locator("button", has_text="End my turn")
    expect(end).to_be_in_viewport(ratio=1)
    b = end.bounding_box()
    assert b["y"] >= 0 and b["y"] + b["height"] <= 844 and b["height"] >= 44, b
    phone.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    expect(end).to_be_in_viewport(ratio=1)
    # the usual actions are in the bar (the attack card and the map are a tap away)
    expect(bar.locator("a", has_text="Attack")).to_have_attribute("href", "#attack-card")
    expect(bar.locator("a", has_text="Move")).to_have_attribute("href", "#map-frame")
    expect(bar.locator("button", has_text="Aim or Focus")).to_be_visible()

    # the ~70 actions: the usual ones open first, then move, attack, defend... folded
    panel = phone.locator("#combat .turn-actions")
    groups = panel.locator("details.action-group")
    keys = groups.evaluate_all("ds => ds.map(d => [d.dataset.group, d.open, d.querySelectorAll('li').length])")
    assert keys[0][0] == "usual" and keys[0][1] and 3 <= keys[0][2] <= 8, keys
    assert {"move", "attack", "defense", "other"} <= {k for k, _, _ in keys}
    assert not any(is_open for _, is_open, _ in keys[1:]), keys
    assert sum(n for _, _, n in keys) > 60
    panel.scroll_into_view_if_needed()
    assert panel.bounding_box()["height"] < 844, "the folded list is shorter than the screen"
    phone.evaluate("window.scrollTo(0, 0)")
    shot(phone, "phone-tesseris-turn")
    # a folded group opens with a tap and shows its actions
    attack = panel.locator("details.action-group.attack")
    attack.locator("summary").click()
    expect(attack.locator("li", has_text="Precision Strike")).to_be_visible()

    # the player attacks from the attack card: the phone shows the result card, not only the log line
    bar.locator("a", has_text="Attack").click()
    form = phone.locator("#attack-form")
    form.locator("select[name=target]").select_option(ogre)
    index = form.locator("select[name=weapon]").evaluate(
        "(s, who) => [...s.options].findIndex((o) => o.dataset.attacker === who && o.value === 'knife')", aria)
    form.locator("select[name=weapon]").select_option(index=index)
    form.locator("button[data-attack=attack]").click()
    card = phone.locator("#result-card.shown")
    expect(card).to_be_visible()
    expect(card.locator(".result-verdict")).to_have_text(re.compile(r"^(HIT|MISS)$"))
    expect(card).to_contain_text("Aria → Ogre")
    expect(card).to_be_in_viewport()
    phone.wait_for_timeout(500)  # the card's slide-in, for the picture
    shot(phone, "phone-attack-result")
    card.click()  # tapped away
    expect(phone.locator("#result-card.shown")).to_have_count(0)


# --- 3. the table screen where the fighting is ---------------------------------------------------

MELEE = [("Aria", 10, 8), ("Goblin 1", 11, 8), ("Goblin 2", 12, 8), ("Brann", 10, 9), ("Goblin 3", 11, 9),
         ("Cyra", 12, 9), ("Goblin 4", 11, 10)]
PCS = {"Aria", "Brann", "Cyra"}
#: each token's badges as one box on the screen: the union of its pills' rendered boxes
BLOCK_BOXES = """gs => gs.map(g => {
    const b = [...g.querySelectorAll('.badge-pill')].map(p => p.getBoundingClientRect());
    const x = Math.min(...b.map(r => r.left)), y = Math.min(...b.map(r => r.top));
    return {for: g.dataset.for, x: x, y: y, width: Math.max(...b.map(r => r.right)) - x,
            height: Math.max(...b.map(r => r.bottom)) - y}; })"""


def test_the_table_screen_in_a_melee_badges_large_and_apart_result_beside_the_map_rolls_and_waits_shown(
        seeded_dice, server, new_page, shot):
    game = new_game(server, "tesseris_ads", BIG_MAP, name="The melee at the ford")
    mira = join(server, game, "Mira")
    ids = {name: add_token(server, game, name, x, y, **({"owner": mira["player_id"], "kind": "pc"} if name in PCS else {}))
           for name, x, y in MELEE}
    screen = open_screen(new_page, game)
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "start_combat", "token_ids": list(ids.values())})
    expect(screen.locator("#combat .turn-order li")).to_have_count(len(MELEE))
    # every fighter shows its ticks: a badge beside each token
    expect(screen.locator("#layer-labels .badge-block")).to_have_count(len(MELEE))

    # badges at least 18 px tall on a 1080p screen, on a 30 x 20 map
    heights = screen.locator("#layer-labels .badge-pill").evaluate_all(
        "rs => rs.map(r => r.getBoundingClientRect().height)")
    assert heights and min(heights) >= 18, heights
    # pushed clear of each other (the tokens stand on neighbouring squares) and of the names
    blocks = screen.locator("#layer-labels .badge-block").evaluate_all(BLOCK_BOXES)
    by_token = {b["for"]: b for b in blocks}
    assert not overlaps(by_token[ids["Aria"]], by_token[ids["Goblin 1"]], slack=0)  # neighbours
    clashes = [(a["for"], b["for"]) for i, a in enumerate(blocks) for b in blocks[i + 1:] if overlaps(a, b, slack=0)]
    assert clashes == []
    names = label_boxes(screen)
    assert len(names) == len(MELEE) and all(n["width"] > 0 for n in names), names
    assert [b["for"] for b in blocks for n in names if overlaps(b, n, slack=0)] == []
    frame = box(screen, "#map-frame")
    for b in blocks:
        assert frame["x"] <= b["x"] and b["x"] + b["width"] <= frame["x"] + frame["width"] + 0.5

    # a public roll from a phone appears on the table screen; a secret one does not
    phone.fill("#roller input[name=expr]", "2d6+3")
    phone.click("#roller button:has-text('Roll')")
    expect(screen.locator("#screen-feed li.newest")).to_contain_text("Mira rolled 2d6+3")
    phone.fill("#roller input[name=expr]", "1d20")
    phone.check("#roller input[name=secret]")
    phone.click("#roller button:has-text('Roll')")
    expect(phone.locator("#flash")).to_contain_text("You rolled")
    expect(screen.locator("#screen-feed")).not_to_contain_text("1d20")
    phone.uncheck("#roller input[name=secret]")

    # the GM's goblin attacks Mira's Aria: the table sees whose defense it waits for
    command(server, game, {"type": "attack", "attacker": ids["Goblin 1"], "target": ids["Aria"], "weapon": "knife"})
    wait = screen.locator("#defense-prompt")
    expect(wait).to_be_visible()
    expect(wait).to_contain_text(re.compile(r"waiting for Mira's defense", re.I))
    expect(wait.locator("button")).to_have_count(0)  # the table does not choose
    assert not overlaps(wait.bounding_box(), frame, slack=0), "the wait is beside the map"
    shot(screen, "screen-melee-waiting")
    phone.locator("#defense-prompt.asking button[data-defense]:enabled").first.click()
    expect(wait).to_be_hidden()

    # the result card is beside the map: it covers no token
    card = screen.locator("#result-card.shown .result-body")
    expect(card).to_be_visible()
    expect(card).to_contain_text("Goblin 1 → Aria")
    c = card.bounding_box()
    tokens = screen.locator("#layer-tokens .token")
    covered = [tokens.nth(i).get_attribute("data-name") for i in range(tokens.count())
               if overlaps(c, tokens.nth(i).bounding_box(), slack=0)]
    assert covered == []
    assert not overlaps(c, frame, slack=0)
    expect(screen.locator("#screen-feed li.newest")).to_contain_text("Goblin 1")  # the attack's line too
    # the acting token's ring on the table screen: fuchsia, not a player's yellow
    current = state(server, game)["combat"]["current"]
    ring = screen.locator(f"#token-{current} .acting-ring")
    expect(ring).to_be_attached()
    assert ring.evaluate("r => getComputedStyle(r).stroke") == "rgb(192, 38, 211)"
    screen.wait_for_timeout(500)  # the card's slide-in, for the picture
    shot(screen, "screen-melee-result")


def test_an_attack_whose_only_defense_is_none_is_rolled_with_no_prompt_anywhere(seeded_dice, server, new_page, shot):
    game = new_game(server, "gurps_lite", BIG_MAP, name="No defense")
    mira = join(server, game, "Mira")
    hero = add_token(server, game, "Hero", 5, 5, owner=mira["player_id"], kind="pc")
    brute = add_token(server, game, "Brute", 6, 5)
    import rules  # the sheet as the rules make it, out cold: no active defense is left
    sheet = {**rules.get("gurps_lite").default_sheet(), "conditions": ["unconscious"]}
    command(server, game, {"type": "add_character", "name": "Hero", "token_id": hero, "sheet": sheet})
    screen = open_screen(new_page, game)
    phone = open_phone(new_page, server, game, mira)
    gm = new_page()
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    watch = """() => { window.__asked = false; const p = document.getElementById('defense-prompt');
        new MutationObserver(() => { const q = document.getElementById('defense-prompt');
          if (q && !q.hidden) window.__asked = true; }).observe(document.body, {subtree: true, childList: true, attributes: true});
        return p ? p.hidden : null; }"""
    for page in (screen, phone, gm):
        assert page.evaluate(watch) is True  # nothing waits now
    # the GM attacks the out-cold Hero from the attack card
    form = gm.locator("#attack-form")
    form.locator("select[name=attacker]").select_option(brute)
    form.locator("select[name=target]").select_option(hero)
    index = form.locator("select[name=weapon]").evaluate(
        "(s, who) => [...s.options].findIndex((o) => o.dataset.attacker === who && o.value === 'Broadsword')", brute)
    form.locator("select[name=weapon]").select_option(index=index)
    form.locator("button[data-attack=attack]").click()
    # rolled at once: the result on the screen and on Mira's phone, nobody was asked
    expect(screen.locator("#result-card.shown")).to_contain_text("Brute → Hero")
    expect(phone.locator("#result-card.shown")).to_contain_text("Brute → Hero")
    expect(gm.locator("#log li.attack")).to_have_count(1)
    for page in (screen, phone, gm):
        expect(page.locator("#defense-prompt")).to_be_hidden()
        assert page.evaluate("window.__asked") is False
    assert state(server, game)["pending_defense"] is None
    assert not any("waiting for" in e["text"] for e in state(server, game)["log"])
