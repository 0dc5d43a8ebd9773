"""The keyboard stays where it was (issue #61): a live update never moves the focus. The GM on the fight card's
Next turn button while a player's move arrives keeps the focus on that button (the card is drawn afresh: its twin
takes it back), with the page not scrolled; a name being typed into the token list keeps its text, caret and focus
while the list is redrawn; with nothing focused, an update focuses nothing. Skip links lead the keyboard from the
top of the GM's page and of a phone to the map, the fight card and the players card. Real server, real Chromium,
the move sent with the player's own key."""

from __future__ import annotations

from playwright.sync_api import expect

NEXT_TURN = "#combat form[data-command=next_turn] button"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def api(server, game, method, path, body=None, key=None):
    status, answer = server.api(method, f"/api/games/{game['id']}{path}", body, key or game["gm_token"])
    assert status in (200, 201), answer
    return answer


def fight_on_players_turn(server):
    """A game with Mira's Aria and a Goblin in a fight, on Aria's turn; the game, Mira's seat and the token ids."""
    status, game = server.api("POST", "/api/games", {"name": "Harrow", "system": "plain_grid",
                                                      "map": {"width": 14, "height": 10}})
    assert status == 201, game
    status, mira = server.api("POST", f"/api/games/{game['id']}/players", {"join_code": game["join_code"], "name": "Mira"})
    assert status == 201, mira
    aria = api(server, game, "POST", "/tokens", {"name": "Aria", "x": 2, "y": 2, "owner": mira["player_id"], "kind": "pc"})
    goblin = api(server, game, "POST", "/tokens", {"name": "Goblin", "x": 10, "y": 7})
    api(server, game, "POST", "/commands", {"type": "start_combat", "token_ids": [aria["id"], goblin["id"]]})
    for _ in range(4):
        if api(server, game, "GET", "/state")["combat"]["current"] == aria["id"]:
            break
        api(server, game, "POST", "/commands", {"type": "next_turn"})
    assert api(server, game, "GET", "/state")["combat"]["current"] == aria["id"]
    return game, mira, aria["id"], goblin["id"]


def open_gm(new_page, game):
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    return gm


def player_moves(server, game, mira, token, x, y, gm):
    """Mira's move, sent with her key; seen applied on the GM's page."""
    api(server, game, "POST", "/commands", {"type": "move_token", "token_id": token, "x": x, "y": y}, mira["player_token"])
    expect(gm.locator(f'#token-{token}[data-x="{x}"][data-y="{y}"]')).to_be_attached()


def focused(page) -> str:
    """What has the keyboard focus: its tag, id and text (BODY when nothing has)."""
    return page.evaluate("""() => { const a = document.activeElement;
        return a ? a.tagName + (a.id ? '#' + a.id : '') + ' ' + (a.textContent || '').trim().slice(0, 30) : 'none'; }""")


def test_a_players_move_leaves_the_gms_focus_on_next_turn(server, new_page, shot):
    game, mira, aria, goblin = fight_on_players_turn(server)
    gm = open_gm(new_page, game)
    # nothing focused: an update focuses nothing
    player_moves(server, game, mira, aria, 3, 2, gm)
    assert gm.evaluate("document.activeElement === document.body"), focused(gm)
    # the keyboard on Next turn, the page scrolled so that the fight card is in view
    gm.locator(NEXT_TURN).scroll_into_view_if_needed()
    gm.focus(NEXT_TURN)
    gm.evaluate(f"window.oldNextTurn = document.querySelector({NEXT_TURN!r})")
    assert gm.evaluate("document.activeElement === window.oldNextTurn")
    scrolled = gm.evaluate("[window.scrollY, document.querySelector('aside.panel').scrollTop]")
    player_moves(server, game, mira, aria, 4, 3, gm)
    # the fight card was drawn afresh (the move booked in it): the button focused before is gone from the page...
    expect(gm.locator(NEXT_TURN)).to_be_visible()
    gm.wait_for_function("() => !window.oldNextTurn.isConnected")
    # ...and its twin has the focus, the page where it was
    assert gm.evaluate(f"document.activeElement === document.querySelector({NEXT_TURN!r})"), focused(gm)
    assert gm.evaluate("[window.scrollY, document.querySelector('aside.panel').scrollTop]") == scrolled
    shot(gm, "focus-next-turn-kept")
    # the keyboard goes on from there: Enter passes the turn
    gm.keyboard.press("Enter")
    expect(gm.locator(f"#combat li.current[data-token-id='{goblin}']")).to_be_visible()
    assert gm.evaluate(f"document.activeElement === document.querySelector({NEXT_TURN!r})"), focused(gm)


