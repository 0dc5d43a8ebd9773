"""A fight's table on the users' screens (the GM on a laptop, two players on phones who join with the code,
the table screen) and the steps of a turn on it, which test_three_rounds_each_system plays for three rounds in
each system (phase/TN's declarations and due shots among them); here, the GM's Move anyway and Savage Worlds' inches.

Setup goes through the JSON API; after that everything happens in the pages: the
GM starts the fight, players drag their tokens (the reachable squares shade),
preview and roll attacks, end their turns; the GM acts for the foes and takes
the first attack back with Undo. Each system's own steps come from its turn
panel (a 3d6 maneuver, phase/TN declarations and the shots due at the phase's
end, Tesseris ticks, Savage Worlds cards, Atomic Tomorrow zones).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from test_live_table import at, cell_center

from conftest import expect_all

pytestmark = pytest.mark.long  # a whole fight or more: run first (tests/conftest.py)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
GRID = {"width": 16, "height": 8}
# Atomic Tomorrow: three zones in a row; the board lays them out (west and centre on top, east below)
ZONES = {"zones": [{"id": "west", "name": "Hangar", "adjacent": ["centre"]},
                   {"id": "centre", "name": "Gantry", "adjacent": ["west", "east"], "cover": "partial"},
                   {"id": "east", "name": "Launch pad", "adjacent": ["centre"]}]}
PERCENT = re.compile(r"^\d+\.\d%$")

#: resolves once the map has stood still on the page (its box and the page's scroll) for five frames in a row, or
#: after two seconds: a phone's page scrolls its turn bar into view, smoothly, when its turn comes (device.js
#: ``tell``), and a drag whose ends were read before that scroll ended lands rows away from where it was aimed
_STILL = """() => new Promise((done) => {
  const map = document.getElementById('map');
  let last = '', same = 0;
  const give_up = setTimeout(done, 2000);
  const look = () => {
    const r = map ? map.getBoundingClientRect() : {};
    const now = [r.x, r.y, r.width, r.height, window.scrollX, window.scrollY].join();
    same = now === last ? same + 1 : 0;
    last = now;
    if (same >= 5) { clearTimeout(give_up); done(); } else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})"""


def still(page) -> None:
    """Wait until the map stands still on ``page`` (:data:`_STILL`)."""
    page.evaluate(_STILL)


@pytest.fixture
def seeded_dice(monkeypatch):
    """Seeded dice on the server started after this fixture (it inherits the environment)."""
    monkeypatch.setenv("TACMAP_DICE_SEED", "5")


class Table:
    """One game on the live server and the four screens around it."""

    def __init__(self, server, new_page, system: str, board: dict, places: dict):
        self.server = server
        status, self.game = server.api("POST", "/api/games", {"name": f"{system} skirmish", "system": system, "map": board})
        assert status == 201, self.game
        self.gm = new_page(viewport={"width": 1280, "height": 800})
        self.gm.goto(self.game["urls"]["gm"])
        expect(self.gm.locator("#conn.ok")).to_be_visible()
        self.screen = new_page(viewport={"width": 1920, "height": 1080})
        self.screen.goto(self.game["urls"]["screen"])
        expect(self.screen.locator("#conn.ok")).to_be_attached()
        self.phones = {}
        for name in ("Mira", "Theo"):
            phone = new_page(**PHONE)
            phone.goto(self.game["urls"]["join"])
            phone.fill("input[name=name]", name)
            phone.click("button:has-text('Join')")
            expect(phone.locator("#conn.ok")).to_be_visible()
            self.phones[name] = phone
        seats = {p["name"]: p["id"] for p in self.state()["players"]}
        self.ids = {}
        for name, (x, y) in places.items():
            body = {"name": name, "x": x, "y": y}
            if name in seats:
                body |= {"owner": seats[name], "kind": "pc"}
            status, made = server.api("POST", f"/api/games/{self.game['id']}/tokens", body, self.game["gm_token"])
            assert status == 201, made
            self.ids[name] = made["id"]
        self.names = {v: k for k, v in self.ids.items()}
        for page in self.pages:
            expect(page.locator("#layer-tokens .token")).to_have_count(len(places))

    @property
    def pages(self):
        return [self.gm, *self.phones.values(), self.screen]

    def state(self) -> dict:
        status, state = self.server.api("GET", f"/api/games/{self.game['id']}/state", token=self.game["gm_token"])
        assert status == 200
        return state

    def whose_turn(self) -> str | None:
        current = self.state()["combat"]["current"]
        return self.names.get(current) if current else None

    def where(self, name: str) -> tuple[int, int]:
        t = next(t for t in self.state()["tokens"] if t["id"] == self.ids[name])
        return t["x"], t["y"]

    def last_attack(self) -> str:
        return [e["text"] for e in self.state()["log"] if (e.get("detail") or {}).get("attack")][-1]

    # --- what every screen shows -------------------------------------------------

    def start_fight(self) -> None:
        self.gm.click("#combat button:has-text('Start fight')")
        for page in self.pages:
            expect(page.locator("#combat .turn-order li")).to_have_count(len(self.ids))
        self.expect_turn(self.whose_turn())

    def expect_turn(self, name: str | None, round_: int | None = None) -> None:
        checks = [("count", "#combat li.current", 0)] if name is None else \
            [("text", "#combat li.current", name), ("attached", f"#token-{self.ids[name]}.acting", None)]
        if round_ is not None:
            checks.append(("text", "#combat h2", f"Round {round_}"))
        for page in self.pages:
            expect_all(page, checks)

    def expect_in_logs(self, text: str) -> None:
        """The GM's and the players' logs show it (the table screen has no log)."""
        for page in (self.gm, *self.phones.values()):
            expect_all(page, [("text", "#log", text)])

    # --- a player's phone -----------------------------------------------------------

    def fit(self, phone) -> None:
        """The whole map in the phone's frame, so a drag's both ends are on the glass."""
        phone.click("[data-zoom=fit]")
        phone.locator("#map-frame").scroll_into_view_if_needed()

    def drag(self, page, name: str, to: tuple[int, int], check_reach: bool) -> None:
        still(page)  # (a smooth scroll to the turn bar under way would move the map under the drag)
        token = page.locator(f"#token-{self.ids[name]}")
        x, y = int(token.get_attribute("data-x")), int(token.get_attribute("data-y"))
        sx, sy = cell_center(page, x, y)
        tx, ty = cell_center(page, *to)
        vw = page.viewport_size["width"]
        assert 0 < sx < vw and 0 < tx < vw, "both ends of the drag are on the screen"
        page.mouse.move(sx, sy)
        page.mouse.down()
        page.mouse.move((sx + tx) / 2, (sy + ty) / 2, steps=3)
        page.mouse.move(tx, ty, steps=3)
        if check_reach:  # picked up in a fight: where it can go is shaded
            expect(page.locator("#layer-reach .reach-cell").first).to_be_attached()
        page.mouse.up()

    def move(self, name: str, to: tuple[int, int]) -> None:
        phone = self.phones[name]
        self.fit(phone)
        self.drag(phone, name, to, check_reach=True)
        for page in self.pages:
            expect_all(page, [("attached", f'#token-{self.ids[name]}[data-x="{to[0]}"][data-y="{to[1]}"]', None)])

    def move_too_far(self, name: str, to: tuple[int, int], reason: str | re.Pattern) -> None:
        phone = self.phones[name]
        home = self.where(name)
        self.fit(phone)
        self.drag(phone, name, to, check_reach=True)
        expect(phone.locator("#flash.shown")).to_contain_text(reason)
        token = phone.locator(f"#token-{self.ids[name]}")
        expect(token).to_have_attribute("transform", f"translate({home[0]} {home[1]})")  # sprang back
        for page in self.pages:
            at(page, self.ids[name], *home).to_be_attached()
        assert self.where(name) == home

    def preview(self, page, attacker: str, target: str, weapon: str, gm_sees: bool = True) -> str | None:
        """Preview on the attack card: None when the card shows the odds and the aim line is drawn,
        else the reason the rules refused, as the page flashed it."""
        page.evaluate("document.getElementById('flash').className = 'flash'")
        form = page.locator("#attack-form")
        if page is self.gm:
            form.locator("select[name=attacker]").select_option(self.ids[attacker])
        form.locator("select[name=target]").select_option(self.ids[target])
        # the GM's list holds every token's weapons (one key per token); this attacker's are enabled
        index = form.locator("select[name=weapon]").evaluate(
            "(s, [who, key]) => [...s.options].findIndex((o) => o.dataset.attacker === who && o.value === key)",
            [self.ids[attacker], weapon])
        assert index >= 0, f"{attacker} has no weapon {weapon!r}"
        form.locator("select[name=weapon]").select_option(index=index)
        form.locator("button[data-attack=preview_attack]").click()
        card = page.locator("#attack-preview .attack-preview", has_text=f"{attacker} attacks {target}")
        refused = page.locator("#flash.shown.error")
        expect(card.or_(refused).first).to_be_visible()
        if refused.count():
            reason = refused.text_content()
            assert reason.strip(), "a refusal says why"
            return reason
        expect(card.locator("ol.outcomes li").first).to_be_attached()
        for p in card.locator("ol.outcomes li .p").all_inner_texts():
            assert PERCENT.match(p), p
        expect(page.locator("#layer-aim line.aim-line")).to_have_count(1)
        if gm_sees and page is not self.gm:  # the GM is shown a player's preview too
            expect(self.gm.locator("#attack-preview .attack-preview")).to_contain_text(f"{attacker} attacks {target}")
        return None

    def pick_target(self, page, attacker: str, targets, weapon: str) -> str:
        """The first of the targets the rules let the attacker shoot at now (previewed)."""
        refusals = {}
        for target in targets:
            reason = self.preview(page, attacker, target, weapon)
            if reason is None:
                return target
            refusals[target] = reason
        raise AssertionError(f"{attacker} may attack nobody: {refusals}")

    def roll_attack(self, page, defender=None) -> str:
        before = self.attacks_seq()
        page.locator("#attack-form button[data-attack=attack]").click()
        if defender is not None:  # a player's token: where the rules give a choice, its player defends first
            choice = defender.locator("#defense-prompt.asking button[data-defense]:enabled").first
            for _ in range(50):
                rolled = self.attacks_seq() > before
                if choice.count() or rolled:
                    break
                self.gm.wait_for_timeout(100)
            if choice.count():
                choice.click()
        result = self.attack_logged(before)
        # rolled: the aim line and the odds go, from the GM's page too (it was shown the preview)
        for p in {page, self.gm}:
            expect(p.locator("#layer-aim line.aim-line")).to_have_count(0)
            expect(p.locator("#attack-preview .attack-preview")).to_have_count(0)
        return result

    def attacks_seq(self) -> int:
        """The seq of the newest attack in the log (the log keeps its last 50 lines: count by seq)."""
        return max([e["seq"] for e in self.state()["log"] if (e.get("detail") or {}).get("attack")], default=0)

    def attack_logged(self, before: int) -> str:
        """The one attack rolled since the attack of seq ``before``, in every log."""
        for _ in range(50):
            attacks = [e for e in self.state()["log"] if (e.get("detail") or {}).get("attack") and e["seq"] > before]
            if attacks:
                break
            self.gm.wait_for_timeout(100)
        assert len(attacks) == 1, "the attack is in the game's log"
        self.expect_in_logs(attacks[-1]["text"])
        return attacks[-1]["text"]

    def undo_attack(self, attacker: str, screen_before: str) -> None:
        """The GM takes the attack back: the logs say so and the screen shows what it showed before."""
        self.gm.click("#log button:has-text('Undo')")
        for page in (self.gm, *self.phones.values()):
            expect(page.locator("#log li").first).to_contain_text("the GM undid the last action (attack resolved)")
        expect(self.screen.locator("#combat")).to_have_text(screen_before)
        self.expect_turn(attacker)

    def turn_key(self) -> tuple:
        c = self.state()["combat"]
        return c["round"], c["phase"], c["current"]

    def let_wounds_stand(self) -> None:
        """A Soak roll left waiting holds the turn (#58: it is rolled when the Wounds are taken): the GM, who answers
        for anyone, lets the Wounds stand from its page."""
        for _ in range(6):
            waiting = len((self.state().get("pending_soak") or {}).get("offers") or [])
            if not waiting:
                return
            self.gm.locator("#soak-prompt.asking button[data-soak=no]").first.click()
            for _ in range(50):
                if len((self.state().get("pending_soak") or {}).get("offers") or []) < waiting:
                    break
                self.gm.wait_for_timeout(100)
        assert not self.state().get("pending_soak"), "the Soak offers were answered"

    def next_turn(self, page, button: str, where: str = "#combat") -> None:
        """Press the button that ends the turn (a Soak roll left waiting answered first); every screen shows the
        next one."""
        self.let_wounds_stand()
        before = self.turn_key()
        page.click(f"{where} button:has-text('{button}')")
        for _ in range(50):
            if self.turn_key() != before:
                break
            page.wait_for_timeout(100)
        assert self.turn_key() != before, f"{button} ended the turn"
        self.expect_turn(self.whose_turn(), self.state()["combat"]["round"])

    def end_my_turn(self, name: str) -> None:
        """A player ends the turn from the bar at the top of the phone (where it always is on its turn)."""
        self.next_turn(self.phones[name], "End my turn", where="#turn-bar")

    def act(self, page, label: str) -> None:
        page.locator("#combat .turn-actions button", has_text=label).first.click()

    def shots(self, shot, system: str) -> None:
        shot(self.gm, f"fight-{system}-gm")
        shot(self.phones["Mira"], f"fight-{system}-phone")
        shot(self.screen, f"fight-{system}-screen")


FOES = ("Brute", "Goon")


GRID_PLACES = {"Mira": (1, 2), "Theo": (1, 5), "Brute": (7, 3), "Goon": (7, 6)}


def choose_maneuver(maneuver: str):
    """3d6: a move needs the turn's maneuver first; the player picks it from the turn panel."""
    def go(table: Table, name: str) -> None:
        phone = table.phones[name]
        panel = phone.locator("#combat .turn-actions")
        expect(panel).to_contain_text(f"{name} may")
        table.act(phone, maneuver)
        table.expect_in_logs(f"{name}: {maneuver}")
    return go


def declare_fire(table: Table, page, who: str, at_whom: str) -> None:
    """phase/TN: a shot is declared on one's turn to declare (Fire, at a target picked in the panel)."""
    item = page.locator("#combat .turn-actions li", has=page.locator("button", has_text=re.compile(r"^Fire$")))
    item.locator("select[name='options.target']").select_option(table.ids[at_whom])
    item.locator("button").click()
    table.expect_in_logs(f"{who} declares Fire at {at_whom}")


def roll_due(table: Table, page, who: str, at_whom: str) -> str:
    """phase/TN: a shot due at the phase's end is rolled from 'Attacks due now' by its owner."""
    due = page.locator("#combat ul.due li", has_text=f"{who} → {at_whom}")
    expect(table.screen.locator("#combat ul.due")).to_contain_text(f"{who} → {at_whom}")  # the screen lists it, no button
    expect(table.screen.locator("#combat ul.due button")).to_have_count(0)
    before = table.attacks_seq()
    due.locator("button:has-text('Roll')").first.click()
    return table.attack_logged(before)


def test_the_gm_moves_a_token_out_of_turn_or_past_its_pace_with_move_anyway(server, new_page, shot):
    """In a fight the rules refuse the GM's drag of a foe out of turn and of the acting token past
    its Pace; the refusal offers "Move anyway", and the forced move goes through as a GM ruling."""
    status, game = server.api("POST", "/api/games", {"name": "GM ruling", "system": "savage_worlds", "map": GRID})
    assert status == 201, game
    ids = {}
    for name, (x, y) in {"Hero": (2, 2), "Orc": (5, 2)}.items():
        status, made = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": name, "x": x, "y": y},
                                  game["gm_token"])
        ids[name] = made["id"]
    command = lambda body: server.api("POST", f"/api/games/{game['id']}/commands", body, game["gm_token"])  # noqa: E731
    assert command({"type": "start_combat", "token_ids": list(ids.values())})[0] == 200
    state = lambda: server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1]  # noqa: E731
    while state()["combat"]["current"] != ids["Hero"]:
        command({"type": "next_turn"})
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    expect(gm.locator("#combat li.current")).to_contain_text("Hero")

    def drag(name: str, to: tuple[int, int]) -> None:
        token = gm.locator(f"#token-{ids[name]}")
        sx, sy = cell_center(gm, int(token.get_attribute("data-x")), int(token.get_attribute("data-y")))
        tx, ty = cell_center(gm, *to)
        gm.mouse.move(sx, sy)
        gm.mouse.down()
        gm.mouse.move(tx, ty, steps=6)
        gm.mouse.up()

    # the Orc, out of turn: refused with the rules' reason, and the GM may rule otherwise
    drag("Orc", (5, 6))
    expect(gm.locator("#flash.shown")).to_contain_text("it is not Orc's turn")
    gm.wait_for_timeout(400)  # the flash's fade-in, for the picture
    shot(gm, "fight-gm-move-anyway")
    gm.locator("#flash .flash-action", has_text="Move anyway").click()
    at(gm, ids["Orc"], 5, 6).to_be_attached()
    expect(gm.locator("#log")).to_contain_text("GM ruling: Orc moved to (5, 6)")
    # the Hero on its turn, past its Pace (6"): the same
    drag("Hero", (14, 2))
    expect(gm.locator("#flash.shown")).to_contain_text("of movement left")
    gm.locator("#flash .flash-action", has_text="Move anyway").click()
    at(gm, ids["Hero"], 14, 2).to_be_attached()
    expect(gm.locator("#log")).to_contain_text("GM ruling: Hero moved to (14, 2)")
    places = {t["name"]: (t["x"], t["y"]) for t in state()["tokens"]}
    assert places == {"Hero": (14, 2), "Orc": (5, 6)}
    assert state()["combat"]["current"] == ids["Hero"]  # a ruling, not a turn


