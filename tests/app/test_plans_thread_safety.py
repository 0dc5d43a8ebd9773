"""Issue #72, "the plans' thread crashes now and then": about one plan request in 200 under concurrent use answered 500
with CPython's ``SystemError: Objects/tupleobject.c:927: bad argument to internal function`` on the reckoning thread
(in ``dataclasses.fields`` under ``asdict``, ``Modifier.to_dict``).

The cause: ``tuple(<generator>)`` builds its tuple in place and resizes it at the end, which CPython allows only
while nothing else holds it (its reference count 1). The loop's cycle collector
(``webapp/live/server/collector.py``) counted the generations' objects with ``len(gc.get_objects(n))``: that list
holds every young object of the process, the reckoning thread's half-built tuple too, and the loop's thread may hand
the GIL over between ``get_objects`` and ``len`` (each call's end is a switch point). It counted inside one C call
after that, the list never seen by the interpreter loop (``held``: the survivors of each collection, now that it
freezes them). And the copy of the game the reckoning reads shares nothing the loop may change
(``foe_sandbox.frozen``: the sheets too, which it shared).
"""

from __future__ import annotations

import dataclasses
import gc
import sys
import threading
import time
from contextlib import contextmanager

import pytest

from tests.app.test_gevent_serving import Served
from tests.app.test_suggestions_api import _two_against_two, _to_the_orcs_turn
from webapp.game.bridge.fighting import sheet_of
from tests.helpers import command
from webapp.game.planning import foe_sandbox
from webapp.live.server import collector

pytestmark = pytest.mark.long  # seconds each: run first (tests/conftest.py)

SECONDS = 2.0


@contextmanager
def builder_thread():
    """A native thread that builds small tuples from generators as fast as it can (what ``dataclasses.fields``
    does under ``asdict`` for every ``Modifier.to_dict``); yields the list of the errors it met."""
    errors: list[str] = []
    stop = threading.Event()

    def build() -> None:
        items = (1, 2, 3, 4, 5)
        while not stop.is_set():
            for _ in range(200):
                try:
                    tuple(x for x in items if x)
                except SystemError as exc:
                    errors.append(repr(exc))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)  # as ``tacmap serve`` has it (the store's writer thread, the geometry pool)
    worker = threading.Thread(target=build, daemon=True)
    worker.start()
    try:
        yield errors
    finally:
        stop.set()
        worker.join(10)
        sys.setswitchinterval(interval)


def test_the_collectors_collections_never_expose_another_threads_half_built_tuple(monkeypatch):
    """The collector's idle collection (its count of the survivors and the frozen, its freezing and thawing) runs on
    the loop again and again for two seconds while another thread builds tuples: not one SystemError."""
    quiet = collector.QuietCollector()
    quiet._long_lived = quiet._frozen = 1  # every other one thaws
    monkeypatch.setattr(collector.gc, "collect", lambda generation=2: 0)  # the rest alone, many times a second
    runs = 0
    try:
        with builder_thread() as errors:
            deadline = time.monotonic() + SECONDS
            while time.monotonic() < deadline and not errors:
                quiet._collect()
                runs += 1
    finally:
        gc.unfreeze()
    assert runs > 100
    assert errors == [], f"{len(errors)} SystemErrors in {runs} collections: {errors[:1]}"


def test_the_collectors_counts_are_the_generations_sizes():
    """Both counts taken with no other thread let in between (a long switch interval): the process's other threads
    (earlier tests' writer threads and pools) allocate and free too, and one CI run saw 19 objects appear between
    them. A thread that had asked for the GIL before the interval was set may still take it once between the two
    (a fresh-clone run saw one object go), so the pair is taken again, up to five times, until the two agree."""
    gc.collect()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(60.0)
    pairs = []
    try:
        for _ in range(5):
            pairs.append((collector.held(2), len(gc.get_objects(2))))
            if pairs[-1][0] == pairs[-1][1]:
                break
    finally:
        sys.setswitchinterval(interval)
    assert any(counted == listed for counted, listed in pairs), pairs
    young = [[] for _ in range(50)]  # noqa: F841 (held while counted)
    assert collector.held(0, 1) >= 50


@pytest.mark.app_config(DEMO=False, DICE_SEED="7")
def test_the_frozen_copy_shares_nothing_the_loop_may_change(app, client):
    """``foe_sandbox.frozen``: every mutable part of the copy the reckoning thread reads is its own, not the
    game's (``is`` checks): tokens and their sheets, characters and their sheets, the fight and its books,
    settings, tactics and their anchors, the board's containers."""
    g, _mira, ids = _two_against_two(client, "gurps_lite")
    assert command(client, g, {"type": "set_tactic", "token_id": ids["Orc"], "tactic": "careful"}).status_code == 200
    _to_the_orcs_turn(client, g, ids)
    game = app.extensions["tacmap"].game(g["id"])
    for name in ("Orc", "Ann"):  # a sheet of its own on a token, and a character's
        game.tokens[ids[name]].sheet = {"name": name, "weapons": {"Axe": {"damage": "1d6"}}}
    copy = foe_sandbox.frozen(game)
    assert game.characters or game.tokens
    for tid, token in game.tokens.items():  # the same token, and the same sheet as the rules read it (#67: a token
        mine = copy.tokens[tid]  # with neither a character nor a sheet is given the system's sample once)
        assert mine is not token and dataclasses.replace(mine, sheet=token.sheet) == token
        assert sheet_of(copy, mine) == sheet_of(game, token)
        if token.sheet:
            assert copy.tokens[tid].sheet is not token.sheet
            assert copy.tokens[tid].sheet["weapons"] is not token.sheet["weapons"]
    for cid, character in game.characters.items():
        assert copy.characters[cid] is not character and copy.characters[cid].sheet == character.sheet
        assert copy.characters[cid].sheet is not character.sheet
    assert copy.combat == game.combat and copy.combat is not game.combat
    assert copy.combat["state"] is not game.combat["state"] and copy.combat["order"] is not game.combat["order"]
    assert copy.settings is not game.settings and copy.tactics is not game.tactics
    tactic = game.tactics[ids["Orc"]]
    assert copy.tactics[ids["Orc"]] is not tactic and copy.tactics[ids["Orc"]]["anchor"] is not tactic["anchor"]
    for f in dataclasses.fields(game):  # and whatever else the game holds that may change
        if isinstance(getattr(game, f.name), (dict, list, set)) and getattr(game, f.name):
            assert getattr(copy, f.name) is not getattr(game, f.name), f.name
    assert copy.board is not game.board
    assert copy.board._walls is not game.board._walls and copy.board._cache is not game.board._cache


