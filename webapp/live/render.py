"""Render what an audience sees, for the page and for live updates.

The page and the live update use the same partial templates: a partial
rendered with ``oob=True`` carries ``hx-swap-oob`` and replaces its twin on
the page. SVG partials are wrapped in ``<template><svg>`` so the browser
parses them as SVG (htmx's out-of-band swap docs).

One update goes to many audiences: the context is lazy (a fragment computes
only what its template reads), and a part whose html is the same for several
audiences (``view_key``) is rendered once per update and sent to each.
"""

from __future__ import annotations

import hashlib
import re

import threading
from collections import ChainMap
from types import SimpleNamespace
from itertools import islice
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jinja2
from flask import current_app, g, has_request_context, request, url_for
from flask_babel import gettext
from jinja2.utils import missing
from markupsafe import Markup

import rules

from ..game import (attacks, audience, characters, combat, describe, editor, fog, handouts, maps, reroll, screenview, soak,
                    templates, uvtt)
from ..game.model import Actor, Event, Game, LogEntry
from ..game.text import N_
from ..game import lighting
from .. import seams
from . import drawing, language, token_svg
from .token_svg import escape

#: what a screen shows that can change, by the name used in ``changes``
PARTS = {
    # name: (template, svg?, audiences that show it)
    "tokens": ("_tokens.html", True, {"gm", "player", "screen"}),
    "walls": ("_walls.html", True, {"gm", "player", "screen"}),
    "token_list": ("_token_list.html", False, {"gm"}),
    "my_tokens": ("_my_tokens.html", False, {"player"}),
    "players": ("_players.html", False, {"gm"}),
    "add_token": ("_add_token.html", False, {"gm"}),
    "join_toggle": ("_join_toggle.html", False, {"gm"}),
    "join_banner": ("_join_banner.html", False, {"screen"}),
    "log": ("_log.html", False, {"gm", "player"}),
    "combat": ("_combat.html", False, {"gm", "player", "screen"}),
    # a player's sticky "Your turn" bar (the turn's usual actions, End my turn); follows "combat"
    "turn_bar": ("_turn_bar.html", False, {"player"}),
    "settings": ("_settings_panel.html", False, {"gm"}),
    "attack": ("_attack.html", False, {"gm", "player"}),
    # the whole map (another map shown, a picture set): the <svg> itself, so not wrapped
    "map": ("_map.html", False, {"gm", "player", "screen"}),
    "gm_map": ("_map.html", False, {"gm"}),  # the GM looks at another map; the others see no change
    "maps": ("_maps_panel.html", False, {"gm"}),
    "templates": ("_templates.html", True, {"gm", "player", "screen"}),
    "template_list": ("_template_list.html", False, {"gm", "player"}),
    # the newest attack's result: the table screen's, and a player's for attacks by or on their tokens
    "result_card": ("_result_card.html", False, {"screen", "player"}),
    # the table screen's newest public rolls and attacks, beside the map
    "feed": ("_screen_feed.html", False, {"screen"}),
    # the choice for the defender's player and the GM; "waiting for..." for the attacker and the table
    "defense_prompt": ("_defense_prompt.html", False, {"gm", "player", "screen"}),
    # a Soak roll a wounded Wild Card may spend a Benny on: its player's, and the GM's for anyone
    "soak_prompt": ("_soak_prompt.html", False, {"gm", "player"}),
    # a Benny reroll a Wild Card's missed attack may take: its player's, and the GM's for anyone
    "reroll_prompt": ("_reroll_prompt.html", False, {"gm", "player"}),
    "fog": ("_fog.html", True, {"gm", "player", "screen"}),
    # lights and darkness over the map (under the fog), and the GM's lighting panel (webapp/game/lighting.py)
    "lighting": ("_lighting.html", True, {"gm", "player", "screen"}),
    "lighting_panel": ("_lighting_panel.html", False, {"gm"}),
    # the map's picture: with fog, a player's and the table's are painted out where they never saw
    "picture": ("_map_picture.html", True, {"player", "screen"}),
    "editor": ("_editor_toolbar.html", False, {"gm"}),
    # the touch table: the GM's switch, the table screen's mark (webapp/game/touch.py)
    "screen_touch": ("_screen_touch.html", False, {"gm", "screen"}),
    # what the GM has the table screen show (webapp/game/screenview.py): the screen applies it, the GM's page
    # draws its outline; sent again when the followed token comes into the screen's view or leaves it
    "screen_view": ("_screen_view.html", False, {"gm", "screen"}),
    # hand-outs (#27): the GM's card, a phone's panel, the table screen's sheet over the map
    "handouts": ("_handouts.html", False, {"gm", "player", "screen"}),
    # the X-card (webapp/game/safety.py): a phone's button or "paused", the GM's notice, the screen's calm card;
    # the same for every audience of a kind (nobody's is about who tapped)
    "pause": ("_pause.html", False, {"gm", "player", "screen"}),
    # the recap (#36): the GM's card, and the table screen's recap over the map while the GM shows it
    "recap_screen": ("_recap_screen.html", False, {"gm", "screen"}),
}
#: parts drawn inside the map: a fresh map brings them along
_IN_MAP = {"tokens", "walls", "templates", "fog", "picture", "lighting"}
EVERYTHING = frozenset(PARTS)

