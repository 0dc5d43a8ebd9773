"""Characters: a name, a sheet in the game system's shape, an owner, and the token that stands for it.

A token with no character plays with its own sheet (or the system's sample
character); a character may wait off the map with no token. Every sheet
change goes through the system's validation before it is stored.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

import rules
from rules.system import RuleError, RuleNotImplemented

from ..bridge import fog
from ..core import text
from ..core.feature import Feature
from ..bridge.fighting import named_default, of_token
from ..core.model import Character, Event, Rejected, bump_counter
from rules.text import say
from ..core.text import N_, rules_words

if TYPE_CHECKING:
    from ..core.model import Actor, Game

Id = text.Id
Name = text.Name
MAX_CHARACTERS = 2_000
PER_PLAYER = 20  # characters a player may make for themselves (the GM's are not counted)
MAX_SHEET_BYTES = 64_000


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)


class AddCharacter(_Command):
    type: Literal["add_character"]
    name: Name
    token_id: Id | None = None
    owner: Id | None = None
    sheet: dict[str, Any] | None = None


class UpdateSheet(_Command):
    type: Literal["update_sheet"]
    character_id: Id
    changes: dict[str, Any]


COMMANDS = (AddCharacter, UpdateSheet)
EVENTS = ("character_added", "sheet_updated")


def set_sheet(game: "Game", token_id: str, sheet: dict) -> None:
    character = of_token(game, token_id)
    if character is not None:
        character.sheet = sheet
    elif token_id in game.tokens:
        game.tokens[token_id].sheet = sheet


def check_sheet(game: "Game", sheet: dict) -> None:
    """Rejected with the system's reason when the sheet is not one its rules can use."""
    import json

    try:
        size = len(json.dumps(sheet))
    except (TypeError, ValueError):
        raise Rejected(N_("sheet: only plain values (text, numbers, lists, tables)")) from None
    if size > MAX_SHEET_BYTES:
        raise Rejected(N_("sheet: %(n)s kB at most"), n=MAX_SHEET_BYTES // 1000)
    system = rules.get(game.system)
    try:
        validate = getattr(system, "validate_sheet", None)
        if validate is not None:
            validate(sheet)
        system.derived(sheet)
    except RuleNotImplemented:
        pass
    except (RuleError, ValueError, TypeError, KeyError) as exc:
        raise Rejected(N_("sheet: %(error)s"), error=rules_words(exc)) from None  # the rules' words: the sender's language


def apply_changes(sheet: dict, changes: dict) -> dict:
    """A new sheet with ``changes`` set; a dotted key ("attributes.Agility") reaches into a table."""
    new = copy.deepcopy(sheet)
    for key, value in changes.items():
        parts = key.split(".")
        at = new
        for part in parts[:-1]:
            if not isinstance(at.get(part), dict):
                raise Rejected(N_("changes.%(key)s: the sheet has no table %(part)s"), key=key, part=repr(part))
            at = at[part]
        at[parts[-1]] = value
    return new


def may_put_on_token(actor: "Actor") -> bool:
    """Whether this sender may make a token's character (``add_character`` with a ``token_id``): the GM
    alone. A player adds characters for themselves, not on a token; their token's sheet page offers
    them no button for it."""
    return actor.role == "gm"


def decide(game: "Game", cmd: Any, actor: "Actor") -> list[Event]:
    system = rules.get(game.system)
    if actor.role == "screen":
        raise Rejected(N_("the table screen only shows the map"))
    if isinstance(cmd, AddCharacter):
        if actor.role != "gm" and cmd.owner not in (None, actor.player_id):
            raise Rejected(N_("a player adds characters for themselves only"))
        if cmd.token_id is not None and not may_put_on_token(actor):
            raise Rejected(N_("only the GM puts a character on a token"))
        if len(game.characters) >= MAX_CHARACTERS:
            raise Rejected(N_("a game holds %(n)s characters at most"), n=MAX_CHARACTERS)
        if actor.role != "gm" and sum(c.owner == actor.player_id for c in game.characters.values()) >= PER_PLAYER:
            raise Rejected(N_("a player holds %(n)s characters at most"), n=PER_PLAYER)
        owner = cmd.owner if actor.role == "gm" else actor.player_id
        if owner and owner not in game.players:
            raise Rejected(N_("no player %(id)s in this game"), id=repr(owner))
        if cmd.token_id is not None:
            if cmd.token_id not in game.tokens:
                raise Rejected(N_("no token %(id)s in this game"), id=repr(cmd.token_id))
            if of_token(game, cmd.token_id) is not None:
                raise Rejected(N_("%(name)s has a character already"), name=game.tokens[cmd.token_id].name)
        sheet = cmd.sheet if cmd.sheet is not None else named_default(system, cmd.name)
        check_sheet(game, sheet)
        character = Character(id=game.next_id("c"), name=cmd.name, owner=owner, token_id=cmd.token_id, sheet=sheet)
        return [Event("character_added", {"character": character.to_dict()})]
    if isinstance(cmd, UpdateSheet):
        character = game.characters.get(cmd.character_id)
        token = game.tokens.get(character.token_id) if character and character.token_id else None
        if character is None or (actor.role != "gm" and (
                character.owner != actor.player_id or (token is not None and not fog.may_see(game, actor, token)))):
            raise Rejected(N_("no character %(id)s of yours in this game"), id=repr(cmd.character_id))  # a hidden token's too
        if not cmd.changes:
            raise Rejected(N_("nothing to change"))
        locked = set(getattr(system, "gm_only_fields", ()))
        if actor.role != "gm":
            refused = sorted(k for k in cmd.changes if k.split(".")[0] in locked)
            if refused:
                raise Rejected(N_("only the GM changes %(fields)s"), fields=", ".join(refused))
        sheet = apply_changes(character.sheet, cmd.changes)
        if sheet == character.sheet:
            raise Rejected(N_("nothing to change"))
        if actor.role != "gm":  # a count the player spends but only the GM awards
            for key in getattr(system, "gm_raises_fields", ()):
                was, now = character.sheet.get(key), sheet.get(key)
                if was is None and hasattr(system, "derived"):  # not counted yet: what the sheet reads as
                    was = system.derived(character.sheet).get(key)
                if isinstance(now, (int, float)) and now > (was if isinstance(was, (int, float)) else 0):
                    raise Rejected(N_("only the GM raises %(key)s (a player may spend them)"), key=key)
        check_sheet(game, sheet)
        # what changed, not the whole sheet: a 9 kB note edited 100 times is 900 kB in the log, not 6 MB
        return [Event("sheet_updated", {"character_id": character.id, "changes": cmd.changes})]
    raise Rejected(f"unhandled command {type(cmd).__name__}")  # pragma: no cover


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    if event.type == "character_added":
        character = Character(**d["character"])
        game.characters[character.id] = character
        token = game.tokens.get(character.token_id) if character.token_id else None
        log(say("{name} joined the cast", name=character.name), "gm" if token is not None and token.hidden else "all", None)
        bump_counter(game, character.id)  # a new id is never one used before
    elif event.type == "sheet_updated":
        character = game.characters[d["character_id"]]
        # an old log's events carry the whole sheet after the change; newer ones only the changes
        character.sheet = d["sheet"] if "sheet" in d else apply_changes(character.sheet, d["changes"])
        log(say("{name}'s sheet changed: {fields}", name=character.name, fields=", ".join(d["changes"])), "gm", None)


def ack(events: list[Event], actor: "Actor") -> dict:
    """A new character's id, for its maker."""
    return {"character_id": e.data["character"]["id"] for e in events if e.type == "character_added"}


FEATURE = Feature("characters", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve,
                  ack=ack)


def is_own(character: Character, actor: "Actor") -> bool:
    """Whether this is the actor's own character: a player's, by its owner. The table screen owns none, and a
    character nobody owns (a foe's) is nobody's: its ``None`` owner is not the screen's ``None`` player (#62)."""
    return actor.role == "player" and character.owner is not None and character.owner == actor.player_id


def unseen_names(game: "Game", actor: "Actor", visible: list | None = None) -> frozenset[str]:
    """The names of the tokens and characters this audience may not see or know, but those shared with a token it
    sees: a token out of its view (``visible``: the tokens it sees, when the caller has them), one removed, one of
    another map (not its player's own), a character it may not know (:func:`unknown_names`). The GM's: none. Its
    log hides the lines naming one (webapp/game/views/audience.py), a waiting roll's words say "someone out of sight"
    instead (webapp/game/fight/table_dice.py)."""
    if actor.role == "gm":
        return frozenset()
    visible = visible if visible is not None else fog.visible_tokens(game, actor)
    shown = {id(t) for t in visible}
    names = {t.name for t in game.tokens.values() if id(t) not in shown}
    names |= set(game.removed.values())
    names |= {t.name for m in game.maps.values() if m.id != game.active_map for t in m.tokens.values()
              if t.owner is None or t.owner != actor.player_id}
    names |= unknown_names(game, actor)
    names -= {t.name for t in visible}  # a name shared with a token in view
    names.discard("")
    return frozenset(names)


@lru_cache(maxsize=256)
def naming(names: frozenset[str]) -> re.Pattern:
    """The pattern that finds any of ``names`` as a whole word (the longest first), made once per set of names:
    a move with fog asks it of every audience but the GM, and the players who see alike hide the same names."""
    return re.compile("|".join(rf"(?<!\w){re.escape(n)}(?!\w)" for n in sorted(names, key=lambda n: (-len(n), n))))


def unknown_names(game: "Game", actor: "Actor") -> set[str]:
    """The names of the characters this audience may not know (those :func:`view` leaves out)."""
    if actor.role == "gm":
        return set()
    out = set()
    for c in game.characters.values():
        token = game.tokens.get(c.token_id) if c.token_id else None
        if (token is not None and not fog.may_see(game, actor, token)) or (token is None and not is_own(c, actor)):
            out.add(c.name)
    return out


def view(game: "Game", actor: "Actor") -> list[dict]:
    """The characters this audience may know: a sheet only for the GM and the owner; none on hidden tokens."""
    system = rules.get(game.system)
    out = []
    for c in game.characters.values():
        token = game.tokens.get(c.token_id) if c.token_id else None
        if token is not None and not fog.may_see(game, actor, token):
            continue
        if token is None and actor.role != "gm" and not is_own(c, actor):
            continue  # off the map (its token removed, or never placed): the GM's business, and the owner's
        entry = {"id": c.id, "name": c.name, "owner": c.owner, "token_id": c.token_id}
        if actor.role == "gm" or (c.owner and c.owner == actor.player_id):
            try:
                derived = system.derived(c.sheet)
            except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
                derived = {}
            entry |= {"sheet": c.sheet, "derived": derived}
        out.append(entry)
    return out