def test_savage_worlds_inches_read_5_of_6_not_5_s_of_6_s(server, new_page, shot):
    """Savage Worlds counts in inches ("): the ruler by a picked-up token, the turn panel and the attack
    preview write 3" of 6", never 3 "s of 6 "s; the yards of other systems keep their words."""
    status, game = server.api("POST", "/api/games", {"name": "Inches", "system": "savage_worlds", "map": GRID})
    assert status == 201, game
    ids = {name: server.api("POST", f"/api/games/{game['id']}/tokens", {"name": name, "x": x, "y": 2},
                            game["gm_token"])[1]["id"] for name, x in (("Hero", 2), ("Orc", 6))}
    command = lambda body: server.api("POST", f"/api/games/{game['id']}/commands", body, game["gm_token"])  # noqa: E731
    assert command({"type": "start_combat", "token_ids": list(ids.values())})[0] == 200
    acting = server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1]["combat"]["current"]
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    token = gm.locator(f"#token-{acting}")
    sx, sy = cell_center(gm, int(token.get_attribute("data-x")), int(token.get_attribute("data-y")))
    tx, ty = cell_center(gm, int(token.get_attribute("data-x")), 5)
    gm.mouse.move(sx, sy)
    gm.mouse.down()
    gm.mouse.move(tx, ty, steps=6)
    expect(gm.locator("#reach-ruler")).to_have_text('3" of 6"')
    shot(gm, "fight-savage-ruler")
    gm.mouse.up()
    expect(gm.locator("#combat .turn-actions")).to_contain_text('"')
    gm.locator("#attack-form select[name=attacker]").select_option(ids["Hero"])
    gm.locator("#attack-form select[name=target]").select_option(ids["Orc"])
    gun = gm.locator("#attack-form select[name=weapon]").evaluate(
        "(s, who) => [...s.options].findIndex((o) => o.dataset.attacker === who && /Colt/.test(o.textContent))", ids["Hero"])
    gm.locator("#attack-form select[name=weapon]").select_option(index=gun)
    gm.locator("#attack-form input[name=force]").check()
    gm.click("#attack-form button[data-attack=preview_attack]")
    expect(gm.locator("#attack-preview")).to_contain_text("Distance")
    for where in ("#combat", "#attack-preview"):
        text = gm.locator(where).inner_text()
        assert '"s' not in text and not re.search(r'\d "', text), (where, text)
    assert re.search(r'Distance \d+"', gm.locator("#attack-preview").inner_text())