#: who is under a template changes when a token comes, goes, moves or hides
_UNDER = ("templates", "template_list")

_BY_EVENT = {
    "token_moved": {"reroll_prompt", "log", "fog", *_UNDER},
    "token_added": {"tokens", "token_list", "my_tokens", "combat", "attack", "log", "fog", "maps", *_UNDER},
    "token_updated": {"tokens", "token_list", "my_tokens", "combat", "attack", "fog", *_UNDER},
    "token_removed": {"reroll_prompt", "tokens", "token_list", "my_tokens", "combat", "attack", "log", "fog", "maps", *_UNDER},
    "door_set": {"walls", "log", "fog", *_UNDER},
    "join_shown": {"join_toggle", "join_banner"},
    "player_joined": {"players", "token_list", "add_token", "log", "handouts"},
    "player_reclaimed": {"players", "log"},
    "player_removed": {"players", "token_list", "add_token", "tokens", "my_tokens", "attack", "log", "fog", "handouts"},
    "players_merged": {"players", "token_list", "add_token", "tokens", "my_tokens", "attack", "log", "fog", "handouts"},
    "reclaim_allowed": {"players", "log"},
    "seat_asked": {"players", "log"},
    "seat_answered": {"players", "log"},
    "game_created": set(EVERYTHING),
    "dice_rolled": {"log", "feed"},
    "gm_password_set": {"log"},
    "settings_set": {"settings", "log"},
    # the current actor is drawn on the map, so a turn changes the tokens too
    "combat_started": {"reroll_prompt", "combat", "tokens", "log", "feed"},  # the rules may roll (initiative, cards...)
    "turn_started": {"reroll_prompt", "combat", "tokens", "log", "feed"},
    "order_set": {"combat", "log"},
    "combat_ended": {"reroll_prompt", "combat", "tokens", "log"},
    "acted": {"reroll_prompt", "combat", "tokens", "log", "feed"},
    "undone": set(EVERYTHING),  # an undo may restore any part
    "attack_resolved": {"log", "tokens", "token_list", "my_tokens", "combat", "result_card", "feed", "defense_prompt",
                        "soak_prompt", "reroll_prompt",
                        *_UNDER},
    "defense_asked": {"reroll_prompt", "log", "defense_prompt"},
    "soak_rolled": {"log", "tokens", "token_list", "my_tokens", "combat", "soak_prompt", "feed", "reroll_prompt"},
    "soak_declined": {"log", "soak_prompt", "reroll_prompt"},
    "benny_rerolled": {"log", "tokens", "token_list", "my_tokens", "combat", "result_card", "feed", "reroll_prompt",
                       "soak_prompt", *_UNDER},
    "reroll_declined": {"log", "reroll_prompt"},
    "defense_dropped": {"reroll_prompt", "log", "defense_prompt"},
    "template_placed": {"log", "attack", *_UNDER},
    "template_moved": {"log", *_UNDER},
    "template_removed": {"log", "attack", *_UNDER},
    "character_added": {"log", "tokens", "token_list", "my_tokens", "attack"},
    "sheet_updated": {"log", "tokens", "attack"},
    # the map editor: what is drawn on the board changes what tokens see (and the maps panel counts walls and doors)
    **{kind: {"walls", "fog", "log", *_UNDER} for kind in (
        "cell_blocked", "cell_unblocked", "terrain_set", "cover_added", "cover_removed")},
    **{kind: {"walls", "fog", "log", "maps", *_UNDER} for kind in (
        "wall_added", "wall_removed", "door_added", "door_removed")},
    **{kind: {"map", "log", "editor", "add_token", "combat", "attack", "maps"} for kind in (
        "map_resized", "zone_added", "zone_updated", "zone_removed", "zones_linked", "fog_set")},
    "cells_revealed": {"fog", "tokens", "log", "combat", "attack", *_UNDER},
    "cells_hidden": {"fog", "tokens", "log", "combat", "attack", *_UNDER},
    "map_added": {"maps", "log"},
    "map_renamed": {"maps", "log"},
    "map_removed": {"maps", "log"},
    "map_imported": {"maps", "log"},
    **{kind: {"lighting", "lighting_panel", "fog", "maps", "log"} for kind in lighting.EVENTS},
    "map_activated": set(EVERYTHING),  # another board, other tokens: every part may change
    "map_viewed": {"gm_map", "maps", "editor"},  # the editor's tools are the map's on the GM's screen
    "picture_set": {"map", "maps", "log"},
    "picture_aligned": {"map", "maps"},
    "screen_touch_set": {"screen_touch", "log"},
    "screen_view_set": {"screen_view"},
    **{kind: {"handouts", "log"} for kind in ("handout_added", "handout_shown", "handout_hidden", "handout_removed")},
    "picture_added": {"token_list"},
    "scene_paused": {"pause"},
    "scene_resumed": {"pause"},
    "recap_shown": {"recap_screen", "log"},
}


