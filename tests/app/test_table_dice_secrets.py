"""The table's own dice keep the GM's secrets (#72, finding 1): while a roll waits, a player and the table screen are
told that a foe rolls and what for, never a hidden foe's name (in any field of the waiting structures, in the whole
state, in the live updates or in a command's answer), nor a seen foe's numbers (its dice, what counts, its chance and
odds: they tell its sheet). In each of the five systems: the fight's start (initiative, turn order) with a hidden foe
in it, then a seen foe's and the hidden foe's attacks on the player's token, every roll the rules ask answered."""

from __future__ import annotations

import html
import json

import pytest

from webapp.game.core import waits

from tests.helpers import bearer, command, connect, join, new_game, state

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="7")

SYSTEMS = ("savage_worlds", "gurps_lite", "tesseris_ads", "atomic_tomorrow", "phase_tn")
PORT = {"zones": [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]},
                  {"id": "bay", "name": "Cargo Bay", "adjacent": ["pad"]}]}
HIDDEN = "ZqShade"
WAITING = ("pending_roll", "pending_defense", "pending_soak", "pending_reroll")


def received(sock) -> str:
    """Everything a live link was sent since last asked, as text a person would read (html's escapes undone)."""
    return html.unescape(json.dumps([m["args"] for m in sock.get_received()], ensure_ascii=False))


class Table:
    """Mira's Hero, the seen Ogre and the hidden ZqShade in one fight, the table rolling its own dice; Mira's phone
    and the table screen listening."""

    def __init__(self, app, client, system: str) -> None:
        self.app, self.client = app, client
        zones = system == "atomic_tomorrow"
        self.g = g = new_game(client, system, PORT if zones else {"width": 12, "height": 8}, name="Ambush")
        self.p = join(client, g, "Mira")
        self.ids = {}
        for name, (x, y), owner, hidden in (("Hero", (2, 2), self.p["player_id"], False),
                                            ("Ogre", (3, 2), None, False), (HIDDEN, (2, 3), None, True)):
            where = {"zone": "pad"} if zones else {"x": x, "y": y}  # both foes beside Hero
            body = {"name": name, **where, "hidden": hidden,
                    **({"owner": owner, "kind": "pc"} if owner else {})}
            r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
            assert r.status_code == 201, r.json
            self.ids[name] = r.json["id"]
            r = command(client, g, {"type": "add_character", "name": name, "token_id": self.ids[name]})
            assert r.status_code == 200, r.json
        assert command(client, g, {"type": "set_dice", "mode": "table"}).status_code == 200
        self.keys = {"Mira": self.p["player_token"], "screen": g["screen_token"]}
        self.links = {who: connect(app, g["id"], key) for who, key in self.keys.items()}
        for sock in self.links.values():
            sock.get_received()
        self.answers: list[dict] = []  # what Mira's own commands were answered
        self.foe_rolls: list[str] = []  # the foes' rolls checked (the GM's words for them)

    def check(self, when: str) -> None:
        """What Mira and the screen hold and were sent now: no word of the hidden foe; no number of a foe's roll."""
        gm = state(self.client, self.g)
        roll = gm["pending_roll"]
        foe = roll is not None and roll["roller"] in ("Ogre", HIDDEN)
        secrets = [HIDDEN]
        if foe:
            self.foe_rolls.append(f"{roll['roller']}: {roll['purpose']}")
            secrets += [w for w in (roll["needs"], roll["odds"]) if w]
        for who, key in self.keys.items():
            mine = state(self.client, self.g, key)
            live = received(self.links[who])
            for field in WAITING:
                text = json.dumps(mine[field], ensure_ascii=False)
                for secret in secrets:
                    assert secret not in text, (when, who, field, secret, mine[field])
            whole = json.dumps(mine, ensure_ascii=False)
            for secret in secrets:
                assert secret not in whole, (when, who, "state", secret)
                assert secret not in live, (when, who, "live", secret, live)
            if foe:
                told = mine["pending_roll"]
                assert told is not None and told["purpose"], (when, who, told)  # that a foe rolls, and what for
                assert told["needs"] == "" and told["chance"] is None and told["odds"] == "", (when, who, told)
                assert "dice" not in told and "pad" not in told, (when, who, told)
                if roll["roller"] == HIDDEN:
                    assert told["roller"] is None and told["roller_id"] is None, (when, who, told)
        for answer in self.answers:
            assert HIDDEN not in json.dumps(answer) and self.ids[HIDDEN] not in json.dumps(answer), (when, answer)
            ask = answer.get("pending_roll") or {}
            if ask.get("roller_id") is not None:  # an answer may tell Mira of her own rolls' numbers alone
                assert ask["roller_id"] == self.ids["Hero"], (when, answer)
            else:
                assert set(ask) <= {"id"}, (when, answer)
        self.answers.clear()

    def settle(self, when: str) -> None:
        """Check, then answer what waits (a defense on Mira's phone; a roll: the app rolls it), until nothing does."""
        for step in range(60):
            self.check(f"{when}, step {step}")
            gm = state(self.client, self.g)
            if gm["pending_roll"]:
                roll = gm["pending_roll"]
                key = self.keys["Mira"] if roll["roller"] == "Hero" else self.g["gm_token"]
                r = command(self.client, self.g, {"type": "enter_dice", "roll_id": roll["id"], "app": True}, key)
                assert r.status_code == 200, (when, r.json)
                if key != self.g["gm_token"]:
                    self.answers.append(r.json)
            elif gm["pending_defense"]:
                d = gm["pending_defense"]
                choice = next((c["key"] for c in d["choices"] if c["available"] and c["key"] != "none"),
                              next(c["key"] for c in d["choices"] if c["available"]))
                r = command(self.client, self.g, {"type": "choose_defense", "defense": choice, "attack": d["id"]},
                            self.keys["Mira"])
                assert r.status_code == 200, (when, r.json)
                self.answers.append(r.json)
            else:
                return
        raise AssertionError(f"{when}: still waiting after 60 answers")

    def attack(self, attacker: str) -> None:
        r = command(self.client, self.g, {"type": "attack", "attacker": self.ids[attacker], "target": self.ids["Hero"],
                                          "force": True})
        assert r.status_code == 200, (attacker, r.json)
        self.settle(f"{attacker} attacks Hero")


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_hidden_foes_name_and_a_seen_foes_numbers_never_reach_a_phone_or_the_screen_while_a_roll_waits(
        app, client, system):
    table = Table(app, client, system)
    r = command(client, table.g, {"type": "start_combat", "token_ids": list(table.ids.values())})
    assert r.status_code == 200, r.json
    table.settle("the fight starts")
    for attacker in ("Ogre", HIDDEN):
        table.attack(attacker)
    assert table.foe_rolls, "no foe's roll was asked of the table"  # the test saw what it is named after


