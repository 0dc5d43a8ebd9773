"""The library seams (webapp/seams.py): with today's libraries every seam passes its check; with what a seam bends
removed or changed (each in turn), the start logs that seam's fallback in one line, or refuses to start where
the seam is a security limit; and the fallbacks do what the seam did."""

from __future__ import annotations

import logging
import os
import socket

import pytest

from webapp import seams


def report() -> dict[str, bool]:
    return {seam.name: seam.ok for seam in seams.SEAMS}


def _wrong(self):  # a method whose signature is not the one a seam calls
    return None


def _read_without_private_reads(self, length=None):
    return b""


def _no_options_init(self, handler, server, **kwargs):
    self.app = handler
    self.options = kwargs  # engine.io keeping simple-websocket's arguments under another name


def _server_without_limit(self, environ, subprotocols=None, receive_bytes=4096):
    pass


def _wait_with_timeout(gen, fileno, timeout=None):  # psycopg 3.1's wait: no ``interval``
    pass


def _send_without_wrapper(self, sender=None, /, **kwargs):  # a blinker without _async_wrapper
    return []


def _new_context_other(self, values=None, parent=None):
    pass


#: (seam, module, attribute path, replacement or None to delete it, what follows: "fallback" or "refuse")
BREAKS = [
    ("websocket_message_limit", "engineio.async_drivers.gevent", "_async", None, "refuse"),
    ("websocket_message_limit", "engineio.async_drivers._websocket_wsgi", "SimpleWebSocketWSGI.__init__",
     _no_options_init, "refuse"),
    ("websocket_message_limit", "simple_websocket", "Server.__init__", _server_without_limit, "refuse"),
    ("websocket_message_limit", "simple_websocket.ws", "Base._thread", _wrong, "refuse"),  # its reader: paced (#57)
    ("socketio_event_lanes", "socketio", "Server._handle_event", None, "fallback"),
    ("socketio_event_lanes", "socketio", "Server._handle_event_internal", None, "fallback"),
    ("socketio_event_lanes", "socketio", "Server._send_packet", _wrong, "fallback"),
    ("request_body_deadline", "gevent.pywsgi", "Input._do_read", None, "refuse"),
    ("request_body_deadline", "gevent.pywsgi", "Input._discard", None, "refuse"),
    ("request_body_deadline", "gevent.pywsgi", "Input.read", _read_without_private_reads, "refuse"),
    ("request_head_deadline", "gevent.pywsgi", "WSGIHandler.read_request", _wrong, "refuse"),
    ("websocket_upgrade_requested", "gevent.pywsgi", "WSGIHandler._connection_upgrade_requested", None, "fallback"),
    ("jinja_newstyle_gettext", "jinja2.ext", "_make_new_gettext", None, "fallback"),
    ("jinja_newstyle_gettext", "jinja2.ext", "_make_new_npgettext", _wrong, "fallback"),
    ("flask_babel_context", "flask_babel", "_get_current_context", None, "fallback"),
    ("babel_pseudo_locale", "babel.localedata", "_cache", None, "fallback"),
    ("fragment_render", "jinja2", "Template.new_context", _new_context_other, "fallback"),
    ("fragment_render", "blinker", "Signal.send", _send_without_wrapper, "fallback"),
    ("psycopg_wait", "psycopg.waiting", "wait", _wait_with_timeout, "fallback"),
    ("psycopg_wait", "psycopg.waiting", "Ready", None, "fallback"),
    ("redis_publish", "socketio.redis_manager", "RedisManager._publish", _wrong, "fallback"),
]


@pytest.fixture
def breaking(monkeypatch):
    """monkeypatch, and every seam checked again once the libraries are whole (the fallbacks switched back)."""
    yield monkeypatch
    monkeypatch.undo()
    assert seams.check_all() == []


def _break(monkeypatch, module: str, path: str, replacement) -> None:
    owner = pytest.importorskip(module)
    *parents, name = path.split(".")
    for parent in parents:
        owner = getattr(owner, parent)
    if replacement is None:
        monkeypatch.delattr(owner, name)
    else:
        monkeypatch.setattr(owner, name, replacement)


def test_every_seam_passes_its_check_with_the_tested_libraries(caplog):
    with caplog.at_level(logging.WARNING, logger="webapp.seams"):
        assert seams.check_all() == []
    assert caplog.records == []
    assert all(report().values()) and len(report()) == len(seams.SEAMS)
    assert seams.render_fragment is seams._render_shared and seams.event_hook is not None


