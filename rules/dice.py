"""Dice sources, dice expressions and roll records.

Every rule function that rolls takes a dice source and rolls through
``source.roll(expr, purpose)``; the returned :class:`RollRecord` keeps each
face, each explosion and what the roll was for, so the game log can show
why an outcome came out as it did.

Expressions are what a GM types: ``2d6+1``, ``d8!`` (exploding, "aces"),
``4d6kh3`` / ``2d20kl1`` (keep highest / lowest), ``d100`` or ``d%``,
``3dT`` (Tesseris dT: a d10 whose faces 6-10 are one success each and
whose 9 and 10 explode; the term's value is the number of successes),
and constants, joined by ``+`` and ``-``.
"""

from __future__ import annotations

import contextlib
import functools
import random
import re
from dataclasses import dataclass, field

from .text import say, say_n

#: A chain of explosions longer than this is cut off; a fair die has odds
#: of (1/6)**100 of getting here, so only a scripted source can.
MAX_EXPLOSIONS = 100
MAX_DICE = 100  # in one expression, all terms together
MAX_SIDES = 1000
MAX_CONSTANT = 10_000
MAX_EXPR = 100  # characters

DT_SIDES = 10
DT_SUCCESS = 6  # faces 6-10 count one success
DT_EXPLODE = 9  # faces 9 and 10 add another dT


class DiceError(ValueError):
    """A dice expression that cannot be read, with the reason."""


class DiceExhausted(AssertionError):
    """A scripted dice source ran out of faces: the test scripted too few."""


@dataclass(frozen=True)
class Asked:
    """One roll the table is asked for: ``at``, its index among the command's rolls; its dice, purpose, roller, what
    counts and the rule's chance (#59)."""

    at: int
    expr: str
    purpose: object
    roller: str | None
    needs: object
    chance: float | None = None


class NeedDice(Exception):
    """A roll the table makes and has not made yet (#59): :class:`TableDice` raises it at the first roll whose
    faces nobody entered, so the command that rolls stops there, changes nothing, and asks its roller.

    ``made``: the faces of every roll before this one, in order (entered at the table or rolled by the app),
    which the command is decided again with once this roll's faces are in. Rolls made together
    (:meth:`DiceSource.together`, #70) are asked at once: ``asked`` names each (its index among the command's rolls),
    and ``made`` runs to the last roll of the block, None where an asked roll's faces go."""

    def __init__(self, expr: str, purpose: str, roller: str | None, needs: str | None, made: list,
                 chance: float | None = None, asked: list[Asked] | None = None):
        super().__init__(f"the table rolls {expr} ({purpose})")
        self.expr, self.purpose, self.roller, self.needs, self.made = expr, purpose, roller, needs, made
        self.chance = chance
        self.asked = asked or [Asked(len(made), expr, purpose, roller, needs, chance)]


@dataclass(frozen=True)
class Term:
    """One parsed part of an expression: a constant or a group of dice."""

    sign: int
    count: int = 0
    sides: int = 0  # 0 for a constant
    constant: int = 0
    explode: bool = False
    dt: bool = False
    keep: str | None = None  # "h" or "l"
    keep_count: int = 0

    @property
    def is_constant(self) -> bool:
        return self.sides == 0

    def text(self) -> str:
        if self.is_constant:
            return str(self.constant)
        if self.dt:
            return f"{self.count}dT"
        out = f"{self.count}d{self.sides}" + ("!" if self.explode else "")
        if self.keep:
            out += f"k{self.keep}{self.keep_count}"
        return out


_TERM = re.compile(
    r"""(?P<sign>[+-])?\s*(?:
        (?P<count>\d+)?\s*d\s*(?P<sides>\d+|%|[tT])\s*(?P<explode>!)?
        (?:\s*k(?P<keep>[hl])\s*(?P<keep_count>\d+))?
      | (?P<constant>\d+)
    )\s*""",
    re.VERBOSE | re.IGNORECASE,
)


