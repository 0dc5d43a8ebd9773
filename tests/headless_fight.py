"""A whole fight played headless (#66): the game without the web. Each system's fight is played on a ``Game`` by
commands, as payload dicts a client sends, through the table's own command path (``table.parse_command``,
``table.decide``, ``table.evolve`` for each event), from ``table.new_game_events`` on: a small map (the default zone
map for a system that plays on zones, as the hub makes it), Mira's hero against two foes, the fight started, the
GM's "play the foes" switch on, and then what the switch's runner (webapp/live/foes/foeplay.py) and the table would do,
step by step as ``foeplay.next_step`` says, until one side is all down:

- a foe's turn: the foes' planner's best plan (``suggestions.reckon`` on ``suggestions.frozen``, as the runner asks
  it), its steps sent as the runner's commands (``Actor.by``: the switch's runner) with the seq they were reckoned on
  (``reckoned_at``, judged by ``foeplay.fresh`` as the hub does), then Next turn; a shot the fight owes a foe, and
  the round waiting for the GM (phase/TN), as the runner sends them;
- the hero's turn: her player's commands, the same planner's plan reckoned for her on a copy where the sides are
  swapped (the planner plans for the GM's foes alone), then her Next turn; a shot she is owed, fired;
- what the fight waits for: a defense (the defender's player, or the GM for a foe: the choice the attack is least
  likely to hit against), a Soak roll (taken), a Benny reroll offered to her (let go); a roll at the table is never
  asked (the app's dice);
- a side all down (each system's ``out_of_fight``, read by ``fighting.stands``): the switch goes off, as the runner
  stops when the fight is over; the shots the fight still owes are rolled (phase/TN's of one length are
  simultaneous: a shooter felled by one still fires its own), then the GM's End fight.

A token that falls in its own turn (3d6: the HT roll against collapse its maneuver asks) sends no more of its plan.

Run as ``python -m tests.headless_fight [system ...]`` from the repository's root: it plays each system's fight (all
five when none is named) in this interpreter and prints a JSON summary, with the modules of the web that were
imported (none, it is checked by tests/unit/test_headless_fights.py). The game modules are imported here alone."""

from __future__ import annotations

import json
import sys
import time
import traceback

import rules
from rules.board import Board
from rules.dice import SeededDice
from webapp.game.bridge import fighting, zonelayout
from webapp.game.planning import foeplay, suggestions
from webapp.game.board import mapdata
from webapp.game import table
from webapp.game.core.model import GM, Actor, Event

SYSTEMS = ("savage_worlds", "gurps_lite", "phase_tn", "tesseris_ads", "atomic_tomorrow")
MIRA = Actor("player", "p-mira")
#: the fighters: name, square on the 12x8 grid, zone on the zone map, owner (Mira's player id for her hero)
FIGHTERS = (("Ann", (2, 3), "west", MIRA.player_id), ("Orc", (9, 2), "east", None), ("Goblin", (9, 5), "east", None))
MOST_ROUNDS = 60
#: each system's dice: seeds whose fight lasts more than one round, and ends with a side standing (#66)
SEEDS = {"savage_worlds": "savage_worlds 0", "gurps_lite": "gurps_lite 3", "phase_tn": "phase_tn 0",
         "tesseris_ads": "tesseris_ads 2", "atomic_tomorrow": "atomic_tomorrow 5"}
#: the modules of the web and of the stores, none of which a headless fight may import
WEB = ("flask", "flask_socketio", "socketio", "engineio", "werkzeug", "jinja2", "sqlite3", "psycopg",
       "webapp.storage", "webapp.live", "webapp.web")


class Table:
    """One game and every event it was given, each decided by ``table.decide`` and applied by ``table.evolve``."""

    def __init__(self, system: str, seed: str) -> None:
        self.game_id = f"g-{system}"
        self.dice = SeededDice(seed)
        self.game = table.empty_game(self.game_id)
        self.events: list[Event] = []
        self.commands: list[tuple[str, str]] = []  # (who sent it, its type), in order
        #: each change of the fight's turn or round: (round, whose turn, the command that made it, who sent it)
        self.turns: list[tuple[int, str | None, str, str]] = []

    def apply(self, events: list[Event]) -> list[Event]:
        for event in events:
            table.evolve(self.game, event)
            self.events.append(event)
        return events

    def send(self, payload: dict, actor: Actor = GM, at: int | None = None) -> list[Event]:
        """``payload`` as a client sends it, decided as ``actor``; ``at``: the seq its plan was reckoned on."""
        if at is not None:
            payload = {**payload, "reckoned_at": at}
        payload, at = foeplay.reckoned_at(payload)  # as the hub takes a plan's step (#67)
        cmd = table.parse_command(payload)
        foeplay.fresh(self.game, at)
        sender = "runner" if actor.by else actor.role
        self.commands.append((sender, payload["type"]))
        before = _turn(self.game)
        events = self.apply(table.decide(self.game, cmd, actor, self.dice))
        after = _turn(self.game)
        if after != before and after is not None:
            self.turns.append((*after, payload["type"], sender))
        return events


