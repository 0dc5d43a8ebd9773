"""A guarded Redis (#57): the message queue's address carries a password (``redis://:PASSWORD@host``) or an ACL
user (``redis://USER:PASSWORD@host``), which reach redis-py and Flask-SocketIO as given and are never printed; a
wrong or missing password, or a user whose ACL leaves out tacmap's keys, stops ``tacmap serve`` at once saying so.
Against a real redis-server started with ``--requirepass`` and an ACL user."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import TACMAP, free_port, make_app
from webapp.live.server import shared

REDIS = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (scripts/test installs it)")
REPO = Path(__file__).resolve().parents[2]
PASSWORD = "req-pass-5517"  # requirepass: the default user's
USER_PASSWORD = "acl-pass-9023"  # the ACL user tacmap's
ACL = ["~tacmap:*", "&flask-socketio", "+@all", "-@admin", "-@dangerous"]  # as docs/HOSTING.md says


@pytest.fixture
def guarded(tmp_path):
    """A redis-server with a password and two ACL users (tacmap's, and one kept out of tacmap's keys): its port."""
    port = free_port()
    proc = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path), "--requirepass", PASSWORD,
                             "--user", "tacmap", "on", f">{USER_PASSWORD}", *ACL,
                             "--user", "narrow", "on", f">{USER_PASSWORD}", "~other:*", "+@all"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                shared.connect(f"redis://:{PASSWORD}@127.0.0.1:{port}/0")
                break
            except shared.QueueUnavailable:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.05)
        yield port
    finally:
        proc.kill()
        proc.wait(10)


def certificate(folder: Path) -> Path:
    """A self-signed certificate for 127.0.0.1 and its key (``cert.pem``, ``key.pem`` in ``folder``)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(folder / "key.pem"),
                    "-out", str(folder / "cert.pem"), "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return folder / "cert.pem"


