"""Load: many games at once, each moving a token several times a second, against one server process
and against two on one data folder sharing a Redis message queue.

Run: ``python -m bench.load [--quick] [--games 10] [--rate 5] [--seconds 60] [--mode one,two,machines]``
(from the repository root). ``--quick`` (what ``python -m bench --quick`` runs): 5 games for 3 s. ``machines``
(#38, run by ``python -m bench``'s PostgreSQL section): two processes with a data folder each, their games in one
PostgreSQL database, on one Redis, as two machines of a convention room would be.

Each game (made through the JSON API, a 24 x 16 map with a few walls) has 6 Socket.IO clients: the
GM's page, the table screen and 4 players' phones, each player owning one token, the GM one NPC.
Every game sends a move 5 times a second (``--rate``), open loop on a fixed schedule (a late ack
does not slow the sender down), the senders taking turns: the GM, player 1, ..., player 4, each
moving their own token to the next of three squares in a row, so every move is a real change
(even after a refused one). The games' schedules
are spread evenly over each period.

Each client handles its updates the way the page (static/js/live.js) does, in arrival order: an
update whose ``from_seq`` is its seq is applied; an older one is ignored; a newer one (a gap) makes
it ask ``sync``; a fresh copy (``from_seq`` null) is always taken and sets its seq, and one older
than what it had makes it ask ``sync`` once more (updates from two processes can arrive out of
order: docs/PROTOCOL.md). Counted per client, for every seq the server acknowledged in its game:

- delivered exactly once: one ``update`` with that seq reached the client;
- lost: no ``update`` with that seq reached it (if a later fresh copy covered it, it is counted
  as lost and also shown as "recovered by a resync": the page then shows the right thing, but the
  update itself did not arrive);
- duplicated: more than one ``update`` with that seq reached it;
- out of order: updates that arrived when the client's seq was not their ``from_seq`` (each one a
  gap, which asks ``sync``, or an older one, ignored).

The target is zero lost, zero duplicated, zero out of order and zero errors (refused commands,
commands with no answer within 15 s, connections dropped). Latency: from just before a move is
sent to each other client's ``update`` with its seq (one clock: every client is in this process),
until that client shows it (its seq reaches the move's, in order or by a fresh copy), and from the
send to the ack. Also: each server process's resident memory (VmRSS from /proc)
before the load (games made, clients connected) and after it, the server processes' CPU, and this
process's CPU, since the 60 clients share the machine's cores with the servers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from bench import live  # noqa: E402
from bench.live import HOST, Server, exit_cleanly_on_sigterm, free_port, percentile, progress  # noqa: E402
from bench.report import Row, markdown_table, met, ms  # noqa: E402

GAMES, CLIENTS, RATE, SECONDS = 10, 6, 5.0, 60.0
QUICK_GAMES, QUICK_SECONDS = 5, 3.0
N_PLAYERS = 4
ACK_TIMEOUT = 15.0  # a command not answered by then counts as timed out
SETTLE = 15.0  # after the last ack: time for the last updates to reach every client
MODES = ("one", "two")  # the load section's; "machines" runs in the PostgreSQL section (bench/__main__.py)
MODE_NAMES = {"one": "one process", "two": "two processes on Redis",
              "machines": "two \"machines\" (#38): two processes, each its own data folder, on one PostgreSQL and Redis"}

# the map: 24 x 16, walls around two rooms; the movers stand on row 7, away from every wall
MAP = {"width": 24, "height": 16, "walls": [
    {"a": [1, 1], "b": [23, 1]}, {"a": [1, 1], "b": [1, 4]}, {"a": [23, 1], "b": [23, 4]},
    {"a": [8, 1], "b": [8, 4]}, {"a": [16, 1], "b": [16, 4]}, {"a": [1, 11], "b": [23, 11]},
    {"a": [1, 11], "b": [1, 15]}, {"a": [12, 11], "b": [12, 15]}, {"a": [23, 11], "b": [23, 15]}]}
# each mover's three squares in a row: the GM's NPC, then one token per player
MOVER_CELLS = [((3 + 4 * i, 7), (4 + 4 * i, 7), (5 + 4 * i, 7)) for i in range(N_PLAYERS + 1)]
STILL_NPCS = [(5, 13), (18, 13), (10, 3)]


class Skipped(Exception):
    """A mode that cannot run on this machine (no redis-server, a tacmap without --message-queue)."""


class Failed(Exception):
    """A load section that failed part way: carries the rows measured before the failure."""

    def __init__(self, message: str, rows: list[Row]) -> None:
        super().__init__(message)
        self.rows = rows


# --- servers ----------------------------------------------------------------------------------------

class Redis(live.Child):
    """``redis-server`` on a random loopback port in a temp folder, no persistence; killed at the end."""

    def __init__(self) -> None:
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            raise Skipped("redis-server is not installed (apt-get install redis-server)")
        self.port = free_port()
        self.url = f"redis://{HOST}:{self.port}/0"
        self.proc: subprocess.Popen | None = None
        self._dir = tempfile.TemporaryDirectory(prefix="tacmap-load-redis-")

    def __enter__(self) -> "Redis":
        self._track(subprocess.Popen([self.binary, "--port", str(self.port), "--bind", HOST, "--save", "",
                                      "--appendonly", "no", "--dir", self._dir.name],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with status {self.proc.returncode}")
            try:
                with socket.create_connection((HOST, self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.1)
        self.kill()
        raise RuntimeError("redis-server did not answer in 15 s")

    def kill(self) -> None:
        super().kill()
        self._dir.cleanup()


def serve_has_message_queue() -> bool:
    """Whether the servers' ``tacmap serve`` (``python -m webapp.cli`` run from the repository root: this checkout's)
    has ``--message-queue``: read off its source, not asked of ``serve --help`` (a process's start, 1.6 s of CPU)."""
    return "--message-queue" in (live.REPO / "webapp" / "cli.py").read_text(encoding="utf-8")


def rss_mb(server: Server) -> float:
    for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- clients ----------------------------------------------------------------------------------------

class LoadClient:
    """One screen (GM page, table screen or phone) that keeps its seq the way live.js does."""

    def __init__(self, name: str, server: Server, game_id: str, key: str) -> None:
        self.name, self.server, self.game_id, self.key = name, server, game_id, key
        self.lock = threading.Lock()
        self.seq = 0
        self.received: Counter[int] = Counter()  # seq -> updates with it (changes only)
        self.first: dict[int, float] = {}  # seq -> perf_counter of its first update
        self.fresh: list[tuple[float, int]] = []  # fresh copies: (perf_counter, seq)
        self.shown: dict[int, float] = {}  # seq -> perf_counter when the screen first showed it (its seq reached it)
        self.out_of_order = 0
        self.messages = 0  # every update received, presence ones included (what the client process handled)
        self.odd: list[str] = []  # the first few out-of-order updates, for the log
        self.dropped: str | None = None  # why the connection went, if it went while it should not
        self.closing = False
        self.sio = live.sio_client()
        live.in_arrival_order(self.sio)
        self.sio.on("update", self._update)
        self.sio.on("disconnect", self._disconnected)

    def _update(self, data) -> None:
        t = time.perf_counter()
        seq, before = data.get("seq"), data.get("from_seq")
        with self.lock:
            self.messages += 1
            if before is None:  # a fresh copy of everything this screen shows: always taken
                self.fresh.append((t, seq))
                again = seq < self.seq  # rendered before a change that reached us first: ask once more
                self._show(seq, t)
                if again:
                    self.sio.emit("sync", {"since": self.seq})
                return
            if before == seq:  # nothing changed (who is online): not a change
                return
            # one update may cover several commands (a group commit): each seq it covers arrived
            for covered in range(before + 1, seq + 1):
                self.received[covered] += 1
                self.first.setdefault(covered, t)
            if before != self.seq:
                self.out_of_order += 1
                if len(self.odd) < 3:
                    self.odd.append(f"at seq {self.seq} got {before}->{seq}")
                if before > self.seq:  # we missed something: ask for a fresh copy, as the page does
                    self.sio.emit("sync", {"since": self.seq})
                return
            self._show(seq, t)

    def _show(self, seq: int, t: float) -> None:
        """The screen now shows ``seq``: note when it first showed each change up to it."""
        for s in range(max(self.seq, seq - 10_000) + 1, seq + 1):
            self.shown.setdefault(s, t)
        self.seq = seq

    def _disconnected(self, *_reason) -> None:
        if not self.closing and self.dropped is None:
            self.dropped = f"{self.name} ({self.server.name}) disconnected"

    def connect(self) -> "LoadClient":
        status, state = self.server.api("GET", f"/api/games/{self.game_id}/state", token=self.key)
        if status != 200:
            raise RuntimeError(f"{self.name}: state {status} {state}")
        self.seq = state["seq"]
        # since = our seq: no fresh copy unless the game moved on in between (it does not: idle)
        self.sio.connect(self.server.url, auth={"game": self.game_id, "token": self.key, "since": self.seq},
                         transports=["websocket"], wait_timeout=20)
        return self

    def close(self) -> None:
        self.closing = True
        try:
            self.sio.disconnect()
        except Exception:  # the server may be gone already
            pass


@dataclass
class Mover:
    """A client and its token, which goes round three squares in a row: each move is to the square after
    the one its last command named, so it is a real change even when a command before it was refused."""
    client: LoadClient
    token: str
    cells: tuple[tuple[int, int], ...]
    at: int = 0  # the square its last command named


@dataclass
class Sent:
    game: "LoadGame"
    mover: Mover
    due: float
    t: float = 0.0
    t_ack: float | None = None
    seq: int | None = None
    error: str | None = None


@dataclass
class LoadGame:
    index: int
    id: str
    clients: list[LoadClient] = field(default_factory=list)
    movers: list[Mover] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def new_table(index: int, api) -> dict:
    """A game through the JSON API (``api(method, path, body, token)`` -> (status, body)): its id, its 6 keys
    (GM, screen, 4 players) and its movers, each (index of the sending key, token id, its three cells)."""
    def ok(status, body, what):
        if status not in (200, 201):
            raise RuntimeError(f"game {index}, {what}: {status} {body}")
        return body

    g = ok(*api("POST", "/api/games", {"name": f"load {index + 1}", "system": "plain_grid", "map": MAP}), "new game")
    players = [ok(*api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": f"P{i + 1}"}),
                  f"player {i + 1}") for i in range(N_PLAYERS)]
    tokens = []
    for i, cells in enumerate(MOVER_CELLS):
        body = {"name": "NPC" if i == 0 else f"PC {i}", "x": cells[0][0], "y": cells[0][1]}
        if i:
            body |= {"owner": players[i - 1]["player_id"], "kind": "pc"}
        tokens.append(ok(*api("POST", f"/api/games/{g['id']}/tokens", body, g["gm_token"]), f"token {i}")["id"])
    for i, (x, y) in enumerate(STILL_NPCS):
        ok(*api("POST", f"/api/games/{g['id']}/tokens", {"name": f"Guard {i + 1}", "x": x, "y": y}, g["gm_token"]),
           f"guard {i}")
    keys = [("GM", g["gm_token"]), ("screen", g["screen_token"])]
    keys += [(f"P{i + 1}", p["player_token"]) for i, p in enumerate(players)]
    senders = [0] + list(range(2, 2 + N_PLAYERS))  # the GM, then each player
    return {"id": g["id"], "keys": keys, "movers": [(k, t, cells) for k, t, cells in zip(senders, tokens, MOVER_CELLS)]}


def make_game(index: int, api_server: Server, servers: list[Server]) -> LoadGame:
    """A game through the JSON API, and its 6 clients (not connected yet), split over ``servers``."""
    table = new_table(index, api_server.api)
    game = LoadGame(index, table["id"])
    # clients of a game alternate between the servers (the GM on the first in even games, the second in odd)
    game.clients = [LoadClient(f"game {index + 1} {name}", servers[(i + index) % len(servers)], table["id"], key)
                    for i, (name, key) in enumerate(table["keys"])]
    game.movers = [Mover(game.clients[k], t, cells) for k, t, cells in table["movers"]]
    return game


def parallel(fn, items, workers: int = 8):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max(1, min(workers, len(items)))) as pool:
        return list(pool.map(fn, items))


