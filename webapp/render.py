"""Render what an audience sees, for the page and for live updates.

The page and the live update use the same partial templates: a partial
rendered with ``oob=True`` carries ``hx-swap-oob`` and replaces its twin on
the page. SVG partials are wrapped in ``<template><svg>`` so the browser
parses them as SVG (htmx's out-of-band swap docs).
"""

from __future__ import annotations

from flask import render_template, url_for

import rules

from . import attacks, characters, combat, editor, fog, maps, templates_cmds, uvtt
from .table import Actor, Event, Game

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
    "settings": ("_settings_panel.html", False, {"gm"}),
    "attack": ("_attack.html", False, {"gm", "player"}),
    # the whole map (another map shown, a picture set): the <svg> itself, so not wrapped
    "map": ("_map.html", False, {"gm", "player", "screen"}),
    "gm_map": ("_map.html", False, {"gm"}),  # the GM looks at another map; the others see no change
    "maps": ("_maps_panel.html", False, {"gm"}),
    "templates": ("_templates.html", True, {"gm", "player", "screen"}),
    "template_list": ("_template_list.html", False, {"gm", "player"}),
    "result_card": ("_result_card.html", False, {"screen"}),
    "defense_prompt": ("_defense_prompt.html", False, {"gm", "player"}),
    "fog": ("_fog.html", True, {"gm", "player", "screen"}),
    "editor": ("_editor_toolbar.html", False, {"gm"}),
}
#: parts drawn inside the map: a fresh map brings them along
_IN_MAP = {"tokens", "walls", "templates", "fog"}
EVERYTHING = frozenset(PARTS)

#: who is under a template changes when a token comes, goes, moves or hides
_UNDER = ("templates", "template_list")

_BY_EVENT = {
    "token_moved": {"log", "fog", *_UNDER},
    "token_added": {"tokens", "token_list", "my_tokens", "combat", "attack", "log", "fog", *_UNDER},
    "token_updated": {"tokens", "token_list", "my_tokens", "combat", "attack", "fog", *_UNDER},
    "token_removed": {"tokens", "token_list", "my_tokens", "combat", "attack", "log", "fog", *_UNDER},
    "door_set": {"walls", "log", "fog", *_UNDER},
    "join_shown": {"join_toggle", "join_banner"},
    "player_joined": {"players", "token_list", "add_token", "log"},
    "player_reclaimed": {"players", "log"},
    "player_removed": {"players", "token_list", "add_token", "tokens", "my_tokens", "attack", "log", "fog"},
    "players_merged": {"players", "token_list", "add_token", "tokens", "my_tokens", "attack", "log", "fog"},
    "reclaim_allowed": {"players", "log"},
    "game_created": set(EVERYTHING),
    "dice_rolled": {"log"},
    "gm_password_set": {"log"},
    "settings_set": {"settings", "log"},
    # the current actor is drawn on the map, so a turn changes the tokens too
    "combat_started": {"combat", "tokens", "log"},
    "turn_started": {"combat", "tokens", "log"},
    "order_set": {"combat", "log"},
    "combat_ended": {"combat", "tokens", "log"},
    "acted": {"combat", "tokens", "log"},
    "undone": set(EVERYTHING),  # an undo may restore any part
    "attack_resolved": {"log", "tokens", "token_list", "my_tokens", "combat", "result_card", "defense_prompt", *_UNDER},
    "defense_asked": {"log", "defense_prompt"},
    "defense_dropped": {"log", "defense_prompt"},
    "template_placed": {"log", "attack", *_UNDER},
    "template_moved": {"log", *_UNDER},
    "template_removed": {"log", "attack", *_UNDER},
    "character_added": {"log", "tokens", "token_list", "my_tokens", "attack"},
    "sheet_updated": {"log", "tokens", "attack"},
    # the map editor: what is drawn on the board changes what tokens see
    **{kind: {"walls", "fog", "log", *_UNDER} for kind in (
        "wall_added", "wall_removed", "door_added", "door_removed", "cell_blocked", "cell_unblocked",
        "terrain_set", "cover_added", "cover_removed")},
    **{kind: {"map", "log", "editor", "add_token", "combat", "attack"} for kind in (
        "map_resized", "zone_added", "zone_updated", "zone_removed", "zones_linked", "fog_set")},
    "cells_revealed": {"fog", "tokens", "log", "combat", "attack", *_UNDER},
    "cells_hidden": {"fog", "tokens", "log", "combat", "attack", *_UNDER},
    "map_added": {"maps", "log"},
    "map_renamed": {"maps", "log"},
    "map_removed": {"maps", "log"},
    "map_imported": {"maps", "log"},
    "map_activated": set(EVERYTHING),  # another board, other tokens: every part may change
    "map_viewed": {"gm_map", "maps"},
    "picture_set": {"map", "maps", "log"},
    "picture_aligned": {"map", "maps"},
}


def changes_for(events: list[Event]) -> set[str]:
    """The parts of the screens that these events change.

    A move changes one token: it is sent as that token alone (``token:<id>``),
    so a token someone else is dragging at that moment is left alone.
    """
    changes: set[str] = set()
    for event in events:
        changes |= _BY_EVENT.get(event.type, set(EVERYTHING))
        if event.type == "token_moved":
            changes.add(f"token:{event.data['token_id']}")
            if "fight" in event.data:  # the rules booked it: moves left, free attacks offered
                changes.add("combat")
                if event.data["fight"].get("turn"):  # the move passed the turn: the acting ring moves
                    changes.add("tokens")
    if "tokens" in changes:
        changes = {c for c in changes if not c.startswith("token:")}
    return changes


