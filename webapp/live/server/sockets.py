"""The live table over Socket.IO: connect with a key, send commands, drag previews.

connect   auth={"game", "token", "since"?}; a bad key is refused.
command   {"type": ..., ..., "cid"?} -> ack {"ok": true, "seq"} or {"ok": false, "error"}; a repeated cid: the first ack
preview   {"token_id", "x", "y", "done"?} -> others see it; nothing is stored
map_ping  {"x", "y"} -> every screen flashes the spot with the pinger's name ("map_ping"); nothing is stored
template_preview {"template_id", "dx", "dy", "done"?} -> others see a template being dragged; nothing is stored
screen_box {"x", "y", "width", "height", "frame_w", "frame_h", "screen_w"} (the table screen) -> the GM's pages;
          {"ask": true} (the GM) -> the table screens report again (webapp/live/screens/screenbox.py); nothing is stored
sync      {"since"} -> a fresh copy of the page's live parts
device    {"visible", "seq"?} (a player's page) -> shown or hidden, the last update applied: the GM's players card
          (webapp/live/devices.py); nothing is stored, nothing goes to the players or the table screen

Each takes exactly one argument; anything else is answered with an error. A
connection's events run in the order sent, a few at a time (``lanes``).
"""

from __future__ import annotations

import logging

from flask import request
from flask_socketio import ConnectionRefusedError, join_room

from ..screens import language, screenbox
from ..committing import DATABASE_AWAY
from ..presence import language_room, room
from ...storage.store import DamagedLog, WriteFailed
from ...game.core.model import Rejected
from ...game.core.text import N_, TooDeep, too_deep_message
from .lanes import FAILED, Lanes
from ..screens.language import to_sender

log = logging.getLogger(__name__)

NOT_CONNECTED = N_("not connected to a game")
TOO_MANY = N_("Too many pages are open from this network: close some and try again.")
SEAT_FULL = N_("Too many pages are open with this key (at most %(count)d): close one, and this page joins by itself.")


def said(message: str, **params) -> str:
    """An answer's refusal (``N_``-marked, with its parameters) in the language of the device that sent the event."""
    return to_sender(Rejected(message, **params))


def one_argument(event: str, args: tuple, shape: str):
    """The payload of an event that takes one JSON object, or the error to answer."""
    if len(args) == 1 and isinstance(args[0], TooDeep):  # past what the JSON decoder reads (webapp/game/core/text.py)
        return None, {"ok": False, "error": too_deep_message()}
    if len(args) != 1 or not isinstance(args[0], dict):
        return None, {"ok": False, "error": said(N_("%(event)s takes one JSON object: %(shape)s"), event=event, shape=shape)}
    return args[0], None


