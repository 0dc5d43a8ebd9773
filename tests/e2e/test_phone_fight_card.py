"""A fight on a 390 px phone (issue #33): the page opens on the whole fight (its own token and the foes in
view, not zoomed on its own token alone), the turn card's folded groups show whether they are open, the
actions that are not buttons here read as links or as "not now" (no bare words among the buttons), and no
hint speaks of the Esc key."""

from __future__ import annotations

from playwright.sync_api import expect

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

#: whether an element lies wholly inside the map frame (half a pixel's leeway), as a JavaScript function
_INSIDE = """(el) => {
    const f = document.getElementById('map-frame').getBoundingClientRect(), r = el.getBoundingClientRect();
    return r.left >= f.left - 0.5 && r.right <= f.right + 0.5 && r.top >= f.top - 0.5 && r.bottom <= f.bottom + 0.5;
  }"""

#: the ids of those tokens whose disc is not wholly inside the map frame
IN_FRAME = f"""(ids) => {{
  const inside = {_INSIDE};
  return ids.filter((id) => !inside(document.querySelector('#token-' + id + ' .token-body')));
}}"""

#: the names and badge pills drawn beside the tokens (map.js layoutLabels) that are not wholly inside the map frame
LABELS_OUT_OF_FRAME = f"""() => {{
  const inside = {_INSIDE};
  return [...document.querySelectorAll('#layer-labels .label-pill, #layer-labels .badge-pill')]
    .filter((p) => p.getBoundingClientRect().width && !inside(p))
    .map((p) => p.parentNode.textContent.trim() + ' (' + p.closest('[data-for]').dataset.for + ')');
}}"""

#: how much of the map frame's height the map leaves empty (px; below 0: the map is taller, the frame scrolls)
BLANK_UNDER_THE_MAP = """() => {
  const f = document.getElementById('map-frame');
  return f.clientHeight - document.getElementById('map').getBoundingClientRect().height;
}"""


def setup(server, system, board, places):
    status, g = server.api("POST", "/api/games", {"name": "Harrow", "system": system, "map": board})
    assert status == 201, g
    status, mira = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
    ids = {}
    for name, (x, y) in places.items():
        body = {"name": name, "x": x, "y": y} | ({"owner": mira["player_id"], "kind": "pc"} if name == "Aria" else {})
        status, made = server.api("POST", f"/api/games/{g['id']}/tokens", body, g["gm_token"])
        assert status == 201, made
        ids[name] = made["id"]
    return g, mira, ids


def start_fight(server, g, ids):
    status, _ = server.api("POST", f"/api/games/{g['id']}/commands",
                           {"type": "start_combat", "token_ids": list(ids.values())}, g["gm_token"])
    assert status == 200


def open_phone(new_page, server, g, mira, device=PHONE):
    """Mira's page on a phone (or on ``device``: the page's options), connected."""
    phone = new_page(**device)
    phone.goto(f"{server.url}/games/{g['id']}/play?key={mira['player_token']}")
    expect(phone.locator("#conn.ok")).to_be_visible()
    return phone


def test_a_phone_opens_on_the_whole_fight(server, new_page, shot):
    g, mira, ids = setup(server, "savage_worlds", {"width": 24, "height": 16},
                         {"Aria": (2, 2), "Goblin": (13, 9), "Orc": (15, 11)})
    start_fight(server, g, ids)
    phone = open_phone(new_page, server, g, mira)
    phone.locator("#map-frame").scroll_into_view_if_needed()
    phone.wait_for_timeout(300)
    assert phone.evaluate(IN_FRAME, list(ids.values())) == []
    # and their names and badges ("3 Bennies" beside each): the Orc's, right of the rightmost token, were cut
    # off by the frame's edge when the view was worked out from the discs alone
    assert phone.locator("#layer-labels .badge-block").count() == 3  # (a Joker dealt adds a pill of its own)
    assert phone.evaluate(LABELS_OUT_OF_FRAME) == []
    # the frame is as tall as the map at that zoom (sized so by the page's style before the scripts ran): no blank
    # stretch of frame under the map
    assert abs(phone.evaluate(BLANK_UNDER_THE_MAP)) <= 2, phone.evaluate(BLANK_UNDER_THE_MAP)
    shot(phone, "phone-opens-on-the-fight")
    # a resize (the address bar coming back as the page scrolls) keeps that view, not the readable zoom
    zoom = phone.locator("#map-frame").get_attribute("data-zoom")
    phone.set_viewport_size({"width": 390, "height": 760})
    phone.wait_for_timeout(300)
    assert phone.locator("#map-frame").get_attribute("data-zoom") == zoom
    assert phone.evaluate(IN_FRAME, list(ids.values())) == []
    # the "me" button still goes to the player's own token, at readable squares
    phone.click("[data-zoom=mine]")
    assert phone.evaluate(IN_FRAME, [ids["Aria"]]) == []
    assert float(phone.locator("#map-frame").get_attribute("data-zoom")) > float(zoom)


def test_the_turn_cards_groups_show_open_or_closed_and_no_bare_words_sit_among_the_buttons(server, new_page, shot):
    g, mira, ids = setup(server, "tesseris_ads", {"width": 16, "height": 10}, {"Aria": (3, 3), "Ogre": (4, 3)})
    phone = open_phone(new_page, server, g, mira)
    command = lambda body: server.api("POST", f"/api/games/{g['id']}/commands", body, g["gm_token"])  # noqa: E731
    assert command({"type": "start_combat", "token_ids": [ids["Aria"], ids["Ogre"]]})[0] == 200
    for _ in range(6):
        if server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])[1]["combat"]["current"] == ids["Aria"]:
            break
        command({"type": "next_turn"})
    panel = phone.locator("#combat .turn-actions")
    expect(panel).to_be_visible()
    marks = panel.locator("details.action-group > summary").evaluate_all(
        "ss => ss.map((s) => [s.parentNode.open, getComputedStyle(s, '::before').content])")
    assert marks and all(m == ('"▾"' if is_open else '"▸"') for is_open, m in marks), marks
    attack = panel.locator("details.action-group.attack")
    attack.locator("summary").click()
    expect(attack).to_have_attribute("open", "")
    assert attack.locator("summary").evaluate("s => getComputedStyle(s, '::before').content") == '"▾"'
    # every action offered now is a button or a link; one not offered now says so by its look, not as a label
    bare = panel.locator("li").evaluate_all("""lis => lis.filter((li) => !li.querySelector('button, a, .not-now, .act-note'))
                                                      .map((li) => li.textContent.trim())""")
    assert bare == [], bare
    links = attack.locator("a.act-link")
    assert links.count() >= 1
    assert links.first.get_attribute("href") == "#attack-card"
    panel.scroll_into_view_if_needed()
    shot(phone, "phone-turn-card-groups")
    # the templates' hint speaks to a finger
    phone.locator("#place-template").scroll_into_view_if_needed()
    phone.click("#place-template")
    hint = phone.locator("#template-hint")
    expect(hint).to_be_visible()
    said = hint.inner_text()  # what is drawn (the words for a keyboard are not)
    assert "Esc" not in said and "Tap" in said, said