def test_every_seam_is_broken_by_some_test_and_says_why_in_its_docstring():
    assert {name for name, *_ in BREAKS} == {seam.name for seam in seams.SEAMS}
    for seam in seams.SEAMS:
        doc = type(seam).__doc__
        assert "Tested:" in doc and "lets it go" in doc, seam.name
        assert seam.libraries


@pytest.mark.parametrize("name, module, path, replacement, outcome", BREAKS,
                         ids=[f"{b[0]}-{b[2]}" for b in BREAKS])
def test_a_missing_internal_falls_back_in_one_line_or_refuses_to_start(breaking, caplog, name, module, path,
                                                                        replacement, outcome):
    _break(breaking, module, path, replacement)
    with caplog.at_level(logging.WARNING, logger="webapp.seams"):
        if outcome == "refuse":
            with pytest.raises(seams.SeamBroken) as refused:
                seams.check_all()
            assert f"seam {name}:" in str(refused.value) and "will not serve" in str(refused.value)
            assert caplog.records == []
        else:
            assert seams.check_all() == [name]
            assert len(caplog.records) == 1
            line = caplog.records[0].getMessage()
            assert line.startswith(f"seam {name}: ") and "falling back to" in line
    assert report()[name] is False
    assert [n for n, ok in report().items() if not ok] == [name]


def test_tacmap_serve_says_it_cannot_start_without_a_security_limit(breaking, tmp_path, capsys):
    from webapp import cli

    breaking.setattr(seams, "_checked", None)
    _break(breaking, "gevent.pywsgi", "Input._do_read", None)
    assert cli.open_app({"DATA_DIR": str(tmp_path), "DEMO": False}) is None
    err = capsys.readouterr().err
    assert "tacmap cannot start" in err and "request_body_deadline" in err and "Input has no _do_read" in err
    assert not (tmp_path / "tacmap.sqlite3").exists()  # refused before anything was made


def test_the_check_at_start_runs_once_per_process(breaking):
    calls = []
    breaking.setattr(seams, "_checked", None)
    breaking.setattr(seams, "check_all", lambda: calls.append(1) or [])
    seams.check_at_start()
    seams.check_at_start()
    assert calls == [1]


# --- the seams' own ways and their fallbacks do the same ---------------------------------------------------------

def test_the_websocket_class_of_a_server_is_given_the_message_limit():
    import engineio

    eio = engineio.Server(async_mode="threading")
    stock = eio._async["websocket"]
    seams.limit_websocket_messages(eio, 1234)
    limited = eio._async["websocket"]
    assert limited is not stock and issubclass(limited, stock)
    assert limited(lambda ws: None, eio).server_args["max_message_size"] == 1234
    assert engineio.Server(async_mode="threading")._async["websocket"] is stock  # the driver's table is untouched
    seams.limit_websocket_messages(eio, 99)  # twice on one server: the first limit stays
    assert eio._async["websocket"] is limited


def test_a_server_whose_websocket_is_not_simple_websockets_refuses():
    import engineio

    eio = engineio.Server(async_mode="threading")
    eio._async = dict(eio._async, websocket=object)
    with pytest.raises(seams.SeamBroken, match="websocket_message_limit"):
        seams.limit_websocket_messages(eio, 1234)


def test_without_the_event_hook_the_lanes_run_in_order_and_say_it_once(breaking, caplog):
    import socketio

    from webapp.live.server.lanes import Lanes

    breaking.delattr(socketio.Server, "_send_packet")
    with caplog.at_level(logging.WARNING):
        seams.check_all()
        server = socketio.Server(async_mode="threading")
        lanes = Lanes(server)
    assert lanes.hooked is False and server.async_handlers is False
    assert [r.name for r in caplog.records] == ["webapp.seams"]


def _fragment_app():
    import jinja2
    from flask import Flask

    app = Flask(__name__)
    env = jinja2.Environment(loader=jinja2.DictLoader({"t.html": "{{ a }}-{{ b|upper }}"}), autoescape=True)
    return app, env, env.get_template("t.html")


@pytest.mark.parametrize("ok", [True, False])
def test_a_fragment_renders_and_signals_alike_either_way(breaking, ok):
    from flask import template_rendered

    app, env, template = _fragment_app()
    seams.FRAGMENT_RENDER.use(ok)
    seen = []

    def rendered(sender, template, context, **extra):
        seen.append((sender, template.name, dict(context)))

    with app.app_context(), template_rendered.connected_to(rendered, app):
        assert seams.render_fragment(app, env, template, {"a": "<x>", "b": "y"}) == "&lt;x&gt;-Y"
        assert seams.render_values(env, template, {"a": 1, "b": "z"}) == "1-Z"
    assert seen == [(app, "t.html", {"a": "<x>", "b": "y"})]


