"""Throughput: the commands a second one game sustains, and what one command costs per screen.

Run: ``python3 -m bench.bench_throughput [--quick]`` (from the repository root).

A real ``tacmap serve`` (subprocess, loopback, temp data dir, ``--no-demo``) holds the bench game
(``scenario``, 8 players). The commands are moves of visible NPC tokens one square and back, sent over
Socket.IO by a GM connection (the GM's page), as the app's own pages send them. The screens are
python-socketio ``AsyncClient``s on one event loop (``live.AsyncClient``): the threaded client costs
the benchmark's process about 0.5 ms per message it receives, so ten screens held this process at a
whole core and the figure at the clients' speed (~185 commands/s), not the server's. The benchmark
process's CPU share is printed beside the rate, so a run bound by its own clients shows as such.

- Cost of one command with 0, 5, 10 and 50 screens dealt round five seats (the table screen's key and
  four players' keys, one after the other): the server holds at most ``PER_SEAT`` (10) connections of
  one seat in a process (webapp/live/server/keyless.py, #57: past it a seat's oldest is closed), so 50 screens
  are five seats' ten each, never fifty of one. One command at a time; for each, the time from sending
  it until the ack (0 screens) or until the last screen has the ``update``; and the server process's CPU
  time per command (from /proc, over batches of ``batch``, 100 by default). At 5 screens every seat has
  one (five audiences: five renders); beyond that only connections are added, and the target is a cost
  that does not grow with them. Beside it, the same sweep on the bare Flask-SocketIO server
  (``bare_broadcast.py``, one room, a message as long as the table screen's update): its growth is what
  stock Flask-SocketIO's transport costs per connection (the per-socket writer greenlet python-engineio
  wakes for each message, in gevent mode as tacmap's server).
- Sustained: with 10 open screens (the GM's page, the table screen and 8 players' phones, each player
  an audience) the driver keeps ``window`` commands in flight (one per token) for a fixed count; the
  rate is the count over the time from the first send to the last screen's ``update`` of the last
  command. Commands that queue while a commit is being written share its update (group commit), so
  the screens get fewer updates than commands: the updates per command are printed too.
  Target: 300 commands a second.
"""

from __future__ import annotations

import resource
import statistics
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import scenario  # noqa: E402
from bench.live import (exit_cleanly_on_sigterm, Arrivals, AsyncClient, Client, Loop, Server, close_all,  # noqa: E402
                        connect_all, percentile, progress, started)
from webapp.live.server.keyless import PER_SEAT  # noqa: E402  (a seat's connections in one process, #57)

TARGET_RATE = 300
SEATS = 5  # the screens' seats: the table screen and four players, each holding at most PER_SEAT connections
SCREENS = (0, SEATS, 2 * SEATS, SEATS * PER_SEAT)  # 0, one a seat (every audience rendered), two a seat, the cap
BATCH = 100  # commands per CPU reading: /proc counts CPU in 10 ms ticks (0.1 ms a command)
WARMUP = BATCH  # commands before each point of the sweep (the new screens' first updates); --quick: 10


class Mover:
    """Moves tokens back and forth between their two squares."""

    def __init__(self, movers) -> None:
        self.movers = movers
        self.at_b = {token: False for token, _a, _b in movers}

    def next(self, k: int = 0) -> dict:
        token, a, b = self.movers[k]
        self.at_b[token] = not self.at_b[token]
        return scenario.move(token, b if self.at_b[token] else a)


def one_at_a_time(server: Server, driver: Client, screens: list[Client], arrivals: Arrivals, next_payload,
                  batches: int, batch: int = BATCH) -> dict:
    latencies, cpu = [], []
    for _ in range(batches):
        c0 = server.cpu_seconds()
        for _ in range(batch):
            t0 = time.perf_counter()
            ack = driver.call(next_payload())
            t_ack = time.perf_counter()
            if not ack or not ack.get("ok"):
                raise RuntimeError(f"command refused: {ack}")
            if screens:
                if not arrivals.wait(screens, ack["seq"]):
                    raise RuntimeError("a screen missed an update for 10 s")
                t_ack = max(c.seen[ack["seq"]][0] for c in screens)
            latencies.append((t_ack - t0) * 1000)
        cpu.append((server.cpu_seconds() - c0) * 1000 / batch)
    return {"latency_ms": latencies, "cpu_ms": cpu}


