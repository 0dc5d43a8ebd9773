"""Savage Worlds (SWADE) combat: action cards, raises, Toughness, templates.

Source: the combat reference ``shared/seeds/004_e34c739df66cf2a8.txt`` and
the Savage Worlds core facts of the seeds' README. Each rule function
names the section it encodes. Distances are in inches: one square is 1"
(2 yards). Readings chosen where the document is silent are listed on the
help page (``templates/help/savage_worlds.html``) and, where a GM may want
another, are settings (:meth:`SavageWorlds.default_settings`).

Sections of this module: dice on the sheet; reference functions; trait
and damage rolls; the action deck; area templates; the sheet and derived
values; attacks; odds; the system object.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from math import comb
from typing import Any, Iterable

from .. import odds as _odds
from ..dice import DiceSource, RollRecord
from ..system import (
    AttackRequest,
    AttackResult,
    BaseSystem,
    Combatant,
    CoverEffect,
    Effect,
    Modifier,
    RuleError,
    RuleNotImplemented,
    SheetField,
)

DOC = "SWADE combat reference"
CORE = "Savage Worlds core facts"

TN = 4
RAISE = 4
WILD_DIE = "d6"
MAX_WOUNDS = 3
DIE_SIDES = (4, 6, 8, 10, 12)

# ---------------------------------------------------------------- dice on the sheet

_DIE = re.compile(r"^\s*d(4|6|8|10|12)\s*(?:([+-])\s*(\d+))?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Die:
    """A trait or damage die as written on a sheet: ``d8``, ``d12+1``."""

    sides: int
    bonus: int = 0

    @property
    def text(self) -> str:
        if self.bonus:
            return f"d{self.sides}{self.bonus:+d}"
        return f"d{self.sides}"

    @property
    def step(self) -> int:
        """d4 is step 0, d12 step 4; the +n above d12 counts on."""
        return DIE_SIDES.index(self.sides) + max(0, self.bonus if self.sides == 12 else 0)


def parse_die(text: Any) -> Die:
    """Read ``d4``-``d12`` with an optional ``+n``/``-n``; RuleError otherwise."""
    if isinstance(text, Die):
        return text
    m = _DIE.match(str(text or ""))
    if not m:
        raise RuleError(f"not a Savage Worlds die: {text!r} (write d4, d6, d8, d10, d12 or d12+1)")
    bonus = int(m.group(3) or 0) * (-1 if m.group(2) == "-" else 1)
    return Die(int(m.group(1)), bonus)


def half_die(die: Die) -> int:
    """Half the die type plus half of any bonus, rounded down (Parry, Toughness)."""
    return die.sides // 2 + (die.bonus // 2 if die.bonus > 0 else -((-die.bonus + 1) // 2))


# ---------------------------------------------------------------- reference functions


def range_modifier(distance: int, short: int, medium: int, long: int) -> int | None:
    """Ranged Attacks table: 0 Short, -2 Medium, -4 Long, -8 Extreme (up to 4x Long).

    ``None`` beyond Extreme: the target cannot be shot.
    """
    if distance < 0:
        raise RuleError("a distance cannot be negative")
    if distance <= short:
        return 0
    if distance <= medium:
        return -2
    if distance <= long:
        return -4
    if distance <= 4 * long:
        return -8
    return None


def trait_result(total: int, tn: int = 4) -> tuple[bool, int]:
    """Core facts: success on ``tn`` or more; each full 4 over ``tn`` is a raise."""
    if total < tn:
        return False, 0
    return True, (total - tn) // RAISE


def damage_result(damage: int, toughness: int, shaken: bool = False) -> tuple[bool, int]:
    """Damage Resolution: (ends Shaken, Wounds taken).

    Below Toughness: nothing changes. Equal or over: Shaken, and a target
    already Shaken takes a Wound instead. Each raise (full 4 over Toughness)
    is a Wound, and a wounded target is Shaken too.
    """
    if damage < toughness:
        return shaken, 0
    raises = (damage - toughness) // RAISE
    if raises == 0:
        return True, 1 if shaken else 0
    return True, raises


def gang_up_bonus(other_adjacent_foes: int, adjacent_allies: int) -> int:
    """Melee Attacks, Gang Up: +1 per other adjacent foe, at most +4; each adjacent
    ally of the defender cancels one point of that (capped) bonus."""
    if other_adjacent_foes < 0 or adjacent_allies < 0:
        raise RuleError("counts of adjacent tokens cannot be negative")
    return max(0, min(4, other_adjacent_foes) - adjacent_allies)


def multi_action_penalty(actions: int) -> int:
    """Actions Per Turn: -2 per action beyond the first, to every action that turn."""
    if actions < 1:
        raise RuleError("a turn has at least one action")
    return -2 * (actions - 1)


RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
SUITS = ("S", "H", "D", "C")
JOKERS = ("RJ", "BJ")


def _card_key(card: str) -> tuple[int, int]:
    card = str(card).upper()
    if card in JOKERS:
        return (-1, JOKERS.index(card))
    rank, suit = card[:-1], card[-1:]
    if rank == "T":
        rank = "10"
    if rank not in RANKS or suit not in SUITS:
        raise RuleError(f"not an action card: {card!r} (write AS, 10H, 2C, RJ or BJ)")
    return (RANKS.index(rank), SUITS.index(suit))


def action_order(cards: list[str]) -> list[str]:
    """Initiative: Jokers first (they act when they like), then Ace down to 2,
    ties broken Spades, Hearts, Diamonds, Clubs."""
    return sorted(cards, key=_card_key)


def deviation_multiplier(band: str) -> int:
    """Area Effect Attacks, Deviation: x1 Short, x2 Medium, x3 Long, x4 Extreme."""
    table = {"short": 1, "medium": 2, "long": 3, "extreme": 4}
    try:
        return table[str(band).lower()]
    except KeyError:
        raise RuleError(f"no deviation for range band {band!r}") from None


def is_joker(card: str | None) -> bool:
    return str(card or "").upper() in JOKERS


def card_value(card: str) -> int:
    """2..14 for a rank (Ace 14), 15 for a Joker: Quick's "5 or lower" reads this."""
    key = _card_key(card)[0]
    return 15 if key < 0 else 14 - key


# ---------------------------------------------------------------- trait and damage rolls


@dataclass
class TraitRoll:
    """One trait roll (or one die of a RoF attack) with its breakdown."""

    die: str
    trait: RollRecord
    wild: RollRecord | None
    modifiers: list[Modifier]
    tn: int
    used_wild: bool = False

    @property
    def modifier(self) -> int:
        return int(sum(m.value for m in self.modifiers))

    @property
    def kept(self) -> int:
        if self.wild is not None and self.wild.total > self.trait.total:
            return self.wild.total
        return self.trait.total

    @property
    def total(self) -> int:
        return self.kept + self.modifier

    @property
    def critical_failure(self) -> bool:
        return self.wild is not None and self.trait.first_faces[0] == 1 and self.wild.first_faces[0] == 1

    @property
    def success(self) -> bool:
        return not self.critical_failure and trait_result(self.total, self.tn)[0]

    @property
    def raises(self) -> int:
        return 0 if self.critical_failure else trait_result(self.total, self.tn)[1]

    def to_dict(self) -> dict:
        return {
            "die": self.die,
            "total": self.total,
            "tn": self.tn,
            "success": self.success,
            "raises": self.raises,
            "critical_failure": self.critical_failure,
            "trait": self.trait.to_dict(),
            "wild": self.wild.to_dict() if self.wild else None,
            "modifiers": [m.to_dict() for m in self.modifiers],
        }


def trait_die_modifiers(die: Die, name: str) -> list[Modifier]:
    return [Modifier(f"{name} {die.text}", die.bonus, "sheet")] if die.bonus else []


def trait_roll(
    die: str | Die,
    dice: DiceSource,
    *,
    wild_card: bool = True,
    modifiers: Iterable[Modifier] = (),
    tn: int = TN,
    name: str = "trait",
) -> TraitRoll:
    """Core facts: roll the trait die (acing) and, for a Wild Card, the Wild Die
    d6 (acing); keep the better, add modifiers; double 1s are a critical failure."""
    d = parse_die(die)
    mods = trait_die_modifiers(d, name) + list(modifiers)
    trait = dice.roll(f"d{d.sides}!", f"{name} die")
    wild = dice.roll(f"{WILD_DIE}!", "Wild Die") if wild_card else None
    return TraitRoll(d.text, trait, wild, mods, tn)


def opposed_roll(
    a_die: str, b_die: str, dice: DiceSource, *, a_wild: bool = True, b_wild: bool = True,
    a_modifiers: Iterable[Modifier] = (), b_modifiers: Iterable[Modifier] = (), name: str = "Athletics",
) -> dict:
    """Hold: an interrupt is an opposed Athletics roll. The higher total acts
    first; equal totals act at the same time (reading: the document is silent)."""
    a = trait_roll(a_die, dice, wild_card=a_wild, modifiers=a_modifiers, name=name)
    b = trait_roll(b_die, dice, wild_card=b_wild, modifiers=b_modifiers, name=name)
    ta = -math.inf if a.critical_failure else a.total
    tb = -math.inf if b.critical_failure else b.total
    winner = "a" if ta > tb else "b" if tb > ta else "tie"
    return {"winner": winner, "a": a.to_dict(), "b": b.to_dict(), "rolls": [a.trait, a.wild, b.trait, b.wild]}


