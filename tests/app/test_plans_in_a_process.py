"""Issue #72: under ``tacmap serve`` the foes' plans are reckoned in worker processes (``webapp/live/server/
workers.py``), not on a thread that shares the GIL with the loop. Real processes here ("spawn", as the server
starts them): the work runs in another process and its answer or its error comes back as raised; a worker that
dies answers its piece of work with ``WorkerGone`` and a new one takes its place; a worker keeps the indexes it
built on a game's board for the next reckoning on the same board, and drops them when the board changed.
(test_fair_plans times another table's moves beside a flood of plans in them, against a real ``tacmap serve``.)"""

from __future__ import annotations

import os

import pytest

from tests.app.test_suggestions_api import _two_against_two, _to_the_orcs_turn
from webapp.game.core.model import Rejected
from webapp.game.planning import foe_sandbox, suggestions
from webapp.live.foes import suggesting
from webapp.live.server import workers


def in_place(work, *args):
    """The pool's "native thread": here the caller's own (the test has no loop to keep free)."""
    return work(*args)


def refuse(name: str):
    raise Rejected("no token %(name)s in this game", name=name)


def kept_board(game_id: str):
    """In a worker: the board it keeps for ``game_id`` (its id in the worker's memory), the indexes built on it and
    its walls' count; None: none."""
    board = suggesting._KEPT.get(game_id)
    return None if board is None else (id(board), sorted(board._cache), len(board.to_dict()["walls"]))


@pytest.fixture(scope="module")
def pool():
    made = workers.Pool(1, in_place, preload=("webapp.live.foes.suggesting",))
    assert made.start()
    yield made
    for w in made._free:
        w.close()


def test_the_work_runs_in_another_process_and_its_error_comes_back_as_raised(pool):
    assert pool.run(os.getpid) != os.getpid()
    with pytest.raises(Rejected) as refused:
        pool.run(refuse, "Ogre")
    assert "Ogre" in str(refused.value)


def test_a_worker_that_died_answers_gone_and_the_next_work_gets_a_new_one(pool):
    first = pool.run(os.getpid)
    worker = pool._free[0]
    worker.process.kill()
    worker.process.join(10)
    with pytest.raises(workers.WorkerGone):
        pool.run(os.getpid)
    second = pool.run(os.getpid)
    assert second not in (first, os.getpid())


@pytest.mark.app_config(DEMO=False, DICE_SEED="7")
def test_a_worker_keeps_a_boards_indexes_for_the_same_board_and_drops_them_when_it_changed(app, client, pool):
    g, _mira, ids = _two_against_two(client, "gurps_lite")
    _to_the_orcs_turn(client, g, ids)
    game = app.extensions["tacmap"].game(g["id"])
    in_here = suggestions.reckon(foe_sandbox.frozen(game), ids["Orc"])
    sent = foe_sandbox.frozen(game, indexes=False)
    assert not sent.board._cache  # the copy goes without the indexes built here
    assert pool.run(suggesting.reckoned, sent, ids["Orc"]) == in_here  # the same plans as reckoned in place
    board, built, walls = pool.run(kept_board, g["id"])
    assert built and walls == 0
    pool.run(suggesting.reckoned, foe_sandbox.frozen(game, indexes=False), ids["Orc"])
    assert pool.run(kept_board, g["id"]) == (board, built, 0)  # the same board kept, with its indexes
    r = client.post(f"/api/games/{g['id']}/commands", json={"type": "add_wall", "a": [0, 0], "b": [0, 3]},
                    headers={"Authorization": f"Bearer {g['gm_token']}"})
    assert r.status_code == 200, r.get_data(as_text=True)
    game = app.extensions["tacmap"].game(g["id"])
    pool.run(suggesting.reckoned, foe_sandbox.frozen(game, indexes=False), ids["Orc"])
    now, _built, walls = pool.run(kept_board, g["id"])
    assert now != board and walls == 1  # the board with the new wall, not the one kept before


def test_a_worker_has_imported_what_its_work_needs_before_it_says_it_is_ready():
    """The plans' first reckoning in a new worker does not wait for the planning modules' imports (half a second)."""
    asked = "'webapp.live.foes.suggesting' in __import__('sys').modules"
    for preload, loaded in ((("webapp.live.foes.suggesting",), True), ((), False)):
        fresh = workers.Pool(1, in_place, preload=preload)
        assert fresh.start()
        try:
            assert fresh.run(eval, asked) is loaded  # without: what a worker imports by itself, not the plans'
        finally:
            for w in fresh._free:
                w.close()


def _how_scheduled() -> tuple:
    """In a worker: its scheduling policy (Linux) and its niceness."""
    return (os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else None,
            os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else None)


def test_a_worker_behind_the_tables_takes_a_core_only_when_nobody_else_wants_it():
    """The forecast's workers step back (``behind``): on Linux in the idle class (``SCHED_IDLE``: so a 2-core machine
    plays two lanes of a forecast, #68), elsewhere at a lower priority; the plans' workers as the server is."""
    behind = workers.Pool(1, in_place, behind=True)
    level = workers.Pool(1, in_place)
    try:
        assert behind.start() and level.start()
        policy, nice = behind.run(_how_scheduled)
        if workers.idle_class():
            assert policy == os.SCHED_IDLE
        else:
            assert nice is None or nice > os.getpriority(os.PRIO_PROCESS, 0)
        assert level.run(_how_scheduled) == _how_scheduled()
    finally:
        for w in [*behind._free, *level._free]:
            w.close()
