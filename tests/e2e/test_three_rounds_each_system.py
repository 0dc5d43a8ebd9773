"""Three rounds of a fight in each of the five systems, on the four screens of a real table (issue 58): the GM's
laptop, two players' phones (each opened at the LAN name, not a secure context, each with its own token) and the
table screen (TV).

Each player moves and attacks from the phone on each of their turns; the GM moves a foe and attacks a player, who
answers the defense on the phone where the rules ask for one (a Savage Worlds Soak roll too; the GM answers a
foe's); in round 2 the GM takes a player's attack back with Undo and it is rolled again; in round 3 the last foe
goes down and the GM ends the fight. After each round every screen shows the round and whose turn it is, the
phones' logs and the TV's rolls the round's last attack (phase/TN: every shot on every screen as it is rolled).
Screenshots: test-artifacts/three-rounds-<system>-<screen>-<moment>.png (round1, end). Seeded dice (test_fights).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from test_fights import GRID, ZONES, Table, choose_maneuver, declare_fire, roll_due, seeded_dice  # noqa: F401
from test_table_screens import join
from test_turns_on_phones import open_phone
from tests.helpers import live_command as command

from conftest import expect_all

pytestmark = pytest.mark.long  # a whole fight or more: run first (tests/conftest.py)

PLAYERS = ("Mira", "Theo")
FOES = ("Brute", "Goon")


class FourScreens(Table):
    """test_fights' table, its phones opened at the LAN name with a seat each (open_phone)."""

    def __init__(self, server, new_page, system: str, board: dict, places: dict):  # noqa: D107
        self.server, self.system = server, system
        status, self.game = server.api("POST", "/api/games", {"name": f"{system} three rounds", "system": system,
                                                               "map": board})
        assert status == 201, self.game
        self.gm = new_page(viewport={"width": 1280, "height": 800})
        self.gm.goto(self.game["urls"]["gm"])
        expect(self.gm.locator("#conn.ok")).to_be_visible()
        self.screen = new_page(viewport={"width": 1920, "height": 1080})
        self.screen.goto(self.game["urls"]["screen"])
        expect(self.screen.locator("#conn.ok")).to_be_attached()
        seats = {name: join(server, self.game, name) for name in PLAYERS}
        self.ids = {}
        for name, (x, y) in places.items():
            body = {"name": name, "x": x, "y": y}
            if name in seats:
                body |= {"owner": seats[name]["player_id"], "kind": "pc"}
            status, made = server.api("POST", f"/api/games/{self.game['id']}/tokens", body, self.game["gm_token"])
            assert status == 201, made
            self.ids[name] = made["id"]
            if name in FOES:  # a sheet the GM can mark down
                command(server, self.game, {"type": "add_character", "name": name, "token_id": made["id"]})
        self.names = {v: k for k, v in self.ids.items()}
        self.phones = {name: open_phone(new_page, server, self.game, seats[name]) for name in PLAYERS}
        for page in self.pages:
            expect(page.locator("#layer-tokens .token")).to_have_count(len(places))

    def fit(self, phone) -> None:
        """The whole map in the phone's frame, in the middle of the glass: clear of the turn bar at its top."""
        phone.click("[data-zoom=fit]")
        phone.evaluate("document.getElementById('map-frame').scrollIntoView({block: 'center'})")

    def shots4(self, shot, moment: str, top: bool = False) -> None:
        slug = self.system.replace("_", "-")
        for screen, page in (("gm", self.gm), ("mira", self.phones["Mira"]), ("theo", self.phones["Theo"]),
                             ("tv", self.screen)):
            if top:  # the map and the fight card, not where the last tap left the page
                page.evaluate("window.scrollTo(0, 0)")
            page.wait_for_timeout(150)
            shot(page, f"three-rounds-{slug}-{screen}-{moment}")

    def expect_attack_seen(self, text: str) -> None:
        """The attack's line: in the GM's and both phones' logs, and among the TV's rolls."""
        self.expect_in_logs(text)
        expect_all(self.screen, [("text", "#screen-feed", text)])

    def down(self, name: str) -> None:
        """The GM marks a foe's sheet down (as from the sheet editor), each system in its own terms (a foe the dice
        took down already stays as it is)."""
        sheet = next(c for c in self.state()["characters"] if c["token_id"] == self.ids[name])
        s = sheet["sheet"]
        changes = {"savage_worlds": {"incapacitated": True},
                   "gurps_lite": {"conditions": [*(s.get("conditions") or []), "unconscious"]},
                   "tesseris_ads": {"statuses": [*(s.get("statuses") or []), "Unconscious"]},
                   "atomic_tomorrow": {"wounds": 5},
                   "phase_tn": {"flesh": (sheet.get("derived") or {}).get("flesh_capacity")}}[self.system]
        status, answer = self.server.api("POST", f"/api/games/{self.game['id']}/commands",
                                         {"type": "update_sheet", "character_id": sheet["id"], "changes": changes},
                                         self.game["gm_token"])
        assert status == 200 or answer.get("error") == "nothing to change", answer  # (or down already)

    def target_for(self, phone, name: str, foes, weapon: str) -> str:
        """The foe the player may shoot now (previewed); a jammed weapon is cleared from the phone first (Tesseris)."""
        try:
            return self.pick_target(phone, name, foes, weapon)
        except AssertionError as refused:
            if "jammed" not in str(refused):
                raise
        button = phone.locator("#combat .turn-actions button", has_text="Clear Jam").first
        if not button.is_visible():  # in a folded group of the turn's actions
            group = phone.locator("#combat .turn-actions details.action-group",
                                  has=phone.locator("button", has_text="Clear Jam"))
            group.locator("summary").first.click()
        button.click()
        self.expect_in_logs(f"{name}: Clear Jam")
        return self.pick_target(phone, name, foes, weapon)

    def answer_soak(self, text: str, page, accept: bool) -> None:
        """Savage Worlds: a Wound to a Wild Card asks for a Soak roll, on the wounded token's player's phone (the
        GM's page for a foe); answered there, the prompt goes from every page."""
        if self.system != "savage_worlds" or not re.search(r"\b\d+ Wounds?\b", text):
            return
        prompt = page.locator("#soak-prompt.asking")
        expect(prompt).to_be_visible()
        prompt.locator(f"button[data-soak={'yes' if accept else 'no'}]").first.click()
        for p in (page, self.gm):
            expect(p.locator("#soak-prompt")).to_be_hidden()

    def end_fight(self) -> None:
        self.gm.once("dialog", lambda d: d.accept())
        self.gm.locator("#combat form[data-command=end_combat] button").click()
        for page in self.pages:
            expect(page.locator("#combat .turn-order li")).to_have_count(0)
        self.expect_in_logs("The fight is over")
        assert self.state()["combat"] is None

    def gm_attack(self, foe: str, weapon: str, asks_defense: bool) -> str | None:
        """The GM's foe attacks a player it may reach; the player answers the defense on the phone when asked.
        The attack's line, or None when the rules let it attack nobody now."""
        try:
            target = self.pick_target(self.gm, foe, PLAYERS, weapon)
        except AssertionError:
            return None
        defender = self.phones[target]
        before = self.attacks_seq()
        self.gm.locator("#attack-form button[data-attack=attack]").click()
        if asks_defense:
            asking = defender.locator("#defense-prompt.asking")
            expect(asking).to_be_visible()
            expect(self.screen.locator("#defense-prompt")).to_contain_text(re.compile(f"waiting for {target}'s defense",
                                                                                      re.I))
            asking.locator("button[data-defense]:enabled").first.click()
        text = self.attack_logged(before)
        self.expect_attack_seen(text)
        self.answer_soak(text, defender, accept=True)
        return text

    def gm_move(self, foe: str, to: tuple[int, int]) -> None:
        self.drag(self.gm, foe, to, check_reach=True)
        for page in self.pages:
            expect_all(page, [("attached", f'#token-{self.ids[foe]}[data-x="{to[0]}"][data-y="{to[1]}"]', None)])


