"""What each audience may see of a game: its log lines, its fog, and the whole state the JSON API sends.

Above the feature modules (fog, combat, defenses, characters, maps, templates),
each of which knows what of its own part an audience may see; this puts
them together. The GM sees everything; a player and the table screen only
what :mod:`fog` lets them, and never a line naming a token they cannot see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from rules.cellmask import sorted_pairs

from ..fight import characters, defenses, reroll, soak, table_dice
from ..bridge import fighting, fog
from ..board import handouts, maps, templates
from ..tableside import screenview
from ..core.model import Actor, Game, LogEntry
from ..board import lighting

#: who learns what a command did, by command type (every command of ``features.FEATURES`` has a row: the registry
#: test, tests/unit/test_feature_registry.py). TABLE: it records events, which each audience reads as the fog and
#: each log line's audience let it (below). VIEW: a question or a view, nothing recorded: answered to its sender's
#: screens (a player's attack preview is echoed to the GM). ANONYMOUS: as TABLE, and its sender is named nowhere
#: (``safety.ANONYMOUS``: not in an event, not in a line, not beside its command id).
TABLE, VIEW, ANONYMOUS = "table", "view", "anonymous"
COMMANDS: dict[str, str] = {
    **dict.fromkeys(("move_token", "add_token", "update_token", "duplicate_token", "remove_token", "set_door"), TABLE),
    **dict.fromkeys(("show_join", "remove_player", "merge_players", "allow_reclaim", "answer_seat", "undo"), TABLE),
    **dict.fromkeys(("roll", "set_settings", "start_combat", "next_turn", "set_order", "end_combat", "act"), TABLE),
    "reach": VIEW, "preview_attack": VIEW,
    "waive_attack": TABLE,
    **dict.fromkeys(("attack", "choose_defense", "soak", "benny_reroll", "add_character", "update_sheet"), TABLE),
    **dict.fromkeys(("place_template", "move_template", "remove_template"), TABLE),
    **dict.fromkeys(("add_wall", "remove_wall", "add_door", "remove_door", "block_cell", "unblock_cell", "set_terrain",
                     "add_cover", "remove_cover", "resize_map", "add_zone", "update_zone", "remove_zone", "link_zones",
                     "set_fog", "reveal_cells", "hide_cells"), TABLE),
    **dict.fromkeys(("add_map", "rename_map", "remove_map", "activate_map", "view_map", "align_picture",
                     "remove_picture"), TABLE),
    **dict.fromkeys(("set_screen_touch", "set_screen_view", "calibrate_screen", "show_recap", "hide_recap"), TABLE),
    **dict.fromkeys(("set_lighting", "add_light", "update_light", "remove_light"), TABLE),
    **dict.fromkeys(("show_handout", "hide_handout", "remove_handout"), TABLE),
    "x_card": ANONYMOUS, "resume_scene": TABLE,
    **dict.fromkeys(("set_dice", "enter_dice", "call_off_roll"), TABLE),
    "set_tactic": TABLE,  # the GM's alone: its event's line is the GM's, the state's tactics the GM's (#60)
    "play_foes": TABLE,  # the GM's switch (#60): its lines are the GM's, its state the GM's alone
    "set_morale": TABLE,  # the GM's setting (#67): its line is the GM's, the state's morale the GM's
    "surrender": TABLE,  # a foe yields (#67): everyone sees it
    # the keys: a password is an event (its line is the GM's); a new join code or screen key is the GM's answer alone
    "set_gm_password": TABLE, "clear_gm_password": TABLE, "rotate_join_code": VIEW, "rotate_screen_key": VIEW,
    "replay": VIEW, "replay_end": VIEW,
}


def log_for(game: Game, actor: Actor) -> list[LogEntry]:
    """The log lines this audience may read, oldest first."""
    may_read = _may_read(game, actor)
    return [e for e in game.log if may_read(e)]


def newest_log(game: Game, actor: Actor, may_read: Callable[[LogEntry], bool] | None = None) -> Iterator[LogEntry]:
    """The same lines, newest first, tested only as far as they are read (a page shows the 20 newest of
    a log that grows all evening). ``may_read``: this audience's test, if the caller has it (``reader``)."""
    if may_read is None:
        may_read = _may_read(game, actor)
    return (e for e in reversed(game.log) if may_read(e))


def reader(game: Game, actor: Actor, visible: Callable[[], list] | None = None) -> tuple[tuple, Callable[[LogEntry], bool]]:
    """Which log lines this audience may read, as a key and the test: audiences with the same key, as the game
    stands now, read the same lines (the GM every line but a player's own; the others, with no fog, the lines for
    all; with fog, those for all that name no token or character it may not know: the key holds those names; a
    player, besides, the lines for that player alone, if the log holds one: the key holds the player). So one
    update reads the newest lines once for all the players that see the game alike, not once per player.
    ``visible``: gives ``fog.visible_tokens(game, actor)``, if the caller has it (asked with fog only: the
    costly part then)."""
    return _reader(game, actor, visible)


def may_read(game: Game, actor: Actor) -> Callable[[LogEntry], bool]:
    """Whether this audience may read a log line, as the game stands now (the recap asks it at each event)."""
    return _may_read(game, actor)


def _may_read(game: Game, actor: Actor) -> Callable[[LogEntry], bool]:
    return _reader(game, actor)[1]


