"""Many live screens, spread over several client processes so that the clients are not what is measured.

``Crowd(url, processes)`` starts ``processes`` children (``python -m bench.crowd``), each a plain
python-socketio client process (websocket transport, messages handled in arrival order as a page does), and
gives them screens to connect (``connect``), moves to play (``play``) and then closes them (``close``). The
parent talks to each child with one JSON line per order on its stdin and reads one JSON line per answer on
its stdout; every wait has a deadline, and the children are killed when the ``with`` ends (errors too).

A game's screens all go to the same child, so the time from a move's send to each other screen's
``update`` is read on one clock. Each child's screens connect from an address of their own on loopback
(127.0.0.10, .11, ...: on Linux the whole of 127/8 is the machine), as a hall's phones come from addresses of
their own: the server holds at most ``PER_ADDRESS_SEATED`` (webapp/live/server/keyless.py) connections from one. Used by the convention-hall and held-screens figures (bench/load.py) and
by tests/e2e/test_convention_hall.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def raise_open_files(wanted: int) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (up to the hard limit): the limit
    now (or ``wanted`` where the platform has no such limit)."""
    try:
        import resource
    except ImportError:  # Windows: no such limit to raise
        return wanted
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (OSError, ValueError):
        return wanted


# --- the child: one client process ----------------------------------------------------------------

class Screen:
    """One connected screen: when it first saw each seq."""

    def __init__(self, url: str, game: str, key: str, source: str | None = None) -> None:
        from bench.live import in_arrival_order, sio_client

        self.url, self.game, self.key, self.source = url, game, key, source
        self.seen: dict[int, float] = {}
        self.lock = threading.Lock()
        self.sio = in_arrival_order(sio_client())
        self.sio.on("update", self._update)

    def _update(self, data) -> None:
        t = time.perf_counter()
        seq, before = data.get("seq"), data.get("from_seq")
        if before is None or seq is None or before == seq:
            return
        with self.lock:
            for s in range(max(before + 1, seq - 1000), seq + 1):
                self.seen.setdefault(s, t)

    def connect(self, timeout: float) -> None:
        if self.source:  # the websocket's TCP connection from our own address: websocket-client takes it made
            import socket
            from urllib.parse import urlsplit

            where = urlsplit(self.url)
            sock = socket.create_connection((where.hostname, where.port), timeout, source_address=(self.source, 0))
            self.sio.eio.websocket_extra_options["socket"] = sock
        self.sio.connect(self.url, auth={"game": self.game, "token": self.key}, transports=["websocket"],
                         wait_timeout=timeout)


