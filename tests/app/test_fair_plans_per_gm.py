"""Issue #72, the plans' queue bounded per GM across games, not only per game: "each game's (and each GM's)
requests queue on their own with a bound". One GM is one client address (``webapp/live/foes/fairness.py``): with
an open lobby one device may make many games, and each game's queue of its own gave it as many shares of the pool.

Against a real `tacmap serve --open-lobby --trusted-proxy 127.0.0.1` (gevent, its native pool; each client's
address the X-Forwarded-For its requests carry, as a proxy in front says it): one GM's requests over several of
its games past ``PER_GM`` are told "busy" (429) and change nothing; while one GM floods four big fights, another
GM's plan answers within a small multiple of its time alone (measured first, in the same test). And ``Fair``'s
queues in-process: a free thread goes to the GMs in turn, a GM's games in turn among its own, one running per GM;
the runner that plays the foes asks as the device that turned it on.
"""

from __future__ import annotations

import statistics
import threading
import time

import pytest

from tests.app.test_fair_plans import B_SLOWER, B_TIMES, BIG, Flood, alone_then_beside, plan
from tests.app.test_gevent_serving import Served
from tests.app.test_plans_thread_safety import a_fight
from tests.app.test_play_the_foes import FAST, _current, _to_a_players_turn, _two_against_two, _until
from tests.helpers import api_call, bearer, command
from webapp.live.foes import fairness, suggesting

FLOODING_GAMES = 4  # the flooding GM's big fights
PER_GAME_ASKERS = 2  # connections asking each of them at once (8 in all: past the GM's bound, within each game's)
X, Y = "198.51.100.7", "198.51.100.8"  # the flooding GM's device, and another table's GM's
HEAVY = 4  # X asks of its fights' foes from the fifth on: farther from the heroes, 0.5-0.9 s each here (the first 0.15 s)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = Served(tmp_path_factory.mktemp("fair-gm"), "--open-lobby", "--trusted-proxy", "127.0.0.1")
    yield server
    server.stop()


class From:
    """The served tacmap as one client address reaches it (through the trusted proxy: its X-Forwarded-For)."""

    def __init__(self, server: Served, address: str) -> None:
        self.server, self.address = server, address

    def api(self, method: str, path: str, body=None, token: str | None = None, timeout: float = 30):
        return api_call(self.server.url, method, path, body, token, timeout,
                        headers={"X-Forwarded-For": self.address})


def seq(device: From, game: dict) -> tuple[int, dict]:
    status, state = device.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])
    assert status == 200, state
    return state["seq"], state["tokens"]


@pytest.fixture(scope="module")
def fights(served):
    """GM X's big fights, made from X's device (the open lobby), and GM Y's small one, from Y's."""
    x = From(served, X)
    big = [a_fight(x, width=BIG[0], height=BIG[1], foes=BIG[2], heroes=BIG[3], name=f"Big fight {i}")
           for i in range(FLOODING_GAMES)]
    small = a_fight(From(served, Y), width=7, height=5, foes=1, heroes=1, name="Small fight")
    return big, small


@pytest.mark.long
def test_past_a_gms_bound_over_its_games_its_extra_requests_are_told_busy_and_change_nothing(served, fights):
    """GM X asks three of its games' plans three times each at once (nine, each game within its own bound of
    ``PER_GAME``): ``PER_GM`` are taken, the rest answered 429 at once with the GM's busy words; none of the games
    changed; GM Y's plan asked meanwhile is answered."""
    big, small = fights
    x, y = From(served, X), From(served, Y)
    games = big[:3]
    before = [seq(x, g) for g in games]
    answers: list[tuple[int, object, float]] = []
    guard = threading.Lock()
    start = threading.Barrier(len(games) * fairness.PER_GAME)

    def ask(game: dict, i: int) -> None:
        start.wait(10)
        got = plan(x, game, game["foes"][HEAVY + i])
        with guard:
            answers.append(got)

    threads = [threading.Thread(target=ask, args=(g, i), daemon=True) for g in games for i in range(fairness.PER_GAME)]
    for t in threads:
        t.start()
    time.sleep(0.3)  # X's queue full
    other, other_body, _took = plan(y, small)
    for t in threads:
        t.join(120)
    statuses = sorted(s for s, _b, _t in answers)
    busy = [(b, took) for s, b, took in answers if s == 429]
    print("X's answers:", statuses, "busy answered within", max((t for _b, t in busy), default=0.0))
    assert set(statuses) <= {200, 429}, answers
    assert len(busy) == len(answers) - fairness.PER_GM, statuses  # all asked before the first was answered
    assert all(b == {"error": str(fairness.BUSY_GM), "code": "busy"} for b, _t in busy), busy
    assert other == 200, other_body  # Y's plans are Y's share: X's bound is not Y's
    assert [seq(x, g) for g in games] == before