def _reader(game: Game, actor: Actor, visible: Callable[[], list] | None = None) -> tuple[tuple, Callable[[LogEntry], bool]]:
    if actor.role == "gm":  # every line but those told to one player (the GM reads the whole of it in its own)
        return ("gm",), lambda e: not e.audience.startswith("player:")
    key, may_read = _table_reader(game, actor, visible)
    own = actor.audience
    if actor.role != "player" or not any(e.audience == own for e in game.log):  # LOG_KEEP lines
        return key, may_read
    # a line for this player alone (an unseen attacker's result to its defender, #58): read by no one else
    return (*key, own), lambda e: e.audience == own or may_read(e)


def _table_reader(game: Game, actor: Actor, visible: Callable[[], list] | None = None
                  ) -> tuple[tuple, Callable[[LogEntry], bool]]:
    pattern = None
    if game.fog_on:
        # a line written before the fog fell (or before the token went out of view) must not name it, nor
        # one naming a token since removed (where it was when it went is the fog's), a token of another map,
        # or a character this audience may not know (characters.view)
        unseen = characters.unseen_names(game, actor, visible() if visible is not None else None)
        if unseen:
            pattern = characters.naming(unseen)
    elif game.removed_unseen:
        # no fog now, but a token removed while nobody at the table saw it stays unnamed (#62): the lines written
        # about it while it stood in the fog say "all" (the fog hid them), and the fog is no longer there to
        unseen = set(game.removed_unseen.values()) | {  # and the characters it stood for, but a player's own
            c.name for c in game.characters.values() if c.token_id in game.removed_unseen
            and not characters.is_own(c, actor)}
        unseen -= {t.name for t in game.tokens.values() if not t.hidden}
        unseen.discard("")
        if unseen:
            pattern = characters.naming(frozenset(unseen))
    if pattern is None:
        return ("all",), lambda e: e.audience == "all"
    return ("all", pattern.pattern), lambda e: (e.audience == "all" and not pattern.search(e.text)
                                                and not (e.detail and pattern.search(repr(e.detail))))


def fog_state(game: Game, actor: Actor, pairs=sorted_pairs) -> dict:
    """Fog as this audience may know it: on or off, and the squares it sees now and saw before (each set of squares
    as ``pairs`` writes it: ``[[x, y], ...]``)."""
    out: dict = {"enabled": game.fog_on}
    if game.fog_on:
        seen = fog.view(game, actor)
        out["visible"] = None if seen is None else pairs(seen)
        out["explored"] = pairs(fog.explored(game, actor))
        out["revealed"] = sorted(list(c) for c in game.revealed)
    return out


def public_state(game: Game, actor: Actor, pairs=sorted_pairs) -> dict:
    """The game as this audience may see it (the JSON API's state); the fog's squares as ``pairs`` writes them
    (``fog_state``)."""
    board = fog.board_view(game, actor)
    return {
        "id": game.id,
        "name": game.name,
        "seq": game.seq,
        "system": game.system,
        "map": board,
        "tokens": [
            {k: v for k, v in t.to_dict().items() if k != "sheet" or actor.role == "gm"
             or (actor.role == "player" and t.owner == actor.player_id)}  # the screen's None owns no foe's
            | ({"zone": fighting.position_of(game, t)} if game.zones is not None else {})
            for t in fog.visible_tokens(game, actor)
        ],
        "zones": game.zones,
        "active_map": game.active_map,
        "picture": picture_view(game),
        **({"maps": maps.summary(game), "gm_view": game.gm_view} if actor.role == "gm" else {}),
        # the GM's foes' tactics (#60): how the GM plays them is the GM's alone
        **({"tactics": {k: dict(v) for k, v in game.tactics.items()}} if actor.role == "gm" else {}),
        # the "play the foes" switch (#60): the GM's alone
        **({"foe_play": dict(game.foe_play)} if actor.role == "gm" else {}),
        # what the foes do once most of them are down (#67): the GM's alone
        **({"morale": dict(game.morale)} if actor.role == "gm" else {}),
        "templates": [{**{k: v for k, v in t.items() if k not in ("under", "outline", "box")},
                       "under": [u.id for u in t["under"]]} for t in templates.view(game, actor)],
        "pending_defense": defenses.pending_view(game, actor),
        "pending_soak": soak.pending_view(game, actor),
        "pending_reroll": reroll.pending_view(game, actor),
        "dice": table_dice.state_view(game, actor),
        "pending_roll": table_dice.pending_view(game, actor),
        "fog": fog_state(game, actor, pairs),
        "lighting": lighting.state_view(game, actor),
        "players": [{"id": p.id, "name": p.name} for p in game.players.values()],
        "show_join": game.show_join,
        "allow_reclaim": game.allow_reclaim,
        "screen_touch": game.screen_touch,
        "paused": game.paused,  # the X-card (webapp/game/tableside/safety.py): paused, never by whom
        "recap_on": game.recap_on,  # the table screen shows the recap (webapp/game/views/recap.py)
        "settings": fighting.settings_of(game),
        "combat": fighting.combat_view(game, actor),
        "characters": characters.view(game, actor),
        "log": [e.to_dict() for e in log_for(game, actor)],
        "you": {"role": actor.role, "player_id": actor.player_id},
        "screen_view": screenview.view_for(game, actor),
        "handouts": handouts.view(game, actor),  # only those shown to this audience (the GM's: all)
        "pictures": handouts.pictures_view(game, actor),  # token picture id -> address, of tokens it sees
    }


def picture_view(game: Game) -> dict | None:
    """The active map's picture as every audience gets it (its name, type, alignment and address)."""
    m = game.maps.get(game.active_map)
    if m is None or not m.picture:
        return None
    return {"name": m.picture["name"], "content_type": m.picture["content_type"], "align": dict(m.align),
            "url": f"/games/{game.id}/pictures/{m.picture['name']}"}
