"""Two `tacmap serve` processes as on two machines (issue #38): a data folder each, one PostgreSQL database and
one redis-server between them (a throwaway cluster, bench/pgcluster.py).

The tests of tests/e2e/test_scale_out.py run here again on that set-up (imported below: pytest collects them
with this module's ``cluster``): moves from both processes, clients on each see the other's; races for one
square decided by the log; a `kill -9` of each process in turn, then the log holds every acknowledged move once;
a GM page on one process sees a move made through the other; keys and password guesses hold across them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from test_scale_out import Cluster, tacmap
from test_scale_out import (  # noqa: F401 (collected here, on PostgreSQL)
    test_a_page_on_one_process_sees_a_move_made_on_the_other,
    test_keys_and_password_guesses_hold_across_processes,
    test_two_processes_share_games_and_survive_a_kill,
)


pytestmark = pytest.mark.long  # tens of seconds: run first (tests/conftest.py)

class PostgresCluster(Cluster):
    """Each tacmap process with a data folder of its own (another machine's) and ``--database``; ``data_dir`` is
    the database's URL (where test_scale_out.log_events reads the log)."""

    def __init__(self, database: str) -> None:
        super().__init__()
        self.data_dir = database

    def start(self, name: str, port: int | None = None, extra: tuple[str, ...] = ()):
        """``extra``: more options for `tacmap serve` (``--room``)."""
        server = tacmap(name, str(Path(self.folder) / f"machine-{name}"), self.redis.url, port)
        server.argv += ["--database", self.data_dir, *extra]
        self.servers.append(server)
        return server.__enter__()


@pytest.fixture
def cluster(pg_url):
    c = PostgresCluster(pg_url)
    try:
        yield c
    finally:
        c.close()


def test_each_machine_keeps_nothing_of_the_games_in_its_own_folder(cluster):
    a, b = cluster.start("A"), cluster.start("B")
    status, g = a.api("POST", "/api/games", {"name": "hall 3", "system": "plain_grid"})
    assert status == 201, g
    status, seen = b.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])
    assert status == 200 and seen["name"] == "hall 3", seen
    for machine in ("A", "B"):
        folder = Path(cluster.folder) / f"machine-{machine}"
        assert not list(folder.glob("*.sqlite3*")), sorted(p.name for p in folder.iterdir())
