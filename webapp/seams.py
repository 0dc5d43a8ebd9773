"""Every place tacmap bends a library's internals, in one module, each checked when the server starts.

A seam uses what a library does not promise (a private class table, a method with a leading underscore, the
steps a public function takes inside). Each is a small class saying what it bends, why, on which version it was
tested (scripts/tested-versions.txt pins them, pyproject.toml bounds them) and what upstream change would let it
go; its ``check()`` looks for the names and signatures it needs (and, where a public method must still go
through the private one tacmap replaces, that it does). ``check_at_start()`` runs them once, when the app is
made (``create_app``, so ``tacmap serve`` too): a seam whose check fails falls back to public behaviour, with ONE
log line, or, where it holds a security limit with no safe fallback (a websocket message's size, a request's
head and body deadlines), tacmap refuses to start (``SeamBroken``): better not to serve than to serve without
the limit. docs/SERVING.md ("Library seams") has the table. The functions the app calls (``render_fragment``,
``event_hook``, ``read_results``...) check nothing per call: the check chose their way once. This module imports
no part of tacmap (live/, web/ and storage/ import it; webapp/game never does), and the libraries where used.
"""

from __future__ import annotations

import functools
import inspect
import logging
import selectors
import time
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from typing import Callable, Iterator

from flask import g, template_rendered

log = logging.getLogger(__name__)


class SeamBroken(RuntimeError):
    """A library lacks what a seam with no safe fallback bends: tacmap does not start (cli.py says why)."""


class Missing(Exception):
    """What a seam's check did not find, in words."""


def _name(thing) -> str:
    return getattr(thing, "__qualname__", None) or getattr(thing, "__name__", None) or repr(thing)


def _attr(owner, name: str):
    """``owner.name``, or Missing saying it is gone."""
    try:
        return getattr(owner, name)
    except AttributeError:
        raise Missing(f"{_name(owner)} has no {name}") from None


def _params(function: Callable, *names: str, keywords: tuple[str, ...] = (), var_keyword: bool = False) -> None:
    """``function`` takes ``names`` first (after ``self``), in order, ``keywords`` by name, ``**kwargs`` if asked."""
    try:
        sig = inspect.signature(function)
    except (TypeError, ValueError):
        raise Missing(f"{_name(function)}'s signature cannot be read") from None
    params = sig.parameters.values()
    given = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if given[:1] == ["self"]:
        given = given[1:]
    if given[:len(names)] != list(names) or any(k not in sig.parameters for k in keywords) or (
            var_keyword and not any(p.kind == p.VAR_KEYWORD for p in params)):
        wanted = ", ".join([*names, *(f"{k}=" for k in keywords), *(["**kwargs"] if var_keyword else [])])
        raise Missing(f"{_name(function)}{sig} does not take ({wanted})")


def _uses(function: Callable, *names: str) -> None:
    """``function``'s own code still names ``names`` (a public method still goes through the private one)."""
    code = getattr(inspect.unwrap(function), "__code__", None)
    if code is None:
        raise Missing(f"{_name(function)} is not Python code tacmap can read")
    found = set(code.co_names) | set(code.co_varnames)
    for const in code.co_consts:  # a name in getattr(x, "name"), or a nested function's names
        if inspect.iscode(const):
            found |= set(const.co_names)
        elif isinstance(const, (str, tuple)):
            found |= {const} if isinstance(const, str) else {c for c in const if isinstance(c, str)}
    lacking = [n for n in names if n not in found]
    if lacking:
        raise Missing(f"{_name(function)} no longer uses {', '.join(lacking)}")