# --- the run ------------------------------------------------------------------------------------------

def send(s: Sent) -> None:
    m = s.mover
    with s.game.lock:
        m.at = (m.at + 1) % len(m.cells)
        cell = m.cells[m.at]
    payload = {"type": "move_token", "token_id": m.token, "x": cell[0], "y": cell[1]}

    def acked(ack=None):
        t = time.perf_counter()
        with s.game.lock:
            s.t_ack = t
            if isinstance(ack, dict) and ack.get("ok"):
                s.seq = ack["seq"]
            else:
                s.error = (ack.get("code") or ack.get("error") or "refused") if isinstance(ack, dict) \
                    else f"odd answer {ack!r}"[:80]

    s.t = time.perf_counter()
    try:
        m.client.sio.emit("command", payload, callback=acked)
    except Exception as exc:  # the connection is gone
        with s.game.lock:
            s.t_ack, s.error = s.t, f"send failed: {type(exc).__name__}"


def run_load(games: list[LoadGame], seconds: float, rate: float) -> dict:
    """Send every game's moves on schedule; then wait (with deadlines) for the acks and the updates."""
    schedule = []
    per_game = int(round(seconds * rate))
    t0 = time.perf_counter() + 0.5
    for g in games:
        offset = g.index / (len(games) * rate)
        for k in range(per_game):
            s = Sent(g, g.movers[k % len(g.movers)], t0 + offset + k / rate)
            g.sent.append(s)
            schedule.append(s)
    schedule.sort(key=lambda s: s.due)
    lag = []
    for s in schedule:
        wait = s.due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        send(s)
        lag.append((s.t - s.due) * 1000)
    t_last = time.perf_counter()
    # every command answered, or ACK_TIMEOUT after the last send
    deadline = t_last + ACK_TIMEOUT
    while time.perf_counter() < deadline and any(s.t_ack is None for s in schedule):
        time.sleep(0.05)
    # every client has caught up with its game's last acknowledged seq, or SETTLE later
    deadline = time.perf_counter() + SETTLE

    def behind() -> bool:
        for g in games:
            top = max((s.seq for s in g.sent if s.seq is not None), default=0)
            if any(c.dropped is None and c.seq < top for c in g.clients):
                return True
        return False

    while time.perf_counter() < deadline and behind():
        time.sleep(0.05)
    return {"lag_ms": lag, "seconds": t_last - t0}


