"""The forecast's bench (#68, ``bench/forecast.py``) runs, and what a forecast keeps between its turns
(``webapp/game/planning/forecast_fast.py``: plans of states met again, the board's geometry; and the allies' odds
``suggestions_side.in_the_way`` no longer reads when no plan ends beside a hero) changes no choice and no roll.

Run 0 of the bench's forecast (seed ``bench.forecast.SEED``) of its encounter in each of the five systems (four
players' characters against six foes on the 30 x 30 map with walls; Atomic Tomorrow on its zone map) is played with
what the forecast keeps (``batch``: a memo) and with every turn reckoned afresh (``memo`` None): the same run, to the
command. The bench's table and profile are run once on one fight so that they cannot rot.
"""

from __future__ import annotations

import pytest

import rules
from rules.system import RuleError
from bench import forecast as bench
from webapp.game import table
from webapp.game.planning import forecast, forecast_fast, suggestions

pytestmark = pytest.mark.long  # seconds each: run first (tests/conftest.py)

def _named(start, run: forecast.Run) -> tuple:
    names = {t.id: t.name for t in start.game.tokens.values()}
    return (run.won, run.rounds, sorted(names[i] for i in run.down), sorted(names[i] for i in run.dead), run.steps)


@pytest.mark.parametrize("system", bench.SYSTEMS)
def test_the_bench_plays_the_same_fight_with_what_the_forecast_keeps_as_with_the_planner_alone(system):
    start = bench.start_of(system)
    kept = bench.batch(start, 0, 1)
    alone = forecast.play(start, forecast.seed_of(bench.SEED, 0), table.settle, bench.CAP)
    assert [_named(start, r) for r in kept] == [_named(start, alone)] and kept == [alone]


def test_a_state_met_again_is_answered_from_the_memo_and_plays_what_the_planner_alone_plays():
    """Run 0 of the bench's 3d6 fight played with a memo, then again with the same memo: the second time every turn's
    state is one met before, answered from what was kept (``met``: no reckoning), and the run is the same; and the
    same as with every turn reckoned afresh (``memo`` None: the planner alone)."""
    start = bench.start_of("gurps_lite")
    memo = forecast_fast.Memo.of(start)
    seed = forecast.seed_of(bench.SEED, 0)
    first = forecast.play(start, seed, table.settle, bench.CAP, memo)
    asked, met = memo.asked, memo.met
    assert met < asked and any(memo.shared[k][0] for k in memo.shared if k[0] == "geometry")  # lines of fire kept
    again = forecast.play(start, seed, table.settle, bench.CAP, memo)
    assert memo.asked == 2 * asked and memo.met - met == asked, (met, asked, memo.met, memo.asked)  # all met
    assert again == first == forecast.play(start, seed, table.settle, bench.CAP)


@pytest.mark.parametrize("system", ["gurps_lite", "tesseris_ads"])
def test_the_squares_an_attack_is_judged_from_are_worked_out_once_per_turn_and_target_for_the_weapons_alike(
        system, monkeypatch):
    """A turn's squares to attack a target from (``suggestions._front``) are kept for its weapons alike on reach and
    its ways with the same squares (``_Geometry.front``): run 0 of the bench's fight, each kept answer the one worked
    out afresh, and one in four at least asked for again."""
    fronts, asked = suggestions._Geometry.front, {"n": 0, "kept": 0}

    def checked(geo, cells, target, foes, careful, within):
        kept = (id(cells), target.id, (target.x, target.y), careful, within) in geo._fronts
        out = fronts(geo, cells, target, foes, careful, within)
        assert out == suggestions._front(cells, target, geo, foes, careful, within)
        asked["n"], asked["kept"] = asked["n"] + 1, asked["kept"] + kept
        return out

    monkeypatch.setattr(suggestions._Geometry, "front", checked)
    start = bench.start_of(system)
    forecast.play(start, forecast.seed_of(bench.SEED, 0), table.settle, bench.CAP)
    assert asked["n"] > 100 and asked["kept"] > asked["n"] / 4, asked


