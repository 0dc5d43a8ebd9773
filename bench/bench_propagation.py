"""Move propagation: how long a move takes to reach every other screen, beside a bare broadcast.

Run: ``python3 -m bench.bench_propagation [--quick] [--spans]`` (from the repository root; ``--spans``: N=8 only,
and each server's own span of a command beside the clients' latency). Each N is run twice: every
device in English, and a table whose devices read English, German and Spanish in turn (#37: an update is
drawn once per audience and language).

A real ``tacmap serve`` (subprocess, random loopback port, temp data dir, ``--no-demo``) holds the
bench game (``scenario``) and N Socket.IO clients: the GM (who moves), the table screen and N - 2
players, each player a seat (an audience) of their own. The GM moves a visible NPC token one square,
alternating between two squares; the latency of one client is the time from just before the GM sends
the ``command`` to that client's ``update`` with the move's seq (all clients live in this process, so
it is one clock). Median and p99 are over every (move, client) pair.

In the same run, beside it: a bare Flask-SocketIO app (``bare_broadcast.py``: same async mode and
websocket server, no app) with N clients in one room; one client sends a command and the server
broadcasts a message whose html is as long as the mean html the tacmap clients were sent for a move.
The two are measured in alternating blocks (10 moves, then 20 broadcasts: more samples steady the
reference's p99 at little cost), so noise on the shared machine falls on both alike.
Also measured: the CPU time each server process spends per move (from /proc), and each block's first round
apart from the others (the server had been idle while the other one ran its block: its caches are cold, and
tacmap's longer path pays for it more; SERVING.md, "The first move of a block"). Target: tacmap's p99
within 1.5x of the bare broadcast's p99.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import scenario  # noqa: E402
from bench.live import (exit_cleanly_on_sigterm, progress, Arrivals, Client, Server, close_all, connect_all,  # noqa: E402
                        percentile, started)

TARGET_RATIO = 1.5
WARMUP = 5
BARE_ROUNDS = 2  # bare broadcasts per move: they are cheap, and more samples steady its p99
PAUSE = 0.01  # between moves: a table is not a flood (the throughput figure is)


def _round(sender: Client, receivers: list[Client], arrivals: Arrivals, payload: dict) -> tuple[list[float], int]:
    """One command and its arrival at every receiver: (latencies ms, receivers that missed it)."""
    t0 = time.perf_counter()
    ack = sender.call(payload)
    if not ack or not ack.get("ok"):
        raise RuntimeError(f"command refused: {ack}")
    seq = ack["seq"]
    arrivals.wait(receivers, seq)
    got = [(c.seen[seq][0] - t0) * 1000 for c in receivers if seq in c.seen]
    return got, len(receivers) - len(got)


#: the languages of a table where the devices read English, German and Spanish (#37), dealt in turn
THREE_LANGUAGES = ("en", "de", "es")


def measure(n: int, moves: int, block: int = 10, database: str | None = None, languages: tuple[str, ...] = ()) -> dict:
    """Both servers, N clients each, ``moves`` moves and as many bare broadcasts in alternating blocks.
    ``database``: tacmap's games in that PostgreSQL database (else the data folder's SQLite file);
    ``languages``: the tacmap clients' languages, dealt in turn (none: the browser default, English)."""
    lang = (lambda i: languages[i % len(languages)]) if languages else (lambda i: None)
    with ExitStack() as stack:
        data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="tacmap-bench-"))
        tac, bare = started(stack, Server.tacmap(data_dir, database), Server.bare())
        progress(f"propagation N={n}: servers up")
        game = scenario.build(tac.api, n_players=n - 2)
        progress(f"propagation N={n}: game built")
        token_id, a, b = game.movers[0]

        arrivals = Arrivals()
        gm = Client(tac.url, {"game": game.id, "token": game.gm}, arrivals, lang(0))
        others = [Client(tac.url, {"game": game.id, "token": game.screen}, arrivals, lang(1))]
        others += [Client(tac.url, {"game": game.id, "token": key}, arrivals, lang(i + 2))
                   for i, (_pid, key) in enumerate(game.players)]
        bare_arrivals = Arrivals()
        bare_clients = [Client(bare.url, {}, bare_arrivals) for _ in range(n)]
        clients = [gm, *others, *bare_clients]
        stack.callback(close_all, clients)
        stack.callback(bare.kill)  # the servers go first: their clients then close at once
        stack.callback(tac.kill)
        connect_all(clients)  # both servers' at once: each server's share of the connects runs beside the other's
        bare_sender, bare_others = bare_clients[0], bare_clients[1:]
        progress(f"propagation N={n}: {len(clients)} clients connected")

        step = {"i": 0}

        def tac_move():
            step["i"] += 1
            return _round(gm, others, arrivals, scenario.move(token_id, b if step["i"] % 2 else a))

        for _ in range(WARMUP):
            tac_move()
        sizes = [c.seen[s][1] for c in others for s in c.seen]
        size = round(statistics.mean(sizes))
        for _ in range(WARMUP):
            _round(bare_sender, bare_others, bare_arrivals, {"size": size})

        progress(f"propagation N={n}: warmed up")
        missed = {"tacmap": 0, "bare": 0}
        # each block's first round (the server idle while the other one ran its block) apart from the rest: where
        # the p99 comes from (SERVING.md, "The first move of a block")
        first, rest = {"tacmap": [], "bare": []}, {"tacmap": [], "bare": []}
        cpu = {"tacmap": 0.0, "bare": 0.0}  # seconds, over `counted` rounds
        counted = {"tacmap": 0, "bare": 0}
        deadline = time.monotonic() + 90  # the whole run stays in its few minutes on a slow day
        done = 0
        while done < moves and time.monotonic() < deadline:
            k = min(block, moves - done)
            for name, server, run, rounds in (
                    ("tacmap", tac, tac_move, k),
                    ("bare", bare, lambda: _round(bare_sender, bare_others, bare_arrivals, {"size": size}),
                     k * BARE_ROUNDS)):
                c0 = server.cpu_seconds()
                for i in range(rounds):
                    got, miss = run()
                    (rest if i else first)[name].extend(got)
                    missed[name] += miss
                    time.sleep(PAUSE)
                cpu[name] += server.cpu_seconds() - c0
                counted[name] += rounds
            done += k
        progress(f"propagation N={n}: {done} moves done")
        return {
            "n": n, "moves": done, "size": size, "languages": languages,
            **{name: first[name] + rest[name] for name in first}, "missed": missed, "first": first, "rest": rest,
            "cpu_ms": {name: cpu[name] * 1000 / max(counted[name], 1) for name in cpu},
        }