class Child:
    def __init__(self) -> None:
        self.screens: list[Screen] = []

    def connect(self, order: dict) -> dict:
        new = [Screen(order["url"], c["game"], c["key"], order.get("source")) for c in order["clients"]]
        errors: list[str] = []
        t0 = time.perf_counter()

        def one(s: Screen) -> float | None:
            t = time.perf_counter()
            try:
                s.connect(order.get("timeout", 15))
                return time.perf_counter() - t
            except Exception as exc:  # noqa: BLE001 (a refused or timed-out connect is the figure)
                if len(errors) < 3:
                    errors.append(f"{type(exc).__name__}: {exc}"[:200])
                return None

        with ThreadPoolExecutor(order.get("workers", 8)) as pool:
            times = list(pool.map(one, new))
        self.screens += [s for s, t in zip(new, times) if t is not None]
        done = [t * 1000 for t in times if t is not None]
        return {"connected": len(done), "failed": len(new) - len(done), "errors": errors,
                "connect_ms": done, "seconds": time.perf_counter() - t0, "held": self.alive()}

    def alive(self) -> int:
        return sum(1 for s in self.screens if s.sio.connected)

    def play(self, order: dict) -> dict:
        """Each game (its screens are ours: ``screens``, indexes into this child's screens in the order they
        were given) sends a move every 1 / ``rate`` s, its movers taking turns, open loop, for ``seconds``."""
        rate, seconds, start_in = order["rate"], order["seconds"], order.get("start_in", 0.5)
        t0 = time.perf_counter() + start_in
        sends = []  # (due, game index, mover index)
        games = order["games"]
        per_game = int(seconds * rate)
        for gi, g in enumerate(games):
            offset = (order.get("phase", 0.0) + gi / max(1, len(games))) / rate
            for k in range(per_game):
                sends.append((t0 + offset + k / rate, gi, k % len(g["movers"])))
        sends.sort()
        sent = []  # (game index, screen index of the sender, t, record)
        at = {(gi, mi): 0 for gi, g in enumerate(games) for mi in range(len(g["movers"]))}
        lag = []
        for due, gi, mi in sends:
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            screen_i, token, cells = games[gi]["movers"][mi]
            at[gi, mi] = (at[gi, mi] + 1) % len(cells)
            x, y = cells[at[gi, mi]]
            record = {"t": time.perf_counter(), "ack": None, "seq": None, "error": None}

            def acked(ack=None, record=record):
                record["ack"] = time.perf_counter()
                if isinstance(ack, dict) and ack.get("ok"):
                    record["seq"] = ack["seq"]
                else:
                    record["error"] = (ack or {}).get("code", "refused") if isinstance(ack, dict) else repr(ack)[:60]

            lag.append((record["t"] - due) * 1000)
            try:
                self.screens[screen_i].sio.emit("command", {"type": "move_token", "token_id": token, "x": x, "y": y},
                                                callback=acked)
            except Exception as exc:  # noqa: BLE001 (the connection is gone)
                record["error"], record["ack"] = f"send failed: {type(exc).__name__}", record["t"]
            sent.append((gi, screen_i, record))
        deadline = time.perf_counter() + 15
        while time.perf_counter() < deadline and any(r["ack"] is None for _g, _s, r in sent):
            time.sleep(0.05)
        deadline = time.perf_counter() + 10

        def missing() -> bool:
            return any(r["seq"] is not None and any(r["seq"] not in self.screens[i].seen
                                                    for i in games[gi]["screens"] if i != si)
                       for gi, si, r in sent)

        while time.perf_counter() < deadline and missing():
            time.sleep(0.05)
        latency, acks, errors, lost = [], [], {}, 0
        for gi, si, r in sent:
            if r["seq"] is None:
                key = r["error"] or "no answer in 15 s"
                errors[key] = errors.get(key, 0) + 1
                continue
            acks.append((r["ack"] - r["t"]) * 1000)
            for i in games[gi]["screens"]:
                if i == si:
                    continue
                seen = self.screens[i].seen.get(r["seq"])
                if seen is None:
                    lost += 1
                else:
                    latency.append((seen - r["t"]) * 1000)
        return {"sent": len(sent), "latency_ms": latency, "ack_ms": acks, "errors": errors, "lost": lost,
                "lag_ms": lag, "cpu_s": time.process_time()}

    def run(self) -> None:
        for line in sys.stdin:
            order = json.loads(line)
            op = order["op"]
            if op == "connect":
                answer = self.connect(order)
            elif op == "play":
                answer = self.play(order)
            elif op == "alive":
                answer = {"held": self.alive()}
            elif op == "close":
                break
            else:
                answer = {"error": f"unknown op {op}"}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
        os._exit(0)  # no goodbye to hundreds of servers' sockets one by one: the server sees them all go at once


# --- the parent --------------------------------------------------------------------------------------