def _turn(game) -> tuple[int, str | None] | None:
    """The fight's round and whose turn it is (None: no fight)."""
    return (game.combat["round"], game.combat.get("current")) if game.combat else None


def set_up(system: str, seed: str) -> tuple[Table, dict[str, str]]:
    """The game, the hero and two foes with the system's sample sheets, the fight on and the foes played."""
    t = Table(system, seed)
    zones = None
    if rules.get(system).board == "zones":  # as the hub's create_game makes a zone system's default map
        board, zones = mapdata.zone_map({"zones": zonelayout.DEFAULT_ZONES})
    else:
        board = Board(12, 8)
    t.apply(table.new_game_events("Headless", system, board, zones))
    # Mira's seat: the lobby's event (a join is no table command), applied through table.evolve all the same
    t.apply([Event("player_joined", {"player_id": MIRA.player_id, "name": "Mira", "key_hash": "x" * 64})])
    ids = {}
    for name, square, zone, owner in FIGHTERS:
        place = {"zone": zone} if zones is not None else {"x": square[0], "y": square[1]}
        mine = {"owner": owner, "kind": "pc"} if owner else {}
        ids[name] = t.send({"type": "add_token", "name": name, **place, **mine})[0].data["token"]["id"]
        sheet = {**rules.get(system).default_sheet(), "name": name}
        t.send({"type": "add_character", "name": name, "token_id": ids[name], "sheet": sheet,
                **({"owner": owner} if owner else {})})
    t.send({"type": "start_combat", "token_ids": list(ids.values())})
    t.send({"type": "play_foes", "on": True})
    return t, ids


def standing_sides(game) -> set[str]:
    """The sides (``pc``, ``npc``) with a token still standing in the fight, by the system's rules."""
    return {t.kind for t in game.tokens.values() if fighting.stands(game, t)}


def runner(game) -> Actor:
    return Actor("gm", by=foeplay.playing(game))


def plans(game, token_id: str, swapped: bool = False) -> dict:
    """The planner's plans for ``token_id``'s turn, reckoned on a copy of the game (``swapped``: the sides swapped
    on it, so a player's hero is planned as a foe is)."""
    view = suggestions.frozen(game)
    if swapped:
        for t in view.tokens.values():
            t.kind = "npc" if t.id == token_id else "pc"
            if t.id == token_id:
                t.owner = None
    return {**suggestions.reckon(view, token_id), "seq": game.seq}


def play_turn(t: Table, token_id: str, actor: Actor, swapped: bool) -> str:
    """The turn of ``token_id``: its best plan's steps, then Next turn (unless the fight moved on by itself). What
    was played: the plan's kind and summary, or why there was none."""
    found = plans(t.game, token_id, swapped)
    chosen = found["plans"][0] if found["plans"] else None
    if chosen is not None:
        at = found["seq"]
        for step in chosen["steps"]:
            t.send(step, actor, at=at)
            at = t.game.seq
            if t.game.pending_defense or t.game.pending_soak:
                answer(t)
            if not foeplay.stands(t.game, token_id):  # down in its own turn (3d6: a HT roll failed), as the runner has it
                break
    if t.game.combat and t.game.combat.get("current") == token_id and len(standing_sides(t.game)) > 1:
        answer(t)
        t.send({"type": "next_turn"}, actor)
    return f"{chosen['kind']}: {chosen['summary']}" if chosen else f"no plan: {found.get('none')}"


def answer(t: Table) -> None:
    """What the fight waits for, answered as the table would: the defense least likely to be hit (its player's,
    the GM's for a foe), a Soak roll taken, a Benny reroll offered to the hero let go."""
    for _ in range(20):
        g = t.game
        assert not g.pending_roll, "a roll at the table was asked: the app's dice are the game's"
        if g.pending_defense:
            p = g.pending_defense
            target = g.tokens[p["target"]]
            open_ = [c for c in p["choices"] if c["available"]]
            best = min(open_, key=lambda c: 1.0 if c["hit"] is None else c["hit"])
            t.send({"type": "choose_defense", "defense": best["key"], "attack": p["id"]},
                   MIRA if target.owner else GM)
        elif g.pending_soak:
            offer = g.pending_soak[0]
            target = g.tokens[offer["target"]]
            t.send({"type": "soak", "accept": True, "token_id": target.id}, MIRA if target.owner else GM)
        elif g.pending_reroll and g.tokens.get(g.pending_reroll.get("attacker", ""), None) is not None \
                and g.tokens[g.pending_reroll["attacker"]].owner:
            t.send({"type": "benny_reroll", "accept": False}, MIRA)
        else:
            return
    raise AssertionError("the fight keeps waiting for answers")


