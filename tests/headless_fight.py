"""A whole fight played headless (#66): the game without the web. Each system's fight is played on each map it plays
on (``layouts``: squares and hexes for a system that plays on a grid, zones for one that plays on zones; #67) on a
``Game`` by commands, as payload dicts a client sends, through the table's own command path (``table.parse_command``,
``table.decide``, ``table.evolve`` for each event), from ``table.new_game_events`` on: a map (a 26x8 grid of squares
or hexes, phase/TN's with a wall of pillars across it, or the default zone map with a far zone beyond the East side,
made as the hub makes a zone map), Mira's hero against two foes far from her (the Orc with its sample sheet's melee
weapons alone where its system automates melee, so it closes in first), the fight started, the GM's
"play the foes" switch on, and then what the switch's runner (webapp/live/foes/foeplay.py) and the table would do,
step by step as ``foeplay.next_step`` says, until the runner stops (``foeplay.over``: one side all down and no shot
owed):

- a foe's turn: the foes' planner's best plan (``suggestions.reckon`` on ``foe_sandbox.frozen``, as the runner asks
  it), its steps sent as the runner's commands (``Actor.by``: the switch's runner) with the seq they were reckoned on
  (``reckoned_at``, judged by ``foeplay.fresh`` as the hub does), then Next turn; a shot the fight owes a foe, and
  the round waiting for the GM (phase/TN), as the runner sends them;
- the hero's turn: her player's commands, the same planner's plan reckoned for her on a copy where the sides are
  swapped (the planner plans for the GM's foes alone), fierce, then her Next turn; a shot she is owed, fired;
- what the fight waits for: a defense (the defender's player, or the GM for a foe: the choice the attack is least
  likely to hit against), a Soak roll (taken), a Benny reroll offered to her (let go); a roll at the table is never
  asked (the app's dice);
- a side all down (each system's ``out_of_fight``, read by ``fighting.stands``) and the shots of the last volley
  rolled (phase/TN's of one length are simultaneous: a shooter felled by one still fires its own): the switch goes
  off as the runner stops, then the GM's End fight.

A token that falls in its own turn (3d6: the HT roll against collapse its maneuver asks) sends no more of its plan.
Each turn played is in the summary's ``turns`` (#67): whose, its plan's kind, summary and steps, the steps sent
before it ended and why the rest were not, how far its plan's target was before and after its steps, the phase/TN
declarations it made; for a turn with no plan, the planner's words why and what the rules
leave the token, asked of them apart from the planner (``left_to_it``), so the test names any turn where a token that
could act stood still.

Run as ``python -m tests.headless_fight [system | system/layout ...]`` from the repository's root: it plays each fight
named (all when none is named) in this interpreter and prints a JSON summary, keyed ``system/layout``, with the
modules of the web that were imported (none, it is checked by tests/unit/test_headless_fights.py). The game modules
are imported here alone."""

from __future__ import annotations

import json
import sys
import time
import traceback

import rules
from rules.board import Board
from rules.dice import SeededDice
from rules.grid import HEX_POINTY
from webapp.game.bridge import fighting, zonelayout
from webapp.game.planning import foe_sandbox, foeplay, suggestions
from webapp.game.board import mapdata
from webapp.game import table
from webapp.game.core.model import GM, Actor, Event, Rejected
from webapp.game.fight.combat import Act, decide as combat_decide
from webapp.game.bridge.fighting import combatant, settings_of

SYSTEMS = ("savage_worlds", "gurps_lite", "phase_tn", "tesseris_ads", "atomic_tomorrow")
MIRA = Actor("player", "p-mira")
#: the fighters: name, square (or hex) on the grid, zone on the zone map, owner (Mira's player id for her hero); the
#: foes start far enough away that the Orc must close in for a turn at least before it reaches Ann (#67): 21 squares
#: or hexes, more than any system's longest move and reach in one turn, and three zone steps (the far zone)
FIGHTERS = (("Ann", (2, 3), "west", MIRA.player_id), ("Orc", (23, 2), "far", None), ("Goblin", (23, 5), "far", None))
#: the grid: 26 squares or hexes by 8
WIDTH, HEIGHT = 26, 8
#: the zone map: the default one with a far zone beyond the East side, three zone steps from the West side
ZONES = [*(dict(z, adjacent=[*z["adjacent"], "far"]) if z["id"] == "east" else z for z in zonelayout.DEFAULT_ZONES),
         {"id": "far", "name": "Far side", "adjacent": ["east"]}]