def changes_for(events: list[Event], game: Game | None = None) -> set[str]:
    """The parts of the screens that these events change (``game``: the state after them).

    A move changes one token: it is sent as that token alone (``token:<id>``),
    so a token someone else is dragging at that moment is left alone. Who is under a
    template changes only where there is a template: with none on the map (and no event
    that lays, moves or takes one, or may restore one), the templates are not sent again.
    """
    changes: set[str] = set()
    under_only = game is not None and not game.templates
    for event in events:
        parts = _BY_EVENT.get(event.type)
        if parts is None or parts == EVERYTHING or event.type.startswith("template_"):
            under_only = False
        changes |= _BY_EVENT.get(event.type, set(EVERYTHING))
        if event.type == "token_updated" and "light" in event.data.get("changes", {}):
            changes.add("log")  # a token's light is logged (webapp/game/tokens.py)
        if event.type == "token_moved":
            changes.add(f"token:{event.data['token_id']}")
            if "fight" in event.data:  # the rules booked it: moves left, free attacks offered
                changes.add("combat")
                if event.data["fight"].get("turn"):  # the move passed the turn: the acting ring moves
                    changes.add("tokens")
    if "map" in changes or (changes & {"tokens", "fog"} and (game is None or screenview.current(game)["follow"])):
        changes.add("screen_view")  # the followed token hidden, shown, or out of the screen's view
    if "tokens" in changes:
        changes = {c for c in changes if not c.startswith("token:")}
    if "combat" in changes:  # the turn bar shows the same turn
        changes.add("turn_bar")
    if "map" in changes or ("fog" in changes and (game is None or not _lit_alike(game))):
        changes.add("lighting")  # what is lit (a torch moved, a door opened) and seen goes with it
    if "map" in changes or "gm_map" in changes:  # the GM's lighting panel is the shown map's
        changes.add("lighting_panel")
    if under_only:
        changes -= set(_UNDER)
    return changes


def _lit_alike(game: Game) -> bool:
    """Whether the lighting layer of every screen stays as it is, whatever tokens, doors, walls or the fog do: the
    map each screen shows (the active one, the GM's prepared one) is in bright light, where that layer is nothing
    for players and the table screen and the map's own lights for the GM (``lighting.layer``). What changes that
    (a light, the ambient light, another map) comes with a ``lighting`` part of its own (``_BY_EVENT``)."""
    for map_id in {game.active_map, maps.shown_to_gm(game)}:
        m = game.maps.get(map_id)
        if m is not None and m.ambient != "bright":
            return False
    return True


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


#: each log entry's ``<li>`` as rendered (``_log_entry.html``), by ``id(entry)`` and language: an entry never
#: changes once logged (``table._log`` appends new ones; an undo logs a line of its own, a reload makes new
#: entries) and its html depends on nothing but the entry and the reader's language, so a move renders its own
#: line, not the twenty shown. The entry is kept beside its html, so its id is not reused by another while it is here.
_log_items: dict[tuple[int, str], tuple[LogEntry, jinja2.Template, Markup]] = {}
_log_items_lock = threading.Lock()
LOG_ITEMS_KEEP = 4096  # the oldest go first (a game shows its 20 newest)


def log_item(app) -> Callable[..., Markup]:
    """Each entry's html, rendered once (again if the template was reloaded); ``lang``: the reader's language,
    if the caller has it (default: looked up)."""
    env = _fragment_env(app)
    template = env.get_template("_log_entry.html")

    def item(entry: LogEntry, lang: str | None = None) -> Markup:
        lang = lang or language.reader_language()
        found = _log_items.get((id(entry), lang))
        if found is not None and found[0] is entry and found[1] is template:
            return found[2]
        # its context looks the globals up behind the entry (``Template.render`` would copy them all into it first),
        # the reader's ``_()`` before them (``language.template_words``)
        values = ChainMap({"entry": read_entry(entry, lang)}, language.template_words() or {}, env.globals)
        html = Markup(env.concat(template.root_render_func(template.new_context(values, shared=True))))
        with _log_items_lock:
            _log_items[(id(entry), lang)] = (entry, template, html)
            while len(_log_items) > LOG_ITEMS_KEEP:
                del _log_items[next(iter(_log_items))]
        return html

    return item


