"""The game plays without the web (#66): a whole fight in each system with foes' plans, played headless by commands
on a ``Game`` through the table's command path (``table.parse_command``, ``table.decide``, ``table.evolve``), in a
fresh interpreter that imports neither Flask nor Socket.IO nor a store (tests/headless_fight.py plays it and prints
what happened). Each fight ends with one side down, its turns moved on by commands, the foes' turns played from the
foes' planner's plans as the "play the foes" runner sends them, every event applied through ``table.evolve``, and
the events replayed from scratch give the same state."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rules

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = ("savage_worlds", "gurps_lite", "phase_tn", "tesseris_ads", "atomic_tomorrow")
WEB = ("flask", "flask_socketio", "socketio", "engineio", "werkzeug", "jinja2", "sqlite3", "psycopg",
       "webapp.storage", "webapp.live", "webapp.web")
HERO, FOES = "Ann", ("Orc", "Goblin")


@pytest.fixture(scope="module")
def played() -> dict:
    """The five fights, played in one fresh interpreter (``python -m tests.headless_fight``): its JSON summary."""
    run = subprocess.run([sys.executable, "-m", "tests.headless_fight", *SYSTEMS], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_every_system_with_foes_plans_is_played():
    assert set(SYSTEMS) == {s.id for s in rules.systems() if getattr(s, "planner", None) is not None}


def test_the_fights_imported_the_game_and_nothing_of_the_web(played):
    assert {"webapp.game.table", "webapp.game.planning.suggestions", "webapp.game.planning.foeplay"} <= set(played["game_modules"])
    assert played["web_modules"] == [], f"a headless fight imported the web: {played['web_modules']}"
    assert not [m for m in played["game_modules"] if m.startswith(tuple(w + "." for w in WEB) + WEB)]


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_whole_fight_plays_to_its_end_by_commands(played, system):
    f = played["fights"][system]
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


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_rounds_turns_moved_on_by_commands_of_the_player_and_the_foes_runner(played, system):
    f = played["fights"][system]
    changes = f["turn_changes"]  # [round, whose turn, the command that moved it, who sent it]
    assert changes[0][:3] == [1, changes[0][1], "start_combat"] and changes[0][3] == "gm"
    assert {c[0] for c in changes} == set(range(1, f["rounds"] + 1)), changes  # every round had turns
    for before, after in zip(changes, changes[1:]):
        if after[0] != before[0]:
            assert after[0] == before[0] + 1 and after[2] == "next_turn", (before, after)
    # the turns moved on by Next turn (phase/TN: a declaration hands the turn on too), sent by both sides
    assert {c[2] for c in changes[1:]} <= {"next_turn", "act"}, changes
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


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_event_went_through_evolve_and_replaying_them_gives_the_same_state(played, system):
    f = played["fights"][system]
    assert f["seq"] == f["events"]  # each applied once by table.evolve, and nothing else changed the game
    assert f["decided"] == f["decided_replayed"]  # as the fight was decided: places, sheets (wounds), the fight
    assert f["decided"]["combat"] is not None and f["decided"][HERO]["sheet"]
    assert f["end"] == f["end_replayed"]
    assert f["whole_state_replayed"]