#: phase/TN's gunmen: a wall of pillars (blocking cells, opaque and impassable) across the middle of the grid, open
#: at its southern end only, so no shot is seen over it at the start and a side must declare a Move (phase/TN's
#: Move declaration, "Initiative and Actions") to come round it before it can shoot (#67)
WALLS = {"phase_tn": tuple((13, y) for y in range(HEIGHT - 2))}
#: the Orc fights hand to hand where its system automates melee: its sample sheet's melee weapons alone, so it closes
#: in before it attacks (#67: a melee foe no attack reaches this turn moves toward its foe); phase/TN's gunmen shoot
MELEE = {"savage_worlds": ("Long sword",), "gurps_lite": ("Broadsword", "Broadsword thrust"),
         "tesseris_ads": ("knife", "club"), "atomic_tomorrow": ("Vibro-knife",)}
MOST_ROUNDS = 60


def layouts(system: str) -> tuple[str, ...]:
    """The maps ``system`` plays on, by its declaration (``RuleSystem.board``): a system that plays on zones, on
    zones; one that plays on a grid, on squares and on hexes (its movement, distances and lines of fire count hexes
    there, #58; its foes are planned on both, ``suggestions.reckoned``)."""
    return ("zones",) if rules.get(system).board == "zones" else ("square", "hex")


#: every fight played: each system on each map it plays on
FIGHTS = tuple((system, layout) for system in SYSTEMS for layout in layouts(system))
#: each fight's dice: seeds whose fight lasts more than one round, and ends with a side standing (#66, #67)
SEEDS = {("savage_worlds", "square"): "savage_worlds 0", ("savage_worlds", "hex"): "savage_worlds hex 0",
         ("gurps_lite", "square"): "gurps_lite 3", ("gurps_lite", "hex"): "gurps_lite hex 0",
         ("phase_tn", "square"): "phase_tn 0", ("phase_tn", "hex"): "phase_tn hex 0",
         ("tesseris_ads", "square"): "tesseris_ads 2", ("tesseris_ads", "hex"): "tesseris_ads hex 0",
         ("atomic_tomorrow", "zones"): "atomic_tomorrow 5"}
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


def set_up(system: str, layout: str, seed: str) -> tuple[Table, dict[str, str]]:
    """The game on ``layout`` (``square``, ``hex``: a ``WIDTH`` x ``HEIGHT`` grid of them, with the system's
    ``WALLS``; ``zones``: ``ZONES``), the hero and two foes with the system's sample sheets, the fight on and the foes
    played."""
    t = Table(system, seed)
    zones = None
    if layout == "zones":  # as the hub's create_game makes a zone map
        board, zones = mapdata.zone_map({"zones": ZONES})
    else:
        board = Board(WIDTH, HEIGHT, grid=HEX_POINTY) if layout == "hex" else Board(WIDTH, HEIGHT)
        for cell in WALLS.get(system, ()):
            board.block(cell)
    t.apply(table.new_game_events("Headless", system, board, zones))
    # Mira's seat: the lobby's event (a join is no table command), applied through table.evolve all the same
    t.apply([Event("player_joined", {"player_id": MIRA.player_id, "name": "Mira", "key_hash": "x" * 64})])
    ids = {}
    for name, square, zone, owner in FIGHTERS:
        place = {"zone": zone} if zones is not None else {"x": square[0], "y": square[1]}
        mine = {"owner": owner, "kind": "pc"} if owner else {}
        ids[name] = t.send({"type": "add_token", "name": name, **place, **mine})[0].data["token"]["id"]
        sheet = {**rules.get(system).default_sheet(), "name": name}
        if name == "Orc" and system in MELEE:
            sheet["weapons"] = melee(sheet["weapons"], MELEE[system])
        t.send({"type": "add_character", "name": name, "token_id": ids[name], "sheet": sheet,
                **({"owner": owner} if owner else {})})
    t.send({"type": "start_combat", "token_ids": list(ids.values())})
    t.send({"type": "play_foes", "on": True})
    return t, ids