def parse(expr: str) -> tuple[Term, ...]:
    """Parse a dice expression into terms, or raise :class:`DiceError`. An expression read once is not read again
    (its terms are values: a fight's rolls come from a few expressions, a forecast's thousands of fights, #68)."""
    if isinstance(expr, str) and len(expr) <= MAX_EXPR:
        return _parsed(expr)
    return _parse(expr)


@functools.lru_cache(maxsize=1024)
def _parsed(expr: str) -> tuple[Term, ...]:
    return _parse(expr)


def _parse(expr: str) -> tuple[Term, ...]:
    if not isinstance(expr, str) or not expr.strip():
        raise DiceError(say("empty dice expression"))
    if len(expr) > MAX_EXPR:
        raise DiceError(say("dice expression is too long ({most} characters at most)", most=MAX_EXPR))
    text = expr.strip()
    terms: list[Term] = []
    pos = 0
    while pos < len(text):
        m = _TERM.match(text, pos)
        if not m or m.end() == pos:
            raise DiceError(say("cannot read {part} in dice expression {expr}", part=repr(text[pos:]), expr=repr(expr)))
        if terms and not m.group("sign"):
            raise DiceError(say("expected + or - before {part} in {expr}", part=repr(text[pos:]), expr=repr(expr)))
        sign = -1 if m.group("sign") == "-" else 1
        if m.group("constant") is not None:
            constant = int(m.group("constant"))
            if constant > MAX_CONSTANT:
                raise DiceError(say("a number in a dice expression is {most} at most, in {expr}", most=MAX_CONSTANT,
                                         expr=repr(expr)))
            terms.append(Term(sign=sign, constant=constant))
        else:
            count = int(m.group("count")) if m.group("count") is not None else 1
            raw = m.group("sides")
            dt = raw in ("t", "T")
            sides = DT_SIDES if dt else 100 if raw == "%" else int(raw)
            if count + sum(t.count for t in terms) > MAX_DICE:
                raise DiceError(say("too many dice in {expr} ({most} dice at most)", expr=repr(expr), most=MAX_DICE))
            if sides < 2 or sides > MAX_SIDES:
                raise DiceError(say("a die needs 2 to {most} sides, not {sides}, in {expr}", most=MAX_SIDES, sides=sides,
                                    expr=repr(expr)))
            keep = m.group("keep")
            keep_count = int(m.group("keep_count") or 0)
            if keep and dt:
                raise DiceError(say("keep highest/lowest does not apply to dT pools in {expr}", expr=repr(expr)))
            if keep and not (1 <= keep_count <= count):
                raise DiceError(say_n("can keep 1 to {n} die, not {keep}, in {expr}", "can keep 1 to {n} dice, not {keep}, in {expr}",
                                      count, keep=keep_count, expr=repr(expr)))
            if m.group("explode") and dt:
                raise DiceError(say("dT dice explode by themselves; drop the ! in {expr}", expr=repr(expr)))
            terms.append(
                Term(
                    sign=sign,
                    count=count,
                    sides=sides,
                    explode=bool(m.group("explode")) or dt,
                    dt=dt,
                    keep=keep.lower() if keep else None,
                    keep_count=keep_count,
                )
            )
        pos = m.end()
    return tuple(terms)


@dataclass(frozen=True)
class DieRoll:
    """One die: its first face and every explosion after it."""

    sides: int
    rolls: tuple[int, ...]
    kept: bool = True
    dt: bool = False

    @property
    def value(self) -> int:
        if self.dt:
            return sum(1 for r in self.rolls if r >= DT_SUCCESS)
        return sum(self.rolls)

    @property
    def exploded(self) -> bool:
        return len(self.rolls) > 1


@dataclass(frozen=True)
class TermRoll:
    term: Term
    dice: tuple[DieRoll, ...] = ()

    @property
    def value(self) -> int:
        if self.term.is_constant:
            return self.term.sign * self.term.constant
        return self.term.sign * sum(d.value for d in self.dice if d.kept)