def play_three_rounds(table: FourScreens, shot, *, weapon: str, moves: dict, foe_moves: dict, asks_defense: bool,
                      too_far: tuple, before_move=None, gm_before=None, screen_after_attack=None) -> dict:
    """Turns in the rules' order for three rounds (see the module's doc); what happened, counted. ``too_far``: a
    place past Theo's reach on his first turn and the reason his phone says when he drags there (after his attack);
    ``screen_after_attack``: what the table screen's turn order shows by the acting player after an attack."""
    seen = {"player_attacks": 0, "gm_attacks": 0, "undone": False, "rounds": [], "too_far": False}
    round_, last_attack, turns, acted, gm_attacked = 1, None, 0, set(), set()
    while True:
        combat = table.state()["combat"]
        if combat["round"] != round_:  # a round ended: every screen shows the next and the last attack
            assert last_attack, f"an attack in round {round_}"
            seen["rounds"].append(round_)
            round_ = combat["round"]
            assert round_ <= 3, f"both players attacked in round 3 before round 4: {sorted(acted)}"
            table.expect_attack_seen(last_attack)  # (the new round on every screen: next_turn saw it)
            last_attack = None
        name = table.whose_turn()
        if not turns:  # (each later turn on every screen, its round too: next_turn saw it)
            table.expect_turn(name, round_)
        turns += 1
        assert turns < 20
        moved = False
        if name in table.phones:
            phone = table.phones[name]
            if before_move is None or before_move(table, name):
                moved = True
                table.move(name, moves[name][round_ - 1])
                standing = [f for f in FOES if table.ids[f] in table.state()["combat"]["order"]]
                target = table.target_for(phone, name, standing, weapon)
                screen_before = " ".join(table.screen.locator("#combat").text_content().split())
                last_attack = table.roll_attack(phone)
                table.expect_attack_seen(last_attack)
                seen["player_attacks"] += 1
                if screen_after_attack:  # the screen has no log: the books the attack changed, by whose turn it is
                    expect(table.screen.locator("#combat li.current .chip", has_text=screen_after_attack)).to_have_count(1)
                if not (round_ == 2 and not seen["undone"]):  # (the one undone is not answered)
                    table.answer_soak(last_attack, table.gm, accept=False)
                acted.add((name, round_))
                if round_ == 2 and not seen["undone"]:  # the GM takes it back mid-round; rolled again
                    seen["undone"] = True
                    table.undo_attack(name, screen_before)
                    assert table.preview(phone, name, target, weapon, gm_sees=False) is None
                    last_attack = table.roll_attack(phone)
                    table.expect_attack_seen(last_attack)
                    table.answer_soak(last_attack, table.gm, accept=False)
                if round_ == 1 and seen["player_attacks"] == 1:
                    phone.wait_for_timeout(400)  # the result card's slide-in, for the picture
                    table.shots4(shot, "round1")
        else:
            if gm_before is None or gm_before(table, name):
                x, y = table.where(name)
                table.gm_move(name, foe_moves.get((name, round_), (x - 1, y)))
                if round_ not in gm_attacked:  # one foe a round attacks (the other only moves)
                    text = table.gm_attack(name, weapon, asks_defense)
                    if text:
                        gm_attacked.add(round_)
                        last_attack = text
                        seen["gm_attacks"] += 1
        if round_ == 3 and {(p, 3) for p in PLAYERS} <= acted:  # both players attacked in round 3: the last foe down
            break
        if name == "Theo" and moved and not seen["too_far"]:
            seen["too_far"] = True  # a drag past his reach: refused on his phone, the token back, nothing sent
            table.move_too_far(name, *too_far)
        if name in table.phones:
            table.end_my_turn(name)
        else:
            table.next_turn(table.gm, "Next turn")
    assert last_attack
    for foe in FOES:
        table.down(foe)
    table.expect_turn(table.whose_turn(), 3)
    table.expect_attack_seen(last_attack)
    table.end_fight()
    table.shots4(shot, "end", top=True)
    seen["rounds"].append(3)
    return seen