@pytest.mark.serial  # it times answers against a baseline: alone, in scripts/test's serial part
def test_another_gms_plan_waits_only_its_own_reckoning_while_one_gm_floods_many_games(served, fights):
    """GM Y's plan alone, then while GM X floods four big fights from two connections each: Y's median within
    ``B_SLOWER`` times its median alone. X runs one reckoning at a time over all its games, so a thread is free
    for Y whenever it asks (with one queue per game, X's fights took both threads and Y waited for one to end)."""
    big, small = fights
    x, y = From(served, X), From(served, Y)
    status, _body, x_alone = plan(x, big[0], big[0]["foes"][HEAVY])
    assert status == 200
    flood = Flood(x, asks=[lambda g=g, i=i: plan(x, g, g["foes"][HEAVY + i]) for g in big
                           for i in range(PER_GAME_ASKERS)], settle=2.0)  # GM X: two connections a fight
    alone, during = alone_then_beside(lambda: plan(y, small), flood, rest=0.1)  # Y's own share: never busy for X
    base, now = statistics.median(alone), statistics.median(during)
    print(f"X's plan alone {x_alone:.3f} s; Y alone {base:.3f} s, during X's flood of {FLOODING_GAMES} games "
          f"{now:.3f} s (median of {B_TIMES}; worst {max(during):.3f} s); X's answers {flood.statuses}")
    assert now <= B_SLOWER * base, (base, now, during)
    assert flood.statuses.get(200) and flood.statuses.get(429), flood.statuses  # X reckoned, and bounded


# --- in-process: the queues themselves ---------------------------------------------------------------------


class Queued:
    """Requests run through one ``Fair`` from threads of their own, each started once the one before is queued;
    ``order``: the names in the order their work ran; ``running``/``worst``: works at once, by GM and by game."""

    def __init__(self, fair: fairness.Fair) -> None:
        self.fair = fair
        self.order: list[str] = []
        self.gates: dict[str, threading.Event] = {}
        self.running: dict[str, int] = {}
        self.worst: dict[str, int] = {}
        self.started: dict[str, threading.Event] = {}
        self.threads: list[threading.Thread] = []
        self.refused: list[str] = []

    def _work(self, name: str, game: str, gm: str) -> str:
        self.started[name].set()
        for k in (game, gm):
            self.running[k] = self.running.get(k, 0) + 1
            self.worst[k] = max(self.worst.get(k, 0), self.running[k])
        if name in self.gates:
            self.gates[name].wait(5)
        self.order.append(name)
        for k in (game, gm):
            self.running[k] -= 1
        return name

    def _run(self, name: str, game: str, gm: str) -> None:
        try:
            self.fair.run(game, self._work, name, game, "gm " + gm, gm=gm)
        except fairness.Busy as exc:
            self.refused.append(f"{name}: {exc.message}")

    def ask(self, name: str, game: str, gm: str, gated: bool = False) -> None:
        if gated:
            self.gates[name] = threading.Event()
        self.started[name] = threading.Event()
        load = self.fair.load_gm(gm)
        self.threads.append(threading.Thread(target=self._run, args=(name, game, gm)))
        self.threads[-1].start()
        deadline = time.monotonic() + 5
        while self.fair.load_gm(gm) == load and time.monotonic() < deadline and self.threads[-1].is_alive():
            time.sleep(0.005)

    def finish(self) -> None:
        for gate in self.gates.values():
            gate.set()
        for t in self.threads:
            t.join(10)


def test_a_free_thread_goes_to_the_gms_in_turn_a_gm_with_many_games_has_the_share_of_one():
    """One thread. GM X's game xa runs (held); then X asks of three more games, Y of two, Z of one. The thread goes
    to Y and Z before X's second (X was served last), then in turn: X, Y, X; with one queue per game X's three
    games would have gone first, by first come."""
    q = Queued(fairness.Fair(None, threads=1, per_key=3, per_gm=6))
    q.ask("x1", "xa", "X", gated=True)
    assert q.started["x1"].wait(5)
    for name, game, gm in (("x2", "xb", "X"), ("x3", "xc", "X"), ("x4", "xd", "X"), ("y1", "ya", "Y"),
                           ("y2", "yb", "Y"), ("z1", "za", "Z")):
        q.ask(name, game, gm)
    q.finish()
    assert q.order == ["x1", "y1", "z1", "x2", "y2", "x3", "x4"]
    assert not q.refused
    assert all(q.fair.load(g) == 0 for g in ("xa", "xb", "xc", "xd", "ya", "yb", "za"))
    assert q.fair.load_gm("X") == q.fair.load_gm("Y") == 0


