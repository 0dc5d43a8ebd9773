"""webapp/live/wire.py's frames are wsproto's frames, its version check falls back to stock, and the bare
reference server of the benchmarks stays stock Flask-SocketIO."""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path

import pytest
from engineio.async_drivers._websocket_wsgi import SimpleWebSocketWSGI
from flask import Flask
from flask_socketio import SocketIO
from wsproto.frame_protocol import FrameProtocol

from webapp.live import wire

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
@pytest.mark.parametrize("binary", [False, True])
def test_a_frame_is_the_one_wsproto_would_build(size, binary):
    """Server frames: final, unmasked, the three length forms (7 bits, 16 bits, 64 bits)."""
    payload = bytes(range(256)) * (size // 256 + 1)
    payload = payload[:size] if binary else ("é" * size)[:size]
    expected = FrameProtocol(client=False, extensions=[]).send_data(payload, fin=True)
    assert wire.frame(payload) == expected


def _socketio():
    return SocketIO(Flask(__name__), async_mode="threading", logger=False, engineio_logger=False)


def test_install_replaces_only_this_servers_websocket_driver():
    first, second = _socketio(), _socketio()
    assert wire.install(first) is True
    assert first.server.eio._async["websocket"] is not SimpleWebSocketWSGI
    assert issubclass(first.server.eio._async["websocket"], SimpleWebSocketWSGI)
    assert second.server.eio._async["websocket"] is SimpleWebSocketWSGI  # engineio's module-wide table untouched


@pytest.mark.parametrize("dist, version", [("python-engineio", "4.16.0"), ("python-engineio", "4.14.2"),
                                           ("python-engineio", "4.15.2"), ("simple-websocket", "1.2.0"),
                                           ("simple-websocket", "1.1.1"), ("simple-websocket", "2.0")])
def test_other_library_versions_leave_the_writes_stock_with_one_log_line(monkeypatch, caplog, dist, version):
    real = wire.metadata.version
    monkeypatch.setattr(wire.metadata, "version", lambda name: version if name == dist else real(name))
    sio = _socketio()
    with caplog.at_level(logging.INFO, logger="webapp.live.wire"):
        assert wire.install(sio) is False
    assert sio.server.eio._async["websocket"] is SimpleWebSocketWSGI
    lines = [r for r in caplog.records if r.name == "webapp.live.wire"]
    assert len(lines) == 1 and dist in lines[0].getMessage() and version in lines[0].getMessage()


def test_the_installed_versions_are_tested_ones_and_the_test_install_asks_for_them():
    """A user's install takes any version (no pins: fixes arrive); scripts/test installs the tested ones, so the
    suite exercises the direct writes, and the constraints it installs with name exactly TESTED's versions."""
    assert wire._versions_ok() is None
    constraints = dict(line.split("==") for line in (REPO / "scripts" / "tested-versions.txt").read_text().split()
                       if "==" in line)
    for dist, versions in wire.TESTED.items():
        assert constraints[dist] in versions
        requirement = re.search(rf'"{dist}([^"]*)"', (REPO / "pyproject.toml").read_text()).group(1)
        assert "<" not in requirement and "==" not in requirement  # no upper pin holds the stack back
    assert "tested-versions.txt" in (REPO / "scripts" / "test").read_text()


def test_a_platform_without_msg_dontwait_stays_stock_with_one_log_line(monkeypatch, caplog):
    """Windows' socket module has no MSG_DONTWAIT: the direct writes must not be installed there."""
    monkeypatch.delattr(wire.socket, "MSG_DONTWAIT")
    sio = _socketio()
    with caplog.at_level(logging.INFO, logger="webapp.live.wire"):
        assert wire.install(sio) is False
    assert sio.server.eio._async["websocket"] is SimpleWebSocketWSGI
    lines = [r.getMessage() for r in caplog.records if r.name == "webapp.live.wire"]
    assert len(lines) == 1 and "MSG_DONTWAIT" in lines[0]


def test_another_async_mode_stays_stock(caplog):
    sio = _socketio()
    sio.server.eio.async_mode = "gevent"  # what install reads; the driver table stays threading's
    with caplog.at_level(logging.INFO, logger="webapp.live.wire"):
        assert wire.install(sio) is False
    assert sio.server.eio._async["websocket"] is SimpleWebSocketWSGI
    assert "async mode gevent" in caplog.text


def test_the_bare_reference_server_stays_stock():
    """bench/bare_broadcast.py is the transport's reference: stock Flask-SocketIO writes."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import bare_broadcast
    finally:
        sys.path.remove(str(REPO / "bench"))
    _app, sio = bare_broadcast.create_app()
    assert sio.server.eio._async["websocket"] is SimpleWebSocketWSGI
    assert "wire" not in (REPO / "bench" / "bare_broadcast.py").read_text()
