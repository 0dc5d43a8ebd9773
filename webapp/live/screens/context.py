"""The context a page or a fragment is rendered with: lazy, each value computed when a template first reads it.

``context`` gives one audience's view of the game (its tokens, log, fight, templates, fog...) as a :class:`Lazy`
mapping whose makers are made once, at import (``_MAKERS``). What several audiences of one update read alike (a
token's badges, its drawing, the newest log lines) is kept in the update's shared dict, so it is made once.
Each screen part declares the values its template reads (``webapp.live.screens.parts``: ``Part.reads``); each is one of
these makers (tests/app/test_screen_parts.py checks it).
"""

from __future__ import annotations


from collections.abc import Callable, Iterator, Mapping
from itertools import islice
from typing import Any

from flask import url_for
from flask_babel import gettext
from markupsafe import Markup

import rules
from rules.text import unpack

from ...game.fight import aiming, defenses, reroll, table_dice, soak
from ...game.views import audience, boardlist
from ...game.bridge import describe, fighting, fog
from ...game.board import editor, handouts, maps, templates, uvtt
from ...game.planning import foeplay, suggestions
from ...game.tableside import screenview
from ...game.core.model import Actor, Game, LogEntry, Rejected
from ...game.board import lighting
from . import drawing, language, token_svg
from .logcard import last_attack, log_section, screen_feed


def picture_of(game: Game, m: "maps.GameMap", actor: Actor | None = None) -> dict | None:
    """The picture layer of a map: where it lies in cells and its address on this server. With fog, a
    player and the table screen are served the picture with what they never saw painted out; its address
    changes with the squares they know, so their browser fetches it again when they have seen more."""
    box = maps.picture_box(m)
    if box is None:
        return None
    box = {k: (v or 0.0) for k, v in box.items()}  # no "-0.0" in the page
    known = fog.known(game, actor) if actor is not None and m.id == game.active_map else None
    seen = {} if known is None else {"seen": format(hash(known) & 0xFFFFFFFF, "x")}
    return box | {"url": url_for("maps.picture", game_id=game.id, name=m.picture["name"], **seen),
                  "width_px": m.picture["width"], "height_px": m.picture["height"]}


class Lazy(Mapping):
    """A template context whose values are computed on first use, then kept.

    Jinja reads a template's names from it one by one (``Template.new_context(ctx, shared=True)``
    takes it as the context's parent without copying it), so a fragment that shows one token
    costs that token, not the whole map's walls, the log, the fight and the templates.
    ``makers``: name -> function of this context giving the value; ``more``: mappings looked up
    after the makers, in order (values known already, the caller's extra values, Jinja's globals).
    """

    __slots__ = ("_makers", "_values", "_more", "_front", "_root", "game", "actor", "shared", "online")

    def __init__(self, makers: dict[str, Callable[["Lazy"], Any]], *more: Mapping) -> None:
        self._makers = makers
        self._values: dict[str, Any] = {}
        self._more = more
        self._front: dict[str, Any] | None = None  # ``with_values``' values, looked up first
        self._root = self  # the context the makers are given (``with_values`` shares its makers and values)

    def __getitem__(self, key: str) -> Any:
        front = self._front
        if front is not None and key in front:
            return front[key]
        values = self._values
        if key in values:
            return values[key]
        maker = self._makers.get(key)
        if maker is not None:
            value = values[key] = maker(self._root)
            return value
        for more in self._more:
            if key in more:
                return more[key]
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        front = self._front
        if (front is not None and key in front) or key in self._values or key in self._makers:
            return True
        for more in self._more:
            if key in more:
                return True
        return False

    def __iter__(self) -> Iterator[str]:
        seen = set()
        for source in ((self._front or {}), self._makers, *self._more):
            for key in source:
                if key not in seen:
                    seen.add(key)
                    yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:  # never empty; and ``if ctx`` must not count every name
        return True

    def with_values(self, values: dict[str, Any]) -> "Lazy":
        """This context with ``values`` in front (a template's ``oob``, the token it draws): the same makers
        and values computed (each computed once, by this context's root, as if read there), no nesting (a
        template's every name looked up through one context, not through each ``with_values`` in turn)."""
        out = Lazy.__new__(Lazy)
        out._makers, out._values, out._more, out._root = self._makers, self._values, self._more, self._root
        out._front = values if self._front is None else {**self._front, **values}
        return out