def picture_of(game: Game, m: "maps.GameMap") -> dict | None:
    """The picture layer of a map: where it lies in cells and its address on this server."""
    box = maps.picture_box(m)
    if box is None:
        return None
    box = {k: (v or 0.0) for k, v in box.items()}  # no "-0.0" in the page
    return box | {"url": url_for("maps.picture", game_id=game.id, name=m.picture["name"]),
                  "width_px": m.picture["width"], "height_px": m.picture["height"]}


def map_context(game: Game, actor: Actor, tokens: list) -> dict:
    """The map this audience's screen draws: the active one, or for the GM the one being prepared."""
    shown = maps.shown_to_gm(game) if actor.role == "gm" else game.active_map
    m = game.maps.get(shown) or maps.GameMap(id=shown, name="", board=None)
    preparing = shown != game.active_map
    return {
        # the active map as this audience may see it (fog hides unseen walls); a prepared map is the GM's alone
        "board": maps.map_board(game, shown).to_dict() if preparing else fog.board_view(game, actor),
        "zones": maps.map_zones(game, shown) if shown in game.maps else game.zones,
        "shown_map": m,
        "preparing": preparing,
        "picture": picture_of(game, m),
        "map_tokens": list(m.tokens.values()) if preparing else tokens,
        "maps_list": maps.summary(game) if actor.role == "gm" and game.maps else [],
        "uvtt_limit": uvtt.MAX_FILE_BYTES,
        "picture_limit": uvtt.MAX_PICTURE_BYTES,
    }


def context(game: Game, actor: Actor, online: set[str] | None = None, extra: dict | None = None) -> dict:
    system = rules.get(game.system)
    tokens = game.visible_tokens(actor)
    return (extra or {}) | map_context(game, actor, tokens) | {
        "game": game,
        "actor": actor,
        "system": system,
        "tokens": tokens,
        "my_tokens": [t for t in tokens if actor.player_id and t.owner == actor.player_id],
        "players": list(game.players.values()),
        "online": online or set(),
        "log": list(reversed(game.log_for(actor)))[:20],
        "combat_view": combat.combat_view(game, actor),
        "sheet_of": lambda token: characters.sheet_of(game, token),
        "badges_of": lambda token: combat.badges(game, token),
        "actions_of": lambda token: combat.actions_now(game, token),
        "settings": combat.settings_of(game) if actor.role == "gm" else {},
        "templates_view": templates_cmds.view(game, actor),
        "area_templates": attacks.area_templates(system),
        "pending": attacks.pending_view(game, actor),
        "last_attack": last_attack(game, actor),
        "fog_layer": lambda: fog.layer(game, actor),
        "materials": editor.materials(game) if actor.role == "gm" else [],
        "zone_cover": editor.ZONE_COVER,
    }


def fragments(game: Game, actor: Actor, changes, online: set[str] | None = None, extra: dict | None = None) -> str:
    """The out-of-band fragments that bring this audience's screen up to date."""
    changes = set(changes)
    if "fog" in changes and not fog.enabled(game):
        changes.discard("fog")
    elif "fog" in changes and actor.role != "gm":
        # what this audience sees changed: tokens may come into view or leave it, so the
        # whole layer goes (a token that left the view is not in it), and what they know of the fight
        changes = {c for c in changes if not c.startswith("token:")} | {"tokens", "combat", "attack"}
        if fog.walls_stale(game, actor):  # new squares seen: their walls and doors come too
            changes.add("walls")
    if "map" in changes:  # the map holds the walls, the fog and the tokens
        changes = {c for c in changes if not c.startswith("token:") and c not in ("walls", "fog", "tokens")}
    ctx = context(game, actor, online, extra)
    out: list[str] = []
    svg: list[str] = []
    whole_map = "map" in changes or ("gm_map" in changes and actor.role == "gm")
    if whole_map:
        changes = {c for c in changes if c not in _IN_MAP and c != "gm_map" and not c.startswith("token:")} | {"map"}
    for name in sorted(changes):
        if name.startswith("token:"):
            if ctx["preparing"]:  # the GM looks at another map: the active map's tokens are not on it
                continue
            token = game.tokens.get(name.split(":", 1)[1])
            if token is not None and game.may_see(actor, token):
                svg.append(render_template("_token.html", token=token, oob=True, **ctx))
            continue
        template, is_svg, audiences = PARTS[name]
        if actor.role not in audiences:
            continue
        if name == "tokens":
            html = render_template(template, oob=True, **(ctx | {"tokens": ctx["map_tokens"]}))
        else:
            html = render_template(template, oob=True, **ctx)
        if name in ("walls", "map", "gm_map"):
            fog.walls_drawn(game, actor)
        (svg if is_svg else out).append(html)
    if svg:
        out.append("<template><svg>" + "".join(svg) + "</svg></template>")
    return "\n".join(out)


def attack_preview(game: Game, actor: Actor, view: dict) -> str:
    """The card that shows an attack before it is rolled (its line is drawn on the map by attack.js)."""
    tokens = {t.id: t for t in game.visible_tokens(actor)}
    return render_template("_attack_preview.html", view=view, tokens=tokens, actor=actor, game=game)


def last_attack(game: Game, actor: Actor) -> dict | None:
    """The newest attack this audience may read in the log, for the table screen's result card."""
    for entry in reversed(game.log_for(actor)):
        if entry.detail and entry.detail.get("card"):
            return {"seq": entry.seq, "text": entry.text, **entry.detail["card"]}
    return None