def test_no_melee_attack_is_judged_from_past_its_reach(monkeypatch):
    """Run 0 of the bench's 3d6 fight (broadswords, punches, pistols): the planner asks the rules' odds of no melee
    attack from farther than the weapon reaches (``_within``: the system's ``reach``), and of many attacks."""
    system = rules.get("gurps_lite")
    odds, asked = type(system).odds, {"n": 0, "past": []}

    def told(self, request, *args, **kwargs):
        asked["n"] += 1
        try:
            return odds(self, request, *args, **kwargs)
        except RuleError as exc:
            if "reaches" in str(exc):
                asked["past"].append(str(exc))
            raise

    monkeypatch.setattr(type(system), "odds", told)
    start = bench.start_of("gurps_lite")
    forecast.play(start, forecast.seed_of(bench.SEED, 0), table.settle, bench.CAP)
    assert asked["n"] > 300 and not asked["past"], (asked["n"], asked["past"][:3])


def test_the_bench_measures_a_batch_and_where_its_time_goes():
    row = bench.measure("savage_worlds", runs=1, batches=1)
    assert row["per_s"] > 0 and row["ms"] > 0 and len(row["runs"]) == 1 and row["rounds"] >= 1
    parts = bench.profile("savage_worlds", 1)
    labels = [label for label, _s, _share in parts]
    assert labels[0].startswith("planner") and labels[-1].startswith("other")
    top = sum(share for label, _s, share in parts if label in bench.TOP or label.startswith("other"))
    assert top == pytest.approx(1.0)


def test_a_fights_second_batch_reads_the_geometry_its_first_measured_and_plays_the_same_runs():
    """The live side hands each batch of a forecast's fight the same key (``forecasting.batch``: the forecast's id, the
    fight's number): the second batch starts from the lines of fire and ways the first measured (``Memo.of``), and
    its runs are those a batch of its own plays; another forecast's key lets the first one's geometry go."""
    start = bench.start_of("savage_worlds")
    seed = bench.SEED
    first = forecast.batch(start, seed, 0, 1, table.settle, bench.CAP, key=("f1", 0))
    kept = forecast_fast.Memo.of(start, ("f1", 0)).shared
    lines = sum(len(kept[k][0]) for k in kept if k[0] == "geometry")
    assert lines > 0  # the first batch's lines of fire, there for the next
    second = forecast.batch(start, seed, 1, 1, table.settle, bench.CAP, key=("f1", 0))
    assert forecast_fast.Memo.of(start, ("f1", 0)).shared is kept
    assert sum(len(kept[k][0]) for k in kept if k[0] == "geometry") >= lines
    assert first + second == forecast.batch(start, seed, 0, 2, table.settle, bench.CAP)
    assert forecast_fast.Memo.of(start, ("f2", 0)).shared == {} and ("f1", 0) not in forecast_fast._GEOMETRY


@pytest.mark.parametrize("system", bench.SYSTEMS)
def test_the_planners_attack_options_are_ones_the_system_lists(system, monkeypatch):
    """The planner weighs its attacks without holding their options to the system's listing (``aiming.plan``'s
    ``listed`` False: the options are a way's of the rules' own ``plan_turns``). Run 0 of the bench's fight, with the
    listing asked for every one of them all the same: it refuses none, so leaving it out changes no plan."""
    from webapp.game.fight import aiming

    checked = aiming._checked_options
    asked, refused = [], []

    def both(game, cmd, actor, listed=True):
        if not listed and cmd.options:
            asked.append(cmd.options)
            try:
                checked(game, cmd, actor, True)
            except aiming.Rejected as exc:
                refused.append((cmd.options, exc))
        return checked(game, cmd, actor, listed)
    monkeypatch.setattr(aiming, "_checked_options", both)
    forecast.play(bench.start_of(system), forecast.seed_of(bench.SEED, 0), table.settle, bench.CAP)
    assert not refused, refused[:3]
    if system in ("savage_worlds", "tesseris_ads", "phase_tn"):  # (the 3d6 and Atomic Tomorrow ways carry none)
        assert asked
