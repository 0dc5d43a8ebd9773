"""The threads lanes run on (webapp/live/server/lanes.py ``Workers``): reused, bounded, and gone once idle."""

from __future__ import annotations

import threading
import time

from webapp.live.server.lanes import Job, Lane, Workers


class Spawner:
    """Starts threads as the server's start_background_task does, and keeps them to look at."""

    def __init__(self):
        self.threads: list[threading.Thread] = []

    def __call__(self, target):
        t = threading.Thread(target=target, daemon=True)
        self.threads.append(t)
        t.start()
        return t

    def alive(self) -> int:
        return sum(t.is_alive() for t in self.threads)


def wait_until(check, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_work_after_work_runs_on_the_same_thread_without_starting_another():
    spawn = Spawner()
    workers = Workers(spawn, keep=4, idle_for=5)
    ran: list[str] = []
    for i in range(20):
        done = threading.Event()
        workers.start(lambda i=i, done=done: (ran.append(threading.current_thread().name), done.set()))
        assert done.wait(5)
        wait_until(lambda: workers.idle() == 1)  # back waiting for the next
    assert len(spawn.threads) == 1 and len(set(ran)) == 1


def test_an_idle_worker_ends_after_idle_for_so_a_closed_connection_leaves_no_thread():
    spawn = Spawner()
    workers = Workers(spawn, keep=4, idle_for=0.2)
    lane = Lane(workers.start)
    answers = {}
    gate = threading.Event()

    def run():
        gate.wait(5)
        answers["c0"] = {"ok": True}

    lane.offer(Job("command", run, lambda reply: answers.__setitem__("c0", reply), time.monotonic()))
    lane.offer(Job("command", lambda: answers.__setitem__("c1", {"ok": True}),
                   lambda reply: answers.__setitem__("c1", reply), time.monotonic()))
    wait_until(lambda: spawn.alive() == 1)
    lane.close()  # the connection went away while c0 ran: c1 is dropped
    gate.set()
    wait_until(lambda: spawn.alive() == 0, timeout=3)
    assert answers == {"c0": {"ok": True}} and workers.idle() == 0


def test_at_most_keep_threads_wait_idle_the_others_end_at_once():
    spawn = Spawner()
    workers = Workers(spawn, keep=2, idle_for=30)
    gate = threading.Event()
    for _ in range(6):
        workers.start(lambda: gate.wait(5))
    assert len(spawn.threads) == 6  # all busy at once: one thread each
    gate.set()
    wait_until(lambda: spawn.alive() == 2)
    assert workers.idle() == 2
    ran = threading.Event()
    workers.start(ran.set)  # taken by an idle one
    assert ran.wait(5) and len(spawn.threads) == 6


def test_every_work_runs_exactly_once_while_idle_workers_time_out_meanwhile():
    """Hand-overs racing the end of an idle wait: nothing is lost, nothing runs twice."""
    spawn = Spawner()
    workers = Workers(spawn, keep=3, idle_for=0.001)
    counts: dict[int, int] = {}
    lock = threading.Lock()

    def work(i):
        with lock:
            counts[i] = counts.get(i, 0) + 1

    def feed(base):
        for i in range(base, base + 300):
            workers.start(lambda i=i: work(i))
            if i % 7 == 0:
                time.sleep(0.002)  # let some idle waits run out

    feeders = [threading.Thread(target=feed, args=(k * 1000,)) for k in range(3)]
    for f in feeders:
        f.start()
    for f in feeders:
        f.join(30)
    wait_until(lambda: len(counts) == 900, timeout=10)
    assert set(counts.values()) == {1}
    wait_until(lambda: spawn.alive() == 0, timeout=5)  # and every thread ended once idle


def test_a_failing_work_is_logged_and_its_thread_serves_the_next(caplog):
    spawn = Spawner()
    workers = Workers(spawn, keep=1, idle_for=5)
    workers.start(lambda: 1 / 0)
    wait_until(lambda: workers.idle() == 1)
    done = threading.Event()
    workers.start(done.set)
    assert done.wait(5) and len(spawn.threads) == 1
    assert "a lane's worker failed" in caplog.text


def test_without_python_socketios_hook_events_run_in_order_on_their_reading_thread(monkeypatch, caplog):
    """A python-socketio without the private seam the lanes use: its own ordered handling
    (``async_handlers`` off), one log line, and the server still starts."""
    import logging

    import socketio

    from webapp.live.server.lanes import Lanes

    monkeypatch.delattr(socketio.Server, "_handle_event")
    server = socketio.Server(async_mode="threading")
    assert server.async_handlers is True
    with caplog.at_level(logging.WARNING, logger="webapp.live.server.lanes"):
        lanes = Lanes(server)
    assert lanes.hooked is False and server.async_handlers is False
    assert [r.name for r in caplog.records] == ["webapp.live.server.lanes"] and "in order" in caplog.text


def test_with_the_hook_the_lanes_take_the_events(monkeypatch):
    import socketio

    from webapp.live.server.lanes import Lanes

    server = socketio.Server(async_mode="threading")
    stock = server._handle_event
    lanes = Lanes(server)
    assert lanes.hooked is True and server.async_handlers is True and server._handle_event != stock