def interrupt(holder_athletics: str, actor_athletics: str, dice: DiceSource, *,
              holder_wild: bool = True, actor_wild: bool = True) -> dict:
    """Hold: the character on Hold tries to act before another. Returns
    ``first``: "holder", "actor" or "simultaneous"; a loser acts right after."""
    out = opposed_roll(holder_athletics, actor_athletics, dice, a_wild=holder_wild, b_wild=actor_wild)
    out["first"] = {"a": "holder", "b": "actor", "tie": "simultaneous"}[out["winner"]]
    return out


_DAMAGE_TERM = re.compile(r"([+-]?)\s*(str|\d*d\d+|\d+)\s*", re.IGNORECASE)


def damage_expression(damage: str, strength: str | Die | None, *, explode: bool = True) -> tuple[str, int]:
    """Turn ``Str+d6``, ``2d6+1`` into a dice expression with acing dice.

    Damage Resolution: melee damage is the Strength die plus the weapon's die;
    every damage die aces (``explode=False`` for objects). Returns the
    expression and the flat part (for the breakdown).
    """
    text = str(damage or "").strip()
    if not text:
        raise RuleError("the weapon has no damage")
    pos, parts, flat = 0, [], 0
    bang = "!" if explode else ""
    while pos < len(text):
        m = _DAMAGE_TERM.match(text, pos)
        if not m or m.end() == pos:
            raise RuleError(f"cannot read damage {damage!r}")
        sign = m.group(1) or ("+" if parts else "")
        tok = m.group(2).lower()
        if parts and not m.group(1):
            raise RuleError(f"cannot read damage {damage!r}")
        if tok == "str":
            if strength is None:
                raise RuleError("damage uses Strength but the attacker has none")
            s = parse_die(strength)
            parts.append(f"{sign}d{s.sides}{bang}")
            if s.bonus:
                parts.append(f"{s.bonus:+d}")
                flat += s.bonus
        elif "d" in tok:
            count, sides = tok.split("d")
            parts.append(f"{sign}{count if count not in ('', '1') else ''}d{sides}{bang}")
        else:
            parts.append(f"{sign}{tok}")
            flat += int(tok) * (-1 if sign == "-" else 1)
        pos = m.end()
    expr = "".join(parts).lstrip("+")
    return expr, flat


# ---------------------------------------------------------------- the action deck


def new_deck() -> list[str]:
    """A poker deck with two Jokers, 54 cards, in a fixed (unshuffled) order."""
    return [r + s for s in SUITS for r in RANKS] + list(JOKERS)


def shuffle(cards: list[str], dice: DiceSource) -> tuple[list[str], list[RollRecord]]:
    """Fisher-Yates through the dice source, so a seed replays and a test scripts it."""
    out = list(cards)
    rolls = []
    for i in range(len(out) - 1, 0, -1):
        r = dice.roll(f"d{i + 1}", "shuffle the action deck")
        rolls.append(r)
        j = r.total - 1
        out[i], out[j] = out[j], out[i]
    return out, rolls


def fresh_deck(dice: DiceSource) -> dict:
    """A shuffled deck as the plain data a game stores.

    ``draw``: cards left, dealt from the front of the list;
    ``discard``: cards dealt in earlier rounds; ``dealt``: cards out this
    round; ``joker_dealt``: a Joker came up this round (reshuffle before the next).
    """
    cards, _ = shuffle(new_deck(), dice)
    return {"draw": cards, "discard": [], "dealt": [], "joker_dealt": False}


def _check_deck(deck: dict) -> dict:
    try:
        d = {
            "draw": [str(c).upper() for c in deck["draw"]],
            "discard": [str(c).upper() for c in deck.get("discard", [])],
            "dealt": [str(c).upper() for c in deck.get("dealt", [])],
            "joker_dealt": bool(deck.get("joker_dealt", False)),
        }
    except (KeyError, TypeError):
        raise RuleError("an action deck needs a 'draw' list") from None
    every = d["draw"] + d["discard"] + d["dealt"]
    for c in every:
        _card_key(c)
    if sorted(every) != sorted(new_deck()):
        raise RuleError("the action deck does not hold the 54 cards once each")
    return d


def draw_card(deck: dict, dice: DiceSource) -> tuple[str, dict]:
    """Deal one card; an empty draw pile is refilled from the shuffled discards."""
    d = dict(deck, draw=list(deck["draw"]), discard=list(deck["discard"]), dealt=list(deck["dealt"]))
    if not d["draw"]:
        if not d["discard"]:
            raise RuleError("every card of the action deck is out")
        d["draw"], _ = shuffle(d["discard"], dice)
        d["discard"] = []
    card = d["draw"].pop(0)
    d["dealt"].append(card)
    if is_joker(card):
        d["joker_dealt"] = True
    return card, d


def start_round(deck: dict | None, dice: DiceSource) -> dict:
    """Initiative: the round's cards go to the discards; after a round in which
    a Joker was dealt, the whole deck is reshuffled."""
    if deck is None:
        return fresh_deck(dice)
    d = _check_deck(deck)
    if d["joker_dealt"]:
        return fresh_deck(dice)
    d["discard"] += d["dealt"]
    d["dealt"] = []
    return d


DEFAULT_CARD_EDGES = {
    # extra cards drawn, which one is kept, and Quick's redraw threshold
    "Level Headed": {"extra": 1, "keep": "best"},
    "Improved Level Headed": {"extra": 2, "keep": "best"},
    "Quick": {"redraw_at_or_below": 5},
    "Hesitant": {"extra": 1, "keep": "worst"},
}


def _deal_for(edges: list[str], deck: dict, dice: DiceSource, card_edges: dict) -> tuple[str, list[str], dict]:
    extra, keep, redraw = 0, "best", None
    for e in edges:
        rule = card_edges.get(e)
        if not rule:
            continue
        if rule.get("keep") == "worst":
            keep = "worst"
        extra = max(extra, int(rule.get("extra", 0)))
        if rule.get("redraw_at_or_below") is not None:
            redraw = int(rule["redraw_at_or_below"])
    drawn = []
    for _ in range(1 + extra):
        c, deck = draw_card(deck, dice)
        drawn.append(c)
    jokers = [c for c in drawn if is_joker(c)]
    if jokers:  # a Joker is always kept (it is the best card, even for Hesitant)
        card = jokers[0]
    else:
        ordered = action_order(drawn)
        card = ordered[0] if keep == "best" else ordered[-1]
    while redraw is not None and not is_joker(card) and card_value(card) <= redraw:
        card, deck = draw_card(deck, dice)
        drawn.append(card)
    return card, drawn, deck


def deal_round(
    deck: dict | None,
    combatants: list[Combatant],
    dice: DiceSource,
    settings: dict | None = None,
    *,
    first_round: bool = False,
) -> dict:
    """Initiative (Action Cards), Surprise and Hold.

    Each Wild Card gets a card, Extras share one card per group (sheet
    ``group``, else per side). A combatant whose ``state["on_hold"]`` is set
    keeps Hold and gets no card. In the first round, ``state["surprise"]``
    ``"attacker"`` starts on Hold; ``"victim"`` rolls Notice: failure means
    no card and no action this round. A Joker acts when it likes with +2 to
    trait and damage rolls, and each Wild Card on its side gets a Benny.

    Returns ``order`` (acting order), ``deck`` (the new deck to store),
    ``effects`` (Bennies) and ``rolls``.
    """
    settings = {**SYSTEM.default_settings(), **(settings or {})}
    deck = start_round(deck, dice)
    rolls: list[RollRecord] = []
    entries: list[dict] = []
    group_cards: dict[str, dict] = {}
    for c in combatants:
        sheet = c.sheet or {}
        state = c.state or {}
        wild = bool(sheet.get("wild_card", True))
        entry = {"id": c.id, "name": c.name, "side": c.side, "card": None, "drawn": [],
                 "joker": False, "on_hold": False, "acts": True}
        if sheet.get("incapacitated"):
            entry["acts"] = False
            entry["reason"] = "Incapacitated"
            entries.append(entry)
            continue
        surprise = state.get("surprise") if first_round else None
        if surprise == "attacker" or state.get("on_hold"):
            entry["on_hold"] = True
            entries.append(entry)
            continue
        if surprise == "victim":
            notice = sheet.get("skills", {}).get("notice")
            die, mods = (notice, []) if notice else ("d4", [Modifier("Unskilled", -2, CORE)])
            tr = trait_roll(die, dice, wild_card=wild, modifiers=mods + _condition_modifiers(sheet), name="Notice")
            rolls += [r for r in (tr.trait, tr.wild) if r]
            entry["notice"] = tr.to_dict()
            if not tr.success:
                entry["acts"] = False
                entry["reason"] = "Surprised (failed Notice)"
                entries.append(entry)
                continue
        if not wild:
            key = str(sheet.get("group") or f"extras:{c.side}")
            if key in group_cards:
                shared = group_cards[key]
                entry.update(card=shared["card"], joker=shared["joker"], group=key, shared=True)
                entries.append(entry)
                continue
        edges = list(sheet.get("edges", [])) + list(sheet.get("hindrances", []))
        card, drawn, deck = _deal_for(edges, deck, dice, settings["card_edges"])
        entry.update(card=card, drawn=drawn, joker=is_joker(card))
        if not wild:
            entry["group"] = key
            group_cards[key] = entry
        entries.append(entry)

    carded = [e for e in entries if e["card"]]
    by_card: dict[str, list[dict]] = {}
    for e in carded:
        by_card.setdefault(e["card"], []).append(e)
    order = [e for card in action_order(list(by_card)) for e in by_card[card]]
    order += [e for e in entries if e["on_hold"]]
    waiting = [e for e in entries if not e["card"] and not e["on_hold"]]

    effects: list[Effect] = []
    for e in carded:
        if e["joker"] and not e.get("shared"):
            for c in combatants:
                if c.side == e["side"] and (c.sheet or {}).get("wild_card", True) and not (c.sheet or {}).get("incapacitated"):
                    effects.append(Effect("benny", c.id, {"amount": 1, "reason": f"{e['name']} drew a Joker"}))
    return {"order": order, "not_acting": waiting, "deck": deck, "effects": [x.to_dict() for x in effects],
            "rolls": [r.to_dict() for r in rolls]}