def test_one_gm_runs_one_reckoning_at_a_time_over_its_games_and_the_other_thread_is_another_gms():
    """Two threads. GM X's xa runs (held) and X asks of xb: xb waits though a thread is free (one GM cannot take
    the whole pool); GM Y's ya, asked after, takes the free thread and is done while xa still runs."""
    q = Queued(fairness.Fair(None, threads=2, per_key=3, per_gm=6))
    q.ask("x1", "xa", "X", gated=True)
    assert q.started["x1"].wait(5)
    q.ask("x2", "xb", "X")
    q.ask("y1", "ya", "Y")
    assert q.started["y1"].wait(5)
    for _ in range(200):
        if q.order:
            break
        time.sleep(0.005)
    assert q.order == ["y1"] and not q.started["x2"].is_set()  # Y done, X's second still waiting behind its first
    q.finish()
    assert q.order == ["y1", "x1", "x2"]
    assert q.worst["gm X"] == 1 and q.worst["xa"] == q.worst["xb"] == 1


def test_past_a_gms_bound_over_its_games_the_next_is_refused_at_once_and_another_gm_is_not():
    """``per_gm`` 4, ``per_key`` 3: GM X's two requests of each of two games are taken (four, each game within its
    own bound), the fifth, of a third game, is refused with the GM's busy words and nothing of it runs; GM Y's
    request meanwhile is taken; a game past its own bound is told the game's words."""
    q = Queued(fairness.Fair(None, threads=1, per_key=3, per_gm=4))
    q.ask("x1", "xa", "X", gated=True)
    assert q.started["x1"].wait(5)
    for name, game in (("x2", "xa"), ("x3", "xb"), ("x4", "xb")):
        q.ask(name, game, "X")
    assert q.fair.load_gm("X") == 4
    q.ask("x5", "xc", "X")
    assert q.refused == [f"x5: {fairness.BUSY_GM}"] and not q.started["x5"].is_set()
    assert q.fair.load_gm("X") == 4 and q.fair.load("xc") == 0
    q.ask("y1", "ya", "Y")
    assert q.fair.load_gm("Y") == 1  # Y's own bound: taken
    # a game's own bound still holds for a GM under its bound (the game asked from two devices)
    q.ask("w1", "xa", "W")
    q.ask("w2", "xa", "W")
    assert q.refused[1:] == [f"w2: {fairness.BUSY}"]
    q.finish()
    assert sorted(q.order) == ["w1", "x1", "x2", "x3", "x4", "y1"]
    assert q.fair.load_gm("X") == q.fair.load_gm("Y") == q.fair.load_gm("W") == 0


@FAST
def test_the_runner_that_plays_the_foes_asks_their_plans_as_the_device_that_turned_it_on(app, client, monkeypatch):
    """The GM turns "play the foes" on from 198.51.100.9: each plan its runner asks (a background task, outside any
    request) counts against that device's share, as the GM's own asks from there do."""
    asked: list[tuple[str, object]] = []
    run = fairness.Fair.run

    def counted(self, key, work, *args, **kw):
        asked.append((key, kw.get("gm")))
        return run(self, key, work, *args, **kw)

    monkeypatch.setattr(fairness.Fair, "run", counted)
    g, mira, ids = _two_against_two(client)
    _to_a_players_turn(client, g, ids)
    r = client.post(f"/api/games/{g['id']}/commands", json={"type": "play_foes", "on": True},
                    headers=bearer(g["gm_token"]), environ_base={"REMOTE_ADDR": "198.51.100.9"})
    assert r.status_code == 200, r.json
    for _ in range(2):  # Mira ends her tokens' turns: the foes' come
        if _current(client, g) not in (ids["Ann"], ids["Bob"]):
            break
        assert command(client, g, {"type": "next_turn"}, key=mira["player_token"]).status_code == 200
    _until(lambda: asked)
    assert command(client, g, {"type": "play_foes", "on": False}).status_code == 200
    assert asked and all(a == (g["id"], "198.51.100.9") for a in asked), asked


def test_a_gm_is_its_client_address_and_a_loopback_one_is_no_ones():
    """Whom a request's share is counted against: its address; the server's own machine's (or an untrusted proxy's
    on it, everyone's) is no one's, so each game there is a GM of its own."""
    assert suggesting.gm_of("198.51.100.7") == "198.51.100.7"
    assert suggesting.gm_of("2001:db8::7") == "2001:db8::7"
    assert suggesting.gm_of("fe80::7%eth0") == "fe80::7"
    for none in ("127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1", "", "?"):
        assert suggesting.gm_of(none) is None, none