class Seam:
    """One use of a library's internals. ``fallback``: what tacmap does instead when ``check`` fails (logged
    once), or None: no safe fallback, tacmap refuses to start."""

    name = ""
    libraries: tuple[str, ...] = ()
    fallback: str | None = None
    ok = True  #: as last checked (until checked: assumed, the tested versions)

    def check(self) -> None:
        raise NotImplementedError

    def use(self, ok: bool) -> None:
        """Take the seam's own way (``ok``) or its fallback."""
        self.ok = ok

    def versions(self) -> str:
        found = []
        for name in self.libraries:
            try:
                found.append(f"{name} {version(name)}")
            except PackageNotFoundError:
                found.append(f"{name} ?")
        return ", ".join(found)


# --- engine.io: the websocket message limit ------------------------------------------------------------------

class WebsocketMessageLimit(Seam):
    """engine.io's table of its async mode's classes (``Server._async``, set in ``BaseServer.__init__`` from
    ``engineio.async_drivers.<mode>._async``): its ``websocket`` class is replaced, per server, by a subclass
    that adds ``max_message_size`` to the arguments engine.io keeps for simple-websocket (``server_args``), so
    simple-websocket closes a websocket as soon as a message grows past the limit (engine.io checks only a whole
    message, after buffering it: a never-ending fragmented or inflating message would grow without bound).
    And its ``thread_class`` (``reading``): its reader (``Base._thread``) reads, and its frames (``Base.send``) go out
    whole, through live/keyless.py's wrapper (no read blocks while a client sends, #57). Tested: python-engineio 4.15.1,
    simple-websocket 1.1.0. Upstream change that lets it go: engine.io passing its message limit on. No fallback."""

    name = "websocket_message_limit"
    libraries = ("python-engineio", "simple-websocket")

    def check(self) -> None:
        import simple_websocket
        from engineio import base_server, socket
        from engineio.async_drivers import _websocket_wsgi

        _uses(base_server.BaseServer.__init__, "_async")
        _uses(socket.Socket._upgrade_websocket, "_async")
        wsgi = _attr(_websocket_wsgi, "SimpleWebSocketWSGI")
        _params(wsgi.__init__, "handler", "server", var_keyword=True)
        _uses(wsgi.__init__, "server_args")
        _uses(wsgi.__call__, "server_args")
        _params(simple_websocket.Server.__init__, "environ", keywords=("max_message_size", "thread_class"))
        _uses(simple_websocket.ws.Base._thread, "sock", "recv")  # the reader given to thread_class, read through
        _uses(simple_websocket.ws.Base.send, "sock", "send")  # a frame written with one send of that socket's
        from engineio.async_drivers import gevent as driver  # what tacmap serve uses

        table = _attr(driver, "_async")
        base = table.get("websocket") if isinstance(table, dict) else None
        if not (isinstance(base, type) and issubclass(base, wsgi)):
            raise Missing("engine.io's gevent websocket is not simple-websocket's (is gevent-websocket installed?)")


def limit_websocket_messages(eio, max_message: int, reading: Callable | None = None) -> None:
    """Have simple-websocket cut a websocket message of engine.io server ``eio`` at ``max_message`` bytes as it
    arrives, its reader started by ``reading(thread_class)`` (``WebsocketMessageLimit``)."""
    from engineio.async_drivers._websocket_wsgi import SimpleWebSocketWSGI

    table = getattr(eio, "_async", None)
    base = table.get("websocket") if isinstance(table, dict) else None
    if not (isinstance(base, type) and issubclass(base, SimpleWebSocketWSGI)):
        raise SeamBroken(f"seam {WEBSOCKET_MESSAGE_LIMIT.name}: engine.io's websocket class ({base!r}) is not "
                         f"simple-websocket's ({WEBSOCKET_MESSAGE_LIMIT.versions()}): a websocket message would be "
                         "checked against the limit only once whole")
    if getattr(base, "limits_messages", False):
        return

    class LimitedWebSocket(base):
        limits_messages = True

        def __init__(self, handler, server, **kwargs):
            super().__init__(handler, server, **kwargs)
            self.server_args["max_message_size"] = max_message
            if reading is not None and self.server_args.get("thread_class") is not None:
                self.server_args["thread_class"] = reading(self.server_args["thread_class"])

    eio._async = dict(table, websocket=LimitedWebSocket)  # this server's copy: the driver's table is module-wide


