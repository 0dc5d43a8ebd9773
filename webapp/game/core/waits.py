"""What the table waits for (#66), in one list owned here: an attack's defense its defender must choose (#58), a
Soak roll a wounded Wild Card must answer (#58), a roll made at the table whose faces must be entered (#59).

Each kind of wait says who must answer it (the token whose answer it is: the defender, the wounded, the roller),
the commands that answer it, what it holds meanwhile (the turn moving on, the fight's end, or every command that
could change what a waiting roll decides), and its words: the foes' plans' "waiting" and the refusals of what it
holds, with the name for a reader who may see the token and without it for another.

The list is kept on the game (``Game.waits``: ``[kind, entry]`` pairs in the order asked); only the functions
here change it. The state's ``pending_defense``, ``pending_soak`` and ``pending_roll`` are read from it, as the
protocol and the saved games have them (:func:`saved`, ``model.saved_waits``). Readers: the refusals
(webapp/game/fight/waiting.py, the table's dice), the foes' plans and Play the foes, the GM's calling off, undo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from rules.text import Say, say, unpack

from .model import saved_waits
from .text import N_

if TYPE_CHECKING:
    from .model import Game


@dataclass(frozen=True)
class Kind:
    """One kind of wait: ``name``; ``who(entry)``: the token whose answer it is; ``answers``: the command types that
    answer it; ``holds``: the moments it holds (``"turn"``: the turn moving on, ``"fight_end"``: the fight's end,
    ``"attack"``: another attack, ``"commands"``: every command but ``allows``); ``said(entry, name)``: its words for the foes' plans, with
    ``name(token_id)`` (None for no token on the map); ``refusal``/``refusal_unseen``: what a held command is told, with and without the name."""

    name: str
    who: Callable[[dict], str | None]
    answers: frozenset[str]
    holds: frozenset[str]
    said: Callable[[dict, Callable[[str | None], str]], Say]
    refusal: str
    refusal_unseen: str
    many: bool = False  # several at once (a Soak roll per wounded Wild Card); else one at a time
    allows: frozenset[str] = frozenset()


def _rolled(entry: dict, name) -> Say:
    roll = entry.get("roll") or {}
    purpose = unpack(roll.get("purpose")) if roll.get("purpose") else ""
    roller = name(roll.get("roller"))
    if roller is not None:
        return say("{name}'s roll waits for the table's dice: {purpose}", name=roller, purpose=purpose)
    return say("A roll waits for the table's dice: {purpose}", purpose=purpose)


#: what a roll made at the table lets through while it waits: the roll's own commands, the X-card, the questions,
#: views and keys, and the GM's table-side settings (nothing that could change what the roll decides)
WHILE_ROLLING = frozenset({"set_dice", "enter_dice", "call_off_roll", "x_card", "resume_scene", "roll", "reach",
                           "preview_attack", "show_join", "rotate_join_code", "rotate_screen_key", "replay",
                           "replay_end", "show_recap", "hide_recap", "set_gm_password", "clear_gm_password",
                           "answer_seat", "allow_reclaim", "view_map", "set_screen_view", "calibrate_screen"})

DEFENSE = Kind(
    "defense", who=lambda e: e.get("target"), answers=frozenset({"choose_defense"}),
    holds=frozenset({"turn", "fight_end", "attack"}),
    said=lambda e, name: say("{attacker}'s attack waits for {target}'s defense",
                             attacker=name(e.get("attacker")) or "?", target=name(e.get("target")) or "?"),
    refusal=N_("%(name)s has not chosen a defense yet: wait for it, or the GM calls the attack off (Call the attack "
               "off)"),
    refusal_unseen=N_("a defense has not been chosen yet: wait for it, or the GM calls the attack off (Call the "
                      "attack off)"))
SOAK = Kind(
    "soak", who=lambda e: e.get("target"), answers=frozenset({"soak"}), holds=frozenset({"turn"}),
    said=lambda e, name: say("{name}'s Soak roll waits for an answer", name=name(e.get("target")) or "?"),
    refusal=N_("%(name)s has not answered the Soak roll yet: Spend a Benny and soak, or Take the Wounds (the GM may "
               "answer for anyone)"),
    refusal_unseen=N_("a Soak roll has not been answered yet (the GM may answer for anyone)"), many=True)
ROLL = Kind(
    "roll", who=lambda e: (e.get("roll") or {}).get("roller"), answers=frozenset({"enter_dice", "call_off_roll"}),
    holds=frozenset({"commands"}), said=_rolled,
    refusal=N_("%(name)s is rolling (%(purpose)s): the faces are entered first, or the GM lets the app roll it or "
               "calls it off"),
    refusal_unseen=N_("a roll is being made at the table: its faces are entered first, or the GM lets the app roll "
                      "it or calls it off"), allows=WHILE_ROLLING)
#: the kinds, in the order their refusals and words are told when several wait
KINDS = {k.name: k for k in (DEFENSE, SOAK, ROLL)}


@dataclass(frozen=True)
class Wait:
    kind: Kind
    entry: dict

    @property
    def who(self) -> str | None:
        return self.kind.who(self.entry)


def waits(game: "Game") -> list[Wait]:
    """What the table waits for now, by kind in ``KINDS``' order, each kind's in the order asked."""
    return [Wait(kind, entry) for kind in KINDS.values() for name, entry in game.waits if name == kind.name]


def first(game: "Game", kind: str) -> dict | None:
    return next((entry for name, entry in game.waits if name == kind), None)


def every(game: "Game", kind: str) -> list[dict]:
    return [entry for name, entry in game.waits if name == kind]


def holding(game: "Game", moment: str) -> list[Wait]:
    """The waits that hold ``moment`` ("turn", "fight_end", "attack")."""
    return [w for w in waits(game) if moment in w.kind.holds]


def holding_command(game: "Game", command: str) -> list[Wait]:
    """The waits that hold a command of type ``command`` (a roll made at the table: all but those it lets through)."""
    return [w for w in waits(game) if "commands" in w.kind.holds and command not in w.kind.allows] if game.waits else []


# --- the only writers of the list ----------------------------------------------------------------------------------


def ask(game: "Game", kind: str, entry: dict) -> None:
    """A new wait: of a kind one at a time, it takes the place of the one before."""
    if not KINDS[kind].many:
        game.waits = [w for w in game.waits if w[0] != kind]
    game.waits.append([kind, entry])


def keep(game: "Game", kind: str, still: Callable[[dict], bool] = lambda entry: False) -> list[dict]:
    """The waits of ``kind`` answered, withdrawn or called off: those ``still`` keeps stay (none by default); returns
    those that went."""
    gone = [entry for name, entry in game.waits if name == kind and not still(entry)]
    game.waits = [w for w in game.waits if w[0] != kind or still(w[1])]
    return gone


def saved(game: "Game") -> dict:
    """The list as the protocol, the saved games and undo have it."""
    return {"pending_defense": game.pending_defense, "pending_soak": game.pending_soak,
            "pending_roll": game.pending_roll}


def restore(game: "Game", d: dict) -> None:
    """Undo: the waits of the kinds ``d`` names put back as they were (a kind it does not name stays)."""
    named = {"defense": "pending_defense", "soak": "pending_soak", "roll": "pending_roll"}
    kept = [w for w in game.waits if named[w[0]] not in d]
    game.waits = kept + [w for w in saved_waits(d) if named[w[0]] in d]