GRID_PLACES = {"Mira": (1, 2), "Theo": (1, 5), "Brute": (7, 3), "Goon": (7, 6)}
GRID_MOVES = {"Mira": [(2, 2), (3, 2), (4, 2)], "Theo": [(2, 5), (3, 5), (4, 5)]}


def check(seen: dict) -> None:
    assert seen["rounds"] == [1, 2, 3] and seen["undone"] and seen["too_far"], seen
    assert seen["player_attacks"] >= 6 and seen["gm_attacks"] >= 1, seen


def test_savage_worlds_three_rounds_on_four_screens(seeded_dice, server, new_page, shot):
    table = FourScreens(server, new_page, "savage_worlds", GRID, GRID_PLACES)
    table.start_fight()
    # action cards are dealt: the log names each card
    expect(table.gm.locator("#log")).to_contain_text(re.compile(r"'s turn \((?:(?:[2-9TJQKA]|10)[CDHS]|[RB]J)\)"))
    check(play_three_rounds(table, shot, weapon="Colt Peacemaker", moves=GRID_MOVES, foe_moves={},
                            asks_defense=False, too_far=((14, 5), "of movement left this turn")))
    expect(table.gm.locator("#log")).to_contain_text("is dealt")


def gurps_foe(table: FourScreens, foe: str) -> bool:
    panel = table.gm.locator("#combat .turn-actions")
    expect(panel).to_contain_text(f"{foe} may")
    if panel.locator("button", has_text="Move and Attack").count() == 0:  # stunned, down: no attack
        return False
    table.act(table.gm, "Move and Attack")
    expect(table.gm.locator("#log")).to_contain_text(f"{foe}: Move and Attack")
    return True


