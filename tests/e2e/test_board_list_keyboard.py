"""A fight played from a phone's list of the board with the keyboard alone (#61): three rounds of a gurps_lite (3d6)
fight, the phone opened at the LAN name, List chosen, then only Tab, Enter and the arrow keys: each turn the player
picks the turn's maneuver from the turn bar, moves by choosing a reachable square in the list, attacks a foe from the
list (the attack card filled, its odds previewed, Roll attack next), and ends the turn; the GM advances the foes' turns
through the API and a foe attacks the player, who defends from the keyboard. The accessibility tree names each
token's square and distance, and the live region says the player's turn and the attacks' results.
Screenshots: test-artifacts/board-list-phone-*.png."""

from __future__ import annotations

import re

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from test_fights import seeded_dice  # noqa: F401
from test_table_screens import join
from test_turns_on_phones import open_phone
from tests.helpers import live_command as command

GRID = {"width": 16, "height": 8}
PLACES = {"Aria": (1, 3), "Orc": (6, 3), "Goblin": (6, 5)}
# each round Aria steps to a square beside a foe: four yards (Move and Attack's half Move), then one, then one
STEPS = [(5, 3), (5, 4), (5, 5)]


def tab_to(page, selector: str, limit: int = 400) -> None:
    """Tab until the focus is on what ``selector`` matches (it must be reachable by the keyboard)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def square(x: int, y: int) -> str:
    return f"{chr(ord('A') + x)}{y + 1}"


class Fight:
    def __init__(self, server, new_page):
        self.server = server
        status, self.game = server.api("POST", "/api/games", {"name": "List fight", "system": "gurps_lite", "map": GRID})
        assert status == 201, self.game
        self.gm = new_page(viewport={"width": 1280, "height": 800})
        self.gm.goto(self.game["urls"]["gm"])
        expect(self.gm.locator("#conn.ok")).to_be_visible()
        seat = join(server, self.game, "Aria")
        self.ids = {}
        for name, (x, y) in PLACES.items():
            body = {"name": name, "x": x, "y": y} | ({"owner": seat["player_id"], "kind": "pc"} if name == "Aria" else {})
            status, made = server.api("POST", f"/api/games/{self.game['id']}/tokens", body, self.game["gm_token"])
            assert status == 201, made
            self.ids[name] = made["id"]
            command(server, self.game, {"type": "add_character", "name": name, "token_id": made["id"]})
        self.names = {v: k for k, v in self.ids.items()}
        self.phone = open_phone(new_page, server, self.game, seat)
        # what the live region says, every time it says something (it is emptied, then filled: keys.js)
        self.phone.evaluate("""() => { window.__said = [];
            new MutationObserver(() => { const t = document.getElementById('announce').textContent.trim();
                                         if (t) window.__said.push(t); })
              .observe(document.getElementById('announce'), {childList: true, characterData: true, subtree: true}); }""")

    def state(self) -> dict:
        status, s = self.server.api("GET", f"/api/games/{self.game['id']}/state", token=self.game["gm_token"])
        assert status == 200
        return s

    def token(self, name: str) -> dict:
        return next(t for t in self.state()["tokens"] if t["id"] == self.ids[name])

    def attacks(self) -> list[dict]:
        return [e for e in self.state()["log"] if (e.get("detail") or {}).get("attack")]

    def said(self) -> list[str]:
        return self.phone.evaluate("window.__said")

    def wait_attack(self, before: int) -> str:
        """The attack rolled since ``before`` attacks, a foe's defense answered on the GM's page where it is asked."""
        for _ in range(100):
            done = self.attacks()
            if len(done) > before:
                return done[-1]["text"]
            asking = self.gm.locator("#defense-prompt.asking button[data-defense]:enabled")
            if asking.count():
                try:  # the prompt may be drawn again under the pointer, or be answered meanwhile: look again
                    asking.first.click(timeout=1000)
                except PlaywrightTimeout:
                    pass
            self.gm.wait_for_timeout(100)
        raise AssertionError("the attack was never rolled")


def test_three_rounds_of_a_3d6_fight_from_the_list_with_the_keyboard(seeded_dice, server, new_page, shot):
    fight = Fight(server, new_page)
    phone, ids = fight.phone, fight.ids
    aria, orc = ids["Aria"], ids["Orc"]
    # the list, chosen from the keyboard, and remembered on the phone
    tab_to(phone, "[data-board-view=list]")
    phone.keyboard.press("Enter")
    listed = phone.locator("#board-list")
    expect(listed).to_be_visible()
    expect(phone.locator("#map-frame")).to_be_hidden()
    phone.reload()
    expect(phone.locator("#conn.ok")).to_be_visible()
    expect(listed).to_be_visible()
    expect(phone.locator("[data-board-view=list]")).to_have_attribute("aria-pressed", "true")
    fight.phone.evaluate("""() => { window.__said = [];
        new MutationObserver(() => { const t = document.getElementById('announce').textContent.trim();
                                     if (t) window.__said.push(t); })
          .observe(document.getElementById('announce'), {childList: true, characterData: true, subtree: true}); }""")
    # each token's square and distance, read from the accessibility tree
    tree = listed.aria_snapshot()
    assert re.search(r"Orc.*\(foe\).*at G4, 5 yards away", tree, re.S), tree
    # 5 across, 2 down: 2 diagonals (1 yard, then 2: 5-10-5) and 3 straight
    assert re.search(r"Goblin.*\(foe\).*at G6, 6 yards away", tree, re.S), tree
    assert 'button "Attack Orc"' in tree and 'button "Attack Goblin"' in tree
    assert re.search(r'heading "The board as a list"', tree), tree

    command(server, fight.game, {"type": "start_combat", "token_ids": [aria, orc, ids["Goblin"]]})
    expect(listed).to_contain_text("round 1")
    turns, attacked_by_foe, my_attacks = 0, False, []
    while True:
        s = fight.state()
        round_, now = s["combat"]["round"], s["combat"]["current"]
        if round_ > 3:
            break
        turns += 1
        assert turns < 20
        if now != aria:  # the GM: a foe beside Aria attacks her once; each foe's turn is passed from the API
            foe = fight.token(fight.names[now])
            me = fight.token("Aria")
            if not attacked_by_foe and max(abs(foe["x"] - me["x"]), abs(foe["y"] - me["y"])) <= 1:
                command(server, fight.game, {"type": "act", "token_id": now, "action": "attack"})
                before = len(fight.attacks())
                command(server, fight.game, {"type": "attack", "attacker": now, "target": aria, "weapon": "Broadsword"})
                # Aria's player defends from the keyboard
                expect(phone.locator("#defense-prompt.asking")).to_be_visible()
                tab_to(phone, "#defense-prompt.asking button[data-defense]:enabled")
                phone.keyboard.press("Enter")
                text = fight.wait_attack(before)
                expect(phone.locator("#announce")).to_contain_text(text)
                attacked_by_foe = True
            command(server, fight.game, {"type": "next_turn"})
            continue
        # Aria's turn: "Your turn, Aria" said; the list says so too
        expect(phone.locator("#board-list .board-me")).to_contain_text(f"Your turn (round {round_}).")
        phone.wait_for_function("() => window.__said.some(t => t.includes('Your turn, Aria'))")
        # the turn's maneuver from the turn bar
        tab_to(phone, "#turn-bar form.bar-act button")
        while phone.evaluate("document.activeElement.textContent.trim()") != "Move and Attack":
            phone.keyboard.press("Tab")
        phone.keyboard.press("Enter")
        expect(phone.locator("#log")).to_contain_text("Aria: Move and Attack")
        # a move: the destination picked with the arrow keys in the list's select, then Move
        to = STEPS[round_ - 1]
        expect(listed.locator(f"#board-move-to option[value='{to[0]},{to[1]}']")).to_have_count(1)
        tab_to(phone, "#board-move-to")
        values = phone.locator("#board-move-to option").evaluate_all("os => os.map(o => o.value)")
        at = values.index(phone.locator("#board-move-to").input_value())
        goal = values.index(f"{to[0]},{to[1]}")
        for _ in range(abs(goal - at)):
            phone.keyboard.press("ArrowDown" if goal > at else "ArrowUp")
        assert phone.locator("#board-move-to").input_value() == f"{to[0]},{to[1]}"
        option = phone.locator("#board-move-to option:checked").inner_text()
        assert re.fullmatch(rf"{square(*to)} \(\d yards?\)", option), option
        tab_to(phone, "#board-move-go")
        phone.keyboard.press("Enter")
        expect(listed.locator(".board-me")).to_contain_text(f"you, at {square(*to)}")
        assert (fight.token("Aria")["x"], fight.token("Aria")["y"]) == to
        # a foe in reach, attacked from its row: the attack card filled and previewed, Roll attack focused
        row = listed.locator(".board-row.side-foe:not(.out)", has_text="in reach of").first
        expect(row).to_be_visible()
        target = row.get_attribute("data-token-id")
        tab_to(phone, f"#board-attack-{target}")
        phone.keyboard.press("Enter")
        expect(phone.locator("#attack-form select[name=target]")).to_have_value(target)
        expect(phone.locator("#attack-form select[name=attacker]")).to_have_value(aria)
        expect(phone.locator("#attack-preview .attack-preview")).to_be_visible()
        assert phone.evaluate("document.activeElement.dataset.attack") == "attack"
        before = len(fight.attacks())
        phone.keyboard.press("Enter")
        text = fight.wait_attack(before)
        my_attacks.append(text)
        assert text.startswith(f"Aria attacks {fight.names[target]}"), text
        expect(phone.locator("#announce")).to_contain_text(text)
        if round_ == 1:
            phone.evaluate("window.scrollTo(0, 0)")
            phone.wait_for_timeout(300)
            shot(phone, "board-list-phone-round1")
        # the list, fetched again, shows the foe's state and the distance from Aria's new square
        expect(listed.locator(f"#board-row-{target}")).to_contain_text("1 yard away")
        # the turn ends from the turn bar
        tab_to(phone, "#turn-bar form.end-turn button")
        phone.keyboard.press("Enter")
        for _ in range(50):
            if fight.state()["combat"]["current"] != aria:
                break
            phone.wait_for_timeout(100)
        assert fight.state()["combat"]["current"] != aria
    assert len(my_attacks) == 3 and attacked_by_foe, (my_attacks, attacked_by_foe)
    said = fight.said()
    assert sum("Your turn, Aria" in t for t in said) >= 2, said  # (the first before the region was watched again)
    assert all(any(a in t for t in said) for a in my_attacks), said
    # the tree after the fight's three rounds: each token's square and distance from Aria's square (the list as
    # the last update drew it: read again while an update swaps it in)
    me = fight.token("Aria")
    wanted = [rf"{name}.*at {square(t['x'], t['y'])}, \d yards? away" for name, t in
              ((n, fight.token(n)) for n in ("Orc", "Goblin"))] + [re.escape(f"you, at {square(me['x'], me['y'])}")]
    for _ in range(50):
        tree = listed.aria_snapshot()
        if all(re.search(w, tree, re.S) for w in wanted):
            break
        phone.wait_for_timeout(100)
    assert all(re.search(w, tree, re.S) for w in wanted), (wanted, tree)
    phone.evaluate("window.scrollTo(0, 0)")
    phone.wait_for_timeout(300)
    shot(phone, "board-list-phone-end")