def read_entry(entry: LogEntry, lang: str) -> Any:
    """A log entry as a reader of ``lang`` reads it: its line and its details' words (rolls, modifiers, the
    result card) in that language; an old game's English line as it was written."""
    if lang == "en" and not entry.detail:
        return entry
    return SimpleNamespace(seq=entry.seq, text=language.words(entry.text, lang), audience=entry.audience,
                           detail=language.words(entry.detail, lang), message=entry.message)


#: the log card's own words (``log_section``): message ids of the pages' domain, said by ``language.text``
LOG_TITLE, UNDO_TITLE, UNDO, LOG_ENTRIES, NOTHING_YET = (
    N_("Log"), N_("Take back the last action (the log keeps both)"), N_("Undo"), N_("Log entries, newest first"),
    N_("Nothing yet."))


def log_section(entries: list[LogEntry], gm: bool, oob: bool = False) -> Markup:
    """The log card (``#log``, ``_log.html`` on a page): ``entries`` (the newest first), each entry's html rendered
    once (``log_item``), under its heading; the GM's has the Undo button. Built here rather than by a template, as
    ``token_svg`` builds a token: every move redraws it, once per role and language at the table, and a template's
    own steps round a handful of words and the twenty entries were most of its cost (70 µs a time)."""
    say = language.text
    undo = (f' <form data-command="undo" class="inline"><button type="submit" title="{escape(say(UNDO_TITLE))}">'
            f'{escape(say(UNDO))}</button></form>') if gm else ""
    if entries:
        item, lang = log_item(current_app._get_current_object()), language.reader_language()
        lines = "".join([item(entry, lang) for entry in entries])
    else:
        lines = f'<li class="empty">{escape(say(NOTHING_YET))}</li>'
    return Markup(f'<section id="log" class="card log"{token_svg.OOB if oob else ""}>\n  <h2>{escape(say(LOG_TITLE))}'
                  f'{undo}</h2>\n  <ol reversed tabindex="0" aria-label="{escape(say(LOG_ENTRIES))}">\n  {lines}\n  '
                  '</ol>\n</section>')


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
    # where things are drawn on the shown map: squares, or pointy / flat hexes (webapp/live/drawing.py)
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
    return language.words(attacks.area_templates(system)) or (
        # on a zone map a laid template covers a zone: an area weapon fires at it (attacks._zone_template)
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
    """The rules' badges of ``token`` as they said them (``combat.badges``), once per update for every audience."""
    return _once(c, ("badges", id(token)), lambda: combat.badges(c.game, token), per_language=False)


_MAKERS: dict[str, Callable[[Lazy], Any]] = _MAP_MAKERS | {
    "game": lambda c: c.game,
    "actor": lambda c: c.actor,
    "system": lambda c: rules.get(c.game.system),
    "online": lambda c: c.online or set(),
    "tokens": lambda c: fog.visible_tokens(c.game, c.actor),
    "my_tokens": lambda c: [t for t in c["tokens"] if c.actor.player_id and t.owner == c.actor.player_id],
    "players": lambda c: list(c.game.players.values()),
    "log": lambda c: _newest_log(c.game, c.actor, c.shared, lambda: c["tokens"]),  # the 20 newest, newest first
    "screen_feed": lambda c: screen_feed(c.game, c["log"]),
    "log_section": lambda c: log_section,
    "combat_view": lambda c: combat.combat_view(c.game, c.actor),
    "settings": lambda c: combat.settings_of(c.game) if c.actor.role == "gm" else {},
    "templates_view": lambda c: templates.view(c.game, c.actor),
    "area_templates": _area_templates,
    "pending": lambda c: language.words(attacks.pending_view(c.game, c.actor)),  # the defenses in the reader's words
    "soak_offers": lambda c: soak.pending_view(c.game, c.actor),
    "reroll_offer": lambda c: reroll.pending_view(c.game, c.actor),
    "last_attack": lambda c: last_attack(c.game, c.actor),
    # each token's actions asked of the rules once per render (the turn bar and the fight card both show them)
    "actions_of": lambda c: _once_per_token(lambda token, game=c.game: language.words(combat.actions_now(game, token))),
    "materials": lambda c: editor.materials(c.game) if c.actor.role == "gm" else [],
    "screen_view": lambda c: screenview.view_for(c.game, c.actor),
    "handouts_view": lambda c: handouts.view(c.game, c.actor),
    "lighting_layer": lambda c: lighting.layer(c.game, c.actor, c["shown_map"]) if c["shown_map_id"] in c.game.maps else None,
    "dark_vision": lambda c: lighting.dark_vision(c.game),
    "fog_layer": _fog_layer,
    # what templates call with a token (or two)
    "sheet_of": lambda c: lambda token, game=c.game: characters.sheet_of(game, token),
    "may_see": lambda c: lambda token, game=c.game, actor=c.actor: fog.may_see(game, actor, token),
    # a token's badges in the reader's words (the rules' once per update, said once per language)
    "badges_of": lambda c: lambda token: _once(c, ("badges", id(token)), lambda: language.words(_badges(c, token))),
    "token_picture": lambda c: lambda token, game=c.game: handouts.token_picture(game, token),
    "token_svg": lambda c: lambda token, oob=False: draw_token(c, token, oob),  # a token's <g> (token_svg.py)
    # the target a list of targets starts on: the nearest foe, never an ally (combat.first_foe)
    "foe_of": lambda c: lambda who, candidates, game=c.game: combat.first_foe(game, who, list(candidates)),
}
#: what every context holds alike
_GIVEN = {
    "groups_of": combat.action_groups,
    "zone_cover": editor.ZONE_COVER,
    "uvtt_limit": uvtt.MAX_FILE_BYTES,
    "picture_limit": uvtt.MAX_PICTURE_BYTES,
    "light_color": lighting.css_color,
}


class _SharedTemplate(jinja2.Template):
    """A template whose ``{% include %}`` in a loop or a ``with`` block looks its locals up before the
    including template's context instead of copying that context into a new dict (Jinja's way), which
    would compute every lazy value of it."""

    def new_context(self, vars=None, shared=False, locals=None):
        if shared and locals and vars is not None:
            vars, locals = ChainMap({k: v for k, v in locals.items() if v is not missing}, vars), None
        return super().new_context(vars, shared, locals)


def _fragment_env(app) -> jinja2.Environment:
    """The app's Jinja environment (loader, globals, filters, autoescape) with ``_SharedTemplate``;
    its own template cache, made once per app."""
    env = app.extensions.get("tacmap_fragment_env")
    if env is None:
        env = app.jinja_env.overlay(cache_size=400)
        env.template_class = _SharedTemplate
        app.extensions["tacmap_fragment_env"] = env
    return env


#: what Flask's own context processor gives that belongs to the request and app context of the moment
PER_CONTEXT = ("g", "request")


def flask_values(app) -> tuple[Mapping, ...]:
    """What ``render_template`` adds to every context: its context processors' values and the Jinja
    globals (``url_for``, ``csrf_field``...), to be looked up after the context's own; before the globals, the
    reader's language's ``gettext`` and ``ngettext`` (``language.template_words``: what Flask-Babel's would
    give, without its lookups on every ``_()``).

    The processors' values are kept per app and language (a live update asked each processor again for each
    language it is drawn in, a tenth of its drawing): besides Flask's ``g`` and ``request`` (read now), what the
    app's processors give depends on the reader's language only (the language chooser's; the others give
    functions: ``csrf_token``, the room's names). ``test_flask_values_kept`` checks that against a fresh call."""
    lang = language.reader_language()
    kept = app.extensions.setdefault("tacmap_flask_values", {})
    processed = kept.get(lang)
    if processed is None:
        fresh: dict = {}
        app.update_template_context(fresh)
        processed = kept[lang] = {k: v for k, v in fresh.items() if k not in PER_CONTEXT}
    now = _context_values()
    said = language.template_words()  # the templates' _() in the reader's language, its catalog found once
    return (now, processed, said, _fragment_env(app).globals) if said else (now, processed, _fragment_env(app).globals)


def _context_values() -> dict:
    """Flask's own processor's values (``g``, ``request``) for the contexts of the moment."""
    out = {"g": g._get_current_object()}
    if has_request_context():
        out["request"] = request._get_current_object()
    return out


def _render(name: str, ctx: Mapping) -> str:
    """``render_template`` without copying the context: only the names the template reads are computed.

    ``ctx`` holds Flask's values too (``flask_values``); ``template_rendered`` is sent as Flask sends it."""
    app = current_app._get_current_object()
    env = _fragment_env(app)
    return seams.render_fragment(app, env, env.get_template(name), ctx)  # Flask's private render (a seam)


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
    its words (its name, place and badges: ``describe.token_name``, ``describe.where``, ``combat.badges``) made once
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


def view_key(name: str, ctx: Mapping, actor: Actor, game: Game) -> tuple | None:
    """What part ``name`` shows depends on for this audience; audiences with the same key get the same
    html, rendered once per update. None: no key known, so it is rendered for this audience alone.

    Each key holds every value the part's template reads that can differ between audiences (the
    template is named beside it); anything else it reads is the game's, the same for all."""
    role = actor.role
    if name.startswith("token:"):  # draw_token: movable and mine (the GM's, the owner's), the rest is the token's
        token = game.tokens.get(name.split(":", 1)[1])
        return (name, token_view(actor, token)) if token is not None else (name, role, None)
    if name == "log":  # _log.html: the entries this audience may read; the Undo button is the GM's
        return (name, role, tuple(map(id, ctx["log"])))
    if name in ("templates", "template_list"):  # who is under each, which are mine: all in the view
        return (name, role, repr(ctx["templates_view"]))
    if name == "tokens":  # _tokens.html: the tokens this audience sees, and which of them it owns
        shown = ctx["map_tokens"]
        mine = tuple(t.id for t in shown if role == "player" and t.owner == actor.player_id)
        return (name, role, tuple(map(id, shown)), mine)
    if name in ("combat", "turn_bar"):  # _combat.html, _turn_bar.html: the fight as this audience sees it, its
        # tokens, and whose controls
        shown = ctx["tokens"]
        mine = tuple(t.id for t in shown if role == "player" and t.owner == actor.player_id)
        return (name, role, repr(ctx["combat_view"]), tuple(map(id, shown)), mine)
    if name == "attack":  # _attack.html: who may attack (all for the GM, one's own), whom, with what templates
        return (name, role, tuple(map(id, ctx["tokens"])), tuple(t.id for t in ctx["my_tokens"]),
                repr(ctx["combat_view"]), repr(ctx["templates_view"]))
    if name == "walls":  # _walls.html: the board as this audience knows it; door handles for the GM
        return (name, role, id(ctx["board"]))
    if name == "fog":  # _fog.html: this audience's fog layer
        layer = ctx["fog_layer"]()
        return (name, role, None if layer is None else tuple(sorted(layer.items())))
    if name == "lighting":  # _lighting.html: this audience's lighting layer, light handles for the GM
        return (name, role, repr(ctx["lighting_layer"]))
    shows = _SHOWS_ONLY.get(name)
    if shows is not None:  # a card that reads one value of this audience's view (and ``oob``)
        return (name, repr(ctx[shows]))
    return None


#: parts whose template reads nothing but one value of the context (besides ``oob``): audiences whose value is
#: the same get the same html (a move sends every player the empty prompts; they are drawn once, not per player)
_SHOWS_ONLY = {
    "reroll_prompt": "reroll_offer",  # _reroll_prompt.html
    "soak_prompt": "soak_offers",  # _soak_prompt.html
    "defense_prompt": "pending",  # _defense_prompt.html
    "screen_view": "screen_view",  # _screen_view.html
}


#: parts whose html depends on nothing but their ``view_key``'s values (no ``id``s: the value itself) besides the
#: template and, for the fog, the map's grid: the same key gives the same html in any update, so it is kept from one
#: update to the next (a move with fog redrew every audience's fog layer, unchanged by most moves, each time)
_KEPT_PARTS = frozenset({"fog", *_SHOWS_ONLY})
_kept: dict[tuple, tuple[jinja2.Template, str, bytes]] = {}
_kept_lock = threading.Lock()
KEPT_KEEP = 1024  # the oldest go first


def _kept_render(key: tuple, template: str, values: Mapping, digests: dict | None, ctx: Lazy) -> str:
    """``_render(template, values)`` for a part of ``_KEPT_PARTS`` whose view key (with its language) is ``key``:
    the html kept from an earlier update when the key and the template are the same (its digest with it)."""
    loaded = _fragment_env(current_app._get_current_object()).get_template(template)
    if key[0] == "fog":  # drawn on the map's grid (squares or hexes)
        key = (*key, ctx["drawing"].grid)
    found = _kept.get(key)
    if found is None or found[0] is not loaded:
        html = _render(template, values)
        found = (loaded, html, _digest(html))
        with _kept_lock:
            _kept[key] = found
            while len(_kept) > KEPT_KEEP:
                del _kept[next(iter(_kept))]
    if digests is not None:
        digests[found[1]] = found[2]
    return found[1]


def _digest(html: str) -> bytes:
    """What a quiet audience's record of what it was sent holds of an html (``fragments``' ``sent``)."""
    return hashlib.blake2b(html.encode("utf-8", "surrogatepass"), digest_size=12).digest()


def fragments(game: Game, actor: Actor, changes, online: set[str] | None = None, extra: Mapping | None = None,
              renders: dict | None = None, since: int | None = None, sent: dict | None = None) -> str:
    """The out-of-band fragments that bring this audience's screen up to date.

    ``since``: the seq the screens were at (the update's ``from_seq``); with fog, a move that brought no
    token into this audience's view and took none out sends the moved token alone, when this process
    sent the audience the update that brought it to ``since`` (else the whole tokens layer).

    ``renders``: one dict per update, shared by all the audiences it goes to; a part whose
    ``view_key`` is in it is not rendered again (the dict keeps each render's context alive,
    so the objects a key names by ``id`` stay the same objects for the whole update).

    ``sent``: part name -> a digest of the html this audience's screens were last sent for it; a part
    whose html is the same is left out (and the dict kept up to date), so a change this audience cannot
    see sends it nothing at all (an empty string), not an update that says something happened."""
    changes = set(changes)
    if renders is None:
        flask = flask_values(current_app._get_current_object())
    else:  # the same for every audience of the update reading one language (view keys hold more: no clash)
        said = ("flask values", language.reader_language())  # a context processor may speak (the language chooser)
        flask = renders.get(said) or renders.setdefault(said, flask_values(current_app._get_current_object()))
    ctx = context(game, actor, online, extra, fallback=flask, shared=renders)
    if "fog" in changes and not fog.enabled(game):
        changes.discard("fog")
    elif "fog" in changes and actor.role != "gm":
        # what this audience sees may have changed: when tokens came into view or left it, the whole
        # layer goes (a token that left the view is not in it), and what they know of the fight
        shown = frozenset(t.id for t in ctx["tokens"])
        if not fog.same_tokens_shown(game, actor, since, shown):
            changes = {c for c in changes if not c.startswith("token:")} | {"tokens", "combat", "turn_bar", "attack"}
        fog.tokens_shown(game, actor, shown)
        if fog.walls_stale(game, actor):  # new squares seen: their walls and doors come too, and the picture
            changes |= {"walls", "picture"}
    if "map" in changes:  # the map holds the walls, the fog, the picture and the tokens
        changes = {c for c in changes if not c.startswith("token:") and c not in ("walls", "fog", "tokens", "picture")}
    out: list[str] = []
    if renders is None:
        oob = ctx.with_values({"oob": True})
    else:  # each token of a layer is drawn once per update for the audiences that see it alike
        lang = language.reader_language()

        def shared_token(token) -> Markup:
            key = ("layer token", id(token), token_view(actor, token), lang)
            found = renders.get(key)
            if found is None:
                found = renders[key] = (draw_token(ctx, token), ctx)
            return found[0]
        oob = ctx.with_values({"oob": True, "shared_token": shared_token})
    svg: list[str] = []
    whole_map = "map" in changes or ("gm_map" in changes and actor.role == "gm")
    if whole_map:
        changes = {c for c in changes if c not in _IN_MAP and c != "gm_map" and not c.startswith("token:")} | {"map"}
    if sent is not None and "map" in changes:  # a fresh map replaces every part drawn inside it
        for name in [n for n in sent if n in _IN_MAP or n.startswith("token:")]:
            del sent[name]

    digests = None if renders is None else renders.setdefault("digests", {})  # html -> its digest, this update

    def new_to_them(name: str, html: str) -> bool:
        if sent is None:
            return True
        digest = None if digests is None else digests.get(html)  # a shared render: the same str, hashed once
        if digest is None:
            digest = _digest(html)
            if digests is not None:
                digests[html] = digest
        if sent.get(name) == digest:
            return False
        sent[name] = digest
        return True

    def render(name: str, template: str | None, values: Mapping, draw: Callable[[], str] | None = None) -> str:
        """Part ``name``'s html: ``template`` rendered with ``values``, or what ``draw()`` makes (a token), once per
        update for the audiences with the same ``view_key`` in one language."""
        make = draw or (lambda: _render(template, values))
        key = view_key(name, ctx, actor, game) if renders is not None else None
        if key is None:
            return make()
        key = (*key, language.reader_language())  # the same part in another language is another html
        found = renders.get(key)
        if found is None:
            if name in _KEPT_PARTS:  # its html may be the last update's: kept across updates
                html = _kept_render(key, template, values, digests, ctx)
            else:
                html = make()
            found = renders[key] = (html, ctx)
        return found[0]

    for name in sorted(changes):
        if name.startswith("token:"):
            if ctx["preparing"]:  # the GM looks at another map: the active map's tokens are not on it
                continue
            token = game.tokens.get(name.split(":", 1)[1])
            if token is not None and fog.may_see(game, actor, token):
                html = render(name, None, oob, lambda: draw_token(ctx, token, oob=True))
                if new_to_them(name, html):
                    svg.append(html)
            continue
        template, is_svg, audiences = PARTS[name]
        if actor.role not in audiences:
            continue
        if name == "tokens":
            html = render(name, template, oob.with_values({"tokens": ctx["map_tokens"]}))
        elif name == "log":  # its template calls log_section too: here without the template's steps
            html = render(name, template, oob, lambda: log_section(ctx["log"], actor.role == "gm", oob=True))
        else:
            html = render(name, template, oob)
        if name in ("walls", "map", "gm_map"):
            fog.walls_drawn(game, actor)
        if name in ("tokens", "map") and actor.role != "gm" and fog.enabled(game):
            fog.tokens_shown(game, actor, frozenset(t.id for t in ctx["tokens"]))
        if new_to_them(name, html):
            (svg if is_svg else out).append(html)
    if svg:
        out.append("<template><svg>" + "".join(svg) + "</svg></template>")
    if sent is not None and "map" in changes and not ctx["preparing"]:
        note_shown(game, actor, sent, online, extra)  # what the fresh map holds, part by part
    return "\n".join(out)


def note_shown(game: Game, actor: Actor, sent: dict, online: set[str] | None = None,
               extra: Mapping | None = None) -> None:
    """Fill ``sent`` (see :func:`fragments`) with every part this audience's screens show now, as if each
    had just been sent: for a screen that is up to date (a page opened now, a map drawn whole)."""
    parts = (set(EVERYTHING) - {"map", "gm_map"}) | {f"token:{t.id}" for t in fog.visible_tokens(game, actor)}
    fragments(game, actor, parts, online=online, extra=extra, sent=sent)


def attack_preview(game: Game, actor: Actor, view: dict, echo: bool = False) -> str:
    """The card that shows an attack before it is rolled (its line is drawn on the map by attack.js);
    ``echo``: the GM's copy of a player's preview, its choices read, not picked."""
    tokens = {t.id: t for t in fog.visible_tokens(game, actor)}
    view = language.words(view)  # the rules' words of it (options, modifiers, outcomes) in the asker's language
    values = {"view": view, "tokens": tokens, "actor": actor, "game": game, "echo": echo}
    return _render("_attack_preview.html", Lazy({}, values, *flask_values(current_app._get_current_object())))


#: how many of a player's newest log lines are searched for an attack by or on their tokens
PLAYER_RESULT_LOOKBACK = 200


def _once_per_token(ask: Callable[[Any], list]) -> Callable[[Any], list]:
    """``ask(token)``, kept by token id for as long as this function lives (one render's context)."""
    found: dict[str, list] = {}

    def once(token) -> list:
        if token.id not in found:
            found[token.id] = ask(token)
        return found[token.id]

    return once


FEED_LINES = 4  # the table screen's Rolls column: the newest events' lines
_ROUND_LINE = re.compile(r"^Round \d+$")


def screen_feed(game: Game, entries: list[LogEntry], limit: int = FEED_LINES) -> list[dict]:
    """The table screen's newest rolls and attacks, one line per event, newest first: ``{"seq", "kind", "text",
    "dice"}``. A player's roll and an attack are their own lines ("Mira rolled 2d6: ...", the attack's
    line). The rules' own rolls (a running die, a Spirit roll, a Soak...) are shown by the event's lines
    that give the result (who, what for, the number: "Orc chief runs: Pace 6 + 1 = 7\""), with the dice
    beside them, never as bare dice ("running die: 1d6[1] = 1"). ``entries``: those this audience may read,
    newest first; taken-back events are left out."""
    undone = set(game.undone)
    events: dict[int, list[LogEntry]] = {}
    for entry in entries:
        if entry.seq not in undone:
            events.setdefault(entry.seq, []).append(entry)
    items: list[dict] = []
    said_in = language.words
    for seq, newest_first in events.items():
        lines = newest_first[::-1]  # in the order they were written
        own, dice = [], []
        for e in lines:
            detail = e.detail or {}
            if "card" in detail:
                own.append({"seq": seq, "kind": "attack", "text": said_in(e.text), "dice": []})
            elif "roll" in detail and "by" in detail:  # a roll someone made
                own.append({"seq": seq, "kind": "roll", "text": said_in(e.text), "dice": []})
            elif "roll" in detail:
                dice.append(said_in(detail["roll"].get("text") or e.text))
        if dice:
            words = [e.text for e in lines if not e.detail]
            said = [w for w in words if any(ch.isdigit() for ch in w) and not _ROUND_LINE.match(w)] or words
            own.append({"seq": seq, "kind": "roll", "text": " · ".join(map(said_in, said)) if said else dice.pop(0),
                        "dice": dice})
        items += own[::-1]
        if len(items) >= limit:
            break
    return items[:limit]


def last_attack(game: Game, actor: Actor) -> dict | None:
    """The newest attack this audience may read in the log, for the result card: the table screen's
    any attack; a player's, one made by or on one of their tokens (a phone shows its own fights)."""
    mine = {t.id for t in game.tokens.values() if t.owner == actor.player_id} if actor.role == "player" else None
    entries = audience.newest_log(game, actor)
    if mine is not None:  # a phone looks back a little way, not through a whole evening's log
        entries = islice(entries, PLAYER_RESULT_LOOKBACK)
    undone = set(game.undone)
    for entry in entries:
        card = entry.detail.get("card") if entry.detail else None
        if not card or entry.seq in undone:  # an undone attack is no one's news
            continue
        if mine is not None and card.get("attacker_id") not in mine and not any(t["id"] in mine for t in card["targets"]):
            continue
        return language.words({"seq": entry.seq, "text": entry.text, **card})
    return None