def gurps_player(table: FourScreens, name: str) -> bool:
    panel = table.phones[name].locator("#combat .turn-actions")
    expect(panel).to_contain_text(f"{name} may")
    if panel.locator("button", has_text="Move and Attack").count() == 0:
        return False
    choose_maneuver("Move and Attack")(table, name)
    return True


def test_gurps_lite_three_rounds_on_four_screens(seeded_dice, server, new_page, shot):
    table = FourScreens(server, new_page, "gurps_lite", GRID, GRID_PLACES)
    table.start_fight()
    check(play_three_rounds(table, shot, weapon="Pistol", moves=GRID_MOVES, foe_moves={}, asks_defense=True,
                            before_move=gurps_player, gm_before=gurps_foe,
                            too_far=((14, 5), "Move and Attack allows 4 yards a turn")))


def test_tesseris_ads_three_rounds_on_four_screens(seeded_dice, server, new_page, shot):
    table = FourScreens(server, new_page, "tesseris_ads", GRID, GRID_PLACES)
    table.start_fight()
    expect(table.gm.locator("#log")).to_contain_text("ticks")
    check(play_three_rounds(table, shot, weapon="pistol", moves=GRID_MOVES, foe_moves={}, asks_defense=True,
                            too_far=((14, 5), re.compile(r"need \d+ Move actions \(\d+ ticks\)")),
                            screen_after_attack=re.compile(r"^[0-4] ticks?$")))  # a turn starts with 5


def test_atomic_tomorrow_three_rounds_on_a_zone_map_on_four_screens(seeded_dice, server, new_page, shot):
    # Hangar (west) and Gantry (centre) side by side, the Launch pad (east) below the Hangar
    table = FourScreens(server, new_page, "atomic_tomorrow", ZONES,
                        {"Mira": (2, 3), "Theo": (3, 5), "Brute": (3, 12), "Goon": (5, 13)})
    for page in table.pages:
        expect(page.locator("#layer-zones .zone")).to_have_count(3)
    table.start_fight()
    # into the Gantry in round 1, steps inside it after; the foes step about the pad
    check(play_three_rounds(table, shot, weapon="Blast pistol", asks_defense=True,
                            moves={"Mira": [(11, 4), (12, 4), (13, 4)], "Theo": [(12, 5), (13, 5), (14, 5)]},
                            foe_moves={("Brute", 1): (4, 12), ("Brute", 2): (3, 12), ("Brute", 3): (4, 12),
                                       ("Goon", 1): (6, 13), ("Goon", 2): (5, 13), ("Goon", 3): (6, 13)},
                            too_far=((4, 13), "the move of this round is spent")))