def fight(system: str, seed: str | None = None, most_rounds: int = MOST_ROUNDS) -> dict:
    """One whole fight in ``system`` on the dice seeded with ``seed`` (``SEEDS``'s by default): its summary (the
    rounds, each change of turn and the command that made it, who won, the plans played, the events, and the state
    as the fight was decided and at its end beside the same states replayed from the events alone)."""
    started = time.perf_counter()
    t, ids = set_up(system, seed or SEEDS[system])
    names = {v: k for k, v in ids.items()}
    played: list[str] = []
    stuck = None
    for _ in range(most_rounds * 40):
        g = t.game
        if g.combat["round"] > most_rounds:
            stuck = f"still fighting after {most_rounds} rounds"
            break
        if len(standing_sides(g)) < 2:  # one side down: the runner stops ("over"), the GM rolls what is still owed
            if foeplay.playing(g):
                t.send({"type": "play_foes", "on": False})
            rest = owed(g)
            if not rest:
                break
            t.send(shot(rest[0]), MIRA if g.tokens[rest[0]["attacker"]].owner else GM)
            answer(t)
            continue
        kind, what = foeplay.next_step(g)
        seq = g.seq
        if kind == "answer":
            answer(t)
        elif kind == "turn":  # a foe's turn: the runner plays its best plan
            played.append(f"{g.combat['round']}. {names[what]}: {play_turn(t, what, runner(g), swapped=False)}")
        elif kind == "shot":  # an attack the fight owes a foe, as the runner rolls it
            t.send(shot(what), runner(g), at=g.seq)
            answer(t)
        elif kind == "resolve":  # the round waits for the GM: the runner's Next turn
            t.send({"type": "next_turn"}, runner(g), at=g.seq)
        else:  # a player's: her shot owed, or her turn
            mine = [d for d in owed(g) if g.tokens[d["attacker"]].owner]
            if mine:
                t.send(shot(mine[0]), MIRA)
                answer(t)
            else:
                who = g.combat["current"]
                played.append(f"{g.combat['round']}. {names[who]}: {play_turn(t, who, MIRA, swapped=True)}")
        if t.game.seq == seq:
            stuck = f"nothing happened on the runner's next step ({kind}, round {g.combat['round']})"
            break
    else:
        stuck = "the loop ran out of steps (the fight no longer moves on)"
    g = t.game
    sides = standing_sides(g)
    rounds = g.combat["round"]
    decided_at = len(t.events)
    decided = snapshot(g, ids)
    if len(sides) == 1:  # the GM ends the fight
        t.send({"type": "end_combat"})
    return {
        "system": system, "seed": seed or SEEDS[system], "stuck": stuck,
        "winner": next(iter(sides)) if len(sides) == 1 else None, "rounds": rounds,
        "down": sorted(names[i] for i in ids.values() if fighting.is_down(g, g.tokens[i])),
        "fight_over": g.combat is None, "played": played,
        "turn_changes": [[r, names.get(who), cmd, sender] for r, who, cmd, sender in t.turns],
        "commands": [list(c) for c in t.commands],
        "events": len(t.events), "seq": g.seq,
        "decided": decided, "decided_replayed": snapshot(table.replay(t.game_id, t.events[:decided_at]), ids),
        "end": snapshot(g, ids), "end_replayed": snapshot(table.replay(t.game_id, t.events), ids),
        "whole_state_replayed": table.replay(t.game_id, t.events).to_dict() == g.to_dict(),
        "seconds": round(time.perf_counter() - started, 3),
    }


def owed(game) -> list[dict]:
    """The shots the fight still owes (phase/TN's, due at a phase's end: those of one length are simultaneous, so a
    shooter who fell to one of them still fires its own)."""
    return [d for d in (game.combat or {}).get("due") or [] if d.get("attacker") in game.tokens
            and d.get("target") in game.tokens]


def shot(due: dict) -> dict:
    return {"type": "attack", "attacker": due["attacker"], "target": due["target"],
            **({"weapon": due["weapon"]} if due.get("weapon") else {}),
            **({"options": due["options"]} if due.get("options") else {})}


def snapshot(game, ids: dict[str, str]) -> dict:
    """What a replay must give again: the seq, each fighter's place and sheet (its wounds, health), the fight."""
    out = {"seq": game.seq, "combat": game.combat, "foe_play": game.foe_play}
    for name, token_id in ids.items():
        token = game.tokens[token_id]
        out[name] = {"at": [token.x, token.y], "sheet": fighting.sheet_of(game, token)}
    return json.loads(json.dumps(out, default=str))


def web_modules() -> list[str]:
    return sorted(m for m in sys.modules if any(m == w or m.startswith(w + ".") for w in WEB))


def main(argv: list[str]) -> None:
    """Each system's fight (a fight that raised: its error, for the test to say), and the web's modules imported."""
    fights = {}
    for system in argv or SYSTEMS:
        try:
            fights[system] = fight(system)
        except Exception:  # noqa: BLE001 (said in the summary: the test fails on it with the traceback)
            fights[system] = {"system": system, "error": traceback.format_exc()}
    json.dump({"fights": fights, "web_modules": web_modules(),
               "game_modules": sorted(m for m in sys.modules if m.startswith("webapp."))}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
