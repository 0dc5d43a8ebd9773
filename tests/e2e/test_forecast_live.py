"""The GM's forecast on the GM page (#68): a Savage Worlds encounter prepared on a map the players do not see yet is
forecast from the card, the figures fill in under a progress bar; a foe taken out and forecast again, the two side by
side; then the map is shown, the fight runs two rounds and is forecast from here. Nothing of it reaches the phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

import rules

from test_accessibility import Findings, heading_skips


pytestmark = pytest.mark.long  # a whole fight or more: run first (tests/conftest.py)

def _encounter(server):
    """Ann and Bob (Mira's) on the map everyone sees; the Orc, the Imp and the Ogre on a second map, prepared."""
    status, g = server.api("POST", "/api/games", {"name": "Crypt night", "system": "savage_worlds",
                                                  "map": {"width": 12, "height": 8}})
    assert status == 201, g
    _, mira = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})

    def command(body):
        status, answer = server.api("POST", f"/api/games/{g['id']}/commands", body, g["gm_token"])
        assert status == 200, (body, answer)
        return answer

    def fighter(name, x, y, owner=None):
        status, body = server.api("POST", f"/api/games/{g['id']}/tokens",
                                  {"name": name, "x": x, "y": y, **({"owner": owner, "kind": "pc"} if owner else {})},
                                  g["gm_token"])
        assert status == 201, body
        command({"type": "add_character", "name": name, "token_id": body["id"],
                 "sheet": {**rules.get("savage_worlds").default_sheet(), "name": name}})
        return body["id"]

    ids = {"Ann": fighter("Ann", 1, 2, mira["player_id"]), "Bob": fighter("Bob", 1, 5, mira["player_id"])}
    command({"type": "add_map", "name": "The crypt", "width": 12, "height": 8})
    _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
    crypt = next(m["id"] for m in state["maps"] if m["name"] == "The crypt")
    command({"type": "activate_map", "map_id": crypt})
    ids |= {"Orc": fighter("Orc", 9, 2), "Imp": fighter("Imp", 9, 5), "Ogre": fighter("Ogre", 10, 3)}
    command({"type": "activate_map", "map_id": state["active_map"]})  # the party goes back; the foes wait there
    command({"type": "view_map", "map_id": crypt})
    return g, mira, ids, crypt, command


def _forecast(gm, runs: str = "20", left: list | None = None) -> list[int]:
    """Forecast from the card; the progress bar's values seen until it is done (this forecast's: the one before
    stays done until the new one's first figures are drawn, and on a loaded machine that can take seconds).
    ``left``: where the words of the time it will take yet go, as the card said them while it ran."""
    now = gm.locator("#forecast-result .forecast-now")
    before = now.get_attribute("data-forecast") if now.count() else None
    gm.locator("#forecast-form select[name=runs]").select_option(runs)
    gm.locator("#forecast-go").click()
    expect(now).to_have_attribute("data-forecast", re.compile(r"\S"), timeout=30000)
    if before:
        expect(now).not_to_have_attribute("data-forecast", before, timeout=30000)
    seen = []
    for _ in range(240):
        bar = now.locator("progress")
        if bar.count():
            seen.append(int(bar.get_attribute("value") or 0))
            if seen[-1] == int(runs):
                break
            if left is not None:  # (all_inner_texts: no wait, the card is drawn again every half second)
                left += now.locator(".forecast-left").all_inner_texts()
        gm.wait_for_timeout(250)
    expect(now).to_contain_text(f"{runs} of {runs} fights · done", timeout=60000)
    return seen


@pytest.mark.timeout(300)  # three forecasts on workers in the idle class: beside the other lane's tests, 2 minutes in CI
def test_the_gm_forecasts_a_prepared_encounter_takes_a_foe_out_and_forecasts_from_here(server, new_page, shot):
    g, mira, ids, crypt, command = _encounter(server)
    gm = new_page(viewport={"width": 1280, "height": 900})
    gm.goto(g["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    phone = new_page(viewport={"width": 390, "height": 844}, has_touch=True)
    phone.goto(f"{server.url}/games/{g['id']}/play?key={mira['player_token']}")
    expect(phone.locator("#conn.ok")).to_be_visible()
    gm.locator("#forecast-details > summary").click()
    form = gm.locator("#forecast-form")
    expect(form).to_be_visible()
    # the prepared map's foes (the players do not see it yet), each with its tactic; the party comes along
    expect(form.locator("tbody th")).to_have_text(["Ann", "Bob", "Orc", "Imp", "Ogre"])
    expect(form.locator("input[name=from][value=now]")).to_be_disabled()  # no fight on that map
    left: list[str] = []
    seen = _forecast(gm, left=left)
    assert any(0 < v < 20 for v in seen), seen  # the figures filled in as the runs finished
    assert left and all(re.fullmatch(r"about \d+ (seconds?|minutes?) left", w) for w in left), left  # and how long yet
    now = gm.locator("#forecast-result .forecast-now")
    expect(now.locator(".forecast-win")).to_contain_text(re.compile(r"The players win \d+% of the fights"))
    expect(now.locator("tbody th")).to_have_text(["Ann", "Bob", "Orc", "Imp", "Ogre"])
    first_win = now.locator(".forecast-win strong").inner_text()
    gm.locator("#forecast").scroll_into_view_if_needed()
    shot(gm, "forecast-gm-first")

    # what if: the Ogre stays home; the second forecast beside the first
    form.locator(f"input[name=fights][value='{ids['Ogre']}']").uncheck()
    _forecast(gm)
    now = gm.locator("#forecast-result .forecast-now")
    before = gm.locator("#forecast-result .forecast-before")
    expect(now.locator(".forecast-assumed")).to_contain_text("without Ogre")
    expect(now.locator("tbody th")).to_have_text(["Ann", "Bob", "Orc", "Imp"])
    expect(before.locator(".forecast-win strong")).to_have_text(first_win)
    shot(gm, "forecast-gm-what-if")
    found = Findings()
    found.axe(gm, "GM page, two forecasts side by side")
    found.check("heading levels", heading_skips(gm), "GM page, the forecast card")
    found.assert_none()

    # the map shown, the fight two rounds on, forecast from here
    command({"type": "activate_map", "map_id": crypt})
    command({"type": "start_combat", "token_ids": list(ids.values())})
    for _ in range(40):
        _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
        if state["combat"]["round"] >= 3:
            break
        command({"type": "next_turn"})
    assert state["combat"]["round"] == 3
    gm.locator("#forecast-details > summary").click()  # closed and opened: the form drawn for the map as it is
    gm.locator("#forecast-details > summary").click()
    expect(form.locator("input[name=from][value=now]")).to_be_enabled()
    form.locator("input[name=from][value=now]").check()
    _forecast(gm)
    expect(gm.locator("#forecast-result .forecast-now .forecast-assumed")).to_contain_text("From here")
    shot(gm, "forecast-gm-from-here")
    expect(phone.locator("#forecast, .forecast-figures")).to_have_count(0)  # nothing of it on the phone
    assert "players win" not in phone.content()
