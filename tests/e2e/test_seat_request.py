"""Issue #25, finding 11, in Chromium: someone who knows the join code types a player's name on another
phone; the seat's own phone plays on, the GM's page shows the request at once, and the new phone gets the
seat only when the GM gives it."""

from __future__ import annotations


def test_a_seat_asked_for_by_name_waits_for_the_gm_on_the_gm_page(server, game, new_page, shot):
    base = server.url
    gm = new_page()
    gm.goto(f"{base}/games/{game['id']}/gm?key={game['gm_token']}")
    gm.wait_for_selector("#map")
    phone = new_page(viewport={"width": 390, "height": 844})
    phone.goto(f"{base}/join?code={game['join_code']}")
    phone.fill("input[name=name]", "Mira")
    phone.click("button:has-text('Join')")
    phone.wait_for_url(f"**/games/{game['id']}/play")
    other = new_page(viewport={"width": 390, "height": 844})
    other.goto(f"{base}/join?code={game['join_code']}")
    other.fill("input[name=name]", "Mira")
    other.click("button:has-text('Join')")
    other.wait_for_selector("#seat-waiting")
    assert "Waiting for the GM to give you Mira's seat" in other.inner_text("#seat-waiting")
    shot(other, "seat-request-phone-waiting")
    prompt = gm.wait_for_selector(".seat-request")  # live, without a reload
    assert "asks for Mira's seat" in prompt.inner_text()
    gm.locator(".seat-request").scroll_into_view_if_needed()
    shot(gm, "seat-request-gm-prompt")
    assert "/play" in phone.url and phone.locator("#map").count() == 1  # the seat's own phone plays on
    gm.click(".seat-request button:has-text('Give the seat')")
    gm.wait_for_selector(".seat-request", state="detached")
    other.wait_for_url(f"**/games/{game['id']}/play", timeout=15000)  # its page reloads itself every 3 s
    other.wait_for_selector("#map")
    shot(other, "seat-request-phone-seated")
