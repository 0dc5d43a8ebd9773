"""The live table over Socket.IO: connect with a key, send commands, drag previews.

connect   auth={"game", "token", "since"?}; a bad key is refused.
command   {"type": ..., ...} -> ack {"ok": true, "seq"} or {"ok": false, "error"}
preview   {"token_id", "x", "y", "done"?} -> others see it; nothing is stored
sync      {"since"} -> a fresh copy of the page's live parts
"""

from __future__ import annotations

import logging

from flask import request
from flask_socketio import ConnectionRefusedError, join_room

from ..hub import room
from ..table import Rejected

log = logging.getLogger(__name__)


def register(socketio, hub) -> None:
    def current():
        return hub.session(request.sid)

    @socketio.on("connect")
    def connect(auth=None):
        if not isinstance(auth, dict):
            raise ConnectionRefusedError("connect with auth={game, token}")
        game_id, key = auth.get("game"), auth.get("token")
        if not isinstance(game_id, str) or not isinstance(key, str):
            raise ConnectionRefusedError("connect with auth={game, token}")
        password = auth.get("password") if isinstance(auth.get("password"), str) else None
        actor = hub.authenticate(game_id, key, password=password)  # the GM password: this session's proof, or given
        if actor is None:
            held = hub.key_actor(game_id, key)
            if held is not None and held.role == "gm":
                raise ConnectionRefusedError("this GM key needs the GM password: open the GM page again")
            raise ConnectionRefusedError("that key is not valid for this game")
        join_room(room(game_id, actor.audience))
        hub.session_opened(request.sid, game_id, actor)
        since = auth.get("since")
        game = hub.game(game_id)
        if isinstance(since, int) and not isinstance(since, bool) and since != game.seq:
            hub.resync(game_id, actor, request.sid)

    @socketio.on("disconnect")
    def disconnect(*_args):
        hub.session_closed(request.sid)

    @socketio.on("command")
    def command(payload=None):
        who = current()
        if who is None:
            return {"ok": False, "error": "not connected to a game"}
        try:
            done = hub.execute(who[0], who[1], payload)
        except Rejected as exc:
            return {"ok": False, "error": str(exc), **({"code": exc.code} if exc.code else {})}
        except Exception:  # never let one bad command take the connection down
            log.exception("command failed: %r", payload)
            return {"ok": False, "error": "the server could not do that (see its log)"}
        return {"ok": True, "seq": done.seq, **done.reply}

    @socketio.on("preview")
    def preview(payload=None):
        who = current()
        if who is None:
            return {"ok": False, "error": "not connected to a game"}
        try:
            hub.preview(who[0], who[1], payload, request.sid)
        except Rejected as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True}

    @socketio.on("sync")
    def sync(_payload=None):
        who = current()
        if who is None:
            return {"ok": False, "error": "not connected to a game"}
        hub.resync(who[0], who[1], request.sid)
        return {"ok": True}
