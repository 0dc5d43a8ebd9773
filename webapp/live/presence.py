"""Who is at the table now: the Socket.IO connections, the audiences they belong to, the languages they read.

A connection opens with a key (``session_opened``): it is one device of an audience (the GM, the table screen, a
player: ``actor_for_audience``), in the Socket.IO room of that audience and the room of its device's language
(``language_room``: live updates are drawn once per language, #37). What is counted here is what is live now, not
game state: it is never stored. With several processes on the same games (``shared``: Redis), each counts its own
connections here and in Redis, and the audiences and languages asked for are every process's.

A connection ends when it closes, or when the game ends it (``end_sessions``: a player removed or merged, a seat
taken back, the table screen's key changed, the GM link given a password), with a message in its device's language.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Callable

from ..game.core.model import GM, SCREEN, Actor, Event, Game
from ..game.core.text import N_
from .screens import language
from .screens.language import said_in

#: events after which connections end (``end_sessions_for``): their update is rendered once that is done
ENDS_SESSIONS = frozenset({"player_removed", "players_merged", "player_reclaimed"})


def room(game_id: str, audience: str) -> str:
    return f"game:{game_id}:{audience}"


def language_room(game_id: str, audience: str, lang: str) -> str:
    """The room of an audience's devices that read ``lang``: live updates go there (#37)."""
    return f"{room(game_id, audience)}|{lang}"


def actor_for_audience(audience: str) -> Actor:
    if audience.startswith("player:"):
        return Actor("player", audience.split(":", 1)[1])
    return GM if audience == "gm" else SCREEN


def players_in(audiences) -> set[str]:
    """The player ids among audiences ("player:<id>")."""
    return {aud.split(":", 1)[1] for aud in audiences if aud.startswith("player:")}