def test_phase_tn_three_rounds_on_four_screens(seeded_dice, server, new_page, shot):
    """Phase/TN: declarations in phases, the shots due at a phase's end rolled by their owners; each round a player
    declares Fire in phase 1 and a Move later, the GM's Brute fires at Mira and moves; in round 3 the foes go down,
    the rules take them out of the order, no phone's Fire aims at anyone by default and the GM ends the fight.

    Where each list of targets starts (#33: the phone's "Your turn" bar aimed Fire at the player's friend): the attack
    cards at the fight's start (a phone's on a foe; the GM's on the foe of the attacker it picks), each player's Fire
    with one tap of the bar's Fire (never picking a target: at a foe), the GM's Fire on the fight card (at a hero),
    and every shot due (at the other side). Theo's Move past this phase's pace is refused on his phone; a rolled
    shot leaves the list on every screen; Mira's drag declares her Move and passes the turn to declare on."""
    table = FourScreens(server, new_page, "phase_tn", GRID, GRID_PLACES)
    table.start_fight()
    expect(table.gm.locator("#combat h2")).to_contain_text("phase 1 of")
    heroes = set(PLAYERS)
    for name in PLAYERS:  # the attack cards start on a foe; the GM's follows the attacker it picks
        assert table.names[table.phones[name].locator("#attack-form select[name=target]").input_value()] in FOES
    form = table.gm.locator("#attack-form")
    form.locator("select[name=attacker]").select_option(table.ids["Brute"])
    assert table.names[form.locator("select[name=target]").input_value()] in heroes
    form.locator("select[name=attacker]").select_option(table.ids["Mira"])
    assert table.names[form.locator("select[name=target]").input_value()] in FOES
    far_done = False
    done, shots, gm_shots, rounds = set(), 0, 0, []
    round_, last_attack, steps, downed, undone, aimless = 1, None, 0, False, False, 0
    while True:
        steps += 1
        assert steps < 80
        combat = table.state()["combat"]
        if combat["round"] != round_:
            assert last_attack, f"a shot in round {round_}"
            rounds.append(round_)
            round_ = combat["round"]
            assert round_ <= 3, "the last foe went down in round 3"
            table.expect_turn(table.whose_turn(), round_)
            # (the round's last shot was seen on every screen as it was rolled: the phase's resolution and the
            # new round's initiative lines have pushed it out of the phones' short logs since)
        name = table.whose_turn()
        table.expect_turn(name, round_)
        first_phase = combat["phase"].startswith("phase 1")
        standing = [f for f in FOES if table.ids[f] in combat["order"]]
        if downed and not standing and not combat["due"] and {(p, 3, "move") for p in PLAYERS} <= done:
            break
        if combat["due"]:
            due = combat["due"][0]
            who, whom = table.names[due["attacker"]], table.names[due["target"]]
            assert (who in heroes) != (whom in heroes), f"{who} shoots his friend {whom}"
            page = table.phones.get(who, table.gm)
            if page is not table.gm:  # the player looks at the odds first
                table.preview(page, who, whom, "Sidearm")
            screen_before = " ".join(table.screen.locator("#combat").text_content().split())
            last_attack = roll_due(table, page, who, whom)
            table.expect_attack_seen(last_attack)
            left = len([d for d in table.state()["combat"]["due"] if d["attacker"] == due["attacker"]])
            for p in table.pages:  # the rolled shot leaves the list on every screen
                expect(p.locator("#combat ul.due li", has_text=f"{who} → {whom}")).to_have_count(left)
            shots += 1
            gm_shots += who in FOES
            if round_ == 2 and not undone:  # the GM takes the shot back mid-round: due again, rolled again
                undone = True
                table.undo_attack(name, screen_before)
                expect(table.screen.locator("#combat ul.due")).to_contain_text(f"{who} → {whom}")
                last_attack = roll_due(table, page, who, whom)
                table.expect_attack_seen(last_attack)
            if shots == 1:
                table.shots4(shot, "round1")
        elif name is None:  # declarations are done: the GM resolves the phase
            expect(table.gm.locator("#log")).to_contain_text("Declarations are done")
            if round_ == 3 and not downed:  # the last foe falls (the GM's sheet): the phase takes it out
                downed = True
                for foe in standing:
                    table.down(foe)
            table.next_turn(table.gm, "Next turn")
        elif name in table.phones:
            phone = table.phones[name]
            if downed and not standing:  # no foe stands: the bar's Fire aims at no one by default (#58)
                fire = phone.locator("#turn-bar form.bar-act select[name='options.target']")
                expect(fire.first).to_have_value("")
                aimless += 1
            if first_phase and (name, round_, "fire") not in done and standing:
                done.add((name, round_, "fire"))
                expect(phone.locator("#turn-bar.my-turn .who")).to_contain_text(name)  # the phone is at this turn
                fire = phone.locator("#turn-bar form.bar-act",
                                     has=phone.locator("button", has_text=re.compile(r"^Fire$")))
                at = table.names[fire.locator("select[name='options.target']").input_value()]
                assert at in standing, f"{name}'s bar aims at {at}"
                fire.locator("button").click()  # one tap, the target as the bar chose it
                table.expect_in_logs(f"{name} declares Fire at {at}")
            elif not first_phase and (name, round_, "move") not in done:
                done.add((name, round_, "move"))
                x, y = table.where(name)
                if name == "Theo":  # declared in the panel, then dragged
                    table.act(phone, "Declare a Move")
                    table.expect_in_logs(f"{name} declares Move")
                    if not far_done:  # past this phase's pace: refused on his phone, the token back
                        far_done = True
                        table.move_too_far(name, (x + 5, y), re.compile(r"can move \d+ more squares? this phase"))
                table.move(name, (x + 1, y))  # Mira's plain drag declares it
                table.expect_in_logs(f"{name} declares")
                if name == "Mira":  # and the turn to declare passes on
                    after = table.whose_turn()
                    assert after != name
                    table.expect_turn(after)
                    if after:
                        table.expect_in_logs(f"{after}'s turn to declare")
            else:
                table.end_my_turn(name)
                table.expect_in_logs(f"{name} declares no new action")
        else:  # the GM's foes: Brute fires at Mira in phase 1 and moves later; Goon holds
            if name == "Brute" and first_phase and (name, round_, "fire") not in done:
                done.add((name, round_, "fire"))
                item = table.gm.locator("#combat .turn-actions li",
                                        has=table.gm.locator("button", has_text=re.compile(r"^Fire$")))
                at = table.names[item.locator("select[name='options.target']").input_value()]
                assert at in heroes, f"{name}'s Fire aims at {at}"  # the card starts on a hero
                declare_fire(table, table.gm, name, "Mira")
            elif name == "Brute" and not first_phase and (name, round_, "move") not in done:
                done.add((name, round_, "move"))
                x, y = table.where(name)
                table.gm_move(name, (x - 1, y))
                table.expect_in_logs(f"{name} declares")
            else:
                table.act(table.gm, "No new action this phase")
                table.expect_in_logs(f"{name} declares no new action")
    # no foe stands: the GM is offered End fight first, in round 3
    expect(table.gm.locator("#combat .no-foe-standing")).to_contain_text("No foe is left standing")
    expect(table.gm.locator("#combat form[data-command=end_combat] button.primary")).to_be_visible()
    table.gm.locator("#combat .no-foe-standing").scroll_into_view_if_needed()
    shot(table.gm, "three-rounds-phase-tn-gm-no-foe-standing")
    assert table.state()["combat"]["round"] == 3
    table.end_fight()
    table.shots4(shot, "end", top=True)
    assert rounds == [1, 2] and undone and gm_shots >= 1 and shots >= 6 and aimless >= 1 and far_done, \
        (rounds, undone, gm_shots, shots, aimless, far_done)
    assert {(p, r, a) for p in PLAYERS for r in (1, 2, 3) for a in ("fire", "move")} <= done, sorted(done)


