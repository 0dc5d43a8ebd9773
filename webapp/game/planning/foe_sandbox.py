"""The copies the GM's foes' plans are played on (the game as a thread or process off the loop reads it, ``frozen``;
a sandbox for each action weighed), and what the planners read of a foe's weapons and of cover (#60): shared by the
square-grid reckoning (``suggestions``), the zone maps' (``suggestions_zones``) and the forecast's runs."""

from __future__ import annotations

import dataclasses

import rules
from rules import los
from rules.system import RuleError, RuleNotImplemented
from rules.text import say

from rules.dice import SeededDice

from ..bridge.fighting import named_default
from ..fight.aiming import AttackCommand, plan as aim_plan
from ..fight.combat import Act, decide as combat_decide, evolve as combat_evolve
from ..core.model import GM, Character, Game, Rejected, Token, copied, unstored
from ..core.text import N_


def is_foe(token) -> bool:
    """A token the GM plays: no player's, not a player character (only those have a tactic, plans, a runner)."""
    return token is not None and token.owner is None and token.kind != "pc"


def named_foe(game: "Game", token_id: str, refusal: str):
    """The GM's foe a command names; ``Rejected`` when the game has no such token, or it is a player's (``refusal``,
    an ``N_`` message with the token's ``name``)."""
    token = game.tokens.get(token_id)
    if token is None:
        raise Rejected(N_("no token %(id)s in this game"), id=repr(token_id))
    if not is_foe(token):
        raise Rejected(refusal, name=token.name)
    return token


def quiet(*_args) -> None:
    """A log that keeps nothing: the copy's lines are never read."""


def _twin(obj, **changes):
    """``dataclasses.replace(obj, **changes)`` for the game's, a token's and a character's classes, a fifth of its
    time (a plan makes a sandbox for each action it weighs, thousands in a forecast, #68): their ``__init__`` only
    sets the fields (no ``__post_init__``, no slots: checked below at import), so a new instance with the same
    ``__dict__`` is the same copy."""
    twin = object.__new__(type(obj))
    twin.__dict__.update(obj.__dict__)
    twin.__dict__.update(changes)
    return twin


def _twinnable(cls) -> None:
    """Refuse to import where ``_twin`` would not make ``cls``'s copy (an ``assert`` would be gone under ``-O``)."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__}: foe_sandbox._twin copies its fields without its __init__")


for _cls in (Game, Token, Character):
    _twinnable(_cls)


def frozen(game: "Game", indexes: bool = True) -> "Game":
    """A copy of the game that :func:`reckon` may read in another thread while the game goes on, sharing nothing
    the loop may change (issue #72): the board a snapshot (``Board.snapshot``), the tokens and characters with
    their sheets, the fight, settings, tactics and zones its own (dicts and lists made anew: ``model.copied``;
    words, numbers and the board's built indexes are values, shared; a token with neither a character nor a sheet
    given the system's sample once, not a copy at each of the rules' reads: #67). Cheap (a few ms for 60 foes):
    taken on the loop, it holds no lock. ``indexes`` False: the board's without its indexes (for a worker)."""
    played = {c.token_id for c in game.characters.values()}
    return dataclasses.replace(
        game, tokens={k: dataclasses.replace(t, sheet=copied(t.sheet) if t.sheet or k in played else named_default(
            rules.get(game.system), t.name)) for k, t in game.tokens.items()},
        characters={k: dataclasses.replace(c, sheet=copied(c.sheet)) for k, c in game.characters.items()},
        combat=copied(game.combat), log=[], vision=None,
        board=game.board.snapshot(indexes), settings=copied(game.settings),
        tactics=copied(game.tactics), zones=copied(game.zones), waits=copied(game.waits),
        pending_reroll=copied(game.pending_reroll), dice=copied(game.dice), foe_play=copied(game.foe_play),
        morale=copied(game.morale),
        templates={}, maps={}, handouts={}, pictures={}, players={}, explored={}, revealed=set(), removed={},
        removed_unseen={}, seat_requests={}, undone=[], screen_view=copied(game.screen_view))


def sandbox(game: "Game") -> "Game":
    """A copy of the game a plan may be played on: its tokens, characters and fight its own, the board shared
    (read only)."""
    return _twin(game, tokens={k: _twin(t) for k, t in game.tokens.items()},
                 characters={k: _twin(c) for k, c in game.characters.items()},
                 combat=copied(game.combat), log=[], vision=None)


def acted(view: "Game", token_id: str, action: str, options: dict | None = None) -> dict:
    """The turn's action ``action`` taken on ``view`` (a copy: :func:`sandbox`) as the GM would send it, judged by
    the very rule calls the command makes; its step (the command). ``Rejected`` where the rules refuse it."""
    step = {"type": "act", "token_id": token_id, "action": action, "options": dict(options or {})}
    with unstored():  # the copy's events are never stored
        for event in combat_decide(view, Act(**step), GM, SeededDice(0)):
            combat_evolve(view, event, quiet)
    return step


def weapons_of(system, sheet: dict) -> list[dict]:
    """The weapons the rules list on the sheet (none where they cannot read it)."""
    try:
        return list(system.weapons(sheet))
    except (RuleError, RuleNotImplemented, ValueError, TypeError, KeyError):
        return []


def cover_level(system, fraction: float, settings: dict) -> str | None:
    """The system's level of cover for a line of fire's cover fraction (its ``cover_effect``); None where it has no
    cover rules (the square-grid reckoning's *careful*, ``suggestions``)."""
    cover = los.Cover(fraction, [])
    try:
        try:
            return system.cover_effect(cover, settings).level
        except TypeError:  # (a system whose cover takes no settings)
            return system.cover_effect(cover).level
    except (RuleError, RuleNotImplemented, ValueError, TypeError):
        return None


def is_melee(weapon: dict) -> bool | None:
    """Whether a listed weapon strikes in melee (True), shoots or is thrown (False), or its data do not say (None)."""
    data = weapon.get("data") or {}
    kind = data.get("kind")
    if kind in ("melee", "ranged", "thrown"):
        return kind == "melee"
    if "reach" in data:
        return True
    if any(k in data for k in ("range", "max", "rof", "half_d")):
        return False
    return None


def weighed(view: "Game", cmd: AttackCommand, system) -> tuple[dict, dict, dict] | None:
    """The attack ``cmd`` as the GM would send it on ``view``: its plan (``aiming.plan``), the rules' exact odds and
    what it is worth (``attack_effect``); None when the table or the rules refuse it, or it cannot hit."""
    try:
        p = aim_plan(view, cmd, GM, listed=False)  # its options a way's of the rules' plan_turns
        odds = system.odds(p["request"])
        worth = system.attack_effect(p["request"], odds)
    except (Rejected, RuleError, RuleNotImplemented, ValueError, TypeError, KeyError):
        return None
    hit = odds.get("hit")
    if not isinstance(hit, (int, float)) or hit <= 0:
        return None
    return p, odds, worth


def finishing(worth: dict, target, share: float = 1.0) -> tuple[float | None, list]:
    """The chance an attack puts ``target`` down, as the system's ``attack_effect`` gives it (``down``: its exact odds of
    enough harm; #67), times ``share`` (the part of the shot's effect the plan gets); None where the odds do not say
    it. With it the why line's words when the chance is worth saying ("finishes Ann: 46% to put her down")."""
    down = worth.get("down")
    if not isinstance(down, (int, float)):
        return None, []
    down = round(float(down) * share, 4)
    if down < 0.005:
        return down, []
    return down, [say("finishes {target}: {percent} to put {target} down", target=target.name, percent=f"{down:.0%}")]