class Crowd:
    """``with Crowd(url, processes) as crowd:`` client processes, each holding the screens it is given."""

    def __init__(self, url: str, processes: int = 4) -> None:
        self.url = url
        self.procs: list[subprocess.Popen] = []
        self.count = processes
        self.given = [0] * processes  # screens given to each child so far (their indexes there)

    def __enter__(self) -> "Crowd":
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        for _ in range(self.count):
            self.procs.append(subprocess.Popen([sys.executable, "-m", "bench.crowd"], cwd=REPO, env=env, text=True,
                                               stdin=subprocess.PIPE, stdout=subprocess.PIPE))
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                try:
                    p.stdin.write(json.dumps({"op": "close"}) + "\n")
                    p.stdin.flush()
                except OSError:
                    pass
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        self.procs = []

    def ask(self, orders: dict[int, dict], timeout: float = 120) -> dict[int, dict]:
        """Send each child its order at once; each one's answer (all within ``timeout``)."""
        for i, order in orders.items():
            self.procs[i].stdin.write(json.dumps(order) + "\n")
            self.procs[i].stdin.flush()
        answers: dict[int, dict] = {}

        def read(i):
            line = self.procs[i].stdout.readline()
            answers[i] = json.loads(line) if line else {"error": "the client process is gone"}

        threads = [threading.Thread(target=read, args=(i,), daemon=True) for i in orders]
        for t in threads:
            t.start()
        deadline = time.monotonic() + timeout
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        if len(answers) < len(orders):
            raise TimeoutError(f"{len(orders) - len(answers)} client processes did not answer in {timeout:.0f} s")
        return answers

    def connect_games(self, games: list[list[dict]], workers: int = 8, timeout: float = 180) -> dict:
        """Connect every game's screens (``{"game", "key"}``), each game's in one child, each game dealt to the
        child holding the fewest screens so far (over every call: the children's addresses fill evenly, none past
        the server's ``PER_ADDRESS_SEATED`` while the crowd has the children for its screens): totals, and per game
        the child and the screens' indexes there."""
        batches: dict[int, list[dict]] = {i: [] for i in range(self.count)}
        placed = []
        for screens in games:
            child = min(range(self.count), key=lambda i: self.given[i] + len(batches[i]))
            first = self.given[child] + len(batches[child])
            batches[child] += screens
            placed.append((child, list(range(first, first + len(screens)))))
        orders = {i: {"op": "connect", "url": self.url, "clients": b, "workers": workers, "source": self.source(i)}
                  for i, b in batches.items() if b}
        answers = self.ask(orders, timeout)
        for i, b in batches.items():
            self.given[i] += len(b)
        return {"connected": sum(a.get("connected", 0) for a in answers.values()),
                "failed": sum(a.get("failed", 0) for a in answers.values()),
                "errors": [e for a in answers.values() for e in a.get("errors", [])][:5],
                "connect_ms": [t for a in answers.values() for t in a.get("connect_ms", [])],
                "placed": placed}

    def source(self, child: int) -> str | None:
        """The loopback address child ``child``'s screens connect from (127.0.0.10 + child), where the server
        is on loopback and the system lets a socket take such an address (Linux); else None (the system's)."""
        if not self.url.startswith(("http://127.0.0.1:", "http://localhost:")) or not sys.platform.startswith("linux"):
            return None
        return f"127.0.0.{10 + child}"

    def held(self) -> int:
        return sum(a.get("held", 0) for a in self.ask({i: {"op": "alive"} for i in range(self.count)}, 30).values())

    def play(self, placed, movers: list[list], rate: float, seconds: float) -> dict:
        """Every game plays ``rate`` moves a second for ``seconds``: ``movers[g]`` is game g's list of
        (index of the sending screen in the game, token id, cells). Latency samples of all children."""
        orders: dict[int, dict] = {}
        for gi, (child, screens) in enumerate(placed):
            o = orders.setdefault(child, {"op": "play", "games": [], "rate": rate, "seconds": seconds,
                                          "phase": child / self.count})
            o["games"].append({"screens": screens,
                               "movers": [[screens[k], token, cells] for k, token, cells in movers[gi]]})
        answers = self.ask(orders, timeout=seconds + 60)
        out = {"sent": 0, "latency_ms": [], "ack_ms": [], "errors": {}, "lost": 0, "lag_ms": []}
        for a in answers.values():
            out["sent"] += a.get("sent", 0)
            out["lost"] += a.get("lost", 0)
            for k in ("latency_ms", "ack_ms", "lag_ms"):
                out[k] += a.get(k, [])
            for k, n in a.get("errors", {}).items():
                out["errors"][k] = out["errors"].get(k, 0) + n
        return out


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise_open_files(8192)
    Child().run()