@dataclass(frozen=True)
class RollRecord:
    """What was rolled, why, and what came up.

    ``chance``: the exact chance, before the roll, that it meets what it needs (#59: the ask shows it, and the
    recap weighs each character's luck against it); ``met``: whether it did, told by the rule that rolled
    (:meth:`settle`); ``roller``: whose dice. All three None where the rule gives no chance."""

    expr: str
    purpose: str
    terms: tuple[TermRoll, ...]
    total: int = field(init=False)
    roller: str | None = field(default=None, compare=False)
    chance: float | None = field(default=None, compare=False)
    met: bool | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "total", sum(t.value for t in self.terms))

    def settle(self, met: bool) -> "RollRecord":
        """Record whether this roll met what it needed (the rule that rolled decides); the luck of a roll with a
        ``chance`` is counted from it."""
        object.__setattr__(self, "met", bool(met))
        return self

    @property
    def dice(self) -> list[DieRoll]:
        return [d for t in self.terms for d in t.dice]

    @property
    def faces(self) -> list[int]:
        """Every face that came up, explosions included, in rolling order."""
        return [r for d in self.dice for r in d.rolls]

    @property
    def first_faces(self) -> list[int]:
        """The first face of each die (to spot a natural 1, doubles, ...)."""
        return [d.rolls[0] for d in self.dice]

    def describe(self) -> str:
        parts = []
        for t in self.terms:
            sign = "-" if t.term.sign < 0 else "+"
            if t.term.is_constant:
                parts.append(f"{sign} {t.term.constant}")
                continue
            shown = []
            for d in t.dice:
                s = "+".join(str(r) for r in d.rolls)
                if d.exploded:
                    s = f"({s})"
                shown.append(s if d.kept else f"~{s}~")
            parts.append(f"{sign} {t.term.text()}[{', '.join(shown)}]")
        text = " ".join(parts)
        if text.startswith("+ "):
            text = text[2:]
        if self.purpose:  # the purpose is words (a Say: "Wild Die", "damage"); the dice are the same in every language
            return say("{purpose}: {dice} = {total}", purpose=self.purpose, dice=text, total=self.total)
        return f"{text} = {self.total}"

    def to_dict(self) -> dict:
        return {
            "expr": self.expr,
            "purpose": self.purpose,
            "total": self.total,
            "dice": [
                {"sides": d.sides, "rolls": list(d.rolls), "kept": d.kept, "dt": d.dt}
                for d in self.dice
            ],
            "text": self.describe(),
            **({"roller": self.roller, "chance": self.chance, "met": self.met} if self.chance is not None else {}),
        }


class DiceSource:
    """Base of every dice source: subclasses supply :meth:`face`."""

    def face(self, sides: int) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def roll(self, expr: str, purpose: str = "", roller: str | None = None, needs: str | None = None,
             chance: float | None = None) -> RollRecord:
        """Roll a dice expression; the one way rule code rolls dice.

        ``roller``: the id of the combatant whose dice these are (the attacker's for an attack and its damage, the
        defender's for a defense or a Soak); ``needs``: what counts, in words ("4 hits, 8 is a raise");
        ``chance``: the rule's exact chance that the roll meets it (the rule then :meth:`RollRecord.settle`
        says whether it did). A source that rolls itself only keeps them on the record; :class:`TableDice` asks that
        combatant's player for the faces, saying the need and the chance (#59)."""
        terms = parse(expr)
        return kept(RollRecord(expr=expr, purpose=purpose, terms=tuple(self._roll_term(t) for t in terms)),
                     roller, chance)

    def together(self):
        """A block of rolls made at once, none of them hanging on another's result (#70: a round's initiative,
        everyone rolling together): the table is asked for them all at once. Rolling itself, a source rolls them as
        ever (a context that does nothing)."""
        return contextlib.nullcontext()

    def _roll_die(self, term: Term) -> DieRoll:
        rolls = [self._checked_face(term.sides)]
        threshold = DT_EXPLODE if term.dt else term.sides
        while term.explode and rolls[-1] >= threshold and len(rolls) <= MAX_EXPLOSIONS:
            rolls.append(self._checked_face(term.sides))
        return DieRoll(sides=term.sides, rolls=tuple(rolls), dt=term.dt)

    def _roll_term(self, term: Term) -> TermRoll:
        if term.is_constant:
            return TermRoll(term=term)
        dice = [self._roll_die(term) for _ in range(term.count)]
        if term.keep:
            order = sorted(range(len(dice)), key=lambda i: dice[i].value, reverse=term.keep == "h")
            keep = set(order[: term.keep_count])
            dice = [DieRoll(d.sides, d.rolls, kept=i in keep, dt=d.dt) for i, d in enumerate(dice)]
        return TermRoll(term=term, dice=tuple(dice))

    def _checked_face(self, sides: int) -> int:
        value = self.face(sides)
        if not 1 <= value <= sides:
            raise DiceError(say("a d{sides} cannot show {value}", sides=sides, value=value))
        return value


