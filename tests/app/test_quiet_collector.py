"""Python's cycle collector at the loop's idle moments (webapp/live/server/collector.py): a collection waits until the
request or event that made its objects is done and gevent's loop has nothing else to do, collects what was made
since its last and freezes the survivors (walked once, never again), thaws everything once a quarter more
objects are frozen than after its last thaw (CPython's rule for its oldest generation), and never runs in the
middle of a command.

Run on a gevent loop of their own in this (unpatched) process, and in a gevent-patched one as `tacmap serve`."""

from __future__ import annotations

import contextlib
import functools
import gc
import threading

import gevent

from webapp.live.server.collector import BACKSTOP, COLLECTOR, QuietCollector


class Cycle:
    def __init__(self) -> None:
        self.me = self


def garbage(n: int) -> None:
    """``n`` objects in reference cycles, unreachable at once: only the cycle collector frees them."""
    for _ in range(n):
        Cycle()


@contextlib.contextmanager
def watching():
    """The generation of every collection started in this thread, in order, while the block runs (threads other
    tests left behind in this process collect in theirs)."""
    seen: list[int] = []
    me = threading.get_ident()

    def note(phase, info):
        if phase == "start" and threading.get_ident() == me:
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)


@contextlib.contextmanager
def started(c: QuietCollector | None = None):
    """A collector started on this thread's loop, every generation's count from 0 and what lives frozen (as
    ``tacmap serve`` starts it); stopped after, CPython's thresholds back as they were, nothing frozen."""
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    c = c or QuietCollector()
    try:
        assert c.start()
        yield c
    finally:
        c.stop()
        gc.unfreeze()
    assert gc.get_threshold() == before


def own_loop(test):
    """The test in a native thread of its own, on a gevent loop of its own: greenlets and timers that other
    tests left on this process's main loop never keep it busy (its idle moments are what is tested)."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        failed: list[BaseException] = []

        def body():
            try:
                test(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 (raised again in the test's thread)
                failed.append(exc)
            finally:
                gevent.get_hub().destroy(destroy_loop=True)

        thread = threading.Thread(target=body, name=test.__name__)
        thread.start()
        thread.join(120)
        assert not thread.is_alive(), "the test's thread did not end"
        if failed:
            raise failed[0]

    return run


def idle(collector: QuietCollector, done: int) -> None:
    """Let gevent's loop idle until the collector made ``done`` collections (at most a second)."""
    with gevent.Timeout(1, False):
        while collector.collections < done:
            gevent.sleep(0.001)
    assert collector.collections == done


@own_loop
def test_while_it_runs_cpython_collects_by_itself_only_past_the_backstop_and_its_threshold_comes_back_after():
    before = gc.get_threshold()
    with started(), watching() as collections:
        assert gc.get_threshold() == (max(BACKSTOP, before[0]), *before[1:])
        garbage(before[0] * 2)  # four times what starts a collection otherwise (two objects each)
        assert collections == []
    assert gc.get_threshold() == before