# ---------------------------------------------------------------- area templates

BLAST_RADIUS = {"small": 1.0, "medium": 2.0, "large": 3.0}
_EPS = 1e-9


def _cell_square(cell) -> list[tuple[float, float]]:
    x, y = cell
    return [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)]


def _overlaps_convex(poly: list[tuple[float, float]], cell) -> bool:
    """Separating-axis test; cells that only touch the template's edge are out."""
    sq = _cell_square(cell)
    for shape in (poly, sq):
        n = len(shape)
        for i in range(n):
            (x1, y1), (x2, y2) = shape[i], shape[(i + 1) % n]
            ax, ay = y2 - y1, x1 - x2
            if abs(ax) < _EPS and abs(ay) < _EPS:
                continue
            pa = [ax * px + ay * py for px, py in poly]
            pb = [ax * px + ay * py for px, py in sq]
            scale = math.hypot(ax, ay)
            if min(max(pa), max(pb)) - max(min(pa), min(pb)) <= _EPS * scale:
                return False
    return True


def _circle_touches(centre: tuple[float, float], radius: float, cell) -> bool:
    x, y = cell
    nx = min(max(centre[0], x), x + 1)
    ny = min(max(centre[1], y), y + 1)
    return math.hypot(nx - centre[0], ny - centre[1]) < radius - _EPS


def _cells_near(centre, reach: float, width: int | None, height: int | None):
    r = int(math.ceil(reach)) + 1
    cx, cy = int(math.floor(centre[0])), int(math.floor(centre[1]))
    for y in range(cy - r, cy + r + 1):
        for x in range(cx - r, cx + r + 1):
            if width is not None and not (0 <= x < width):
                continue
            if height is not None and not (0 <= y < height):
                continue
            yield (x, y)


def cell_centre(cell) -> tuple[float, float]:
    return (cell[0] + 0.5, cell[1] + 0.5)


def blast_cells(centre_cell, size: str, *, coverage: str = "touched", width: int | None = None,
                height: int | None = None) -> set:
    """Area Effect Attacks, Templates: the cells under a Small, Medium or Large
    Blast (radius 1", 2", 3") centred on the centre of ``centre_cell``.

    ``coverage="touched"``: any part of the cell lies under the circle (a
    Small Blast is 3x3, a Medium 5x5 less its corners, a Large 7x7 less its
    corners); ``"centre"``: the cell's centre lies within the radius.
    """
    try:
        radius = BLAST_RADIUS[size]
    except KeyError:
        raise RuleError(f"no blast template {size!r} (small, medium or large)") from None
    c = cell_centre(centre_cell)
    cells = set()
    for cell in _cells_near(c, radius, width, height):
        if coverage == "centre":
            if math.dist(cell_centre(cell), c) <= radius + _EPS:
                cells.add(cell)
        elif _circle_touches(c, radius, cell):
            cells.add(cell)
    return cells


def _unit(a, b) -> tuple[float, float]:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    if n < _EPS:
        raise RuleError("a cone or line needs a direction: aim at another square")
    return dx / n, dy / n


def cone_polygon(origin_cell, aim_cell, length: float = 9.0, wide_end: float = 3.0) -> list[tuple[float, float]]:
    """The Cone as a triangle: apex half a square from the attacker's centre
    towards the aim point (narrow end touching the attacker), ``length`` long,
    ``wide_end`` wide at the far end."""
    o = cell_centre(origin_cell)
    ux, uy = _unit(o, cell_centre(aim_cell))
    ax, ay = o[0] + 0.5 * ux, o[1] + 0.5 * uy
    fx, fy = ax + length * ux, ay + length * uy
    px, py = -uy * wide_end / 2, ux * wide_end / 2
    return [(ax, ay), (fx + px, fy + py), (fx - px, fy - py)]


def line_polygon(origin_cell, aim_cell, length: float = 12.0, width: float = 1.0) -> list[tuple[float, float]]:
    """The Line: a 12" by 1" strip from the attacker's edge towards the aim point."""
    o = cell_centre(origin_cell)
    ux, uy = _unit(o, cell_centre(aim_cell))
    ax, ay = o[0] + 0.5 * ux, o[1] + 0.5 * uy
    fx, fy = ax + length * ux, ay + length * uy
    px, py = -uy * width / 2, ux * width / 2
    return [(ax + px, ay + py), (fx + px, fy + py), (fx - px, fy - py), (ax - px, ay - py)]


def polygon_cells(poly, *, width: int | None = None, height: int | None = None, exclude=()) -> set:
    xs = [p[0] for p in poly]
    ys = [p[1] for p in poly]
    cells = set()
    for y in range(int(math.floor(min(ys))) - 1, int(math.ceil(max(ys))) + 1):
        for x in range(int(math.floor(min(xs))) - 1, int(math.ceil(max(xs))) + 1):
            if width is not None and not (0 <= x < width):
                continue
            if height is not None and not (0 <= y < height):
                continue
            if (x, y) not in exclude and _overlaps_convex(poly, (x, y)):
                cells.add((x, y))
    return cells


def template_cells(template: str, origin_cell, aim_cell, settings: dict | None = None, *,
                   width: int | None = None, height: int | None = None) -> set:
    """Cells under a template: blasts centre on ``aim_cell``; cones and lines
    start at the attacker's square (which they never include)."""
    s = {**SYSTEM.default_settings(), **(settings or {})}
    if template in BLAST_RADIUS:
        return blast_cells(aim_cell, template, coverage=s["template_coverage"], width=width, height=height)
    origin_cell = tuple(origin_cell)
    if template == "cone":
        poly = cone_polygon(origin_cell, aim_cell, s["cone_length"], s["cone_width"])
    elif template == "line":
        poly = line_polygon(origin_cell, aim_cell, s["line_length"], 1.0)
    else:
        raise RuleError(f"no template {template!r} (small, medium, large, cone or line)")
    return polygon_cells(poly, width=width, height=height, exclude={origin_cell})


def deviation(aim_cell, distance_to_target: float, band: str, launched: bool, dice: DiceSource,
              attacker_cell=None) -> dict:
    """Area Effect Attacks, Deviation: d6" thrown or 2d6" launched, times the
    band's multiplier, at most half the distance to the target, towards the
    clock direction a d12 shows. 12 o'clock points straight on, away from the
    attacker; 3 o'clock is a quarter turn clockwise as seen on the map."""
    dist_roll = dice.roll("2d6" if launched else "d6", "deviation distance")
    clock = dice.roll("d12", "deviation direction")
    raw = dist_roll.total * deviation_multiplier(band)
    cap = distance_to_target / 2
    inches = min(raw, cap)
    c = cell_centre(aim_cell)
    if attacker_cell is not None and tuple(attacker_cell) != tuple(aim_cell):
        ux, uy = _unit(cell_centre(attacker_cell), c)
    else:
        ux, uy = 0.0, -1.0  # no attacker given: 12 o'clock is the top of the map
    theta = math.radians(30 * (clock.total % 12))
    # y grows downwards, so this standard rotation turns clockwise on screen
    dx = ux * math.cos(theta) - uy * math.sin(theta)
    dy = ux * math.sin(theta) + uy * math.cos(theta)
    point = (c[0] + dx * inches, c[1] + dy * inches)
    cell = (int(math.floor(point[0] + _EPS)), int(math.floor(point[1] + _EPS)))
    return {"cell": cell, "point": point, "inches": inches, "rolled_inches": raw, "capped": raw > cap,
            "clock": clock.total, "rolls": [dist_roll, clock]}


# ---------------------------------------------------------------- sheet and derived values

ATTRIBUTES = ("agility", "smarts", "spirit", "strength", "vigor")
COMBAT_SKILLS = ("fighting", "shooting", "athletics", "notice", "riding")

IMPROVISED = {
    # weight: (short, medium, long), damage, minimum Strength
    "light": ((3, 6, 12), "Str+d4", "d4"),
    "medium": ((2, 4, 8), "Str+d6", "d6"),
    "heavy": ((1, 2, 4), "Str+d8", "d8"),
}

OBJECT_TOUGHNESS = {
    "light door": 8,
    "heavy door": 10,
    "lock": 8,
    "firearm": 9,
    "handcuffs": 12,
    "knife": 10,
    "sword": 10,
    "medieval shield": 10,
    "modern shield": 12,
    "rope": 4,
}

SHOTGUN_DAMAGE = {"short": "3d6", "medium": "2d6", "long": "1d6"}

COVER_LEVELS = (("light", -2, "Light cover"), ("medium", -4, "Medium cover"),
                ("heavy", -6, "Heavy cover"), ("near_total", -8, "Near Total cover"))