def kept(record: RollRecord, roller: str | None, chance: float | None) -> RollRecord:
    """``record`` with whose dice it is and its chance (a fresh record: set once, before any rule reads it)."""
    if chance is not None:
        if not -1e-9 <= chance <= 1.0 + 1e-9:  # a sum of exact odds may stray past 0 or 1 by a rounding error
            raise ValueError(f"a chance is 0 to 1, not {chance!r}")
        object.__setattr__(record, "chance", max(0.0, min(1.0, float(chance))))
    object.__setattr__(record, "roller", roller)
    return record


class SeededDice(DiceSource):
    """Pseudo-random dice: the same seed gives the same rolls. Seeded at the first roll: the server makes one for
    every command it decides (``Hub.dice``), and most (a move) roll nothing; seeding from a string hashes it."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.seed = seed
        self._random: random.Random | None = None

    def face(self, sides: int) -> int:
        if self._random is None:
            self._random = random.Random(self.seed)
        return self._random.randint(1, sides)


class RandomDice(DiceSource):
    """Dice from the operating system's randomness, for real play."""

    def __init__(self) -> None:
        self._random = random.SystemRandom()

    def face(self, sides: int) -> int:
        return self._random.randint(1, sides)


class ScriptedDice(DiceSource):
    """Hands out the given faces in order, for tests and worked examples.

    Raises :class:`DiceExhausted` when a roll needs more faces than were
    scripted, and :class:`DiceError` when a face cannot be on the die.
    """

    def __init__(self, faces) -> None:
        self._faces = list(faces)
        self._next = 0

    @property
    def remaining(self) -> list[int]:
        return self._faces[self._next :]

    def face(self, sides: int) -> int:
        if self._next >= len(self._faces):
            raise DiceExhausted(f"scripted dice ran out after {len(self._faces)} faces (wanted a d{sides})")
        value = self._faces[self._next]
        self._next += 1
        return value


def rolled_from(expr: str, faces, purpose: str = "") -> RollRecord:
    """The roll of ``expr`` that shows exactly these faces (in rolling order, each explosion's die right after the
    face that exploded), as the app's own dice would have rolled them; :class:`DiceError` says why not: a face no
    such die shows, a chain that stops on a face that explodes, too few or too many faces."""
    terms = parse(expr)
    faces = list(faces)
    if not all(isinstance(f, int) and not isinstance(f, bool) for f in faces):
        raise DiceError(say("a face is a whole number"))
    wanted = sum(t.count for t in terms if not t.is_constant)
    source = ScriptedDice(faces)
    try:
        record = source.roll(expr, purpose)
    except DiceExhausted:
        last = next((t for t in reversed(terms) if not t.is_constant), None)
        shown = len(faces) - len(source.remaining)
        if shown and last is not None and _explodes(terms, faces[:shown]):
            raise DiceError(say("{face} explodes: enter the next roll of that die too", face=faces[shown - 1])) from None
        raise DiceError(say_n("{expr} needs {n} die; {given} entered", "{expr} needs {n} dice; {given} entered",
                              wanted, expr=expr, given=len(faces))
                        if len(faces) < wanted else say("{expr}: a die is missing", expr=expr)) from None
    if source.remaining:
        raise DiceError(say_n("{expr} shows {n} face here; {extra} more entered",
                              "{expr} shows {n} faces here; {extra} more entered", len(record.faces),
                              expr=expr, extra=len(source.remaining)))
    return record


