"""Fan-out: what the screens are sent once a change is committed, drawn per audience and per language.

An update is drawn for each audience connected (the GM, the table screen, each player: ``Presence.audiences``), once
per language its devices read (#37), and sent to each language's room. What several audiences see alike is drawn
once (``render.view_key``), and audiences whose whole update is the same html get one message. Players and the table
screen hear of a change only when they can see it (#25: ``quiet``); what each was sent is kept (``shown``), so the
next update says only what changed since. The other screens hear first, the GM's (who made most changes, and sees
them already) last (docs/SERVING.md). Nothing is sent before its events are committed (``first``, ``committed``);
a state dropped before it was stored is followed by a fresh copy of the log's state (``send_fresh_copies``).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Callable

from ...game.bridge import heavy
from ...game.tableside import screenview
from ...game.core.model import Actor, Event, Game
from ...storage.store import Appending
from ..server import geometry
from . import language, render
from ..games import Games
from ..presence import Presence, actor_for_audience, language_room

log = logging.getLogger(__name__)

#: the key in an update's shared renders (``render.fragments``' ``renders``) of what it reads once for all its parts
_READ_ONCE = ("hub: read once per update",)


@dataclass
class Update:
    """One update rendered for every audience and not sent yet (``Fanout.render_update``)."""

    seq: int
    rooms: dict  # (html, from seq) -> the rooms it goes to
    shown: dict  # (game, audience) -> (seq, parts sent): ``Fanout._shown`` once it is sent


def _to_the_gm(message: tuple) -> bool:
    """Whether an update's message (``(html, from seq), rooms``) goes to the GM's room (sent last)."""
    return any(r.partition("|")[0].endswith(":gm") for r in message[1])  # its language's room (language_room)


class Fanout:
    def __init__(self, app, socketio, games: Games, presence: Presence, links, replaying: Callable[[str, str], bool]):
        """``links``: the join link and the server's address (``GmAccess``); ``replaying(game id, audience)``:
        whether an audience is shown a past moment (``Replays``: it hears no live update then)."""
        self.app = app
        self.socketio = socketio
        self.shared = None  # with --message-queue: every audience is drawn, each process sends its own
        self.games, self.presence, self.links, self.replaying = games, presence, links, replaying
        self.devices = None  # the players' devices as the GM sees them (``Devices``): told what each update went to
        self._guard = threading.Lock()
        # (game, audience, language) -> (seq of the last update sent, part -> digest of its html): see quiet
        self._shown: dict[tuple[str, str, str], tuple[int, dict]] = {}
        #: game -> the GM's language for its screen (``_screen_language_now``)
        self._screen_languages: dict[str, str | None] = {}

    # --- after a commit ---------------------------------------------------

    def committed(self, game: Game, before: int, events: list[Event], update: Update | None, early: int | None) -> None:
        """The update for the events committed after ``before``: ``update`` when it was drawn already (ahead of
        the write's end: ``Committing.store_and_render``), else drawn now; ``early``: the seq the screens other than
        the GM's were sent already (``first``): the rest to them, the whole to the GM."""
        if update is not None:
            self.send_update(update)
        elif early is None:
            self.broadcast(game, before, events)
        else:
            audiences, rest = self.presence.audiences(game), events[early - before:]
            others = [a for a in audiences if a != "gm"]
            if rest and others:
                self.emit(game, render.changes_for(rest, game), before=early, only=others)
            if "gm" in audiences:
                self.emit(game, render.changes_for(events, game), before=before, only=["gm"])

    def first(self, game: Game, changes: set[str], before: int, others: list[str], renders: dict,
              writing: Appending) -> bool:
        """The update to ``others`` (every audience but the GM's), drawn, then sent once the events are committed
        (``writing.finish()``: SQLite's are already; PostgreSQL's answer is read now, the server having committed
        while this was drawn; raises as ``Store.append``, and nothing is sent), heard before the GM's part is drawn:
        the GM made most changes and sees them on the GM page already, the others wait for them. True when
        something was sent (the GM's part is then drawn on its own, with ``renders``: the update's shared renders);
        False: nobody else is here, draw the GM's with the rest."""
        if not others:
            writing.finish()
            return False
        if writing.committed:  # SQLite: each language's part heard as soon as it is drawn
            self.render_update(game, changes, before, only=others, renders=renders, each=self.send_now)
        else:  # PostgreSQL: drawn while the server commits, heard once its answer says it did
            update = self.render_update(game, changes, before, only=others, renders=renders)
            writing.finish()
            self.send_now(update)
        return True

    def send_fresh_copies(self, game_id: str) -> None:
        """After a batch's state was dropped (not stored): for the moment between its decision and its write
        the state in memory was ahead of the log, and a page rendered then may show it (and carry its seq).
        Every screen gets a fresh copy of the state the log holds (``from_seq`` null), so none keeps it."""
        try:
            game = self.games.get(game_id)
            if game is not None:
                self.emit(game, render.EVERYTHING, before=None)
        except self.games.store.unavailable as exc:  # nothing was sent of it then; the screens' next update reads the log
            log.warning("game %s: no fresh copy, the database does not answer (%s)", game_id, exc)
        except Exception:
            log.exception("game %s: no fresh copy after a commit that was not stored", game_id)

    def players_changed(self, game_id: str) -> None:
        """A player's connections came or went: the GM's list of who is online (and the turn's phone), drawn again."""
        game = self.games.get(game_id)
        with self.games.lock(game_id):
            self.emit(game, {"players", "turn_device"}, only=["gm"], before=game.seq)

    def devices_changed(self, game_id: str) -> None:
        """A player's device changed state (shown, hidden, behind, its link down or gone: webapp/live/devices.py):
        the GM's players card and the fight card's turn line, drawn again for the GM alone."""
        if not self.presence.online(game_id, "gm"):
            return  # the GM's page, opened, draws them as they are then
        game = self.games.get(game_id)
        if game is not None:  # from the devices' own greenlet: links in the GM's list need a request to be built
            with self.app.test_request_context(base_url=self.links.base_url()), self.games.lock(game_id):
                self.emit(game, {"players", "turn_device"}, only=["gm"], before=game.seq)

    def presence_changed(self, game_id: str) -> None:
        """Connections to a game came or went without a word from them (their process was killed):
        the GM's list of who is online is drawn afresh."""
        game = self.games.get(game_id)
        if game is not None:  # from the heartbeat thread: links in the GM's list need a request to be built
            with self.app.test_request_context(base_url=self.links.base_url()), self.games.lock(game_id):
                self.emit(game, {"players", "turn_device"}, only=["gm"], before=game.seq)

    # --- drawing and sending ----------------------------------------------

    def broadcast(self, game: Game, before: int, events: list[Event]) -> None:
        self.emit(game, render.changes_for(events, game), before=before)

    def emit(self, game: Game, changes: set[str], before: int | None, only: list[str] | None = None) -> None:
        """Each audience's fragments to its room (``render_update``, then ``send_update``)."""
        self.send_update(self.render_update(game, changes, before, only))

    def shown_to_all(self, game_id: str) -> render.Lazy:
        """What every audience's fragments may show besides the game, read once per update and only
        if a fragment shows it (the join code is in the database)."""
        read: dict = {}

        def shown(c, name: str):
            if not read:
                read.update(self.links.join_info(game_id))
            return read[name]
        devices = self.devices
        return render.Lazy({**{name: functools.partial(shown, name=name) for name in ("join_code", "join_url", "join_qr")},
                            # the players' devices (the GM's players card): this process's, as they are now
                            "devices": lambda c: devices.summary(game_id) if devices is not None else {}})

    def render_update(self, game: Game, changes: set[str], before: int | None, only: list[str] | None = None,
                      renders: dict | None = None, each: Callable[[Update], None] | None = None) -> Update:
        """Each audience's fragments, not sent yet and nothing noted as sent: a fragment several audiences see
        alike is rendered once (``render.view_key``), and what is the same for all (join link, who is online)
        is read once. Audiences whose whole update is the same html (players who see the same) get one message
        sent to all their rooms at once (encoded once, published once). Holding the game's lock (so what is
        noted as shown to each audience does not change before ``send_update``). ``renders``: the update's
        shared renders (``render.fragments``), when another part of the same update was drawn already.
        ``each``: given each language's part as soon as it is drawn (its devices hear it while the next language
        is drawn: the languages read by the most devices first); what is returned then holds nothing more."""
        renders = {} if renders is None else renders
        # read once per update, for its first part and the GM's drawn after it (with ``shared``: one read of Redis)
        found = renders.get(_READ_ONCE)
        if found is None:
            found = renders[_READ_ONCE] = (self.shown_to_all(game.id), *self.presence.online_and_languages(game))
        extra, online, known = found
        rooms: dict[tuple, list[str]] = {}  # (html, from seq) -> the rooms it goes to, in the order first rendered
        shown: dict[tuple, tuple] = {}  # (game, audience) -> what it will have been sent (``self._shown``)
        # once per language each audience's devices read (#37): the parts each language shares with another
        # audience are still rendered once (render.view_key holds the language); drawn language by language, so
        # the reader's language is entered once per language, not once per audience
        with self.app.app_context(), contextlib.ExitStack() as speaking:
            drawn = []
            for audience in only or self.presence.audiences(game):
                if self.replaying(game.id, audience):
                    continue  # shown a past moment: the present comes back whole with "back to the table"
                if audience == "screen":
                    self._screen_language_now(game)
                drawn += [(lang, audience, to) for lang, to in self.language_groups(game, audience, known).items()]
            # the language most devices read first (rooms: one per language an audience's devices read), so with
            # ``each`` most devices hear it soonest; stable: each language's audiences in their order
            rooms_of: Counter = Counter()
            for lang, _audience, to in drawn:
                rooms_of[lang] += len(to)
            drawn.sort(key=lambda d: (-rooms_of[d[0]], d[0]))
            said = None  # the language spoken now: entered again only when the next audience reads another
            # on a big map each audience's drawing may take tens of ms (its known walls, its fog): the other
            # tables' greenlets run first between two (#57; the game's lock is held, so this game waits)
            big = heavy.leaves_loop(game.board)
            for n, (lang, audience, to) in enumerate(drawn):
                if big and n:
                    geometry.pause()
                if each is not None and lang != said and rooms:  # the language before this one is drawn: off it goes
                    each(Update(game.seq, rooms, shown))
                    rooms, shown = {}, {}
                key = (game.id, audience, lang)
                quiet = self.quiet(audience) and before is not None
                from_seq, sent = self._shown.get(key, (before, {})) if quiet else (before, None)
                if sent is not None:
                    sent = dict(sent)  # render.fragments notes in it what it sends: the record changes once sent
                if lang != said:
                    speaking.close()
                    speaking.enter_context(language.speaking(lang))
                    said = lang
                html = render.fragments(game, actor_for_audience(audience), changes, online=online,
                                        extra=extra, renders=renders, since=before, sent=sent)
                if quiet:
                    if not html:  # nothing this audience can see changed: it hears nothing now
                        shown[key] = (from_seq, sent)
                        continue
                    shown[key] = (game.seq, sent)
                elif self.quiet(audience):  # a fresh copy of everything: what was sent before no longer counts
                    shown[key] = (game.seq, {})
                rooms.setdefault((html, from_seq), []).extend(to)
            if each is not None:
                each(Update(game.seq, rooms, shown))
                rooms, shown = {}, {}
        return Update(game.seq, rooms, shown)

    def send_update(self, update: Update) -> None:
        """Each message to its rooms, the GM's last: most changes are the GM's own, on the GM's screen already,
        and a socket write that wakes its reader costs a while (docs/SERVING.md): the other screens hear first."""
        self._shown.update(update.shown)
        for (html, from_seq), to in sorted(update.rooms.items(), key=_to_the_gm):
            self.socketio.emit("update", {"seq": update.seq, "from_seq": from_seq, "html": html},
                               to=to if len(to) > 1 else to[0])
            if self.devices is not None:  # a player's page there has it to apply (else it is behind)
                self.devices.sent(update.seq, to)

    def send_now(self, update: Update) -> None:
        """Send a part of an update now (``render_update``'s ``each``: one language's, while the next is drawn)."""
        self.send_update(update)
        self.socketio.sleep(0)  # the sockets' writers run now (gevent), not after what is drawn next

    # --- languages --------------------------------------------------------

    def group_language(self, game: Game, audience: str, device: str) -> str:
        """The language an audience's device is drawn in: the table screen's is the GM's choice for it
        (``screenview.screen_language``), else the device's own (its handshake's ``lang`` cookie or browser)."""
        if audience == "screen":
            return screenview.screen_language(game) or device
        return device

    def language_groups(self, game: Game, audience: str,
                        known: dict[str, set[str]] | None = None) -> dict[str, list[str]]:
        """Each language this audience is drawn in, with the rooms of the devices that read it (``known``: the
        update's ``device_languages``, read once for all its audiences)."""
        devices = sorted((known if known is not None else self.presence.device_languages(game)).get(audience, ()))
        groups: dict[str, list[str]] = {}
        for device in devices or ["en"]:
            group = self.group_language(game, audience, device)
            groups.setdefault(group, []).append(language_room(game.id, audience, device))
        return groups

    def _screen_language_now(self, game: Game) -> None:
        """What the table screen was sent is kept per language it is drawn in; when the GM chooses another
        language for it (or none: its devices' own), its devices may be in a group whose record is from before
        (the language they read until the last change but one): each record of the screen goes, so the
        screen's next update carries everything it shows."""
        now = screenview.screen_language(game)
        if self._screen_languages.get(game.id, now) != now:
            with self._guard:
                for key in [k for k in self._shown if k[0] == game.id and k[1] == "screen"]:
                    del self._shown[key]
        self._screen_languages[game.id] = now

    # --- what each audience was shown ---------------------------------------

    def quiet(self, audience: str) -> bool:
        """Whether this audience hears of changes only when it can see them (#25: an update sent at once for
        a change in the fog told a player that something happened there). Players and the table screen, in
        one process; with several processes (``shared``) each sends its own updates, so every update goes
        to every audience as before."""
        return audience != "gm" and self.shared is None

    def audience_joins(self, game_id: str, actor: Actor, lang: str = "en") -> None:
        """Before a connection joins its audience's room: when it is the audience's first in this process,
        what the audience was sent before no longer counts (its screens may have missed updates while none
        was here); its record starts again from the page the connection brings, the state now."""
        if not self.quiet(actor.audience):
            return
        game = self.games.get(game_id)
        if game is None:
            return
        group = self.group_language(game, actor.audience, lang)
        if any(self.group_language(game, actor.audience, device) == group
               for device in self.presence.devices_here(game_id, actor.audience)):
            return
        with self.games.lock(game_id), self.app.app_context(), language.speaking(group):
            sent: dict = {}
            render.note_shown(game, actor, sent, online=self.presence.online_players(game_id),
                              extra=self.shown_to_all(game_id))
            self._shown[(game_id, actor.audience, group)] = (game.seq, sent)

    def forget_shown(self, game_id: str, audience: str) -> None:
        """This audience's screens were just sent everything afresh (back from a replay): its record of what
        they show starts again from the state now."""
        if not self.quiet(audience):
            return
        game = self.games.get(game_id)
        with self.games.lock(game_id), self.app.app_context():
            for group in self.language_groups(game, audience):
                with language.speaking(group):
                    sent: dict = {}
                    render.note_shown(game, actor_for_audience(audience), sent,
                                      online=self.presence.online_players(game_id), extra=self.shown_to_all(game_id))
                    self._shown[(game_id, audience, group)] = (game.seq, sent)

    def shown_seq(self, game: Game, audience: str, lang: str | None = None) -> int:
        """The seq this audience's screens are at: that of the last update it was sent (a page rendered now
        carries it, so the next update, which starts there, is taken); ``lang``: the device's language
        (default: the request's)."""
        group = self.group_language(game, audience, lang or language.request_language())
        found = self._shown.get((game.id, audience, group)) if self.quiet(audience) else None
        return game.seq if found is None else found[0]

    def resync(self, game_id: str, actor: Actor, sid: str) -> None:
        """Send one client everything it shows, fresh (after a gap or a reconnect)."""
        game = self.games.get(game_id)
        device = self.presence.session_language(sid)
        with self.games.lock(game_id), self.app.app_context(), \
                language.speaking(self.group_language(game, actor.audience, device)):
            html = render.fragments(game, actor, render.EVERYTHING, online=self.presence.online_players(game_id),
                                    extra=self.shown_to_all(game_id))
            self.socketio.emit("update", {"seq": self.shown_seq(game, actor.audience, device), "from_seq": None,
                                          "html": html}, to=sid)
