"""Who may do what: every command and every HTTP route, by role, in one place.

Roles: the GM (their key, and the GM password when the game has one), a
player (``owner`` when the command or page is about their own token or
character, ``player`` for any player), the table screen (watches, controls
nothing), no credential, a credential of another game (the same as none).

``check_command`` says who may send a command at all, and for owner-rules
whether what it refers to is the sender's; the decide functions keep their
finer checks ("not your turn", "only the GM can force a move"). The web side's
gate (``webapp.web.gate``) runs before every HTTP request and refuses a route to
a role the table below does not list. A command or route with no row is refused (and fails the
table-driven test in tests/app/test_access_matrix.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .bridge import fog
from .core.model import SCREEN as SCREEN_ACTOR, Rejected
from .core.text import N_


class Forbidden(Rejected):
    """A refusal of the access matrix: this sender may not send this (the sender sees only the message)."""

GM = "gm"
OWNER = "owner"  # a player, on their own token or character (or turn)
PLAYER = "player"  # any player
SCREEN = "screen"
TOUCH = "touch"  # the table screen, while the GM lets it take touches (webapp/game/tableside/touch.py), on a token it shows
ANYONE = "anyone"  # no credential needed (the join code, where one is asked, is checked by the route)

#: the roles the table-driven test plays, for commands and routes
ROLES = ("gm", "owner", "other_player", "screen", "none", "other_game")


@dataclass(frozen=True)
class Rule:
    """Who may send a command; ``refers_to`` is what an owner-rule checks: (kind, field)."""

    who: frozenset
    refers_to: tuple[str, str | None] | None = None
    not_yours: str = N_("%(name)s is not yours")


def _rule(*who: str, refers_to=None, not_yours: str = N_("%(name)s is not yours")) -> Rule:
    return Rule(frozenset(who), refers_to, not_yours)


#: every command type (``table.COMMAND_TYPES``, the queries, the keys and replay commands) and the drag preview
COMMANDS: dict[str, Rule] = {
    # the board
    "move_token": _rule(GM, OWNER, TOUCH, refers_to=("token", "token_id"), not_yours=N_("%(name)s is not yours to move")),
    "add_token": _rule(GM),
    # a player sets the picture of their own token only (decided in tokens: the other fields are the GM's)
    "update_token": _rule(GM, OWNER, refers_to=("token", "token_id")),
    "duplicate_token": _rule(GM),
    "remove_token": _rule(GM),
    "set_door": _rule(GM),
    # the seats
    "show_join": _rule(GM),
    "remove_player": _rule(GM),
    "merge_players": _rule(GM),
    "allow_reclaim": _rule(GM),
    "answer_seat": _rule(GM),
    "undo": _rule(GM),
    # dice and fights
    "roll": _rule(GM, PLAYER),
    "set_settings": _rule(GM),
    "start_combat": _rule(GM),
    "next_turn": _rule(GM, OWNER, refers_to=("turn", None)),
    "set_order": _rule(GM),
    "end_combat": _rule(GM),
    "act": _rule(GM, OWNER, refers_to=("token", "token_id")),
    # a question about a token the sender can see (the touch table's too: a finger on a token shades its reach)
    "reach": _rule(GM, PLAYER, TOUCH, refers_to=("token", "token_id")),
    "preview_attack": _rule(GM, OWNER, refers_to=("token", "attacker")),
    "attack": _rule(GM, OWNER, refers_to=("token", "attacker")),
    # characters (a player adds characters for themselves only: decided in characters.decide)
    "add_character": _rule(GM, PLAYER),
    "update_sheet": _rule(GM, OWNER, refers_to=("character", "character_id")),
    # keys and the GM password (webapp/game/tableside/keys.py)
    "set_gm_password": _rule(GM),
    "clear_gm_password": _rule(GM),
    "rotate_join_code": _rule(GM),
    "rotate_screen_key": _rule(GM),
    # Socket.IO ``preview``: a token being dragged (not a command, never stored)
    "drag_preview": _rule(GM, OWNER, TOUCH, refers_to=("token", "token_id"), not_yours=N_("%(name)s is not yours to move")),
    # the touch table (webapp/game/tableside/touch.py)
    "set_screen_touch": _rule(GM),
    # the recap over the table screen's map (webapp/game/views/recap.py)
    "show_recap": _rule(GM),
    "hide_recap": _rule(GM),
    # the map editor and fog of war (GM)
    **{kind: _rule(GM) for kind in (
        "add_wall", "remove_wall", "add_door", "remove_door", "block_cell", "unblock_cell", "set_terrain",
        "add_cover", "remove_cover", "resize_map", "add_zone", "update_zone", "remove_zone", "link_zones",
        "set_fog", "reveal_cells", "hide_cells")},
    # maps and pictures (GM)
    **{kind: _rule(GM) for kind in (
        "add_map", "rename_map", "remove_map", "activate_map", "view_map", "align_picture", "remove_picture")},
    # lights and the ambient light (GM; webapp/game/board/lighting.py)
    **{kind: _rule(GM) for kind in ("set_lighting", "add_light", "update_light", "remove_light")},
    # hand-outs (webapp/game/board/handouts.py)
    **{kind: _rule(GM) for kind in ("show_handout", "hide_handout", "remove_handout")},
    # a defense the rules ask for: the defender's player (decided in attacks: whose token is attacked)
    "choose_defense": _rule(GM, PLAYER),
    # a free attack a move gave: its attacker's player waives it, the GM for anyone (decided in free_attacks)
    "waive_attack": _rule(GM, PLAYER),
    # a Soak roll the rules offer: the wounded token's player, the GM for anyone (decided in soak)
    "soak": _rule(GM, PLAYER),
    # a Benny reroll after a missed attack: the attacker's player, the GM for anyone (decided in reroll)
    "benny_reroll": _rule(GM, PLAYER),
    # area templates: any player lays one; moving or removing it is for whoever laid it (decided in templates)
    "place_template": _rule(GM, PLAYER),
    "move_template": _rule(GM, PLAYER),
    "remove_template": _rule(GM, PLAYER),
    # the table screen's view (webapp/game/tableside/screenview.py): the GM steers it; the screen's calibration aid sets
    # the TV's width while the GM has it open (decided in screenview)
    "set_screen_view": _rule(GM),
    "calibrate_screen": _rule(GM, SCREEN),
    # the replay (webapp/game/views/replay_view.py): a view, nothing stored. The GM on their page and the table
    # screen; a player on their own screens, of the fights they were in (decided in replay_view)
    "replay": _rule(GM, PLAYER),
    "replay_end": _rule(GM, PLAYER),
    # the X-card (webapp/game/tableside/safety.py): anyone at the table pauses the scene, anonymously; the GM resumes
    "x_card": _rule(GM, PLAYER),
    # the table's dice (#59): decided in table_dice (a player sets their own only; enters the rolls asked of them)
    "set_dice": _rule(GM, PLAYER), "enter_dice": _rule(GM, PLAYER), "call_off_roll": _rule(GM),
    "resume_scene": _rule(GM),
    # the GM's foes' tactics (#60)
    "set_tactic": _rule(GM),
    "play_foes": _rule(GM),  # the "play the foes" switch (#60, webapp/game/planning/foeplay.py)
    # once most of the foes are down, they fall back or surrender; a foe yields (#67, webapp/game/planning/morale.py)
    "set_morale": _rule(GM), "surrender": _rule(GM),
}

#: rows written ahead of the code they are for (branches being merged: fog, maps); the
#: matrix test lets a row wait for its command or route only when it is named here
AWAITED: frozenset[str] = frozenset()


def _field(cmd: Any, name: str) -> Any:
    return cmd.get(name) if isinstance(cmd, dict) else getattr(cmd, name, None)


def _referent_is_theirs(game, cmd: Any, actor, rule: Rule) -> None:
    """Rejected unless what an owner-rule command refers to is the player's (a hidden one does not exist)."""
    kind, name = rule.refers_to
    if kind == "token":
        token_id = _field(cmd, name)
        token = game.tokens.get(token_id) if isinstance(token_id, str) else None
        if token is None or not fog.may_see(game, actor, token):
            raise Forbidden(N_("no token %(id)s in this game"), id=repr(token_id))
        if token.owner != actor.player_id:
            raise Forbidden(rule.not_yours, name=token.name)
        return
    if kind == "character":
        character_id = _field(cmd, name)
        character = game.characters.get(character_id) if isinstance(character_id, str) else None
        token = game.tokens.get(character.token_id) if character and character.token_id else None
        if character is None or character.owner != actor.player_id or (token and not fog.may_see(game, actor, token)):
            raise Forbidden(N_("no character %(id)s of yours in this game"), id=repr(character_id))
        return
    if kind == "turn":
        current = game.tokens.get((game.combat or {}).get("current") or "")
        if current is None or current.owner != actor.player_id or not fog.may_see(game, actor, current):
            raise Forbidden(N_("only the GM, or the player whose turn it is, can end the turn"))
        return
    raise AssertionError(f"unknown referent {kind!r}")  # pragma: no cover