def _explodes(terms, shown: list[int]) -> bool:
    """Whether the last of ``shown`` (a roll's faces so far) is a face that explodes, rolling ``terms`` in order."""
    i = 0
    for term in terms:
        if term.is_constant:
            continue
        threshold = DT_EXPLODE if term.dt else term.sides
        for _ in range(term.count):
            if i >= len(shown):
                return False
            while True:
                face, i = shown[i], i + 1
                if i >= len(shown):
                    return term.explode and face >= threshold
                if not (term.explode and face >= threshold):
                    break
    return False


class TableDice(DiceSource):
    """The table's own dice (#59): the faces entered at the table, roll by roll, through the very rule code.

    ``made``: the faces of the rolls made so far for this command, in order (entered, or rolled by the app for a
    roller the app rolls for); each roll takes the next. Past them, a roll whose ``roller`` the table rolls for
    (``table_rolls(roller)``) raises :class:`NeedDice`, and the command is decided again once its faces are in;
    any other roll is the ``fallback``'s (the app's dice) and is kept in ``made``, so deciding again gives it the
    same faces. Fed the faces the app's dice would have shown, the rules give the same outcome: every roll is
    :func:`rolled_from` them."""

    def __init__(self, made, table_rolls, fallback: DiceSource) -> None:
        self.made = [list(f) for f in made]
        self.entered = [True] * len(self.made)  # set by the caller: which of ``made`` the table rolled
        self._table_rolls = table_rolls
        self._fallback = fallback
        self._next = 0
        self._batch: list[Asked] | None = None  # the rolls asked in a together block, while in one

    def roll(self, expr: str, purpose: str = "", roller: str | None = None, needs: str | None = None,
             chance: float | None = None) -> RollRecord:
        i = self._next
        if i < len(self.made):
            record = kept(rolled_from(expr, self.made[i], purpose), roller, chance)
        elif self._table_rolls(roller) and self._batch is None:
            raise NeedDice(expr, purpose, roller, needs, [list(f) for f in self.made], chance)
        else:
            # in a together block a roll the table makes is asked at the block's end; meanwhile the block goes on
            # with the app's faces for it, which nothing keeps (none of its rolls hangs on another's result)
            record = self._fallback.roll(expr, purpose, roller=roller, chance=chance)
            if self._table_rolls(roller):
                self._batch.append(Asked(i, expr, purpose, roller, needs, chance))
            self.made.append(record.faces)
            self.entered.append(False)
        self._next += 1
        return record

    @contextlib.contextmanager
    def together(self):
        """Rolls made at once (#70): every roll of the block the table makes and has no faces for is asked at the
        block's end, all in one :class:`NeedDice` (``asked``); ``made`` then holds None where their faces go."""
        if self._batch is not None:  # a block within a block: one batch
            yield
            return
        self._batch = []
        try:
            yield
            batch = self._batch
        finally:
            self._batch = None
        if batch:
            made = [list(f) for f in self.made]
            for a in batch:
                made[a.at] = None
            first = batch[0]
            raise NeedDice(first.expr, first.purpose, first.roller, first.needs, made, first.chance, batch)

    def face(self, sides: int) -> int:  # pragma: no cover - every roll goes through roll()
        raise NotImplementedError