# --- against a real `tacmap serve`: plans asked from several connections while the foes move --------------------

def a_fight(server: Served, width: int = 12, height: int = 8, foes: int = 2, heroes: int = 2,
            name: str = "Plans") -> dict:
    """A 3d6 game in a fight: ``foes`` orcs on the left, ``heroes`` on the right; the foes' ids and the GM's key."""
    status, game = server.api("POST", "/api/games", {"name": name, "system": "gurps_lite",
                                                     "map": {"width": width, "height": height}})
    assert status == 201, game
    ids, foe_ids = [], []
    for i in range(foes + heroes):
        foe = i < foes
        x, y = (1 + (i % 3), 1 + (i // 3) % (height - 2)) if foe else (width - 2 - (i % 2), 1 + (i // 2) % (height - 2))
        status, token = server.api("POST", f"/api/games/{game['id']}/tokens",
                                   {"name": f"{'Orc' if foe else 'Hero'} {i}", "x": x, "y": y,
                                    **({} if foe else {"kind": "pc"})}, token=game["gm_token"])
        assert status == 201, token
        ids.append(token["id"])
        if foe:
            foe_ids.append(token["id"])
    status, done = server.api("POST", f"/api/games/{game['id']}/commands",
                              {"type": "start_combat", "token_ids": ids}, token=game["gm_token"])
    assert status == 200, done
    return game | {"foes": foe_ids, "all": ids}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = Served(tmp_path_factory.mktemp("plans"))
    yield server
    server.stop()


PLAN_REQUESTS = 2000
ASKERS = 3  # connections asking at once (within a game's bound: none of them is told busy)
#: the whole flood's bound: a 3d6 plan is 30-100 ms here, so some 200-300 of the 2,000 in it (40 s got ~1,100, and
#: 40 s of one worker in the suite; the crash it guards against was one plan in 200, and its cause has a test of its
#: own above that fails within a second)
FLOOD_SECONDS = 8.0


def test_plans_asked_from_several_connections_while_the_foes_move_never_fail(served):
    """Up to 2,000 plan requests (as many as ``FLOOD_SECONDS`` holds) from three connections at once while the GM
    moves the same game's tokens (on the loop):
    every one answered 200 with plans, none 500; the server's log has no traceback."""
    game = a_fight(served, width=7, height=5, foes=1, heroes=1)
    statuses: dict[int, int] = {}
    failures: list[str] = []
    asked = iter(range(PLAN_REQUESTS))
    guard = threading.Lock()
    stop = threading.Event()
    deadline = time.monotonic() + FLOOD_SECONDS

    def ask() -> None:
        while time.monotonic() < deadline:
            with guard:
                n = next(asked, None)
            if n is None:
                return
            foe = game["foes"][n % len(game["foes"])]
            status, body = served.api("GET", f"/api/games/{game['id']}/suggestions/{foe}", token=game["gm_token"])
            with guard:
                statuses[status] = statuses.get(status, 0) + 1
                if status != 200 or not isinstance(body, dict) or "plans" not in body:
                    failures.append(f"{status}: {str(body)[:300]}")

    def move() -> None:
        i = 0
        while not stop.is_set():
            token = game["all"][i % len(game["all"])]
            served.api("POST", f"/api/games/{game['id']}/commands",
                       {"type": "set_tactic", "token_id": game["foes"][i % len(game["foes"])],
                        "tactic": ("fierce", "careful", "guarding")[i % 3]}, token=game["gm_token"])
            served.api("POST", f"/api/games/{game['id']}/commands",
                       {"type": "move_token", "token_id": token, "x": 4 + i % 2, "y": 5 + i % 2, "force": True},
                       token=game["gm_token"])
            i += 1

    mover = threading.Thread(target=move, daemon=True)
    mover.start()
    askers = [threading.Thread(target=ask, daemon=True) for _ in range(ASKERS)]
    for t in askers:
        t.start()
    for t in askers:
        t.join(FLOOD_SECONDS + 30)
    stop.set()
    mover.join(30)
    answered = sum(statuses.values())
    print("plans answered", statuses, "in", round(time.monotonic() - deadline + FLOOD_SECONDS, 1), "s")
    assert answered >= 50, statuses  # bounded in time: as many as the machine answers in FLOOD_SECONDS
    assert failures == [], f"{len(failures)} of {answered}: {failures[:3]} ({statuses})"
    assert "Traceback" not in served.log.read_text()