def melee(weapons, keep: tuple[str, ...]):
    """The sample sheet's weapons named in ``keep`` (a dict by key, or a list of named weapons)."""
    if isinstance(weapons, dict):
        return {k: w for k, w in weapons.items() if k in keep}
    return [w for w in weapons if w.get("name") in keep]


def standing_sides(game) -> set[str]:
    """The sides (``pc``, ``npc``) with a token still standing in the fight, by the system's rules."""
    return {t.kind for t in game.tokens.values() if fighting.stands(game, t)}


def runner(game) -> Actor:
    return Actor("gm", by=foeplay.playing(game))


def view_of(game, token_id: str, swapped: bool = False):
    """The copy of the game the planner reckons on (``foe_sandbox.frozen``, as the runner asks it); ``swapped``: the
    sides swapped on it, so a player's hero is planned as a foe is."""
    view = foe_sandbox.frozen(game)
    if swapped:
        for t in view.tokens.values():
            t.kind = "npc" if t.id == token_id else "pc"
            if t.id == token_id:
                t.owner = None
    return view


def plans(game, token_id: str, swapped: bool = False) -> dict:
    """The planner's plans for ``token_id``'s turn, reckoned on ``view_of`` the game."""
    return {**suggestions.reckon(view_of(game, token_id, swapped), token_id), "seq": game.seq}


def step_name(step: dict) -> str:
    """A plan's step in a word: its command, and a declaration's or maneuver's action."""
    return f"{step['type']}:{step['action']}" if step.get("action") else step["type"]


def left_to_it(game, token_id: str, swapped: bool) -> dict:
    """What the rules leave ``token_id`` this turn, asked of them apart from the planner, for a turn the planner
    had no plan for (#67): its foes still standing in the fight, and each way of the turn its system's
    ``plan_turns`` gives, with the rules' refusal of the way's action (its maneuver, its declaration) on a copy of
    the game, or None where they accept it (a way with no action of its own is open: None); the attacks the rules'
    actions offer it now (``attacks_open``) and their reasons for those they do not (a Shaken Savage Worlds token
    that failed to recover: free actions only); how far its nearest foe standing is (``nearest_foe``, by ``apart``)."""
    view = view_of(game, token_id, swapped)
    me = view.tokens[token_id]
    system = rules.get(game.system)
    foes = [t.name for i in view.combat["order"] if (t := view.tokens.get(i)) is not None and t.kind != me.kind
            and fighting.stands(view, t)]
    ways = {}
    for way in system.plan_turns(view.combat["state"], combatant(view, me), settings_of(view)):
        refused = None
        if way["action"]:
            act = Act(type="act", token_id=token_id, action=way["action"], options=dict(way["action_options"]))
            try:
                combat_decide(view, act, GM, SeededDice(0))
            except Rejected as exc:
                refused = str(exc)
        ways[str(way["label"])] = refused
    attacks = [a for a in system.actions(view.combat["state"], combatant(view, me)) if a.kind == "attack"]
    nearest = min((apart(view, token_id, i) for i in view.combat["order"] if (f := view.tokens.get(i)) is not None
                   and f.kind != me.kind and fighting.stands(view, f)), key=lambda d: float("inf") if d is None else d,
                  default=None)
    return {"foes_standing": foes, "ways": ways, "nearest_foe": nearest,
            "attacks_open": [a.key for a in attacks if a.available],
            "attacks_refused": sorted({str(a.reason) for a in attacks if not a.available and a.reason})}


