"""What a screen shows that can change (its parts) and which parts each event changes.

A part is one partial template (``PARTS``); an update sends the parts its events change (``changes_for``), each
audience only those its screen shows. ``BY_EVENT`` is keyed by the game's event types: an event with no entry
redraws everything, so tests/unit/test_feature_registry.py checks it against ``webapp.game.features``.
"""

from __future__ import annotations

from ..game import lighting, maps, screenview
from ..game.model import Event, Game

#: what a screen shows that can change, by the name used in ``changes``
PARTS = {
    # name: (template, svg?, audiences that show it)
    "tokens": ("_tokens.html", True, {"gm", "player", "screen"}),
    "walls": ("_walls.html", True, {"gm", "player", "screen"}),
    "token_list": ("_token_list.html", False, {"gm"}),
    "my_tokens": ("_my_tokens.html", False, {"player"}),
    "players": ("_players.html", False, {"gm"}),
    # the phone of the player whose turn it is, when it may not show it (webapp/live/devices.py): in the GM's fight card
    "turn_device": ("_turn_device.html", False, {"gm"}),
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
    # a roll made at the table (#59): the pad for its roller's player and the GM; who rolls what for the others
    "roll_prompt": ("_roll_prompt.html", False, {"gm", "player", "screen"}),
    # the dice roller, with who rolls the game's dice (the GM's choice; a player's "the app rolls for me")
    "roller": ("_roller.html", False, {"gm", "player"}),
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
    # a player's list of the board (#61): a mark that it is due again, fetched by the phones that show it
    "board_list_due": ("_board_list_due.html", False, {"player"}),
}
#: parts drawn inside the map: a fresh map brings them along
IN_MAP = {"tokens", "walls", "templates", "fog", "picture", "lighting"}
EVERYTHING = frozenset(PARTS)

#: who is under a template changes when a token comes, goes, moves or hides
_UNDER = ("templates", "template_list")

BY_EVENT = {
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
    "tactic_set": {"log"},  # a foe's tactic (#60): the GM's line alone
    "foe_passed": {"log"},  # a foe played with no plan (#60): the GM's line
    "foes_played": {"combat", "log"},  # the "play the foes" switch on the GM's fight card (#60), the GM's line
    "settings_set": {"settings", "log"},
    # the current actor is drawn on the map, so a turn changes the tokens too
    "combat_started": {"reroll_prompt", "combat", "tokens", "log", "feed"},  # the rules may roll (initiative, cards...)
    "turn_started": {"reroll_prompt", "combat", "tokens", "log", "feed"},
    "order_set": {"combat", "log"},
    "combat_ended": {"reroll_prompt", "soak_prompt", "combat", "tokens", "log"},  # the fight ends a Soak offer
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
    "free_attack_waived": {"combat", "log"},
    "template_placed": {"log", "attack", *_UNDER},
    "template_moved": {"log", *_UNDER},
    "template_removed": {"log", "attack", *_UNDER},
    "character_added": {"log", "tokens", "token_list", "my_tokens", "attack"},
    "sheet_updated": {"log", "tokens", "attack", "combat"},  # a token down: no foe may be left standing
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
    # a phone's turn bar gives way to the pause while it lasts (_turn_bar.html, #61)
    "scene_paused": {"pause", "turn_bar"},
    "scene_resumed": {"pause", "turn_bar"},
    # the table's dice (#59): the setting is said in the log; a roll asked, made or called off redraws its prompt
    # and the prompt whose answer waits for it (a defense chosen, a Soak or a reroll taken: put away meanwhile)
    "dice_set": {"log", "roller"}, "roll_asked": {"roll_prompt", "defense_prompt", "soak_prompt", "reroll_prompt"},
    "roll_called_off": {"log", "roll_prompt", "defense_prompt", "soak_prompt", "reroll_prompt"},
    "roll_settled": {"roll_prompt", "defense_prompt", "soak_prompt", "reroll_prompt"},
    "recap_shown": {"recap_screen", "log"},
}
# Who stands in the fight (its turn order) changes when it starts, turns, ends, is set, or a shot takes a token out:
# the attack card, drawn afresh, says so (each attacker's nearest standing foe, who is out). A move does not draw it
# again (the hottest event: with it, a move cost five times as much, bench.profile_move; #58): the page works the
# nearest foe out from the map's squares when an attacker is picked (static/js/attack.js); a move that passes the
# turn draws it (changes_for).
for _kind in ("combat_started", "turn_started", "order_set", "acted", "combat_ended", "attack_resolved"):
    BY_EVENT[_kind] = BY_EVENT[_kind] | {"attack"}
# A player's list of the board (#61) reads the tokens, where they stand, what they see, the walls, the fight and the
# badges: an event that changes any of those marks it due (the list itself is drawn only for the phones showing it)
_LISTED = {"tokens", "token_list", "my_tokens", "fog", "walls", "map", "combat", "attack"}
for _kind, _parts in BY_EVENT.items():
    if _kind == "token_moved" or _parts & _LISTED:
        _parts.add("board_list_due")


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
            changes.add("log")  # a token's light is logged (webapp/game/tokens.py)
        if event.type == "token_moved":
            changes.add(f"token:{event.data['token_id']}")
            if "fight" in event.data:  # the rules booked it: moves left, free attacks offered
                changes.add("combat")
                if event.data["fight"].get("turn"):  # the move passed the turn: the acting ring moves
                    changes |= {"tokens", "attack"}  # and who stands may change (above BY_EVENT)
    if "map" in changes or (changes & {"tokens", "fog"} and (game is None or screenview.current(game)["follow"])):
        changes.add("screen_view")  # the followed token hidden, shown, or out of the screen's view
    if "tokens" in changes:
        changes = {c for c in changes if not c.startswith("token:")}
    if "combat" in changes:  # the turn bar shows the same turn
        changes.add("turn_bar")
    if "players" in changes:  # the players card and the fight card's turn line show the same devices (devices.py)
        changes.add("turn_device")
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
    (a light, the ambient light, another map) comes with a ``lighting`` part of its own (``BY_EVENT``)."""
    for map_id in {game.active_map, maps.shown_to_gm(game)}:
        m = game.maps.get(map_id)
        if m is not None and m.ambient != "bright":
            return False
    return True
