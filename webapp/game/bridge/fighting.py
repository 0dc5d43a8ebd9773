"""What the rules say of a game's fighters, read-only: the bridge from a game to its rule system.

A token as the rules see it (its combatant, its place, its sheet), whether it stands, the game's settings over the
system's defaults, a rule call whose refusal reaches the sender in the rules' words with names for ids, the way and
cost of a move, the squares an attack is judged between, the badges and the actions the rules offer now. Every
feature, view and planner that asks the rules about a game asks here; nothing here changes a game.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

import rules
from rules import los, movement
from rules.grid import SQUARE, Grid, Place
from rules.system import Combatant, RuleError, RuleNotImplemented
from rules.text import Say, say

from . import fog, zonelayout
from ..core.model import Character, Rejected, cells_at
from ..core.text import N_, rules_words

if TYPE_CHECKING:
    from ..core.model import Actor, Game, Token


def of_token(game: "Game", token_id: str) -> Character | None:
    for c in game.characters.values():
        if c.token_id == token_id:
            return c
    return None


def sheet_of(game: "Game", token: "Token") -> dict:
    """The sheet a token plays with: its character's, else its own, else the system's sample character."""
    return _sheet(game, token, of_token(game, token.id))


def _sheet(game: "Game", token: "Token", character: Character | None) -> dict:
    """:func:`sheet_of` once the token's character (None: it has none) is found."""
    if character is not None:
        return character.sheet
    return token.sheet or named_default(rules.get(game.system), token.name)


def named_default(system, name: str) -> dict:
    """The system's sample sheet for a new character: with its name where the sheet has one (#33: a made
    character's Name said the sample's "Hero")."""
    sheet = system.default_sheet()
    if "name" in sheet and name:
        sheet["name"] = name
    return sheet


def settings_of(game: "Game") -> dict:
    """The system's defaults with this game's choices over them: what every rule call gets."""
    system = rules.get(game.system)
    defaults = system.default_settings() if hasattr(system, "default_settings") else {}
    return {**defaults, **game.settings}


def combatant(game: "Game", token: "Token") -> Combatant:
    """What the rules are told of ``token``: its sheet (:func:`sheet_of`), where it is, its side, its fight state."""
    return combatants(game, (token,))[0]


def combatants(game: "Game", tokens) -> list[Combatant]:
    """:func:`combatant` of each of ``tokens``, the game's characters and fight read once (an attack's others, the
    fight's fighters: the foes' planner asks for thousands, #68)."""
    state = (game.combat or {}).get("state", {}).get("combatants", {}) if game.combat else {}
    state = state if isinstance(state, dict) else {}
    played: dict = {}
    for c in game.characters.values():  # (a token's first character, as of_token finds it)
        played.setdefault(c.token_id, c)
    return [Combatant(id=token.id, name=token.name, sheet=_sheet(game, token, played.get(token.id)),
                      position=position_of(game, token), side=token.kind, is_player=token.kind == "pc",
                      state=dict(state.get(token.id, {}))) for token in tokens]


def position_of(game: "Game", token: "Token"):
    """Where the rules see a token: its square, or on a zone map its zone's id; on a hex map its hex
    as a ``rules.grid.Place``, so the rules count hexes."""
    if game.zones is not None:
        zone = zonelayout.zone_at(game.zones, token.x, token.y)
        return zone["id"] if zone else None
    if game.board.grid.hex:
        return Place((token.x, token.y), game.board.grid)
    return (token.x, token.y)


def first_foe(game: "Game", who: "Token", candidates, seen=None, standing=None) -> "Token | None":
    """The target every list of targets for ``who`` starts on (the phone's turn bar, the fight card's
    declarations, the attack card, in every system): a foe, never ``who`` nor an ally. A foe is a token of
    another side (``kind``: pc or npc, the side the rules are given) that stands (:func:`stands`); then the
    nearest to ``who`` on the map, then the list's order. None when no foe stands (the last one is down: a tap
    must not shoot an ally, nor a downed foe by default, #58), and when there is no other token. When the
    tokens the reader sees (``seen``, else ``candidates``) hold no foe at all (every token on one side, as a GM
    who made them all NPCs has it), the first other token. ``standing``: :func:`stands` for this game, kept."""
    others = [t for t in candidates if t.id != who.id]
    foes = [t for t in others if t.kind != who.kind and (standing or (lambda t: stands(game, t)))(t)]
    if not foes:
        if any(t.kind != who.kind for t in (candidates if seen is None else seen)):
            return None  # foes there are, none standing
        return others[0] if others else None

    def key(item):
        i, t = item
        return ((t.x - who.x) ** 2 + (t.y - who.y) ** 2, i)

    return min(enumerate(foes), key=key)[1]


#: for a system that does not say who is out of the fight (``out_of_fight``, a third party's): a condition or wound
#: badge with one of these words says its token is out of the fight
FALLEN_WORDS = ("incapacitated", "unconscious", "dead", "dying", "down", "collapsed", "destroyed",
                "mortally wounded", "out of the fight", "defeated")