def register(socketio, hub, keyless=None) -> None:
    lanes = Lanes(socketio.server, say=hub.presence.said_to)  # the lanes' own refusals, in each sender's language
    boxes = screenbox.Boxes(socketio, room)  # the screens' reports to the GM, bounded and paced (#72)

    def current():
        return hub.presence.session(request.sid)

    def away(event: str, exc: Exception) -> dict:
        """The answer to an event while the database does not answer (tried again on the next one)."""
        log.warning("the database does not answer (%s): %s", event, exc)
        return {"ok": False, "error": said(DATABASE_AWAY), "code": "unavailable"}

    def relay(event: str, args: tuple, shape: str, send) -> dict:
        """A passing event (a drag, a ping): checked, shown to the others, never stored."""
        who = current()
        if who is None:
            return {"ok": False, "error": said(NOT_CONNECTED)}
        payload, refused = one_argument(event, args, shape)
        if refused:
            return refused
        try:
            send(who[0], who[1], payload, request.sid)
        except Rejected as exc:
            return {"ok": False, "error": to_sender(exc)}  # in the sender's language, as a command's refusal
        except DamagedLog as exc:
            return {"ok": False, "error": to_sender(exc)}
        except hub.store.unavailable as exc:
            return away(event, exc)
        return {"ok": True}

    @socketio.on("connect")
    def connect(auth=None):
        if not isinstance(auth, dict):
            raise ConnectionRefusedError("connect with auth={game, token}")
        game_id, key = auth.get("game"), auth.get("token")
        if not isinstance(game_id, str) or not isinstance(key, str):
            raise ConnectionRefusedError("connect with auth={game, token}")
        password = auth.get("password") if isinstance(auth.get("password"), str) else None
        try:
            actor = hub.authenticate(game_id, key, password=password)  # the GM password: this session's proof, or given
            if actor is None:  # before the game is looked up: a made-up id never reaches the database
                held = hub.key_actor(game_id, key)
                if held is not None and held.role == "gm":
                    raise ConnectionRefusedError("this GM key needs the GM password: open the GM page again")
                raise ConnectionRefusedError("that key is not valid for this game")
            game = hub.game(game_id)
        except DamagedLog as exc:
            raise ConnectionRefusedError(to_sender(exc)) from None
        except hub.store.unavailable as exc:  # the page keeps trying (static/js/live.js)
            raise ConnectionRefusedError(away("connect", exc)["error"]) from None
        if keyless is not None and not keyless.admits(request.environ.get("REMOTE_ADDR") or "?"):
            raise ConnectionRefusedError(said(TOO_MANY))  # one address's connections are capped (#57)
        if keyless is not None and keyless.seat_full((game_id, actor.audience)):
            # one seat's connections are capped (#72): the next is refused, those at the table keep theirs
            raise ConnectionRefusedError(said(SEAT_FULL, count=keyless.per_seat))
        lang = language.request_language()  # the handshake's: ?lang=, the lang cookie, Accept-Language (#37)
        hub.fanout.audience_joins(game_id, actor, lang)
        hub.devices.opened(request.sid, game_id, actor)  # a player's device, before the GM's list is drawn again
        join_room(room(game_id, actor.audience))
        join_room(language_room(game_id, actor.audience, lang))  # live updates are drawn once per language
        hub.presence.session_opened(request.sid, game_id, actor, lang)
        if keyless is not None:
            # at a game: no longer closed for being keyless; counted against its seat
            keyless.connected(request.sid, (game_id, actor.audience))
        since = auth.get("since")
        if (isinstance(since, int) and not isinstance(since, bool)
                and since != hub.fanout.shown_seq(game, actor.audience, lang)):
            hub.fanout.resync(game_id, actor, request.sid)
        hub.replays.connected(game_id, actor, request.sid)  # its audience is shown a past moment: so is it

    @socketio.on("disconnect")
    def disconnect(*_args):
        who = hub.presence.session(request.sid)
        lanes.close(request.sid)
        hub.devices.closed(request.sid)  # its seat's link down since now, before the GM's list is drawn again
        hub.devices.reports.forget(request.sid)
        hub.presence.session_closed(request.sid)
        if who is not None:
            hub.replays.left(*who)  # the last page of whoever replays closed: their replay ends (after a grace)

    @socketio.on("command")
    def command(*args):
        who = current()
        if who is None:
            return {"ok": False, "error": said(NOT_CONNECTED)}
        payload, refused = one_argument("command", args, '{"type": ..., ...}')
        if refused:
            return refused
        try:
            done = hub.execute(who[0], who[1], payload, lanes.sending(request.sid))
        except Rejected as exc:
            return {"ok": False, "error": to_sender(exc), **({"code": exc.code} if exc.code else {})}
        except DamagedLog as exc:
            return {"ok": False, "error": to_sender(exc), "code": "damaged_log"}
        except hub.store.unavailable as exc:
            return away("command", exc)
        except WriteFailed as exc:  # committed but not confirmed on the database server's disk (PostgreSQL restarted
            # between the two): never "ok"; sent again, a command with its id is found in the log if it is there
            log.warning("command not confirmed: %s", exc)
            return {"ok": False, "error": to_sender(exc), "code": "not_stored"}
        except Exception:  # never let one bad command take the connection down
            log.exception("command failed: %r", payload)
            return {"ok": False, "error": said(FAILED)}
        return {"ok": True, "seq": done.seq, **done.reply}

    @socketio.on("preview")
    def preview(*args):
        return relay("preview", args, '{"token_id", "x", "y", "done"?}', hub.relays.preview)

    @socketio.on("map_ping")
    def map_ping(*args):
        return relay("map_ping", args, '{"x", "y"}, x and y in squares', hub.relays.ping)

    @socketio.on("template_preview")
    def template_preview(*args):
        return relay("template_preview", args, '{"template_id", "dx", "dy", "done"?}', hub.relays.template_preview)

    @socketio.on("screen_box")
    def screen_box(*args):
        return relay("screen_box", args, '{"x", "y", "width", "height", "frame_w", "frame_h", "screen_w"} or {"ask": true}',
                     lambda game_id, actor, payload, sid: boxes.relay(game_id, actor, payload, hub.game(game_id)))

    @socketio.on("device")
    def device(*args):
        return relay("device", args, '{"visible": true or false, "seq"?: n}', hub.devices.report)

    @socketio.on("sync")
    def sync(*args):
        who = current()
        if who is None:
            return {"ok": False, "error": said(NOT_CONNECTED)}
        if len(args) > 1 or (args and args[0] is not None and not isinstance(args[0], dict)):
            return {"ok": False, "error": said(N_("%(event)s takes one JSON object: %(shape)s"), event="sync",
                                               shape='{"since"?}')}
        try:
            hub.fanout.resync(who[0], who[1], request.sid)
        except DamagedLog as exc:
            return {"ok": False, "error": to_sender(exc), "code": "damaged_log"}
        except hub.store.unavailable as exc:
            return away("sync", exc)
        return {"ok": True}