def test_a_seen_rollers_purpose_naming_a_hidden_token_says_someone_out_of_sight(app, client):
    """Area damage to a hidden foe (3d6: "area damage to ZqShade"), rolled by Mira's Hero: Mira and the screen are
    told the roll, the hidden victim's name never; the GM's words stay whole."""
    from rules.text import pack, say
    from webapp.game.fight import table_dice
    from webapp.game.core.model import Actor

    table = Table(app, client, "gurps_lite")
    game = app.extensions["tacmap"].game(table.g["id"])
    roll = {"dice": "2d6", "roller": table.ids["Hero"], "player": table.p["player_id"],
            "purpose": pack(say("area damage to {name}", name=HIDDEN)),
            "needs": pack(say("roll {dice} for damage", dice="2d6"))}
    waits.ask(game, "roll", {"id": "roll-1", "command": {"type": "attack"}, "sender": {"role": "gm"}, "made": [],
                             "entered": [], "roll": roll})
    try:
        for actor in (Actor("player", table.p["player_id"]), Actor("screen")):
            told = table_dice.pending_view(game, actor)
            assert HIDDEN not in json.dumps(told), (actor, told)
            assert told["purpose"] == "area damage to someone out of sight" and told["roller"] == "Hero", told
        assert table_dice.pending_view(game, Actor("gm"))["purpose"] == f"area damage to {HIDDEN}"
    finally:
        waits.keep(game, "roll")


def test_a_hidden_foes_roll_called_off_is_the_gms_line(app, client):
    """3d6's turn order: the GM calls off the hidden foe's roll ("turn order: ZqShade for the GM's side"); the line
    saying so is the GM's, never the phones' or the screen's (fog is off: only the token is hidden)."""
    table = Table(app, client, "gurps_lite")
    assert command(client, table.g, {"type": "start_combat", "token_ids": list(table.ids.values())}).status_code == 200
    for _ in range(6):
        roll = state(client, table.g)["pending_roll"]
        assert roll is not None, "the hidden foe's roll was never asked"
        if roll["roller"] == HIDDEN:
            break
        key = table.keys["Mira"] if roll["roller"] == "Hero" else table.g["gm_token"]
        r = command(client, table.g, {"type": "enter_dice", "roll_id": roll["id"], "app": True}, key)
        assert r.status_code == 200, r.json
    r = command(client, table.g, {"type": "call_off_roll", "roll_id": roll["id"]})
    assert r.status_code == 200, r.json
    assert any("The GM called off the roll" in e["text"] and HIDDEN in e["text"] for e in state(client, table.g)["log"])
    table.check("the hidden foe's roll called off")


def test_a_hidden_foes_roll_is_said_neutrally_in_the_readers_language(app, client):
    """The words said for a hidden roller's purpose are the catalog's: a German phone reads "für die Seite der SL"
    where the GM's page says "turn order: ZqShade for the GM's side" (3d6's fight start)."""
    table = Table(app, client, "gurps_lite")
    german = app.extensions["tacmap_socketio"].test_client(
        app, auth={"game": table.g["id"], "token": table.keys["Mira"]}, headers={"Accept-Language": "de"})
    assert command(client, table.g, {"type": "start_combat", "token_ids": list(table.ids.values())}).status_code == 200
    for _ in range(6):
        roll = state(client, table.g)["pending_roll"]
        if roll["roller"] == HIDDEN:
            break
        key = table.keys["Mira"] if roll["roller"] == "Hero" else table.g["gm_token"]
        german.get_received()
        r = command(client, table.g, {"type": "enter_dice", "roll_id": roll["id"], "app": True}, key)
        assert r.status_code == 200, r.json
    assert roll["roller"] == HIDDEN and HIDDEN in roll["purpose"]
    live = received(german)
    assert "für die Seite der SL" in live and HIDDEN not in live, live
    assert state(client, table.g, table.keys["Mira"])["pending_roll"]["purpose"] == "for the GM's side"