def account(games: list[LoadGame]) -> dict:
    """Acks, errors, and every (acknowledged seq, client) pair: delivered once, lost, duplicated."""
    sent = acked = 0
    refusals: Counter[str] = Counter()
    timeouts = 0
    latency, acks, by_time, until_shown = [], [], [], []
    resyncs = 0
    pairs = once = lost = recovered = duplicated = out_of_order = 0
    dropped = []
    unacked_seen = 0
    for g in games:
        seqs = {}
        for s in g.sent:
            sent += 1
            if s.t_ack is None or s.t_ack - s.t > ACK_TIMEOUT:
                timeouts += 1  # a late answer is still an error (the page gives up after 10 s)
            elif s.seq is None:
                refusals[s.error] += 1
            else:
                acked += 1
                acks.append((s.t_ack - s.t) * 1000)
            if s.seq is not None:  # done, even if answered late: its update must reach everyone too
                seqs[s.seq] = s
        for c in g.clients:
            with c.lock:
                received, first, fresh, shown = Counter(c.received), dict(c.first), list(c.fresh), dict(c.shown)
                out_of_order += c.out_of_order
            if c.dropped:
                dropped.append(c.dropped)
            top_fresh = max((seq for _t, seq in fresh), default=-1)
            resyncs += len(fresh)
            for seq, s in seqs.items():
                pairs += 1
                if c is not s.mover.client and seq in shown:
                    until_shown.append((shown[seq] - s.t) * 1000)
                n = received[seq]
                if n == 0:
                    lost += 1
                    recovered += seq <= top_fresh
                    continue
                once += n == 1
                duplicated += n > 1
                if c is not s.mover.client:
                    latency.append((first[seq] - s.t) * 1000)
                    by_time.append((s.t, (first[seq] - s.t) * 1000))
            unacked_seen += sum(1 for seq in received if seq not in seqs)
    return {"sent": sent, "acked": acked, "refusals": refusals, "timeouts": timeouts, "dropped": dropped,
            "pairs": pairs, "once": once, "lost": lost, "recovered": recovered, "duplicated": duplicated,
            "out_of_order": out_of_order, "unacked_seen": unacked_seen, "latency_ms": latency, "ack_ms": acks,
            "shown_ms": until_shown, "resyncs": resyncs,
            "quarters_ms": quarters(by_time)}


