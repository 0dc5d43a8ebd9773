"""The game plays without the web (#66): a whole fight in each system with foes' plans, on each map it plays on
(squares and hexes for a system that plays on a grid, zones for one that plays on zones: #67), played headless by
commands on a ``Game`` through the table's command path (``table.parse_command``, ``table.decide``,
``table.evolve``), in a fresh interpreter that imports neither Flask nor Socket.IO nor a store
(tests/headless_fight.py plays them and prints what happened). Each fight ends with one side down, its turns moved on
by commands, the foes' turns played from the foes' planner's plans as the "play the foes" runner sends them (the
hero's by the same planner, fierce, as a test harness), every event applied through ``table.evolve``, and the events
replayed from scratch give the same state; no turn where a token that could act stood still (#67): a turn with a
plan sent its steps, a turn with none had a reason the state bears out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rules
from rules.board import Board
from rules.grid import HEX_POINTY
from webapp.game import table
from webapp.game.board import mapdata
from webapp.game.bridge import zonelayout
from webapp.game.planning import suggestions

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = ("savage_worlds", "gurps_lite", "phase_tn", "tesseris_ads", "atomic_tomorrow")
LAYOUTS = ("square", "hex", "zones")
#: each system on the maps it plays on, by its declaration: a grid system on squares and hexes, a zone one on zones
FIGHTS = [(s, layout) for s in SYSTEMS for layout in (("zones",) if rules.get(s).board == "zones" else ("square", "hex"))]
WEB = ("flask", "flask_socketio", "socketio", "engineio", "werkzeug", "jinja2", "sqlite3", "psycopg",
       "webapp.storage", "webapp.live", "webapp.web")
HERO, FOES = "Ann", ("Orc", "Goblin")
KINDS = {"attack", "approach", "move", "cover", "withdraw", "ready"}


def _ids(fights):
    return [f"{s}-{layout}" for s, layout in fights]


@pytest.fixture(scope="module")
def played() -> dict:
    """The fights, played in one fresh interpreter (``python -m tests.headless_fight``): its JSON summary."""
    run = subprocess.run([sys.executable, "-m", "tests.headless_fight", *(f"{s}/{layout}" for s, layout in FIGHTS)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_every_system_with_foes_plans_is_played_on_every_map_its_foes_are_planned_on():
    assert set(SYSTEMS) == {s.id for s in rules.systems() if getattr(s, "planner", None) is not None}
    for system in SYSTEMS:  # the maps a new game of it is made on (a zone system's is zones whatever is asked)
        planned = set()
        for layout in LAYOUTS:
            game = table.empty_game("g")
            zones = None
            if layout == "zones":
                board, zones = mapdata.zone_map({"zones": zonelayout.DEFAULT_ZONES})
            else:
                board = Board(12, 8, grid=HEX_POINTY) if layout == "hex" else Board(12, 8)
            for event in table.new_game_events("Maps", system, board, zones):
                table.evolve(game, event)
            if suggestions.reckoned(game):
                planned.add("zones" if game.zones is not None else "hex" if game.board.grid.hex else "square")
        assert planned == {layout for s, layout in FIGHTS if s == system}, (system, planned)


@pytest.mark.long
def test_the_fights_are_quick(played):
    took = {k: f.get("cpu_seconds") for k, f in played["fights"].items()}  # the interpreter's time (a shared machine)
    assert set(took) == {f"{s}/{layout}" for s, layout in FIGHTS}
    assert sum(t or 0 for t in took.values()) < 15, took  # the whole module well under 30 s


def test_the_fights_imported_the_game_and_nothing_of_the_web(played):
    assert {"webapp.game.table", "webapp.game.planning.suggestions", "webapp.game.planning.foeplay"} <= set(played["game_modules"])
    assert played["web_modules"] == [], f"a headless fight imported the web: {played['web_modules']}"
    assert not [m for m in played["game_modules"] if m.startswith(tuple(w + "." for w in WEB) + WEB)]


@pytest.mark.parametrize(("system", "layout"), FIGHTS, ids=_ids(FIGHTS))
def test_a_whole_fight_plays_to_its_end_by_commands(played, system, layout):
    f = played["fights"][f"{system}/{layout}"]
    system = f"{system} on {layout}"
    assert "error" not in f, f"{system}: the fight raised\n{f.get('error')}"
    story = "\n".join(f["played"])
    assert f["stuck"] is None, f"{system}: the fight never ended ({f['stuck']}); turns played:\n{story}"
    # one side is all down, the other stands: the winner is named
    assert f["winner"] in ("pc", "npc"), f"{system}: no side won (down: {f['down']})\n{story}"
    losers = (HERO,) if f["winner"] == "npc" else FOES
    winners = FOES if f["winner"] == "npc" else (HERO,)
    assert set(losers) <= set(f["down"]), (system, f["winner"], f["down"])
    assert not set(winners) <= set(f["down"]), (system, f["winner"], f["down"])
    assert f["fight_over"], f"{system}: the GM's End fight left the fight on"
    # more than one round (phase/TN: the round's shots come due as it ends, and are rolled as the next opens)
    assert f["rounds"] >= 2, f"{system}: decided in round {f['rounds']}\n{story}"


@pytest.mark.parametrize(("system", "layout"), FIGHTS, ids=_ids(FIGHTS))
def test_each_rounds_turns_moved_on_by_commands_of_the_player_and_the_foes_runner(played, system, layout):
    f = played["fights"][f"{system}/{layout}"]
    changes = f["turn_changes"]  # [round, whose turn, the command that moved it, who sent it]
    assert changes[0][:3] == [1, changes[0][1], "start_combat"] and changes[0][3] == "gm"
    assert {c[0] for c in changes} == set(range(1, f["rounds"] + 1)), changes  # every round had turns
    for before, after in zip(changes, changes[1:]):
        if after[0] != before[0]:
            assert after[0] == before[0] + 1 and after[2] == "next_turn", (before, after)
    # the turns moved on by Next turn (phase/TN: a declaration hands the turn on too, and a shot due that takes the
    # one to declare out of the fight), sent by both sides
    for before, after in zip(changes, changes[1:]):  # phase/TN: a move declares a Move (#67), handing the turn on
        assert after[2] in ("next_turn", "act") or (after[2] == "move_token" and system == "phase_tn") or (
            after[2] == "attack" and system == "phase_tn" and before[1] in f["down"]), (before, after)
    assert {c[3] for c in changes[1:]} >= {"player", "runner"}, changes
    # the foes' turns are their planner's plans (or its words why it has none), sent as the runner's commands; the
    # hero's, her player's
    foe_turns = [p for p in f["played"] if p.split(": ")[0].split(". ")[1] in FOES]
    assert any(": attack: " in p for p in foe_turns), foe_turns
    assert all(p.split(": ")[1] in ("attack", "approach", "ready", "withdraw") or p.split(": ")[2]
               for p in foe_turns), foe_turns
    sent = {tuple(c) for c in f["commands"]}
    assert ("runner", "attack") in sent and ("player", "attack") in sent, sorted(sent)
    assert {who for who, _ in sent} == {"gm", "player", "runner"}


@pytest.mark.parametrize(("system", "layout"), FIGHTS, ids=_ids(FIGHTS))
def test_every_event_went_through_evolve_and_replaying_them_gives_the_same_state(played, system, layout):
    f = played["fights"][f"{system}/{layout}"]
    assert f["seq"] == f["events"]  # each applied once by table.evolve, and nothing else changed the game
    assert f["decided"] == f["decided_replayed"]  # as the fight was decided: places, sheets (wounds), the fight
    assert f["decided"]["combat"] is not None and f["decided"][HERO]["sheet"]
    assert f["end"] == f["end_replayed"]
    assert f["whole_state_replayed"]


@pytest.mark.parametrize(("system", "layout"), FIGHTS, ids=_ids(FIGHTS))
def test_no_turn_where_a_token_that_could_act_stood_still(played, system, layout):
    """#67: in every turn of either side whose plan was not ``none``, the turn sent the plan's steps, in order, before
    it ended (all of them, unless the token went down in its own turn); a turn with no plan had a reason the state
    bears out: no foe of its stood, or the rules refused every way of its turn (their words are the why), or they
    offer it no attack now (a Shaken Savage Worlds token that failed to recover: free actions only) and it stands
    next to a foe already, no move closer."""
    f = played["fights"][f"{system}/{layout}"]
    assert "error" not in f, f.get("error")
    assert f["turns"] and {t["side"] for t in f["turns"]} == {"hero", "foe"}
    for t in f["turns"]:
        turn = f"{system} on {layout}, round {t['round']}, {t['who']}'s turn ({t['side']})"
        if t["kind"] != "none":
            assert t["kind"] in KINDS, (turn, t["kind"])
            assert t["sent"], f"{turn}: planned {t['kind']} ({t['summary']}: {t['planned']}), stood still"
            assert t["sent"] == t["planned"][:len(t["sent"])], (turn, t["planned"], t["sent"])
            assert t["sent"] == t["planned"] or t["left"] == "down in its own turn", (turn, t)
            continue
        left = t["left_to_it"]  # what the rules leave it, asked of them apart from the planner
        if not left["foes_standing"]:
            assert t["why"] == "no foe of its still stands in the fight", (turn, t["why"])
            continue
        open_ = [way for way, refused in left["ways"].items() if refused is None]
        if open_:  # ways whose action the rules accept: they offer it no attack now, and no move brings it closer
            assert not left["attacks_open"] and left["attacks_refused"], \
                f"{turn}: no plan ({t['why']}) though the rules accept {open_} and offer {left['attacks_open']}"
            assert left["nearest_foe"] == (0 if layout == "zones" else 1), (turn, left)  # next to a foe already
            assert "no move closer" in t["why"], (turn, t["why"])
            continue
        assert left["ways"], (turn, left)
        assert next(iter(left["ways"].values())) in t["why"], (turn, t["why"], left["ways"])
    # the foes close in where no attack reaches them (the Orc fights hand to hand, but for phase/TN's gunmen)
    assert any(t["side"] == "foe" and t["kind"] in ("attack", "approach") and "move_token" in t["sent"]
               for t in f["turns"]) or system == "phase_tn", [t["summary"] for t in f["turns"]]


@pytest.mark.parametrize(("system", "layout"), FIGHTS, ids=_ids(FIGHTS))
def test_a_foe_far_off_closes_in_for_a_turn_and_its_distance_to_its_target_shrinks(played, system, layout):
    """#67: the foes start far from the hero (21 squares or hexes, more than a turn's longest move and reach in any
    system; three zone steps on zones), so a foe plays a pure closing-in turn (``approach``): it sent its move, and
    its distance to its target (squares or hexes by the rules' distance, zone steps on zones) shrank across the
    turn. The Orc, a melee fighter where its system automates melee, closes in so in its first turn."""
    f = played["fights"][f"{system}/{layout}"]
    assert "error" not in f, f.get("error")
    closing = [t for t in f["turns"] if t["side"] == "foe" and t["kind"] == "approach"]
    assert closing, f"{system} on {layout}: no foe closed in: {[(t['who'], t['kind']) for t in f['turns']]}"
    for t in closing:
        assert t["sent"] == t["planned"] and "move_token" in t["sent"], t
        assert t["apart_before"] is not None and t["apart_after"] is not None, t
    assert any(t["apart_after"] < t["apart_before"] for t in closing), closing
    first = next(t for t in f["turns"] if t["who"] == "Orc")
    if system != "phase_tn":  # the Orc fights hand to hand
        assert first["kind"] == "approach" and first["apart_after"] < first["apart_before"], first
        assert first["apart_before"] >= (2 if layout == "zones" else 14), first  # no attack reached from there


@pytest.mark.parametrize("layout", ("square", "hex"))
def test_phase_tn_foes_behind_a_wall_declare_a_move_before_they_shoot(played, layout):
    """#67: on phase/TN's map a wall of pillars stands between the sides, so the foes' first declarations are Moves
    (the Move declaration a move makes, "Initiative and Actions"), sent by the runner as the plan's move, and no
    foe declares a shot before a foe has declared a Move."""
    f = played["fights"][f"phase_tn/{layout}"]
    assert "error" not in f, f.get("error")
    foes = [t for t in f["turns"] if t["side"] == "foe"]
    moves = [i for i, t in enumerate(foes) if "move" in t["declared"]]
    shots = [i for i, t in enumerate(foes) if set(t["declared"]) - {"move"}]
    assert moves and shots, [(t["who"], t["declared"]) for t in foes]
    assert moves[0] < shots[0], [(t["who"], t["declared"]) for t in foes]
    assert all("move_token" in foes[i]["sent"] for i in moves)
    assert foes[0]["declared"] == ["move"] and foes[0]["kind"] == "approach", foes[0]
