"""The table's own dice through a whole fight (#59's browser acceptance): a Savage Worlds and a 3d6 fight of three
rounds with the table rolling. The GM on a laptop with two foes, Mira's and Tomás's phones (at the LAN name: not a
secure context) with a PC each, the table screen. The GM sets the table rolling on the GM page; Tomás ticks "the app
rolls for me" on his phone. Each round every token attacks: the players from their phones' attack card, the GM's
foes through the command API. Every roll the table is asked is answered on the device that is asked (the roller's
phone, the GM's page for a foe): the pad is there and on no other phone, its sentence says what to roll, the table
screen says who rolls, and the faces tapped decide the outcome (planned faces for the rolls that matter, a default
face for any roll not planned, so a roll that becomes the table's later still plays). The defender enters a defense
(3d6) or a Soak roll with a Benny (Savage Worlds) on the phone; an ace chain is entered on the pad; a phone loses
the Wi-Fi mid-entry, comes back to the same pad and finishes. Real Chromium, real server."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Callable

import pytest
from playwright.sync_api import expect

from conftest import OFFLINE
from test_table_screens import add_token, join
from test_turns_on_phones import new_game, open_phone, open_screen, seeded_dice  # noqa: F401
from tests.helpers import live_command as command

pytestmark = pytest.mark.long  # a whole fight or more: run first (tests/conftest.py)

PLACES = {"Ann": (3, 2), "Brute": (4, 2), "Ben": (3, 5), "Goon": (4, 5)}
OWNERS = {"Ann": "Mira", "Ben": "Tomás"}
FOE_OF = {"Ann": "Brute", "Brute": "Ann", "Ben": "Goon", "Goon": "Ben"}
SETTLE = 30.0  # seconds a command's rolls, defenses and soaks may take to be played out


@dataclass
class Roll:
    """A roll planned for one action: the faces its roller's device enters for the first roll asked of ``roller``
    whose purpose says ``about`` (lower case), in the order rolled (an ace's next face right after it)."""

    roller: str
    about: str
    faces: list[int]
    offline_after: int | None = None  # the phone loses the Wi-Fi after this many faces tapped
    used: bool = False


@dataclass
class Act:
    """What a token does on its turn in a round: its planned rolls (and those of the rolls its attack asks of
    others), whether a Soak offer it causes is taken, and what the faces must have done."""

    rolls: list[Roll] = field(default_factory=list)
    soak: bool = False
    then: Callable[["Fight", dict], None] | None = None


class Fight:
    """One game on the live server, the GM's page, two phones and the table screen."""

    def __init__(self, server, new_page, shot, system: str, weapon: str):
        self.server, self.shot, self.weapon, self.system = server, shot, weapon, system
        self.game = new_game(server, system, {"width": 12, "height": 8}, name=f"Table dice {system}")
        self.players = {name: join(server, self.game, name) for name in ("Mira", "Tomás")}
        self.ids = {}
        for name, (x, y) in PLACES.items():
            owner = OWNERS.get(name)
            extra = {"owner": self.players[owner]["player_id"], "kind": "pc"} if owner else {}
            self.ids[name] = add_token(server, self.game, name, x, y, **extra)
        self.names = {v: k for k, v in self.ids.items()}
        self.gm = new_page(viewport={"width": 1280, "height": 900})
        self.gm.goto(self.game["urls"]["gm"])
        expect(self.gm.locator("#conn.ok")).to_be_visible()
        self.phones = {name: open_phone(new_page, server, self.game, p) for name, p in self.players.items()}
        self.screen = open_screen(new_page, self.game)
        self.asked: list[tuple[str, str, str]] = []  # (roller, purpose, dice) of every roll the table was asked
        self.attacks = dict.fromkeys(PLACES, 0)  # attacks made, by token
        self.shots_taken: set[str] = set()

    # --- reading ------------------------------------------------------------------

    def state(self) -> dict:
        status, body = self.server.api("GET", f"/api/games/{self.game['id']}/state", token=self.game["gm_token"])
        assert status == 200, body
        return body

    def token(self, s: dict, name: str) -> dict:
        return next(t for t in s["tokens"] if t["id"] == self.ids[name])

    def page_of(self, name: str):
        """The device that enters this token's rolls and answers its prompts: its player's phone, the GM's page for
        a foe."""
        return self.phones[OWNERS[name]] if name in OWNERS else self.gm

    def press(self, page, target) -> None:
        """Press ``target`` on ``page`` as its user does: a finger's tap on a phone (a touch context at the LAN name,
        #70), the mouse on the GM's page."""
        if page is self.gm:
            target.click()
        else:
            target.tap()

    def log_since(self, s: dict, seq: int) -> list[str]:
        return [e["text"] for e in s["log"] if e["seq"] > seq]

    def attacks_since(self, s: dict, seq: int) -> list[dict]:
        return [e for e in s["log"] if e["seq"] > seq and (e.get("detail") or {}).get("attack")]

    # --- what the screens ask --------------------------------------------------------

    def settle(self, done: Callable[[dict], bool], act: Act | None = None) -> dict:
        """Play out whatever the game waits for (a roll on the device asked, a defense, a Soak offer, a Benny
        reroll) until ``done`` holds of the state."""
        deadline = time.monotonic() + SETTLE
        while True:
            s = self.state()
            if s["pending_roll"]:
                self.answer(s["pending_roll"], act)
            elif s["pending_defense"]:
                self.defend(s["pending_defense"])
            elif s["pending_soak"]:
                self.soak(s["pending_soak"]["offers"][0], act)
            elif s["pending_reroll"]:
                self.keep_roll(s["pending_reroll"])
            elif done(s):
                return s
            else:
                assert time.monotonic() < deadline, f"the game never settled: {self.log_since(s, s['seq'] - 6)}"
                self.gm.wait_for_timeout(100)

    def gone(self, key: str, old) -> None:
        """Wait until the state's ``key`` is no longer ``old``, or a roll is asked for (a soak's, a defense's)."""
        deadline = time.monotonic() + SETTLE
        while True:
            s = self.state()
            if s[key] != old or (key != "pending_roll" and s["pending_roll"]):
                return
            assert time.monotonic() < deadline, f"{key} stayed {old}"
            self.gm.wait_for_timeout(100)

    def answer(self, pending: dict, act: Act | None) -> None:
        """A roll the table makes: its pad is on the roller's device and on no other phone, says what to roll, the
        table screen says who rolls; the planned faces (or a default face for each die) are tapped and sent."""
        roller = self.names[pending["roller_id"]]
        assert roller != "Ben", f"the app rolls for Tomás, yet the table was asked for Ben's {pending['purpose']}"
        self.asked.append((roller, pending["purpose"], pending["dice"]))
        page = self.page_of(roller)
        pad = page.locator(f"#roll-prompt.asking[data-roll='{pending['id']}']")
        expect(pad).to_be_visible()
        # a purpose that names its roller ("turn order: Goon for the GM's side") is said alone (#70)
        named = pending["named"]
        expect(pad.locator("h2")).to_have_text(f"Roll {pending['purpose']}" if named
                                               else f"{roller}: roll {pending['purpose']}")
        expect(pad.locator(".dice-expr")).to_have_text(pending["dice"])
        assert pending["needs"], "the ask says what counts"
        expect(pad.locator(".needs")).to_contain_text(pending["needs"])
        if page is not self.gm:  # the GM may enter anyone's roll: the pad is on the GM's page too
            expect(self.gm.locator(f"#roll-prompt.asking[data-roll='{pending['id']}']")).to_be_attached()
        for name, phone in self.phones.items():
            if phone is not page:  # another phone: who rolls, no pad
                expect(phone.locator("#roll-prompt")).to_contain_text(
                    f"{pending['purpose']} is being rolled" if named else f"{roller} rolls")
                expect(phone.locator("#roll-prompt.asking")).to_have_count(0)
        expect(self.screen.locator("#roll-prompt .waiting")).to_contain_text(
            f"{pending['purpose']} is being rolled" if named else f"{roller} rolls {pending['purpose']}")
        expect(self.screen.locator("#roll-prompt.asking")).to_have_count(0)
        if page is self.gm and "gm-pad" not in self.shots_taken:
            self.shots_taken.add("gm-pad")
            self.shot(self.gm, f"table-dice-fight-gm-pad-{self.system}")
        if "screen" not in self.shots_taken:
            self.shots_taken.add("screen")
            self.shot(self.screen, f"table-dice-fight-screen-rolls-{self.system}")
        if page is not self.gm and "soak" in pending["purpose"].lower() and "soak" not in self.shots_taken:
            self.shots_taken.add("soak")  # the Soak offer taken gave way to its roll's pad
            expect(page.locator("#soak-prompt.asking")).to_have_count(0)
            self.shot(page, f"table-dice-fight-phone-soak-{self.system}")
        dice = json.loads(pad.locator("[data-roll-pad]").get_attribute("data-pad"))
        plan = next((r for r in (act.rolls if act else []) if not r.used and r.roller == roller
                     and r.about in pending["purpose"].lower()), None)
        if plan is not None:
            plan.used = True
        faces = plan.faces if plan else default_faces(dice, pending["purpose"])
        self.tap(page, pad, dice, faces, plan.offline_after if plan else None)
        expect(pad.locator("[data-roll-faces]")).to_have_value(" ".join(map(str, faces)))
        self.press(page, pad.locator("[data-roll-done]"))
        self.gone("pending_roll", pending)

    def tap(self, page, pad, dice: list[dict], faces: list[int], offline_after: int | None) -> None:
        """Tap the faces on the pad, die by die: after an exploding die's top face the pad asks for it again."""
        at = 0
        for i, face in enumerate(faces):
            if offline_after is not None and i == offline_after:
                page.context.set_offline(True)
            die = dice[at]
            self.press(page, pad.locator(".roll-faces button", has_text=re.compile(rf"^{face}$")).first)
            if die["again"] is not None and face >= die["again"]:
                expect(pad.locator(".roll-ask")).to_contain_text(f"Ace! Roll the d{die['sides']} again")
                if page is not self.gm and "ace" not in self.shots_taken:
                    self.shots_taken.add("ace")
                    self.shot(page, f"table-dice-fight-phone-ace-{self.system}")
            else:
                at += 1
        if offline_after is not None:  # the Wi-Fi is back: the same pad, the faces tapped still there
            expect(page.locator("#conn.ok")).to_have_count(0)
            page.context.set_offline(False)
            expect(page.locator("#conn.ok")).to_be_visible()
            expect(pad).to_be_visible()
        expect(pad.locator("[data-roll-done]")).to_be_enabled()

    def defend(self, pending: dict) -> None:
        """The defender's device picks its first defense (the roll comes next, on the same device)."""
        page = self.page_of(self.names[pending["target_id"]])
        self.press(page, page.locator(f"#defense-prompt.asking[data-attack='{pending['id']}'] button[data-defense]").first)
        self.gone("pending_defense", pending)

    def soak(self, offer: dict, act: Act | None) -> None:
        """A Soak offer: the wounded token's device spends a Benny on it where planned, else takes the Wounds."""
        name = offer["target"]
        take = act is not None and act.soak and name in OWNERS
        page = self.page_of(name)
        prompt = page.locator("#soak-prompt.asking")
        expect(prompt).to_contain_text(f"{name}: soak?")
        before = self.state()["pending_soak"]
        self.press(page, prompt.locator(f"button[data-soak={'yes' if take else 'no'}]").first)
        if take:
            act.soak = False  # one Soak roll a plan
        self.gone("pending_soak", before)

    def keep_roll(self, offer: dict) -> None:
        page = self.page_of(offer["attacker"])
        self.press(page, page.locator("#reroll-prompt.asking button[data-reroll=no]"))
        self.gone("pending_reroll", offer)

    # --- turns ---------------------------------------------------------------------

    def attack(self, name: str, act: Act) -> bool:
        """``name`` attacks its foe (a player from the phone's attack card, a foe through the GM's command API) and
        every roll it asks is played out; False when the foe is out of the fight or the rules refuse the attack."""
        s = self.state()
        foe = FOE_OF[name]
        if self.ids[foe] not in s["combat"]["order"] or self.ids[name] not in s["combat"]["order"]:
            return False
        seq = s["seq"]
        if name in OWNERS:
            phone = self.phones[OWNERS[name]]
            phone.evaluate("document.getElementById('flash').className = 'flash'")
            form = phone.locator("#attack-form")
            form.locator("select[name=target]").select_option(self.ids[foe])
            index = form.locator("select[name=weapon]").evaluate(
                "(s, [who, key]) => [...s.options].findIndex((o) => o.dataset.attacker === who && o.value === key)",
                [self.ids[name], self.weapon])
            assert index >= 0, f"{name} has no {self.weapon}"
            form.locator("select[name=weapon]").select_option(index=index)
            form.locator("button[data-attack=attack]").tap()
            if name == "Ben":  # the app rolls for Tomás: his phone never asks while his attack is made
                expect(phone.locator("#roll-prompt.asking")).to_have_count(0)
        else:
            status, body = self.server.api("POST", f"/api/games/{self.game['id']}/commands",
                                           {"type": "attack", "attacker": self.ids[name], "target": self.ids[foe],
                                            "weapon": self.weapon}, self.game["gm_token"])
            if status != 200:
                return False
        refused = self.phones[OWNERS[name]].locator("#flash.shown.error") if name in OWNERS else None

        def done(st):
            return bool(self.attacks_since(st, seq)) or bool(refused and refused.count())
        s = self.settle(done, act)
        if not self.attacks_since(s, seq):
            return False
        self.attacks[name] += 1
        missed = [r for r in act.rolls if not r.used]
        assert not missed, f"{name}'s planned rolls never asked: {missed}; asked: {self.asked[-6:]}"
        if name == "Ben":
            expect(self.phones["Tomás"].locator("#roll-prompt.asking")).to_have_count(0)
        if act.then:
            act.then(self, s)
        return True

    def end_turn(self, name: str) -> None:
        """End the turn: the player with End my turn at the phone's top, the GM with Next turn; whatever the next
        turn asks (a Shaken token's Spirit roll...) is played out."""
        s = self.state()
        key = (s["combat"]["round"], s["combat"]["current"])
        if name in OWNERS:
            self.phones[OWNERS[name]].locator("#turn-bar button", has_text="End my turn").tap()
        else:
            self.gm.locator("#combat button", has_text="Next turn").click()
        self.settle(lambda st: (st["combat"]["round"], st["combat"]["current"]) != key)

    def play(self, plan: dict[tuple[int, str], Act], rounds: int = 3) -> None:
        """Turns in the order the rules deal them: each token attacks (with its plan for the round), then its turn
        ends; until round ``rounds + 1`` begins. ``plan[(0, "start")]``: the rolls of the fight's start (the
        3d6 system's Tactics contest of each side's leader)."""
        s = self.settle(lambda st: st["combat"] is not None and st["combat"]["current"] is not None,
                        plan.get((0, "start")))
        done: set = set()
        steps = 0
        while s["combat"]["round"] <= rounds:
            steps += 1
            assert steps < 60, "the fight went round in circles"
            name = self.names[s["combat"]["current"]]
            key = (s["combat"]["round"], name)
            if key not in done:
                done.add(key)
                act = plan.get(key, Act())
                attacked = self.attack(name, act)
                assert attacked or key not in plan, f"{name}'s planned attack in round {key[0]} was not made"
            self.end_turn(name)
            s = self.state()
        assert s["combat"]["round"] == rounds + 1
        unplayed = [k for k in plan if k not in done and k[0] > 0]
        assert not unplayed, f"planned turns never came: {unplayed}"

    def no_pad_for_tomas(self) -> None:
        """Tomás's phone never showed a pad (nor left the page, which would have dropped what it noted)."""
        assert self.phones["Tomás"].evaluate("window.padsShown") == []

    def start(self) -> None:
        """The GM sets the table rolling on the GM page; Tomás ticks "the app rolls for me"; the fight starts."""
        form = self.gm.locator("form[data-command=set_dice]")
        form.locator("select[name=mode]").select_option("table")
        form.locator("button[type=submit]").click()
        expect(self.gm.locator("#log")).to_contain_text("The table rolls its own dice")
        tomas = self.phones["Tomás"].locator("form[data-command=set_dice]")
        tomas.locator("input[name=app_rolls]").tap()
        expect(tomas.locator("input[name=app_rolls]")).to_be_checked()
        tomas.locator("button[type=submit]").tap()
        for page in (self.gm, *self.phones.values()):
            expect(page.locator("#log")).to_contain_text("Who the app rolls for: Tomás")
        assert self.state()["dice"]["app_rolls_for"] == [self.players["Tomás"]["player_id"]]
        # from now on, Tomás's phone notes any pad it shows (there must be none: the app rolls his dice)
        self.phones["Tomás"].evaluate("""() => {
            window.padsShown = [];
            const look = () => document.querySelectorAll("#roll-prompt.asking").forEach(
                (p) => window.padsShown.push(p.querySelector("h2") ? p.querySelector("h2").textContent : "?"));
            new MutationObserver(look).observe(document.body, {subtree: true, childList: true, attributes: true,
                                                               attributeFilter: ["class", "hidden"]});
        }""")
        command(self.server, self.game, {"type": "start_combat", "token_ids": list(self.ids.values())})


def default_faces(dice: list[dict], purpose: str) -> list[int]:
    """A face for each die of a roll no plan names: damage low (2), an exploding die's face below its top (a trait
    roll succeeds, no ace), a 3d6 die 2 (a check of 6: made, no critical)."""
    out = []
    for d in dice:
        if "damage" in purpose.lower() or d["again"] is None:
            out.append(min(2, d["sides"]))
        else:
            out.append(d["again"] - 1)
    return out


def in_log(*texts: str | re.Pattern) -> Callable[[Fight, dict], None]:
    """The GM's log and Mira's say each of ``texts``."""
    def check(fight: Fight, s: dict) -> None:
        for t in texts:
            expect(fight.gm.locator("#log")).to_contain_text(t)
            expect(fight.phones["Mira"].locator("#log")).to_contain_text(t)
    return check


@pytest.mark.console_errors(*OFFLINE, why="a phone loses the Wi-Fi mid-entry (set_offline)")
def test_a_savage_worlds_fight_of_three_rounds_with_the_table_rolling(seeded_dice, server, new_page, shot):
    fight = Fight(server, new_page, shot, "savage_worlds", "Long sword")
    fight.start()

    def brute_shaken(f: Fight, s: dict) -> None:
        # 8, ace, 3: 11 with the Wild Die's 2 against Parry 6, a raise; 3 + 3 + the raise's 2 = 8 against
        # Toughness 7: Shaken, no Wound
        in_log("Ann hits Brute: hit with 1 raise: 8 damage vs Toughness 7, Shaken")(f, s)
        assert f.token(s, "Brute")["sheet"]["shaken"] is True
        assert f.token(s, "Brute")["sheet"]["wounds"] == 0

    def ann_soaked(f: Fight, s: dict) -> None:
        # 6 (Wild Die 1) against Parry 6: a hit; 5 + 7 = 12 against Toughness 7: a Wound, soaked by Vigor 5
        in_log("Brute hits Ann: hit: 12 damage vs Toughness 7, 1 Wound",
               "Ann spends a Benny on a Soak roll: Vigor 5, soaks 1 of 1 Wound")(f, s)
        assert f.token(s, "Ann")["sheet"]["wounds"] == 0
        assert f.token(s, "Ann")["sheet"]["bennies"] == 2

    def ann_wounded(f: Fight, s: dict) -> None:
        # Fighting 6 (Wild Die 1) against Parry 6: a hit; the GM's ace chain 6, 1 with the d8's 7: 14 against
        # Toughness 7, a raise: a Wound, which Mira takes (the Soak offer's other answer)
        in_log("Brute hits Ann: hit: 14 damage vs Toughness 7, 1 Wound")(f, s)
        assert f.token(s, "Ann")["sheet"]["wounds"] == 1

    def ann_missed(f: Fight, s: dict) -> None:
        in_log("Brute misses Ann")(f, s)

    plan = {
        (1, "Ann"): Act([Roll("Ann", "fighting", [8, 3, 2]),
                         Roll("Ann", "damage", [3, 3], offline_after=1), Roll("Ann", "bonus", [2])], then=brute_shaken),
        (1, "Brute"): Act([Roll("Brute", "fighting", [6, 1]),
                           Roll("Brute", "damage", [5, 7]), Roll("Ann", "vigor", [5, 2])],
                          soak=True, then=ann_soaked),
        (2, "Brute"): Act([Roll("Brute", "fighting", [6, 1]),
                           Roll("Brute", "damage", [6, 1, 7])], then=ann_wounded),
        (3, "Brute"): Act([Roll("Brute", "fighting", [2, 2])], then=ann_missed),
    }
    fight.play(plan)
    s = fight.state()
    assert fight.token(s, "Ann")["sheet"]["wounds"] == 1
    assert any(r[0] == "Ann" and "vigor" in r[1].lower() for r in fight.asked), "Mira's phone asked for the Soak roll"
    assert fight.attacks == {"Ann": 3, "Brute": 3, "Ben": 3, "Goon": 3}, fight.attacks
    fight.no_pad_for_tomas()
    assert {"gm-pad", "ace", "soak", "screen"} <= fight.shots_taken


@pytest.mark.console_errors(*OFFLINE, why="a phone loses the Wi-Fi mid-entry (set_offline)")
def test_a_3d6_fight_of_three_rounds_with_the_table_rolling(seeded_dice, server, new_page, shot):
    fight = Fight(server, new_page, shot, "gurps_lite", "Broadsword")
    fight.start()

    def brute_hurt(f: Fight, s: dict) -> None:
        # 10 against Broadsword 13: a hit; Brute's defense 17 fails; 4 + 2 = 6 cutting against DR 4 (less than twice
        # the DR: wounds as crushing): 2 injury
        in_log("Ann attacks Brute: Broadsword: 10 vs 13 (success)", "1 hit, 2 injury")(f, s)
        assert f.token(s, "Brute")["sheet"]["hp_current"] == 9

    def ann_hurt(f: Fight, s: dict) -> None:
        # 10: a hit (against 13, or 11 with the shock of Ann's hit); Ann's defense 17 fails (entered with the Wi-Fi
        # lost mid-way); 5 + 2 = 7 against DR 4: 3 injury
        in_log("Brute attacks Ann: Broadsword: 10 vs", "fails, 1 hit, 3 injury")(f, s)
        assert f.token(s, "Ann")["sheet"]["hp_current"] == 8

    def ann_missed(f: Fight, s: dict) -> None:
        in_log("Ann attacks Brute: Broadsword: 15 vs")(f, s)
        assert f.token(s, "Brute")["sheet"]["hp_current"] == 9

    def ann_defended(f: Fight, s: dict) -> None:
        # Brute's 10 hits; Ann's 6 defends
        in_log(re.compile(r"Brute attacks Ann: Broadsword: 10 vs \d+ \(success\), \w+ succeeds"))(f, s)
        assert f.token(s, "Ann")["sheet"]["hp_current"] == 8

    def brute_defended(f: Fight, s: dict) -> None:
        # Ann's 9 hits; Brute's 6 parries or blocks
        in_log(re.compile(r"Ann attacks Brute: Broadsword: 9 vs \d+ \(success\), \w+ succeeds"))(f, s)
        assert f.token(s, "Brute")["sheet"]["hp_current"] == 9

    plan = {
        # the Tactics contest of each side's leader: the players' side acts first
        (0, "start"): Act([Roll("Ann", "turn order", [1, 1, 2]), Roll("Brute", "turn order", [6, 6, 5]),
                           Roll("Goon", "turn order", [6, 6, 5])]),
        (1, "Ann"): Act([Roll("Ann", "broadsword", [3, 3, 4]), Roll("Brute", "defense", [6, 6, 5]),
                         Roll("Ann", "damage", [4])], then=brute_hurt),
        (1, "Brute"): Act([Roll("Brute", "broadsword", [3, 3, 4]), Roll("Ann", "defense", [6, 6, 5], offline_after=2),
                           Roll("Brute", "damage", [5])], then=ann_hurt),
        (2, "Ann"): Act([Roll("Ann", "broadsword", [5, 5, 5])], then=ann_missed),
        (2, "Brute"): Act([Roll("Brute", "broadsword", [3, 3, 4]), Roll("Ann", "defense", [1, 2, 3])],
                          then=ann_defended),
        (3, "Ann"): Act([Roll("Ann", "broadsword", [2, 3, 4]), Roll("Brute", "defense", [1, 2, 3])],
                        then=brute_defended),
    }
    fight.play(plan)
    s = fight.state()
    assert fight.token(s, "Ann")["sheet"]["hp_current"] == 8
    assert fight.token(s, "Brute")["sheet"]["hp_current"] == 9
    assert any(r[0] == "Ann" and "defense" in r[1].lower() for r in fight.asked), "Mira's phone asked for her defense"
    assert fight.attacks == {"Ann": 3, "Brute": 3, "Ben": 3, "Goon": 3}, fight.attacks
    fight.no_pad_for_tomas()
    assert {"gm-pad", "screen"} <= fight.shots_taken