def is_down(game: "Game", token: "Token") -> bool:
    """Whether the token is out of the fight by its system's rules (``out_of_fight``: each system's own reading of
    its rule document). Its badges' words were read before, condition badges alone: a 3d6 token dead, whose "dead"
    is a wound badge, stood (#70), and one knocked down was down."""
    system = rules.get(game.system)
    out = getattr(system, "out_of_fight", None)
    if out is not None:
        books = (game.combat or {}).get("state", {}).get("combatants", {}).get(token.id) if in_fight(game, token.id) else None
        try:
            return bool(out(sheet_of(game, token), books, settings_of(game)))
        except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
            return False
    for badge in badges(game, token):
        label = str(badge.get("label", "")).casefold()
        if badge.get("kind") in ("condition", "wound") and any(w in label for w in FALLEN_WORDS):
            return True
    return False


def stands(game: "Game", token: "Token") -> bool:
    """Whether a token still stands in the fight: in its turn order (phase/TN takes the fallen out of it), not
    down by its system's rules (its badges say Incapacitated, unconscious, Dying...: ``is_down``, #58), and not
    yielded (the GM's foe surrendered: webapp/game/planning/morale.py, #67)."""
    return (not game.combat or token.id in game.combat["order"]) and not token.yielded and not is_down(game, token)


def no_foe_standing(game: "Game", standing: list["Token"] | None = None) -> bool:
    """One side alone stands in the fight while the map holds the other: the GM is told the fight can end.
    ``standing``: the fight's tokens that stand, when the caller found them already."""
    if standing is None:
        standing = [t for t in (game.tokens.get(i) for i in (game.combat or {}).get("order", [])) if t and stands(game, t)]
    sides = {t.kind for t in standing}
    return len(sides) == 1 and any(t.kind not in sides for t in game.tokens.values())


def current_token(game: "Game") -> "Token | None":
    if not game.combat or not game.combat.get("current"):
        return None
    return game.tokens.get(game.combat["current"])


def fighters_of(game: "Game") -> list[Combatant]:
    order = game.combat["order"] if game.combat else []
    return combatants(game, [game.tokens[i] for i in order if i in game.tokens])


def rules_call(call, game: "Game | None" = None, actor: "Actor | None" = None):
    """A rule call whose refusal goes back to the sender in the rules' own words (with ``game``,
    any token id in them put as its name: see :func:`named`)."""
    try:
        return call()
    except RuleNotImplemented as exc:
        raise Rejected(named(game, not_automated(exc), actor, hidden_as=say("someone"))) from None
    except RuleError as exc:
        raise Rejected(named(game, rules_words(exc), actor, hidden_as=say("someone"))) from None


def not_automated(exc: RuleNotImplemented) -> Say:
    """What the rules leave to the GM, as words: ``not automated: `` and the rules' own reason, each in the
    reader's language (any system's ``RuleNotImplemented``; a reason raised as plain text stays as written)."""
    return say("not automated: {reason}", reason=rules_words(exc))


@lru_cache(maxsize=64)
def _ids_pattern(ids: tuple[str, ...]) -> re.Pattern:
    """Any of these token ids as a whole word, the longest first (``named``; a log folds thousands of lines
    over the same few tokens: the pattern is made once per set of tokens)."""
    ordered = sorted(ids, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, ordered)) + r")(?![\w-])")


def named(game: "Game | None", text: str, actor: "Actor | None" = None, hidden_as: str | None = None) -> str:
    """The rules' words with any token id they let through put as the token's name: people read
    names, never ids. With ``hidden_as``, a token this ``actor`` may not see (any hidden token
    when no actor is given) is put as those words instead, so a refusal names no hidden token."""
    if game is None or not game.tokens or not text:
        return text
    if isinstance(text, Say):  # the rules' words: the ids among their parameters
        return text.map_args(lambda value: named(game, value, actor, hidden_as))
    pattern = _ids_pattern(tuple(game.tokens))

    def name(match: re.Match) -> str:
        token = game.tokens[match.group(1)]
        if hidden_as is not None and (not fog.may_see(game, actor, token) if actor is not None else token.hidden):
            return hidden_as
        return token.name

    return pattern.sub(name, text)


def in_fight(game: "Game", token_id: str) -> bool:
    return bool(game.combat) and token_id in game.combat["order"]


def path_and_cost(game: "Game", token: "Token", goal: tuple[int, int]) -> tuple[list, float]:
    """The cheapest way on the board and its cost by the system's diagonal policy and terrain."""
    system = rules.get(game.system)
    start = (token.x, token.y)
    size = getattr(token, "size", 1)
    if size == 1:
        found = movement.shortest_path(game.board, start, goal, system.diagonal)
        if found is not None:
            cost, path = found
            return [list(c) for c in path], cost
    else:  # a big token: the way its whole footprint can take, counted from its top-left square
        costs, path = movement.footprint_search(game.board, start, size, system.diagonal, goal=goal)
        if path is not None:
            return [list(c) for c in path], costs[goal]
    # no way (a forced move): the squares (hexes) as the crow flies
    return [list(start), list(goal)], movement.distance(start, goal, system.diagonal, game.board.grid)