def _board(game: Game, actor: Actor, shown: str) -> dict:
    """The map's walls, doors, blocking squares, terrain and cover as this audience may know them."""
    if shown == game.active_map:
        return fog.board_view(game, actor)  # fog hides unseen walls
    return maps.map_board(game, shown).to_dict()  # a prepared map is the GM's alone


#: the map this audience's screen draws: the active one, or for the GM the one being prepared (makers of a
#: ``context``: each reads the context's ``game`` and ``actor``)
_MAP_MAKERS: dict[str, Callable[[Lazy], Any]] = {
    "shown_map_id": lambda c: maps.shown_to_gm(c.game) if c.actor.role == "gm" else c.game.active_map,
    "shown_map": lambda c: c.game.maps.get(c["shown_map_id"]) or maps.GameMap(id=c["shown_map_id"], name="", board=None),
    "preparing": lambda c: c["shown_map_id"] != c.game.active_map,
    "board": lambda c: _board(c.game, c.actor, c["shown_map_id"]),
    "zones": lambda c: maps.map_zones(c.game, c["shown_map_id"]) if c["shown_map_id"] in c.game.maps else c.game.zones,
    "picture": lambda c: picture_of(c.game, c["shown_map"], c.actor),
    "map_tokens": lambda c: list(c["shown_map"].tokens.values()) if c["preparing"] else c["tokens"],
    "maps_list": lambda c: maps.summary(c.game) if c.actor.role == "gm" and c.game.maps else [],
    # where things are drawn on the shown map: squares, or pointy / flat hexes (webapp/live/screens/drawing.py)
    "drawing": lambda c: drawing.of(_shown_board(c.game, c["shown_map_id"]).grid),
}


def _newest_log(game: Game, actor: Actor, shared: dict | None, visible: Callable[[], list]) -> list[LogEntry]:
    """The 20 newest log lines this audience may read, newest first; with ``shared``, looked up once per update
    for all the audiences that may read the same lines (``audience.reader``); ``visible``: gives the tokens it sees."""
    key, may_read = audience.reader(game, actor, visible)
    if shared is None:
        return list(islice(audience.newest_log(game, actor, may_read), 20))
    key = ("log lines", *key)
    found = shared.get(key)
    if found is None:
        found = shared[key] = list(islice(audience.newest_log(game, actor, may_read), 20))
    return found


def _shown_board(game: Game, shown: str):
    """The board of the map this screen shows (the active one's if that map is gone)."""
    m = game.maps.get(shown)
    return game.board if m is None or shown == game.active_map or m.board is None else m.board


def context(game: Game, actor: Actor, online: set[str] | None = None, extra: Mapping | None = None,
            fallback: tuple[Mapping, ...] = (), shared: dict | None = None) -> Lazy:
    """Everything a page or a fragment of this audience may show, each value computed when first read;
    ``fallback``: mappings looked up last (Flask's template globals, for fragments); ``shared``: one dict per
    update (``fragments``' ``renders``), where what several audiences read alike is kept for the others.
    The makers are made once (``_MAKERS``: each reads the context's game, actor and shared dict), not per
    audience and update (they were: 45 functions made for each audience of each move)."""
    # the caller's extra values (the join link...) come after ours, as they always did
    ctx = Lazy(_MAKERS, _GIVEN, *((extra,) if extra else ()), *fallback)
    ctx.game, ctx.actor, ctx.shared, ctx.online = game, actor, shared, online
    return ctx


def _area_templates(c: Lazy) -> list:
    game, system = c.game, c["system"]
    return language.words(aiming.area_templates(system)) or (
        # on a zone map a laid template covers a zone: an area weapon fires at it (aiming._zone_template)
        [{"key": "zone", "label": gettext("an area weapon at the template's zone"), "shape": "zone"}]
        if game.zones is not None and system.board == "zones" else [])


def _fog_layer(c: Lazy) -> Callable[[], dict | None]:
    """The fog over the map on this screen: the GM preparing another map sees that map's, not the active one's."""
    game = c.game
    if c["preparing"]:
        return lambda: fog.prepared_layer(maps.map_board(game, c["shown_map_id"]), bool(c["shown_map"].fog))
    actor = c.actor
    return lambda: fog.layer(game, actor)