@pytest.fixture
def tls_guarded(tmp_path):
    """A redis-server with a password that speaks TLS only: its port and the certificate to trust."""
    cert, port = certificate(tmp_path), free_port()
    proc = subprocess.Popen([REDIS, "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path), "--requirepass", PASSWORD,
                             "--tls-cert-file", str(cert), "--tls-key-file", str(tmp_path / "key.pem"),
                             "--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                shared.connect(f"rediss://:{PASSWORD}@127.0.0.1:{port}/0?ssl_ca_certs={cert}")
                break
            except shared.QueueUnavailable:
                if proc.poll() is not None:
                    pytest.skip("this redis-server speaks no TLS")
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield port, cert
    finally:
        proc.kill()
        proc.wait(10)


def serve(tmp_path, queue: str | None, env_queue: str | None = None) -> tuple[int | None, str, str]:
    """``tacmap serve`` on that queue (argument, or ``$TACMAP_MESSAGE_QUEUE``): its exit code (None: it was
    serving, ended once it said it shares the games) and what it printed on stdout and stderr."""
    env = {k: v for k, v in os.environ.items() if k != "TACMAP_MESSAGE_QUEUE"}
    if env_queue:
        env["TACMAP_MESSAGE_QUEUE"] = env_queue
    argv = [TACMAP, "serve", "--host", "127.0.0.1", "--port", str(free_port()),
            "--data-dir", str(tmp_path / "data"), "--no-demo", *(["--message-queue", queue] if queue else [])]
    out, err = tmp_path / "serve.out", tmp_path / "serve.err"
    with open(out, "w") as o, open(err, "w") as e:
        proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=o, stderr=e, text=True)
    try:
        deadline = time.monotonic() + 30
        while proc.poll() is None and "Sharing the games" not in out.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        code = proc.poll()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
    return code, out.read_text(), err.read_text()


def test_a_password_or_an_acl_user_reaches_redis_and_two_processes_share_through_it(guarded, tmp_path):
    by_password = f"redis://:{PASSWORD}@127.0.0.1:{guarded}/0"
    by_user = f"redis://tacmap:{USER_PASSWORD}@127.0.0.1:{guarded}/0"
    a, b = shared.Shared(shared.connect(by_password)), shared.Shared(shared.connect(by_user))
    try:
        a.opened("sid-a", "g1", "gm")
        b.opened("sid-b", "g1", "player:p1")
        assert a.audiences("g1") == b.audiences("g1") == {"gm": 1, "player:p1": 1}
    finally:
        a.close()
        b.close()
    # two apps, each with its own address for the same Redis, count the room's wrong PINs together
    one = make_app(tmp_path / "one", DEMO=False, MESSAGE_QUEUE=by_password, ASYNC_MODE="threading")
    two = make_app(tmp_path / "two", DEMO=False, MESSAGE_QUEUE=by_user, ASYNC_MODE="threading")
    here, there = one.extensions["tacmap"].room_guesses, two.extensions["tacmap"].room_guesses
    assert isinstance(here, shared.SharedRoomGuesses) and isinstance(there, shared.SharedRoomGuesses)
    for n in range(5):
        assert (here if n % 2 else there).take("pin", "10.0.0.66")
    assert not here.take("pin", "10.0.0.66") and not there.take("pin", "10.0.0.66")  # five a minute, in all
    token = there.take("pin", "10.0.0.7")  # another address is checked
    assert token
    there.give_back("pin", "10.0.0.7", token)  # it was right
    assert [who for _ago, who in here.recent("pin")] == ["10.0.0.66"] * 5


def test_the_password_is_never_shown():
    for url, shown in (("redis://:s3cret@db.local:6379/0", "redis://:***@db.local:6379/0"),
                       ("rediss://tacmap:s3cret@db.local:6380/0", "rediss://tacmap:***@db.local:6380/0"),
                       ("redis://db.local:6379/0?password=s3cret&db=1", "redis://db.local:6379/0?password=***&db=1"),
                       ("redis://db.local:6379/0", "redis://db.local:6379/0")):
        assert shared.shown_url(url) == shown


@pytest.mark.long
def test_a_wrong_or_missing_password_is_a_clear_start_up_error(guarded, tmp_path):
    address = f"127.0.0.1:{guarded}/0"
    for queue in (f"redis://:not-it-3381@{address}", f"redis://tacmap:not-it-3381@{address}", f"redis://{address}",
                  f"redis://{address}?password=not-it-3381"):
        with pytest.raises(shared.QueueUnavailable) as refused:
            shared.connect(queue)
        said = str(refused.value)
        assert "refused this process" in said and "redis://USER:PASSWORD@HOST" in said, said
        assert "not-it-3381" not in said
    with pytest.raises(shared.QueueUnavailable) as refused:
        shared.connect(f"redis://narrow:{USER_PASSWORD}@{address}")
    assert "may not use tacmap's keys" in str(refused.value) and "~tacmap:*" in str(refused.value)
    # tacmap serve: stops at once, says why on stderr, never the password
    code, out, err = serve(tmp_path, f"redis://tacmap:not-it-3381@{address}")
    assert code == 2, (out, err)
    assert "tacmap cannot start" in err and "refused this process" in err
    assert "not-it-3381" not in err + out
    # and with the right one (in the environment, out of the process list) it serves, printing no password
    code, out, err = serve(tmp_path, None, env_queue=f"redis://tacmap:{USER_PASSWORD}@{address}")
    assert code is None, (out, err)
    assert f"redis://tacmap:***@{address}" in out
    assert USER_PASSWORD not in out + err


def test_rediss_with_the_servers_certificate_carries_the_queue_and_an_unchecked_one_is_a_clear_error(tls_guarded,
                                                                                                    tmp_path):
    port, cert = tls_guarded
    queue = f"rediss://:{PASSWORD}@127.0.0.1:{port}/0?ssl_ca_certs={cert}"
    one = make_app(tmp_path / "one", DEMO=False, MESSAGE_QUEUE=queue, ASYNC_MODE="threading")
    two = make_app(tmp_path / "two", DEMO=False, MESSAGE_QUEUE=queue, ASYNC_MODE="threading")
    here, there = one.extensions["tacmap"].room_guesses, two.extensions["tacmap"].room_guesses
    for n in range(5):
        assert (here if n % 2 else there).take("organiser", "10.0.0.66")
    assert not there.take("organiser", "10.0.0.66")  # counted together, over TLS
    with pytest.raises(shared.QueueUnavailable) as refused:
        shared.connect(f"rediss://:{PASSWORD}@127.0.0.1:{port}/0")  # the system's CAs do not know this one
    said = str(refused.value)
    assert "TLS certificate" in said and "ssl_ca_certs=" in said and PASSWORD not in said