def _own_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def sustained(tac: Server, driver: Client, screens: list[Client], arrivals: Arrivals, mover: Mover,
              count: int, timeout: float = 60.0) -> dict:
    """``len(mover.movers)`` chains, each sending its token's next move when the last one is acked."""
    lock = threading.Lock()
    state = {"sent": 0, "acked": 0, "refused": 0, "last_seq": 0}
    acks_ms: list[float] = []
    finished = threading.Event()

    def send(k: int) -> None:
        with lock:
            if state["sent"] >= count:
                return
            state["sent"] += 1
            payload = mover.next(k)
        t = time.perf_counter()
        driver.sio.emit("command", payload, callback=lambda ack=None: acked(k, ack, t))

    def acked(k: int, ack, t: float) -> None:
        with lock:
            acks_ms.append((time.perf_counter() - t) * 1000)
            state["acked"] += 1
            if ack and ack.get("ok"):
                state["last_seq"] = max(state["last_seq"], ack["seq"])
            else:
                state["refused"] += 1
            all_in = state["acked"] >= count
        if all_in:
            finished.set()
        else:
            send(k)

    changes0 = sum(c.changes for c in screens)
    c0, own0 = tac.cpu_seconds(), _own_cpu()
    t0 = time.perf_counter()
    for k in range(len(mover.movers)):
        send(k)
    finished.wait(timeout)
    arrivals.wait(screens, state["last_seq"])
    got = [c.seen[state["last_seq"]][0] for c in screens if state["last_seq"] in c.seen]
    t_end = max(got) if got else time.perf_counter()
    wall = t_end - t0
    acked_ok = state["acked"] - state["refused"]
    return {"rate": acked_ok / wall, "commands": acked_ok, "refused": state["refused"],
            "ack_ms": acks_ms, "cpu_ms": (tac.cpu_seconds() - c0) * 1000 / max(acked_ok, 1),
            "seconds": wall, "bench_cpu_share": (_own_cpu() - own0) / wall,
            "updates_per_command": (sum(c.changes for c in screens) - changes0) / max(acked_ok * len(screens), 1)}