def apart(game, a: str, b: str) -> float | None:
    """How far ``a`` is from ``b`` as the rules count range: squares or hexes (``fighting.aim_squares``, by the
    system's distance), or zone steps on zones (``zonelayout.path``); None where no way leads between their zones."""
    one, other = game.tokens[a], game.tokens[b]
    if game.zones is None:
        return fighting.aim_squares(game, one, other)[2]
    za, zb = fighting.position_of(game, one), fighting.position_of(game, other)
    way = zonelayout.path(game.zones, za, zb) if za and zb else None
    return None if way is None else len(way) - 1


def declarations(game, token_id: str) -> dict[str, str]:
    """``token_id``'s declarations pending in a phase/TN fight (``pending`` in its state), by id: their names
    (``move``: the Move declaration a move makes, "Initiative and Actions"); none in another system."""
    state = (game.combat or {}).get("state") or {}
    pending = state.get("combat", {}).get("pending", []) if isinstance(state.get("combat"), dict) else []
    return {a["id"]: a["name"] for a in pending if isinstance(a, dict) and a.get("who") == token_id}


def play_turn(t: Table, token_id: str, actor: Actor, swapped: bool) -> dict:
    """The turn of ``token_id``: its best plan's steps, then Next turn (unless the fight moved on by itself). What
    was played (#67): the plan's ``kind`` and ``summary`` and its steps (``planned``), the steps ``sent`` before its
    turn ended, why the rest were not (``left``: down in its own turn), its plan's ``target`` and how far it was
    (``apart``) before and after the steps, the phase/TN declarations made (``declared``), how the turn ended
    (``ended``); for no plan
    (``kind`` ``none``), the planner's words why (``why``) and what the rules leave it (``left_to_it``)."""
    found = plans(t.game, token_id, swapped)
    chosen = found["plans"][0] if found["plans"] else None
    out = {"kind": chosen["kind"] if chosen else "none", "summary": str(chosen["summary"]) if chosen else None,
           "planned": [step_name(s) for s in chosen["steps"]] if chosen else [], "sent": [], "left": None}
    if chosen is not None and chosen.get("target") in t.game.tokens:  # how far its plan's target is, before and after
        out["target"] = t.game.tokens[chosen["target"]].name
        out["apart_before"] = apart(t.game, token_id, chosen["target"])
    pending = declarations(t.game, token_id)
    if chosen is not None:
        at = found["seq"]
        for step in chosen["steps"]:
            t.send(step, actor, at=at)
            out["sent"].append(step_name(step))
            at = t.game.seq
            if t.game.pending_defense or t.game.pending_soak:
                answer(t)
            if not foeplay.stands(t.game, token_id):  # down in its own turn (3d6: a HT roll failed), as the runner has it
                out["left"] = "down in its own turn"
                break
    else:
        out["why"] = str(found.get("none"))
        out["left_to_it"] = left_to_it(t.game, token_id, swapped)
    if "target" in out:
        out["apart_after"] = apart(t.game, token_id, chosen["target"])
    out["declared"] = [name for i, name in declarations(t.game, token_id).items() if i not in pending]
    if t.game.combat and t.game.combat.get("current") == token_id and len(standing_sides(t.game)) > 1:
        answer(t)
        t.send({"type": "next_turn"}, actor)
        out["ended"] = "next_turn"
    else:
        out["ended"] = "moved on" if t.game.combat and len(standing_sides(t.game)) > 1 else "over"
    return out


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


