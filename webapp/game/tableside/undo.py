"""Undo: the GM takes back the last action by appending its inverse; the log is never rewritten.

The inverse is a fact like any other event: ``undone`` carries the parts of
the state as they were before the action (only the parts that differ now),
taken from a replay of the log up to it. Applying it needs neither the rules
nor the log, so a replay gives the same game.

The replay starts from the game's snapshot when the action comes after it (the
store keeps the newest one, written every few hundred events), so an undo in a
long campaign replays a few hundred events, not the whole log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from rules.board import Board

from ..core import waits
from ..core.feature import Feature
from ..bridge.fog import without_memory
from ..core.model import Character, Event, Game, Rejected, Token
from rules.text import say
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Actor

#: facts that are not the GM's to take back: who joined, what the dice said, undo itself
NOT_UNDOABLE = frozenset({"game_created", "player_joined", "dice_rolled", "join_shown", "undone", "gm_password_set",
                          "map_added", "map_renamed", "map_removed", "map_viewed", "picture_set", "picture_aligned",
                          "screen_touch_set", "screen_view_set",
                          # hand-outs and the token pictures' library: shown is shown (hide_handout puts one away)
                          "handout_added", "handout_shown", "handout_hidden", "handout_removed", "picture_added",
                          # who rolls the dice (#59): a table's setting, not a step of the story
                          "dice_set",
                          # a foe's tactic (#60): how the GM means to play it, not a step of the story
                          "tactic_set",
                          # the "play the foes" switch (#60): the GM's way of playing, not a step of the story
                          "foes_played", "foe_passed",
                          # what the foes do once most of them are down (#67): the GM's way of playing them
                          "morale_set"})
#: the table's dice's records (#59): a roll asked, entered, settled or called off is how a command was decided, not a
#: step of its own; undo passes over them to the command's events, and never brings back a roll that waited (#70)
ROLL_RECORDS = frozenset({"roll_asked", "roll_entered", "roll_settled", "roll_called_off"})
#: showing another map is a line undo does not cross: what came before happened on another map
MAP_SWITCH = frozenset({"map_activated", "map_imported"})
#: events that may name a map being prepared (``map_id``): undo restores the active map's alone
_ON_A_MAP = frozenset({"door_set", "lighting_set", "light_added", "light_updated", "light_removed"})

#: what undo does with what each command records, by command type (every command of ``features.FEATURES`` has a row:
#: the registry test, tests/unit/test_feature_registry.py). BACK: undo takes it back (its events are none of the
#: above; ``_parts`` says what is restored). KEPT: a fact undo passes over (its events are in NOT_UNDOABLE). LINE:
#: undo stops there (MAP_SWITCH). NOTHING: nothing recorded to take back (a question, a view, a new key).
BACK, KEPT, LINE, NOTHING = "back", "kept", "line", "nothing"
COMMANDS: dict[str, str] = {
    **dict.fromkeys(("move_token", "add_token", "update_token", "duplicate_token", "remove_token", "set_door"), BACK),
    "show_join": KEPT, **dict.fromkeys(("remove_player", "merge_players", "allow_reclaim", "answer_seat"), BACK),
    "undo": KEPT,
    "roll": KEPT, **dict.fromkeys(("set_settings", "start_combat", "next_turn", "set_order", "end_combat", "act"), BACK),
    "reach": NOTHING, "preview_attack": NOTHING,
    "waive_attack": BACK,
    **dict.fromkeys(("attack", "choose_defense", "soak", "benny_reroll", "add_character", "update_sheet"), BACK),
    **dict.fromkeys(("place_template", "move_template", "remove_template"), BACK),
    **dict.fromkeys(("add_wall", "remove_wall", "add_door", "remove_door", "block_cell", "unblock_cell", "set_terrain",
                     "add_cover", "remove_cover", "resize_map", "add_zone", "update_zone", "remove_zone", "link_zones",
                     "set_fog", "reveal_cells", "hide_cells"), BACK),
    **dict.fromkeys(("add_map", "rename_map", "remove_map", "view_map", "align_picture", "remove_picture"), KEPT),
    "activate_map": LINE,
    **dict.fromkeys(("set_screen_touch", "set_screen_view", "calibrate_screen"), KEPT),
    # the recap's and the X-card's events are undoable as the log goes (undo marks them and says so), though
    # ``_parts`` restores neither the recap nor the pause
    **dict.fromkeys(("show_recap", "hide_recap", "x_card", "resume_scene"), BACK),
    **dict.fromkeys(("set_lighting", "add_light", "update_light", "remove_light"), BACK),
    **dict.fromkeys(("show_handout", "hide_handout", "remove_handout"), KEPT),
    "set_gm_password": KEPT, "clear_gm_password": KEPT, "rotate_join_code": NOTHING, "rotate_screen_key": NOTHING,
    "replay": NOTHING, "replay_end": NOTHING,
    # the table's dice (#59): the setting is kept; a roll asked, entered or called off is taken back with the
    # command it belongs to (an undo while a roll waits is refused: table_dice.waiting)
    "set_dice": KEPT, **dict.fromkeys(("enter_dice", "call_off_roll"), BACK),
    "set_tactic": KEPT,  # the GM's foes' tactics (#60)
    "play_foes": KEPT,  # the "play the foes" switch (#60)
    "set_morale": KEPT,  # what the foes do once most are down (#67)
    "surrender": BACK,  # a foe yields (#67): the tokens restored take the mark back
}


class Undo(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["undo"]


def _parts(game: "Game") -> dict:
    """The parts of the state an action can change, as plain data."""
    return {
        "tokens": [t.to_dict() for t in game.tokens.values()],
        "board": game.board.to_dict(),
        "combat": game.combat,
        "settings": dict(game.settings),
        "characters": [c.to_dict() for c in game.characters.values()],
        "templates": [dict(t) for t in game.templates.values()],
        **waits.saved(game),  # what the table waits for (pending_defense, pending_soak, pending_roll)
        "pending_reroll": game.pending_reroll,
        "zones": game.zones,
        "fog": {"enabled": bool(game.fog_on), "revealed": sorted(list(c) for c in game.revealed)},
        "lighting": _lighting(game),
    }


def _lighting(game: "Game") -> dict:
    m = game.maps.get(game.active_map)
    return {"ambient": m.ambient, "lights": list(m.lights)} if m is not None else {"ambient": "bright", "lights": []}


def last_action(game: "Game", events: list[Event], first_seq: int = 1) -> int | None:
    """The seq of the newest event that can be undone and is not undone yet (``events[0]`` has ``first_seq``)."""
    for index in range(len(events) - 1, -1, -1):
        seq = first_seq + index
        if events[index].type in MAP_SWITCH:
            return None
        if events[index].data.get("map_id") and events[index].type in _ON_A_MAP:
            continue  # a door or a light on a map being prepared: not the board undo restores
        if events[index].type not in NOT_UNDOABLE | ROLL_RECORDS and seq not in game.undone:
            return seq
    return None


def state_before(game_id: str, seq: int, store, replay) -> "Game":
    """The game as it was just before event ``seq``: from the snapshot when it is older, else from the start.
    ``replay`` is the command table's (events -> game): undo sits below it and is handed it."""
    snap = store.snapshot(game_id)
    if snap is not None and snap[0] < seq:
        return replay(game_id, store.events(game_id, after=snap[0])[: seq - 1 - snap[0]], Game.from_dict(snap[1]))
    return replay(game_id, store.events(game_id)[: seq - 1])


