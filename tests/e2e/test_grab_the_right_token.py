"""A press takes the token whose own squares are under it (issue #24): in melee, pressing one's
own token never picks up the neighbour, and an empty square beside a token takes no token (on a
phone the finger pans the map). On a touch phone a fat finger that covers more than a square takes
the token whose centre is nearest the touch. Real Chromium against a real server; the touches are
real touch events sent through the DevTools protocol, with the size of the finger."""

from __future__ import annotations

from playwright.sync_api import expect

from test_editor_fog import corner as page_point  # a map point (in squares) on the page
from test_table_screens import (PHONE, add_token, join, mouse_drag, new_game, player_url, state, token_at,
                                touch_drag)


def places(server, game) -> dict[str, tuple[int, int]]:
    return {t["name"]: (t["x"], t["y"]) for t in state(server, game)["tokens"]}


def melee(server, new_page, **page_kw):
    """Mira's fighter at (4, 4) toe to toe with an Ogre at (5, 4); Mira's phone (or the GM's laptop) open."""
    game = new_game(server, name="Melee")
    mira = join(server, game, "Mira")
    fighter = add_token(server, game, "Mira's fighter", 4, 4, owner=mira["player_id"], kind="pc")
    ogre = add_token(server, game, "Ogre", 5, 4)
    return game, mira, fighter, ogre


def test_the_gm_pressing_a_token_beside_another_moves_that_token_not_its_neighbour(server, new_page, shot):
    game, mira, fighter, ogre = melee(server, new_page)
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    # the middle of the fighter's square, a little towards the Ogre (inside its own square)
    mouse_drag(gm, page_point(gm, 4.8, 4.5), page_point(gm, 4.5, 7.5))
    token_at(gm, fighter, 4, 7).to_be_attached()
    token_at(gm, ogre, 5, 4).to_be_attached()
    assert places(server, game) == {"Mira's fighter": (4, 7), "Ogre": (5, 4)}
    # and the Ogre from the edge of its square next to the fighter's old place
    mouse_drag(gm, page_point(gm, 5.1, 4.5), page_point(gm, 7.5, 4.5))
    token_at(gm, ogre, 7, 4).to_be_attached()
    assert places(server, game) == {"Mira's fighter": (4, 7), "Ogre": (7, 4)}
    shot(gm, "grab-gm-laptop")


def test_a_press_on_an_empty_square_beside_a_token_moves_nothing_on_a_laptop(server, new_page):
    game, mira, fighter, ogre = melee(server, new_page)
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    # square (6, 4) is empty; the press is a third of a square from the Ogre's edge
    mouse_drag(gm, page_point(gm, 6.3, 4.5), page_point(gm, 6.5, 7.5))
    gm.wait_for_timeout(500)  # a move would have gone out and come back by now
    expect(gm.locator("#layer-tokens .token.dragging, #layer-tokens .token.pending")).to_have_count(0)
    token_at(gm, ogre, 5, 4).to_be_attached()
    token_at(gm, fighter, 4, 4).to_be_attached()
    assert places(server, game) == {"Mira's fighter": (4, 4), "Ogre": (5, 4)}


def open_phone(server, new_page, game, mira):
    page = new_page(**PHONE)
    page.goto(player_url(server, game, mira))
    expect(page.locator("#conn.ok")).to_be_visible()
    return page


def test_a_finger_on_ones_own_token_in_melee_moves_it_not_the_foe_beside_it(server, new_page, shot):
    game, mira, fighter, ogre = melee(server, new_page)
    page = open_phone(server, new_page, game, mira)
    square = page.locator(f"#token-{fighter} .token-hit").bounding_box()["width"]
    # a fingertip (16 px) a little off the middle of the fighter's square, towards the Ogre
    touch_drag(page, page_point(page, 4.8, 4.5), page_point(page, 4.5, 6.5), radius=8)
    token_at(page, fighter, 4, 6).to_be_attached()
    expect(page.locator("#flash.shown")).to_have_count(0)  # no "Ogre is not yours to move"
    assert places(server, game) == {"Mira's fighter": (4, 6), "Ogre": (5, 4)}
    # a fat finger, wider than a square, pressed on the fighter's square beside the Ogre: the nearest centre wins
    touch_drag(page, page_point(page, 4.75, 6.5), page_point(page, 4.5, 4.5), radius=square * 0.8)
    token_at(page, fighter, 4, 4).to_be_attached()
    expect(page.locator("#flash.shown")).to_have_count(0)
    assert places(server, game) == {"Mira's fighter": (4, 4), "Ogre": (5, 4)}
    shot(page, "grab-phone-melee")


def test_a_finger_on_an_empty_square_beside_a_token_pans_the_map_and_moves_nothing(server, new_page):
    game, mira, fighter, ogre = melee(server, new_page)
    page = open_phone(server, new_page, game, mira)
    frame = page.locator("#map-frame")
    scroll = frame.evaluate("f => f.scrollLeft")
    # square (6, 4) is empty: a fingertip a third of a square from the Ogre's edge, slid to the left
    start = page_point(page, 6.3, 4.5)
    touch_drag(page, start, (start[0] - 120, start[1]), radius=8)
    page.wait_for_timeout(500)
    assert frame.evaluate("f => f.scrollLeft") > scroll + 60  # the map panned under the finger
    expect(page.locator("#flash.shown")).to_have_count(0)
    token_at(page, ogre, 5, 4).to_be_attached()
    assert places(server, game) == {"Mira's fighter": (4, 4), "Ogre": (5, 4)}


def test_a_fat_finger_on_an_empty_square_takes_the_nearest_token_it_covers(server, new_page):
    game, mira, fighter, ogre = melee(server, new_page)
    page = open_phone(server, new_page, game, mira)
    square = page.locator(f"#token-{fighter} .token-hit").bounding_box()["width"]
    # below the fighter, in the middle of the empty square (4, 5): a finger wider than a square reaches
    # the fighter's square (not the Ogre's, diagonally away); a fingertip there would pan the map
    touch_drag(page, page_point(page, 4.5, 5.45), page_point(page, 3.5, 6.5), radius=square * 0.55)
    token_at(page, fighter, 3, 6).to_be_attached()
    assert places(server, game) == {"Mira's fighter": (3, 6), "Ogre": (5, 4)}