def _screen_touches(game, cmd: Any, rule: Rule) -> None:
    """Rejected unless the GM lets the table screen take touches and the token is one the screen shows."""
    if not getattr(game, "screen_touch", False):
        raise Forbidden(N_("the table screen only shows the map: the GM has not turned touch on for it"))
    token_id = _field(cmd, rule.refers_to[1])
    token = game.tokens.get(token_id) if isinstance(token_id, str) else None
    if token is None or not fog.may_see(game, SCREEN_ACTOR, token):
        raise Forbidden(N_("no token %(id)s in this game"), id=repr(token_id))


def check_command(game, cmd: Any, actor, kind: str | None = None) -> None:
    """Rejected when this sender may not send this command (at all, or about that token or character)."""
    kind = kind or _field(cmd, "type")
    rule = COMMANDS.get(kind)
    if rule is None:
        raise Forbidden(N_("no access rule for %(kind)s"), kind=repr(kind))  # a command nobody listed is nobody's
    if actor.role == "gm":
        if GM in rule.who:
            return
        raise Forbidden(N_("nobody may do that"))  # pragma: no cover - every row lists the GM today
    if actor.role == "screen":
        if SCREEN in rule.who:
            return
        if TOUCH in rule.who:
            _screen_touches(game, cmd, rule)
            return
        raise Forbidden(N_("the table screen only shows the map"))
    if PLAYER in rule.who:
        return
    if OWNER in rule.who:
        _referent_is_theirs(game, cmd, actor, rule)
        return
    raise Forbidden(N_("only the GM can do that"))


