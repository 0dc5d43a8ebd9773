"""History of a game: the recap of a 5,000-event game (issue #36), in-process with no server.

Run: ``python3 -m bench.bench_history`` (from the repository root). The game is built by folding
events straight into a store (a fight of 8 tokens on a 30 x 30 board, moves and attacks, spread over
two evenings), so the figure is the recap's own work: reading the timed log, folding it once, telling
the story and drawing the board pictures. Target: under 1 s for 5,000 events (issue #36).

The replay's jump-to-event time is added here by the replay's author (same game builder).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

N_EVENTS = 5_000
RECAP_MS = 1000.0