def quarters(samples: list[tuple[float, float]]) -> list[float]:
    """The median latency of the moves sent in each quarter of the run: a server that does not keep up
    shows it as a latency that grows from one quarter to the next (its queue)."""
    if len(samples) < 8:
        return []
    samples.sort()
    start, end = samples[0][0], samples[-1][0]
    width = (end - start) / 4 or 1
    parts: list[list[float]] = [[], [], [], []]
    for t, v in samples:
        parts[min(3, int((t - start) / width))].append(v)
    return [statistics.median(p) if p else float("nan") for p in parts]


def measure(mode: str = "one", games: int = GAMES, seconds: float = SECONDS, rate: float = RATE) -> dict:
    """One load run: ``mode`` "one" (one ``tacmap serve``), "two" (two on one data folder and Redis) or "machines"
    (two with a data folder each, their games in one PostgreSQL database, on one Redis: #38's several machines;
    a throwaway cluster with PostgreSQL's own defaults, every commit flushed to disk, as the PostgreSQL section's)."""
    if mode not in MODE_NAMES:
        raise ValueError(f"mode: one of {', '.join(MODE_NAMES)}")
    with ExitStack() as stack:
        mq, database = [], None
        if mode in ("two", "machines"):
            if not serve_has_message_queue():
                raise Skipped("tacmap serve has no --message-queue option in this checkout")
            redis = stack.enter_context(Redis())
            mq = ["--message-queue", redis.url]
        if mode == "machines":
            from .pgcluster import Cluster, binaries

            if binaries() is None:
                raise Skipped("PostgreSQL is not installed (apt-get install postgresql)")
            cluster = Cluster(durable=True)
            stack.callback(cluster.stop)
            database = cluster.database()
        data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="tacmap-load-"))
        servers = []
        for name in (["A"] if mode == "one" else ["A", "B"]):
            s = Server.tacmap(data_dir if mode != "machines" else os.path.join(data_dir, name), database)
            s.name, s.argv = f"tacmap {name}", s.argv + mq
            servers.append(s)
        clients: list[LoadClient] = []
        stack.callback(lambda: parallel(LoadClient.close, clients, 64) if clients else None)
        # killed before the clients close: they then see them go and close at once. Side by side on a data folder
        # each ("machines": one PostgreSQL database, its schema made under a lock); on one folder ("two") one after
        # the other: the first makes the folder (its secret key, its tables) before the second opens it
        for group in ([[s] for s in servers] if mode == "two" else [servers]):
            live.started(stack, *group)
        rss_idle = {s.name: rss_mb(s) for s in servers}
        progress(f"load ({MODE_NAMES[mode]}): {len(servers)} server(s) up; making {games} games")
        made = [make_game(i, servers[0], servers) for i in range(games)]
        clients.extend(c for g in made for c in g.clients)
        parallel(LoadClient.connect, clients)
        progress(f"load ({MODE_NAMES[mode]}): {len(clients)} clients connected; {seconds:.0f} s at {rate:g} moves/s "
                 f"per game")
        rss_before = {s.name: rss_mb(s) for s in servers}
        cpu0 = {s.name: s.cpu_seconds() for s in servers}
        messages0 = sum(c.messages for c in clients)
        me0, wall0, load0 = time.process_time(), time.perf_counter(), os.getloadavg()
        timing = run_load(made, seconds, rate)
        wall = time.perf_counter() - wall0
        me = time.process_time() - me0
        messages = sum(c.messages for c in clients) - messages0
        cpu = {s.name: (s.cpu_seconds() - cpu0[s.name]) / wall for s in servers}
        rss_after = {s.name: rss_mb(s) for s in servers}
        alive = {s.name: s.proc.poll() is None for s in servers}
        tally = account(made)
        progress(f"load ({MODE_NAMES[mode]}): done, {tally['acked']}/{tally['sent']} acknowledged")
        for s in servers:  # an error the server logged (a command answered "see its log"): its last lines
            text = s.log()
            if "Traceback" in text:
                progress(f"load ({MODE_NAMES[mode]}): {s.name} logged an error:\n"
                         + text[text.rindex("Traceback"):][:3000])
        odd = [f"{c.name} ({c.server.name}): {', '.join(c.odd)}" for c in clients if c.odd]
        if odd:
            progress(f"load ({MODE_NAMES[mode]}): out-of-order updates at {len(odd)} clients, e.g. "
                     + "; ".join(odd[:4]))
        return {"mode": mode, "games": games, "clients": len(clients), "seconds": seconds, "rate": rate,
                "servers": [s.name for s in servers], "rss_idle": rss_idle, "rss_before": rss_before,
                "rss_after": rss_after, "server_cpu": cpu, "client_cpu": me / wall, "alive": alive,
                "client_cpu_per_update_ms": 1000 * me / max(messages, 1), "updates_received": messages,
                "load_before": load0, "load_after": os.getloadavg(), **timing, **tally}