def _weapon_defaults(w: dict) -> dict:
    out = {"damage": "Str", "range": "", "ap": 0, "rof": 1, "shotgun": False, "double_barrel": False,
           "reach": 0, "thrown": False, "two_handed": False, "improvised": "", "min_str": "",
           "edged": False, "natural": False, "parry": 0, "ready": True, "launched": False}
    out.update(w or {})
    return out


def weapon_stats(weapon: dict | None) -> dict:
    """A sheet weapon with defaults filled in, improvised weapons from their table
    (Improvised Weapons), and ``ranges`` parsed from ``"12/24/48"``."""
    w = _weapon_defaults(weapon or {})
    if w["improvised"]:
        try:
            rng, dmg, min_str = IMPROVISED[str(w["improvised"]).lower()]
        except KeyError:
            raise RuleError(f"improvised weapons are light, medium or heavy, not {w['improvised']!r}") from None
        w.update(damage=dmg, min_str=min_str)
        if w["thrown"]:
            w["range"] = "/".join(str(r) for r in rng)
    ranges = None
    if w["range"]:
        try:
            parts = [int(p) for p in str(w["range"]).split("/")]
        except ValueError:
            raise RuleError(f"a range reads like 12/24/48, not {w['range']!r}") from None
        if len(parts) != 3 or not (0 < parts[0] <= parts[1] <= parts[2]):
            raise RuleError(f"a range reads like 12/24/48, not {w['range']!r}")
        ranges = tuple(parts)
    w["ranges"] = ranges
    w["ranged"] = ranges is not None
    return w


def _condition_modifiers(sheet: dict) -> list[Modifier]:
    mods = []
    wounds = min(MAX_WOUNDS, int(sheet.get("wounds", 0) or 0))
    if wounds:
        mods.append(Modifier(f"Wounds ({wounds})", -wounds, CORE))
    fatigue = min(2, int(sheet.get("fatigue", 0) or 0))
    if fatigue:
        mods.append(Modifier(f"Fatigue ({fatigue})", -fatigue, "Fatigue (reading)"))
    return mods


def _skill_die(sheet: dict, skill: str) -> tuple[str, list[Modifier]]:
    die = (sheet.get("skills") or {}).get(skill)
    if die:
        parse_die(die)
        return die, []
    return "d4", [Modifier(f"Unskilled {skill.title()}", -2, "core rules (reading)")]


def _ready_melee(sheet: dict) -> list[dict]:
    return [weapon_stats(w) for w in (sheet.get("weapons") or {}).values()
            if not weapon_stats(w)["ranged"] and weapon_stats(w)["ready"]]


def derived_values(sheet: dict) -> dict:
    """Parry, Toughness (armour apart), wound penalty, Pace and run die, from the sheet."""
    skills = sheet.get("skills") or {}
    fighting = skills.get("fighting")
    parry = 2 + (half_die(parse_die(fighting)) if fighting else 0)
    shield = int(sheet.get("shield", 0) or 0)
    weapon_parry = max([int(w["parry"]) for w in _ready_melee(sheet)] or [0])
    vigor = parse_die(sheet.get("attributes", {}).get("vigor", "d6"))
    armour = int(sheet.get("armor", 0) or 0)
    base_toughness = 2 + half_die(vigor) + int(sheet.get("size", 0) or 0)
    wounds = int(sheet.get("wounds", 0) or 0)
    fatigue = int(sheet.get("fatigue", 0) or 0)
    edges = set(sheet.get("edges") or [])
    run_die = "d8" if "Fleet-Footed" in edges else "d6"
    pace = int(sheet.get("pace", 6) or 0) + (2 if "Fleet-Footed" in edges else 0)
    return {
        "parry": parry + shield + weapon_parry,
        "parry_base": parry,
        "toughness": base_toughness + armour,
        "toughness_base": base_toughness,
        "armor": armour,
        "toughness_text": f"{base_toughness + armour} ({armour})" if armour else str(base_toughness),
        "wound_penalty": -min(MAX_WOUNDS, wounds),
        "fatigue_penalty": -min(2, fatigue),
        "max_wounds": MAX_WOUNDS if sheet.get("wild_card", True) else 0,
        "pace": pace,
        "run_die": run_die,
        "wild_card": bool(sheet.get("wild_card", True)),
    }


# ---------------------------------------------------------------- attacks


@dataclass
class _TargetState:
    shaken: bool
    wounds: int
    wild: bool
    incapacitated: bool = False
    new_wounds: int = 0
    became_shaken: bool = False
    history: list = field(default_factory=list)

    def take(self, damage: int, toughness: int) -> dict:
        was_shaken = self.shaken
        ends_shaken, wounds = damage_result(damage, toughness, self.shaken)
        self.became_shaken = self.became_shaken or (ends_shaken and not was_shaken)
        self.shaken = ends_shaken
        self.new_wounds += wounds
        self.wounds += wounds
        if wounds and (not self.wild or self.wounds > MAX_WOUNDS):
            self.incapacitated = True
        out = {"damage": damage, "toughness": toughness, "shaken": ends_shaken, "wounds": wounds,
               "incapacitated": self.incapacitated}
        self.history.append(out)
        return out


def _adjacent(a, b) -> bool:
    if a is None or b is None:
        return False
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1 and tuple(a) != tuple(b)


def _distance(a, b) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _active(c: Combatant) -> bool:
    return not (c.sheet or {}).get("incapacitated")


def withdraw_attackers(mover: Combatant, others: list[Combatant]) -> list[str]:
    """Withdrawing from Melee: the ids of every adjacent foe that is not Shaken
    nor Stunned (nor Incapacitated); each gets one free attack."""
    out = []
    for o in others:
        if o.id == mover.id or o.side == mover.side or not _active(o):
            continue
        s = o.sheet or {}
        if s.get("shaken") or s.get("stunned"):
            continue
        if _adjacent(o.position, mover.position):
            out.append(o.id)
    return out


def cover_level(fraction: float | None, thresholds=(0.25, 0.5, 0.75)) -> CoverEffect:
    """Cover from the cover fraction (reading): 0 none; up to the first threshold
    Light (-2); then Medium (-4); Heavy (-6); under 1 Near Total (-8); 1 is
    no line of fire ("total")."""
    f = float(fraction or 0)
    if f <= _EPS:
        return CoverEffect("none", 0, "No cover")
    if f >= 1 - _EPS:
        return CoverEffect("total", 0, "Total cover: no line of fire")
    for limit, (level, mod, label) in zip(list(thresholds) + [1.0], COVER_LEVELS):
        if f <= limit + _EPS:
            return CoverEffect(level, mod, label)
    return CoverEffect(*COVER_LEVELS[-1])


