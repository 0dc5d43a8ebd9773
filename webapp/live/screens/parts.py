"""What a screen shows that can change (its parts), each declared once, and which parts each event changes.

A part is one partial template, declared once in ``DECLARED`` (a :class:`Part`): its template, whether it is
drawn inside the ``<svg>``, the audiences whose screens show it, the events that change it, the context values
its template reads (``webapp.live.screens.context``'s makers) and its sharing key (:class:`By`: what its html depends on
per audience, so audiences with the same key get one render, ``render.view_key``). The tables the rest reads are
made from those declarations: ``PARTS`` (name -> its part), ``BY_EVENT`` (event type -> the parts it changes: an
event with no entry redraws everything) and ``SHOWS_ONLY``. An update sends the parts its events change
(``changes_for``), each audience only those its screen shows.

tests/unit/test_feature_registry.py checks ``BY_EVENT`` against ``webapp.game.features``; tests/app/test_screen_parts.py
walks each part from its events to its template and the context values that template reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...game.board import lighting, maps
from ...game.tableside import screenview
from ...game.core.model import Actor, Event, Game

AUDIENCES = frozenset({"gm", "player", "screen"})


@dataclass(frozen=True)
class By:
    """One value of a part's sharing key, read from the audience's context (``value``) or its actor:

    ``role``: the audience's role; ``ids``: which objects ``value`` holds (by ``id``: the same objects for the
    whole update); ``said``: ``value`` itself (its ``repr``); ``mine``: the ids of the tokens in ``value`` this
    audience owns (a player's); ``token_ids``: the ids of the tokens in ``value``; ``same``: which object
    ``value`` is; ``layer``: what ``value()`` gives (a layer's dict), sorted."""

    how: str
    value: str = ""

    def __post_init__(self) -> None:
        assert self.how in _HOW and (self.how == "role") == (not self.value), self

    def __call__(self, ctx: Mapping, actor: Actor) -> Any:
        how = self.how
        if how == "role":
            return actor.role
        found = ctx[self.value]
        if how == "ids":
            return tuple(map(id, found))
        if how == "said":
            return repr(found)
        if how == "mine":
            return tuple(t.id for t in found if actor.role == "player" and t.owner == actor.player_id)
        if how == "token_ids":
            return tuple(t.id for t in found)
        if how == "same":
            return id(found)
        layer = found()  # "layer"
        return None if layer is None else tuple(sorted(layer.items()))


_HOW = ("role", "ids", "said", "mine", "token_ids", "same", "layer")
ROLE = By("role")


def ids(value: str) -> By:
    return By("ids", value)


def said(value: str) -> By:
    return By("said", value)


def mine(value: str) -> By:
    return By("mine", value)


@dataclass(frozen=True)
class Part:
    """A screen part, declared once. ``events``: the event types that change it (besides ``REDRAW_ALL``'s, which
    change every part); ``with_parts``: it changes too with any event that changes one of these parts; ``reads``:
    the context values its template reads (the context's makers, or what the fan-out gives every audience: the
    join link, the devices), the names every template has besides (Flask's, Jinja's, ``oob``) left out; ``key``:
    its sharing key's values after its name (``render.view_key``), None for a part drawn for each audience alone.
    """

    name: str
    template: str
    svg: bool
    audiences: frozenset[str]
    events: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    key: tuple[By, ...] | None = None
    with_parts: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        assert self.audiences <= AUDIENCES, self.name
        assert all(v.value in self.reads for v in self.key or () if v.value), f"{self.name}: its key reads undeclared"


def _part(name: str, template: str, audiences: str, *events: str | tuple[str, ...], svg: bool = False,
          reads: tuple[str, ...] = (), key: tuple[By, ...] | None = None, with_parts=()) -> Part:
    """A :class:`Part`, its audiences one string ("gm player"), its events given one by one or in groups."""
    flat = tuple(e for group in events for e in ((group,) if isinstance(group, str) else group))
    assert len(flat) == len(set(flat)), f"{name}: an event twice"
    return Part(name, template, svg, frozenset(audiences.split()), flat, reads, key, frozenset(with_parts))


#: events that may change any part: every screen drawn afresh
REDRAW_ALL = ("game_created",
              "undone",  # an undo may restore any part
              "map_activated")  # another board, other tokens: every part may change

# events that change the same parts, named once
#: the map editor's squares: what is drawn on the board changes what tokens see
_SQUARES = ("cell_blocked", "cell_unblocked", "terrain_set", "cover_added", "cover_removed")
#: the map editor's walls and doors (the maps panel counts them)
_WALLS = ("wall_added", "wall_removed", "door_added", "door_removed")
#: the map's size and zones: the whole map drawn again
_MAP_SIZE = ("map_resized", "zone_added", "zone_updated", "zone_removed", "zones_linked")
#: ... and whether it has fog (the whole map again for the players and the table screen, whose walls, picture and
#: tokens are what fog shows: the ``seen_map`` part; the GM's fog and lighting layers alone, render.fragments)
_MAP_SHAPE = (*_MAP_SIZE, "fog_set")
_MAPS = ("map_added", "map_renamed", "map_removed", "map_imported")
_HANDOUTS = ("handout_added", "handout_shown", "handout_hidden", "handout_removed")
#: a seat taken from a player: their tokens change hands
_SEATS_GONE = ("player_removed", "players_merged")
_SEATS = ("player_reclaimed", "reclaim_allowed", "seat_asked", "seat_answered")
#: a fight's turns (the rules may roll: initiative, cards...)
_TURNS = ("combat_started", "turn_started", "acted")
#: a token's wounds and conditions: its drawing, the lists, the fight
_HURT = ("attack_resolved", "soak_rolled", "benny_rerolled", "surrendered")  # a foe that yields (#67)
#: the table's dice (#59): a roll asked, made or called off redraws its prompt and the prompt whose answer waits for
#: it (a defense chosen, a Soak or a reroll taken: put away meanwhile)
_ROLLS = ("roll_asked", "roll_entered", "roll_called_off", "roll_settled")
_SEEN = ("cells_revealed", "cells_hidden")  # the GM's fog brush
_PAUSE = ("scene_paused", "scene_resumed")
#: who is under a template changes when a token comes, goes, moves or hides (``changes_for`` leaves these out when
#: no template is on the map)
_UNDER_EVENTS = ("token_moved", "token_added", "token_updated", "token_removed", "door_set", "attack_resolved",
                 "benny_rerolled", "template_placed", "template_moved", "template_removed", *_SQUARES, *_WALLS, *_SEEN)
#: what a player's list of the board (#61) reads: the tokens, where they stand, what they see, the walls, the fight and
#: the badges
_LISTED = ("tokens", "token_list", "my_tokens", "fog", "walls", "map", "combat", "attack")
#: what the whole map reads (``_map.html`` and what it includes)
_MAP_READS = ("actor", "board", "drawing", "fog_layer", "game", "lighting_layer", "map_tokens", "picture", "preparing",
              "shown_map", "templates_view", "token_svg", "zones")
_FIGHT_KEY = (ROLE, said("combat_view"), ids("tokens"), mine("tokens"))

#: every part a screen shows that can change, by the name used in ``changes``
DECLARED = (
    # the current actor is drawn on the map, so a turn changes the tokens too; the template reads the shown map's
    # tokens (``render.fragments`` gives it ``map_tokens`` as ``tokens``)
    _part("tokens", "_tokens.html", "gm player screen",
          "token_added", "token_updated", "token_removed", _SEATS_GONE, _TURNS, "combat_ended", _HURT,
          "character_added", "sheet_updated", _SEEN, svg=True,
          reads=("map_tokens", "token_svg", "tokens"), key=(ROLE, ids("map_tokens"), mine("map_tokens"))),
    # the board as this audience knows it; door handles for the GM
    _part("walls", "_walls.html", "gm player screen", "door_set", _SQUARES, _WALLS, svg=True,
          reads=("actor", "board", "drawing"), key=(ROLE, By("same", "board"))),
    _part("token_list", "_token_list.html", "gm",
          "token_added", "token_updated", "token_removed", "player_joined", _SEATS_GONE, _HURT, "character_added",
          "picture_added", reads=("drawing", "game", "players", "zones")),
    _part("my_tokens", "_my_tokens.html", "player",
          "token_added", "token_updated", "token_removed", _SEATS_GONE, _HURT, "character_added",
          reads=("game", "my_tokens", "token_picture")),
    _part("players", "_players.html", "gm", "player_joined", _SEATS_GONE, _SEATS,
          reads=("devices", "game", "online", "players")),
    # the phone of the player whose turn it is, when it may not show it (webapp/live/devices.py): in the GM's fight
    # card; it goes with the players card (``changes_for``)
    _part("turn_device", "_turn_device.html", "gm", reads=("combat_view", "devices", "game", "online")),
    _part("add_token", "_add_token.html", "gm", "player_joined", _SEATS_GONE, _MAP_SHAPE,
          reads=("board", "drawing", "game", "players", "zones")),
    _part("join_toggle", "_join_toggle.html", "gm", "join_shown", reads=("game", "join_code", "join_url")),
    _part("join_banner", "_join_banner.html", "screen", "join_shown",
          reads=("game", "join_code", "join_qr", "join_url")),
    # the entries this audience may read; the Undo button is the GM's (a token's light is logged too: changes_for)
    _part("log", "_log.html", "gm player",
          "token_moved", "token_added", "token_removed", "door_set", "player_joined", _SEATS_GONE, _SEATS,
          "dice_rolled", "gm_password_set",
          "tactic_set",  # a foe's tactic (#60): the GM's line alone
          "foe_passed",  # a foe played with no plan (#60): the GM's line
          "foes_played",  # the "play the foes" switch on the GM's fight card (#60), the GM's line
          "morale_set",  # what the foes do once most are down (#67): the GM's line
          "settings_set", _TURNS, "order_set", "combat_ended", _HURT, "defense_asked", "soak_declined",
          "reroll_declined", "defense_dropped", "free_attack_waived", "template_placed", "template_moved",
          "template_removed", "character_added", "sheet_updated", _SQUARES, _WALLS, _MAP_SHAPE, _SEEN, _MAPS,
          lighting.EVENTS, "picture_set", "screen_touch_set", _HANDOUTS,
          "dice_set", "roll_called_off",  # the table's dice setting is said in the log (#59)
          "recap_shown",
          reads=("actor", "log", "log_section"), key=(ROLE, ids("log"))),
    # the fight as this audience sees it, its tokens, and whose controls
    _part("combat", "_combat.html", "gm player screen",
          "token_added", "token_updated", "token_removed", "foes_played", "morale_set", _TURNS, "order_set",
          "combat_ended",  # the fight ends a Soak offer (soak_prompt)
          _HURT, "free_attack_waived",
          "sheet_updated",  # a token down: no foe may be left standing
          _MAP_SHAPE, _SEEN,
          reads=("actions_of", "actor", "badges_of", "combat_view", "devices", "drawing", "foe_of",
                 "foe_plans_missing", "foe_plans_shown", "foe_play_reason", "game", "no_foe_standing", "online",
                 "system", "tokens"), key=_FIGHT_KEY),
    # a player's sticky "Your turn" bar (the turn's usual actions, End my turn); follows "combat" (changes_for), and
    # gives way to the pause while it lasts (#61)
    _part("turn_bar", "_turn_bar.html", "player", _PAUSE,
          reads=("actions_of", "actor", "combat_view", "drawing", "foe_of", "game", "system", "tokens"),
          key=_FIGHT_KEY),
    _part("settings", "_settings_panel.html", "gm", "settings_set", reads=("settings", "system")),
    # who may attack (all for the GM, one's own), whom, with what templates. Who stands in the fight (its turn order)
    # changes when it starts, turns, ends, is set, or a shot takes a token out: the attack card, drawn afresh, says
    # so (each attacker's nearest standing foe, who is out). A move does not draw it again (the hottest event: with
    # it, a move cost five times as much, bench.profile_move; #58): the page works the nearest foe out from the
    # map's squares when an attacker is picked (static/js/attack.js); a move that passes the turn draws it
    # (changes_for).
    _part("attack", "_attack.html", "gm player",
          "token_added", "token_updated", "token_removed", _SEATS_GONE, _TURNS, "order_set", "combat_ended",
          "attack_resolved", "surrendered", "template_placed", "template_removed", "character_added", "sheet_updated", _MAP_SHAPE,
          _SEEN,
          reads=("actor", "area_templates", "combat_view", "foe_of", "my_tokens", "sheet_of", "system",
                 "templates_view", "tokens"),
          key=(ROLE, ids("tokens"), By("token_ids", "my_tokens"), said("combat_view"), said("templates_view"))),
    # the whole map (another map shown, a picture set): the <svg> itself, so not wrapped
    _part("map", "_map.html", "gm player screen", _MAP_SIZE, "picture_set", "picture_aligned", reads=_MAP_READS),
    # the GM looks at another map; the others see no change
    _part("gm_map", "_map.html", "gm", "map_viewed", reads=_MAP_READS),
    # fog switched on or off: a player's and the table screen's whole map (the GM's walls, picture and tokens stay as
    # they are, and a big map's walls are most of its html: 0.8 MB of 10,000 walls, sent to the GM for nothing)
    _part("seen_map", "_map.html", "player screen", "fog_set", reads=_MAP_READS),
    _part("maps", "_maps_panel.html", "gm",
          "token_added", "token_removed", _WALLS, _MAP_SHAPE, _MAPS, lighting.EVENTS, "map_viewed", "picture_set",
          "picture_aligned", reads=("game", "maps_list", "picture", "preparing", "shown_map", "zones")),
    # who is under each, which are mine: all in the view
    _part("templates", "_templates.html", "gm player screen", _UNDER_EVENTS, svg=True,
          reads=("actor", "board", "drawing", "templates_view"), key=(ROLE, said("templates_view"))),
    _part("template_list", "_template_list.html", "gm player", _UNDER_EVENTS,
          reads=("actor", "game", "system", "templates_view"), key=(ROLE, said("templates_view"))),
    # the newest attack's result: the table screen's, and a player's for attacks by or on their tokens
    _part("result_card", "_result_card.html", "screen player", "attack_resolved", "benny_rerolled",
          reads=("badges_of", "game", "last_attack", "may_see")),
    # the table screen's newest public rolls and attacks, beside the map
    _part("feed", "_screen_feed.html", "screen", "dice_rolled", _TURNS, _HURT, reads=("screen_feed",)),
    # the choice for the defender's player and the GM; "waiting for..." for the attacker and the table
    _part("defense_prompt", "_defense_prompt.html", "gm player screen",
          "attack_resolved", "defense_asked", "defense_dropped", _ROLLS, reads=("pending",), key=(said("pending"),)),
    # a roll made at the table (#59): the pad for its roller's player and the GM; who rolls what for the others
    _part("roll_prompt", "_roll_prompt.html", "gm player screen", _ROLLS,
          reads=("pending_roll",), key=(said("pending_roll"),)),
    # the dice roller, with who rolls the game's dice (the GM's choice; a player's "the app rolls for me")
    _part("roller", "_roller.html", "gm player", "dice_set", reads=("actor", "dice_settings")),
    # a Soak roll a wounded Wild Card may spend a Benny on: its player's, and the GM's for anyone
    _part("soak_prompt", "_soak_prompt.html", "gm player", "combat_ended", _HURT, "soak_declined", _ROLLS,
          reads=("soak_offers",), key=(said("soak_offers"),)),
    # a Benny reroll a Wild Card's missed attack may take: its player's, and the GM's for anyone
    _part("reroll_prompt", "_reroll_prompt.html", "gm player",
          "token_moved", "token_removed", _TURNS, "combat_ended", _HURT, "defense_asked", "soak_declined",
          "reroll_declined", "defense_dropped", _ROLLS, reads=("reroll_offer",), key=(said("reroll_offer"),)),
    # this audience's fog layer
    _part("fog", "_fog.html", "gm player screen",
          "token_moved", "token_added", "token_updated", "token_removed", "door_set", _SEATS_GONE, _SQUARES, _WALLS,
          _SEEN, lighting.EVENTS, svg=True,
          reads=("actor", "drawing", "fog_layer"), key=(ROLE, By("layer", "fog_layer"))),
    # lights and darkness over the map (under the fog), and the GM's lighting panel (webapp/game/board/lighting.py); light
    # handles for the GM. What is lit goes with what is seen (changes_for)
    _part("lighting", "_lighting.html", "gm player screen", lighting.EVENTS, svg=True,
          reads=("actor", "drawing", "lighting_layer"), key=(ROLE, said("lighting_layer"))),
    _part("lighting_panel", "_lighting_panel.html", "gm", lighting.EVENTS,
          reads=("board", "dark_vision", "game", "preparing", "shown_map", "system", "zones")),
    # the map's picture: with fog, a player's and the table's are painted out where they never saw (sent with the
    # walls when new squares are seen: render.fragments)
    _part("picture", "_map_picture.html", "player screen", svg=True, reads=("picture",)),
    # the editor's tools are the map's on the GM's screen
    _part("editor", "_editor_toolbar.html", "gm", _MAP_SHAPE, "map_viewed",
          reads=("board", "game", "materials", "preparing", "shown_map", "system", "zones")),
    # the touch table: the GM's switch, the table screen's mark (webapp/game/tableside/touch.py)
    _part("screen_touch", "_screen_touch.html", "gm screen", "screen_touch_set", reads=("actor", "game")),
    # what the GM has the table screen show (webapp/game/tableside/screenview.py): the screen applies it, the GM's page
    # draws its outline; sent again when the followed token comes into the screen's view or leaves it
    _part("screen_view", "_screen_view.html", "gm screen", "screen_view_set",
          reads=("screen_view",), key=(said("screen_view"),)),
    # hand-outs (#27): the GM's card, a phone's panel, the table screen's sheet over the map
    _part("handouts", "_handouts.html", "gm player screen", "player_joined", _SEATS_GONE, _HANDOUTS,
          reads=("actor", "game", "handouts_view", "players")),
    # the X-card (webapp/game/tableside/safety.py): a phone's button or "paused", the GM's notice, the screen's calm card;
    # the same for every audience of a kind (nobody's is about who tapped)
    _part("pause", "_pause.html", "gm player screen", _PAUSE, reads=("actor", "game")),
    # the recap (#36): the GM's card, and the table screen's recap over the map while the GM shows it
    _part("recap_screen", "_recap_screen.html", "gm screen", "recap_shown", reads=("actor", "game")),
    # a player's list of the board (#61): a mark that it is due again, fetched by the phones that show it; due with
    # every event that changes what the list reads (a change hidden from a player marks nothing: render.fragments).
    # The game's seq, the same for every player
    _part("board_list_due", "_board_list_due.html", "player", "token_moved", with_parts=_LISTED,
          reads=("game",), key=()),
)

#: each part by its name
PARTS: dict[str, Part] = {part.name: part for part in DECLARED}
assert len(PARTS) == len(DECLARED), "a part declared twice"
#: parts drawn inside the map: a fresh map brings them along
IN_MAP = frozenset({"tokens", "walls", "templates", "fog", "picture", "lighting"})
EVERYTHING = frozenset(PARTS)
#: who is under a template: ``changes_for`` leaves these out with no template on the map
_UNDER = ("templates", "template_list")


def _by_event() -> dict[str, set[str]]:
    """Event type -> the parts it changes, from the parts' ``events`` and ``with_parts``."""
    out: dict[str, set[str]] = {kind: set(EVERYTHING) for kind in REDRAW_ALL}
    for part in DECLARED:
        for kind in part.events:
            out.setdefault(kind, set()).add(part.name)
    for part in DECLARED:
        if part.with_parts:
            for changed in out.values():
                if changed & part.with_parts:
                    changed.add(part.name)
    return out


#: event type -> the parts it changes (an event with no entry redraws everything)
BY_EVENT = _by_event()
#: parts whose template reads nothing but one value of the context (besides ``oob``) and whose key is that value:
#: audiences whose value is the same get the same html (a move sends every player the empty prompts; they are drawn
#: once, not per player)
SHOWS_ONLY = {part.name: part.key[0].value for part in DECLARED
              if part.key is not None and len(part.key) == 1 and part.key[0].how == "said"}



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
        parts = BY_EVENT.get(event.type)
        if parts is None or parts == EVERYTHING or event.type.startswith("template_"):
            under_only = False
        changes |= BY_EVENT.get(event.type, set(EVERYTHING))
        if event.type == "token_updated" and "light" in event.data.get("changes", {}):
            changes.add("log")  # a token's light is logged (webapp/game/board/tokens.py)
        if event.type == "token_moved":
            changes.add(f"token:{event.data['token_id']}")
            if "fight" in event.data:  # the rules booked it: moves left, free attacks offered
                changes.add("combat")
                if event.data["fight"].get("turn"):  # the move passed the turn: the acting ring moves
                    changes |= {"tokens", "attack"}  # and who stands may change (above BY_EVENT)
    if changes & {"map", "seen_map"} or (changes & {"tokens", "fog"}
                                          and (game is None or screenview.current(game)["follow"])):
        changes.add("screen_view")  # the followed token hidden, shown, or out of the screen's view
    if "tokens" in changes:
        changes = {c for c in changes if not c.startswith("token:")}
    if "combat" in changes:  # the turn bar shows the same turn
        changes.add("turn_bar")
    if "players" in changes:  # the players card and the fight card's turn line show the same devices (devices.py)
        changes.add("turn_device")
    if changes & {"map", "seen_map"} or ("fog" in changes and (game is None or not _lit_alike(game))):
        changes.add("lighting")  # what is lit (a torch moved, a door opened) and seen goes with it
    if changes & {"map", "gm_map", "seen_map"}:  # the GM's lighting panel is the shown map's
        changes.add("lighting_panel")
    if under_only:
        changes -= set(_UNDER)
    return changes


def _lit_alike(game: Game) -> bool:
    """Whether the lighting layer of every screen stays as it is, whatever tokens, doors, walls or the fog do: the
    map each screen shows (the active one, the GM's prepared one) is in bright light, where that layer is nothing
    for players and the table screen and the map's own lights for the GM (``lighting.layer``). What changes that
    (a light, the ambient light, another map) comes with a ``lighting`` part of its own (``BY_EVENT``)."""
    for map_id in {game.active_map, maps.shown_to_gm(game)}:
        m = game.maps.get(map_id)
        if m is not None and m.ambient != "bright":
            return False
    return True
