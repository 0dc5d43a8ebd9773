"""What passes over the table and is never stored: a token or a template on its way, a ping, an attack's odds.

Each is checked like a command (who may send it, whether it is on the map), shown to the screens that may see it
(with fog, a token dragged into someone's fog is not shown going there) and forgotten. Nothing is appended to the
log, so none of them waits for a commit.
"""

from __future__ import annotations

import math
from typing import Any

from ..game import access
from ..game.fight import attacks
from ..game.bridge import fog
from ..game.core import text
from ..game.core.model import GM, Actor, Rejected
from ..game.core.text import N_
from .screens import language, render
from .server import throttle
from .committing import Committed
from .screens.fanout import Fanout
from .games import Games
from .presence import Presence, actor_for_audience, room

PING_BURST, PING_WINDOW = 3, 1.0  # a seat (a player's every connection together) pings at most 3 times a second


class Relays:
    def __init__(self, app, socketio, games: Games, presence: Presence, fanout: Fanout) -> None:
        self.app = app
        self.socketio = socketio
        self.games, self.presence, self.fanout = games, presence, fanout
        # pings per seat (game and audience: a player's every tab and socket together), not game state
        self.pings = throttle.Window(PING_BURST, PING_WINDOW)

    def preview(self, game_id: str, actor: Actor, payload: Any, sid: str) -> None:
        """A token on its way somewhere: shown to others, never stored.

        Checked like a move: the sender must be allowed to move the token, and the square must be on
        the board (a preview is relayed to every screen, so nothing unchecked goes out)."""
        if isinstance(payload, text.TooDeep):
            raise Rejected(text.too_deep_message())
        if not isinstance(payload, dict):
            raise Rejected(N_("a preview needs token_id, x and y"))
        text.check_payload(payload)
        if set(payload) - {"token_id", "x", "y", "done"}:
            raise Rejected(N_("a preview has token_id, x, y and done only"))
        token_id, x, y, done = payload.get("token_id"), payload.get("x"), payload.get("y"), payload.get("done", False)
        if not isinstance(x, int) or not isinstance(y, int) or isinstance(x, bool) or isinstance(y, bool):
            raise Rejected(N_("a preview needs whole-number x and y"))
        if not isinstance(done, bool):
            raise Rejected(N_("done: must be true or false"))
        game = self.games.get(game_id)
        access.check_command(game, payload, actor, kind="drag_preview")
        token = game.tokens.get(token_id) if isinstance(token_id, str) else None
        if token is None or not fog.may_see(game, actor, token):
            shown = repr(token_id) if isinstance(token_id, str) and len(token_id) <= 64 else "that"
            raise Rejected(N_("no token %(id)s in this game"), id=shown)
        board = game.board
        if not all(board.in_bounds(c) for c in game.cells_of(token, x, y)):  # its 1, 3 or 7 hexes on hexes
            raise Rejected(N_("(%(x)s, %(y)s) is off the map (%(w)s x %(h)s)"), x=x, y=y, w=board.width, h=board.height)
        message = {"token_id": token.id, "x": x, "y": y, "done": done}
        for audience in self.presence.audiences(game):
            watcher = actor_for_audience(audience)
            # with fog, a token dragged into someone's fog is not shown going there
            if fog.may_see(game, watcher, token) and (message["done"] or fog.may_see_at(game, watcher, token, x, y)):
                self.socketio.emit("preview", message, to=room(game_id, audience), skip_sid=sid)

    def ping(self, game_id: str, actor: Actor, payload: Any, sid: str) -> dict:
        """A spot flashed on every screen with the pinger's name: shown, never stored (like a drag preview)."""
        if actor.role == "screen":
            raise Rejected(N_("the table screen only shows the map"))
        if not isinstance(payload, dict):
            raise Rejected(N_("a ping needs x and y"))
        x, y = payload.get("x"), payload.get("y")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (x, y)):
            raise Rejected(N_("a ping needs x and y as numbers"))
        game = self.games.get(game_id)
        if not (0 <= x <= game.board.width and 0 <= y <= game.board.height):
            raise Rejected(N_("(%(x)s, %(y)s) is off the map (%(w)s x %(h)s)"), x=f"{x:g}", y=f"{y:g}",
                           w=game.board.width, h=game.board.height)
        if not self.pings.take(f"{game_id} {actor.audience}"):
            raise Rejected(N_("easy: a few pings a second at most"))
        player = game.players.get(actor.player_id or "")
        message = {"x": round(float(x), 2), "y": round(float(y), 2), "by": player.name if player else "GM"}
        for audience in self.presence.audiences(game):
            self.socketio.emit("map_ping", message, to=room(game_id, audience))
        return message

    def template_preview(self, game_id: str, actor: Actor, payload: Any, sid: str) -> None:
        """A template on its way somewhere (dragged by ``dx``, ``dy`` squares): shown to others, never stored."""
        if actor.role == "screen":
            raise Rejected(N_("the table screen only shows the map"))
        if not isinstance(payload, dict):
            raise Rejected(N_("a template preview needs template_id, dx and dy"))
        game = self.games.get(game_id)
        template = game.templates.get(payload.get("template_id")) if isinstance(payload.get("template_id"), str) else None
        if template is None:
            raise Rejected(N_("no template %(id)s on this map"), id=repr(payload.get("template_id")))
        if actor.role == "player" and template.get("by") != actor.player_id:
            raise Rejected(N_("that template is not yours to move"))
        dx, dy = payload.get("dx"), payload.get("dy")
        reach = game.board.width + game.board.height
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) <= reach
                   for v in (dx, dy)):
            raise Rejected(N_("a template preview needs dx and dy in squares, within the map"))
        message = {"template_id": template["id"], "dx": round(float(dx), 2), "dy": round(float(dy), 2),
                   "done": bool(payload.get("done"))}
        for audience in self.presence.audiences(game):
            self.socketio.emit("template_preview", message, to=room(game_id, audience), skip_sid=sid)

    def preview_attack(self, game_id: str, actor: Actor, cmd) -> Committed:
        """An attack as it would be, with its odds: answered to the sender and shown to the GM; nothing stored."""
        with self.games.lock(game_id):
            game = self.games.get(game_id)
            if game is None:
                raise Rejected(N_("no game %(id)s"), id=repr(game_id))
            view = attacks.preview(game, cmd, actor)
            with self.app.app_context():
                html = render.attack_preview(game, actor, view)
            if actor.role != "gm":
                for lang, to in self.fanout.language_groups(game, "gm").items():  # in each of the GM's devices' languages
                    with self.app.app_context(), language.speaking(lang):
                        gm_html = render.attack_preview(game, GM, view, echo=True)
                    self.socketio.emit("attack_preview", {"html": gm_html, "view": view}, to=to if len(to) > 1 else to[0])
            return Committed(game.seq, [], {"preview": view, "html": html})