class SavageWorlds(BaseSystem):
    id = "savage_worlds"
    name = "Savage Worlds (SWADE)"
    board = "grid"
    diagonal = "chebyshev"
    sheet_template = "sheets/_savage_worlds.html"
    help_template = "help/savage_worlds.html"
    cell_size = 1.0
    cell_unit = '"'
    yards_per_square = 2

    # -- sheet ---------------------------------------------------------------

    def sheet_fields(self) -> list[SheetField]:
        die = "die"
        return [
            SheetField("name", "Name", "text", "Hero", group="identity"),
            SheetField("wild_card", "Wild Card", "bool", True, help="Extras roll no Wild Die and fall to one Wound", group="identity"),
            SheetField("group", "Extras group", "text", "", help="Extras of one group share an action card", group="identity"),
            *[SheetField(f"attributes.{a}", a.title(), die, "d6", choices=("d4", "d6", "d8", "d10", "d12"), group="attributes") for a in ATTRIBUTES],
            SheetField("skills", "Skills", "dict", {"fighting": "d6", "shooting": "d6", "athletics": "d6", "notice": "d6"}, help="skill name to die, d4 to d12+n", group="skills"),
            SheetField("pace", "Base Pace", "int", 6, group="combat"),
            SheetField("size", "Size", "int", 0, help="added to Toughness", group="combat"),
            SheetField("armor", "Armour", "int", 0, group="combat"),
            SheetField("shield", "Shield Parry bonus", "int", 0, group="combat"),
            SheetField("wounds", "Wounds", "int", 0, group="state"),
            SheetField("fatigue", "Fatigue", "int", 0, group="state"),
            SheetField("shaken", "Shaken", "bool", False, group="state"),
            SheetField("stunned", "Stunned", "bool", False, group="state"),
            SheetField("vulnerable", "Vulnerable", "bool", False, group="state"),
            SheetField("prone", "Prone", "bool", False, group="state"),
            SheetField("incapacitated", "Incapacitated", "bool", False, group="state"),
            SheetField("bennies", "Bennies", "int", 3, group="state"),
            SheetField("edges", "Edges", "list", [], group="edges"),
            SheetField("hindrances", "Hindrances", "list", [], group="edges"),
            SheetField("weapons", "Weapons", "dict", {}, help="name to damage, range S/M/L, AP, RoF, shotgun, reach...", group="weapons"),
        ]

    def default_sheet(self) -> dict:
        return {
            "name": "Hero",
            "wild_card": True,
            "group": "",
            "attributes": {"agility": "d8", "smarts": "d6", "spirit": "d6", "strength": "d6", "vigor": "d8"},
            "skills": {"fighting": "d8", "shooting": "d6", "athletics": "d6", "notice": "d6", "riding": "d4"},
            "pace": 6,
            "size": 0,
            "armor": 1,
            "shield": 0,
            "wounds": 0,
            "fatigue": 0,
            "shaken": False,
            "stunned": False,
            "vulnerable": False,
            "prone": False,
            "incapacitated": False,
            "bennies": 3,
            "edges": ["Level Headed"],
            "hindrances": [],
            "weapons": {
                "Long sword": {"damage": "Str+d8", "edged": True},
                "Colt Peacemaker": {"damage": "2d6+1", "range": "12/24/48", "ap": 1, "rof": 1},
                "Throwing knife": {"damage": "Str+d4", "range": "3/6/12", "thrown": True, "edged": True},
            },
        }

    def validate_sheet(self, sheet: dict) -> None:
        """RuleError naming the first field that is not valid."""
        for a in ATTRIBUTES:
            parse_die((sheet.get("attributes") or {}).get(a, "d6"))
        for k, v in (sheet.get("skills") or {}).items():
            try:
                parse_die(v)
            except RuleError:
                raise RuleError(f"skill {k}: not a die: {v!r}") from None
        for k, w in (sheet.get("weapons") or {}).items():
            ws = weapon_stats(w)
            damage_expression(ws["damage"], "d6")
        for k in ("wounds", "fatigue", "bennies", "armor", "pace"):
            if int(sheet.get(k, 0) or 0) < 0:
                raise RuleError(f"{k} cannot be negative")

    def derived(self, sheet: dict) -> dict:
        return derived_values(sheet)

    def default_settings(self) -> dict:
        return {
            "cover_thresholds": [0.25, 0.5, 0.75],
            "template_coverage": "touched",
            "cone_length": 9.0,
            "cone_width": 3.0,
            "line_length": 12.0,
            "card_edges": {k: dict(v) for k, v in DEFAULT_CARD_EDGES.items()},
            "max_actions": 3,
            "extreme_requires_aim": True,
            "area_cover_armor": {"light": 2, "medium": 4, "heavy": 6, "near_total": 8},
            "min_str_penalty": True,
        }

    def _settings(self, request_or_settings=None) -> dict:
        given = request_or_settings
        if isinstance(given, AttackRequest):
            given = given.options.get("settings")
        return {**self.default_settings(), **(given or {})}

    # -- initiative and movement ---------------------------------------------

    def initiative(self, combatants: list[Combatant], dice: DiceSource, deck: dict | None = None,
                   settings: dict | None = None, first_round: bool = False) -> list[dict]:
        """The acting order of a round; use :func:`deal_round` to get the new deck too."""
        return deal_round(deck, combatants, dice, settings, first_round=first_round)["order"]

    def deal_round(self, deck, combatants, dice, settings=None, first_round=False) -> dict:
        return deal_round(deck, combatants, dice, settings, first_round=first_round)

    def move_allowance(self, sheet: dict, action: str = "move") -> float:
        """Pace in squares. ``"run"`` is the most a run can give without an ace
        of the running die (roll it with :meth:`run`); ``"stand"`` is what is
        left after standing up from prone (2")."""
        d = derived_values(sheet)
        if action == "move":
            return float(d["pace"])
        if action == "run":
            return float(d["pace"] + parse_die(d["run_die"]).sides)
        if action == "stand":
            return float(max(0, d["pace"] - 2))
        raise RuleError(f"no movement action {action!r} (move, run or stand)")

    def run(self, sheet: dict, dice: DiceSource) -> dict:
        """Core facts: running adds the running die to Pace and is -2 to every
        action that turn (the running die does not ace: it is not a trait roll)."""
        d = derived_values(sheet)
        r = dice.roll(d["run_die"], "running die")
        return {"allowance": d["pace"] + r.total, "roll": r.to_dict(),
                "modifier": Modifier("Running", -2, CORE).to_dict()}

    def move_cost(self, board, path: list, prone: bool = False) -> float:
        """Step costs on the board (difficult terrain doubles them, diagonals
        count 1"), plus 2" to stand up first when prone."""
        from .. import movement

        cost = movement.path_cost(board, path, self.diagonal)
        if cost is None:
            raise RuleError("that path cannot be walked (blocked, occupied or not step by step)")
        return float(cost) + (2.0 if prone else 0.0)

    def withdraw(self, mover: Combatant, others: list[Combatant]) -> list[str]:
        return withdraw_attackers(mover, others)

    # -- range and cover -----------------------------------------------------

    def range_band(self, distance: float, weapon: dict) -> str | None:
        """Ranged Attacks: the band of a distance for a weapon; melee weapons
        answer ``"melee"`` within reach (adjacent plus Reach) and None beyond."""
        w = weapon_stats(weapon)
        if not w["ranged"]:
            return "melee" if distance <= 1 + int(w["reach"]) else None
        s, m, l = w["ranges"]
        mod = range_modifier(int(math.ceil(distance)), s, m, l)
        if mod is None:
            return None
        band = {0: "short", -2: "medium", -4: "long", -8: "extreme"}[mod]
        if w["shotgun"] and band == "extreme":
            return None
        return band

    def cover_effect(self, cover: Any, settings: dict | None = None) -> CoverEffect:
        """Cover from a ``rules.los.Cover``, a fraction, or a level name."""
        thresholds = self._settings(settings)["cover_thresholds"]
        if cover is None:
            return cover_level(0.0)
        if isinstance(cover, str):
            for level, mod, label in COVER_LEVELS:
                if cover.lower().replace(" ", "_") == level:
                    return CoverEffect(level, mod, label)
            if cover.lower() == "none":
                return cover_level(0.0)
            raise RuleError(f"no cover level {cover!r}")
        fraction = getattr(cover, "fraction", cover)
        return cover_level(float(fraction), thresholds)

    # -- attacks -------------------------------------------------------------

    def _plan(self, request: AttackRequest) -> dict:
        """Everything about an attack that is known before rolling: the trait,
        TN, modifiers, damage expressions, RoF. Shared by attack and odds."""
        a, t, opts = request.attacker, request.target, request.options
        settings = self._settings(request)
        asheet, tsheet = a.sheet or {}, t.sheet or {}
        if asheet.get("incapacitated"):
            raise RuleError(f"{a.name} is Incapacitated")
        if asheet.get("shaken") or asheet.get("stunned"):
            # Shaken and Stunned characters take no actions (core rules, reading)
            raise RuleError(f"{a.name} is {'Shaken' if asheet.get('shaken') else 'Stunned'} and cannot attack")
        weapons = asheet.get("weapons") or {}
        if request.weapon is None:
            wname, w = "Unarmed", weapon_stats({"damage": "Str", "natural": True})
            w["unarmed"] = True
        else:
            if request.weapon not in weapons:
                raise RuleError(f"{a.name} has no weapon {request.weapon!r}")
            wname, w = request.weapon, weapon_stats(weapons[request.weapon])
            w["unarmed"] = False
        attrs = asheet.get("attributes") or {}
        strength = attrs.get("strength", "d6")
        wild = bool(asheet.get("wild_card", True))
        mods: list[Modifier] = []
        dmg_mods: list[Modifier] = []
        distance = request.distance
        if request.attacker.position is not None and request.target.position is not None and not distance:
            distance = _distance(request.attacker.position, request.target.position)
        adjacent = distance <= 1
        target_obj = opts.get("object")
        toughness_info = self._toughness(tsheet, target_obj)
        area = opts.get("template")

        # which skill
        thrown = w["thrown"] and (w["ranged"] or area)
        if area in BLAST_RADIUS and opts.get("centre") is not None and a.position is not None:
            distance = _distance(a.position, opts["centre"])
        if area:
            kind, skill = ("thrown", "athletics") if thrown else ("ranged", "shooting")
        elif not w["ranged"]:
            kind, skill = "melee", "fighting"
            if distance > 1 + int(w["reach"]):
                raise RuleError(f"{t.name} is {distance}\" away, beyond the reach of {wname}")
        else:
            kind, skill = ("thrown", "athletics") if thrown else ("ranged", "shooting")
        die, unskilled = _skill_die(asheet, skill)
        mods += unskilled
        if kind == "melee" and opts.get("mounted"):
            riding, r_mods = _skill_die(asheet, "riding")
            if (parse_die(riding).step - 2 * len(r_mods)) < (parse_die(die).step - 2 * len(unskilled)):
                die, mods = riding, r_mods + [Modifier("Mounted: Riding is lower than Fighting", 0, "Mounted Combat")]

        # the TN
        foes_adjacent_to_attacker = [o for o in request.others + [t] if o.side != a.side and _active(o)
                                     and _adjacent(o.position, a.position)]
        in_melee = bool(foes_adjacent_to_attacker)
        tderived = derived_values(tsheet)
        vulnerable_after = False
        if kind == "melee":
            tn = tderived["parry"]
            tn_label = f"Parry {tn}"
            if tsheet.get("prone") and not target_obj:
                tn, tn_label = tn - 2, f"Parry {tn - 2} (prone -2)"
        else:
            tn, tn_label = TN, "TN 4"
            if in_melee and area is None:
                if w["two_handed"]:
                    raise RuleError(f"in melee only one-handed ranged weapons can be used, not {wname}")
                if adjacent and not opts.get("target_is_object"):
                    tn, tn_label = tderived["parry"], f"Parry {tderived['parry']} (ranged in melee)"
                else:
                    vulnerable_after = True
        if target_obj:
            tn, tn_label = TN, "TN 4 (object)"

        # range
        band = None
        if area in ("cone", "line"):
            band = "short"  # the template is the reach: no range modifier
        elif area and not w["ranged"]:
            raise RuleError(f"{wname} has no range to throw or fire a blast")
        elif kind != "melee":
            if adjacent and tn != TN:
                band = "short"
            else:
                band = self.range_band(distance, w)
                if band is None:
                    raise RuleError(f"{t.name} is beyond {wname}'s range" +
                                    (" (shotguns have no Extreme range)" if w["shotgun"] else ""))
            if band == "extreme" and settings["extreme_requires_aim"] and not opts.get("aim"):
                raise RuleError("Extreme range needs the Aim action first")
            rm = {"short": 0, "medium": -2, "long": -4, "extreme": -8}[band]
            if rm:
                mods.append(Modifier(f"{band.title()} range", rm, "Ranged Attacks"))

        # cover and prone (ranged), not for area templates (they use cover as armour)
        cover = self.cover_effect(request.cover, settings) if (request.cover is not None and kind != "melee") else cover_level(0.0)
        if cover.level == "total" and request.board is not None and a.position is not None and t.position is not None:
            cover = self._pieces_only(request.board, a.position, t.position, cover)
        if cover.level == "total" and area is None:
            raise RuleError(f"no line of fire to {t.name}")
        if tsheet.get("vulnerable") and not target_obj and area is None:
            mods.append(Modifier("Vulnerable target", 2, "core rules (reading)"))
        if kind != "melee" and area is None:
            prone_mod = -4 if tsheet.get("prone") and distance >= 3 else 0
            if prone_mod < cover.modifier:
                mods.append(Modifier("Prone target (3\" or more)", -4, "Prone Targets"))
                if cover.modifier:
                    mods.append(Modifier(f"{cover.label} (does not stack with prone)", 0, "Prone Targets"))
            elif cover.modifier:
                mods.append(Modifier(cover.label, cover.modifier, "Ranged Attacks / cover"))

        # melee modifiers
        if kind == "melee":
            defender_armed = bool(_ready_melee(tsheet)) or int(tsheet.get("shield", 0) or 0) > 0
            if not w["unarmed"] and not w["natural"] and not defender_armed and not target_obj:
                mods.append(Modifier("Unarmed defender", 2, "Melee Attacks"))
            others_foes = [o for o in request.others if o.id not in (a.id, t.id) and o.side != t.side and _active(o)
                           and not (o.sheet or {}).get("stunned") and _adjacent(o.position, t.position)]
            allies = [o for o in request.others if o.id not in (a.id, t.id) and o.side == t.side and _active(o)
                      and _adjacent(o.position, t.position)]
            g = gang_up_bonus(len(others_foes), len(allies))
            if g and not target_obj:
                mods.append(Modifier(f"Gang up ({len(others_foes)} foes, {len(allies)} allies)", g, "Melee Attacks"))
            if asheet.get("prone"):
                mods.append(Modifier("Attacking while prone", -2, "Prone Targets"))
            if opts.get("two_weapons"):
                t_weapons = [x for x in _ready_melee(tsheet)]
                natural = any(x["natural"] for x in t_weapons)
                if len(t_weapons) <= 1 and not int(tsheet.get("shield", 0) or 0) and not natural:
                    mods.append(Modifier("Two weapons", 1, "Two Weapons"))
            if opts.get("nonlethal") and w["edged"]:
                mods.append(Modifier("Edged weapon used flat (nonlethal)", -1, "Nonlethal Damage"))

        # the attacker's own state and choices
        if w["shotgun"]:
            mods.append(Modifier("Shotgun", 2, "Shotguns"))
        if w["improvised"]:
            mods.append(Modifier("Improvised weapon", -2, "Improvised Weapons"))
        if w["min_str"] and settings["min_str_penalty"]:
            short = parse_die(w["min_str"]).step - parse_die(strength).step
            if short > 0:
                mods.append(Modifier(f"Strength below Min Str {w['min_str']}", -short, "Improvised Weapons (reading)"))
        actions = int(opts.get("actions", 1) or 1)
        if actions > settings["max_actions"]:
            raise RuleError(f"at most {settings['max_actions']} actions in a turn")
        map_ = multi_action_penalty(actions)
        if map_:
            mods.append(Modifier(f"Multi-action ({actions} actions)", map_, "Actions Per Turn"))
        if opts.get("running"):
            mods.append(Modifier("Running", -2, CORE))
        joker = bool(opts.get("joker", a.state.get("joker") if a.state else False))
        if joker:
            mods.append(Modifier("Joker", 2, "Initiative (Action Cards)"))
            dmg_mods.append(Modifier("Joker", 2, "Initiative (Action Cards)"))
        mods += _condition_modifiers(asheet)
        for label, value in opts.get("modifiers", []) or []:
            mods.append(Modifier(str(label), int(value), "GM"))

        # RoF
        rof = int(opts.get("rof", w["rof"]) or 1)
        if rof < 1 or rof > int(w["rof"]):
            raise RuleError(f"{wname} fires 1 to {w['rof']} shots an action, not {rof}")
        if rof > 1:
            mods.append(Modifier("Recoil", -2, "Rate of Fire"))

        # damage
        explode = not target_obj
        dmg_text = w["damage"]
        if w["shotgun"]:
            dmg_text = SHOTGUN_DAMAGE[band]
        if w["double_barrel"] and opts.get("both_barrels"):
            dmg_mods.append(Modifier("Both barrels", 4, "Shotguns"))
        if opts.get("charge"):
            dmg_mods.append(Modifier("Mounted charge", 4, "Mounted Combat"))
        if kind == "melee" or "str" in str(dmg_text).lower():
            dmg_expr, _ = damage_expression(dmg_text, strength, explode=explode)
        else:
            dmg_expr, _ = damage_expression(dmg_text, None, explode=explode)
        raise_bonus = explode  # objects take no bonus damage from raises
        return {
            "kind": kind, "skill": skill, "die": die, "wild": wild, "tn": tn, "tn_label": tn_label,
            "modifiers": mods, "damage_expr": dmg_expr, "damage_modifiers": dmg_mods, "rof": rof,
            "ap": int(w["ap"]), "toughness": toughness_info, "raise_bonus": raise_bonus, "explode": explode,
            "band": band, "weapon_name": wname, "weapon": w, "vulnerable_after": vulnerable_after,
            "distance": distance, "random_target_faces": (1, 2) if (rof > 1 or w["shotgun"]) else (1,),
            "settings": settings, "cover": cover,
        }

    def _toughness(self, tsheet: dict, obj: str | None) -> dict:
        if obj:
            key = str(obj).lower()
            if key not in OBJECT_TOUGHNESS:
                try:
                    value = int(obj)
                except ValueError:
                    raise RuleError(f"unknown object {obj!r}; known: {', '.join(OBJECT_TOUGHNESS)}") from None
            else:
                value = OBJECT_TOUGHNESS[key]
            return {"base": value, "armor": 0, "object": key}
        d = derived_values(tsheet)
        return {"base": d["toughness_base"], "armor": d["armor"], "object": None}

    @staticmethod
    def _effective_toughness(tough: dict, ap: int) -> tuple[int, list[Modifier]]:
        pierced = min(ap, tough["armor"])
        notes = [Modifier(f"AP {ap} against armour {tough['armor']}", -pierced, "Damage Resolution")] if pierced else []
        return tough["base"] + tough["armor"] - pierced, notes

    def attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult:
        """Resolve an attack: the trait roll(s), the damage of each hit, and
        what it does to the target. Options: ``actions``, ``running``,
        ``rof``, ``aim``, ``joker``, ``two_weapons``, ``nonlethal``,
        ``both_barrels``, ``mounted``, ``charge``, ``object`` (Object
        Toughness), ``modifiers`` ([label, value] from the GM), ``template``
        (``small``/``medium``/``large``/``cone``/``line``, with ``centre``
        the aimed square and ``launched`` for 2d6" deviation)."""
        if request.options.get("template"):
            return self.area_attack(request, dice)
        plan = self._plan(request)
        a, t = request.attacker, request.target
        rolls: list[RollRecord] = []
        # RoF: one trait die per shot, one Wild Die that may replace the worst
        trait_rolls = [dice.roll(f"d{parse_die(plan['die']).sides}!", f"{plan['skill'].title()} die"
                                 + (f" {i + 1}" if plan["rof"] > 1 else "")) for i in range(plan["rof"])]
        wild = dice.roll(f"{WILD_DIE}!", "Wild Die") if plan["wild"] else None
        rolls += trait_rolls + ([wild] if wild else [])
        mods = trait_die_modifiers(parse_die(plan["die"]), plan["skill"].title()) + plan["modifiers"]
        modsum = int(sum(m.value for m in mods))
        kept = [r.total for r in trait_rolls]
        replaced = None
        if wild is not None:
            worst = min(range(len(kept)), key=lambda i: kept[i])
            if wild.total > kept[worst]:
                kept[worst] = wild.total
                replaced = worst
        ones = sum(1 for r in trait_rolls if r.first_faces[0] == 1)
        critical = wild is not None and wild.first_faces[0] == 1 and 2 * ones >= len(trait_rolls)
        shots = []
        for i, k in enumerate(kept):
            total = k + modsum
            ok, raises = trait_result(total, plan["tn"])
            if critical:
                ok, raises = False, 0
            shots.append({"total": total, "hit": ok, "raises": raises, "wild_die": i == replaced})
        hits = [s for s in shots if s["hit"]]

        effects: list[Effect] = []
        tsheet = request.target.sheet or {}
        state = _TargetState(bool(tsheet.get("shaken")), int(tsheet.get("wounds", 0) or 0),
                             bool(tsheet.get("wild_card", True)))
        toughness, t_notes = self._effective_toughness(plan["toughness"], plan["ap"])
        dmg_mod = int(sum(m.value for m in plan["damage_modifiers"]))
        damages = []
        for n, s in enumerate(hits):
            droll = dice.roll(plan["damage_expr"], f"damage{'' if len(hits) == 1 else f' (hit {n + 1})'}")
            rolls.append(droll)
            total = droll.total + dmg_mod
            bonus = None
            if s["raises"] and plan["raise_bonus"]:
                bonus = dice.roll("d6!", "raise: bonus damage")
                rolls.append(bonus)
                total += bonus.total
            if plan["toughness"]["object"]:
                outcome = {"damage": total, "toughness": toughness, "broken": total >= toughness}
            else:
                outcome = state.take(total, toughness)
            damages.append({"roll": droll.total, "bonus": bonus.total if bonus else 0, **outcome})

        # random targets on a miss (the 1s rule)
        stray = []
        if plan["kind"] != "melee" and not plan["toughness"]["object"]:
            faces = plan["random_target_faces"]
            if plan["rof"] == 1 and plan["wild"] and not plan["weapon"]["shotgun"]:
                count = 1 if (not hits and trait_rolls[0].first_faces[0] == 1 and wild.first_faces[0] == 1) else 0
            else:
                count = sum(1 for r, s in zip(trait_rolls, shots) if not s["hit"] and r.first_faces[0] in faces)
            if count:
                stray = self._random_targets(request, plan, count, dice, rolls, effects)

        summary = self._summary(request, plan, shots, damages, critical, state)
        if plan["toughness"]["object"] is None:
            effects += self._state_effects(t.id, state, plan, request, dice, rolls)
        elif any(d.get("broken") for d in damages):
            effects.append(Effect("object_broken", t.id, {"object": plan["toughness"]["object"]}))
        if plan["vulnerable_after"]:
            effects.append(Effect("vulnerable", a.id, {"reason": "shot a non-adjacent target while in melee"}))
        return AttackResult(
            hit=bool(hits),
            summary=summary,
            rolls=rolls,
            modifiers=mods + plan["damage_modifiers"] + t_notes,
            effects=effects,
            details={
                "kind": plan["kind"], "skill": plan["skill"], "die": plan["die"], "tn": plan["tn"],
                "tn_label": plan["tn_label"], "band": plan["band"], "shots": shots, "critical_failure": critical,
                "damage": damages, "toughness": toughness, "damage_expr": plan["damage_expr"],
                "target": t.id, "attacker": a.id, "stray_hits": stray,
            },
        )

    def _state_effects(self, target_id, state: _TargetState, plan, request, dice, rolls) -> list[Effect]:
        effects = []
        if state.became_shaken:
            effects.append(Effect("shaken", target_id, {}))
        if state.new_wounds:
            effects.append(Effect("wounds", target_id, {"wounds": state.new_wounds}))
        if state.incapacitated:
            if request.options.get("nonlethal"):
                hours = dice.roll("d6", "unconscious (hours)")
                rolls.append(hours)
                effects.append(Effect("unconscious", target_id, {"hours": hours.total}))
            effects.append(Effect("incapacitated", target_id, {"nonlethal": bool(request.options.get("nonlethal"))}))
        return effects

    def _random_targets(self, request, plan, count, dice, rolls, effects) -> list[dict]:
        """Random Targets: each qualifying die of a missed shot hits a random
        token adjacent to the intended target; damage is rolled without raise."""
        t = request.target
        candidates = [o for o in request.others if o.id not in (request.attacker.id, t.id) and _active(o)
                      and _adjacent(o.position, t.position)]
        out = []
        for _ in range(count):
            if not candidates:
                out.append({"target": None, "note": "no token next to the target"})
                continue
            pick = dice.roll(f"d{len(candidates)}", "random target") if len(candidates) > 1 else None
            if pick:
                rolls.append(pick)
            victim = candidates[(pick.total - 1) if pick else 0]
            vs = victim.sheet or {}
            droll = dice.roll(plan["damage_expr"], f"damage to {victim.name} (random target)")
            rolls.append(droll)
            tough, _ = self._effective_toughness(self._toughness(vs, None), plan["ap"])
            st = _TargetState(bool(vs.get("shaken")), int(vs.get("wounds", 0) or 0), bool(vs.get("wild_card", True)))
            dmg = droll.total + int(sum(m.value for m in plan["damage_modifiers"]))
            res = st.take(dmg, tough)
            out.append({"target": victim.id, **res})
            effects += self._state_effects(victim.id, st, plan, request, dice, rolls)
        return out

    def _summary(self, request, plan, shots, damages, critical, state) -> str:
        a, t = request.attacker.name, request.target.name
        if critical:
            return f"{a}: critical failure ({plan['skill'].title()} vs {plan['tn_label']})"
        hits = [s for s in shots if s["hit"]]
        if not hits:
            best = max(s["total"] for s in shots)
            return f"{a} misses {t} ({best} vs {plan['tn_label']})"
        parts = []
        for s, d in zip(hits, damages):
            r = f" with {s['raises']} raise{'s' if s['raises'] > 1 else ''}" if s["raises"] else ""
            if "broken" in d:
                parts.append(f"hit{r}: {d['damage']} damage vs Toughness {d['toughness']}"
                             + (" (broken)" if d["broken"] else " (holds)"))
            else:
                what = (f"{d['wounds']} Wound{'s' if d['wounds'] > 1 else ''}" if d["wounds"]
                        else "Shaken" if d["shaken"] and d["damage"] >= d["toughness"] else "no effect")
                parts.append(f"hit{r}: {d['damage']} damage vs Toughness {d['toughness']}, {what}")
        tail = " - Incapacitated" if state.incapacitated else ""
        return f"{a} hits {t}: " + "; ".join(parts) + tail

    # -- area effects ----------------------------------------------------------

    def area_attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult:
        """Area Effect Attacks: one trait roll (TN 4 with range modifiers; no
        target defences); on a success everyone under the template is hit, a
        raise adds +d6 to every target's damage, damage is rolled per target,
        less the armour value of any cover between the centre (or the
        attacker, for cones and lines) and the target; prone targets take 4
        less. A failed blast deviates and hits what it lands on (no raise);
        a failed cone or line misses."""
        opts = request.options
        template = opts["template"]
        settings = self._settings(request)
        plan = self._plan(request)
        if plan["kind"] == "melee":
            raise RuleError("templates are for thrown or ranged weapons")
        if plan["rof"] > 1:
            raise RuleError("an area attack fires once (RoF 1)")
        centre = tuple(opts.get("centre") or request.target.position)
        a = request.attacker
        tr = trait_roll(plan["die"], dice, wild_card=plan["wild"], modifiers=plan["modifiers"], tn=TN,
                        name=plan["skill"].title())
        rolls = [r for r in (tr.trait, tr.wild) if r]
        deviated = None
        hit = tr.success
        raises = tr.raises
        if not hit and template in BLAST_RADIUS:
            dist_to_target = _distance(a.position, centre) if a.position is not None else plan["distance"]
            deviated = deviation(centre, dist_to_target, plan["band"], bool(plan["weapon"]["launched"] or opts.get("launched")),
                                 dice, a.position)
            rolls += deviated.pop("rolls")
            centre = deviated["cell"]
        width = height = None
        if request.board is not None:
            width, height = getattr(request.board, "width", None), getattr(request.board, "height", None)
        cells = template_cells(template, a.position, centre, settings, width=width, height=height)
        victims = [c for c in [request.target] + request.others
                   if c.position is not None and tuple(c.position) in cells and c.id != a.id and _active(c)]
        seen = set()
        victims = [v for v in victims if not (v.id in seen or seen.add(v.id))]
        effects: list[Effect] = []
        per_target = []
        dmg_mod = int(sum(m.value for m in plan["damage_modifiers"]))
        if hit or deviated is not None:
            origin = centre if template in BLAST_RADIUS else tuple(a.position)
            for v in victims:
                vs = v.sheet or {}
                tough, notes = self._effective_toughness(self._toughness(vs, None), plan["ap"])
                droll = dice.roll(plan["damage_expr"], f"damage to {v.name}")
                rolls.append(droll)
                total = droll.total + dmg_mod
                bonus = None
                if hit and raises:
                    bonus = dice.roll("d6!", f"raise: bonus damage to {v.name}")
                    rolls.append(bonus)
                    total += bonus.total
                reductions = []
                armour = self._area_cover(request.board, origin, tuple(v.position), settings)
                if armour is None:
                    per_target.append({"target": v.id, "protected": True, "note": "total cover from the centre"})
                    continue
                if armour:
                    reductions.append(Modifier("Cover between the centre and the target", -armour, "Area Effect Attacks"))
                if vs.get("prone"):
                    reductions.append(Modifier("Prone target", -4, "Prone Targets"))
                total += int(sum(m.value for m in reductions))
                st = _TargetState(bool(vs.get("shaken")), int(vs.get("wounds", 0) or 0), bool(vs.get("wild_card", True)))
                res = st.take(total, tough)
                per_target.append({"target": v.id, "roll": droll.total, "bonus": bonus.total if bonus else 0,
                                   "reductions": [m.to_dict() for m in reductions], **res})
                effects += self._state_effects(v.id, st, plan, request, dice, rolls)
        mods = tr.modifiers + plan["damage_modifiers"]
        if deviated:
            summary = (f"{a.name} misses: the {template} blast deviates {deviated['inches']:g}\" "
                       f"toward {deviated['clock']} o'clock and lands on {deviated['cell']}")
        elif hit:
            summary = f"{a.name}'s {template} template hits {len(victims)} token(s)" + (" with a raise" if raises else "")
        else:
            summary = f"{a.name} misses with the {template} template"
        if tr.critical_failure:
            summary += " (critical failure)"
        return AttackResult(
            hit=hit, summary=summary, rolls=rolls, modifiers=mods, effects=effects,
            details={"kind": "area", "template": template, "trait": tr.to_dict(), "cells": sorted(cells),
                     "centre": centre, "deviation": deviated, "targets": per_target,
                     "damage_expr": plan["damage_expr"], "attacker": a.id, "target": request.target.id},
        )

    def _area_cover(self, board, origin, target, settings) -> int | None:
        """Armour a target's cover gives against an area effect, from the cover
        fraction between the template's origin and the target; None when a wall
        stands fully between them."""
        if board is None or tuple(origin) == tuple(target):
            return 0
        from .. import los

        cov = self.cover_effect(los.cover(board, origin, target), settings)
        cov = self._pieces_only(board, origin, target, cov)
        if cov.level == "total":
            return None
        return int(settings["area_cover_armor"].get(cov.level, 0))

    @staticmethod
    def _pieces_only(board, a, b, cover: CoverEffect) -> CoverEffect:
        """Pieces of cover never block the line of fire: when they alone hide
        the whole target it is Near Total cover, not total."""
        if cover.level != "total":
            return cover
        from .. import los

        if los.line_of_fire(board, tuple(a), tuple(b)).clear:
            return CoverEffect(*COVER_LEVELS[-1])
        return cover

    # -- odds -------------------------------------------------------------------

    def odds(self, request: AttackRequest) -> dict:
        """The exact chance, before rolling, to hit, to hit with a raise, and to
        Shake or Wound the target with at least one hit (RoF dice, Wild Die
        replacing the worst die, critical failures, bonus damage all counted)."""
        if request.options.get("template"):
            raise RuleNotImplemented("odds of area templates are not computed (they depend on who is under it)")
        plan = self._plan(request)
        d = parse_die(plan["die"])
        mod = int(sum(m.value for m in plan["modifiers"])) + d.bonus
        tn = plan["tn"]
        tsheet = request.target.sheet or {}
        toughness, _ = self._effective_toughness(plan["toughness"], plan["ap"])
        dmg_mod = int(sum(m.value for m in plan["damage_modifiers"]))
        dmg = _odds.distribution(plan["damage_expr"])
        dmg = {v + dmg_mod: p for v, p in dmg.items()}
        dmg_raise = _odds.convolve(dmg, _odds.die_distribution(6, explode=True)) if plan["raise_bonus"] else dmg
        shaken = bool(tsheet.get("shaken")) and not plan["toughness"]["object"]
        res = attack_odds(d.sides, plan["wild"], mod, tn, plan["rof"], dmg, dmg_raise, toughness, shaken)
        res.update({"tn": tn, "modifier": mod, "toughness": toughness, "damage_expr": plan["damage_expr"],
                    "rof": plan["rof"], "die": plan["die"], "wild_card": plan["wild"]})
        return res

    # -- applying results ---------------------------------------------------------

    def apply(self, sheet: dict, result: AttackResult, target_id: str | None = None) -> dict:
        """A copy of ``sheet`` with the result's effects on ``target_id`` (by
        default the attack's target) applied: Shaken, Wounds (at most 3 on a
        Wild Card), Incapacitated, Vulnerable, Bennies."""
        tid = target_id or result.details.get("target")
        out = dict(sheet)
        for e in result.effects:
            if e.target != tid:
                continue
            if e.kind == "shaken":
                out["shaken"] = True
            elif e.kind == "wounds":
                cap = MAX_WOUNDS if out.get("wild_card", True) else 1
                out["wounds"] = min(cap, int(out.get("wounds", 0) or 0) + int(e.data["wounds"]))
                out["shaken"] = True
            elif e.kind == "incapacitated":
                out["incapacitated"] = True
            elif e.kind == "vulnerable":
                out["vulnerable"] = True
            elif e.kind == "benny":
                out["bennies"] = int(out.get("bennies", 0) or 0) + int(e.data.get("amount", 1))
        return out


