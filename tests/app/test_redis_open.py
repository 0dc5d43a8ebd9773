"""A Redis with no password open to the network is refused at start (#72, RD2): whoever reaches it could send a
player's screen forged updates or close a table. Reached at another host than this machine's loopback, or
listening beyond the loopback with Redis's protected mode off, a Redis that asks no password stops ``tacmap
serve`` with a clear error; one on this machine alone (the default: protected mode, or bind 127.0.0.1) serves.
Against a real redis-server."""

from __future__ import annotations

import subprocess
import time

import pytest

from test_redis_password import REDIS, serve
from tests.helpers import free_port
from webapp import netinfo
from webapp.live.server import shared

pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (scripts/test installs it)")


def _redis(tmp_path, *args) -> tuple[int, subprocess.Popen]:
    port = free_port()
    proc = subprocess.Popen([REDIS, "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(tmp_path),
                             *args], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    import redis

    deadline = time.monotonic() + 10
    while True:
        try:
            redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1).ping()
            return port, proc
        except redis.RedisError:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.05)


@pytest.fixture
def open_redis(tmp_path):
    """A redis-server with no password, listening on every address, its protected mode off: its port."""
    port, proc = _redis(tmp_path, "--bind", "0.0.0.0", "--protected-mode", "no")
    yield port
    proc.kill()
    proc.wait(timeout=10)


def test_a_redis_with_no_password_listening_on_the_network_is_refused_at_its_loopback_and_its_lan_address(
        open_redis, tmp_path):
    with pytest.raises(shared.QueueUnavailable) as refused:
        shared.connect(f"redis://127.0.0.1:{open_redis}/0")
    said = str(refused.value)
    assert "asks no password and listens beyond this machine" in said and "protected-mode no" in said, said
    assert "redis://USER:PASSWORD@HOST" in said and "bind 127.0.0.1" in said, said
    lan = netinfo.lan_addresses()
    if lan:  # reached at this machine's own LAN address: over the network
        with pytest.raises(shared.QueueUnavailable) as refused:
            shared.connect(f"redis://{lan[0]}:{open_redis}/0")
        assert f"is reached over the network ({lan[0]})" in str(refused.value)
    code, out, err = serve(tmp_path, f"redis://127.0.0.1:{open_redis}/0")  # the server stops at once, saying why
    assert code == 2, (out, err)
    assert "tacmap cannot start" in err and "asks no password" in err, err


def test_a_redis_with_no_password_on_this_machine_alone_serves(tmp_path):
    """Redis's defaults (protected mode on) and a loopback bind both keep other machines out: no refusal."""
    for args in ((), ("--bind", "127.0.0.1", "--protected-mode", "no")):
        port, proc = _redis(tmp_path, *args)
        try:
            assert shared.connect(f"redis://127.0.0.1:{port}/0").ping()
        finally:
            proc.kill()
            proc.wait(timeout=10)
