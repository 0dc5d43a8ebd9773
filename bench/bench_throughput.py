"""Throughput: the commands a second one game sustains, and what one command costs per screen.

Run: ``python3 -m bench.bench_throughput [--quick]`` (from the repository root).

A real ``tacmap serve`` (subprocess, loopback, temp data dir, ``--no-demo``) holds the bench game
(``scenario``, 8 players). The commands are moves of visible NPC tokens one square and back, sent over
Socket.IO by a GM connection (the GM's page), as the app's own pages send them.

- Cost of one command with 0, 2, 10 and 50 screens of one audience (connections with the table
  screen's key): one command at a time; for each, the time from sending it until the ack (0 screens)
  or until the last screen has the ``update``; and the server process's CPU time per command (from
  /proc, over batches of 10). Adding the first screen adds an audience (one more render); beyond that
  the target is a cost that does not grow with the number of screens.
- Sustained: with 10 open screens (the GM's page, the table screen and 8 players' phones, each player
  an audience) the driver keeps ``window`` commands in flight (one per token) for a fixed count; the
  rate is the count over the time from the first send to the last screen's ``update`` of the last
  command. Target: 300 commands a second.
"""

from __future__ import annotations

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
from bench.live import exit_cleanly_on_sigterm, Arrivals, Client, Server, close_all, connect_all, percentile, progress  # noqa: E402

TARGET_RATE = 300
SCREENS = (0, 2, 10, 50)
BATCH = 10


class Mover:
    """Moves tokens back and forth between their two squares."""

    def __init__(self, movers) -> None:
        self.movers = movers
        self.at_b = {token: False for token, _a, _b in movers}

    def next(self, k: int = 0) -> dict:
        token, a, b = self.movers[k]
        self.at_b[token] = not self.at_b[token]
        return scenario.move(token, b if self.at_b[token] else a)


def one_at_a_time(tac: Server, driver: Client, screens: list[Client], arrivals: Arrivals, mover: Mover,
                  batches: int) -> dict:
    latencies, cpu = [], []
    for _ in range(batches):
        c0 = tac.cpu_seconds()
        for _ in range(BATCH):
            t0 = time.perf_counter()
            ack = driver.call(mover.next())
            t_ack = time.perf_counter()
            if not ack or not ack.get("ok"):
                raise RuntimeError(f"command refused: {ack}")
            if screens:
                if not arrivals.wait(screens, ack["seq"]):
                    raise RuntimeError("a screen missed an update for 10 s")
                t_ack = max(c.seen[ack["seq"]][0] for c in screens)
            latencies.append((t_ack - t0) * 1000)
        cpu.append((tac.cpu_seconds() - c0) * 1000 / BATCH)
    return {"latency_ms": latencies, "cpu_ms": cpu}


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

    c0 = tac.cpu_seconds()
    t0 = time.perf_counter()
    for k in range(len(mover.movers)):
        send(k)
    finished.wait(timeout)
    arrivals.wait(screens, state["last_seq"])
    got = [c.seen[state["last_seq"]][0] for c in screens if state["last_seq"] in c.seen]
    t_end = max(got) if got else time.perf_counter()
    acked_ok = state["acked"] - state["refused"]
    return {"rate": acked_ok / (t_end - t0), "commands": acked_ok, "refused": state["refused"],
            "ack_ms": acks_ms, "cpu_ms": (tac.cpu_seconds() - c0) * 1000 / max(acked_ok, 1),
            "seconds": t_end - t0}


def measure(batches: int = 3, rounds: int = 3, count: int = 60, window: int = 4) -> dict:
    with ExitStack() as stack:
        data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="tacmap-bench-"))
        tac = stack.enter_context(Server.tacmap(data_dir))
        clients: list[Client] = []
        stack.callback(close_all, clients)
        stack.callback(tac.kill)  # first (last in): clients then see the server go and close at once
        game = scenario.build(tac.api, n_players=8, n_movers=window)
        progress("throughput: server up, game built")
        arrivals = Arrivals()
        mover = Mover(game.movers)
        driver = Client(tac.url, {"game": game.id, "token": game.gm}, arrivals)
        clients.append(driver)
        connect_all([driver])
        one_at_a_time(tac, driver, [], arrivals, mover, 2)  # warm-up: the board's indexes, the templates
        screens: list[Client] = []
        sweep = {}
        for n in SCREENS:
            more = [Client(tac.url, {"game": game.id, "token": game.screen}, arrivals) for _ in range(n - len(screens))]
            clients.extend(more)
            screens.extend(connect_all(more))
            one_at_a_time(tac, driver, screens, arrivals, mover, 1)  # warm-up
            sweep[n] = one_at_a_time(tac, driver, screens, arrivals, mover, batches)
            progress(f"throughput: {n} screens done")
        close_all(screens)

        table = [Client(tac.url, {"game": game.id, "token": game.gm}, arrivals),
                 Client(tac.url, {"game": game.id, "token": game.screen}, arrivals)]
        table += [Client(tac.url, {"game": game.id, "token": key}, arrivals) for _pid, key in game.players[:8]]
        clients.extend(table)
        connect_all(table)
        sustained(tac, driver, table, arrivals, mover, 2 * window)  # warm-up
        runs = [sustained(tac, driver, table, arrivals, mover, count) for _ in range(rounds)]
        progress("throughput: sustained runs done")
        return {"sweep": sweep, "runs": runs, "window": window, "count": count}


def main() -> None:
    quick = "--quick" in sys.argv
    exit_cleanly_on_sigterm()
    f = measure(1, 1, 30) if quick else measure()
    base = statistics.median(f["sweep"][0]["cpu_ms"])
    for n, s in f["sweep"].items():
        lat = s["latency_ms"]
        cpu = statistics.median(s["cpu_ms"])
        print(f"{n:>2} screens: until the last has it median {statistics.median(lat):7.1f} p99 "
              f"{percentile(lat, 99):7.1f} ms; server CPU {cpu:6.1f} ms/command ({cpu / base:.1f}x of 0 screens)")
    rates = [r["rate"] for r in f["runs"]]
    print(f"sustained, 10 open screens, {f['window']} in flight: {statistics.median(rates):.1f} commands/s "
          f"(runs {', '.join(f'{r:.1f}' for r in rates)}; target {TARGET_RATE}); server CPU "
          f"{statistics.median(r['cpu_ms'] for r in f['runs']):.1f} ms/command")


if __name__ == "__main__":
    main()