class Presence:
    def __init__(self, app, socketio) -> None:
        self.app = app
        self.socketio = socketio
        self.shared = None  # with --message-queue: every process's connections, in Redis (``Hub.share``)
        #: told the game id when a player's connections came or went (the GM's list of who is online is drawn again)
        self.players_changed: Callable[[str], None] = lambda game_id: None
        self._guard = threading.Lock()
        # connections per (game, audience); presence is what is live now, not game state
        self._presence: Counter[tuple[str, str]] = Counter()
        # who is on each Socket.IO connection: sid -> (game id, actor)
        self._sessions: dict[str, tuple[str, Actor]] = {}
        # connections per (game, audience, their device's language), and each connection's language (#37)
        self._languages: Counter[tuple[str, str, str]] = Counter()
        self._session_language: dict[str, str] = {}

    # --- connections ------------------------------------------------------

    def session_opened(self, sid: str, game_id: str, actor: Actor, lang: str = "en") -> None:
        with self._guard:
            self._sessions[sid] = (game_id, actor)
            self._session_language[sid] = lang
            self._languages[(game_id, actor.audience, lang)] += 1
        if self.shared is not None:
            self.shared.opened(sid, game_id, actor.audience, lang)
        self.connected(game_id, actor, +1)

    def session_closed(self, sid: str) -> None:
        with self._guard:
            who = self._sessions.pop(sid, None)
            lang = self._session_language.pop(sid, None)
            if who and lang is not None:
                key = (who[0], who[1].audience, lang)
                self._languages[key] -= 1
                if self._languages[key] <= 0:
                    del self._languages[key]
        if who:
            if self.shared is not None:
                self.shared.closed(sid)
            self.connected(who[0], who[1], -1)

    def connected(self, game_id: str, actor: Actor, delta: int) -> None:
        key = (game_id, actor.audience)
        with self._guard:
            self._presence[key] += delta
            if self._presence[key] <= 0:
                del self._presence[key]
        if actor.role == "player":
            self.players_changed(game_id)

    def any_connected(self, game_id: str) -> bool:
        """Whether a socket of this process is connected to the game (it is kept in memory: ``Games.evict_idle``)."""
        with self._guard:
            return any(g == game_id for g, _audience in self._presence)

    def session(self, sid: str) -> tuple[str, Actor] | None:
        """The game and actor of this connection (None: not connected to a game)."""
        with self._guard:
            return self._sessions.get(sid)

    def sessions(self, game_id: str) -> list[tuple[str, Actor]]:
        """The connections to this game in this process: (sid, actor) each."""
        with self._guard:
            return [(sid, actor) for sid, (g, actor) in self._sessions.items() if g == game_id]

    def session_language(self, sid: str, default: str | None = "en") -> str | None:
        """The language of this connection's device (``default`` when it is not connected)."""
        with self._guard:
            return self._session_language.get(sid, default)

    def said_to(self, sid: str, message: str, params: dict | None = None) -> str:
        """A message id (``N_``) with its parameters in the language of this connection's device."""
        lang = self.session_language(sid, None)
        with self.app.app_context():
            return said_in(lang, message, params)

    # --- ending connections -----------------------------------------------

    def end_sessions(self, game_id: str, player_ids, message: str, reload: bool = False,
                     role: str | None = None, params: dict | None = None) -> None:
        """Close the connections of these players now (removed, merged, seat taken on another device),
        or of every connection of a role (``role="screen"``: the screen's key changed). ``message`` is a
        message id (``N_``) with its ``params``: each connection reads it in its own device's language."""
        def ends(audience: str) -> bool:
            actor = actor_for_audience(audience)
            return actor.role == role if role else actor.player_id in player_ids

        said: dict[str, str] = {}

        def notice(lang: str | None) -> dict:
            lang = lang or "en"
            if lang not in said:
                with self.app.app_context():
                    said[lang] = said_in(lang, message, params)
            return {"message": said[lang], "reload": reload}

        with self._guard:
            sids = [(sid, self._session_language.get(sid)) for sid, (g, actor) in self._sessions.items()
                    if g == game_id and ends(actor.audience)]
        for sid, lang in sids:
            self.socketio.emit("ended", notice(lang), to=sid)
            self.socketio.server.disconnect(sid, namespace="/")
            self.session_closed(sid)
        if self.shared is not None:
            # the connections on the other processes: the message queue carries the message and the
            # disconnect to the process that holds each (its disconnect handler then forgets it there);
            # only those opened before now (a seat taken back on a new device keeps the new connection)
            now = time.time()
            for sid, process, audience, opened, member, lang in self.shared.connections(game_id):
                if process != self.shared.process and ends(audience) and opened <= now:
                    self.socketio.emit("ended", notice(lang), to=sid)
                    self.socketio.server.disconnect(sid, namespace="/")
                    self.shared.forget(game_id, member)

    def end_sessions_for(self, game: Game, events: list[Event]) -> None:
        """The connections that committed events end (``ENDS_SESSIONS``), before their update is sent."""
        for event in events:
            d = event.data
            if event.type == "player_removed":
                self.end_sessions(game.id, {d["player_id"]}, N_("The GM took you out of this game."))
            elif event.type == "players_merged":
                self.end_sessions(game.id, {d["player_id"]}, N_("The GM merged your seat with another."), reload=True)
            elif event.type == "player_reclaimed":
                self.end_sessions(game.id, {d["player_id"]},
                                  N_("Your seat was taken back on another device with your name."))

    # --- audiences and languages ------------------------------------------

    def audiences(self, game: Game) -> list[str]:
        """The audiences to render for: those connected to this process; with ``shared``, every audience
        of the game (a client of another process is in its room there; an empty room costs one publish)."""
        if self.shared is not None:
            return ["gm", "screen", *(f"player:{pid}" for pid in game.players)]
        with self._guard:
            return [aud for (g, aud), n in self._presence.items() if g == game.id and n > 0]

    def online(self, game_id: str, audience: str) -> bool:
        """Whether a connection of this audience is open: to this process, or with several, to any."""
        if self.shared is not None:
            return self.shared.audiences(game_id).get(audience, 0) > 0
        with self._guard:
            return self._presence.get((game_id, audience), 0) > 0

    def online_players(self, game_id: str) -> set[str]:
        """The players connected to this game now: to this process, or with ``shared``, to any."""
        if self.shared is not None:
            return players_in(self.shared.audiences(game_id))
        with self._guard:
            return players_in(aud for (g, aud), n in self._presence.items() if g == game_id and n > 0)

    def device_languages(self, game: Game) -> dict[str, set[str]]:
        """The languages each audience's devices read: this process's connections, or with several processes
        (``shared``) every process's (as Redis knows them; every language when it does not answer)."""
        if self.shared is not None:
            return self._every_language_if_unknown(game, self.shared.languages(game.id))
        out: dict[str, set[str]] = {}
        with self._guard:
            for (g, aud, lang), n in self._languages.items():
                if g == game.id and n > 0:
                    out.setdefault(aud, set()).add(lang)
        return out

    def devices_here(self, game_id: str, audience: str) -> list[str]:
        """The languages of this audience's devices connected to this process (one each, repeated)."""
        with self._guard:
            return [device for (g, aud, device), n in self._languages.items()
                    if n > 0 and g == game_id and aud == audience]

    def online_and_languages(self, game: Game) -> tuple[set[str], dict[str, set[str]]]:
        """``online_players`` and ``device_languages``: with ``shared``, from one read of Redis."""
        if self.shared is None:
            return self.online_players(game.id), self.device_languages(game)
        audiences, known = self.shared.presence(game.id)
        return players_in(audiences), self._every_language_if_unknown(game, known)

    def _every_language_if_unknown(self, game: Game, known: dict[str, set[str]] | None) -> dict[str, set[str]]:
        """``shared``'s languages, or every language for every audience when Redis did not answer."""
        return {audience: set(language.CHOOSABLE) for audience in self.audiences(game)} if known is None else known