def squares_of(token: "Token", grid: Grid = SQUARE) -> list[tuple[int, int]]:
    """Every square (hex, on a hex ``grid``) a token covers (its top-left square first)."""
    return cells_at(token.x, token.y, getattr(token, "size", 1), grid)


def aim_squares(game: "Game", attacker: "Token", target: "Token") -> tuple[tuple[int, int], tuple[int, int], float]:
    """The squares an attack is judged between, and its range, for tokens of any size (docs/RULES.md,
    "Big tokens"): the range is counted between the closest pair of squares, one of each token; the
    line of fire and the cover are those of the best pair (a clear line first, then the least cover,
    then the closest), as a shooter leans out from whichever part of its space sees best. One square
    each: their squares."""
    system = rules.get(game.system)
    if getattr(attacker, "size", 1) == 1 and getattr(target, "size", 1) == 1:
        a, b = (attacker.x, attacker.y), (target.x, target.y)
        return a, b, movement.distance(a, b, system.diagonal, game.board.grid)
    grid = game.board.grid
    pairs = sorted(((movement.distance(a, b, system.diagonal, grid), a, b) for a in squares_of(attacker, grid)
                    for b in squares_of(target, grid)), key=lambda p: p[0])
    nearest = pairs[0][0]
    best = None
    for d, a, b in pairs:
        if not los.line_of_fire(game.board, a, b).clear:
            continue
        fraction = los.cover(game.board, a, b).fraction
        if best is None or fraction < best[0]:
            best = (fraction, a, b)
            if fraction == 0:
                break
    a, b = (best[1], best[2]) if best else (pairs[0][1], pairs[0][2])
    return a, b, nearest


#: the badge of a foe that has surrendered (#67)
YIELDED = say("yielded")


def badges(game: "Game", token: "Token") -> list[dict]:
    """What every screen shows on a token: the system's badges from its sheet and its books in the fight, after
    "yielded" when the GM's foe has surrendered (#67)."""
    system = rules.get(game.system)
    books = (game.combat or {}).get("state", {}).get("combatants", {}).get(token.id) if in_fight(game, token.id) else None
    first = [{"kind": "condition", "label": YIELDED}] if token.yielded else []
    try:
        return (first + list(system.badges(sheet_of(game, token), books)))[:6]
    except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
        return first


def actions_now(game: "Game", token: "Token") -> list[dict]:
    """What the token may do now by the rules (for its turn's panel), with the reasons for what it may not."""
    if not in_fight(game, token.id):
        return []
    system = rules.get(game.system)
    try:
        offered = [o.to_dict() for o in system.actions(game.combat["state"], combatant(game, token), settings_of(game))]
    except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
        return []
    for o in offered:  # a reason or a label the rules wrote with an id reads with the name
        o["label"], o["reason"] = named(game, o["label"], hidden_as="someone"), named(game, o.get("reason") or "", hidden_as="someone")
    return offered


#: the groups a long list of actions is shown in, by the ``kind`` every system gives its actions
#: (``rules.system.ActionOption``), after the turn's usual ones
ACTION_GROUPS = (("move", N_("Move")), ("attack", N_("Attack")), ("defense", N_("Defend")), ("turn", N_("Turn")),
                 ("other", N_("Other")))  # the titles said in the reader's language where shown (_combat.html)


#: a list this long or shorter is shown with every group open; a longer one with its usual actions
#: open and the other groups folded
SHORT_LIST = 10


def action_groups(offered: list[dict]) -> list[dict]:
    """The actions ``actions_now`` gave, in groups for the turn panel: the rules' usual ones that may be
    taken now first (``usual`` and ``available``), then one group per kind (move, attack, defend, turn,
    other; a kind the app does not know goes with "other"), each keeping the rules' order. Each group:
    ``{"key", "title", "options", "open"}``; empty groups are left out, and a long list (past
    ``SHORT_LIST``) opens only its usual group, so the panel stays short on a phone."""
    known = {key for key, _ in ACTION_GROUPS}
    first = [o.get("usual") and o.get("available", True) for o in offered]
    usual = [o for o, up in zip(offered, first) if up]
    by_kind: dict[str, list[dict]] = {key: [] for key, _ in ACTION_GROUPS}
    for o, up in zip(offered, first):
        if not up:
            by_kind[o.get("kind") if o.get("kind") in known else "other"].append(o)
    short = len(offered) <= SHORT_LIST
    groups = [{"key": "usual", "title": N_("Usual"), "options": usual, "open": True}] if usual else []
    groups += [{"key": key, "title": title, "options": by_kind[key], "open": short}
               for key, title in ACTION_GROUPS if by_kind[key]]
    return groups


def combat_view(game: "Game", actor: "Actor") -> dict | None:
    """The fight as this audience may see it: hidden tokens are left out of the order."""
    if not game.combat:
        return None
    visible = {t.id for t in fog.visible_tokens(game, actor)}
    current = game.combat["current"]
    due = [a for a in game.combat.get("due", []) if a.get("attacker") in visible and a.get("target") in visible]
    return {"round": game.combat["round"], "phase": game.combat.get("phase", ""),
            "order": [i for i in game.combat["order"] if i in visible],
            "current": current if current in visible else None, "due": due}