def summary(f: dict) -> str:
    t, b = f["tacmap"], f["bare"]
    tp99, bp99 = percentile(t, 99), percentile(b, 99)
    langs = "/".join(f.get("languages") or ()) or "en"
    return (f"N={f['n']:<3} {langs:<8} moves={f['moves']:<4} tacmap median {statistics.median(t):7.1f} p99 {tp99:7.1f} ms | "
            f"bare ({f['size']} B) median {statistics.median(b):6.1f} p99 {bp99:6.1f} ms | p99 ratio "
            f"{tp99 / bp99:5.1f}x (target {TARGET_RATIO}x) | CPU/move tacmap {f['cpu_ms']['tacmap']:.1f} ms, "
            f"bare {f['cpu_ms']['bare']:.1f} ms | missed {f['missed']} | a block's first round / the others, median: "
            f"tacmap {'/'.join(f'{x:.1f}' for x in first_and_rest(f, 'tacmap'))} ms, "
            f"bare {'/'.join(f'{x:.1f}' for x in first_and_rest(f, 'bare'))} ms")


def first_and_rest(f: dict, name: str) -> tuple[float, float]:
    """The median latency of each block's first round, and of the block's other rounds, for one server."""
    return statistics.median(f["first"][name]), statistics.median(f["rest"][name])


def tail_from_first(f: dict, name: str) -> float:
    """The share of one server's samples at or above its p99 that are from a block's first round."""
    p99 = percentile(f[name], 99)
    return sum(x >= p99 for x in f["first"][name]) / max(sum(x >= p99 for x in f[name]), 1)


def spans(prefix: str) -> str:
    """The servers' own spans of a command (``bench/spans/sitecustomize.py``): read to last write, median and p90."""
    import json

    parts = []
    for name in ("tacmap", "bare"):
        try:
            with open(f"{prefix}.{name}.json") as f:
                got = sorted(json.load(f))
        except (OSError, ValueError):
            continue
        parts.append(f"{name} median {statistics.median(got):.2f} p90 {percentile(got, 90):.2f} ms ({len(got)})")
    return "server span (command read -> last write): " + " | ".join(parts)


def main() -> None:
    quick = "--quick" in sys.argv
    exit_cleanly_on_sigterm()
    if "--spans" in sys.argv:  # where a move's time goes: the servers' own span beside the clients' latency
        import os

        prefix = tempfile.mkdtemp(prefix="tacmap-spans-") + "/span"
        os.environ["TACMAP_BENCH_SPANS"] = prefix
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(Path(__file__).resolve().parent / "spans"), *filter(None, [os.environ.get("PYTHONPATH")])])
        print(summary(measure(8, 100 if quick else 300)), flush=True)
        print(spans(prefix), flush=True)
        return
    for n in (8, 50):
        print(summary(measure(n, 20 if quick else 100)), flush=True)
        # three languages at the table (#37): each update drawn once per audience and language
        print(summary(measure(n, 20 if quick else 100, languages=THREE_LANGUAGES)), flush=True)


if __name__ == "__main__":
    main()