def _once(c: Lazy, key: tuple, make: Callable[[], Any], per_language: bool = True) -> Any:
    """``make()`` once per update for ``key`` (what is drawn of a token: its words, its badges), kept in the update's
    ``shared`` dict for every audience (``per_language``: for those reading the reader's language; the rules' words
    as they said them are the same for all); on a page (no ``shared``), made at each call. ``key`` names objects by
    ``id``: ``shared`` holds them for the update."""
    shared = c.shared
    if shared is None:
        return make()
    key = (*key, language.reader_language()) if per_language else (*key, None)
    found = shared.get(key, _ABSENT)
    if found is _ABSENT:
        found = shared[key] = make()
    return found


_ABSENT = object()


def _badges(c: Lazy, token) -> list[dict]:
    """The rules' badges of ``token`` as they said them (``fighting.badges``), once per update for every audience."""
    return _once(c, ("badges", id(token)), lambda: fighting.badges(c.game, token), per_language=False)


def _standing(game: Game) -> Callable[[Any], bool]:
    """``fighting.stands`` for this render, each token asked once (every target list of a page asks it)."""
    known: dict[str, bool] = {}

    def standing(token) -> bool:
        if token.id not in known:
            known[token.id] = fighting.stands(game, token)
        return known[token.id]
    return standing


_MAKERS: dict[str, Callable[[Lazy], Any]] = _MAP_MAKERS | {
    "game": lambda c: c.game,
    "actor": lambda c: c.actor,
    "system": lambda c: rules.get(c.game.system),
    "online": lambda c: c.online or set(),
    "tokens": lambda c: fog.visible_tokens(c.game, c.actor),
    "my_tokens": lambda c: [t for t in c["tokens"] if c.actor.player_id and t.owner == c.actor.player_id],
    "players": lambda c: list(c.game.players.values()),
    "log": lambda c: _newest_log(c.game, c.actor, c.shared, lambda: c["tokens"]),  # the 20 newest, newest first
    "screen_feed": lambda c: screen_feed(c.game, c["log"], actor=c.actor),
    "log_section": lambda c: log_section,
    "combat_view": lambda c: fighting.combat_view(c.game, c.actor),
    "settings": lambda c: fighting.settings_of(c.game) if c.actor.role == "gm" else {},
    "templates_view": lambda c: templates.view(c.game, c.actor),
    "area_templates": _area_templates,
    "pending": lambda c: language.words(defenses.pending_view(c.game, c.actor)),  # the defenses in the reader's words
    "soak_offers": lambda c: soak.pending_view(c.game, c.actor),
    "pending_roll": lambda c: language.words(table_dice.pending_view(c.game, c.actor)),  # #59, in the reader's words
    "dice_settings": lambda c: table_dice.settings(c.game),
    "reroll_offer": lambda c: reroll.pending_view(c.game, c.actor),
    "last_attack": lambda c: last_attack(c.game, c.actor),
    # each token's actions asked of the rules once per render (the turn bar and the fight card both show them)
    "actions_of": lambda c: _once_per_token(lambda token, game=c.game: language.words(fighting.actions_now(game, token))),
    "materials": lambda c: editor.materials(c.game) if c.actor.role == "gm" else [],
    "screen_view": lambda c: screenview.view_for(c.game, c.actor),
    "handouts_view": lambda c: handouts.view(c.game, c.actor),
    "lighting_layer": lambda c: lighting.layer(c.game, c.actor, c["shown_map"]) if c["shown_map_id"] in c.game.maps else None,
    "dark_vision": lambda c: lighting.dark_vision(c.game),
    "fog_layer": _fog_layer,
    # what templates call with a token (or two)
    "sheet_of": lambda c: lambda token, game=c.game: fighting.sheet_of(game, token),
    "may_see": lambda c: lambda token, game=c.game, actor=c.actor: fog.may_see(game, actor, token),
    # a token's badges in the reader's words (the rules' once per update, said once per language)
    "badges_of": lambda c: lambda token: _once(c, ("badges", id(token)), lambda: language.words(_badges(c, token))),
    "token_picture": lambda c: lambda token, game=c.game: handouts.token_picture(game, token),
    "token_svg": lambda c: lambda token, oob=False: draw_token(c, token, oob),  # a token's <g> (token_svg.py)
    # the target a list of targets starts on: the nearest foe, never an ally (fighting.first_foe)
    "foe_of": lambda c: lambda who, candidates, game=c.game: fighting.first_foe(game, who, list(candidates), c["tokens"],
                                                                              c["standing"]),
    "standing": lambda c: _standing(c.game),
    # the GM's fight card: every foe down, the fight can end (fighting.no_foe_standing)
    "no_foe_standing": lambda c: fighting.no_foe_standing(c.game),
    # the GM's fight card: a foe's plans on its turn, where the system reckons them (#60)
    "foe_plans_shown": lambda c: c.actor.role == "gm" and suggestions.reckoned(c.game),
    # why a game's foes have no plans (a hex map, a system without a planner...): said beside the switch's place (#67)
    "foe_plans_missing": lambda c: foeplay.missing(c.game) if c.actor.role == "gm" else None,
    # why the "play the foes" switch went off, a refused step's reason in the reader's words (#60)
    "foe_play_reason": lambda c: _foe_play_reason,
    # a player's board as a list (#61), the rules' words in the reader's language: a function, called by the one
    # template that shows it (_board_list.html). A template that includes another copies its context whole (Jinja's
    # get_all: every value here computed), and the list's places are a movement search on the board as the player
    # knows it: each player's whole map drawn (a fog switch) spent half its time on a list nobody drew
    "board_list": lambda c: lambda: language.words(boardlist.view(c.game, c.actor)),
}
#: what every context holds alike
_GIVEN = {
    "groups_of": fighting.action_groups,
    "zone_cover": editor.ZONE_COVER,
    "uvtt_limit": uvtt.MAX_FILE_BYTES,
    "picture_limit": uvtt.MAX_PICTURE_BYTES,
    "light_color": lighting.css_color,
}