@pytest.mark.parametrize("ok", [True, False])
def test_a_forced_locale_and_a_forgotten_one_alike_either_way(breaking, ok):
    from babel import Locale
    from flask import Flask, g
    from flask_babel import Babel, get_locale

    app = Flask(__name__)
    Babel(app, locale_selector=lambda: g.get("lang", "en"))
    seams.BABEL_CONTEXT.use(ok)
    with app.test_request_context("/"):
        assert str(get_locale()) == "en"
        with seams.forced_locale(Locale.parse("de")):
            assert str(get_locale()) == "de"
        assert str(get_locale()) == "en"
        g.lang = "fr"
        assert str(get_locale()) == "en"  # looked up once per request...
        seams.forget_locale()
        assert str(get_locale()) == "fr"  # ...until forgotten


def test_without_jinjas_gettext_makers_the_templates_words_are_flask_babels(breaking):
    assert len(seams.newstyle_gettext()) == 4
    seams.JINJA_GETTEXT.use(False)
    assert seams.newstyle_gettext() is None


def test_the_upgrade_is_read_alike_either_way(breaking):
    from types import SimpleNamespace

    from gevent.pywsgi import WSGIHandler

    for headers, upgrade in (({"Connection": "Upgrade"}, True), ({"Upgrade": "websocket"}, True), ({}, False)):
        handler = SimpleNamespace(headers=headers)
        handler._connection_upgrade_requested = lambda h=handler: WSGIHandler._connection_upgrade_requested(h)
        seams.WEBSOCKET_UPGRADE.use(True)
        assert seams.upgrade_requested(handler) is upgrade
        seams.WEBSOCKET_UPGRADE.use(False)
        assert seams.upgrade_requested(handler) is upgrade


class _Answering:
    """A libpq connection as ``read_results`` sees it: its answer (three results) arrives on a socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.socket = sock.fileno()
        self.busy = True
        self.results = ["a", "b"]

    def flush(self) -> int:
        return 0

    def consume_input(self) -> None:
        self.sock.setblocking(False)
        try:
            if self.sock.recv(10):
                self.busy = False
        except BlockingIOError:
            pass

    def is_busy(self) -> bool:
        return self.busy

    def get_result(self):
        return self.results.pop(0) if self.results else None


@pytest.mark.parametrize("ok", [True, False])
def test_an_answer_sent_ahead_is_read_alike_either_way(breaking, ok):
    pytest.importorskip("psycopg")
    import threading

    seams.PSYCOPG_WAIT.use(ok)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        threading.Timer(0.05, lambda: theirs.send(b"x")).start()
        assert seams.read_results(_Answering(ours), 0.01) == ["a", "b"]


def test_the_fallback_reads_an_answer_on_a_descriptor_past_selects_1024(breaking):
    """A server with a thousand sockets open gives the database's a descriptor number past 1,024, which
    ``select.select`` refuses ("filedescriptor out of range"); the fallback's selector takes it."""
    resource = pytest.importorskip("resource")  # POSIX: Windows' select has no such limit on a socket's number
    import threading

    seams.PSYCOPG_WAIT.use(False)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1200:
        if hard != resource.RLIM_INFINITY and hard < 1200:
            pytest.skip(f"this system lets a process open {hard} files, too few to pass 1,024")
        resource.setrlimit(resource.RLIMIT_NOFILE, (1200, hard))
    held = []
    try:
        while not held or held[-1] < 1050:
            held.append(os.open(os.devnull, os.O_RDONLY))
        ours, theirs = socket.socketpair()
        with ours, theirs:
            assert ours.fileno() > 1024
            threading.Timer(0.05, lambda: theirs.send(b"x")).start()
            assert seams.read_results(_Answering(ours), 0.01) == ["a", "b"]
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_body_deadline_wraps_geventss_input_and_keeps_its_stream():
    import io

    from gevent.pywsgi import Input

    class TooSlow(Exception):
        pass

    deadline_input = seams.deadline_input(TooSlow)
    assert seams.deadline_input(TooSlow) is deadline_input  # one class per exception
    old = Input(io.BytesIO(b"hello"), 5)
    body = deadline_input.around(old, deadline=1e18)
    assert isinstance(body, Input) and body.rfile is old.rfile and body.content_length == 5
    assert body.read() == b"hello" and not body.expired