def trait_odds(sides: int, wild_card: bool, modifier: int, tn: int = TN) -> dict:
    """Exact chance of a single trait roll: success, raise, critical failure."""
    one = attack_odds(sides, wild_card, modifier, tn, 1, {0: 1.0}, {0: 1.0}, 10**9, False)
    return {k: one[k] for k in ("hit", "raise", "critical_failure")}


def _damage_cats(dist: dict, toughness: int) -> tuple[float, float, float]:
    """Chance that one hit's damage is below Toughness, Shakes, or Wounds."""
    below = _odds.at_most(dist, toughness - 1)
    wound = _odds.at_least(dist, toughness + RAISE)
    return below, max(0.0, 1 - below - wound), wound


def _no_wound(h: int, r: int, hc, rc, shaken: bool) -> float:
    """Chance that h plain hits and r raise hits leave the target unwounded:
    no hit a raise over Toughness, and at most one hit that Shakes (none when
    already Shaken), since Shaken again is a Wound."""
    none_shake = hc[0] ** h * rc[0] ** r
    if shaken:
        return none_shake
    one_shake = (h * hc[1] * hc[0] ** (h - 1) * rc[0] ** r if h else 0.0) + (
        r * rc[1] * rc[0] ** (r - 1) * hc[0] ** h if r else 0.0)
    return none_shake + one_shake


