"""The forecast's engine (#68, ``webapp/game/planning/forecast.py``): whole fights played through by the planner on
both sides, with the rules' dice, in each of the five systems. A fight one side cannot lose is won every time with
nobody of that side down; the same seed gives the same figures; a fight from where it stands reads the fight as it
stands (a fallen hero stays fallen)."""

from __future__ import annotations

import pytest

import rules
from rules.board import Board
from webapp.game.board import mapdata
from webapp.game.core.model import GM, Rejected
from webapp.game.planning import forecast
from webapp.game.table import decide, empty_game, evolve, new_game_events, parse_command, settle

pytestmark = pytest.mark.long  # seconds each: run first (tests/conftest.py)

SYSTEMS = ["gurps_lite", "savage_worlds", "tesseris_ads", "phase_tn", "atomic_tomorrow"]
ZONES = [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]}, {"id": "bay", "name": "Cargo Bay"}]


def _run(game, payload: dict):
    events = decide(game, parse_command(payload), GM)
    for event in events:
        evolve(game, event)
    return events


def make(system: str, fighters: list[tuple[str, str, tuple[int, int], str, dict]], size: tuple[int, int] = (10, 10)):
    """A ``system`` game on a ``size`` map (Atomic Tomorrow: two zones, ``ZONES``), each fighter ``(name, kind,
    square, zone, changes)`` a token with a character: the system's sample sheet with ``changes`` over it."""
    zoned = system == "atomic_tomorrow"
    board, zones = mapdata.zone_map({"zones": ZONES}) if zoned else (Board(*size), None)
    game = empty_game("g")
    for event in new_game_events("Forecast", system, board, zones):
        evolve(game, event)
    ids = {}
    for name, kind, (x, y), zone, changes in fighters:
        where = {"zone": zone} if zoned else {"x": x, "y": y}
        ids[name] = _run(game, {"type": "add_token", "name": name, "kind": kind, **where})[0].data["token"]["id"]
        sheet = {**rules.get(system).default_sheet(), **changes}
        _run(game, {"type": "add_character", "name": name, "token_id": ids[name], "sheet": sheet})
    return game, ids


def unarmed(system: str) -> dict:
    """A sheet change that leaves a foe no weapon; in Atomic Tomorrow and Tesseris (where a fist is always there) the
    hero's armour stops it (``hero``) and, in Atomic Tomorrow, the foe wears none, so the fight ends within the cap."""
    empty = type(rules.get(system).default_sheet()["weapons"])()
    return {"weapons": empty, **({"armour": "none"} if system == "atomic_tomorrow" else {})}


def hero(system: str) -> dict:
    return {"atomic_tomorrow": {"armour": "heavy"},
            "tesseris_ads": {"armour": {"name": "Power armour", "ap": 30, "bulk": -1}}}.get(system, {})


