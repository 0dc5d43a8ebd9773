"""A German phone (360 px) in a Phase/TN and an Atomic Tomorrow fight (issue #37): the turn bar's actions, their
costs, the phase line and the log read in German, and nothing the rules say sticks out of its box."""

from __future__ import annotations

import pytest

#: elements whose content is wider than their box while they let it show (a word that does not wrap)
OVERFLOWING = """(root) => [...document.querySelectorAll(root + ' *')].filter(e => {
  const s = getComputedStyle(e);
  if (s.display === 'none' || s.visibility === 'hidden' || e.closest('svg')) return false;
  const clipped = ['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX);
  return !clipped && e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0;
}).map(e => e.tagName + '.' + e.className + ': ' + e.textContent.trim().slice(0, 60))"""


def german_fight(server, system_id: str) -> tuple[dict, dict]:
    """A game with the player's PC and one foe in a fight, on the PC's turn (the GM passes the foe's)."""
    body = {"name": "Ruins", "system": system_id}
    if system_id != "atomic_tomorrow":
        body["map"] = {"width": 10, "height": 7, "walls": []}
    status, g = server.api("POST", "/api/games", body)
    assert status == 201, g
    _, p = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
    zoned = system_id == "atomic_tomorrow"
    ids = {}
    for name, cell, zone, owner in [("Hero", (2, 2), "west", p["player_id"]), ("Bandit", (5, 3), "east", None)]:
        where = {"zone": zone} if zoned else {"x": cell[0], "y": cell[1]}
        body = {"name": name, **where, **({"owner": owner, "kind": "pc"} if owner else {})}
        status, t = server.api("POST", f"/api/games/{g['id']}/tokens", body, g["gm_token"])
        assert status == 201, t
        ids[name] = t["id"]
    server.api("POST", f"/api/games/{g['id']}/commands", {"type": "start_combat", "token_ids": list(ids.values())},
               g["gm_token"])
    for _ in range(4):  # the foe's turn first: the GM passes it (no new action / next turn)
        _, state = server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])
        if (state.get("combat") or {}).get("current") == ids["Hero"]:
            break
        step = ({"type": "act", "token_id": ids["Bandit"], "action": "wait"} if system_id == "phase_tn"
                else {"type": "next_turn"})
        server.api("POST", f"/api/games/{g['id']}/commands", step, g["gm_token"])
    return g, p


def german_phone(server, new_page, g: dict, p: dict):
    """The player ``p``'s phone (360 px) on game ``g``, in German, its page up (``#live``)."""
    phone = new_page(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    phone.goto(f"{server.url}/games/{g['id']}/play?key={p['player_token']}&lang=de")
    phone.wait_for_selector("#live")
    return phone


@pytest.mark.parametrize("system_id, words", [
    ("phase_tn", ["Bewegen ansagen (dann die Figur ziehen)", "Keine neue Aktion in dieser Phase", "Phase 1 von 2"]),
    ("atomic_tomorrow", ["Schnelle Aktion", "Hauptaktion", "Bewegen (in der Zone oder in eine angrenzende Zone)"]),
])
def test_a_german_phone_reads_the_rules_words_and_nothing_sticks_out(server, new_page, shot, system_id, words):
    g, p = german_fight(server, system_id)
    phone = german_phone(server, new_page, g, p)
    page_text = phone.inner_text("body")
    for word in words:
        assert word in page_text, word
    for english in ("No new action this phase", "Declare a Move", "quick action", "significant action", "declarations"):
        assert english not in page_text, english
    shot(phone, f"i18n-rules-de-phone-360-{system_id}")
    bar = phone.locator("#turn-bar")
    if bar.count() and bar.is_visible():
        bar.scroll_into_view_if_needed()
        shot(phone, f"i18n-rules-de-phone-360-{system_id}-turn-bar")
    phone.get_by_text(words[0]).first.scroll_into_view_if_needed()  # the action list with the rules' words
    shot(phone, f"i18n-rules-de-phone-360-{system_id}-actions")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360, "the page fits the phone"
    assert phone.evaluate(OVERFLOWING, "#live") == [], "no word of the rules sticks out of its box"


@pytest.mark.parametrize("system_id", ["gurps_lite", "tesseris_ads", "phase_tn", "atomic_tomorrow"])
def test_the_german_gm_page_and_sheet_hold_the_rules_words(server, new_page, shot, system_id):
    """The GM's page (the fight, the action list, the editor's cover choices) on a laptop and a token's sheet on a
    390 px phone, in German: the rules' words fit their boxes."""
    g, _p = german_fight(server, system_id)
    gm = new_page(viewport={"width": 1366, "height": 900})
    gm.goto(f"{server.url}/games/{g['id']}/gm?key={g['gm_token']}&lang=de")
    gm.wait_for_selector("#combat")
    shot(gm, f"i18n-rules-de-gm-{system_id}")
    assert gm.evaluate("document.documentElement.scrollWidth") <= 1366
    assert gm.evaluate(OVERFLOWING, "#combat") == [], "the fight's words fit the GM's tracker"
    _, state = server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])
    hero = next(t["id"] for t in state["tokens"] if t["name"] == "Hero")
    sheet = new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    sheet.goto(f"{server.url}/games/{g['id']}/gm?key={g['gm_token']}&lang=de")
    sheet.goto(f"{server.url}/games/{g['id']}/tokens/{hero}/sheet")
    sheet.wait_for_selector(".sheet")
    shot(sheet, f"i18n-rules-de-sheet-390-{system_id}")
    assert sheet.evaluate("document.documentElement.scrollWidth") <= 390, "the sheet fits the phone"
    assert sheet.evaluate(OVERFLOWING, ".sheet") == [], "no word of the sheet sticks out"