@own_loop
def test_a_due_collection_waits_until_the_work_is_done_and_the_loop_is_idle():
    with started() as collector, watching() as collections:
        young = collector._thresholds[0]
        garbage(young // 4)  # (an instance and its attributes: up to two objects each)
        collector.after_work()  # too few new objects yet: nothing is due
        gevent.sleep(0.01)
        assert collector.collections == 0 and collections == []

        garbage(young + 100)
        assert collections == []  # CPython did not collect them in the middle of the work
        collector.after_work()
        assert collections == []  # nor right away: the caller's greenlet goes on to its answer
        idle(collector, 1)
        assert collections == [2]  # everything not frozen: what was made since
        # the young generation was collected: its count started again (below half the threshold it had passed; a
        # CI run counted 78 where other threads of the test process had made objects since: not this collection's)
        assert gc.get_count()[0] < young // 2


class Kept:
    """An object that lives on (it is in no cycle: its reference count frees it)."""


@own_loop
def test_the_survivors_of_a_collection_are_frozen_and_no_later_collection_walks_them():
    with started() as collector:
        young = collector._thresholds[0]
        kept = [Kept() for _ in range(young)]
        garbage(young + 10)
        collector.after_work()
        idle(collector, 1)
        frozen = gc.get_freeze_count()
        assert frozen >= len(kept)  # they lived: frozen
        assert not any(gc.is_tracked(k) and k in gc.get_objects(2) for k in kept[:5])
        walked: list[int] = []

        def note(phase, info):
            if phase == "stop" and threading.get_ident() == me:
                walked.append(info["collected"])
        me = threading.get_ident()
        gc.callbacks.append(note)
        try:
            for i in range(3):
                garbage(young + 10)
                collector.after_work()
                idle(collector, 2 + i)
        finally:
            gc.callbacks.remove(note)
        assert len(walked) == 3 and all(n >= young for n in walked)  # the garbage made since, freed each time
        assert collector.thaws == 0 and gc.get_freeze_count() >= frozen  # the kept ones stayed frozen, unwalked
        del kept[:]  # dropped: their reference counts free them, frozen or not
        assert gc.get_freeze_count() < frozen


def collect_once(collector: QuietCollector, young: int) -> None:
    garbage(young + 10)
    collector.after_work()
    idle(collector, collector.collections + 1)


@own_loop
def test_frozen_cycles_dropped_later_are_freed_at_the_first_quiet_moment_once_a_quarter_more_are_frozen():
    import weakref

    # (quiet for a second: a loaded CI machine's loop took over 0.2 s from a request's end to its idle moment)
    with started(QuietCollector(quiet_for=1.0)) as collector:
        young = collector._thresholds[0]
        cycles = [Cycle() for _ in range(100)]
        alive = [weakref.ref(c) for c in cycles]
        collect_once(collector, young)
        del cycles  # now garbage, but frozen: no collection walks them...
        for _ in range(3):
            collect_once(collector, young)
        assert collector.thaws == 0 and all(r() is not None for r in alive)
        # ...until a quarter more objects are frozen than after the last thaw (or the start)...
        kept = [Kept() for _ in range(collector._long_lived // 4 + 100)]  # noqa: F841 (they live on)
        collect_once(collector, young)  # these frozen at last
        collect_once(collector, young)  # and a thaw due now: not in the middle of the table's work...
        assert collector.thaws == 0 and all(r() is not None for r in alive)
        with gevent.Timeout(5, False):  # ...but at its first quiet moment (no request or event ended for 1 s)
            while not collector.thaws:
                gevent.sleep(0.01)
        assert collector.thaws == 1
        assert all(r() is None for r in alive)


@own_loop
def test_a_thaw_waiting_for_a_quiet_moment_counts_the_frozen_objects_once_not_at_every_collection(monkeypatch):
    # counted at every collection (gc.get_freeze_count walks every frozen object), a thaw waiting while another table
    # played doubled a big map's making beside it (#69)
    counted = []
    count = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: counted.append(1) or count())
    with started(QuietCollector(quiet_for=60)) as collector:
        young = collector._thresholds[0]
        kept = [Kept() for _ in range(collector._long_lived // 4 + 100)]  # noqa: F841 (they live on)
        collect_once(collector, young)  # these frozen...
        collect_once(collector, young)  # ...and a thaw due now, counted: it waits for a quiet minute
        assert collector.thaw_due() and collector.thaws == 0
        before = len(counted)
        for _ in range(20):  # a busy table's events, each with its collection, the thaw still waiting
            collect_once(collector, young)
        assert collector.thaws == 0 and len(counted) == before


@own_loop
def test_a_server_never_quiet_thaws_once_it_froze_thaw_at_most_objects_more():
    from webapp.live.server import collector as module

    with started(QuietCollector(quiet_for=60)) as collector:
        young = collector._thresholds[0]
        most = max(module.THAW_AT_MOST, collector._long_lived)
        kept = [Kept() for _ in range(most // 2)]
        collect_once(collector, young)
        collect_once(collector, young)
        assert collector.thaws == 0  # due (over a quarter more), waiting for a quiet minute
        kept += [Kept() for _ in range(most // 2 + 100)]
        collect_once(collector, young)  # these frozen...
        assert collector.thaws == 0
        collect_once(collector, young)  # ...and past the most now: thawed however busy
        assert collector.thaws == 1


@own_loop
def test_no_collection_runs_in_the_middle_of_a_command(app, client):
    """Moves through the JSON API (each a request whose teardown hands the app's collector the moment): every
    collection made while they run waits for the loop to idle between them, none starts during a command."""
    hub = app.extensions["tacmap"]
    g = client.post("/api/games", json={"name": "Quiet", "system": "plain_grid"}).json
    auth = {"Authorization": f"Bearer {g['gm_token']}"}
    token = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Runner", "x": 1, "y": 1}, headers=auth).json
    during: list[int] = []

    def note(phase, info):
        if phase == "start" and hub.quiet_for() == 0.0:  # a command is being carried out
            during.append(info["generation"])

    with started(COLLECTOR) as c:
        gc.callbacks.append(note)
        try:
            for i in range(150):
                move = {"type": "move_token", "token_id": token["id"], "x": 1 + (i + 1) % 2, "y": 1}
                answer = client.post(f"/api/games/{g['id']}/commands", headers=auth, json=move)
                assert answer.status_code == 200, answer.json
                gevent.idle()  # the loop idles between moves, as between a table's (a sleep's timer may come due first on a loaded machine)
        finally:
            gc.callbacks.remove(note)
    assert c.collections >= 3  # 150 moves make objects enough for several collections...
    assert during == []  # ...and none ran while a move was carried out


PATCHED = r'''
from gevent import monkey

monkey.patch_all()  # as `tacmap serve` (webapp/entry.py): every request a greenlet, threading's ids per greenlet
import gc, json, sys, tempfile

import gevent

from webapp import create_app
from webapp.live.server.collector import COLLECTOR

app = create_app({"DATA_DIR": tempfile.mkdtemp(), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
hub, client = app.extensions["tacmap"], app.test_client()
g = client.post("/api/games", json={"name": "Quiet", "system": "plain_grid"}).json
auth = {"Authorization": f"Bearer {g['gm_token']}"}
token = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Runner", "x": 1, "y": 1}, headers=auth).json
during = []
gc.callbacks.append(lambda phase, info: phase == "start" and hub.quiet_for() == 0.0 and during.append(info["generation"]))
assert COLLECTOR.start()
for i in range(150):  # each move a request in a greenlet of its own, as the server's
    move = {"type": "move_token", "token_id": token["id"], "x": 1 + (i + 1) % 2, "y": 1}
    answer = gevent.spawn(client.post, f"/api/games/{g['id']}/commands", headers=auth, json=move).get()
    assert answer.status_code == 200, answer.json
    gevent.idle()  # an idle moment between moves (a sleep's timer may come due first on a loaded machine)
print(json.dumps({"collections": COLLECTOR.collections, "during": during}))
'''


def test_in_a_gevent_patched_process_every_request_greenlet_hands_the_collector_its_moment(tmp_path):
    """gevent's patched ``threading`` gives each greenlet an id of its own: the collector tells the loop's thread by
    its native id, so a request in any greenlet of it counts (the moves of the test above, in `tacmap serve`'s
    setting)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", PATCHED], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["collections"] >= 3
    assert found["during"] == []
