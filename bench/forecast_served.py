"""The forecast of a fight (#68) as the GM gets it: from a real ``tacmap serve`` on this machine, its worker processes
and lanes as the server picks them (``webapp/live/foes/forecasting.py``: on Linux one per core in the idle class).

The encounter is bench/forecast.py's (four players' characters against six foes with the system's sample sheets, the
30 x 30 map with walls; Atomic Tomorrow on its 3 x 3 zones), made over the API: ``POST /api/games`` with the map,
the tokens and characters as commands. Then the GM's ``POST /api/games/<id>/forecast`` (``runs`` fights from the
start, bold players, a fixed seed) and its figures asked every 50 ms until done. Printed per system: the fights a
second from the request to the last figure (the workers started beforehand, as the GM page's card does when it
opens), the seconds to the first estimate (the first fight in: #68's "a first estimate within 2 s"), the lanes the
server plays on, and the players' chance it found. The token ids are the server's own (random), so the fights are
not the in-process bench's to the command; the same rules, planner and dice.

Run: ``python3 -m bench.forecast_served [runs]`` from the repository root (``runs``: fights per system, default 40).
``python -m bench``'s ``forecast`` section prints the same rows beside the in-process ones.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rules  # noqa: E402
from bench import forecast as bf  # noqa: E402
from bench.live import Server  # noqa: E402
from webapp.live.foes import forecasting  # noqa: E402

SEED = bf.SEED


def _made(server: Server, system: str) -> tuple[str, str]:
    """The bench's encounter in ``system`` made over the API: ``(game id, GM key)``."""
    board = {"zones": bf.zone_specs()} if system == "atomic_tomorrow" else bf.make_board().to_dict()
    status, made = server.api("POST", "/api/games", {"name": f"Forecast {system}", "system": system, "map": board})
    assert status == 201, made
    gid, key = made["id"], made["gm_token"]
    sample = rules.get(system).default_sheet()
    for i, where in enumerate(bf.places(system)):
        kind, name = ("pc", f"Hero{i + 1}") if i < bf.PARTY else ("npc", f"Foe{i - bf.PARTY + 1}")
        status, body = server.api("POST", f"/api/games/{gid}/commands",
                                  {"type": "add_token", "name": name, "kind": kind, **where}, token=key)
        assert status == 200, body
        status, state = server.api("GET", f"/api/games/{gid}/state", token=key)
        token = next(t["id"] for t in state["tokens"] if t["name"] == name)
        sheet = {**sample, **({"name": name} if "name" in sample else {})}
        status, body = server.api("POST", f"/api/games/{gid}/commands",
                                  {"type": "add_character", "name": name, "token_id": token, "sheet": sheet}, token=key)
        assert status == 200, body
    return gid, key


def _forecast(server: Server, gid: str, key: str, runs: int) -> dict:
    """One forecast of ``runs`` fights, asked every 50 ms until done: the figures, the seconds to the first estimate
    and to the last."""
    began = time.monotonic()
    status, body = server.api("POST", f"/api/games/{gid}/forecast", {"runs": runs, "seed": SEED}, token=key)
    assert status == 202, body
    first = None
    while True:
        status, figures = server.api("GET", f"/api/games/{gid}/forecast/{body['id']}", token=key)
        assert status == 200 and not figures.get("error"), figures
        if first is None and figures["runs_done"] >= 1:
            first = time.monotonic() - began
        if figures["done"]:
            return {**figures, "first_s": first, "all_s": time.monotonic() - began}
        time.sleep(0.05)


def measure(runs: int, systems=bf.SYSTEMS) -> list[dict]:
    """Each system's forecast of ``runs`` fights on one ``tacmap serve`` (its workers warmed by a forecast of two
    fights first, as the card's opening warms them): per system the fights a second, the first estimate's seconds,
    the lanes, the players' chance."""
    lanes = forecasting.lanes_here()
    out = []
    with tempfile.TemporaryDirectory() as data, Server.tacmap(data) as server:
        for system in systems:
            gid, key = _made(server, system)
            _forecast(server, gid, key, 2)  # the workers up and their imports done
            f = _forecast(server, gid, key, runs)
            out.append({"system": system, "per_s": runs / f["all_s"], "first_s": f["first_s"], "lanes": lanes,
                        "wins": f["party_wins"], "runs": runs})
    return out


def main(argv: list[str]) -> None:
    runs = int(argv[1]) if len(argv) > 1 else 40
    print(f"forecast served (tacmap serve, {os.cpu_count()} cores): {runs} fights per system, seed {SEED}")
    print(f"{'system':<16}{'fights/s':>10}{'first estimate':>16}{'lanes':>7}{'party_wins':>12}")
    for r in measure(runs):
        print(f"{r['system']:<16}{r['per_s']:>10.2f}{r['first_s']:>14.2f} s{r['lanes']:>7}{r['wins']:>12.2f}",
              flush=True)


if __name__ == "__main__":
    main(sys.argv)