# --- HTTP routes --------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    """Who may use a route; ``refused`` is the answer to anyone else (302: back to the lobby);
    ``anonymous`` the answer to a request with no credential of this game (default: ``refused``)."""

    who: frozenset
    refused: int = 403
    anonymous: int | None = None
    refers_to: tuple[str, str] | None = None  # ("token", view arg) for owner-rules
    message: str = "This page is not for your seat."


def _route(*who: str, refused: int = 403, anonymous: int | None = None, refers_to=None,
           message: str = N_("This page is not for your seat.")) -> Route:
    return Route(frozenset(who), refused, anonymous, refers_to, message)


#: every endpoint of ``app.url_map``
ROUTES: dict[str, Route] = {
    "static": _route(ANYONE),
    "favicon": _route(ANYONE),
    "i18n.script_catalog": _route(ANYONE),  # the scripts' words in a language (webapp/web/i18n.py)
    # the web app manifest and its start address (webapp/web/device.py): /resume finds this device's own seat
    "device.manifest": _route(ANYONE),
    "device.resume": _route(ANYONE),
    "help.index": _route(ANYONE),
    "help.system": _route(ANYONE),
    "lobby.index": _route(ANYONE),
    "lobby.create": _route(ANYONE),
    "game.join_form": _route(ANYONE),
    "game.join": _route(ANYONE),  # the join code is the credential; the route checks it
    # %(command)s: the command that started this server (webapp/launch.py), said by the gate
    "game.gm": _route(GM, message=N_("This is the GM's page: open it with the GM link that %(command)s printed.")),
    "game.gm_password": _route(GM, message=N_("Open the GM link first; then this page asks for the password.")),
    "game.security_panel": _route(GM, message=N_("Only the GM changes the game's keys and password.")),
    "game.play": _route(PLAYER, refused=302),
    "game.screen": _route(SCREEN, message=N_("This is the table screen: open it from the GM's page.")),
    "game.command": _route(GM, PLAYER, message=N_("You are not in this game.")),
    # the replay's timeline (#36): the GM's whole game, a player's fights (what they saw; decided in replay_view)
    "game.timeline": _route(GM, PLAYER, message=N_("The replay is the GM's and the players'.")),
    # a player's list of the board (#61): what their tokens see, drawn for them
    "game.board_list": _route(PLAYER, message=N_("The list of the board is a player's.")),
    # a foe's plans on its turn (#60): the GM's alone
    "game.foe_plans": _route(GM, message=N_("The foes' plans are the GM's.")),
    # the forecast of a fight (#68): the GM's card alone
    **{f"game.{name}": _route(GM, message=N_("The forecast is the GM's."))
       for name in ("forecast_form", "forecast_start", "forecast_show", "forecast_stop")},
    "game.sheet": _route(GM, OWNER, refused=404, refers_to=("token", "token_id"),
                         message=N_("No such token, or not yours to look at.")),
    "game.edit_sheet": _route(GM, OWNER, refused=404, refers_to=("token", "token_id"),
                              message=N_("No such token, or not yours to look at.")),
    "api.create_game": _route(ANYONE),
    "api.add_player": _route(ANYONE),  # the join code in the body is checked by the route (403)
    "api.add_token": _route(GM, anonymous=401, message="only the GM can add tokens"),
    "api.state": _route(GM, PLAYER, SCREEN, anonymous=401),
    "api.command": _route(GM, PLAYER, SCREEN, anonymous=401),  # the command's own row decides then (422)
    # a foe's plans (#60): the GM's alone; a player's or the screen's key gets 403 and nothing else
    "api.suggestions": _route(GM, anonymous=401, message="suggestions are for the GM"),
    # the forecast of a fight (#68): the GM's alone; a player's, the screen's or a stranger's key gets 403 and nothing else
    **{f"api.{name}": _route(GM, anonymous=403, message="the forecast is for the GM")
       for name in ("start_forecast", "forecast_figures", "stop_forecast")},
    "api.import_map": _route(GM, anonymous=401, message="only the GM imports maps"),
    "api.map_picture": _route(GM, anonymous=401, message="only the GM sets a map's picture"),
    "maps.page_import": _route(GM, message=N_("Only the GM imports maps.")),
    "maps.page_picture": _route(GM, message=N_("Only the GM sets a map's picture.")),
    "maps.picture": _route(GM, PLAYER, SCREEN, message=N_("Pictures are for the seats of this game.")),
    # hand-outs and token pictures (#27): a player uploads for their own token only (decided by the view)
    "api.handout": _route(GM, anonymous=401, message="only the GM makes hand-outs"),
    "api.token_picture": _route(GM, PLAYER, anonymous=401, message="only the GM and players upload token pictures"),
    "handouts.page_handout": _route(GM, message=N_("Only the GM makes hand-outs.")),
    "handouts.page_picture": _route(GM, PLAYER, message=N_("Only the GM and players upload token pictures.")),
    # the recap (#36): any seat of the game, each told what it saw
    "recap.page": _route(GM, PLAYER, SCREEN, message=N_("The recap is for the seats of this game.")),
    # room mode (#38, webapp/web/room/room.py): no game's key; the organiser password, a table's printed key or its
    # GM PIN is the credential, checked by each route
    **{f"room.{name}": _route(ANYONE) for name in (
        "index", "tables", "setup_form", "setup", "login", "logout", "make_tables", "edit_table", "new_pin",
        "new_code", "confirm_reset", "reset", "close", "reopen", "download", "sheets", "sheet", "door", "pin")},
}


def route_allows(rule: Route, game, actor, view_args: dict) -> bool:
    """Whether this (authenticated) actor may use the route."""
    if ANYONE in rule.who:
        return True
    if actor.role == "gm":
        return GM in rule.who
    if actor.role == "screen":
        return SCREEN in rule.who
    if PLAYER in rule.who:
        return True
    if OWNER in rule.who and rule.refers_to is not None:
        token = game.tokens.get(view_args.get(rule.refers_to[1]) or "")
        return token is not None and fog.may_see(game, actor, token) and token.owner == actor.player_id
    return False