def attack_odds(sides: int, wild_card: bool, modifier: int, tn: int, rof: int,
                damage: dict, damage_raise: dict, toughness: int, shaken: bool) -> dict:
    """Exact odds of an attack of ``rof`` trait dice (acing ``d{sides}``) plus,
    for a Wild Card, one Wild Die that replaces the worst trait die when it is
    higher; a critical failure (Wild Die 1 and half or more trait dice 1)
    misses with every die. Each die is a category (a 1; else miss / hit /
    raise by total). Enumerated exactly by the lowest trait value ``m``, how
    many dice show it, the categories of the rest, and the Wild Die."""
    trait = _odds.die_distribution(sides, explode=True)
    wild = _odds.die_distribution(6, explode=True)
    p_eff_hit = _odds.at_least(damage, toughness)
    p_eff_raise = _odds.at_least(damage_raise, toughness)
    hit_cats = _damage_cats(damage, toughness)
    raise_cats = _damage_cats(damage_raise, toughness)

    def cat(v: int) -> int:
        t = v + modifier
        return 0 if t < tn else 1 if t < tn + RAISE else 2

    tvals = sorted(trait.items())
    wvals = sorted(wild.items()) if wild_card else [(None, 1.0)]

    tail = {}  # m -> probability mass strictly above m
    acc = 0.0
    for v, p in reversed(tvals):
        tail[v] = acc
        acc += p
    result = {"hit": 0.0, "raise": 0.0, "effect": 0.0, "wound": 0.0, "critical_failure": 0.0,
              "expected_hits": 0.0}
    n = rof
    for m, pm in tvals:
        above = tail[m]
        cats_above = [0.0, 0.0, 0.0]
        for v, p in tvals:
            if v > m:
                cats_above[cat(v)] += p
        for j in range(1, n + 1):  # j dice show the minimum m, n - j show more
            p_conf = comb(n, j) * pm**j * above ** (n - j)
            if p_conf == 0:
                continue
            ones = j if m == 1 else 0
            # the other n - j dice: multinomial over categories
            for c0 in range(n - j + 1):
                for c1 in range(n - j - c0 + 1):
                    c2 = n - j - c0 - c1
                    if above == 0:
                        if n - j:
                            continue
                        p_rest = 1.0
                    else:
                        q = [x / above for x in cats_above]
                        p_rest = (comb(n - j, c0) * comb(n - j - c0, c1)
                                  * q[0] ** c0 * q[1] ** c1 * q[2] ** c2)
                    if p_rest == 0:
                        continue
                    for w, pw in wvals:
                        p = p_conf * p_rest * pw
                        if p == 0:
                            continue
                        counts = [c0, c1, c2]
                        counts[cat(m)] += j
                        crit = w == 1 and 2 * ones >= n
                        if w is not None and w > m:
                            counts[cat(m)] -= 1
                            counts[cat(w)] += 1
                        if crit:
                            result["critical_failure"] += p
                            continue
                        h, r = counts[1], counts[2]
                        if h + r:
                            result["hit"] += p
                        if r:
                            result["raise"] += p
                        result["expected_hits"] += p * (h + r)
                        miss_all = (1 - p_eff_hit) ** h * (1 - p_eff_raise) ** r
                        result["effect"] += p * (1 - miss_all)
                        result["wound"] += p * (1 - _no_wound(h, r, hit_cats, raise_cats, shaken))
    result["shaken_only"] = result["effect"] - result["wound"]
    return result


SYSTEM = SavageWorlds()

__all__ = [
    "SYSTEM", "SavageWorlds", "range_modifier", "trait_result", "damage_result", "gang_up_bonus",
    "multi_action_penalty", "action_order", "deviation_multiplier", "trait_roll", "deal_round",
    "blast_cells", "template_cells", "deviation", "attack_odds", "trait_odds", "cover_level",
    "withdraw_attackers", "interrupt", "new_deck", "shuffle", "fresh_deck", "draw_card", "start_round",
]