# --- python-socketio: the lanes' hook between reading an event and running it ---------------------------------

class SocketioEvents(Seam):
    """python-socketio's ``Server._handle_event`` (replaced per server: the lanes take the events they order),
    ``_handle_event_internal`` (runs one event's handler and sends its ack) and ``_send_packet`` (the lanes' own
    acks). python-socketio has no public hook between reading an event and running its handler. Tested:
    python-socketio 5.18.1 (the three are unchanged through 5.x). Upstream change that lets it go: a public
    "event dispatcher" hook (a callable given the event and a function that runs it), or an ``ack`` method."""

    name = "socketio_event_lanes"
    libraries = ("python-socketio",)
    fallback = ("python-socketio's own ordered handling (async_handlers off: each connection's events run one "
                "after another on its reading thread; the lanes' flood limit and coalescing are lost)")

    def check(self) -> None:
        import socketio

        server = socketio.Server
        _params(_attr(server, "_handle_event"), "eio_sid", "namespace", "id", "data")
        _params(_attr(server, "_handle_event_internal"), "server", "sid", "eio_sid", "data", "namespace", "id")
        _params(_attr(server, "_send_packet"), "eio_sid", "pkt")
        _uses(_attr(server, "_handle_eio_message"), "_handle_event")
        _uses(server.__init__, "packet_class")


class EventHook:
    """A python-socketio server's events, between reading and running (``SocketioEvents``)."""

    __slots__ = ("server", "original", "run", "_ack")

    def __init__(self, server) -> None:
        from socketio import packet

        self.server = server
        self.original = server._handle_event  #: (eio_sid, namespace, id, data): python-socketio's own
        #: (sid, eio_sid, data, namespace, id): run the event's handler now, and send its ack
        self.run = functools.partial(server._handle_event_internal, server)
        self._ack = packet.ACK

    def install(self, handle_event: Callable) -> None:
        """``handle_event(eio_sid, namespace, id, data)`` gets every event from now on."""
        self.server._handle_event = handle_event

    def ack(self, eio_sid: str, namespace: str, id, data: list) -> None:
        server = self.server
        server._send_packet(eio_sid, server.packet_class(self._ack, namespace=namespace, id=id, data=data))


def event_hook(server) -> EventHook | None:
    """The hook on ``server``; None when the seam fell back (``Lanes`` then switches ``async_handlers`` off)."""
    if not SOCKETIO_EVENTS.ok or not all(
            hasattr(server, name) for name in ("_handle_event", "_handle_event_internal", "_send_packet")):
        return None
    return EventHook(server)


# --- gevent: the request's head and body deadlines, a websocket's end --------------------------------------------

class RequestBodyDeadline(Seam):
    """gevent's request body (``pywsgi.Input``): its private ``_do_read`` and ``_chunked_read`` (every ``read``,
    ``readline`` goes through one of them) are wrapped with one deadline for the whole body, and ``_discard``
    (what the handler reads of an unread body before the next request) skips a body that came too slowly;
    ``WSGIHandler.get_environ`` puts ``self.wsgi_input`` in the environ, where ``serving.TableHandler`` swaps it.
    Tested: gevent 26.9.0. Upstream change that lets it go: a body timeout in ``gevent.pywsgi`` (a deadline
    for the whole body, not one per read). No fallback: without it a body trickled a byte at a time holds its
    connection for ever."""

    name = "request_body_deadline"
    libraries = ("gevent",)

    def check(self) -> None:
        from gevent.pywsgi import Input, WSGIHandler

        _params(Input.__init__, "rfile", "content_length", "socket", "chunked_input")
        for slot in ("rfile", "content_length", "socket", "chunked_input"):
            _attr(Input, slot)
        _params(_attr(Input, "_do_read"), "length", "use_readline")
        _params(_attr(Input, "_chunked_read"), "length", "use_readline")
        _params(_attr(Input, "_discard"))
        _uses(Input.read, "_do_read", "_chunked_read")
        _uses(Input.readline, "_do_read", "_chunked_read")
        _uses(WSGIHandler.handle_one_response, "_discard")
        _uses(WSGIHandler.get_environ, "wsgi_input")