def test_a_name_being_typed_keeps_its_text_caret_and_focus_across_an_update(server, new_page):
    game, mira, aria, goblin = fight_on_players_turn(server)
    gm = open_gm(new_page, game)
    name = gm.locator(f"#edit-{goblin} input[name=name]")
    name.click()
    gm.keyboard.press("End")
    gm.keyboard.type(" chief")
    gm.keyboard.press("ArrowLeft")
    gm.keyboard.press("ArrowLeft")
    assert name.evaluate("el => [el.value, el.selectionStart]") == ["Goblin chief", 10]
    # the token list drawn afresh: a token added, a token renamed by the GM elsewhere (another tab, the API)
    api(server, game, "POST", "/tokens", {"name": "Wolf", "x": 8, "y": 2})
    api(server, game, "POST", "/commands", {"type": "update_token", "token_id": aria, "name": "Aria the bold"})
    expect(gm.locator("#token-list")).to_contain_text("Wolf")
    expect(gm.locator(f"#edit-{aria} input[name=name]")).to_have_value("Aria the bold")
    assert name.evaluate("el => [el.value, el.selectionStart, el === document.activeElement]") == ["Goblin chief", 10, True]
    # and the move of a player in the fight meanwhile leaves it so too
    player_moves(server, game, mira, aria, 3, 3, gm)
    gm.keyboard.type("!")
    assert name.evaluate("el => [el.value, el === document.activeElement]") == ["Goblin chi!ef", True]


def test_a_focused_checkbox_in_a_redrawn_card_keeps_the_focus(server, new_page):
    """A field not typed in is not held back from an update (live.js): its card goes in afresh, and the twin of the
    focused box (matched by its form and name) takes the focus back."""
    game, mira, aria, goblin = fight_on_players_turn(server)
    gm = open_gm(new_page, game)
    box = f"#edit-{goblin} input[name=hidden][type=checkbox]"
    gm.focus(box)
    gm.evaluate(f"window.oldBox = document.querySelector({box!r})")
    api(server, game, "POST", "/tokens", {"name": "Wolf", "x": 8, "y": 2})
    expect(gm.locator("#token-list")).to_contain_text("Wolf")
    gm.wait_for_function("() => !window.oldBox.isConnected")
    assert gm.evaluate(f"document.activeElement === document.querySelector({box!r})"), focused(gm)


def from_the_top(page, url: str) -> list[str]:
    """The page loaded afresh, the words of its first three stops of Tab."""
    page.goto(url)
    expect(page.locator("#conn.ok")).to_be_visible()
    stops = []
    for _ in range(3):
        page.keyboard.press("Tab")
        stops.append(page.evaluate("document.activeElement.textContent.trim()"))
    return stops


def skip(page, url: str, text: str) -> str:
    """Tab from the top of the page to the skip link saying ``text``, then Enter: the id of what has the focus."""
    page.goto(url)
    expect(page.locator("#conn.ok")).to_be_visible()
    for _ in range(3):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent.trim()") == text:
            expect(page.locator(".skip-links a:focus")).to_be_in_viewport()  # shown once focused
            page.keyboard.press("Enter")
            return page.evaluate("document.activeElement.id")
    raise AssertionError(f"{text!r} not reached by Tab from the top: {focused(page)}")


def test_skip_links_lead_to_the_map_the_fight_and_the_players(server, new_page, shot):
    game, mira, aria, goblin = fight_on_players_turn(server)
    gm = new_page(viewport={"width": 1280, "height": 800})
    url = game["urls"]["gm"]
    assert from_the_top(gm, url) == ["Skip to the map", "Skip to the fight", "Skip to the players"]
    shot(gm, "focus-skip-link-gm")  # the third shown, over the top bar
    expect(gm.locator(".skip-links a", has_text="Skip to the map")).not_to_be_in_viewport()  # out of sight unfocused
    for text, target in (("Skip to the map", "map-frame"), ("Skip to the fight", "combat"),
                         ("Skip to the players", "players")):
        assert skip(gm, url, text) == target, (text, focused(gm))
        expect(gm.locator(f"#{target}")).to_be_in_viewport()
    # from the players card, the next Tab goes on inside it
    gm.keyboard.press("Tab")
    assert gm.evaluate("!!document.activeElement.closest('#players')"), focused(gm)
    # a phone: to the map and to the fight card (a phone has no players card)
    phone = new_page(**PHONE)
    url = f"{server.lan_url}/games/{game['id']}/play?key={mira['player_token']}"
    assert from_the_top(phone, url)[:2] == ["Skip to the map", "Skip to the fight"]
    phone.reload()
    expect(phone.locator("#conn.ok")).to_be_visible()
    phone.keyboard.press("Tab")
    shot(phone, "focus-skip-link-phone")  # the first, shown over the top bar
    for text, target in (("Skip to the map", "map-frame"), ("Skip to the fight", "combat")):
        assert skip(phone, url, text) == target, (text, focused(phone))
        # in view, its top clear of the sticky "Your turn" bar
        phone.wait_for_timeout(200)
        top, bar = phone.evaluate(f"""[document.getElementById({target!r}).getBoundingClientRect().top,
                                       document.getElementById('turn-bar').getBoundingClientRect().bottom]""")
        assert top >= bar - 1, (target, top, bar)
    shot(phone, "focus-skip-to-fight-phone")