def test_the_gms_attack_card_keeps_the_attacker_picked_when_its_nearest_foe_changes(server, new_page):
    """Seen at the end of the Tesseris and Atomic Tomorrow fights: the GM's card read "Mira -> Mira". The GM
    picks Brute to attack Mira; Theo then stands nearer to Brute, so the nearest-foe hint of Brute's option
    (data-aim) is another in the card drawn afresh (here for a sheet added; there for the foes marked down): the
    card keeps Brute as the attacker (live.js had taken the hint for part of the option's identity, dropped Brute
    for the server's default, Mira, and kept the target Mira: a token aimed at itself)."""
    status, game = server.api("POST", "/api/games", {"name": "Picked", "system": "gurps_lite", "map": GRID})
    assert status == 201, game
    mira, theo = (join(server, game, name) for name in PLAYERS)
    ids = {}
    for name, (x, y), seat in (("Mira", (1, 2), mira), ("Theo", (1, 6), theo), ("Brute", (7, 2), None)):
        body = {"name": name, "x": x, "y": y, **({"owner": seat["player_id"], "kind": "pc"} if seat else {})}
        ids[name] = server.api("POST", f"/api/games/{game['id']}/tokens", body, game["gm_token"])[1]["id"]
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    form = gm.locator("#attack-form")
    form.locator("select[name=attacker]").select_option(ids["Brute"])
    form.locator("select[name=target]").select_option(ids["Mira"])
    brute = form.locator(f"select[name=attacker] option[value='{ids['Brute']}']")
    expect(brute).to_have_attribute("data-aim", ids["Mira"])
    command(server, game, {"type": "move_token", "token_id": ids["Theo"], "x": 8, "y": 2})  # now nearest to Brute
    expect(gm.locator(f'#token-{ids["Theo"]}[data-x="8"]')).to_be_attached()
    command(server, game, {"type": "add_character", "name": "Brute", "token_id": ids["Brute"]})  # the card drawn afresh
    expect(brute).to_have_attribute("data-aim", ids["Theo"])  # the fresh card is in, with Brute's new nearest foe
    expect(form.locator("select[name=attacker]")).to_have_value(ids["Brute"])
    expect(form.locator("select[name=target]")).to_have_value(ids["Mira"])