def _foe_play_reason(play: dict) -> str:
    """The refusal that turned the "play the foes" switch off (``foeplay.refusal``), in the reader's language."""
    reason = play.get("reason") or {}
    if reason.get("say"):
        return str(language.words(unpack(reason["say"])))
    if reason.get("msgid"):
        params = {k: language.words(unpack(v)) for k, v in (reason.get("params") or {}).items()}
        return language.refusal_text(Rejected(reason["msgid"], **params))
    return reason.get("text", "")


def _once_per_token(ask: Callable[[Any], list]) -> Callable[[Any], list]:
    """``ask(token)``, kept by token id for as long as this function lives (one render's context)."""
    found: dict[str, list] = {}

    def once(token) -> list:
        if token.id not in found:
            found[token.id] = ask(token)
        return found[token.id]

    return once


def token_view(actor: Actor, token) -> str:
    """How ``draw_token`` draws a token for this audience. All it reads of the audience: movable (the GM,
    the token's owner) and mine (the owner); the acting ring (``combat_view.current == token.id``) is the
    same for every audience that may see the token (``combat_view`` leaves out only tokens it may not
    see), and its badges are the game's. So the table screen and the players who do not own it see it alike."""
    if actor.role == "gm":
        return "gm"
    return "mine" if actor.role == "player" and token.owner == actor.player_id else "other"


def draw_token(c: Lazy, token, oob: bool = False) -> Markup:
    """A token's ``<g>`` for this audience in the reader's language (``token_svg``): what is the same in every
    language (``token_svg.look``) made once per update for the audiences that see the token alike (``token_view``),
    its words (its name, place and badges: ``describe.token_name``, ``describe.where``, ``fighting.badges``) made once
    per update and said once per language."""
    view = token_view(c.actor, token)
    key = ("token look", id(token), view, c["shown_map_id"])
    shared = c.shared
    drawn = shared.get(key) if shared is not None else None
    if drawn is None:
        fight, picture = c["combat_view"], handouts.token_picture(c.game, token)
        drawn = token_svg.look(token, view, bool(fight and fight["current"] == token.id),
                               c["drawing"].token_translate(token), picture["url"] if picture else None)
        if shared is not None:
            shared[key] = drawn
    # the rules' words for it once per update (its name holds its wounds and conditions), said in each language
    shown, game = c["shown_map_id"], c.game
    marks = _badges(c, token)
    name = _once(c, ("token name", id(token), shown), lambda: describe.token_name(game, token, c["zones"], marks),
                 per_language=False)
    where = _once(c, ("token where", id(token), shown), lambda: describe.where(token, c["zones"]), per_language=False)
    return token_svg.svg(drawn, token, c["badges_of"](token), *_once(
        c, ("token words", id(token), shown), lambda: (language.words(name), language.words(where))), oob, not c["preparing"])