def rows(f: dict) -> list[Row]:
    """The table rows of one run."""
    name = MODE_NAMES[f["mode"]]
    out = [Row(f"5. Load, {name}: {f['games']} games x {CLIENTS} clients (GM, screen, {N_PLAYERS} players), "
               f"{f['rate']:g} moves/s per game for {f['seconds']:.0f} s (live, loopback)", section=True)]
    out.append(Row("moves acknowledged / sent", f"{f['acked']:,} / {f['sent']:,}", target="all",
                   met=met(f["acked"] == f["sent"])))
    refused = sum(f["refusals"].values())
    why = "; ".join(f"{k}: {n}" for k, n in f["refusals"].most_common(3))
    errors = refused + f["timeouts"] + len(f["dropped"])
    out.append(Row(f"errors: refused {refused}{f' ({why})' if why else ''}, no answer in {ACK_TIMEOUT:.0f} s "
                   f"{f['timeouts']}, connections dropped {len(f['dropped'])}"
                   + (f" ({', '.join(f['dropped'][:3])}{', ...' if len(f['dropped']) > 3 else ''})" if f["dropped"] else ""),
                   f"{errors:,}", target="0",
                   met=met(errors == 0)))
    bad = f["lost"] + f["duplicated"]
    out.append(Row(f"updates lost / duplicated (of {f['pairs']:,}: acknowledged seq x client of its game; "
                   f"lost ones a fresh copy covered later: {f['recovered']:,})"
                   + (f"; updates of commands never acknowledged {f['unacked_seen']:,}" if f["unacked_seen"] else ""),
                   f"{f['lost']:,} / {f['duplicated']:,}", target="0", met=met(bad == 0)))
    out.append(Row(f"updates out of order (the client dropped them; fresh copies asked for: {f['resyncs']:,})",
                   f"{f['out_of_order']:,}", target="0 (in order)", met=met(f["out_of_order"] == 0)))
    lat, acks = f["latency_ms"], f["ack_ms"]
    if lat:
        out.append(Row(f"a move's send to its update at each other client ({len(lat):,} samples)",
                       ms(statistics.median(lat)), ms(percentile(lat, 99))))
    if f.get("quarters_ms"):
        q = f["quarters_ms"]
        out.append(Row("  the same, median per quarter of the run (growing: a queue)",
                       " / ".join(ms(v) for v in q)))
    shown = f["shown_ms"]
    if shown:
        out.append(Row("  the same, until the client shows it (in order, or by a fresh copy)",
                       ms(statistics.median(shown)), ms(percentile(shown, 99))))
    if acks:
        out.append(Row("a move's send to its ack", ms(statistics.median(acks)), ms(percentile(acks, 99))))
    mem = ", ".join(f"{n}: {f['rss_before'][n]:.0f} -> {f['rss_after'][n]:.0f} MB" for n in f["servers"])
    out.append(Row(f"server memory (RSS) before -> after ({mem}; idle at start "
                   f"{', '.join(f'{v:.0f}' for v in f['rss_idle'].values())} MB)",
                   f"{sum(f['rss_after'].values()) - sum(f['rss_before'].values()):+.1f} MB"))
    cpu = ", ".join(f"{n} {100 * f['server_cpu'][n]:.0f}%" for n in f["servers"])
    out.append(Row(f"CPU in % of a core: server {cpu}; clients (this process) {100 * f['client_cpu']:.0f}%, "
                   f"{f['client_cpu_per_update_ms']:.2f} ms per update received; load average "
                   f"{f['load_before'][0]:.2f} -> {f['load_after'][0]:.2f}"))
    lag = f["lag_ms"]
    out.append(Row("sends behind their schedule (the client process's own lag)", ms(statistics.median(lag)),
                   ms(percentile(lag, 99))))
    if not all(f["alive"].values()):
        out.append(Row(f"a server process died: {', '.join(n for n, up in f['alive'].items() if not up)}",
                       section=True))
    return out


