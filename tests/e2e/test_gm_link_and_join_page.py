"""The GM who made a game in the lobby can open its GM page in another browser (the page's address carries no
key, so the page shows the GM link), and a player's join page offers no "Host a game" (issue #33)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import refused

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.mark.console_errors(refused(403, r"/games/\w+/gm"), why="the GM page opened without its key is refused, as the test asks")
def test_a_game_made_in_the_lobby_is_reopened_in_another_browser_with_the_gm_link(server, new_page, shot):
    laptop = new_page()
    laptop.goto(server.url + "/")
    laptop.fill("form[action='/games'] input[name=name]", "Harrow night")
    laptop.click("button:has-text('Create game')")
    expect(laptop.locator("#conn.ok")).to_be_visible()
    assert "key=" not in laptop.url  # the address is no key
    link = laptop.locator("#gm-link")
    expect(link).to_be_attached()
    href = link.get_attribute("href")
    assert "key=" in href
    shot(laptop, "gm-page-with-gm-link")
    other = new_page()  # another browser: no cookie of this game
    other.goto(laptop.url)
    expect(other.locator("body")).to_contain_text("open it with the GM link")  # the bare address is refused
    other.goto(server.url + href)
    expect(other.locator("#conn.ok")).to_be_visible()
    expect(other.locator("#combat")).to_contain_text("Start fight")  # the GM's own page


@pytest.mark.console_errors(refused(404, "/join"), why="a wrong join code is answered with a 404, as the test asks")
def test_the_join_page_is_for_players_only(server, new_page, shot):
    status, g = server.api("POST", "/api/games", {"name": "Harrow", "system": "plain_grid"})
    assert status == 201, g
    phone = new_page(**PHONE)
    phone.goto(g["urls"]["join"])
    expect(phone.get_by_role("heading", name="Join a game")).to_be_visible()
    expect(phone.locator("input[name=code]")).to_have_value(g["join_code"])
    expect(phone.get_by_text("Host a game")).to_have_count(0)
    expect(phone.get_by_text("Create game")).to_have_count(0)
    shot(phone, "phone-join-page")
    phone.fill("input[name=name]", "Mira")
    phone.fill("input[name=code]", "ZZZZZZ")  # a wrong code: the answer is the players' page too
    phone.click("button:has-text('Join')")
    expect(phone.get_by_text("No game has that join code.")).to_be_visible()
    expect(phone.get_by_text("Host a game")).to_have_count(0)
    laptop = new_page()
    laptop.goto(server.url + "/")  # the front page still hosts
    expect(laptop.get_by_role("heading", name="Host a game")).to_be_visible()
