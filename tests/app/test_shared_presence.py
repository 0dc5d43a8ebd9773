"""webapp/live/server/shared.py against a real redis-server: connections counted across processes, those of a killed
process gone after their lifetime, wrong GM passwords counted together, clear errors at start."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import pytest

from tests.helpers import free_port
from webapp.game.tableside import keys
from webapp.live.server import shared

REDIS = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (scripts/test installs it)")


@pytest.fixture
def redis_url(redis_server):
    return redis_server[0]


@pytest.fixture
def redis_server(tmp_path):
    """(its address, its process)."""
    port = free_port()
    proc = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                shared.connect(url)
                break
            except shared.QueueUnavailable:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield url, proc
    finally:
        proc.kill()
        proc.wait(10)


@pytest.fixture
def fast_heartbeat(monkeypatch):
    monkeypatch.setattr(shared, "HEARTBEAT", 0.1)
    monkeypatch.setattr(shared, "LIFETIME", 0.5)


def wait_for(check, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return False


def test_connections_on_every_process_count_and_a_killed_ones_vanish(redis_url, fast_heartbeat):
    changed = []
    a = shared.Shared(shared.connect(redis_url), on_change=changed.append)
    b = shared.Shared(shared.connect(redis_url), on_change=changed.append)
    try:
        a.opened("sid-a1", "g1", "player:p1")
        a.opened("sid-a2", "g1", "gm")
        b.opened("sid-b1", "g1", "player:p2")
        b.opened("sid-b2", "g2", "screen")
        assert b.audiences("g1") == {"player:p1": 1, "gm": 1, "player:p2": 1}
        assert {(sid, process) for sid, process, *_ in a.sessions("g1")} == {
            ("sid-a1", a.process), ("sid-a2", a.process), ("sid-b1", b.process)}
        time.sleep(1.0)  # twice the lifetime: the heartbeats keep them
        assert sum(a.audiences("g1").values()) == 3
        b.closed("sid-b1")
        assert a.audiences("g1") == {"player:p1": 1, "gm": 1}

        a._stop.set()  # a is killed: it renews nothing and says nothing
        assert wait_for(lambda: b.audiences("g1") == {}), b.audiences("g1")
        assert wait_for(lambda: "g1" in changed), "b did not notice that a's connections vanished"
        assert b.audiences("g2") == {"screen": 1}
    finally:
        a.close()
        b.close()


@pytest.mark.long
def test_a_redis_that_does_not_answer_costs_one_timeout_then_the_local_view(redis_server):
    url, proc = redis_server
    one = shared.Shared(shared.connect(url))
    try:
        one.opened("sid-1", "g1", "gm")
        os.kill(proc.pid, signal.SIGSTOP)  # up, connected, silent
        try:
            started = time.monotonic()
            views = [one.audiences("g1") for _ in range(5)]
            took = time.monotonic() - started
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        assert views == [{"gm": 1}] * 5  # this process's own connections
        assert shared.CALL_TIMEOUT <= took < shared.CALL_TIMEOUT + 0.5, took  # one timeout, not five
        assert wait_for(lambda: one.audiences("g1") == {"gm": 1} and not one._failed, shared.QUIET + 2)
    finally:
        one.close()


def test_wrong_gm_passwords_are_counted_across_processes(redis_url):
    one = shared.SharedGuesses(shared.Shared(shared.connect(redis_url)), keys.Guesses())
    other = shared.SharedGuesses(shared.Shared(shared.connect(redis_url)), keys.Guesses())
    for guesses in [one, other] * (keys.MAX_WRONG // 2) + [one] * (keys.MAX_WRONG % 2):
        assert not other.blocked("g1")
        assert guesses.take("g1", "10.0.0.9")
    assert one.blocked("g1") and other.blocked("g1")
    assert not other.take("g1", "10.0.0.8") and not one.take("g1")  # counted before checked: none past the limit
    for i in range(keys.MAX_WRONG_CLIENT - keys.MAX_WRONG):  # the client's count over every game
        assert [one, other][i % 2].take(f"g{i + 2}", "10.0.0.9")
    assert other.blocked("g99", "10.0.0.9") and not one.blocked("g99", "10.0.0.8")
    assert not other.blocked("g2")


def test_a_queue_that_cannot_be_used_stops_the_start_with_what_to_do():
    with pytest.raises(shared.QueueUnavailable, match=r"cannot reach the message queue at redis://127.0.0.1:\d+/0"):
        shared.connect(f"redis://127.0.0.1:{free_port()}/0")
    with pytest.raises(shared.QueueUnavailable, match="not a Redis address"):
        shared.connect("amqp://localhost//")
    with pytest.raises(shared.QueueUnavailable) as caught:
        shared.connect(f"redis://user:s3cret@127.0.0.1:{free_port()}/0")
    assert "s3cret" not in str(caught.value)  # the password is not printed


def test_serve_says_why_it_cannot_use_the_queue_without_a_traceback(tmp_path, capsys, monkeypatch):
    from webapp.cli import main

    args = ["serve", "--no-demo", "--host", "127.0.0.1", "--port", str(free_port()), "--data-dir", str(tmp_path)]
    assert main(args + ["--message-queue", f"redis://127.0.0.1:{free_port()}/0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tacmap cannot start: cannot reach the message queue") and "Traceback" not in err
    monkeypatch.setitem(__import__("sys").modules, "redis", None)  # the package is not installed
    monkeypatch.setenv("TACMAP_MESSAGE_QUEUE", "redis://127.0.0.1:6379/0")
    assert main(args) == 2
    assert "pip install 'tacmap[redis]'" in capsys.readouterr().err
    # started by the README's script: its own way to install an extra into its .venv (#71)
    monkeypatch.setenv("TACMAP_LAUNCHER", "python3 scripts/tacmap-start")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "not installed: python3 scripts/tacmap-start --setup redis" in err and "pip" not in err, err