def section_rows(modes=MODES, **plan) -> list[Row]:
    """Rows of each mode; a mode that cannot run here is one row saying why (the other still runs)."""
    out: list[Row] = []
    failed = None
    for mode in modes:
        try:
            out += rows(measure(mode, **plan))
        except Skipped as exc:
            out.append(Row(f"5. Load, {MODE_NAMES[mode]}: skipped ({exc})", section=True))
        except Exception as exc:
            import traceback

            traceback.print_exc()
            failed = failed or exc
            out.append(Row(f"5. Load, {MODE_NAMES[mode]}: FAILED to run ({type(exc).__name__}: {exc})"[:200],
                           section=True))
    if failed:
        raise Failed(f"load: {failed}", out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_GAMES} games for {QUICK_SECONDS:.0f} s instead of {GAMES} for {SECONDS:.0f}")
    parser.add_argument("--seconds", type=float, default=None, help=f"how long the moves go on (default {SECONDS:.0f})")
    parser.add_argument("--games", type=int, default=None, help=f"games at once (default {GAMES})")
    parser.add_argument("--rate", type=float, default=RATE, help=f"moves a second per game (default {RATE:g})")
    parser.add_argument("--mode", default=",".join(MODES),
                        help="one (one server process), two (two on Redis), machines (two with a data folder each "
                             "on one PostgreSQL and Redis); comma-separated (default one,two)")
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.mode.split(",") if m.strip()]
    if set(modes) - set(MODE_NAMES) or not modes:
        parser.error(f"--mode: one or more of {', '.join(MODE_NAMES)}")
    games = args.games if args.games is not None else QUICK_GAMES if args.quick else GAMES
    if games < 1 or args.rate <= 0 or (args.seconds is not None and args.seconds <= 0):
        parser.error("--games, --rate and --seconds must be positive")
    seconds = args.seconds if args.seconds is not None else QUICK_SECONDS if args.quick else SECONDS
    exit_cleanly_on_sigterm()
    try:
        table = section_rows(modes, games=games, seconds=seconds, rate=args.rate)
        status = 0
    except Failed as exc:
        table, status = exc.rows, 1
    print(markdown_table(table))
    return status


if __name__ == "__main__":
    sys.exit(main())