def fight(system: str, layout: str | None = None, seed: str | None = None, most_rounds: int = MOST_ROUNDS) -> dict:
    """One whole fight in ``system`` on ``layout`` (its first by default) on the dice seeded with ``seed``
    (``SEEDS``'s by default): its summary (the rounds, each change of turn and the command that made it, who won,
    each turn played and what its plan was and sent, the events, and the state as the fight was decided and at its
    end beside the same states replayed from the events alone)."""
    started, cpu = time.perf_counter(), time.process_time()
    layout = layout or layouts(system)[0]
    seed = seed or SEEDS[(system, layout)]
    t, ids = set_up(system, layout, seed)
    names = {v: k for k, v in ids.items()}
    played: list[str] = []
    turns: list[dict] = []

    def turn(who: str, actor: Actor, swapped: bool) -> None:
        at = {"round": t.game.combat["round"], "who": names[who], "side": "hero" if swapped else "foe"}
        done = {**at, **play_turn(t, who, actor, swapped)}
        turns.append(done)
        what = f"{done['kind']}: {done['summary']}" if done["summary"] else f"no plan: {done['why']}"
        played.append(f"{at['round']}. {at['who']}: {what}")

    stuck = None
    for _ in range(most_rounds * 40):
        g = t.game
        if g.combat["round"] > most_rounds:
            stuck = f"still fighting after {most_rounds} rounds"
            break
        if foeplay.over(g):  # one side down and nothing owed: the runner stops, as it does
            if foeplay.playing(g):
                t.apply([foeplay.stopped("over")])
            break
        kind, what = foeplay.next_step(g)
        seq = g.seq
        if kind == "answer":
            answer(t)
        elif kind == "turn":  # a foe's turn: the runner plays its best plan
            turn(what, runner(g), swapped=False)
        elif kind == "shot":  # an attack the fight owes a foe, as the runner rolls it
            t.send(shot(what), runner(g), at=g.seq)
            answer(t)
        elif kind == "resolve":  # the round waits for the GM: the runner's Next turn
            t.send({"type": "next_turn"}, runner(g), at=g.seq)
        else:  # a player's: her shot owed, or her turn
            mine = [d for d in foeplay.owed(g) if g.tokens[d["attacker"]].owner]
            if mine:
                t.send(shot(mine[0]), MIRA)
                answer(t)
            else:
                turn(g.combat["current"], MIRA, swapped=True)
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
        "system": system, "layout": layout, "seed": seed, "stuck": stuck,
        "winner": next(iter(sides)) if len(sides) == 1 else None, "rounds": rounds,
        "down": sorted(names[i] for i in ids.values() if fighting.is_down(g, g.tokens[i])),
        "owed_at_the_end": len(foeplay.owed(g)) if g.combat else 0,
        "fight_over": g.combat is None, "played": played, "turns": turns,
        "turn_changes": [[r, names.get(who), cmd, sender] for r, who, cmd, sender in t.turns],
        "commands": [list(c) for c in t.commands],
        "events": len(t.events), "seq": g.seq,
        "decided": decided, "decided_replayed": snapshot(table.replay(t.game_id, t.events[:decided_at]), ids),
        "end": snapshot(g, ids), "end_replayed": snapshot(table.replay(t.game_id, t.events), ids),
        "whole_state_replayed": table.replay(t.game_id, t.events).to_dict() == g.to_dict(),
        "seconds": round(time.perf_counter() - started, 3), "cpu_seconds": round(time.process_time() - cpu, 3),
    }


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
    """Each fight named (``system`` for each map it plays on, or ``system/layout``; all when none is named), keyed
    ``system/layout`` (a fight that raised: its error, for the test to say), and the web's modules imported."""
    fights = {}
    wanted = [tuple(a.split("/", 1)) if "/" in a else None for a in argv]
    chosen = [f for f in FIGHTS if not argv or f in wanted or f[0] in argv]
    for system, layout in chosen:
        try:
            fights[f"{system}/{layout}"] = fight(system, layout)
        except Exception:  # noqa: BLE001 (said in the summary: the test fails on it with the traceback)
            fights[f"{system}/{layout}"] = {"system": system, "layout": layout, "error": traceback.format_exc()}
    json.dump({"fights": fights, "web_modules": web_modules(),
               "game_modules": sorted(m for m in sys.modules if m.startswith("webapp."))}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