def one_sided(system: str):
    return make(system, [("Hero", "pc", (2, 2), "pad", hero(system)), ("Dummy", "npc", (5, 2), "bay", unarmed(system))])


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_fight_the_players_cannot_lose_is_won_every_time_and_no_hero_goes_down(system):
    game, ids = one_sided(system)
    start = forecast.prepared(game, from_start=True)
    figures = forecast.forecast(start, 8, seed=11, settle=settle, cap=60).as_dict()
    assert figures["runs_done"] == 8 and figures["capped"] == 0, figures
    assert figures["party_wins"] == 1.0, figures
    assert figures["down"].get(ids["Hero"], 0.0) == 0.0 and figures["down"][ids["Dummy"]] == 1.0, figures
    lo, hi = figures["interval"]
    assert hi == 1.0 and 0.6 < lo < 1.0  # Wilson's interval: 8 of 8 is not a certainty
    assert figures["rounds"]["q1"] <= figures["rounds"]["median"] <= figures["rounds"]["q3"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_fight_the_players_cannot_win_is_lost_every_time(system):
    """The other way round: the unarmed one is the hero, so the players' side never wins."""
    game, ids = make(system, [("Hero", "pc", (2, 2), "pad", unarmed(system)),
                              ("Brute", "npc", (5, 2), "bay", hero(system))])
    figures = forecast.forecast(forecast.prepared(game, from_start=True), 6, seed=3, settle=settle, cap=60).as_dict()
    assert figures["party_wins"] == 0.0 and figures["capped"] == 0, figures
    assert figures["down"][ids["Hero"]] == 1.0 and figures["down"].get(ids["Brute"], 0.0) == 0.0, figures


@pytest.mark.parametrize("system", ["savage_worlds", "gurps_lite"])
def test_the_same_seed_gives_the_same_figures_and_another_seed_its_own_dice(system):
    runs = 4
    game, _ = make(system, [("Ann", "pc", (1, 2), "pad", {}), ("Bob", "pc", (1, 5), "pad", {}),
                            ("Orc", "npc", (6, 3), "bay", {}), ("Imp", "npc", (6, 6), "bay", {})])
    start = forecast.prepared(game, from_start=True)
    first = forecast.forecast(start, runs, seed=42, settle=settle)
    again = forecast.forecast(forecast.prepared(game, from_start=True), runs, seed=42, settle=settle)
    assert first.as_dict() == again.as_dict()
    assert [r.steps for r in first.done] == [r.steps for r in again.done]
    other = forecast.forecast(start, runs, seed=43, settle=settle)
    assert [(r.rounds, r.down, r.steps) for r in other.done] != [(r.rounds, r.down, r.steps) for r in first.done]


def test_a_forecast_leaves_the_game_as_it_was():
    game, ids = make("savage_worlds", [("Ann", "pc", (1, 2), "pad", {}), ("Orc", "npc", (6, 3), "bay", {})])
    _run(game, {"type": "start_combat", "token_ids": list(ids.values())})
    before = (game.seq, game.to_dict())
    forecast.forecast(forecast.prepared(game, from_start=False), 3, seed=1, settle=settle)
    forecast.forecast(forecast.prepared(game, from_start=True), 3, seed=1, settle=settle)
    assert (game.seq, game.to_dict()) == before


def test_from_here_a_fallen_hero_stays_fallen_and_the_party_fares_worse():
    """Three heroes against a brute: from the start they win more often than from a moment two of them are down."""
    game, ids = make("savage_worlds", [("Ann", "pc", (1, 2), "pad", {}), ("Bob", "pc", (1, 4), "pad", {}),
                                       ("Cid", "pc", (1, 6), "pad", {}), ("Ogre", "npc", (7, 4), "bay", {})])
    whole = forecast.forecast(forecast.prepared(game, from_start=True), 12, seed=5, settle=settle).as_dict()
    _run(game, {"type": "start_combat", "token_ids": list(ids.values())})
    for name in ("Ann", "Bob"):
        character = next(c for c in game.characters.values() if c.token_id == ids[name])
        _run(game, {"type": "update_sheet", "character_id": character.id,
                    "changes": {"incapacitated": True, "wounds": 3}})
    now = forecast.forecast(forecast.prepared(game, from_start=False), 12, seed=5, settle=settle).as_dict()
    assert now["down"][ids["Ann"]] == 1.0 and now["down"][ids["Bob"]] == 1.0, now
    assert now["party_wins"] < whole["party_wins"], (now, whole)


def test_what_cannot_be_forecast_is_refused_with_the_reason():
    game, ids = make("savage_worlds", [("Ann", "pc", (1, 2), "pad", {}), ("Orc", "npc", (6, 3), "bay", {})])
    with pytest.raises(Rejected, match="no fight on"):
        forecast.prepared(game, from_start=False)
    with pytest.raises(Rejected, match="at least one foe"):
        forecast.prepared(game, from_start=True, token_ids=[ids["Ann"]])
    with pytest.raises(Rejected, match="bold or careful"):
        forecast.prepared(game, from_start=True, players="reckless")
    plain, _ = make("plain_grid", [])
    with pytest.raises(Rejected, match="cannot be forecast"):
        forecast.prepared(plain, from_start=True)


def test_wilsons_interval_holds_the_chance_and_stays_within_0_and_1():
    assert forecast.wilson(0, 10)[0] == 0.0 and forecast.wilson(10, 10)[1] == 1.0
    lo, hi = forecast.wilson(50, 100)
    assert lo < 0.5 < hi and abs((hi - lo) - 0.19) < 0.01  # about ±1.96 sd of a half at n=100


def test_what_if_a_second_ogre_comes_and_the_heroes_have_a_benny_more():
    """What if (#68): a foe that comes twice stands beside itself with its own character and the heroes fare worse; a
    Benny more for each hero is there to spend (Savage Worlds soaks with them), and what the fight cost is counted."""
    game, ids = make("savage_worlds", [("Ann", "pc", (1, 2), "pad", {}), ("Bob", "pc", (1, 4), "pad", {}),
                                       ("Ogre", "npc", (7, 3), "bay", {"wild_card": False})])
    one = forecast.prepared(game, from_start=True)
    two = forecast.prepared(game, from_start=True, extra=[ids["Ogre"]])
    twin = ids["Ogre"] + "+1"
    assert twin in two.ids and two.game.tokens[twin].name == "Ogre +" and twin not in game.tokens
    assert max(abs(two.game.tokens[twin].x - 7), abs(two.game.tokens[twin].y - 3)) == 1
    alone = forecast.forecast(one, 12, seed=8, settle=settle).as_dict()
    doubled = forecast.forecast(two, 12, seed=8, settle=settle).as_dict()
    assert twin in doubled["down"] and doubled["party_wins"] <= alone["party_wins"], (alone, doubled)
    rich = forecast.prepared(game, from_start=True, bennies=2)
    sheets = [c.sheet["bennies"] for c in rich.game.characters.values() if c.token_id in (ids["Ann"], ids["Bob"])]
    assert sheets == [5, 5] and [c.sheet["bennies"] for c in game.characters.values()][:2] == [3, 3]
    spent = forecast.forecast(rich, 12, seed=8, settle=settle).as_dict()["costs"]
    assert set(spent) == {"bennies"} and 0 < spent["bennies"] <= 10, spent  # soaked with, over the two heroes


@pytest.mark.parametrize("system", ["tesseris_ads", "phase_tn", "atomic_tomorrow"])
def test_the_same_seed_gives_the_same_figures_in_the_other_systems(system):
    """The same seed, the same figures (and the same runs, to the command), in the three systems the test above does
    not play: a hero and a foe of the sample sheet, three fights from two starts made alike."""
    game, _ = make(system, [("Ann", "pc", (1, 2), "pad", hero(system)), ("Orc", "npc", (6, 3), "bay", {})])
    first = forecast.forecast(forecast.prepared(game, from_start=True), 3, seed=7, settle=settle)
    again = forecast.forecast(forecast.prepared(game, from_start=True), 3, seed=7, settle=settle)
    assert first.as_dict() == again.as_dict() and first.done == again.done


def test_batches_played_on_several_lanes_and_come_back_out_of_order_give_one_lanes_figures_run_by_run():
    """The live side's forecast (``forecasting._lanes``) keeps a batch in flight on each of its worker processes. Here
    three lanes are greenlets whose batches come back in a scrambled order (each waits a random while first, as
    workers finish when they finish): the runs join the figures in their order all the same, so the figures after
    each batch are those of the forecast's first runs, and at the end every run is the one a single lane plays."""
    import random

    import gevent

    from webapp.live.foes import forecasting

    game, _ = make("savage_worlds", [("Ann", "pc", (1, 2), "pad", {}), ("Bob", "pc", (1, 5), "pad", {}),
                                     ("Orc", "npc", (6, 3), "bay", {}), ("Imp", "npc", (6, 6), "bay", {})])
    runs, seed = 12, 7
    alone = forecast.forecast(forecast.prepared(game, from_start=True), runs, seed=seed, settle=settle)
    dice = random.Random(3)
    seen: list[int] = []

    def pool(work, start, seed, first, count, key):
        gevent.sleep(dice.random() * 0.05)  # a worker that finishes when it finishes
        seen.append(first)
        return work(start, seed, first, count, key)

    job = forecasting.Job("j", "g", [forecasting.Variant(None, forecast.prepared(game, from_start=True),
                                                         forecast.Figures(seed, runs))])
    prefixes = []
    add = job.figures.add
    job.figures.add = lambda run: (add(run), prefixes.append(len(job.figures.done)))
    forecasting._lanes(job, pool, 3, gevent.spawn, lambda: gevent.sleep(0))
    assert seen != sorted(seen), seen  # the batches did come back out of order
    assert job.figures.done == alone.done  # run by run: each the run a single lane plays, in its place
    assert job.figures.as_dict() == alone.as_dict()
    assert prefixes == list(range(1, runs + 1))


def test_the_time_a_forecast_takes_yet_is_its_pace_so_far_over_the_runs_left_of_every_fight_it_plays():
    """The card says how long a forecast will take yet (#68: 500 fights are minutes here): the time since it was asked
    for, over the runs done of the whole fight and of the fights without a foe, times the runs left; nothing before
    its first run, nor once it is done or stopped."""
    from webapp.live.foes import forecasting

    whole, without = forecast.Figures(1, 100), forecast.Figures(1, 100)
    job = forecasting.Job("j", "g", [forecasting.Variant(None, None, whole), forecasting.Variant("imp", None, without)],
                          begun=1000.0)
    assert job.left(now=1010.0) is None  # no run in yet: no pace to tell
    whole.done.extend([object()] * 30)
    without.done.extend([object()] * 10)
    assert job.left(now=1010.0) == pytest.approx(10.0 * 160 / 40)  # 40 runs in 10 s, 160 to go
    whole.done.extend([object()] * 70)
    assert job.left(now=1020.0) == pytest.approx(20.0 * 90 / 110)
    job.stopped = True
    assert job.left(now=1020.0) is None
    job.stopped, job.done = False, True
    assert job.left(now=1020.0) is None


def test_an_attacks_line_and_cover_kept_on_the_board_go_with_the_next_wall():
    """An attack's plan keeps its line of fire and cover on the board as it is (``aiming._sighted``, #68: the planner
    weighs the same shot for every way and weapon): asked again, the same answers; after a wall goes up between the
    two, the line is blocked (the board's change let the kept ones go); after a crate, the cover is the crate's."""
    from webapp.game.fight import aiming

    game, ids = make("savage_worlds", [("Ann", "pc", (1, 2), "pad", {}), ("Orc", "npc", (6, 2), "bay", {})])
    shot = aiming.AttackCommand(attacker=ids["Orc"], target=ids["Ann"], weapon=None)
    first = aiming.plan(game, shot, GM)
    assert first["view"]["line"]["clear"] and aiming.plan(game, shot, GM)["view"] == first["view"]
    game.board.add_cover((2, 2), "crate")
    covered = aiming.plan(game, shot, GM)["view"]["cover"]["fraction"]
    assert covered > first["view"]["cover"]["fraction"]
    game.board.add_wall((4, 0), (4, 5))
    with pytest.raises(Rejected, match="no line of fire"):
        aiming.plan(game, shot, GM)
