"""Two `tacmap serve` processes on a guarded redis-server (#57): one that asks for a password (one process given
the requirepass password on its command line, the other tacmap's ACL user in $TACMAP_MESSAGE_QUEUE), and one that
speaks TLS only (rediss://, the server's certificate given with ssl_ca_certs); a move made through one process
reaches a screen connected to the other, and neither prints a password."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from test_scale_out import REDIS, Screen, close_all, game_with_an_ogre, log_events

from bench.live import HOST, Server, free_port
from tests.helpers import TACMAP

pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (scripts/test installs it)")
PASSWORD, USER_PASSWORD = "req-pass-7741", "acl-pass-2290"


def two_processes_share(folder: str, redis_args: list[str], queue_a: str, queue_b: str, monkeypatch) -> None:
    """A redis-server with ``redis_args``, A on ``queue_a`` (its --message-queue), B on ``queue_b`` (in
    $TACMAP_MESSAGE_QUEUE): a move made through A reaches the GM's screen on B; neither prints a password."""
    redis_proc = subprocess.Popen([REDIS, "--bind", HOST, "--save", "", "--appendonly", "no", "--dir", folder,
                                   *redis_args], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    servers, screens = [], []
    try:
        time.sleep(0.3)
        data_dir = str(Path(folder) / "data")

        def start(name: str, argv_queue: list[str]) -> Server:
            p = free_port()
            server = Server(name, [TACMAP, "serve", "--host", HOST, "--port", str(p),
                                   "--data-dir", data_dir, "--no-demo", *argv_queue], p, "/help/")
            servers.append(server)
            return server.__enter__()

        monkeypatch.delenv("TACMAP_MESSAGE_QUEUE", raising=False)
        a = start("A", ["--message-queue", queue_a])
        monkeypatch.setenv("TACMAP_MESSAGE_QUEUE", queue_b)  # B reads its address from the environment
        b = start("B", [])
        g, ogre = game_with_an_ogre(a, b, "guarded", (3, 3))
        gm_b = Screen("gm@B", g["id"], g["gm_token"]).connect(b)
        screens.append(gm_b)
        head = log_events(data_dir, g["id"])[-1][0]
        assert gm_b.wait_seq(head)
        status, answer = a.api("POST", f"/api/games/{g['id']}/commands",
                               {"type": "move_token", "token_id": ogre, "x": 4, "y": 3}, g["gm_token"])
        assert status == 200, answer
        assert gm_b.wait_seq(head + 1), f"the GM on B stayed at {gm_b.seq}: the move on A did not reach it"
        assert any(seq == head + 1 for _before, seq, _html in gm_b.received)  # through Redis, not a fresh copy
        for server in servers:
            said = server.log()
            assert "Sharing the games with the other processes on redis" in said
            assert PASSWORD not in said and USER_PASSWORD not in said, said
    finally:
        for server in servers:
            server.kill()
        close_all(screens)
        redis_proc.kill()
        redis_proc.wait(10)


@pytest.fixture
def folder():
    path = tempfile.mkdtemp(prefix="tacmap-guarded-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_two_processes_share_the_games_through_a_redis_with_a_password(folder, monkeypatch):
    port = free_port()
    two_processes_share(folder, ["--port", str(port), "--requirepass", PASSWORD, "--user", "tacmap", "on",
                                 f">{USER_PASSWORD}", "~tacmap:*", "&flask-socketio", "+@all", "-@admin",
                                 "-@dangerous"],
                        f"redis://:{PASSWORD}@{HOST}:{port}/0", f"redis://tacmap:{USER_PASSWORD}@{HOST}:{port}/0",
                        monkeypatch)


def test_two_processes_share_the_games_through_rediss(folder, monkeypatch):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = Path(folder) / "cert.pem", Path(folder) / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", f"/CN={HOST}", "-addext", f"subjectAltName=IP:{HOST}"],
                   check=True, capture_output=True)
    port = free_port()
    queue = f"rediss://:{PASSWORD}@{HOST}:{port}/0?ssl_ca_certs={cert}"
    two_processes_share(folder, ["--port", "0", "--tls-port", str(port), "--requirepass", PASSWORD,
                                 "--tls-cert-file", str(cert), "--tls-key-file", str(key), "--tls-ca-cert-file",
                                 str(cert), "--tls-auth-clients", "no"], queue, queue, monkeypatch)