def measure(batches: int = 3, rounds: int = 3, count: int = 300, window: int = 4, database: str | None = None,
            batch: int = BATCH, warmup: int = WARMUP) -> dict:
    """``database``: tacmap's games in that PostgreSQL database (else the data folder's SQLite file); ``batch``:
    commands per CPU reading in the sweep; ``warmup``: commands before each of its points (not counted)."""
    with ExitStack() as stack:
        data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="tacmap-bench-"))
        tac, bare = started(stack, Server.tacmap(data_dir, database), Server.bare())
        loop = Loop()
        clients: list[Client] = []
        stack.callback(loop.close)
        stack.callback(close_all, clients)
        stack.callback(bare.kill)
        stack.callback(tac.kill)  # first (last in): clients then see the server go and close at once
        game = scenario.build(tac.api, n_players=8, n_movers=window)
        progress("throughput: servers up, game built")
        arrivals = Arrivals()
        mover = Mover(game.movers)
        driver = Client(tac.url, {"game": game.id, "token": game.gm}, arrivals)
        bare_arrivals = Arrivals()
        bare_driver = Client(bare.url, {}, bare_arrivals)
        clients += [driver, bare_driver]
        connect_all([driver, bare_driver])
        one_at_a_time(tac, driver, [], arrivals, mover.next, 1, 2 * warmup)  # the board's indexes, the templates
        # the screens dealt round the seats in turn (the table screen, player 1, ..., player 4): at most PER_SEAT of
        # a seat's connections in one process (#57), so 50 are five seats' ten each
        seats = [game.screen] + [key for _pid, key in game.players[:SEATS - 1]]
        screens: list[Client] = []
        bare_screens: list[Client] = []
        sweep, bare_sweep = {}, {}
        size = 0
        for n in SCREENS:
            more = [AsyncClient(tac.url, {"game": game.id, "token": seats[i % SEATS]}, arrivals, loop)
                    for i in range(len(screens), n)]
            bare_more = [AsyncClient(bare.url, {}, bare_arrivals, loop) for _ in range(n - len(bare_screens))]
            clients.extend(more + bare_more)
            screens.extend(connect_all(more))
            bare_screens.extend(connect_all(bare_more))
            one_at_a_time(tac, driver, screens, arrivals, mover.next, 1, warmup)
            sweep[n] = one_at_a_time(tac, driver, screens, arrivals, mover.next, batches, batch)
            if screens and not size:  # the bare message: as long as the table screen's update for a move
                size = round(statistics.mean(b for _t, b in screens[0].seen.values()))
            one_at_a_time(bare, bare_driver, bare_screens, bare_arrivals, lambda: {"size": size}, 1, warmup)
            bare_sweep[n] = one_at_a_time(bare, bare_driver, bare_screens, bare_arrivals,
                                          lambda: {"size": size}, batches, batch)
            progress(f"throughput: {n} screens done")
        close_all(screens + bare_screens)

        table = [AsyncClient(tac.url, {"game": game.id, "token": game.gm}, arrivals, loop),
                 AsyncClient(tac.url, {"game": game.id, "token": game.screen}, arrivals, loop)]
        table += [AsyncClient(tac.url, {"game": game.id, "token": key}, arrivals, loop)
                  for _pid, key in game.players[:8]]
        clients.extend(table)
        connect_all(table)
        sustained(tac, driver, table, arrivals, mover, 2 * window)  # warm-up
        runs = [sustained(tac, driver, table, arrivals, mover, count) for _ in range(rounds)]
        progress("throughput: sustained runs done")
        return {"sweep": sweep, "bare_sweep": bare_sweep, "size": size, "runs": runs, "window": window,
                "count": count}


def per_screen(sweep: dict, low: int = SEATS, high: int = SCREENS[-1]) -> float:
    """CPU ms each screen beyond ``low`` (one a seat) adds to one command (median cost at ``high`` minus at ``low``)."""
    return (statistics.median(sweep[high]["cpu_ms"]) - statistics.median(sweep[low]["cpu_ms"])) / (high - low)


def main() -> None:
    quick = "--quick" in sys.argv
    exit_cleanly_on_sigterm()
    f = measure(1, 1, 100, batch=50, warmup=10) if quick else measure()
    base = statistics.median(f["sweep"][0]["cpu_ms"])
    for n, s in f["sweep"].items():
        lat = s["latency_ms"]
        cpu = statistics.median(s["cpu_ms"])
        bare = statistics.median(f["bare_sweep"][n]["cpu_ms"])
        print(f"{n:>2} screens: until the last has it median {statistics.median(lat):7.1f} p99 "
              f"{percentile(lat, 99):7.1f} ms; server CPU {cpu:6.2f} ms/command ({cpu / base:.1f}x of 0 screens); "
              f"bare server CPU {bare:5.2f} ms/message ({f['size']} B)")
    print(f"each screen beyond {SEATS} (one a seat): tacmap +{per_screen(f['sweep']) * 1000:.0f} us, bare transport "
          f"+{per_screen(f['bare_sweep']) * 1000:.0f} us")
    rates = [r["rate"] for r in f["runs"]]
    print(f"sustained, 10 open screens, {f['window']} in flight: {statistics.median(rates):.1f} commands/s "
          f"(runs {', '.join(f'{r:.1f}' for r in rates)}; target {TARGET_RATE}); server CPU "
          f"{statistics.median(r['cpu_ms'] for r in f['runs']):.2f} ms/command; updates per command and screen "
          f"{statistics.median(r['updates_per_command'] for r in f['runs']):.2f}; benchmark process CPU "
          f"{statistics.median(r['bench_cpu_share'] for r in f['runs']):.0%} of a core")


if __name__ == "__main__":
    main()