def decide(game: "Game", actor: "Actor", store, game_id: str, replay) -> list[Event]:
    """``store`` is the game's log (``events(game_id, after)``, ``snapshot(game_id)``), read, never written;
    ``replay`` rebuilds a game from events (``webapp.game.table.replay``)."""
    if actor.role != "gm":
        raise Rejected(N_("only the GM can undo"))
    if game.pending_roll:  # the roll first: undo takes back what was done, not what waits (#59)
        raise Rejected(N_("a roll is being made at the table: its faces are entered first, or the GM lets the app "
                          "roll it or calls it off"))
    snap = store.snapshot(game_id)
    after = snap[0] if snap is not None else 0
    tail = store.events(game_id, after=after)
    seq = last_action(game, tail, after + 1)
    if seq is None and after:
        seq = last_action(game, store.events(game_id))
    if seq is None:
        raise Rejected(N_("there is nothing to undo"))
    kind = (tail[seq - after - 1] if seq > after else store.events(game_id, after=seq - 1)[0]).type
    with without_memory():  # undo restores the board and tokens, never what players have seen
        before = _parts(state_before(game_id, seq, store, replay))
    now = _parts(game)
    restore = {k: v for k, v in before.items() if v != now[k] and k != "pending_roll"}  # see ROLL_RECORDS
    return [Event("undone", {"seq": seq, "type": kind, "restore": restore})]


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    restore = d["restore"]
    if "tokens" in restore:
        game.tokens = {t["id"]: Token(**t) for t in restore["tokens"]}
    if "board" in restore:
        game.board = Board.from_dict(restore["board"])
    if "combat" in restore:
        game.combat = restore["combat"]
    if "settings" in restore:
        game.settings = dict(restore["settings"])
    if "characters" in restore:
        game.characters = {c["id"]: Character(**c) for c in restore["characters"]}
    waits.restore(game, restore)
    if "pending_reroll" in restore:
        game.pending_reroll = restore["pending_reroll"]
    if "templates" in restore:
        game.templates = {t["id"]: dict(t) for t in restore["templates"]}
    if "zones" in restore:
        game.zones = restore["zones"]
    if "fog" in restore:
        game.fog_on = restore["fog"]["enabled"]
        game.revealed = {tuple(c) for c in restore["fog"]["revealed"]}
    if "lighting" in restore and game.active_map in game.maps:
        m = game.maps[game.active_map]
        m.ambient, m.lights = restore["lighting"]["ambient"], list(restore["lighting"]["lights"])
    game.undone.append(d["seq"])
    what = d["type"].replace("_", " ")
    log(say("the GM undid the last action ({what})", what=what), "all", None)


#: decided by the hub (``decide`` reads the store's log), applied here
#: committed alone, decided with the game's log (the hub's "alone" route)
FEATURE = Feature("undo", (Undo,), events=("undone",), evolve=evolve, routes={Undo: "alone"}, alone=decide)