class RequestHeadDeadline(Seam):
    """gevent's ``WSGIHandler.handle_one_request`` reads a request's line and headers through
    ``read_requestline()`` and ``read_request(raw_requestline)``, which ``serving.TableHandler`` overrides to
    give them a deadline (slowloris). Public names, but that ``handle_one_request`` calls them is gevent's
    inside. Tested: gevent 26.9.0. Upstream change that lets it go: a header timeout in ``gevent.pywsgi``.
    No fallback: a security limit."""

    name = "request_head_deadline"
    libraries = ("gevent",)

    def check(self) -> None:
        from gevent.pywsgi import WSGIHandler

        _params(WSGIHandler.read_requestline)
        _params(WSGIHandler.read_request, "raw_requestline")
        _uses(WSGIHandler.handle_one_request, "read_requestline", "read_request")


@functools.cache
def deadline_input(too_slow: type[Exception]) -> type:
    """gevent's ``Input`` with one deadline for the whole body (``RequestBodyDeadline``): a read past it raises
    ``too_slow``. Make one with ``DeadlineInput.around(input, deadline=...)``."""
    from gevent import Timeout
    from gevent.pywsgi import Input

    class DeadlineInput(Input):
        """gevent's request body with one deadline for the whole of it: every read waits at most for what is left."""

        __slots__ = ("deadline", "expired")

        def __init__(self, *args, deadline: float, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.deadline = deadline
            self.expired = False

        @classmethod
        def around(cls, old: Input, deadline: float) -> "DeadlineInput":
            """``old``'s body (same stream, length, socket, chunking) with ``deadline`` (``time.monotonic()``)."""
            return cls(old.rfile, old.content_length, socket=old.socket, chunked_input=old.chunked_input,
                       deadline=deadline)

        def _timed(self, read, *args, **kwargs):
            if self.expired:
                raise too_slow("the request body did not arrive in time")
            left = self.deadline - time.monotonic()
            timer = Timeout(max(left, 0.001))
            timer.start()
            try:
                return read(*args, **kwargs)
            except Timeout as exc:
                if exc is not timer:
                    raise
                self.expired = True
                raise too_slow("the request body did not arrive in time") from None
            finally:
                timer.close()

        def _do_read(self, length=None, use_readline=False):
            return self._timed(super()._do_read, length, use_readline)

        def _chunked_read(self, length=None, use_readline=False):
            return self._timed(super()._chunked_read, length, use_readline)

        def _discard(self):
            if not self.expired:  # what is left of a body that came too slowly is not waited for
                try:
                    super()._discard()
                except too_slow:
                    pass

    return DeadlineInput


class WebsocketUpgrade(Seam):
    """gevent's ``WSGIHandler._connection_upgrade_requested()``: whether the request asked for an upgrade (a
    websocket), after which ``serving.TableHandler`` closes the connection (a websocket's last bytes are not a
    next request). Tested: gevent 26.9.0. Upstream change that lets it go: the method made public."""

    name = "websocket_upgrade_requested"
    libraries = ("gevent",)
    fallback = "tacmap's own reading of the Connection and Upgrade headers (what gevent 26.9 reads)"

    def check(self) -> None:
        from gevent.pywsgi import WSGIHandler

        _params(_attr(WSGIHandler, "_connection_upgrade_requested"))
        _uses(WSGIHandler.run_application, "process_result")  # TableHandler's, skipped after a websocket's 101 (#70)


def upgrade_requested(handler) -> bool:
    """Whether gevent handler ``handler``'s request asked for an upgrade (``WebsocketUpgrade``)."""
    if WEBSOCKET_UPGRADE.ok:
        return handler._connection_upgrade_requested()
    return (handler.headers.get("Connection", "").lower() == "upgrade"
            or handler.headers.get("Upgrade", "").lower() == "websocket")


# --- Jinja2, Flask-Babel, Babel: the languages ----------------------------------------------------------------

class JinjaGettext(Seam):
    """Jinja2's ``jinja2.ext._make_new_gettext`` / ``_make_new_ngettext`` / ``_make_new_pgettext`` /
    ``_make_new_npgettext``: the newstyle gettext callables its i18n extension installs, made here once per
    language from that language's catalog, so a live update drawn in several languages reads each catalog
    directly (``language.template_words``). Tested: Jinja2 3.1.6. Upstream change that lets it go: the four
    made public (or ``Environment.install_gettext_callables`` returning them instead of installing them)."""

    name = "jinja_newstyle_gettext"
    libraries = ("Jinja2",)
    fallback = "Flask-Babel's own _() in live updates (the same words, looked up per call: slower)"

    def check(self) -> None:
        import jinja2.ext

        for name in ("_make_new_gettext", "_make_new_ngettext", "_make_new_pgettext", "_make_new_npgettext"):
            _params(_attr(jinja2.ext, name), "func")


def newstyle_gettext() -> tuple[Callable, Callable, Callable, Callable] | None:
    """Jinja's makers of the newstyle ``gettext``, ``ngettext``, ``pgettext``, ``npgettext`` (each given the
    catalog's function), or None when the seam fell back (``JinjaGettext``)."""
    if not JINJA_GETTEXT.ok:
        return None
    from jinja2 import ext

    return ext._make_new_gettext, ext._make_new_ngettext, ext._make_new_pgettext, ext._make_new_npgettext


class BabelContext(Seam):
    """Flask-Babel's per-request context (``flask_babel._get_current_context()``, kept in ``g._flask_babel``):
    a live update drawn in a language sets its ``babel_locale`` / ``forced_babel_locale`` /
    ``babel_translations`` as ``flask_babel.force_locale`` does, but with the ``Locale`` parsed once per
    language, not per update; a page that speaks for someone else (``i18n.speak``) drops what was looked up
    for the device's language. Tested: Flask-Babel 4.0.0. Upstream change that lets it go: ``force_locale``
    taking a ``Locale`` without parsing it again, and a public way to forget the request's locale."""

    name = "flask_babel_context"
    libraries = ("flask-babel",)
    fallback = ("flask_babel.force_locale for each live update's language, and flask_babel.refresh() when a "
                "page speaks another language (the same words)")

    def check(self) -> None:
        import flask_babel

        getter = _attr(flask_babel, "_get_current_context")
        _params(getter)
        _uses(getter, "_flask_babel")
        _uses(flask_babel.force_locale, "_get_current_context", "babel_locale", "forced_babel_locale",
              "babel_translations")
        _uses(flask_babel.get_locale, "babel_locale")


@contextmanager
def forced_locale(locale) -> Iterator[None]:
    """Flask-Babel speaks ``locale`` (a parsed ``babel.Locale``) in the block, as ``force_locale`` would."""
    import flask_babel

    if not BABEL_CONTEXT.ok:
        with flask_babel.force_locale(locale):
            yield
        return
    ctx = flask_babel._get_current_context()
    if ctx is None:
        yield
        return
    saved = (getattr(ctx, "babel_translations", None), getattr(ctx, "babel_locale", None))
    try:
        ctx.babel_locale = ctx.forced_babel_locale = locale
        ctx.babel_translations = None
        yield
    finally:
        if hasattr(ctx, "forced_babel_locale"):
            del ctx.forced_babel_locale
        ctx.babel_translations, ctx.babel_locale = saved


def forget_locale() -> None:
    """Drop what Flask-Babel looked up for this request's language (its locale chosen again at the next ask)."""
    if not BABEL_CONTEXT.ok:
        import flask_babel

        flask_babel.refresh()
        return
    ctx = getattr(g, "_flask_babel", None)
    if ctx is not None:
        for key in ("babel_locale", "babel_translations"):
            if hasattr(ctx, key):
                delattr(ctx, key)


class BabelLocaleData(Seam):
    """Babel's locale data cache (``babel.localedata._cache``): the pseudo-locale ``en_XA`` is given English's
    data there, as CLDR's pseudo-locales are not shipped (``localedata.exists`` and ``load`` look in the cache
    first). Tested: Babel 2.18.0. Upstream change that lets it go: a public way to register a locale's data
    (or Babel shipping CLDR's pseudo-locales)."""

    name = "babel_pseudo_locale"
    libraries = ("babel",)
    fallback = "no Babel data for the pseudo-locale en_XA: a page asked for in it fails (the real languages are served)"

    def check(self) -> None:
        from babel import localedata

        if not isinstance(_attr(localedata, "_cache"), dict):
            raise Missing("babel.localedata._cache is not a dict")
        _params(localedata.load, "name")
        _uses(localedata.exists, "_cache")
        _uses(localedata.load, "_cache")


def add_locale(name: str, like: str) -> None:
    """Babel knows locale ``name`` with the data of ``like`` (``BabelLocaleData``); nothing if it cannot."""
    from babel import localedata

    cache = getattr(localedata, "_cache", None)
    if not localedata.exists(name) and isinstance(cache, dict):
        cache[name] = localedata.load(like)


# --- Jinja2, Flask and blinker: a fragment rendered without copying its context ---------------------------------

class FragmentRender(Seam):
    """Flask's ``render_template`` done by hand (as ``flask.templating._render`` does it): Jinja's
    ``Template.root_render_func`` over ``Template.new_context(ctx, shared=True)``, which takes the context as it
    is (``Template.render`` copies it into a dict first: a live fragment's lazy context would compute every
    name), ``Environment.concat`` and ``handle_exception``; then ``template_rendered`` sent with blinker's
    ``_async_wrapper=app.ensure_sync``, as Flask sends it. Tested: Jinja2 3.1.6, Flask 3.1.3, blinker 1.9.0.
    Upstream change that lets it go: ``Template.render`` taking a mapping without copying it (a ``shared``
    argument), and Flask's render over such a template public."""

    name = "fragment_render"
    libraries = ("Jinja2", "Flask", "blinker")
    fallback = ("Jinja's Template.render over a copy of the context (every name computed: slower), "
                "template_rendered sent without Flask's async wrapper")

    def check(self) -> None:
        import blinker
        import jinja2

        _uses(jinja2.Template._from_namespace, "root_render_func")
        _uses(jinja2.Template.render, "root_render_func", "new_context", "concat", "handle_exception")
        _params(jinja2.Template.new_context, "vars", "shared")
        _params(jinja2.Environment.handle_exception, "source")
        _attr(jinja2.Environment, "concat")
        _params(blinker.Signal.send, keywords=("_async_wrapper",))

    def use(self, ok: bool) -> None:
        global render_fragment, render_values
        self.ok = ok
        render_fragment, render_values = (_render_shared, _values_shared) if ok else (_render_copied, _values_copied)


def _render_shared(app, env, template, ctx) -> str:
    try:
        html = env.concat(template.root_render_func(template.new_context(ctx, shared=True)))
    except Exception:
        env.handle_exception()
    template_rendered.send(app, _async_wrapper=app.ensure_sync, template=template, context=ctx)
    return html


def _render_copied(app, env, template, ctx) -> str:
    html = template.render(dict(ctx))
    template_rendered.send(app, template=template, context=ctx)
    return html


def _values_shared(env, template, values) -> str:
    return env.concat(template.root_render_func(template.new_context(values, shared=True)))


def _values_copied(env, template, values) -> str:
    return template.render(dict(values))


#: ``render_fragment(app, env, template, ctx)``: template ``template`` of ``env`` over ``ctx`` (read, not
#: copied), ``template_rendered`` sent as Flask sends it (``FragmentRender``)
render_fragment = _render_shared
#: ``render_values(env, template, values)``: the same without the signal (a log line kept once rendered)
render_values = _values_shared


# --- psycopg: reading an answer sent with send_query -------------------------------------------------------------

class PsycopgWait(Seam):
    """psycopg's wait protocol (``psycopg.waiting.wait(gen, fileno, interval=...)``, a generator yielding
    ``Wait.R`` / ``Wait.RW`` and sent ``Ready`` flags): the answer of a transaction sent ahead with
    ``pgconn.send_query`` is read as psycopg's own statements are read, cooperatively where gevent patched
    ``select``. Tested: psycopg 3.3.9 (``interval`` since 3.2; 3.1 named it ``timeout``). Upstream change that
    lets it go: a public "read the pending results" call on ``Connection`` (pipeline mode does it, without
    the sending ahead tacmap needs). Checked only where psycopg is installed."""

    name = "psycopg_wait"
    libraries = ("psycopg",)
    fallback = "tacmap's own selector loop on the connection's socket (gevent's where patched)"

    def check(self) -> None:
        if find_spec("psycopg") is None:
            return
        from psycopg import waiting

        _params(_attr(waiting, "wait"), "gen", "fileno", keywords=("interval",))
        _attr(_attr(waiting, "Wait"), "R"), _attr(waiting.Wait, "RW"), _attr(_attr(waiting, "Ready"), "R")


def read_results(pgconn, interval: float) -> list:
    """Every result of the text sent with ``pgconn.send_query`` (flushing what libpq could not send at once),
    waiting for the server as psycopg does (``PsycopgWait``); the connection is then free."""
    if not PSYCOPG_WAIT.ok:
        return _select_results(pgconn, interval)
    from psycopg.waiting import Ready, Wait, wait

    return wait(_answered(pgconn, Wait.R, Wait.RW, Ready.R), pgconn.socket, interval=interval)


def _answered(pgconn, read, read_write, readable):
    """psycopg's wait protocol for a text sent with ``send_query`` (yields what to wait for, is sent what is
    ready): flush, then read every result until libpq says there is no more."""
    while pgconn.flush() != 0:  # (the connection is non-blocking: psycopg makes it so)
        ready = yield read_write
        if ready & readable:
            pgconn.consume_input()
    results = []
    pgconn.consume_input()  # what came meanwhile (usually the whole answer: no wait, no switch to gevent's hub)
    while True:
        while pgconn.is_busy():
            ready = yield read
            if ready:
                pgconn.consume_input()
        result = pgconn.get_result()
        if result is None:
            return results
        results.append(result)


def _select_results(pgconn, interval: float) -> list:
    """``_answered`` waited for with a selector (its events are psycopg's flags: 1 readable, 2 writable), not with
    ``select.select``, which refuses a descriptor past 1,024 (a server holding a thousand connections)."""
    fd, steps = pgconn.socket, _answered(pgconn, read := selectors.EVENT_READ, read | selectors.EVENT_WRITE, read)
    with selectors.DefaultSelector() as selector:  # gevent's, where patched
        try:
            selector.register(fd, next(steps))
            while True:
                selector.modify(fd, steps.send(sum(events for _key, events in selector.select(interval or None))))
        except StopIteration as done:
            return done.value


# --- python-socketio: Redis publishing off the emitting thread ------------------------------------------------

class RedisPublish(Seam):
    """python-socketio's ``PubSubManager._publish(data)``, the step that sends a message to the other processes
    (every emit, join and leave goes through it); ``RedisManager._publish`` returns None once it gave up. A
    subclass (``redis_manager_base``) hands it to a thread of its own (webapp/live/server/shared.py), so an emit never
    waits for Redis under a game's lock. Tested: python-socketio 5.18.1. Upstream change that lets it go: a
    publish queue in python-socketio's pub/sub managers (or a public hook for publishing)."""

    name = "redis_publish"
    libraries = ("python-socketio",)
    fallback = "python-socketio's stock Redis manager (each emit publishes to Redis from the emitting thread)"

    def check(self) -> None:
        from socketio import pubsub_manager, redis_manager

        _params(_attr(redis_manager.RedisManager, "_publish"), "data")
        _uses(pubsub_manager.PubSubManager.emit, "_publish")


def redis_manager_base() -> type:
    """The class ``shared.room_manager`` subclasses: it sends what goes to the other processes to
    ``publish_later(data)``, and ``publish_now(data)`` is the stock publish (None: it gave up). Without the seam
    (``RedisPublish``), the stock ``socketio.RedisManager``: subclassing it changes nothing."""
    import socketio

    if not REDIS_PUBLISH.ok:
        return socketio.RedisManager

    class QueuedRedisManager(socketio.RedisManager):
        def _publish(self, data) -> None:
            self.publish_later(data)

        def publish_now(self, data):
            return socketio.RedisManager._publish(self, data)

    return QueuedRedisManager


# --- all of them --------------------------------------------------------------------------------------------------

WEBSOCKET_MESSAGE_LIMIT = WebsocketMessageLimit()
SOCKETIO_EVENTS = SocketioEvents()
REQUEST_BODY_DEADLINE = RequestBodyDeadline()
REQUEST_HEAD_DEADLINE = RequestHeadDeadline()
WEBSOCKET_UPGRADE = WebsocketUpgrade()
JINJA_GETTEXT = JinjaGettext()
BABEL_CONTEXT = BabelContext()
BABEL_LOCALE_DATA = BabelLocaleData()
FRAGMENT_RENDER = FragmentRender()
PSYCOPG_WAIT = PsycopgWait()
REDIS_PUBLISH = RedisPublish()
SEAMS: tuple[Seam, ...] = (WEBSOCKET_MESSAGE_LIMIT, SOCKETIO_EVENTS, REQUEST_BODY_DEADLINE, REQUEST_HEAD_DEADLINE,
                           WEBSOCKET_UPGRADE, JINJA_GETTEXT, BABEL_CONTEXT, BABEL_LOCALE_DATA, FRAGMENT_RENDER,
                           PSYCOPG_WAIT, REDIS_PUBLISH)


def check_all(logger: logging.Logger = log) -> list[str]:
    """Check every seam: each that passes takes its own way; each that fails falls back, with one warning line
    (the names returned), or, with no safe fallback, ``SeamBroken`` says which and why (after all are checked)."""
    fell, broken = [], []
    for seam in SEAMS:
        try:
            seam.check()
        except Exception as exc:  # noqa: BLE001 (Missing, or the library itself not importable as expected)
            seam.use(False)
            why = str(exc) if isinstance(exc, Missing) else f"{type(exc).__name__}: {exc}"
            if seam.fallback is None:
                broken.append(f"seam {seam.name}: {seam.versions()}: {why}")
            else:
                logger.warning("seam %s: %s (%s); falling back to %s", seam.name, why, seam.versions(), seam.fallback)
                fell.append(seam.name)
        else:
            seam.use(True)
    if broken:
        raise SeamBroken("; ".join(broken) + ". tacmap will not serve without these security limits: install the "
                         "versions in scripts/tested-versions.txt (docs/SERVING.md, \"Library seams\")")
    return fell


_checked: list[str] | SeamBroken | None = None


def check_at_start() -> list[str]:
    """``check_all`` once per process (``create_app``): the libraries do not change while it runs."""
    global _checked
    if _checked is None:
        try:
            _checked = check_all()
        except SeamBroken as exc:
            _checked = exc
    if isinstance(_checked, SeamBroken):
        raise _checked
    return _checked

